"""Page 4 — Environment: where PyTorch goes, what will be downloaded, and whether it fits.

The student picks one target: a new venv (default folder under the product folder in their
home; its Python is the interpreter the recommendation chose, or one uv installs, with what
that downloads and where said first), an existing venv or Python, a new conda env (name
checked as conda checks it) or an existing conda env -- or resumes an install that did not
finish. The page then shows the exact plan (packages, sizes, total; "already installed"
plainly) and the checks before anything is touched: free space, a writable folder, path
length, and the three refusals (the wizard's own runtime, a system Python, conda base) that
only an explicit confirmation in a dialog lets through.

The page is a view: the default folder (numbered when taken), whether a folder resumes an
unfinished install, the requirements and the index (the mirror included), the plan and the
checks are :mod:`wizard.app.install`'s answers, the same ones ``gpu-setup-wizard install`` gets.
The page is composed of parts that hold their own state and talk through signals
(:mod:`wizard.ui.pages.environment`): the "what" line (:class:`~.display.WhatView`), the target
chooser, the advanced settings, the plan preview, the pre-flight checks, the answers from the
worker pool (:class:`~.answers.Answers`, which drops an answer that arrives after the choice
changed) and what the last run left (:class:`~.reuse_view.LastRun`). The page wires them and
keeps the QWizard conventions: isComplete/completeChanged for the gate, a commit page.

The page is a commit page: its button is the wizard's "Install", and once the install has
started there is no Back into a half-changed choice (the Install page offers Resume, Remove
or Restore instead).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QTimer, SignalInstance
from PySide6.QtWidgets import QWidget, QWizardPage

from wizard.app import environments as app_env
from wizard.app import install as app_install
from wizard.app import recommend as app_recommend
from wizard.app.environments import TargetChoice
from wizard.app.install import (
    CheckOutcome,
    EnvTarget,
    InstallOptions,
    InstallPlan,
    InstallRequest,
    InstallSettings,
    PlanError,
)
from wizard.core.base.i18n import t
from wizard.ui.pages import install_page as _install_page
from wizard.ui.pages.base import BasePage, PageId, scroll_body
from wizard.ui.pages.environment import common
from wizard.ui.pages.environment.answers import Answers
from wizard.ui.pages.environment.common import MODE_NEW_CONDA, MODE_NEW_VENV, MODE_RESUME, MODE_SKIP, REFRESH_DELAY_MS
from wizard.ui.pages.environment.display import WhatView, what_text
from wizard.ui.pages.environment.plan_preview import PlanPreview
from wizard.ui.pages.environment.preflight_view import PreflightView
from wizard.ui.pages.environment.reuse_view import LastRun
from wizard.ui.pages.environment.settings_panel import SettingsPanel
from wizard.ui.pages.environment.target_chooser import TargetChooser
from wizard.ui.session_model import SessionModel

if TYPE_CHECKING:
    from wizard.app.install import EnvState, StateStore
    from wizard.app.recommend import Candidate, PythonChoice
    from wizard.app.session import Session
    from wizard.core.base.host import Host


def _part(part: str, name: str) -> property:
    """A widget of one of the page's parts, named on the page too (tests and the tour reach it so)."""
    return property(lambda self: getattr(getattr(self, part), name), doc=f"``{part}.{name}``")


class EnvironmentPage(BasePage):
    page_id = PageId.ENVIRONMENT
    go_on = False  # Install was clicked while the plan was being worked out: go on when it is ready
    more_button, advanced = _part("settings_panel", "more_button"), _part("settings_panel", "advanced")
    mirror_edit, proxy_edit = _part("settings_panel", "mirror_edit"), _part("settings_panel", "proxy_edit")
    python_mirror_edit = _part("settings_panel", "python_mirror_edit")
    installer_combo = _part("settings_panel", "installer_combo")
    plan_status, plan_tree, plan_total = (_part("preview", "plan_status"), _part("preview", "plan_tree"),
                                          _part("preview", "plan_total"))
    plan_busy, alt_label, alt_buttons = (_part("preview", "plan_busy"), _part("preview", "alt_label"),
                                         _part("preview", "alt_buttons"))
    details_button, details_label = _part("preview", "details_button"), _part("preview", "details_label")
    checks_label, go_on_label = _part("preflight", "checks_label"), _part("preflight", "go_on_label")
    confirm_button, space_form = _part("preflight", "confirm_button"), _part("preflight", "space_form")
    target_box = property(lambda self: self.chooser, doc="the target chooser (a group box)")
    venv_path, python_combo = _part("chooser", "venv_path"), _part("chooser", "python_combo")
    existing_combo, resume_combo = _part("chooser", "existing_combo"), _part("chooser", "resume_combo")
    conda_name, conda_env_combo = _part("chooser", "conda_name"), _part("chooser", "conda_env_combo")
    mode_buttons, mode_group = _part("chooser", "mode_buttons"), _part("chooser", "mode_group")
    mode_panels, remove_button = _part("chooser", "mode_panels"), _part("chooser", "remove_button")
    venv_note, existing_note = _part("chooser", "venv_note"), _part("chooser", "existing_note")
    conda_note, conda_env_note = _part("chooser", "conda_note"), _part("chooser", "conda_env_note")
    resume_note, skip_note = _part("chooser", "resume_note"), _part("chooser", "skip_note")
    browse_button = _part("chooser", "browse_button")
    what_label, last_build_button = _part("what", "what_label"), _part("what", "last_build_button")

    def __init__(self, model: SessionModel, parent: QWidget | None = None) -> None:
        super().__init__(model, parent)
        self.setObjectName("page_environment")
        self.setCommitPage(True)
        self.built = False
        self.cache_dir: str | None = None  # None: the user cache folder (tests pass their own)
        self.state_dir: str | None = None  # None: the user state folder
        self.settings = InstallSettings()
        self.confirmed: set[str] = set()
        self.target: EnvTarget | None = None
        self.target_problem: str | None = None
        self.resume_state: EnvState | None = None  # the unfinished install the target continues
        self.last_run = LastRun()  # what the last run left: its mirror, build and environment
        self.answers = Answers(self)  # the plan and the checks, from the worker pool
        self.answers.plan_answered.connect(self._plan_answered)
        self.answers.checks_answered.connect(self._checks_answered)
        self.answers.checks_crashed.connect(self._checks_crashed)
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(REFRESH_DELAY_MS)
        self._debounce.timeout.connect(self.refresh)
        model.detection_finished.connect(self._detection_finished)
        common.EnterStaysOnPage(self).entered.connect(self.plan_again)  # Enter in a field never presses Install
        super().retranslate()

    def _detection_finished(self, _detection: object) -> None:
        if self.built:
            self.chooser.fill_lists()

    def _build(self) -> None:
        """The "what" line, then the parts that hold their own state and say what changed
        (signals), and the offline bundle row. Built once, on first show."""
        self.built = True
        layout = scroll_body(self)
        self.what = WhatView(self.current_lang)
        self.what.use_last_build.connect(self.use_last_build)
        layout.addWidget(self.what)
        self.chooser = TargetChooser(lambda: self.session, self.store, self.current_lang)
        self.chooser.changed.connect(self._changed)
        self.chooser.mode_changed.connect(self._mode_changed)
        layout.addWidget(self.chooser)
        self.settings_panel = SettingsPanel(self.settings, self.current_lang)
        self.settings_panel.changed.connect(self._settings_changed)
        layout.addWidget(self.settings_panel)
        self.preview = PlanPreview(self.current_lang)
        self.preview.build_chosen.connect(self.use_build)
        self.preview.connection_failed.connect(self.show_settings)
        layout.addWidget(self.preview)
        self.preflight = PreflightView(self.current_lang)
        self.preflight.confirm_requested.connect(self.confirm_refusals)
        layout.addWidget(self.preflight)
        from wizard.ui.pages.bundle_panel import add_bundle_row  # an offline bundle instead of a download

        self.bundle_row = add_bundle_row(self, layout)
        layout.addStretch(1)

    # --- the answers, held by the parts that show them -----------------------------------------------
    @property
    def plan(self) -> InstallPlan | None:
        return self.preview.plan if self.built else None

    @property
    def plan_error(self) -> PlanError | None:
        return self.preview.plan_error if self.built else None

    @property
    def plan_running(self) -> bool:
        return self.built and self.preview.plan_running

    @property
    def alternatives(self) -> list[Candidate] | None:
        return self.preview.alternatives if self.built else None

    @property
    def alternatives_running(self) -> bool:
        return self.built and self.preview.alternatives_running

    @property
    def checks(self) -> CheckOutcome | None:
        return self.preflight.checks if self.built else None

    @property
    def checks_running(self) -> bool:
        return self.built and self.preflight.checks_running

    @property
    def checks_failed(self) -> bool:
        return self.built and self.preflight.checks_failed

    # --- what to install (the app layer decides) -----------------------------------------------------
    @property
    def session(self) -> Session:
        return self.model.session

    @property
    def host(self) -> Host:
        return self.session.host

    def candidate(self) -> Candidate | None:
        return self.session.candidate

    def choice(self) -> PythonChoice | None:
        return self.session.recommendation

    def python_version(self) -> str | None:
        return app_install.python_version(self.session)

    def effective_cache_dir(self) -> str:
        return app_install.default_cache_dir(self.cache_dir)

    def store(self) -> StateStore:
        return app_install.state_store(self.state_dir)

    def options(self) -> InstallOptions | None:
        c = self.candidate()
        if c is None:
            return None
        options = app_install.options_for(self.session, c, self.settings, cache_dir=self.cache_dir,
                                          state_dir=self.state_dir, confirmed=self.confirmed, plan=self.plan)
        state = self.resume_state
        if self.built and self.mode() == MODE_RESUME and state is not None and state.requirements:
            # "Continue an unfinished install": exactly the versions and index it was started with
            options.requirements, options.index_url = list(state.requirements), state.index_url
        return options

    def initializePage(self) -> None:  # noqa: N802
        if not self.built:
            self._build()
        self.retranslate()  # also fills the lists: interpreters, environments, unfinished installs
        self.apply_last_run()  # a re-run: the verified environment first, last run's mirror (and build, offered)
        self.refresh()

    # --- the gate: Install only for a plan that can run ----------------------------------------------
    def isComplete(self) -> bool:  # noqa: N802
        """Install is enabled only for a plan that can run. While the answers for a changed
        choice are still coming it stays enabled: a click then waits for them and goes on by
        itself (disabling it on the mirror field's focus-out swallowed the first click)."""
        if self.built and self.mode() == MODE_SKIP:
            return True
        if not self.built or self.target is None or self.candidate() is None or self.plan_blocks():
            return False
        if self.pending():
            return True
        return self.checks is not None and self.checks.preflight.ok

    def plan_blocks(self) -> bool:
        """The plan was worked out and cannot run (no connection, no such build on the index, a
        torch family of mixed builds ...): the app layer's answer, as the command line's."""
        return self.built and self.preview.blocks()

    def pending(self) -> bool:
        """Answers for the current choice are still on their way (or about to be asked for)."""
        return (self._debounce.isActive() or self.plan_running or self.checks_running
                or (self.target is not None and self.checks is None and not self.checks_failed))

    def _maybe_go_on(self) -> None:
        """Install was clicked while checking: now that the answers are in, go on -- or say why not."""
        if not self.go_on or self.pending():
            return
        self.go_on = False
        wizard = self.wizard()
        ready = self.isComplete()
        self._show_go_on(stopped=not ready)
        if ready and wizard is not None and wizard.currentPage() is self:
            wizard.next()

    def nextId(self) -> int:  # noqa: N802
        """Install next -- or, when the student skips installing, Verify."""
        if self.built and self.mode() == MODE_SKIP:
            return int(PageId.VERIFY)
        return int(PageId.INSTALL)

    def validatePage(self) -> bool:  # noqa: N802
        if not self.isComplete():
            return False
        if self.mode() != MODE_SKIP and self.pending():
            self.go_on = True  # checking first, then on by itself (_maybe_go_on)
            if self._debounce.isActive():
                self.refresh()
            self._show_go_on()
            return False
        self.go_on = False
        if self.mode() == MODE_SKIP:
            self.session.install_request = None
            return True
        options = self.options()
        if options is None or self.target is None:
            return False
        state = self.resume_state
        if self.mode() == MODE_RESUME and state is not None and state.requirements:
            # exactly as it ran: the same pins, index and installer (the engine's resume request)
            request = app_install.resume_request(state, self.settings, cache_dir=self.cache_dir,
                                                 state_dir=self.state_dir, confirmed=self.confirmed)
            request.plan = self.plan
            self.session.install_request = request
            return True
        self.last_run.remember(self.settings, self.candidate())
        self.session.install_request = InstallRequest(
            EnvTarget.from_json(self.target.to_json()), options, self.plan, self._what_text(plain=True))
        return True

    def cleanupPage(self) -> None:  # noqa: N802 - Back to the recommendation: keep the choice
        pass

    def mode(self) -> str:
        return self.chooser.mode() if self.built else MODE_NEW_VENV

    def set_mode(self, mode: str) -> None:
        self.chooser.set_mode(mode)

    def _mode_changed(self, _mode: str = "") -> None:
        # skipping changes nothing, so it commits to nothing: Back from Verify comes here again
        self.setCommitPage(self.mode() != MODE_SKIP)
        self._changed()

    def skip_install(self) -> None:
        """Choose "skip": no install, Next goes to Verify (also what tests walking the flow use)."""
        if not self.built:
            self._build()
            self.retranslate()
        self.set_mode(MODE_SKIP)

    def _fill_unfinished(self) -> None:  # the chooser's lists, named on the page (tests call them so)
        self.chooser.fill_unfinished()

    def default_venv_path(self) -> str:
        return self.chooser.default_venv_path()

    # --- a choice changed ----------------------------------------------------------------------------
    def _changed(self) -> None:
        """A choice changed: the old answers no longer apply; new ones come shortly."""
        self.answers.choice_changed()
        if self.built:
            self.preflight.forget()
        self.completeChanged.emit()
        self._debounce.start()

    def _settings_changed(self) -> None:
        """The settings panel edited ``self.settings``: a red answer was for the old settings."""
        if self.plan_blocks():  # ask the index once more
            self.answers.forget_plan()
            self.preview.forget()
        self._changed()

    def plan_again(self) -> None:
        """Enter in a field: plan once more, asking the index, and show the new plan (never Install)."""
        if self.built and self.mode() != MODE_SKIP:
            self.answers.ask_again()
            self._changed()

    def show_settings(self) -> None:
        """Open the mirror/proxy/installer settings (after a network failure)."""
        if self.built:
            self.settings_panel.reveal()

    def use_build(self, candidate: Candidate) -> None:
        """One click on a build (one the index has, or the last run's): it becomes the choice, and
        the plan is made again."""
        app_recommend.choose_build(self.session, candidate.torch, candidate.variant, candidate)
        self.preview.clear_alternatives()
        self.chooser.fill_python_combo()  # the default folder follows the build
        self._changed()
        self.refresh()

    def use_last_build(self) -> None:
        """The button under the "what" line: the last run's build becomes the choice."""
        build = self.last_run.offered_build(self.candidate())
        if build is not None:
            self.use_build(build)

    def apply_last_run(self) -> None:
        """First show: fill in the last run's mirror, offer its build and its verified environment."""
        if self.last_run.applied:
            return
        if self.last_run.apply(self.session, self.settings, self.store()):
            self.settings_panel.show_values()
        offer = self.last_run.offer
        if offer is None:
            return
        self.chooser.reuse_offer = offer  # listed too (also when the lists are filled again)
        self.chooser.fill_existing()
        self.chooser.select_existing(offer.python_exe)

    def target_choice(self) -> TargetChoice:
        """The choice the chooser's controls describe, as the app layer's rule takes it."""
        return self.chooser.choice(self.settings.installer)

    def build_target(self) -> tuple[EnvTarget | None, str | None]:
        """The target the page's controls describe, or (None, why not): the app layer's one rule,
        the same the ``install`` command follows."""
        self.resume_state = None
        if self.chooser.python_missing():
            return None, t("environment.python.none", self.lang)  # (an empty list: nothing to choose from)
        answer = app_env.resolve_target(self.target_choice(), self.host, self.store(), recommendation=self.choice(),
                                        candidate=self.candidate(), condas=self.chooser.condas(),
                                        uv_exe=self.chooser.uv)
        self.resume_state = answer.resume_state
        if answer.target is None:
            return None, answer.problem.text(self.lang) if answer.problem is not None else None
        return answer.target, None

    # --- asking (the answers come back through signals) -----------------------------------------------
    def refresh(self) -> None:
        """Rebuild the target from the controls, then plan and check it on the worker pool."""
        if not self.built:
            return
        self._debounce.stop()
        self.target, self.target_problem = self.build_target()
        self._show_notes()
        self._show_what()
        skip = self.mode() == MODE_SKIP
        for box in (self.what, self.preview, self.preflight):
            box.setVisible(not skip)
        self.settings_panel.set_shown(not skip)
        options = self.options()
        if skip or self.target is None or options is None:
            self.preflight.forget()
            self._show_checks()
            self._show_plan()
            self.completeChanged.emit()
            return
        if self.answers.wants_plan(self.target, options):
            self.preview.forget()
            if self.answers.key is not None and self.answers.key[0] is not None:
                self._start_plan(self.target, options)
        self._show_plan()
        self._start_checks()
        self.chooser.describe_uv(self.settings.python_mirror)

    def _start_plan(self, target: EnvTarget, options: InstallOptions) -> None:
        saved = self._saved_plan()
        if saved is not None:  # a resume: the plan it ran with (the engine reuses it too), no index asked
            self.preview.set_answer(saved, None)
            return
        self.preview.plan_running = True
        self.answers.plan(target, options, self.host)

    def _plan_answered(self, plan: InstallPlan | None, error: PlanError | None, crashed: bool) -> None:
        self.preview.set_answer(plan, error)
        if not crashed:  # (a crash is no answer of the index: nothing to offer or check)
            self._start_alternatives()
        self._show_plan()
        if not crashed and self.target is not None:
            self._start_checks()  # sizes are known now: check the space again
        self._maybe_go_on()

    def _start_alternatives(self) -> None:
        """The index lacks the chosen build: the plan box asks it (worker) which fitting builds it has."""
        choice = self.session.recommendation
        if choice is None:
            return
        facts = choice.recommendation.facts
        self.preview.start_alternatives(facts, self.candidate(), self.python_version() or facts.python, self.settings)

    def _saved_plan(self) -> InstallPlan | None:
        """The exact plan an unfinished install recorded, when "Continue" resumes it (offline too)."""
        state = self.resume_state
        if self.mode() != MODE_RESUME or state is None or not state.plan:
            return None
        try:
            return InstallPlan.from_json(state.plan)
        except (KeyError, TypeError, ValueError):
            return None  # an older or damaged record: ask the index as for a new install

    def _start_checks(self) -> None:
        if self.target is None:
            return
        self.preflight.asking()
        names, base = self.chooser.conda_facts()
        ours = self.resume_state is not None
        self.answers.check(self.target, self.host, self.plan, self.effective_cache_dir(), self.confirmed,
                           [] if ours else names, base, ours)

    def _checks_answered(self, outcome: CheckOutcome) -> None:
        self.preflight.set_answer(outcome)
        self._show_checks()
        self.completeChanged.emit()
        self._maybe_go_on()

    def _checks_crashed(self, text: str) -> None:
        self.preflight.set_crashed(text)  # Install stays off until the choice changes
        self.go_on = False
        self._show_go_on()
        self.completeChanged.emit()

    # --- showing (each part shows what it holds) -----------------------------------------------------
    def _what_text(self, plain: bool = False) -> str:
        return what_text(self.options(), self.candidate() is not None, self.lang, plain=plain)

    def _show_what(self) -> None:
        build = self.last_run.offered_build(self.candidate())
        self.settings_panel.set_extras_needed(bool(getattr(self.session.course, "packages", None)))
        self.what.show_what(self._what_text(), self.last_run.note(self.settings.mirror, self.candidate(), self.lang),
                            (build.torch, build.variant) if build is not None else None)

    def _show_notes(self) -> None:
        """The note under the chosen mode (the chooser words it from the target's answer)."""
        existing = self.existing_combo.currentData()
        self.chooser.show_notes(self.target_problem, self.resume_state, self.settings.python_mirror,
                                self.last_run.existing_note(getattr(existing, "python_exe", None), self.lang))

    def _show_plan(self) -> None:
        """The plan box shows the current answer (it owns it)."""
        self.preview.show_plan(self.target is not None, self.target_problem, self.options())

    def _show_checks(self) -> None:
        """The checks box shows its answer; the plan's total gets what the cache holds."""
        self.preflight.show_checks(self.target, self.effective_cache_dir(), hide_conda_name=self.mode() == MODE_NEW_CONDA,
                                   plan_blocks=self.plan_blocks(), plan_running=self.plan_running)
        self.preview.show_total(self.preflight.cached_bytes)

    def _show_go_on(self, stopped: bool = False) -> None:
        """After a click on Install during a re-plan: "checking, then on by itself" (or why not)."""
        self.preflight.show_go_on(self.go_on, stopped)
        if self.go_on:
            self.preview.plan_busy.show()

    # --- actions ---------------------------------------------------------------------------------------
    def confirm_refusals(self) -> bool:
        """The explicit confirmation for a refused target (own runtime, system Python, conda base)."""
        if self.checks is None:
            return False
        pending = self.checks.preflight.needs_confirmation
        if not pending:
            return True
        lang = self.lang
        text = "\n\n".join(c.text(lang) for c in pending) + "\n\n" + t("environment.confirm.question", self.lang)
        if not common.ask_yes_no(self, t("environment.confirm.title", self.lang), text, t("environment.confirm.yes", self.lang),
                                 t("environment.confirm.no", self.lang)):
            return False
        self.confirmed |= {c.id for c in pending}
        self._changed()
        self.refresh()
        return True

    def set_new_venv_folder(self, folder: str) -> None:
        """A chosen folder: used as it is when empty or new, else the environment goes inside it."""
        self.chooser.set_new_venv_folder(folder)

    def add_existing_folder(self, folder: str) -> bool:
        """Add a venv folder the detection did not list, and select it."""
        return self.chooser.add_existing_folder(folder)

    def remove_unfinished(self, state: EnvState | None = None) -> None:
        """Delete an unfinished environment the wizard created (the chooser asks, then removes it)."""
        self.chooser.remove_unfinished(state if state is not None else self.resume_combo.currentData())

    def retranslate(self) -> None:
        super().retranslate()
        if not self.built:
            return
        self.chooser.retranslate()  # also fills the lists: interpreters, environments, unfinished installs
        self.settings_panel.retranslate()
        self.preview.retranslate()
        self.preflight.retranslate()
        if self.target is not None or self.target_problem:
            self._show_what()
            self._show_notes()
            self._show_plan()
            self._show_checks()


class InstallWindow(Protocol):
    """What :func:`register_install_pages` needs of the window (a :class:`SetupWizard`)."""

    model: SessionModel
    environment_page: EnvironmentPage
    install_page: _install_page.InstallPage

    @property
    def finished(self) -> SignalInstance: ...

    def page(self, id: int, /) -> QWizardPage: ...  # noqa: A002 - Qt's names

    def removePage(self, id: int, /) -> None: ...  # noqa: N802, A002

    def setPage(self, id: int, page: QWizardPage, /) -> None: ...  # noqa: N802, A002


def register_install_pages(wizard: InstallWindow) -> tuple[EnvironmentPage, _install_page.InstallPage]:
    """Put the Environment and Install pages into ``wizard`` (a :class:`SetupWizard`) in place
    of their placeholders. The Install page also stops a running install when the window
    closes. Returns both pages (also kept as ``wizard.environment_page`` / ``install_page``)."""
    existing = getattr(wizard, "environment_page", None)
    if isinstance(existing, EnvironmentPage) and wizard.page(PageId.ENVIRONMENT) is existing:
        return existing, wizard.install_page  # already registered: once is enough
    env_page = EnvironmentPage(wizard.model)
    install_page = _install_page.InstallPage(wizard.model)
    for page_id, page in ((PageId.ENVIRONMENT, env_page), (PageId.INSTALL, install_page)):
        old = wizard.page(page_id)
        if old is not None:
            wizard.removePage(page_id)
            old.deleteLater()
        wizard.setPage(page_id, page)
    wizard.environment_page = env_page
    wizard.install_page = install_page
    wizard.finished.connect(lambda _result: install_page.shutdown())
    return env_page, install_page


__all__ = ["EnvironmentPage", "register_install_pages"]
