"""The QWizard: every page of DESIGN.md's flow, a step list at the side, translated buttons."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QWidget, QWizard

from wizard.app.session import Session
from wizard.core.base.i18n import t
from wizard.ui.pages.base import PageId
from wizard.ui.pages.benchmark_page import BenchmarkPage
from wizard.ui.pages.gpu_page import GpuPage
from wizard.ui.pages.recommend_page import RecommendPage
from wizard.ui.pages.system_page import SystemPage
from wizard.ui.pages.verify_page import VerifyPage
from wizard.ui.pages.vram_page import VramPage
from wizard.ui.session_model import SessionModel
from wizard.ui.widgets.step_list import StepList

_BUTTONS = {
    QWizard.WizardButton.BackButton: "wizard.back",
    QWizard.WizardButton.NextButton: "wizard.next",
    QWizard.WizardButton.CommitButton: "wizard.commit",
    QWizard.WizardButton.FinishButton: "wizard.finish",
    QWizard.WizardButton.CancelButton: "wizard.cancel",
}


class SetupWizard(QWizard):
    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("setupWizard")
        self.model = SessionModel(session, self)
        self.setWizardStyle(QWizard.WizardStyle.ModernStyle)
        self.setOption(QWizard.WizardOption.NoBackButtonOnStartPage, True)
        self.setOption(QWizard.WizardOption.HaveHelpButton, False)
        self.setMinimumSize(QSize(940, 680))
        self.steps = StepList()
        self.setSideWidget(self.steps)

        self.system_page = SystemPage(self.model)
        self.gpu_page = GpuPage(self.model)
        self.recommend_page = RecommendPage(self.model)
        self.verify_page = VerifyPage(self.model)
        self.benchmark_page = BenchmarkPage(self.model)
        self.vram_page = VramPage(self.model)
        for page_id, page in ((PageId.SYSTEM, self.system_page), (PageId.GPU, self.gpu_page),
                              (PageId.RECOMMEND, self.recommend_page), (PageId.VERIFY, self.verify_page),
                              (PageId.BENCHMARK, self.benchmark_page), (PageId.VRAM, self.vram_page)):
            self.setPage(page_id, page)
        # Environment + Install (a commit page) and the Report register themselves: they bring
        # their own page objects and wiring (wizard.ui.pages.environment_page, report_page).
        from wizard.ui.pages.environment_page import register_install_pages
        from wizard.ui.pages.report_page import register_report_page

        register_install_pages(self)
        register_report_page(self)
        self.currentIdChanged.connect(lambda _id: self._update_steps())
        self.system_page.rerun.clicked.connect(self.rerun_diagnostics)
        self.model.language_changed.connect(lambda _lang: self.retranslate())
        self.retranslate()

    @property
    def lang(self) -> str:
        return self.model.lang

    def start(self) -> None:
        """Begin detection; called once the window is on screen so it opens at once."""
        self.model.start_detection()

    def _update_steps(self) -> None:
        current = max(0, self.currentId())
        self.steps.set_steps(t("app.title", self.lang), [t("step." + p.name.lower(), self.lang) for p in PageId],
                             current)

    def retranslate(self) -> None:
        self.setWindowTitle(t("app.title", self.lang))
        for button, key in _BUTTONS.items():
            self.setButtonText(button, t(key, self.lang))
        self._update_steps()

    def rerun_diagnostics(self) -> None:
        """The short path after a driver update: detect again and look at the GPU, no install."""
        self.model.start_detection()
        if self.currentId() == PageId.SYSTEM:
            self.next()

    def done(self, result: int) -> None:  # noqa: D401 - Qt's name
        self.gpu_page.cleanup()
        if result == QWizard.DialogCode.Accepted:
            self.model.save_snapshot()
        super().done(result)
