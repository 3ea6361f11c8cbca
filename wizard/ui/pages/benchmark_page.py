"""Page 7 — Benchmark: CPU against GPU in the target environment, results streaming in.

The probe runs on a worker thread; each result appears in the table as it finishes; the plots
(QPainter, the report's style: wizard.ui.widgets.bench_plots) and the one-sentence summary
update with every result. Cancel, the wizard's Cancel and the window's close ask before they
stop a running benchmark; the window closes once the probe has stopped.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QButtonGroup,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QRadioButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from wizard.app import bench as app_bench
from wizard.core.base.i18n import t
from wizard.ui.pages.base import BasePage, PageId, busy_bar, status_label
from wizard.ui.pages.environment.common import ask_yes_no
from wizard.ui.probe_process import ProbeProcess
from wizard.ui.session_model import SessionModel
from wizard.ui.widgets.bench_plots import BenchPlots
from wizard.ui.widgets.python_picker import PythonPicker


def _value(value: float) -> str:
    return f"{value:.0f}" if value >= 100 else f"{value:.1f}" if value >= 10 else f"{value:.3g}"


class BenchmarkPage(BasePage):
    page_id = PageId.BENCHMARK

    def __init__(self, model: SessionModel, parent: QWidget | None = None) -> None:
        super().__init__(model, parent)
        self.setObjectName("page_benchmark")
        self.report: app_bench.BenchReport | None = None
        self.plots: BenchPlots | None = None
        self.extra_args: list[str] = []  # tests pass small sizes
        self._after_stop: Any = None  # the window's close, waiting for the probe to stop

    def _build(self) -> None:
        """The widgets, on first show (BasePage.ensure_built)."""
        model = self.model
        self.probe = ProbeProcess(self)
        self.probe.event.connect(self._on_event)
        self.probe.finished.connect(self._on_finished)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.picker = PythonPicker(model.session)
        layout.addWidget(self.picker)
        row = QHBoxLayout()
        self.quick = QRadioButton()
        self.full = QRadioButton()
        self.quick.setChecked(True)
        group = QButtonGroup(self)
        group.addButton(self.quick)
        group.addButton(self.full)
        self.run_button = QPushButton()
        self.run_button.setObjectName("runBench")
        self.run_button.clicked.connect(self.start)
        self.cancel_button = QPushButton()
        self.cancel_button.setObjectName("cancelBench")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(lambda: self.confirm_stop(closing=False))
        for w in (self.quick, self.full, self.run_button, self.cancel_button):
            row.addWidget(w)
        row.addStretch(1)
        layout.addLayout(row)
        self.busy_bar = busy_bar()
        layout.addWidget(self.busy_bar)
        self.summary = status_label("benchSummary")
        layout.addWidget(self.summary)
        self.plot_holder = QVBoxLayout()
        layout.addLayout(self.plot_holder, 3)
        self.plots = BenchPlots(lang_of=self.current_lang)
        self.plot_holder.addWidget(self.plots)
        self.table = QTableWidget(0, 5)
        self.table.setObjectName("benchTable")
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        layout.addWidget(self.table, 2)

    def initializePage(self) -> None:  # noqa: N802
        self.ensure_built()
        self.picker.refresh()

    def cleanupPage(self) -> None:  # noqa: N802 - Back: nothing is written, the run just stops
        self.probe.cancel()

    # stopping ---------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return self.built and self.probe.running

    def confirm_stop(self, closing: bool = False) -> bool:
        """Ask before stopping a running benchmark (Cancel, the wizard's Cancel, the window's
        close). True when nothing runs or the student said stop: the probe's process tree is
        then being stopped, and :meth:`when_stopped` follows its end."""
        if not self.busy:
            return True
        if self.probe.cancelled:
            return True  # asked already: the stop is under way
        lang = self.lang
        question = t("bench.page.stop.close_question" if closing else "bench.page.stop.question", lang)
        if not ask_yes_no(self, t("bench.page.stop.title", lang), question,
                          t("bench.page.stop.yes_close" if closing else "bench.page.stop.yes", lang),
                          t("bench.page.stop.no", lang)):
            return False
        self.probe.cancel()
        self.summary.setText(t("bench.page.stopping", lang))
        return True

    def when_stopped(self, callback: Any) -> None:
        """Call ``callback`` (the window's close) once the probe has stopped."""
        self._after_stop = callback
        if not self.busy:
            self._run_after_stop()

    def _run_after_stop(self) -> None:
        callback, self._after_stop = self._after_stop, None
        if callback is not None:
            QTimer.singleShot(0, callback)

    def start(self) -> None:
        python = self.picker.path()
        if not python or self.probe.running:
            return
        suite = "full" if self.full.isChecked() else "quick"
        self.report = app_bench.new_report(python)
        self.table.setRowCount(0)
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.busy_bar.show()
        self.summary.setText(t("bench.page.running", self.lang, suite=t(f"bench.page.{suite}", self.lang)))
        self.probe.start(python, "bench.py", app_bench.probe_args(suite, extra=self.extra_args),
                         timeout_s=app_bench.TIMEOUT_S[suite])

    def _on_event(self, event: dict) -> None:
        from wizard.app.bench import progress_text

        if self.report is None:
            return
        if event.get("event") == "progress":
            self.summary.setText(progress_text(event, self.lang))
        added = self.report.add_event(event)
        if added is not None and hasattr(added, "value"):
            self._add_row(added)
            if self.plots is not None:
                self.plots.show_report(self.report, self.lang)

    def _add_row(self, result) -> None:
        from wizard.app.bench import result_title

        row = self.table.rowCount()
        self.table.insertRow(row)
        cells = [result_title(result, self.lang), result.device, result.dtype or "",
                 "" if result.size is None else str(result.size), f"{_value(result.value)} {result.unit}"]
        for col, text in enumerate(cells):
            item = QTableWidgetItem(text)
            if col == 4:
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.table.setItem(row, col, item)
        self.table.scrollToBottom()

    def _on_finished(self, outcome) -> None:
        self.busy_bar.hide()
        self._run_after_stop()
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        if self.report is None:
            return
        self.report.outcome = outcome
        app_bench.record_bench(self.model.session, self.report)
        lang = self.lang
        text = self.report.summary(lang)
        course = self.report.course_line(lang)
        if course:
            text += f"<br>{course}"
        if outcome.cancelled:
            text = t("bench.page.cancelled", self.lang) + "<br>" + text
        self.summary.setText(f'<span style="font-size:14px">{text}</span>')
        if self.plots is not None:
            self.plots.show_report(self.report, lang)

    def retranslate(self) -> None:
        super().retranslate()
        self.picker.retranslate()
        self.quick.setText(t("bench.page.quick", self.lang))
        self.full.setText(t("bench.page.full", self.lang))
        self.run_button.setText(t("bench.page.run", self.lang))
        self.cancel_button.setText(t("window.button.cancel", self.lang))
        self.table.setHorizontalHeaderLabels([t("bench.page.col.test", self.lang), t("bench.page.col.device",
                                                                                     self.lang),
                                              t("bench.page.col.dtype", self.lang), t("bench.page.col.size", self.lang),
                                              t("bench.page.col.value", self.lang)])
        if self.plots is not None:
            self.plots.retranslate()
        if self.report is None and not self.probe.running:
            detection = self.model.session.detection
            gpu = detection is not None and bool(detection.nvidia.gpus)
            self.summary.setText(t("bench.page.intro" if gpu else "bench.page.intro_cpu", self.lang))
