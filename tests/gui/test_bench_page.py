"""The Benchmark page's plots (QPainter, the report's style) and its Cancel that asks first."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtGui import QImage  # noqa: E402

from tests import scenarios  # noqa: E402
from tests.gui.wizard_driver import go_to, open_wizard  # noqa: E402
from wizard.core.verify.benchmark import BenchReport  # noqa: E402
from wizard.ui.pages.base import PageId  # noqa: E402
from wizard.ui.widgets.bench_plots import BenchPlots, nice_step, sweep_png, sweep_series  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data" / "probe"


def recorded(name: str) -> BenchReport:
    lines = (DATA / name).read_text(encoding="utf-8").splitlines()
    return BenchReport.from_events([json.loads(line) for line in lines if line.strip()])


def test_round_ticks():
    assert [nice_step(top) for top in (4, 9, 40, 130, 2600)] == [1, 5, 10, 50, 1000]


def test_gpu_run_has_curves_and_bars(qtbot):
    plots = BenchPlots()
    qtbot.addWidget(plots)
    plots.resize(800, 300)
    plots.show()
    report = recorded("bench_rtx3060_quick_linux.jsonl")
    plots.show_report(report, "en")
    assert [s.label for s in plots.series][:2] == ["CPU fp32", "CUDA fp32"]
    assert plots.rows and plots.bars.isVisibleTo(plots)
    image = plots.grab().toImage()
    assert image.width() > 0 and image.pixelColor(5, 5).isValid()
    png = sweep_png(report, "ko")  # the report's picture: the same drawing
    assert png and QImage.fromData(png).width() == 1280


def test_cpu_only_run_has_no_gpu_panel(qtbot):
    plots = BenchPlots()
    qtbot.addWidget(plots)
    plots.show()
    report = recorded("bench_cpu_only_windows.jsonl")
    plots.show_report(report, "ko")
    assert [s.label for s in sweep_series(report)] == ["CPU fp32"]
    assert not plots.bars.isVisibleTo(plots)  # no "no GPU results yet" panel on a PC without one
    plots.grab()


def test_benchmark_page_loads_neither_pyqtgraph_nor_numpy():
    code = ("import sys\nfrom PySide6.QtWidgets import QApplication\napp = QApplication([])\n"
            "from tests import scenarios\nfrom wizard.app.session import Session\n"
            "from wizard.ui.main_wizard import SetupWizard\n"
            "w = SetupWizard(Session(host=scenarios.linux_host())); w.show()\n"
            "for page_id in w.pageIds():\n    w.page(page_id).ensure_built()\n"
            "w.benchmark_page.plots.show_report(w.model.session.bench or __import__('wizard.core.verify.benchmark',"
            " fromlist=['x']).BenchReport(), 'en')\napp.processEvents()\n"
            "print(sorted(m for m in ('numpy', 'pyqtgraph') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120,
                         env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"


@pytest.mark.slow
def test_cancel_and_close_ask_before_stopping_the_benchmark(qtbot, torch_python, monkeypatch):
    answers: list[bool] = []
    asked: list[tuple] = []
    monkeypatch.setattr("wizard.ui.pages.benchmark_page.ask_yes_no",
                        lambda *a: asked.append(a) or answers.pop(0))
    window = open_wizard(qtbot, scenarios.linux_host(), lang="ko")
    window.model.session.target_python = str(torch_python)
    go_to(window, PageId.BENCHMARK)
    page = window.benchmark_page
    page.full.setChecked(True)  # long enough to cancel in the middle
    page.run_button.click()
    qtbot.waitUntil(lambda: page.table.rowCount() >= 1, timeout=240000)
    answers.append(False)  # "keep measuring"
    page.cancel_button.click()
    assert len(asked) == 1 and "벤치마크" in asked[0][1] and page.probe.running
    answers.append(True)  # the window's close: asks, stops, then closes
    with qtbot.waitSignal(page.probe.finished, timeout=60000):
        window.reject()
    assert len(asked) == 2 and "닫을까요" in asked[1][2]
    assert page.probe.outcome.cancelled
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=10000)
    assert window.model.session.bench is not None and window.model.session.bench.results  # kept
