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
Its widgets, lists and texts live in :mod:`wizard.ui.pages.environment`.

Everything slow runs on the worker pool: the plan is pip's dry-run resolution against the
chosen index (seconds against download.pytorch.org), the checks query the target's
interpreter. A generation counter drops answers that arrive after the choice changed.

The page is a commit page: its button is the wizard's "Install", and once the install has
started there is no Back into a half-changed choice (the Install page offers Resume, Remove
or Restore instead).
"""

from __future__ import annotations

import os
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QWidget

from wizard.app import environments as app_env
from wizard.app import install as app_install
from wizard.app.environments import TargetChoice
from wizard.app.install import (
    CheckOutcome,
    EnvTarget,
    InstallOptions,
    InstallPlan,
    InstallRequest,
    InstallSettings,
    PlanError,
    PlanOutcome,
)
from wizard.core.base.i18n import t
from wizard.ui.pages import install_page as _install_page
from wizard.ui.pages.base import BasePage, PageId
from wizard.ui.pages.environment import common
from wizard.ui.pages.environment.common import (
    MODE_NEW_VENV,
    MODE_RESUME,
    MODE_SKIP,
    RED,
    REFRESH_DELAY_MS,
    ErrorText,
    marked,
)
from wizard.ui.pages.environment.display import EnvironmentDisplay
from wizard.ui.pages.environment.gate import EnvironmentGate
from wizard.ui.pages.environment.panels import EnvironmentPanels
from wizard.ui.pages.environment.reuse_view import EnvironmentReuse
from wizard.ui.session_model import SessionModel
from wizard.ui.workers import submit


def _part(part: str, name: str) -> property:
    """A widget of one of the page's parts, named on the page too (tests and the tour reach it so)."""
    return property(lambda self: getattr(getattr(self, part), name), doc=f"``{part}.{name}``")


class EnvironmentPage(EnvironmentGate, EnvironmentReuse, EnvironmentPanels, EnvironmentDisplay, BasePage):
    page_id = PageId.ENVIRONMENT
    _check_gen = 0  # (a class default, so the lazy build and __init__ stay as they are)
    _answer_failed = False  # the index's last answer was a failure: the next plan asks it again
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
        self.resume_state = None  # EnvState of the unfinished install the target continues
        self.plan_key: tuple | None = None
        self._gen = 0
        self._plan_gen = 0
        self._tasks: list[Any] = []
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(REFRESH_DELAY_MS)
        self._debounce.timeout.connect(self.refresh)
        model.detection_finished.connect(lambda _d: self.built and self.chooser.fill_lists())
        super().retranslate()

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
    def alternatives(self) -> list | None:
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
    def session(self):
        return self.model.session

    @property
    def host(self):
        return self.session.host

    def candidate(self):
        return self.session.candidate

    def choice(self):
        return self.session.recommendation

    def python_version(self) -> str | None:
        return app_install.python_version(self.session)

    def effective_cache_dir(self) -> str:
        return app_install.default_cache_dir(self.cache_dir)

    def store(self):
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
        self.apply_last_run()  # a re-run: the verified environment first, last run's mirror and build
        self.refresh()

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
        self.remember_this_install()
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

    # the chooser's lists, named on the page (the reuse view and tests call them so)
    def _fill_lists(self) -> None:
        self.chooser.fill_lists()

    def _fill_python_combo(self) -> None:
        self.chooser.fill_python_combo()

    def _fill_existing(self) -> None:
        self.chooser.fill_existing()

    def _fill_unfinished(self) -> None:
        self.chooser.fill_unfinished()

    def _show_panels(self) -> None:
        self.chooser.show_panels()

    def _condas(self) -> list:
        return self.chooser.condas()

    def default_venv_path(self) -> str:
        return self.chooser.default_venv_path()

    @property
    def _uv(self) -> str | None:
        return self.chooser.uv if self.built else None

    def _changed(self) -> None:
        """A choice changed: the old answers no longer apply; new ones come shortly."""
        self._gen += 1
        if self.built:
            self.preflight.forget()
        self.completeChanged.emit()
        self._debounce.start()

    def _settings_changed(self) -> None:
        """The settings panel edited ``self.settings``: a red answer was for the old settings."""
        if self.plan_blocks():  # ask the index once more
            self.plan_key = None
            self.preview.forget()
        self._changed()

    def show_settings(self) -> None:
        """Open the mirror/proxy/installer settings (after a network failure)."""
        if self.built:
            self.settings_panel.reveal()

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
                                        candidate=self.candidate(), condas=self._condas(), uv_exe=self._uv)
        self.resume_state = answer.resume_state
        if answer.target is None:
            return None, answer.problem.text(self.lang) if answer.problem is not None else None
        return answer.target, None

    def refresh(self) -> None:
        """Rebuild the target from the controls, then plan and check it on the worker pool."""
        if not self.built:
            return
        self._debounce.stop()
        self.target, self.target_problem = self.build_target()
        self._show_notes()
        self._show_what()
        skip = self.mode() == MODE_SKIP
        for box in (self.what_label, self.preview, self.preflight):
            box.setVisible(not skip)
        self.settings_panel.set_shown(not skip)
        gen = self._gen
        if skip or self.target is None or self.candidate() is None:
            self.preflight.forget()
            self._show_checks()
            self._show_plan()
            self.completeChanged.emit()
            return
        options = self.options()
        key = self._plan_key(self.target, options)
        if key != self.plan_key:
            self.plan_key = key
            self.preview.forget()
            self._plan_gen += 1  # an answer still on its way is for the old key
            if key[0] is not None:
                self._start_plan(self.target, options)
        self._show_plan()
        self._start_checks(gen)
        self.chooser.describe_uv(self.settings.python_mirror)

    @staticmethod
    def _plan_key(target: EnvTarget, options: InstallOptions) -> tuple:
        """The plan depends on the interpreter that resolves it and on what is asked, not on the
        new folder's name: typing a path does not resolve again."""
        if os.path.exists(target.python_exe):
            py = target.python_exe
        elif target.base_python and os.path.exists(target.base_python):
            py = target.base_python
        else:
            py = None
        existing = target.python_exe if not target.creates_env else None
        return (py, existing, tuple(options.requirements), options.index_url, target.kind)

    def _start_plan(self, target: EnvTarget, options: InstallOptions) -> None:
        self._plan_gen += 1
        gen = self._plan_gen
        saved = self._saved_plan()
        if saved is not None:  # a resume: the plan it ran with (the engine reuses it too), no index asked
            self.preview.set_answer(saved, None)
            return
        self.preview.plan_running = True
        if self._answer_failed:  # the last answer was a failure: ask the index, not a cached page
            options = app_install.asking_again(options)

        def done(outcome: PlanOutcome) -> None:
            if not common.alive(self) or gen != self._plan_gen:
                return
            self.preview.set_answer(outcome.plan, outcome.error)
            self._answer_failed = outcome.error is not None
            self._start_alternatives()
            self._show_plan()
            if self.target is not None:  # sizes are known now: check the space again
                self._start_checks(self._gen)
            self._maybe_go_on()

        def failed(text: str) -> None:
            if not common.alive(self) or gen != self._plan_gen:
                return
            self._answer_failed = True
            self.preview.set_answer(None, PlanError("failed", ErrorText(text.strip().splitlines()[0]
                                                                        if text.strip() else "?")))
            self._show_plan()
            self._maybe_go_on()

        self._keep(submit(app_install.plan_install, target, options, self.host, on_done=done, on_failed=failed))

    def _saved_plan(self) -> InstallPlan | None:
        """The exact plan an unfinished install recorded, when "Continue" resumes it (offline too)."""
        state = self.resume_state
        if self.mode() != MODE_RESUME or state is None or not state.plan:
            return None
        try:
            return InstallPlan.from_json(state.plan)
        except (KeyError, TypeError, ValueError):
            return None  # an older or damaged record: ask the index as for a new install

    def _start_checks(self, gen: int) -> None:
        if self.target is None:
            return
        self.preflight.asking()
        self._check_gen += 1
        check_gen = self._check_gen  # only the newest check counts (a plan's sizes start another)
        names, base = self.chooser.conda_facts()
        ours = self.resume_state is not None
        target = EnvTarget.from_json(self.target.to_json())

        def done(outcome: CheckOutcome) -> None:
            if not common.alive(self) or gen != self._gen or check_gen != self._check_gen:
                return
            self.preflight.set_answer(outcome)
            self._show_checks()
            self.completeChanged.emit()
            self._maybe_go_on()

        def failed(text: str) -> None:
            if not common.alive(self) or gen != self._gen or check_gen != self._check_gen:
                return
            self.preflight.set_crashed(text)  # Install stays off until the choice changes
            self.go_on = False
            self._show_go_on()
            self.completeChanged.emit()

        self._keep(submit(app_install.run_checks, target, self.host, self.plan, self.effective_cache_dir(),
                          set(self.confirmed),
                          [] if ours else names, base, ours, on_done=done, on_failed=failed))

    def _keep(self, task: Any) -> None:
        self._tasks = [x for x in self._tasks[-8:]] + [task]

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

    def remove_unfinished(self, state: Any = None) -> None:
        """Delete an unfinished environment the wizard created (after a confirmation)."""
        state = state if state is not None else self.resume_combo.currentData()
        if state is None or not state.created_by_wizard:
            return
        if not common.ask_yes_no(self, t("environment.remove.title", self.lang), t("environment.remove.question", self.lang,
                                                                               path=state.env_path),
                          t("environment.remove.yes", self.lang), t("environment.confirm.no", self.lang)):
            return
        store = self.store()
        self.remove_button.setEnabled(False)

        def done(outcome: app_env.RemoveOutcome) -> None:
            self.remove_button.setEnabled(True)
            self._fill_unfinished()
            self._show_panels()
            if outcome.refused:
                self.resume_note.setText(marked("✖", RED, t("install.page.remove.refused", self.lang,
                                                             reason=outcome.refused)))
            self._changed()

        def failed(text: str) -> None:
            self.remove_button.setEnabled(True)
            self.resume_note.setText(marked("✖", RED, text.strip().splitlines()[0]))

        self._keep(submit(app_env.remove_environment, state, self.host, store, on_done=done, on_failed=failed))


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


def register_install_pages(wizard: Any) -> tuple[EnvironmentPage, Any]:
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
