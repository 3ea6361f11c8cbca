"""Page 6 — Verify: run the verification probe in the target environment, show the checklist.

The probe runs on a worker thread through the one process runner (the window stays live);
each check appears as its result arrives, with a clear mark; details (cause, fix, evidence) on demand; "Copy diagnostics"
puts the whole text (collect_env included) on the clipboard for a teaching assistant.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QUrl
from PySide6.QtGui import QBrush, QColor, QDesktopServices, QGuiApplication
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from wizard.app import explain as app_explain
from wizard.app import verify as app_verify
from wizard.core.base.i18n import t
from wizard.ui import colours
from wizard.ui.pages.base import BasePage, PageId, busy_bar, status_label
from wizard.ui.probe_process import ProbeProcess
from wizard.ui.session_model import SessionModel
from wizard.ui.widgets.findings_view import FindingsView
from wizard.ui.widgets.python_picker import PythonPicker
from wizard.ui.widgets.wrap_delegate import WrapLastColumn
from wizard.ui.workers import Task, submit

if TYPE_CHECKING:
    from wizard.app.verify import VerifyReport

MARKS = {"pass": ("✔", colours.OK), "warn": ("⚠", colours.WARN), "fail": ("✖", colours.FAIL),
         "skip": ("–", colours.MUTED)}


# Checks whose title is code: the page says what they check in plain words, the code as a second line.
PLAIN_TITLES = ("cuda.available", "collect_env", "cuda.memory", "cuda.amp_step", "cpu.matmul", "cuda.build",
                "cuda.arch", "torchvision", "torchaudio", "cuda.matmul.fp32", "cuda.matmul.fp16", "cuda.matmul.bf16")


def plain_title(check, lang: str) -> tuple[str, str | None]:
    """(the title a first-year student reads, the technical title or None when they are one)."""
    technical = check.title(lang)
    if check.id not in PLAIN_TITLES:
        return technical, None
    plain = t(f"verify.page.check.{check.id}", lang)
    if check.device is not None:
        plain = f"{plain} (GPU {check.device})"
    return plain, technical


def plain_detail(check, lang: str) -> tuple[str, str | None]:
    """(the result in plain words, the technical one) where the page has a plainer version
    (``h.verify.detail.<detail>``: no ``torch.version.cuda is None``); else (the result, None)."""
    from wizard.core.base.i18n import has

    technical = check.detail_text(lang)
    key = f"verify.page.detail.{check.detail}"
    if not check.detail or not has(key):
        return technical, None
    return t(key, lang, **{k: ("" if v is None else v) for k, v in check.params.items()}), technical


def summary_text(counts: dict[str, int], lang: str) -> str:
    """"5 passed, 1 warning, 2 not applicable": only the counts there are, in proper plurals."""
    parts = [_count("pass", counts.get("pass", 0), lang)]
    parts += [_count(kind, counts[kind], lang) for kind in ("warn", "fail", "skip") if counts.get(kind)]
    return t("verify.page.summary", lang, counts=t("verify.page.join", lang).join(parts))


def _count(kind: str, n: int, lang: str) -> str:
    return t(f"verify.page.count.{kind}.{'one' if n == 1 else 'other'}", lang, n=n)


class VerifyPage(BasePage):
    page_id = PageId.VERIFY

    def __init__(self, model: SessionModel, parent: QWidget | None = None) -> None:
        super().__init__(model, parent)
        self.setObjectName("page_verify")
        self.report: VerifyReport | None = None

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
        from wizard.ui.pages.kernel_panel import add_kernel_button  # the Jupyter / VS Code dialog

        self.kernel_button = add_kernel_button(self, buttons)
        self.explain_toggle = QPushButton()
        self.explain_toggle.setObjectName("explainToggle")
        self.explain_toggle.setCheckable(True)
        buttons.addWidget(self.explain_toggle)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        self.busy = busy_bar()
        layout.addWidget(self.busy)
        self.status = status_label("verifyStatus")
        layout.addWidget(self.status)
        self.tree = QTreeWidget()
        self.tree.setObjectName("checkTree")
        self.tree.setColumnCount(3)
        self.tree.setItemDelegate(WrapLastColumn(self.tree))  # causes and fixes wrap, never "…"
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.header().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.header().setStretchLastSection(True)
        layout.addWidget(self.tree, 1)
        self.diagnosis_box = QGroupBox()
        self.diagnosis_box.setObjectName("diagnosisBox")
        box_layout = QVBoxLayout(self.diagnosis_box)
        self.diagnosis = FindingsView(lang_of=self.current_lang)
        self.diagnosis.action_requested.connect(self.run_action)
        # the cards keep their own height (a stretch below them, not gaps between their lines) and the
        # box is as tall as they are, up to a limit past which it scrolls: the checklist keeps the rest
        self.diagnosis_scroll, self._diagnosis_cards, self._diagnosis_cards_layout = _scrolled_cards(
            self.diagnosis, "diagnosisScroll")
        box_layout.addWidget(self.diagnosis_scroll)
        self.diagnosis_box.hide()
        layout.addWidget(self.diagnosis_box)
        self._build_explain(layout)
        self._diagnose_task: Task | None = None
        self._found: list = []
        self._cancelled = False
        self._auto_verified: str | None = None  # the installed environment already checked by itself

    def _build_explain(self, layout: QVBoxLayout) -> None:
        """"Explain an error": a pasted text's findings with what the environment above shows
        (the same context as ``doctor --explain --python ENV``)."""
        self.explain_box = QGroupBox()
        self.explain_box.setObjectName("explainBox")
        box = QVBoxLayout(self.explain_box)
        self.paste = QPlainTextEdit()
        self.paste.setObjectName("pasteError")
        self.paste.setMaximumHeight(72)
        box.addWidget(self.paste)
        row = QHBoxLayout()
        self.explain_button = QPushButton()
        self.explain_button.setObjectName("explainButton")
        self.explain_button.clicked.connect(self.explain_pasted)
        row.addWidget(self.explain_button)
        self.explain_status = QLabel()
        self.explain_status.setObjectName("explainStatus")
        self.explain_status.setWordWrap(True)
        row.addWidget(self.explain_status, 1)
        box.addLayout(row)
        self.explained = FindingsView(lang_of=self.current_lang)
        self.explained.setObjectName("explainedFindings")
        self.explained.action_requested.connect(self.run_action)
        self.explained_scroll = _scrolled_cards(self.explained, "explainedScroll")[0]
        self.explained_scroll.hide()
        box.addWidget(self.explained_scroll, 1)
        self.explain_box.hide()
        self.explain_toggle.toggled.connect(self.explain_box.setVisible)
        self._page_layout = layout
        layout.addWidget(self.explain_box)
        self.explanation: app_explain.Explanation | None = None
        self._explain_task: Task | None = None

    # QWizardPage ---------------------------------------------------------------------------
    def initializePage(self) -> None:  # noqa: N802
        self.ensure_built()
        self.picker.refresh()
        self._after_install()

    def _after_install(self) -> None:
        """Straight after a successful install: Back shows the install's summary again, and the
        new environment is checked at once, without a click (once per environment)."""
        install = self.model.session.install
        wizard = self.wizard()
        if wizard is not None and PageId.INSTALL in wizard.visitedIds():
            page = wizard.page(PageId.INSTALL)
            if page is not None and page.isComplete():
                page.setCommitPage(False)  # it has done its work; Qt disables Back after a commit page
        env_python = install.env_python if install is not None else None
        if install is not None and install.ok and env_python and self._auto_verified != env_python and self.picker.path() == env_python:
            self._auto_verified = env_python
            self.start()

    def cleanupPage(self) -> None:  # noqa: N802
        if self.probe.running:
            self._auto_verified = None  # left before the check ended: check again on the way back
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
        from wizard.app.verify import progress_text

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
        assert self.report is not None  # shown with a report
        counts = self.report.counts()
        mark, colour = MARKS.get(self.report.status, ("•", "#333"))
        text = summary_text(counts, self.lang)
        if self._cancelled:
            text = t("verify.page.cancelled_so_far", self.lang, summary=text)
        self.status.setText(f'<span style="color:{colour}; font-size:14px; font-weight:600">{mark} {text}</span>')

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
        self._found = list(found)
        self.diagnosis.set_findings(found)
        self._title_diagnosis()
        self.diagnosis_box.show()
        self._fit_diagnosis()

    def _fit_diagnosis(self) -> None:
        """The box as tall as its cards at the width they have, at most a third of the page; the
        page's layout may give it less (it scrolls) when the page has no more room, so the box
        never runs past its frame (a fixed height did, by a few pixels, on a crowded 1024×700)."""
        area, cards = self.diagnosis_scroll, self._diagnosis_cards
        width = max(area.viewport().width(), 200)
        self._diagnosis_cards_layout.activate()
        wanted = cards.heightForWidth(width) if cards.hasHeightForWidth() else cards.sizeHint().height()
        tallest = max(48, min(wanted + 2, max(self.height() // 3, 160)))
        area.setMinimumHeight(min(48, tallest))
        area.setMaximumHeight(tallest)

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        if getattr(self, "diagnosis_box", None) is not None and self.diagnosis_box.isVisible():
            self._fit_diagnosis()

    # explaining a pasted error -----------------------------------------------------------------
    def explain_pasted(self) -> None:
        """The pasted text's findings, asked of the environment chosen above on a worker (asking
        that interpreter runs it)."""
        text = self.paste.toPlainText()
        if not text.strip():
            self.explain_status.setText(t("verify.page.explain.empty", self.lang))
            return
        env = self.picker.path() or None
        self.explain_button.setEnabled(False)
        self.explain_status.setText(t("verify.page.explain.running", self.lang))
        self._explain_task = submit(app_explain.explain, text, env, on_done=self._show_explanation,
                                    on_failed=self._explain_failed)

    def _explain_failed(self, text: str) -> None:
        self.explain_button.setEnabled(True)
        self.explain_status.setText(text.splitlines()[0] if text else "")

    def _show_explanation(self, explanation) -> None:
        self.explain_button.setEnabled(True)
        self.explanation = explanation
        self.explained.set_findings(explanation.findings)
        shown = bool(explanation.findings)
        self.explained_scroll.setVisible(shown)
        # the findings get the room (they scroll past it); the checklist keeps a few rows
        self._page_layout.setStretchFactor(self.explain_box, 3 if shown else 0)
        self._explain_summary()

    def _explain_summary(self) -> None:
        e = self.explanation
        if e is None:
            self.explain_status.setText("")
            return
        if not e.findings:
            key = "verify.page.explain.nothing"
        elif e.env_unusable:
            key = "verify.page.explain.text_only"
        elif e.env_path:
            key = "verify.page.explain.with_env"
        else:
            key = "verify.page.explain.no_env"
        self.explain_status.setText(t(key, self.lang, python=e.env_path or ""))

    def _title_diagnosis(self) -> None:
        """"What is wrong and how to fix it" only when something is; notes alone are notes."""
        problems = any(getattr(f, "severity", "") in ("error", "warning") for f in self._found)
        key = "verify.page.diagnosis" if problems or not self._found else "verify.page.notes_box"
        self.diagnosis_box.setTitle(t(key, self.lang))

    def run_action(self, finding) -> None:
        """Ask first; then do only what is safe from here."""
        action = finding.action
        answer = QMessageBox.question(self, t("common.app_title", self.lang), action.confirm(self.lang))
        if answer != QMessageBox.StandardButton.Yes:
            return
        if action.kind == "open_url" and action.param("url"):
            QDesktopServices.openUrl(QUrl(action.param("url")))
        elif action.kind == "restart":
            QMessageBox.information(self, t("common.app_title", self.lang), t("verify.page.restart_now", self.lang))
        elif action.kind in ("reinstall_cuda_build", "switch_variant"):
            # back to the recommendation, with the build the diagnosis asks for as the wish
            app_verify.request_build(self.model.session, dict(action.params))
            wizard = self.wizard()
            while wizard.currentId() > PageId.RECOMMEND:
                wizard.back()

    def _fill(self) -> None:
        lang = self.lang
        self.tree.clear()
        assert self.report is not None  # filled from a report
        for check in self.report.checks:
            mark, colour = MARKS.get(check.status, ("•", "#333"))
            title, code = plain_title(check, lang)
            detail, technical = plain_detail(check, lang)
            item = QTreeWidgetItem([mark, title, detail])
            item.setForeground(0, QBrush(QColor(colour)))
            item.setToolTip(1, title if code is None else f"{title}\n{code}")  # the code, as a second line
            item.setToolTip(2, detail if technical is None else f"{detail}\n{technical}")
            # a passing check may still carry a note (a CPU build where there is no NVIDIA GPU)
            cause_key, fix_key = (("verify.page.note", "verify.page.tip") if check.status in ("pass", "skip")
                                  else ("verify.page.cause", "verify.page.fix"))
            for label, text in ((t(cause_key, self.lang), check.cause_text(lang)),
                                (t(fix_key, self.lang), check.fix_text(lang))):
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
        self.cancel_button.setText(t("window.button.cancel", self.lang))
        self.copy_button.setText(t("verify.page.copy", self.lang))
        self.tree.setHeaderLabels(["", t("verify.page.col.check", self.lang), t("verify.page.col.result", self.lang)])
        self._title_diagnosis()
        self.diagnosis.retranslate()
        self.explain_toggle.setText(t("verify.page.explain.toggle", self.lang))
        self.explain_box.setTitle(t("verify.page.explain.title", self.lang))
        self.paste.setPlaceholderText(t("verify.page.explain.placeholder", self.lang))
        self.explain_button.setText(t("verify.page.explain.button", self.lang))
        self.explained.retranslate()
        self._explain_summary()
        if self.report is not None:
            self._fill()
            if not self.probe.running:
                self._show_summary()
        elif not self.probe.running:
            self.status.setText(t("verify.page.intro", self.lang))


def _scrolled_cards(view: QWidget, name: str) -> tuple[QScrollArea, QWidget, QVBoxLayout]:
    """``view``'s cards at their own height (a stretch below them), in a frameless scroll area."""
    cards = QWidget()
    cards_layout = QVBoxLayout(cards)
    cards_layout.setContentsMargins(0, 0, 0, 0)
    cards_layout.addWidget(view)
    cards_layout.addStretch(1)
    area = QScrollArea()
    area.setObjectName(name)
    area.setWidgetResizable(True)
    area.setFrameShape(QScrollArea.Shape.NoFrame)
    area.setWidget(cards)
    return area, cards, cards_layout
