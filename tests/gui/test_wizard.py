"""The wizard window, offscreen: every page exists, detection fills the first two, no freeze."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtWidgets import QLabel, QTreeWidget  # noqa: E402

from tests import scenarios  # noqa: E402
from tests.gui.wizard_driver import go_to, open_wizard  # noqa: E402
from wizard.app.session import Session  # noqa: E402
from wizard.core.base.host import RealHost  # noqa: E402
from wizard.ui.main_wizard import SetupWizard  # noqa: E402
from wizard.ui.pages.base import PageId  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


def texts(widget) -> str:
    return "\n".join(label.text() for label in widget.findChildren(QLabel))


# The student's flow, written out here rather than read back from PageId or the window.
FLOW = [("SYSTEM", "SystemPage"), ("GPU", "GpuPage"), ("RECOMMEND", "RecommendPage"),
        ("ENVIRONMENT", "EnvironmentPage"), ("INSTALL", "InstallPage"), ("VERIFY", "VerifyPage"),
        ("BENCHMARK", "BenchmarkPage"), ("VRAM", "VramPage"), ("REPORT", "ReportPage")]


def test_all_pages_exist_in_flow_order(qtbot):
    """Next, followed from the start page, visits the real page of each step in the flow's order
    (a missing page, a stand-in, or a page out of order fails it)."""
    window = SetupWizard(Session(host=scenarios.linux_host()))
    qtbot.addWidget(window)
    walked, page_id = [], window.startId()
    while page_id != -1 and len(walked) <= len(FLOW):
        page = window.page(page_id)
        walked.append((PageId(page_id).name, type(page).__name__))
        page_id = page.nextId()
    assert walked == FLOW


def test_system_page_filled_from_this_machine(qtbot):
    window = open_wizard(qtbot, RealHost())
    page = window.system_page
    assert page.isComplete()
    shown = texts(page)
    assert "GiB" in shown and "Detection finished" in shown
    tree = page.findChild(QTreeWidget, "pythonTree")
    versions = [tree.topLevelItem(i).text(0) for i in range(tree.topLevelItemCount())]
    assert f"{sys.version_info.major}.{sys.version_info.minor}.{sys.version_info.micro}" in versions


def test_next_waits_for_detection(qtbot):
    window = SetupWizard(Session(host=scenarios.linux_host()))
    qtbot.addWidget(window)
    window.show()
    assert not window.system_page.isComplete()
    with qtbot.waitSignal(window.model.detection_finished, timeout=30000):
        window.start()
    assert window.system_page.isComplete()


def test_gpu_page_shows_every_gpu_field_findings_and_live_plot(qtbot):
    window = open_wizard(qtbot, scenarios.windows_rtx2080super())
    window.next()
    page = window.gpu_page
    assert window.currentId() == PageId.GPU
    shown = texts(page)
    for expected in ("NVIDIA GeForce RTX 2080 SUPER", "7.5  (sm_75)", "8192 MiB", "WDDM", "591.86", "13.1",
                     "nvidia-smi is not on PATH"):
        assert expected in shown, expected
    assert page.tabs.count() == 1
    qtbot.waitUntil(lambda: page.plot is not None and len(page.plot.curves) >= 3, timeout=10000)
    assert "pyqtgraph" in sys.modules
    page.cleanup()


def test_no_gpu_is_calm(qtbot):
    window = open_wizard(qtbot, scenarios.linux_host())
    window.next()
    page = window.gpu_page
    assert page.plot is None and not page.timer.isActive()
    assert not page.tabs.isVisible()
    assert "No NVIDIA GPU on this computer" in texts(page)


def test_rescan_detects_again(qtbot):
    host = scenarios.linux_host()
    window = open_wizard(qtbot, host)
    window.next()
    calls = len(host.calls)
    with qtbot.waitSignal(window.model.detection_finished, timeout=30000):
        window.gpu_page.rescan.click()
    assert len(host.calls) > calls


def test_language_switch_retranslates(qtbot):
    window = open_wizard(qtbot, scenarios.windows_rtx2080super())
    combo = window.system_page.lang_combo
    combo.setCurrentIndex(combo.findData("ko"))
    assert window.windowTitle() == "GPU 환경 설정 마법사"
    assert window.system_page.system_box.title() == "이 컴퓨터"
    assert "운영체제:" in texts(window.system_page)
    window.next()  # the GPU page is built on first show, in the language chosen before
    assert "nvidia-smi가 PATH에 없습니다" in texts(window.gpu_page)
    combo.setCurrentIndex(combo.findData("en"))
    assert "nvidia-smi is not on PATH" in texts(window.gpu_page)


def test_start_up_does_not_import_slow_modules():
    code = ("import sys\nfrom PySide6.QtWidgets import QApplication\napp = QApplication([])\n"
            "from wizard.app.session import Session\nfrom wizard.ui.main_wizard import SetupWizard\n"
            "w = SetupWizard(Session()); w.show(); app.processEvents()\n"
            "print(sorted(m for m in ('numpy', 'pyqtgraph', 'torch') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120,
                         env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_smoke_test_prints_start_up_time():
    out = subprocess.run([sys.executable, "-m", "wizard", "--smoke-test"], cwd=REPO, capture_output=True,
                         text=True, timeout=120, env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})
    assert out.returncode == 0, out.stderr
    line = out.stdout.strip().splitlines()[-1]
    assert line.startswith("smoke-test: first page painted after ") and line.endswith(" ms")
    assert 0 < float(line.split()[-2]) < 60000


def test_vram_page_estimates_for_the_detected_gpu(qtbot):
    window = open_wizard(qtbot, scenarios.windows_rtx2080super())
    go_to(window, PageId.VRAM)
    page = window.vram_page
    assert page.gpu_combo.currentText().startswith("This GPU: NVIDIA GeForce RTX 2080 SUPER (8.00 GiB)")
    assert page.model_combo.currentData() == "llama-2-7b"
    assert page.last_estimate is not None and page.last_estimate.fits is False  # 7B fp16 on 8 GB
    assert "Does not fit" in page.verdict.text()
    assert page.table.rowCount() >= 8
    verdicts = [page.table.item(r, 1).text() for r in range(page.table.rowCount())]
    assert any("runs on this GPU" in v for v in verdicts) and any("Colab" in v for v in verdicts)
    assert page.bar is not None and "weights" in page.bar.bars
    # 4-bit weights with a 4096-token cache still do not fit beside the 1296 MiB already in use...
    page.precision_combo.setCurrentIndex(page.precision_combo.findData("nf4"))
    assert page.last_estimate.vram_used_bytes == 1296 * 2**20 and page.last_estimate.fits is False
    # ...with 1024 tokens they do
    page.context_spin.setValue(1024)
    assert page.last_estimate.fits is True and "Fits" in page.verdict.text()


def test_vram_page_typed_in_card_and_bad_custom_size(qtbot):
    window = open_wizard(qtbot, scenarios.linux_host())  # no GPU: this PC first, then the what-if cards
    go_to(window, PageId.VRAM)
    page = window.vram_page
    assert page.gpu_combo.currentData()[0] == "none" and page.gpu_combo.itemData(1)[0] == "preset"
    page.gpu_combo.setCurrentIndex(page.gpu_combo.count() - 1)  # another card
    assert page.gb_spin.isEnabled()
    page.gb_spin.setValue(24)
    assert page.vram()[0] == 24 * 2**30
    page.model_combo.setCurrentIndex(page.model_combo.findData("__custom__"))
    assert page.params_edit.isVisible()
    page.params_edit.setText("7X")
    assert "7X" in page.verdict.text() and page.last_estimate is None
    page.params_edit.setText("1.5B")
    assert page.last_estimate is not None and page.last_estimate.model.params == 1_500_000_000


def test_recommend_page_shows_choice_commands_and_override(qtbot):
    window = open_wizard(qtbot, scenarios.windows_rtx2080super())
    go_to(window, PageId.RECOMMEND)
    page = window.recommend_page
    assert page.isComplete()
    best = page.choice.recommendation.best
    assert best.kind == "cuda" and page.selected is best
    assert f"PyTorch {best.torch}" in page.choice_label.text() and "CUDA" in page.choice_label.text()
    assert "--index-url https://download.pytorch.org/whl/" in page.command_edits["pip"].toPlainText()
    assert "sm_75" in page.why.text()
    page.copy_button.click()
    from PySide6.QtGui import QGuiApplication

    assert QGuiApplication.clipboard().text() == page.command_edits["pip"].toPlainText()
    # the override: pick a rejected option, see why, use it anyway
    page.more_button.click()
    assert page.more.isVisible()
    rejected_root = page.tree.topLevelItem(1)
    assert rejected_root.childCount() == len(page.choice.recommendation.rejected) > 0
    page.tree.setCurrentItem(rejected_root.child(0))
    assert "⚠" in page.override_note.text()
    page.use_button.click()
    assert page.selected is not best and page.override_failures
    assert window.model.session.candidate is page.selected
    assert "✖" in page.why.text()


def test_recommend_page_without_gpu_recommends_cpu_and_colab(qtbot):
    window = open_wizard(qtbot, scenarios.linux_host(), lang="ko")
    go_to(window, PageId.RECOMMEND)
    page = window.recommend_page
    assert page.selected.kind == "cpu"
    assert "CPU" in page.choice_label.text()
    assert "Colab" in page.advice.text()
    assert page.python_combo.currentData() is None and page.python_combo.count() >= 2


def test_first_page_says_what_changed_since_the_last_run(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("GSW_DATA_DIR", str(tmp_path))
    from wizard.core.history.store import HistoryStore, build_snapshot
    from wizard.core.machine.detect import detect

    before = scenarios.windows_rtx2080super()
    desc = scenarios.fake_nvml.rtx2080super_windows()
    desc["driver_version"] = "566.36"
    desc["cuda_driver_version"] = 12070
    before.nvml_module = scenarios.fake_nvml.FakeNvml(desc)
    assert HistoryStore().save(build_snapshot(detect(before, pythons=False, conda=False))).ok

    window = open_wizard(qtbot, scenarios.windows_rtx2080super())
    page = window.system_page
    qtbot.waitUntil(lambda: page.changes.isVisible(), timeout=10000)
    assert "566.36" in page.changes.text() and "591.86" in page.changes.text()
    with qtbot.waitSignal(window.model.detection_finished, timeout=30000):
        page.rerun.click()
    assert window.currentId() == PageId.GPU


def test_no_banner_without_history(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("GSW_DATA_DIR", str(tmp_path))
    window = open_wizard(qtbot, scenarios.linux_host())
    qtbot.waitUntil(lambda: window.model.session.changes_checked, timeout=10000)  # the comparison ran
    assert not window.system_page.changes.isVisible()
    assert window.model.session.changes_checked and window.model.session.changes is None
