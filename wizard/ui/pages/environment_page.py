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

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QFileDialog, QWidget

from wizard.app import environments as app_env
from wizard.app import install as app_install
from wizard.app.environments import TargetChoice
from wizard.app.install import (
    INSTALLER_PIP,
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
    MODE_EXISTING,
    MODE_EXISTING_CONDA,
    MODE_NEW_CONDA,
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
from wizard.ui.pages.environment.lists import EnvironmentLists
from wizard.ui.pages.environment.panels import EnvironmentPanels
from wizard.ui.pages.environment.reuse_view import EnvironmentReuse
from wizard.ui.session_model import SessionModel
from wizard.ui.workers import submit


class EnvironmentPage(EnvironmentGate, EnvironmentReuse, EnvironmentPanels, EnvironmentLists, EnvironmentDisplay,
                      BasePage):
    page_id = PageId.ENVIRONMENT
    _check_gen = 0  # (a class default, so the lazy build and __init__ stay as they are)
    _answer_failed = False  # the index's last answer was a failure: the next plan asks it again

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
        self.plan: InstallPlan | None = None
        self.plan_error: PlanError | None = None
        self.plan_key: tuple | None = None
        self.plan_running = False
        self.checks: CheckOutcome | None = None
        self.checks_running = False
        self._gen = 0
        self._plan_gen = 0
        self._tasks: list[Any] = []
        self._uv_text: dict[tuple, str] = {}
        self._auto_path: str | None = None
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(REFRESH_DELAY_MS)
        self._debounce.timeout.connect(self.refresh)
        model.detection_finished.connect(lambda _d: self.built and self._fill_lists())
        super().retranslate()

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
        for mode, button in self.mode_buttons.items():
            if button.isChecked():
                return mode
        return MODE_NEW_VENV

    def set_mode(self, mode: str) -> None:
        self.mode_buttons[mode].setChecked(True)

    def _mode_changed(self) -> None:
        # skipping changes nothing, so it commits to nothing: Back from Verify comes here again
        self.setCommitPage(self.mode() != MODE_SKIP)
        self._show_panels()
        self._changed()

    def skip_install(self) -> None:
        """Choose "skip": no install, Next goes to Verify (also what tests walking the flow use)."""
        if not self.built:
            self._build()
            self.retranslate()
        self.set_mode(MODE_SKIP)

    def _show_panels(self) -> None:
        current = self.mode()
        for mode, panel in self.mode_panels.items():
            panel.setVisible(mode == current and not self.mode_buttons[mode].isHidden())

    def _changed(self) -> None:
        """A choice changed: the old answers no longer apply; new ones come shortly."""
        self._gen += 1
        self.checks = None
        self.completeChanged.emit()
        self._debounce.start()

    def _settings_changed(self) -> None:
        self.settings.mirror = self.mirror_edit.text().strip()
        self.settings.python_mirror = self.python_mirror_edit.text().strip()
        self.settings.proxy = self.proxy_edit.text().strip()
        self.settings.installer = self.installer_combo.currentData() or INSTALLER_PIP
        if self.plan_blocks():  # the red answer was for the old settings: ask the index once more
            self.plan_key, self.plan_error = None, None
        self._changed()

    def show_settings(self) -> None:
        """Open the mirror/proxy/installer settings (after a network failure)."""
        if self.built and not self.more_button.isChecked():
            self.more_button.setChecked(True)

    def _toggle_advanced(self, shown: bool) -> None:
        self.advanced.setVisible(shown)
        self.more_button.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)

    def target_choice(self) -> TargetChoice:
        """The choice the page's controls describe, as the app layer's rule takes it."""
        mode = self.mode()
        choice = TargetChoice(mode, installer=self.settings.installer)
        if mode == MODE_RESUME:
            choice.resume = self.resume_combo.currentData()
        elif mode == MODE_NEW_VENV:
            choice.path = self.venv_path.text()
            data = self.python_combo.currentData()
            choice.python = data[1] if data is not None else ""
        elif mode == MODE_EXISTING:
            choice.existing = self.existing_combo.currentData()
        elif mode == MODE_NEW_CONDA:
            choice.conda_name = self.conda_name.text()
        elif mode == MODE_EXISTING_CONDA:
            choice.conda_env = self.conda_env_combo.currentData()
        return choice

    def build_target(self) -> tuple[EnvTarget | None, str | None]:
        """The target the page's controls describe, or (None, why not): the app layer's one rule,
        the same the ``install`` command follows."""
        self.resume_state = None
        if self.mode() == MODE_NEW_VENV and self.python_combo.currentData() is None:
            return None, t("envpage.python.none", self.lang)  # (an empty list: nothing to choose from)
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
        for box in (self.what_label, self.plan_box, self.checks_box, self.more_button):
            box.setVisible(not skip)
        self.advanced.setVisible(not skip and self.more_button.isChecked())
        gen = self._gen
        if skip or self.target is None or self.candidate() is None:
            self.checks = None
            self._show_checks()
            self._show_plan()
            self.completeChanged.emit()
            return
        options = self.options()
        key = self._plan_key(self.target, options)
        if key != self.plan_key:
            self.plan_key = key
            self.plan, self.plan_error = None, None
            self._plan_gen += 1  # an answer still on its way is for the old key
            self.plan_running = False
            if key[0] is not None:
                self._start_plan(self.target, options)
        self._show_plan()
        self._start_checks(gen)
        self._maybe_describe_uv()

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
            self.plan_running, self.plan, self.plan_error = False, saved, None
            return
        self.plan_running = True
        if self._answer_failed:  # the last answer was a failure: ask the index, not a cached page
            options = app_install.asking_again(options)

        def done(outcome: PlanOutcome) -> None:
            if not common.alive(self) or gen != self._plan_gen:
                return
            self.plan_running = False
            self.plan, self.plan_error = outcome.plan, outcome.error
            self._answer_failed = outcome.error is not None
            self._start_alternatives(options)
            self._show_plan()
            if self.target is not None:  # sizes are known now: check the space again
                self._start_checks(self._gen)
            self._maybe_go_on()

        def failed(text: str) -> None:
            if not common.alive(self) or gen != self._plan_gen:
                return
            self.plan_running = False
            self.plan = None
            self._answer_failed = True
            self.plan_error = PlanError("failed", ErrorText(text.strip().splitlines()[0] if text.strip() else "?"))
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
        self.checks_running = True
        self.checks_failed = False
        self._check_gen += 1
        check_gen = self._check_gen  # only the newest check counts (a plan's sizes start another)
        names, base = self._conda_facts()
        ours = self.resume_state is not None
        target = EnvTarget.from_json(self.target.to_json())

        def done(outcome: CheckOutcome) -> None:
            if not common.alive(self) or gen != self._gen or check_gen != self._check_gen:
                return
            self.checks_running = False
            self.checks = outcome
            self._show_checks()
            self.completeChanged.emit()
            self._maybe_go_on()

        def failed(text: str) -> None:
            if not common.alive(self) or gen != self._gen or check_gen != self._check_gen:
                return
            self.checks_running = False
            self.checks = None
            self.checks_failed = True  # Install stays off until the choice changes
            self.go_on = False
            self._show_go_on()
            self.checks_label.setText(marked("✖", RED, text.strip().splitlines()[0]))
            self.completeChanged.emit()

        self._keep(submit(app_install.run_checks, target, self.host, self.plan, self.effective_cache_dir(),
                          set(self.confirmed),
                          [] if ours else names, base, ours, on_done=done, on_failed=failed))

    def _maybe_describe_uv(self) -> None:
        data = self.python_combo.currentData()
        if self.mode() != MODE_NEW_VENV or data is None or data[0] != "uv" or not self._uv:
            return
        mirror = self.settings.python_mirror or None
        key = (data[1], mirror)
        if key in self._uv_text:
            return
        self._uv_text[key] = t("envpage.uv.asking", self.lang)

        def done(text: str) -> None:
            self._uv_text[key] = text
            if common.alive(self):
                self._show_notes()

        def failed(text: str) -> None:
            self._uv_text[key] = text.strip().splitlines()[0]
            if common.alive(self):
                self._show_notes()

        self._keep(submit(app_install.describe_uv_python, self.host, self._uv, data[1], mirror, self.model.lang,
                          on_done=done, on_failed=failed))

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
        text = "\n\n".join(c.text(lang) for c in pending) + "\n\n" + t("envpage.confirm.question", self.lang)
        if not common.ask_yes_no(self, t("envpage.confirm.title", self.lang), text, t("envpage.confirm.yes", self.lang),
                                 t("envpage.confirm.no", self.lang)):
            return False
        self.confirmed |= {c.id for c in pending}
        self._changed()
        self.refresh()
        return True

    def browse_new_venv(self) -> None:
        start = os.path.dirname(self.venv_path.text().strip()) or self.host.home()
        folder = QFileDialog.getExistingDirectory(self, t("envpage.venv.browse_title", self.lang), start)
        if folder:
            self.set_new_venv_folder(folder)

    def set_new_venv_folder(self, folder: str) -> None:
        """A chosen folder: used as it is when empty or new, else the environment goes inside it."""
        folder = os.path.abspath(folder)
        if os.path.isdir(folder) and os.listdir(folder) and self._unfinished_at(folder) is None:
            name = os.path.basename(self.default_venv_path()) or "pytorch"
            folder = os.path.join(folder, name)
        self.venv_path.setText(folder)

    def browse_existing(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, t("envpage.existing.browse_title", self.lang), self.host.home())
        if folder:
            self.add_existing_folder(folder)

    def add_existing_folder(self, folder: str) -> bool:
        """Add a venv folder the detection did not list, and select it."""
        if not os.path.isfile(os.path.join(folder, "pyvenv.cfg")):
            self.existing_note.setText(marked("✖", RED, t("install.check.not_a_venv", self.lang, path=folder)))
            return False
        target = app_env.existing_venv_at(folder)
        self.existing_combo.addItem(t("envpage.existing.venv", self.lang, path=target.path), target)
        self.existing_combo.setCurrentIndex(self.existing_combo.count() - 1)
        self.set_mode(MODE_EXISTING)
        return True

    def remove_unfinished(self) -> None:
        """Delete an unfinished environment the wizard created (after a confirmation)."""
        state = self.resume_combo.currentData()
        if state is None:
            return
        if not state.created_by_wizard:
            return
        if not common.ask_yes_no(self, t("envpage.remove.title", self.lang), t("envpage.remove.question", self.lang,
                                                                               path=state.env_path),
                          t("envpage.remove.yes", self.lang), t("envpage.confirm.no", self.lang)):
            return
        store = self.store()
        self.remove_button.setEnabled(False)

        def done(outcome: app_env.RemoveOutcome) -> None:
            self.remove_button.setEnabled(True)
            self._fill_unfinished()
            self._show_panels()
            if outcome.refused:
                self.resume_note.setText(marked("✖", RED, t("installpage.remove.refused", self.lang,
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
        labels = {MODE_RESUME: "envpage.mode.resume", MODE_NEW_VENV: "envpage.mode.new_venv",
                  MODE_EXISTING: "envpage.mode.existing", MODE_NEW_CONDA: "envpage.mode.new_conda",
                  MODE_EXISTING_CONDA: "envpage.mode.existing_conda", MODE_SKIP: "envpage.mode.skip"}
        for mode, key in labels.items():
            self.mode_buttons[mode].setText(t(key, self.lang))
        self.target_box.setTitle(t("envpage.target.title", self.lang))
        self.venv_path_label.setText(t("envpage.venv.folder", self.lang) + ":")
        self.python_label.setText(t("envpage.venv.python", self.lang) + ":")
        self.browse_button.setText(t("envpage.browse", self.lang))
        self.existing_browse.setText(t("envpage.browse", self.lang))
        self.remove_button.setText(t("envpage.resume.remove", self.lang))
        self.conda_name_label.setText(t("envpage.conda.name", self.lang) + ":")
        self.more_button.setText(t("envpage.advanced", self.lang))
        self.mirror_label.setText(t("envpage.advanced.mirror", self.lang) + ":")
        self.mirror_edit.setToolTip(t("envpage.advanced.mirror_tip", self.lang))
        self.python_mirror_label.setText(t("envpage.advanced.python_mirror", self.lang) + ":")
        self.proxy_label.setText(t("envpage.advanced.proxy", self.lang) + ":")
        self.installer_label.setText(t("envpage.advanced.installer", self.lang) + ":")
        self.installer_combo.setItemText(0, t("g.env.installer.auto", self.lang))  # the first item: "auto"
        self.plan_box.setTitle(t("envpage.plan.title", self.lang))
        self.plan_tree.setHeaderLabels([t("envpage.plan.col.package", self.lang), t("envpage.plan.col.version",
                                                                                    self.lang),
                                        t("envpage.plan.col.size", self.lang)])
        self.checks_box.setTitle(t("envpage.checks.title", self.lang))
        self.details_button.setText(t("g.fail.details", self.lang))
        self.details_button.setToolTip(t("g.fail.details_tip", self.lang))
        self.confirm_button.setText(t("envpage.confirm.button", self.lang))
        self.space_form.retranslate()
        self._fill_lists()
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
