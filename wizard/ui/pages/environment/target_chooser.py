"""Where PyTorch goes, as the student picks it: continue an unfinished install, a new venv (its
folder and Python), an existing venv or Python, a new conda env (its name) or an existing one --
or skip installing. Each choice has its panel and a note under it.

A widget that owns its state: the mode, the lists it fills from the detection (interpreters, with
the ones too old for the build listed with the reason; environments; conda envs; the wizard's
unfinished installs), the folder it proposes, what uv would download. It says ``changed`` when
the choice changes (also after it deleted an unfinished install the student asked it to) and
``mode_changed`` when another mode is picked. :meth:`choice` is the app layer's
:class:`~wizard.app.environments.TargetChoice`: the rule that turns it into a target is there.
"""

from __future__ import annotations

import os
from functools import partial
from typing import TYPE_CHECKING, Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from wizard.app import environments as app_env
from wizard.app import install as app_install
from wizard.app import recommend as app_recommend
from wizard.app.environments import TargetChoice
from wizard.app.reuse import ReuseOffer
from wizard.app.session import Session
from wizard.core.base.i18n import t
from wizard.ui.pages.environment import common
from wizard.ui.pages.environment.common import (
    DEFAULT_CONDA_NAME,
    GREY,
    MODE_EXISTING,
    MODE_EXISTING_CONDA,
    MODE_NEW_CONDA,
    MODE_NEW_VENV,
    MODE_RESUME,
    MODE_SKIP,
    MODES,
    ORANGE,
    RED,
    marked,
)
from wizard.ui.pages.environment.common import esc as _esc
from wizard.ui.pages.environment.failure import describe
from wizard.ui.workers import Task, submit

if TYPE_CHECKING:
    from wizard.app.install import EnvState, StateStore

_MODE_KEYS = {MODE_RESUME: "environment.mode.resume", MODE_NEW_VENV: "environment.mode.new_venv",
              MODE_EXISTING: "environment.mode.existing", MODE_NEW_CONDA: "environment.mode.new_conda",
              MODE_EXISTING_CONDA: "environment.mode.existing_conda", MODE_SKIP: "environment.mode.skip"}


def _disable_last(combo: QComboBox, tooltip: str = "") -> None:
    """Grey out the combo's last entry (listed with the reason it cannot be chosen)."""
    model = combo.model()
    item = model.item(combo.count() - 1) if isinstance(model, QStandardItemModel) else None
    if item is not None:
        item.setEnabled(False)
        if tooltip:
            item.setData(tooltip, Qt.ItemDataRole.ToolTipRole)


class TargetChooser(QGroupBox):
    """The "where it goes" box of the Environment page."""

    changed = Signal()
    mode_changed = Signal(str)

    def __init__(self, session_of: Callable[[], Session], store_of: Callable[[], StateStore], lang_of: Callable[[], str],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._session_of, self._store_of, self._lang_of = session_of, store_of, lang_of
        self.uv: str | None = None
        self.auto_path: str | None = None  # the folder proposed for the build (followed until typed over)
        self.reuse_offer: ReuseOffer | None = None  # the environment the last run verified (listed wherever it is)
        self._uv_text: dict[tuple, str] = {}
        self._best: tuple[tuple[int, int] | None, str | None] = (None, None)
        self._tasks: list[Task] = []
        self._build()

    @property
    def lang(self) -> str:
        return self._lang_of()

    @property
    def session(self) -> Session:
        return self._session_of()

    # --- the widgets -------------------------------------------------------------------------------
    def _build(self) -> None:
        layout = QVBoxLayout(self)
        layout.setSpacing(4)
        self.mode_group = QButtonGroup(self)
        self.mode_buttons: dict[str, QRadioButton] = {}
        self.mode_panels: dict[str, QWidget] = {}
        for mode in MODES:
            radio = QRadioButton()
            radio.setObjectName(f"mode_{mode}")
            self.mode_group.addButton(radio)
            self.mode_buttons[mode] = radio
            panel = QWidget()
            panel.setObjectName(f"panel_{mode}")
            layout.addWidget(radio)
            layout.addWidget(panel)
            self.mode_panels[mode] = panel
            radio.toggled.connect(partial(self._radio_toggled, mode))
        form = self._panel_layout(self.mode_panels[MODE_RESUME])
        row = QHBoxLayout()
        self.resume_combo = self._combo("resumeCombo")
        self.remove_button = QPushButton()
        self.remove_button.setObjectName("removeUnfinished")
        self.remove_button.clicked.connect(self._remove_clicked)
        row.addWidget(self.resume_combo, 1)
        row.addWidget(self.remove_button)
        form.addRow(row)
        self.resume_note = self._note(form)
        form = self._panel_layout(self.mode_panels[MODE_NEW_VENV])
        row = QHBoxLayout()
        self.venv_path = QLineEdit()
        self.venv_path.setObjectName("venvPath")
        self.venv_path.textChanged.connect(lambda _s: self.changed.emit())
        self.browse_button = QPushButton()
        self.browse_button.setObjectName("browseVenv")
        self.browse_button.clicked.connect(self.browse_new_venv)
        row.addWidget(self.venv_path, 1)
        row.addWidget(self.browse_button)
        self.venv_path_label, self.python_label = QLabel(), QLabel()
        form.addRow(self.venv_path_label, row)
        self.python_combo = self._combo("basePythonCombo")
        # a long item (a path, an unfit Python's reason) must not widen the page past the window
        self.python_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.python_combo.setMinimumContentsLength(24)
        form.addRow(self.python_label, self.python_combo)
        self.venv_note = self._note(form)
        form = self._panel_layout(self.mode_panels[MODE_EXISTING])
        row = QHBoxLayout()
        self.existing_combo = self._combo("existingCombo")
        self.existing_browse = QPushButton()
        self.existing_browse.setObjectName("browseExisting")
        self.existing_browse.clicked.connect(self.browse_existing)
        row.addWidget(self.existing_combo, 1)
        row.addWidget(self.existing_browse)
        form.addRow(row)
        self.existing_note = self._note(form)
        form = self._panel_layout(self.mode_panels[MODE_NEW_CONDA])
        self.conda_name = QLineEdit(DEFAULT_CONDA_NAME)
        self.conda_name.setObjectName("condaName")
        self.conda_name.textChanged.connect(lambda _s: self.changed.emit())
        self.conda_name_label = QLabel()
        form.addRow(self.conda_name_label, self.conda_name)
        self.conda_note = self._note(form)
        form = self._panel_layout(self.mode_panels[MODE_EXISTING_CONDA])
        self.conda_env_combo = self._combo("condaEnvCombo")
        form.addRow(self.conda_env_combo)
        self.conda_env_note = self._note(form)
        self.skip_note = self._note(self._panel_layout(self.mode_panels[MODE_SKIP]))

    def _combo(self, name: str) -> QComboBox:
        combo = QComboBox()
        combo.setObjectName(name)
        combo.currentIndexChanged.connect(lambda _i: self.changed.emit())
        return combo

    @staticmethod
    def _note(form: QFormLayout) -> QLabel:
        label = QLabel()
        label.setWordWrap(True)
        label.setTextFormat(Qt.TextFormat.RichText)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        label.setStyleSheet("color: palette(dark);")
        form.addRow(label)
        return label

    @staticmethod
    def _panel_layout(panel: QWidget) -> QFormLayout:
        form = QFormLayout(panel)
        form.setContentsMargins(26, 0, 0, 6)
        form.setHorizontalSpacing(10)
        form.setVerticalSpacing(4)
        return form

    # --- the mode ----------------------------------------------------------------------------------
    def mode(self) -> str:
        for mode, button in self.mode_buttons.items():
            if button.isChecked():
                return mode
        return MODE_NEW_VENV

    def set_mode(self, mode: str) -> None:
        self.mode_buttons[mode].setChecked(True)

    def _radio_toggled(self, mode: str, on: bool) -> None:
        if on:
            self._mode_picked(mode)

    def _mode_picked(self, mode: str) -> None:
        self.show_panels()
        self.mode_changed.emit(mode)

    def show_panels(self) -> None:
        current = self.mode()
        for mode, panel in self.mode_panels.items():
            panel.setVisible(mode == current and not self.mode_buttons[mode].isHidden())

    def choice(self, installer: str) -> TargetChoice:
        """The choice the controls describe, as the app layer's rule takes it."""
        mode = self.mode()
        choice = TargetChoice(mode, installer=installer)
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

    def python_missing(self) -> bool:
        """A new venv with nothing to make it from (an empty list)."""
        return self.mode() == MODE_NEW_VENV and self.python_combo.currentData() is None

    # --- the lists (the app layer's answers) -------------------------------------------------------
    def condas(self) -> list:
        return app_env.usable_condas(self.session.detection)

    def conda_facts(self) -> tuple[list[str], str | None]:
        return app_env.conda_facts(self.condas())

    def default_venv_path(self) -> str:
        """The app layer's default folder for this build (numbered when taken)."""
        return app_install.default_venv_path(self.session.host, self.session.candidate, self._store_of())

    def fill_lists(self) -> None:
        """Interpreters, existing environments, conda envs and unfinished installs."""
        self.fill_unfinished()
        self.fill_python_combo()
        self.fill_existing()
        self.fill_conda()

    def fill_python_combo(self) -> None:
        """New venv: the interpreters that fit the build, uv's own Python of the recommended
        version, then the ones that do not fit, with the reason (not choosable)."""
        session, lang = self.session, self.lang
        combo = self.python_combo
        current = combo.currentData()
        combo.blockSignals(True)
        combo.clear()
        chosen = getattr(getattr(session.recommendation, "interpreter", None), "path", None)
        best = self.best_match_path()
        unfit = []
        for p in app_env.python_options(session.detection, session.recommendation, session.candidate):
            if not p.fits:
                unfit.append(p)
                continue
            # only "Best match"'s pick is recommended; another Python picked on the Recommendation page is the student's
            key = "environment.python.recommended" if p.path == best else (
                "environment.python.chosen" if p.recommended else "")
            mark = "  " + t(key, lang) if key else ""
            combo.addItem(p.label(lang) + mark, ("python", p.path, p.version))
        version = app_install.python_version(session)
        self.uv = app_env.find_uv()
        if version:
            combo.addItem(t("environment.python.uv", lang, version=version), ("uv", version, version))
            if not self.uv:
                _disable_last(combo)
        for p in unfit:  # the app layer's line, as the command line prints it
            combo.addItem(p.label(lang), None)
            _disable_last(combo, tooltip=p.why_not.text(lang) if p.why_not is not None else "")
        # (findData compares Python objects by identity: look for an equal tuple instead)
        index = next((i for i in range(combo.count()) if current is not None and combo.itemData(i) == current), -1)
        if index < 0:
            index = next((i for i in range(combo.count()) if (combo.itemData(i) or ("",))[0] == "python"
                          and combo.itemData(i)[1] == chosen), -1)
        if index < 0 and chosen is None and self.uv and version:  # none chosen: uv installs the recommended version
            index = next((i for i in range(combo.count()) if (combo.itemData(i) or ("",))[0] == "uv"), -1)
        combo.setCurrentIndex(max(0, index))
        combo.blockSignals(False)
        typed = self.venv_path.text().strip()
        if not typed or typed == self.auto_path:  # follow the build unless the student typed a path
            self.auto_path = self.default_venv_path()
            self.venv_path.blockSignals(True)
            self.venv_path.setText(self.auto_path)
            note = app_env.env_root_note(self.session.host)  # a Hangul Windows home: why not under it
            self.venv_path.setToolTip(note.text(self.lang) if note is not None else "")
            self.venv_path.blockSignals(False)

    def best_match_path(self) -> str | None:
        """The interpreter "Best match" picks on the Recommendation page (the app layer's choice
        with no Python named), asked once per detection."""
        session = self.session
        key = (id(session.detection), id(session.course))
        if self._best[0] != key:
            interpreter = app_recommend.compute(session).interpreter if session.detection is not None else None
            self._best = (key, interpreter.path if interpreter is not None else None)
        return self._best[1]

    def fill_existing(self) -> None:
        """Existing: venvs the detection saw or the wizard made, and interpreters themselves."""
        d, lang = self.session.detection, self.lang
        combo = self.existing_combo
        current_path = combo.currentData().path if combo.currentData() is not None else None
        combo.blockSignals(True)
        combo.clear()
        for target in app_env.existing_environments(d, self.session.host, self.reuse_offer):
            if app_env.is_bare_python(target):
                version = app_env.python_version_of(target, d)
                combo.addItem(t("environment.existing.python", lang, version=version, path=target.path), target)
            else:
                combo.addItem(t("environment.existing.venv", lang, path=target.path), target)
        if current_path:
            for i in range(combo.count()):
                if combo.itemData(i).path == current_path:
                    combo.setCurrentIndex(i)
        combo.blockSignals(False)

    def select_existing(self, python_exe: str) -> None:
        """Pick the listed environment whose Python is ``python_exe`` (the last run's), and its mode."""
        combo = self.existing_combo
        index = next((i for i in range(combo.count()) if combo.itemData(i) is not None
                      and combo.itemData(i).python_exe == python_exe), -1)
        combo.setCurrentIndex(max(0, index))
        self.set_mode(MODE_EXISTING)

    def fill_conda(self) -> None:
        combo, lang = self.conda_env_combo, self.lang
        combo.blockSignals(True)
        combo.clear()
        condas = self.condas()
        for conda in condas:
            for env in conda.envs:
                base = t("environment.conda.base_mark", lang) if env.is_base or env.name.lower() in ("base", "root") else ""
                combo.addItem(f"{env.name} — {env.prefix}{base}", (env, conda))
        combo.blockSignals(False)
        self.mode_buttons[MODE_NEW_CONDA].setEnabled(bool(condas))
        self.mode_buttons[MODE_EXISTING_CONDA].setEnabled(combo.count() > 0)
        for mode in (MODE_NEW_CONDA, MODE_EXISTING_CONDA):
            button = self.mode_buttons[mode]
            button.setToolTip("" if button.isEnabled() else t("environment.conda.not_found", lang))
        checked = self.mode_group.checkedButton()
        if checked is None or not checked.isEnabled():
            self.mode_buttons[MODE_NEW_VENV].setChecked(True)
        self.show_panels()

    def fill_unfinished(self) -> None:
        combo, lang = self.resume_combo, self.lang
        current = combo.currentData().env_path if combo.currentData() is not None else None
        combo.blockSignals(True)
        combo.clear()
        for state in self._store_of().unfinished():
            step = t(f"install.step.{state.failed_step}", lang) if state.failed_step else t(
                "environment.resume.not_started", lang)
            status = t(f"environment.resume.status.{state.status}", lang) if state.status in (
                "failed", "cancelled", "running") else state.status
            combo.addItem(t("environment.resume.item", lang, path=state.env_path, status=status, step=step), state)
            if state.env_path == current:
                combo.setCurrentIndex(combo.count() - 1)
        combo.blockSignals(False)
        has = combo.count() > 0
        self.mode_buttons[MODE_RESUME].setVisible(has)
        if not has and self.mode_buttons[MODE_RESUME].isChecked():
            self.mode_buttons[MODE_NEW_VENV].setChecked(True)

    # --- folders -----------------------------------------------------------------------------------
    def browse_new_venv(self) -> None:
        start = os.path.dirname(self.venv_path.text().strip()) or self.session.host.home()
        folder = QFileDialog.getExistingDirectory(self, t("environment.venv.browse_title", self.lang), start)
        if folder:
            self.set_new_venv_folder(folder)

    def set_new_venv_folder(self, folder: str) -> None:
        """A chosen folder: used as it is when empty or new, else the environment goes inside it."""
        folder = os.path.abspath(folder)
        if os.path.isdir(folder) and os.listdir(folder) and app_install.unfinished_at(self._store_of(),
                                                                                      folder) is None:
            name = os.path.basename(self.default_venv_path()) or "pytorch"
            folder = os.path.join(folder, name)
        self.venv_path.setText(folder)

    def browse_existing(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, t("environment.existing.browse_title", self.lang),
                                                  self.session.host.home())
        if folder:
            self.add_existing_folder(folder)

    def add_existing_folder(self, folder: str) -> bool:
        """Add a venv folder the detection did not list, and select it."""
        if not os.path.isfile(os.path.join(folder, "pyvenv.cfg")):
            self.existing_note.setText(marked("✖", RED, t("install.check.not_a_venv", self.lang, path=folder)))
            return False
        target = app_env.existing_venv_at(folder)
        self.existing_combo.addItem(t("environment.existing.venv", self.lang, path=target.path), target)
        self.existing_combo.setCurrentIndex(self.existing_combo.count() - 1)
        self.set_mode(MODE_EXISTING)
        return True

    def _remove_clicked(self) -> None:
        self.remove_unfinished(self.resume_combo.currentData())

    def remove_unfinished(self, state: EnvState | None) -> None:
        """Delete an unfinished environment the wizard created (after a confirmation), on a worker;
        then the list is filled again and ``changed`` said."""
        if state is None or not state.created_by_wizard:
            return
        lang = self.lang
        if not common.ask_yes_no(self, t("environment.remove.title", lang),
                                 t("environment.remove.question", lang, path=state.env_path),
                                 t("environment.remove.yes", lang), t("environment.confirm.no", lang)):
            return
        self.remove_button.setEnabled(False)

        def done(outcome: app_env.RemoveOutcome) -> None:
            self.remove_button.setEnabled(True)
            self.fill_unfinished()
            self.show_panels()
            if outcome.refused:
                self.resume_note.setText(marked("✖", RED, t("install.page.remove.refused", self.lang,
                                                             reason=outcome.refused)))
            self.changed.emit()

        def failed(text: str) -> None:
            self.remove_button.setEnabled(True)
            self.resume_note.setText(marked("✖", RED, text.strip().splitlines()[0]))

        task = submit(app_env.remove_environment, state, self.session.host, self._store_of(), on_done=done,
                      on_failed=failed)
        self._tasks = self._tasks[-8:] + [task]

    # --- what uv would download ----------------------------------------------------------------------
    def describe_uv(self, python_mirror: str) -> None:
        """For uv's own Python: ask (worker) what it downloads and where; the note shows it."""
        data = self.python_combo.currentData()
        if self.mode() != MODE_NEW_VENV or data is None or data[0] != "uv" or not self.uv:
            return
        mirror = python_mirror or None
        key = (data[1], mirror)
        if key in self._uv_text:
            return
        self._uv_text[key] = t("environment.uv.asking", self.lang)

        def done(text: str) -> None:
            self._uv_text[key] = text
            if common.alive(self):
                self._refresh_note()

        def failed(text: str) -> None:
            self._uv_text[key] = text.strip().splitlines()[0] if text.strip() else text
            if common.alive(self):
                self._refresh_note()

        task = submit(app_install.describe_uv_python, self.session.host, self.uv, data[1], mirror, self.lang,
                      on_done=done, on_failed=failed)
        self._tasks = self._tasks[-8:] + [task]

    def _refresh_note(self) -> None:
        if self._last_note is not None:
            self.show_notes(*self._last_note)

    _last_note: tuple | None = None

    # --- the notes -----------------------------------------------------------------------------------
    def show_notes(self, problem_text: str | None, resume_state: EnvState | None, python_mirror: str, reuse_note: str) -> None:
        """The note under the current mode: why there is no target, what continues, what uv
        downloads, a Python other than the recommendation's, conda's name rules."""
        self._last_note = (problem_text, resume_state, python_mirror, reuse_note)
        mode, lang = self.mode(), self.lang
        version = app_install.python_version(self.session)
        problem = marked("✖", RED, problem_text) if problem_text else ""
        if mode == MODE_NEW_VENV:
            parts = [problem] if problem else []
            data = self.python_combo.currentData()
            if resume_state is not None:
                parts.append(f'<span style="color:{ORANGE}">↻ {_esc(t("environment.venv.resumes", lang))}</span>')
            if data is not None and data[0] == "uv":
                key = (data[1], python_mirror or None)
                parts.append(_esc(self._uv_text.get(key, t("environment.uv.asking", lang)) if self.uv
                                  else t("install.uv.missing", lang)))
            elif data is not None:
                have = ".".join(str(data[2] or "").split(".")[:2])
                if version and have and have != version:
                    parts.append(marked("⚠", ORANGE, t("environment.python.other_version", lang, have=have, want=version)))
            root_note = app_env.env_root_note(self.session.host)  # a Hangul Windows home: where, and why
            if root_note is not None and self.venv_path.text().strip() == (self.auto_path or ""):
                parts.append(_esc(root_note.text(lang)))
            self.venv_note.setText("<br>".join(parts))
            self.venv_note.setVisible(bool(parts))
        elif mode == MODE_EXISTING:
            self.existing_note.setText(problem or reuse_note or _esc(t("environment.existing.note", lang)))
        elif mode == MODE_NEW_CONDA:
            condas = self.condas()
            names, _base = self.conda_facts()
            issue = app_install.conda_name_problem(self.conda_name.text().strip(), names)
            parts = [problem] if problem else []
            if issue is not None:
                parts.append(marked("✖", RED, issue.text(lang)))
            if condas:
                parts.append(_esc(t("environment.conda.uses", lang, exe=condas[0].exe, version=version or "?")))
            self.conda_note.setText("<br>".join(parts))
        elif mode == MODE_EXISTING_CONDA:
            self.conda_env_note.setText(problem or _esc(t("environment.conda.existing_note", lang)))
        elif mode == MODE_SKIP:
            self.skip_note.setText(_esc(t("environment.skip.note", lang)))
        elif mode == MODE_RESUME:
            state = resume_state
            if state is not None:
                lines = [_esc(t("environment.resume.note", lang))]
                why = self.resume_why(state)
                if why:
                    lines.append(f'<span style="color:{GREY}">{_esc(why)}</span>')
                pins = getattr(state, "pins", None) or state.requirements  # the exact versions when recorded
                if pins:
                    lines.append(_esc(t("environment.resume.same", lang, reqs=", ".join(pins), index=state.index_url or "PyPI")))
                self.resume_note.setText("<br>".join(lines))
            self.remove_button.setEnabled(bool(state is not None and state.created_by_wizard))

    def resume_why(self, state: EnvState) -> str:
        """Where and why an unfinished install stopped, in the page's language (the state's own
        ``error`` is the engine's English text: it stays in the details)."""
        if not state.failed_step and not state.error:
            return ""
        lang = self.lang
        step = t(f"install.step.{state.failed_step}", lang) if state.failed_step else "?"
        if state.status == "cancelled":
            why = t("environment.resume.why.cancelled", lang)
        elif state.status == "running":
            why = t("environment.resume.why.interrupted", lang)
        else:
            why = describe(app_install.failure_kind(state.error_kind), state.error or "", "", lang).headline
        return t("environment.resume.stopped_at", lang, step=step, why=why)

    def retranslate(self) -> None:
        lang = self.lang
        for mode, key in _MODE_KEYS.items():
            self.mode_buttons[mode].setText(t(key, lang))
        self.setTitle(t("environment.target.title", lang))
        self.venv_path_label.setText(t("environment.venv.folder", lang) + ":")
        self.python_label.setText(t("environment.venv.python", lang) + ":")
        self.browse_button.setText(t("environment.browse", lang))
        self.existing_browse.setText(t("environment.browse", lang))
        self.remove_button.setText(t("environment.resume.remove", lang))
        self.conda_name_label.setText(t("environment.conda.name", lang) + ":")
        self.fill_lists()


__all__ = ["TargetChooser"]
