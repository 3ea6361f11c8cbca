"""The command line works on a machine without Qt: every command but `report --format pdf`.

Each command runs as a student runs it (`python -m wizard ...`) in a process where PySide6,
shiboken6 and pyqtgraph cannot be imported (tests/no_qt/sitecustomize.py on PYTHONPATH), so
a Qt import anywhere on the headless path, even one inside a function, fails the command. HOME
and the XDG folders point into the test's own folder, so nothing of this machine's user leaks in
or is written.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.index_server import LoopbackIndex, make_wheel

REPO = Path(__file__).resolve().parents[2]
NO_QT = REPO / "tests" / "no_qt"
pytestmark = pytest.mark.slow  # each test starts the wizard in a fresh process


def run_without_qt(home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(NO_QT), str(REPO)]), "GSW_LANG": "en",
           "PYTHONUTF8": "1", "HOME": str(home), "USERPROFILE": str(home),
           "XDG_CONFIG_HOME": str(home / ".config"), "XDG_CACHE_HOME": str(home / ".cache"),
           "XDG_DATA_HOME": str(home / ".local" / "share"), "XDG_STATE_HOME": str(home / ".local" / "state"),
           "GSW_DATA_DIR": str(home / "gsw data"), "NO_PROXY": "127.0.0.1,localhost",
           "no_proxy": "127.0.0.1,localhost"}
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        env.pop(name, None)
    return subprocess.run([sys.executable, "-m", "wizard", *args], cwd=home, env=env, capture_output=True,
                          text=True, encoding="utf-8", timeout=600)


def _json_out(done: subprocess.CompletedProcess) -> dict:
    assert done.returncode == 0, done.stderr[-3000:]
    assert "PySide6" not in done.stderr, done.stderr[-3000:]
    return json.loads(done.stdout)


def test_the_blocker_really_blocks_qt(student_home):
    """Without this the other tests would pass on a machine where the blocker silently did nothing."""
    done = subprocess.run([sys.executable, "-c", "import PySide6.QtCore"], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(NO_QT)}, timeout=60)
    assert done.returncode != 0 and "Qt is blocked for this test" in done.stderr, done.stderr


def test_doctor(student_home):
    assert _json_out(run_without_qt(student_home, "doctor", "--json"))["schema"] == "gpu-setup-wizard/doctor@1.0"


def test_recommend_for_a_machine_given_on_the_command_line(student_home):
    doc = _json_out(run_without_qt(student_home, "recommend", "--os", "windows", "--arch", "x86_64", "--python",
                                   "3.11", "--driver", "566.36", "--gpu-cc", "8.6", "--json"))
    assert doc["schema"] == "gpu-setup-wizard/recommend@1.0"


def test_vram(student_home):
    doc = _json_out(run_without_qt(student_home, "vram", "--model", "gpt2", "--vram-gb", "8", "--json"))
    assert doc["schema"] == "gpu-setup-wizard/vram@1.0"


def test_history(student_home):
    doc = _json_out(run_without_qt(student_home, "history", "--json", "list"))
    assert doc["schema"] == "gpu-setup-wizard/history@1.0"


@pytest.mark.parametrize("fmt", ["md", "json"])
def test_report(student_home, fmt):
    done = run_without_qt(student_home, "report", "--format", fmt)
    assert done.returncode == 0 and "PySide6" not in done.stderr, done.stderr[-3000:]
    if fmt == "json":
        assert json.loads(done.stdout)["schema"] == "gpu-setup-wizard/report@1.1"
    else:
        assert done.stdout.startswith("# ")


def test_report_as_pdf_says_qt_is_missing_without_a_traceback(student_home):
    done = run_without_qt(student_home, "report", "--format", "pdf", "-o", str(student_home / "r.pdf"))
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr[-3000:]
    assert not (student_home / "r.pdf").exists()


@pytest.fixture(scope="module")
def fake_torch(tmp_path_factory) -> list[Path]:
    """Tiny wheels named torch/torchvision at the versions the recommender picks for torch 2.13 CPU."""
    from wizard.core.recommend.inputs import MachineFacts, Wishes
    from wizard.core.recommend.recommender import recommend

    minor = f"{sys.version_info[0]}.{sys.version_info[1]}"
    best = recommend(MachineFacts("linux", "x86_64", minor), Wishes(torch="2.13.0", variant="cpu")).best
    if best is None or sys.platform != "linux":
        pytest.skip("the recommender offers no torch 2.13 CPU build for this Python/OS")
    folder = tmp_path_factory.mktemp("fake torch")
    return [make_wheel(folder, "torch", f"{best.torch}+cpu"),
            make_wheel(folder, "torchvision", f"{best.torchvision}+cpu", requires=[f"torch=={best.torch}"])]


def test_install_plan_only(student_home, fake_torch):
    with LoopbackIndex() as index:
        index.add_wheels(fake_torch)
        venv_dir = student_home / "envs" / "torch cpu"
        doc = _json_out(run_without_qt(student_home, "install", "--venv", str(venv_dir), "--python", sys.executable,
                                       "--torch", "2.13.0", "--variant", "cpu", "--index-url",
                                       index.base + "/whl", "--plan-only", "--json"))
        assert doc["schema"] == "gpu-setup-wizard/install-plan@1.0"
        assert {f["name"] for f in doc["files"]} == {"torch", "torchvision"}
        assert not venv_dir.exists() and index.total_file_bytes_served() == 0


def test_verify(student_home, torch_python):
    doc = _json_out(run_without_qt(student_home, "verify", "--python", str(torch_python), "--json"))
    assert doc["schema"] == "gpu-setup-wizard/verify@1.0"
    assert {c["id"]: c["status"] for c in doc["checks"]}["torch.import"] == "pass"
