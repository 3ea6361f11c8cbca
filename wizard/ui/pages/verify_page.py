"""Page 6 — Verify: run the verification probe in the target environment, show the checklist.

The probe runs on a worker thread through the one process runner (the window stays live);
each check appears as its result arrives, with a clear mark; details (cause, fix, evidence) on demand; "Copy diagnostics"
puts the whole text (collect_env included) on the clipboard for a teaching assistant.
"""

from __future__ import annotations

from PySide6.QtCore import QUrl
from PySide6.QtGui import QBrush, QColor, QDesktopServices, QGuiApplication
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from wizard.app import verify as app_verify
from wizard.core.base.i18n import t
from wizard.ui.pages.base import BasePage, PageId, busy_bar, status_label
from wizard.ui.probe_process import ProbeProcess
from wizard.ui.session_model import SessionModel
from wizard.ui.widgets.findings_view import FindingsView
from wizard.ui.widgets.python_picker import PythonPicker
from wizard.ui.workers import submit

MARKS = {"pass": ("✔", "#2e7d32"), "warn": ("⚠", "#ef6c00"), "fail": ("✖", "#c62828"), "skip": ("–", "#757575")}
COUNTED = ("pass", "warn", "fail", "skip")


class VerifyPage(BasePage):
    page_id = PageId.VERIFY

    def __init__(self, model: SessionModel, parent: QWidget | None = None) -> None:
        super().__init__(model, parent)
        self.setObjectName("page_verify")
        self.report = None

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
        buttons = QHBoxLayout()
        self.run_button = QPushButton()
        self.run_button.setObjectName("runVerify")
        self.run_button.clicked.connect(self.start)
        self.cancel_button = QPushButton()
        self.cancel_button.setObjectName("cancelVerify")
        self.cancel_button.clicked.connect(self.probe.cancel)
        self.cancel_button.setEnabled(False)
        self.copy_button = QPushButton()
        self.copy_button.setObjectName("copyDiagnostics")
        self.copy_button.clicked.connect(self.copy_diagnostics)
        self.copy_button.setEnabled(False)
        for b in (self.run_button, self.cancel_button, self.copy_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        self.busy = busy_bar()
        layout.addWidget(self.busy)
        self.status = status_label("verifyStatus")
        layout.addWidget(self.status)
        self.tree = QTreeWidget()
        self.tree.setObjectName("checkTree")
        self.tree.setColumnCount(3)
        self.tree.setWordWrap(True)
        self.tree.setUniformRowHeights(False)
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.header().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.header().setStretchLastSection(True)
        layout.addWidget(self.tree, 1)
        self.diagnosis_box = QGroupBox()
        self.diagnosis_box.setObjectName("diagnosisBox")
        box_layout = QVBoxLayout(self.diagnosis_box)
        self.diagnosis = FindingsView(lang_of=self.current_lang)
        self.diagnosis.action_requested.connect(self.run_action)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setWidget(self.diagnosis)
        scroll.setMinimumHeight(160)
        box_layout.addWidget(scroll)
        self.diagnosis_box.hide()
        layout.addWidget(self.diagnosis_box, 1)
        self._diagnose_task = None

    # QWizardPage ---------------------------------------------------------------------------
    def initializePage(self) -> None:  # noqa: N802
        self.ensure_built()
        self.picker.refresh()

    def cleanupPage(self) -> None:  # noqa: N802
        self.probe.cancel()

    # running -------------------------------------------------------------------------------
    def start(self) -> None:
        python = self.picker.path()
        if not python or self.probe.running:
            return
        self.report = app_verify.new_report(self.model.session, python)
        self.tree.clear()
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.copy_button.setEnabled(False)
        self.busy.show()
        self.status.setText(t("verify.page.running", self.lang, python=python))
        self.probe.start(python, "verify.py", app_verify.probe_args(), timeout_s=app_verify.VERIFY_TIMEOUT_S)

    def _on_event(self, event: dict) -> None:
        from wizard.core.verify.checklist import progress_text

        if self.report is None:
            return
        if event.get("event") == "progress":
            self.status.setText("… " + progress_text(event, self.lang))
        self.report.feed(event)
        self._fill()

    def _on_finished(self, outcome) -> None:
        self.busy.hide()
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        if self.report is None:
            return
        self.report.finish(outcome)
        app_verify.record_verify(self.model.session, self.report)
        self.show_report(self.report, cancelled=outcome.cancelled)
        self.start_diagnosis()

    def show_report(self, report, cancelled: bool = False) -> None:
        """The finished checklist and its one-line summary (also for a report read back)."""
        self.ensure_built()
        self.report = report
        self._cancelled = cancelled
        self._fill()
        self.copy_button.setEnabled(True)
        self._show_summary()

    def _show_summary(self) -> None:
        counts = self.report.counts()
        mark, colour = MARKS.get(self.report.status, ("•", "#333"))
        key = "verify.page.cancelled" if self._cancelled else "verify.page.done"
        self.status.setText(f'<span style="color:{colour}; font-size:14px; font-weight:600">{mark} '
                            f'{t(key, self.lang, **{k: counts.get(k, 0) for k in COUNTED})}</span>')

    # diagnosis --------------------------------------------------------------------------------
    def start_diagnosis(self) -> None:
        """Every failure-mode rule over detection + this environment's torch facts (a worker:
        gathering the environment's facts runs commands)."""
        session = self.model.session
        if session.detection is None or self.report is None:
            return
        self._diagnose_task = submit(app_verify.diagnose, session, self.report, on_done=self._show_diagnosis,
                                     on_failed=lambda text: self.diagnosis_box.setTitle(text.splitlines()[0]))

    def _show_diagnosis(self, found) -> None:
        app_verify.record_diagnosis(self.model.session, found)
        self.diagnosis.set_findings(found)
        self.diagnosis_box.show()

    def run_action(self, finding) -> None:
        """Ask first; then do only what is safe from here."""
        action = finding.action
        answer = QMessageBox.question(self, t("app.title", self.lang), action.confirm(self.lang))
        if answer != QMessageBox.StandardButton.Yes:
            return
        if action.kind == "open_url" and action.param("url"):
            QDesktopServices.openUrl(QUrl(action.param("url")))
        elif action.kind == "restart":
            QMessageBox.information(self, t("app.title", self.lang), t("verify.page.restart_now", self.lang))
        elif action.kind in ("reinstall_cuda_build", "switch_variant"):
            # back to the recommendation, with the build the diagnosis asks for as the wish
            app_verify.request_build(self.model.session, dict(action.params))
            wizard = self.wizard()
            while wizard.currentId() > PageId.RECOMMEND:
                wizard.back()

    def _fill(self) -> None:
        lang = self.lang
        self.tree.clear()
        for check in self.report.checks:
            mark, colour = MARKS.get(check.status, ("•", "#333"))
            item = QTreeWidgetItem([mark, check.title(lang), check.detail_text(lang)])
            item.setForeground(0, QBrush(QColor(colour)))
            item.setToolTip(2, check.detail_text(lang))
            for label, text in ((t("verify.page.cause", self.lang), check.cause_text(lang)),
                                (t("verify.page.fix", self.lang), check.fix_text(lang))):
                if text:
                    child = QTreeWidgetItem(["", label, text])
                    child.setToolTip(2, text)
                    item.addChild(child)
            self.tree.addTopLevelItem(item)
            if check.status == "fail":
                item.setExpanded(True)

    def copy_diagnostics(self) -> None:
        if self.report is not None:
            QGuiApplication.clipboard().setText(self.report.diagnostics(self.lang))
            self.status.setText(t("verify.page.copied", self.lang))

    def retranslate(self) -> None:
        super().retranslate()
        self.picker.retranslate()
        self.run_button.setText(t("verify.page.run", self.lang))
        self.cancel_button.setText(t("wizard.cancel", self.lang))
        self.copy_button.setText(t("verify.page.copy", self.lang))
        self.tree.setHeaderLabels(["", t("verify.page.col.check", self.lang), t("verify.page.col.result", self.lang)])
        self.diagnosis_box.setTitle(t("verify.page.diagnosis", self.lang))
        self.diagnosis.retranslate()
        if self.report is not None:
            self._fill()
        elif not self.probe.running:
            self.status.setText(t("verify.page.intro", self.lang))
