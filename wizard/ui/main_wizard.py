"""The QWizard: every page of DESIGN.md's flow, a step list at the side, translated buttons."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QWidget, QWizard, QWizardPage

from wizard.app.session import Session
from wizard.core.base.i18n import t
from wizard.ui.pages.base import PageId
from wizard.ui.pages.system_page import SystemPage
from wizard.ui.session_model import SessionModel
from wizard.ui.widgets.step_list import StepList

if TYPE_CHECKING:
    from wizard.ui.pages.environment_page import EnvironmentPage
    from wizard.ui.pages.install_page import InstallPage

# Every page after the first, and the module that holds it. Imported when the pages are added:
# at once for a window built by a test, after the first paint (on a worker thread) for the
# real window, so the first page appears before the install engine and its pages are loaded.
LATER_PAGE_MODULES = ("wizard.ui.pages.gpu_page", "wizard.ui.pages.recommend_page", "wizard.ui.pages.verify_page",
                      "wizard.ui.pages.benchmark_page", "wizard.ui.pages.vram_page",
                      "wizard.ui.pages.environment_page", "wizard.ui.pages.report_page")


def import_later_pages() -> None:
    """Load the later pages' modules (and the engine they use). Safe on a worker thread: it
    only imports; the pages themselves are created on the GUI thread."""
    for name in LATER_PAGE_MODULES:
        importlib.import_module(name)

_BUTTONS = {
    QWizard.WizardButton.BackButton: "window.button.back",
    QWizard.WizardButton.NextButton: "window.button.next",
    QWizard.WizardButton.CommitButton: "window.button.commit",
    QWizard.WizardButton.FinishButton: "window.button.finish",
    QWizard.WizardButton.CancelButton: "window.button.cancel",
}


class SetupWizard(QWizard):
    """The window. ``defer_pages``: start with the System page and stand-ins for the rest (so the
    buttons are right), and add the real pages with :meth:`add_pages` -- :func:`wizard.ui.app.run`
    does so after the first paint; Next adds them first if they are not in yet."""

    # the Environment and Install pages, once register_install_pages has put them in
    environment_page: EnvironmentPage
    install_page: InstallPage

    def __init__(self, session: Session, parent: QWidget | None = None, defer_pages: bool = False) -> None:
        super().__init__(parent)
        self.setObjectName("setupWizard")
        self.model = SessionModel(session, self)
        self.setWizardStyle(QWizard.WizardStyle.ModernStyle)
        self.setOption(QWizard.WizardOption.NoBackButtonOnStartPage, True)
        self.setOption(QWizard.WizardOption.HaveHelpButton, False)
        self.setMinimumSize(QSize(940, 680))
        self.steps = StepList()
        self.setSideWidget(self.steps)
        self._reached: set[int] = set()  # the steps shown so far: their ✓ stays after Back

        self.system_page = SystemPage(self.model)
        self.setPage(PageId.SYSTEM, self.system_page)
        self.pages_ready = False
        self._page_steps: list | None = None  # add_pages' remaining steps, once it has begun
        if defer_pages:
            for page_id in PageId:
                if page_id != PageId.SYSTEM:
                    self.setPage(page_id, QWizardPage())  # a stand-in until add_pages
        else:
            self.add_pages()
        self.currentIdChanged.connect(lambda _id: self._update_steps())
        self.steps.step_clicked.connect(self.go_to_step)
        self.system_page.rerun.clicked.connect(self.rerun_diagnostics)
        self.model.language_changed.connect(lambda _lang: self.retranslate())
        self.retranslate()

    @property
    def lang(self) -> str:
        return self.model.lang

    def add_pages(self, one_step: bool = False) -> bool:
        """Create every page after the first (each builds its widgets on first show) in place
        of its stand-in; on the GUI thread. ``one_step``: only the next page, so that the event
        loop runs between pages. True once every page is in."""
        if self.pages_ready:
            return True
        if self._page_steps is None:
            self._page_steps = self._later_page_steps()
        while self._page_steps:
            self._page_steps.pop(0)()
            if one_step:
                break
        self.pages_ready = not self._page_steps
        return self.pages_ready

    def _later_page_steps(self) -> list:
        import_later_pages()  # at once when a worker thread has loaded them already
        from wizard.ui.pages.benchmark_page import BenchmarkPage
        from wizard.ui.pages.environment_page import register_install_pages
        from wizard.ui.pages.gpu_page import GpuPage
        from wizard.ui.pages.recommend_page import RecommendPage
        from wizard.ui.pages.report_page import register_report_page
        from wizard.ui.pages.verify_page import VerifyPage
        from wizard.ui.pages.vram_page import VramPage

        def put(page_id: PageId, name: str, cls) -> None:
            page = cls(self.model)
            setattr(self, name, page)
            old = self.page(page_id)
            if old is not None:
                self.removePage(page_id)
                old.deleteLater()
            self.setPage(page_id, page)

        # Environment + Install (a commit page) and the Report register themselves: they bring
        # their own page objects and wiring (wizard.ui.pages.environment_page, report_page).
        return [self.system_page.ensure_built,  # the first page's boxes (SystemPage._build)
                lambda: put(PageId.GPU, "gpu_page", GpuPage),
                lambda: put(PageId.RECOMMEND, "recommend_page", RecommendPage),
                lambda: register_install_pages(self),
                lambda: put(PageId.VERIFY, "verify_page", VerifyPage),
                lambda: put(PageId.BENCHMARK, "benchmark_page", BenchmarkPage),
                lambda: put(PageId.VRAM, "vram_page", VramPage),
                lambda: register_report_page(self)]

    def fit_to_screen(self, available: QSize) -> None:
        """On a screen smaller than the usual minimum (a 640×480 projector, a netbook) the window
        shrinks to the screen instead of running off it: the pages scroll and wrap."""
        wanted = QSize(940, 680)
        smaller = wanted.boundedTo(available)
        if smaller != wanted:
            self.setMinimumSize(smaller)
            self.resize(smaller)

    def after_first_paint(self) -> None:
        """What the window does once it is on screen: load the later pages' modules on a worker
        thread, then (one turn of the event loop each) build the System page's boxes (see
        :meth:`SystemPage._build`) and add the later pages. The boxes wait for the modules
        because those create PySide's ``Qt`` namespace on the worker, which on the GUI thread
        was a 15-20 ms stall; detection's answer, if it comes first, waits for them."""
        self.system_page.boxes_coming = True
        self.add_pages_in_background()

    def add_pages_in_background(self) -> None:
        """Load the later pages' modules on a worker thread, then add the pages one per turn
        of the event loop (GUI thread): the window stays live meanwhile, detection alongside."""
        from PySide6.QtCore import QTimer

        from wizard.ui.workers import submit

        def next_page() -> None:
            if not self.add_pages(one_step=True):
                QTimer.singleShot(0, next_page)

        # on failure too: add_pages imports again here, so an import error is raised, not lost
        self._pages_task = submit(import_later_pages, on_done=lambda _r: next_page(),
                                  on_failed=lambda _text: self.add_pages())

    def validateCurrentPage(self) -> bool:  # noqa: N802 - Qt's name
        self.add_pages()  # Next before the background load finished: the real next page, now
        return super().validateCurrentPage()

    def start(self) -> None:
        """Begin detection; called once the window is on screen so it opens at once."""
        self.model.start_detection()

    def _update_steps(self) -> None:
        current = max(0, self.currentId())
        # ✓ stays on every step the student has reached, also after Back (issue 16.16)
        self._reached.add(current)
        # ✓ only for a step that is done: an install that failed was reached, not done
        done = {i for i in self._reached - {current} if getattr(self.page(i), "step_done", lambda: True)()}
        self.steps.set_steps(t("common.app_title", self.lang), [t("window.step." + p.name.lower(), self.lang) for p in PageId],
                             current, done=done)

    def go_to_step(self, step: int) -> None:
        """A click on an earlier step in the side list: back to it, page by page (a finished
        install is not run again on the way; nothing is left while a job runs). The language,
        course and storage controls of the first page stay in reach after an install."""
        if step >= self.currentId() or step not in self._reached:
            return
        for page_id in self.pageIds():
            page = self.page(page_id)
            if getattr(page, "built", False) and hasattr(page, "confirm_stop") and getattr(page, "busy", False):
                return
        while self.currentId() > step and len(self.visitedIds()) > 1:
            before = self.currentId()
            self.back()
            if self.currentId() == before:
                break

    def retranslate(self) -> None:
        self.setWindowTitle(t("common.app_title", self.lang))
        for button, key in _BUTTONS.items():
            self.setButtonText(button, t(key, self.lang))
        self._update_steps()

    def rerun_diagnostics(self) -> None:
        """The short path after a driver update: detect again and look at the GPU, no install."""
        self.model.start_detection()
        if self.currentId() == PageId.SYSTEM:
            self.next()

    def reject(self) -> None:
        """Cancel, Esc and the window's close (QDialog's closeEvent calls this) all come here:
        a page with a running job asks first and stops it cleanly; the window closes only
        once the job has stopped (never with a child process still writing)."""
        for page_id in self.pageIds():
            page = self.page(page_id)
            if getattr(page, "built", False) and hasattr(page, "confirm_stop") and getattr(page, "busy", False):
                if page.confirm_stop(closing=True):
                    getattr(page, "when_stopped")(self.reject)
                return
        super().reject()

    def done(self, result: int) -> None:  # noqa: D401 - Qt's name
        if self.pages_ready:
            getattr(self, "gpu_page").cleanup()  # set by add_pages
        # a run that reached the report is saved however the window closes (Finish, Cancel, the
        # window's ✕): it is the baseline of "what changed after the driver update"
        if result == QWizard.DialogCode.Accepted or int(PageId.REPORT) in self.visitedIds():
            self.model.save_snapshot()
        super().done(result)
