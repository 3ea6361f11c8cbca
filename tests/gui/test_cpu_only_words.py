"""On a PC without an NVIDIA GPU the Benchmark page and the report's plot do not speak of a GPU
("CPU와 GPU" was shown with no GPU at all)."""

from __future__ import annotations

from tests import report_sessions as rs
from tests import scenarios
from tests.gui.wizard_driver import go_to, open_wizard
from wizard.core.verify.benchmark import BenchReport, BenchResult
from wizard.ui.pages.base import PageId
from wizard.ui.pages.report_page import report_plots


def test_the_benchmark_page_without_a_gpu_says_cpu(qtbot, history_dir):
    window = open_wizard(qtbot, scenarios.linux_host(), lang="ko")  # no NVIDIA driver
    go_to(window, PageId.BENCHMARK)
    text = window.benchmark_page.summary.text()
    assert "NVIDIA GPU가 없습니다" in text and "CPU와 GPU" not in text


def test_the_report_plot_of_a_cpu_only_benchmark_names_the_cpu_alone(qapp):
    session = rs.no_gpu_session("ko")
    session.bench = BenchReport(results=[BenchResult("matmul", "cpu", "fp32", n, 0.01, 0.0001, 50.0 + n / 100,
                                                     "GFLOP/s") for n in (256, 512, 1024)])
    plots = report_plots(session, "ko")
    assert plots and plots[0].caption == "크기별 행렬 곱 속도, CPU"
