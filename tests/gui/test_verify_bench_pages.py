"""Verify and Benchmark pages, offscreen, running the real probes through QProcess."""

from __future__ import annotations

import os
import venv

import pytest

pytest.importorskip("pytestqt")
pytestmark = pytest.mark.slow  # real probes in real venvs

from tests import scenarios  # noqa: E402
from tests.gui.wizard_driver import go_to, open_wizard  # noqa: E402
from wizard.ui.pages.base import PageId  # noqa: E402


def _plain_python(tmp_path):
    env = tmp_path / "no torch env"
    venv.create(env, with_pip=False)
    return str(env / ("Scripts/python.exe" if os.name == "nt" else "bin/python"))


def test_verify_page_without_torch_says_install_it(qtbot, tmp_path):
    window = open_wizard(qtbot, scenarios.linux_host())
    window.model.session.target_python = _plain_python(tmp_path)
    go_to(window, PageId.VERIFY)
    page = window.verify_page
    assert page.picker.path() == window.model.session.target_python
    with qtbot.waitSignal(page.probe.finished, timeout=120000):
        page.run_button.click()
    report = window.model.session.verify
    assert report.status == "fail"
    titles = [page.tree.topLevelItem(i).text(0) for i in range(page.tree.topLevelItemCount())]
    assert "✖" in titles
    assert "failed" in page.status.text()
    page.copy_button.click()
    from PySide6.QtGui import QGuiApplication

    assert "torch" in QGuiApplication.clipboard().text().lower()


@pytest.mark.slow
def test_verify_and_benchmark_pages_on_real_torch(qtbot, torch_python):
    window = open_wizard(qtbot, scenarios.linux_host())
    window.model.session.target_python = str(torch_python)
    go_to(window, PageId.VERIFY)
    page = window.verify_page
    with qtbot.waitSignal(page.probe.finished, timeout=300000):
        page.run_button.click()
    report = window.model.session.verify
    assert report.check("torch.import").status == "pass"
    assert report.status in ("pass", "warn")
    window.next()
    bench = window.benchmark_page
    bench.extra_args = ["--max-size", "512", "--mlp-batch", "32", "--max-bytes", str(8 * 1024 * 1024)]
    assert bench.picker.path() == str(torch_python)
    with qtbot.waitSignal(bench.probe.finished, timeout=300000):
        bench.run_button.click()
    result = window.model.session.bench
    assert result.results and bench.table.rowCount() == len(result.results)
    assert result.sweep("cpu") and bench.plots is not None
    assert "GFLOP" in bench.summary.text() or "CPU" in bench.summary.text()


def test_cancel_stops_the_probe(qtbot, tmp_path):
    window = open_wizard(qtbot, scenarios.linux_host())
    slow = tmp_path / "slow.py"
    slow.write_text("import time\nprint('{\"event\": \"progress\", \"step\": \"x\"}', flush=True)\ntime.sleep(60)\n")
    page = window.verify_page
    from wizard.core.verify.checklist import VerifyReport

    page.report = VerifyReport(detection=None, python_exe=os.sys.executable)
    page.probe.start(os.sys.executable, str(slow), [])
    qtbot.waitUntil(lambda: page.probe.running, timeout=10000)
    with qtbot.waitSignal(page.probe.finished, timeout=15000) as blocker:
        page.probe.cancel()
    assert blocker.args[0].cancelled


def test_diagnosis_with_actions_after_verify(qtbot, tmp_path, monkeypatch):
    """A GPU machine whose environment has no torch: the diagnosis appears with an action; the
    action asks first (declined here: nothing changes)."""
    window = open_wizard(qtbot, scenarios.windows_rtx2080super())
    window.model.session.target_python = _plain_python(tmp_path)
    go_to(window, PageId.VERIFY)
    page = window.verify_page
    with qtbot.waitSignal(page.probe.finished, timeout=120000):
        page.run_button.click()
    qtbot.waitUntil(lambda: page.diagnosis_box.isVisible(), timeout=30000)
    found = window.model.session.diagnosis
    assert found and all(f.title("en") for f in found)
    assert found[0].id == "torch-not-installed" and found[0].action.kind == "reinstall_cuda_build"
    card = page.diagnosis.cards[0]
    from PySide6.QtWidgets import QMessageBox

    asked = []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append(a) or QMessageBox.StandardButton.No)
    card.button.click()
    assert asked and window.currentId() == PageId.VERIFY  # declined: nothing happened
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    card.button.click()
    assert window.currentId() == PageId.RECOMMEND  # accepted: back to the build to install
    assert window.recommend_page.selected.variant.startswith("cu")
