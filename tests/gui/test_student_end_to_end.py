"""A student's whole run, offscreen, with no hand-made session in between:
detection (this machine: no GPU) → recommendation (a CPU build) → a new venv installed from
the loopback index → verify → quick benchmark → VRAM with a typed-in 8 GB → report exported.

The index serves the real torch 2.13.0 CPU wheel (pip takes it from the machine's disk) and
its real dependencies; torchvision is a tiny stand-in wheel, because PyPI's torchvision does
not import beside that torch build (and nothing here imports it). The course pins torch 2.13
the way a diagnosis action or a course would: ``requested_build``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from tests.gui.install_driver import commit, wait_end, wait_plan  # noqa: E402
from tests.integration.index_server import LoopbackIndex, make_wheel  # noqa: E402
from wizard.app.session import Session  # noqa: E402
from wizard.core.base.host import RealHost  # noqa: E402
from wizard.ui.main_wizard import SetupWizard  # noqa: E402
from wizard.ui.pages.environment.common import MODE_NEW_VENV  # noqa: E402

pytestmark = pytest.mark.slow
WAIT_MS = 600_000


@pytest.fixture(scope="module")
def torch_wheels(tmp_path_factory):
    d = tmp_path_factory.mktemp("student wheels")
    got = subprocess.run([sys.executable, "-m", "pip", "download", "torch==2.13.0", "--only-binary", ":all:",
                          "-d", str(d), "-q"], capture_output=True, text=True, timeout=900)
    if got.returncode != 0 or not list(d.glob("torch-2.13.0*.whl")):
        pytest.skip(f"no torch 2.13.0 wheel can be had here: {(got.stderr or got.stdout)[-300:]}")
    make_wheel(d, "torchvision", "0.28.0+cpu", requires=["torch==2.13.0"])
    return sorted(d.glob("*.whl"))


def test_a_student_goes_through_the_whole_wizard(qtbot, torch_wheels, root, tmp_path):  # noqa: F811
    session = Session(host=RealHost(), lang="en")
    window = SetupWizard(session)
    qtbot.addWidget(window)
    window.show()
    with qtbot.waitSignal(window.model.detection_finished, timeout=60000):
        window.start()
    assert session.detection.nvidia.status == "no-driver"
    window.next()  # GPU & driver
    session.requested_build = {"torch": "2.13.0", "variant": "cpu"}  # the course's pin
    window.next()  # Recommendation
    chosen = window.recommend_page.selected
    assert (chosen.torch, chosen.variant, chosen.kind) == ("2.13.0", "cpu", "cpu")
    assert not window.recommend_page.override_failures  # a CPU build runs here

    with LoopbackIndex() as index:
        index.add_wheels(torch_wheels)
        window.next()  # Environment
        env = window.environment_page
        env.cache_dir = str(root / "cache")
        env.state_dir = str(root / "state")
        env.settings.mirror = index.base + "/whl"
        env.set_mode(MODE_NEW_VENV)
        env.venv_path.setText(str(root / "envs" / "딥러닝 환경"))
        wait_plan(qtbot, env)
        assert env.plan is not None and env.plan_error is None, env.plan_error
        commit(window)  # Install
        install = window.install_page
        wait_end(qtbot, install)
        assert install.state == "done", install.log.toPlainText()[-3000:] if hasattr(install.log, "toPlainText") else ""
    env_python = session.install.env_python
    assert "딥러닝 환경" in env_python

    window.next()  # Verify, in the new environment
    verify = window.verify_page
    assert verify.picker.path() == env_python
    with qtbot.waitSignal(verify.probe.finished, timeout=WAIT_MS):
        verify.run_button.click()
    report = session.verify
    assert report.check("torch.import").status == "pass"
    assert report.check("cpu.matmul").status == "pass"

    window.next()  # Benchmark
    bench = window.benchmark_page
    bench.extra_args = ["--max-size", "512", "--mlp-batch", "32", "--max-bytes", str(8 * 1024 * 1024)]
    with qtbot.waitSignal(bench.probe.finished, timeout=WAIT_MS):
        bench.run_button.click()
    assert session.bench.sweep("cpu")

    window.next()  # VRAM: a typed-in 8 GB card
    vram = window.vram_page
    vram.gpu_combo.setCurrentIndex(vram.gpu_combo.count() - 1)
    vram.gb_spin.setValue(8)
    assert vram.vram()[0] == 8 * 2**30 and vram.last_estimate is not None

    window.next()  # Report
    page = window.report_page
    out = tmp_path / "제출 보고서"
    out.mkdir()
    for fmt in ("md", "json", "pdf"):
        assert page.save_to(fmt, out / f"report.{fmt}"), fmt
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert "torch 2.13.0" in markdown and "CPU time" in markdown
    doc = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert doc["schema"].startswith("gpu-setup-wizard/report@1.")
    assert (out / "report.pdf").read_bytes().startswith(b"%PDF")
    assert str(Path.home()) + "/" not in markdown  # private by default
