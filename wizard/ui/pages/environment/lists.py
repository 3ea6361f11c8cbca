"""The lists the Environment page fills from the detection: interpreters for a new venv,
existing environments, conda envs and the wizard's own unfinished installs. What counts as a
usable interpreter and which folder is the default are the app layer's answers."""

from __future__ import annotations

from PySide6.QtCore import Qt

from wizard.app import environments as app_env
from wizard.app import install as app_install
from wizard.app import recommend as app_recommend
from wizard.core.base.i18n import t
from wizard.ui.pages.environment.common import MODE_EXISTING_CONDA, MODE_NEW_CONDA, MODE_NEW_VENV, MODE_RESUME


class EnvironmentLists:
    """The list half of :class:`~wizard.ui.pages.environment_page.EnvironmentPage` (a mixin)."""

    def _usable_pythons(self) -> list:
        return app_recommend.usable_pythons(self.session.detection)

    def _condas(self) -> list:
        return app_env.usable_condas(self.session.detection)

    def _fill_lists(self) -> None:
        """Interpreters, existing environments, conda envs and unfinished installs."""
        self._fill_unfinished()
        self._fill_python_combo()
        self._fill_existing()
        self._fill_conda()

    def _fill_python_combo(self) -> None:
        """New venv: the interpreters, and uv's own Python of the recommended version."""
        combo = self.python_combo
        current = combo.currentData()
        combo.blockSignals(True)
        combo.clear()
        chosen = getattr(getattr(self.choice(), "interpreter", None), "path", None)
        unfit = []
        for p in app_env.python_options(self.session.detection, self.choice(), self.candidate()):
            if not p.fits:  # too old (or new) for this torch: listed last, with the reason, not chosen
                unfit.append(p)
                continue
            mark = "  " + t("envpage.python.recommended", self.lang) if p.recommended else ""
            combo.addItem(f"Python {p.version} — {p.path}{mark}", ("python", p.path, p.version))
        version = self.python_version()
        self._uv = app_env.find_uv()
        if version:
            combo.addItem(t("envpage.python.uv", self.lang, version=version), ("uv", version, version))
            if not self._uv:
                item = combo.model().item(combo.count() - 1)
                if item is not None:
                    item.setEnabled(False)
        for p in unfit:
            combo.addItem(f"Python {p.version} — {p.path}  ({p.why_not.text(self.lang)})", None)
            item = combo.model().item(combo.count() - 1)
            if item is not None:
                item.setEnabled(False)
                item.setData(p.why_not.text(self.lang), Qt.ItemDataRole.ToolTipRole)
        # (findData compares Python objects by identity: look for an equal tuple instead)
        index = next((i for i in range(combo.count()) if current is not None and combo.itemData(i) == current), -1)
        if index < 0:
            index = next((i for i in range(combo.count()) if (combo.itemData(i) or ("",))[0] == "python"
                          and combo.itemData(i)[1] == chosen), -1)
        if index < 0 and chosen is None and self._uv and version:  # none chosen: uv installs the recommended version
            index = next((i for i in range(combo.count()) if (combo.itemData(i) or ("",))[0] == "uv"), -1)
        combo.setCurrentIndex(max(0, index))
        combo.blockSignals(False)
        typed = self.venv_path.text().strip()
        if not typed or typed == self._auto_path:  # follow the build unless the student typed a path
            self._auto_path = self.default_venv_path()
            self.venv_path.blockSignals(True)
            self.venv_path.setText(self._auto_path)
            self.venv_path.blockSignals(False)

    def _fill_existing(self) -> None:
        """Existing: venvs the detection saw or the wizard made, and interpreters themselves."""
        d = self.session.detection
        combo = self.existing_combo
        current_path = combo.currentData().path if combo.currentData() is not None else None
        combo.blockSignals(True)
        combo.clear()
        offer = getattr(self, "reuse_offer", None)  # the last run's environment, wherever it is
        for target in app_env.existing_environments(d, self.host, offer):
            if app_env.is_bare_python(target):
                version = app_env.python_version_of(target, d)
                combo.addItem(t("envpage.existing.python", self.lang, version=version, path=target.path), target)
            else:
                combo.addItem(t("envpage.existing.venv", self.lang, path=target.path), target)
        if current_path:
            for i in range(combo.count()):
                if combo.itemData(i).path == current_path:
                    combo.setCurrentIndex(i)
        combo.blockSignals(False)

    def _fill_conda(self) -> None:
        combo = self.conda_env_combo
        combo.blockSignals(True)
        combo.clear()
        for conda in self._condas():
            for env in conda.envs:
                base = t("envpage.conda.base_mark", self.lang) if env.is_base or env.name.lower() in ("base",
                                                                                                      "root") else ""
                combo.addItem(f"{env.name} — {env.prefix}{base}", (env, conda))
        combo.blockSignals(False)
        has_conda = bool(self._condas())
        self.mode_buttons[MODE_NEW_CONDA].setEnabled(has_conda)
        self.mode_buttons[MODE_EXISTING_CONDA].setEnabled(combo.count() > 0)
        for mode in (MODE_NEW_CONDA, MODE_EXISTING_CONDA):
            button = self.mode_buttons[mode]
            button.setToolTip("" if button.isEnabled() else t("envpage.conda.not_found", self.lang))
        if self.mode_group.checkedButton() is None or not self.mode_group.checkedButton().isEnabled():
            self.mode_buttons[MODE_NEW_VENV].setChecked(True)
        self._show_panels()

    def _fill_unfinished(self) -> None:
        combo = self.resume_combo
        current = combo.currentData().env_path if combo.currentData() is not None else None
        combo.blockSignals(True)
        combo.clear()
        for state in self.store().unfinished():
            step = t(f"install.step.{state.failed_step}",
                     self.lang) if state.failed_step else t("envpage.resume.not_started", self.lang)
            status = t(f"envpage.resume.status.{state.status}", self.lang) if state.status in (
                "failed", "cancelled", "running") else state.status
            combo.addItem(t("envpage.resume.item", self.lang, path=state.env_path, status=status, step=step), state)
            if state.env_path == current:
                combo.setCurrentIndex(combo.count() - 1)
        combo.blockSignals(False)
        has = combo.count() > 0
        self.mode_buttons[MODE_RESUME].setVisible(has)
        if not has and self.mode_buttons[MODE_RESUME].isChecked():
            self.mode_buttons[MODE_NEW_VENV].setChecked(True)


    def default_venv_path(self) -> str:
        """The app layer's default folder for this build (numbered when taken)."""
        return app_install.default_venv_path(self.host, self.candidate(), self.store())

    def _unfinished_at(self, path: str):
        """The wizard's own unfinished install at ``path`` (Install then resumes it), or None."""
        return app_install.unfinished_at(self.store(), path)

    def _conda_facts(self) -> tuple[list[str], str | None]:
        return app_env.conda_facts(self._condas())

