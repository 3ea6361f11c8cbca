"""Page 4 — Environment: where PyTorch goes, what will be downloaded, and whether it fits.

The student picks one target: a new venv (default folder under the product folder in their
home; its Python is the interpreter the recommendation chose, or one uv installs, with what
that downloads and where said first), an existing venv or Python, a new conda env (name
checked as conda checks it) or an existing conda env -- or resumes an install that did not
finish. The page then shows the exact plan (packages, sizes, total; "already installed"
plainly) and the checks before anything is touched: free space, a writable folder, path
length, and the three refusals (the wizard's own runtime, a system Python, conda base) that
only an explicit confirmation in a dialog lets through.

Everything slow runs on the worker pool: the plan is pip's dry-run resolution against the
chosen index (seconds against download.pytorch.org), the checks query the target's
interpreter. A generation counter drops answers that arrive after the choice changed.

The page is a commit page: its button is the wizard's "Install", and once the install has
started there is no Back into a half-changed choice (the Install page offers Resume, Remove
or Restore instead).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from wizard.core.install import targets as envs
from wizard.core.base.i18n import language, t
from wizard.core.install.plan import InstallPlan, PlanError, format_bytes
from wizard.core.install.runner import INSTALLER_PIP, INSTALLER_UV, InstallOptions
from wizard.ui.pages.base import BasePage, InfoForm, PageId, scroll_body
from wizard.ui.session_model import SessionModel
from wizard.ui.workers import submit

MODE_NEW_VENV = "new-venv"
MODE_EXISTING = "existing"
MODE_NEW_CONDA = "new-conda"
MODE_EXISTING_CONDA = "existing-conda"
MODE_RESUME = "resume"
MODE_SKIP = "skip"  # PyTorch is already there (the re-run after a driver update): straight to Verify
MODES = (MODE_RESUME, MODE_NEW_VENV, MODE_EXISTING, MODE_NEW_CONDA, MODE_EXISTING_CONDA, MODE_SKIP)

GREEN, ORANGE, RED, GREY = "#2e7d32", "#ef6c00", "#c62828", "#6d6d6d"
REFRESH_DELAY_MS = 250
DEFAULT_CONDA_NAME = "pytorch"
VERIFY_IMPORTS = ["torch"]


@dataclass
class InstallRequest:
    """What the Environment page hands to the Install page (``session.results["install_request"]``)."""

    target: envs.EnvTarget
    options: InstallOptions
    plan: InstallPlan | None = None  # the preview; None when it is known only after creation
    description: str = ""


@dataclass
class CheckOutcome:
    """What the checks worker found for one target."""

    preflight: envs.PreflightResult
    free_env: tuple[int, int] | None = None
    free_cache: tuple[int, int] | None = None
    cached_bytes: int = 0
    interpreter: Any = None


@dataclass
class InstallSettings:
    """The advanced settings: a mirror of the PyTorch index, uv's Python mirror, a proxy,
    and which tool installs from the cache."""

    mirror: str = ""
    python_mirror: str = ""
    proxy: str = ""
    installer: str = INSTALLER_PIP


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def marked(symbol: str, colour: str, text: str) -> str:
    """``text`` (escaped) after a coloured mark, for the rich-text labels."""
    return f'<span style="color:{colour}">{symbol} {_esc(text)}</span>'


def ask_yes_no(parent: QWidget, title: str, text: str, yes_text: str, no_text: str) -> bool:
    """A warning dialog whose safe answer is the default; True only for an explicit yes.
    (One function, so tests answer it without a modal loop.)"""
    box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.NoButton, parent)
    yes = box.addButton(yes_text, QMessageBox.ButtonRole.AcceptRole)
    no = box.addButton(no_text, QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(no)
    box.setEscapeButton(no)
    box.exec()
    return box.clickedButton() is yes


def install_source(candidate: Any, settings: InstallSettings) -> tuple[list[str], str | None]:
    """(requirements, index URL) for the chosen build; a mirror replaces the index."""
    from wizard.core.recommend.commands import mirror_index_url, requirements

    reqs = requirements(candidate)
    mirror = settings.mirror.strip()
    if mirror:
        # a mirror of PyPI is used as it is; a mirror of download.pytorch.org/whl gets the variant
        index = mirror if candidate.uses_default_index else mirror_index_url(mirror, candidate.variant)
    else:
        index = None if candidate.uses_default_index else candidate.index_url
    return reqs, index


def run_checks(target: envs.EnvTarget, host: Any, plan: InstallPlan | None, cache_dir: str,
               confirmed: set[str], conda_names: list[str], conda_base: str | None,
               resumable: bool) -> CheckOutcome:
    """Pre-flight for ``target`` (worker thread): the interpreter is asked about itself (PEP 668,
    its prefix), the cache is looked at (files already there are not downloaded again)."""
    from wizard.core.install.download import WheelCache
    from wizard.core.machine.pythons import query_interpreter

    interpreter = None
    if not target.creates_env and os.path.exists(target.python_exe):
        interpreter, _key = query_interpreter(host, target.python_exe, "target")
    download, unpacked, cached = 0, None, 0
    if plan is not None:
        cache = WheelCache(cache_dir)
        cached = sum(f.size or 0 for f in plan.to_install if cache.path(f.filename).exists())
        download = max(0, plan.total_bytes - cached)
        unpacked = int(plan.total_bytes * envs.UNPACK_FACTOR)
    result = envs.preflight(target, host, download_bytes=download, unpacked_bytes=unpacked, cache_dir=cache_dir,
                            interpreter=interpreter, existing_conda_names=conda_names,
                            conda_base_prefix=conda_base, confirmed=confirmed,
                            folder_state=(lambda _p: "missing") if resumable else None)
    return CheckOutcome(result, host.disk_free(target.path) if target.path else None, host.disk_free(cache_dir),
                        cached, interpreter)


def preview(target: envs.EnvTarget, options: InstallOptions, host: Any) -> tuple[str, Any]:
    """("plan", InstallPlan | None) or ("error", PlanError) -- worker thread."""
    from wizard.core.install.runner import preview_plan

    try:
        return "plan", preview_plan(target, options, host)
    except PlanError as exc:
        return "error", exc


def describe_uv_python(host: Any, uv: str, version: str, mirror: str | None) -> str:
    """One sentence: what uv will download for Python ``version`` and where (worker thread)."""
    found = host.run(envs.uv_python_find_argv(uv, version), timeout=envs.COMMAND_TIMEOUT, env=envs.uv_env(mirror))
    if found.ok and found.stdout.strip():
        return t("envpage.uv.have", version=version, path=found.stdout.strip().splitlines()[-1])
    download, folder = envs.describe_uv_python_download(host, uv, version, mirror)
    if download is None:
        return t("envpage.uv.unknown", version=version)
    return t("install.uv.download_info", version=download.version, url=download.url,
             folder=folder or t("common.na"))


class EnvironmentPage(BasePage):
    page_id = PageId.ENVIRONMENT

    def __init__(self, model: SessionModel, parent: QWidget | None = None) -> None:
        super().__init__(model, parent)
        self.setObjectName("page_environment")
        self.setCommitPage(True)
        self.built = False
        self.cache_dir: str | None = None  # None: the user cache folder (tests pass their own)
        self.state_dir: str | None = None  # None: the user state folder
        self.settings = InstallSettings()
        self.confirmed: set[str] = set()
        self.target: envs.EnvTarget | None = None
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

    # --- what to install ---------------------------------------------------------------------------
    @property
    def session(self):
        return self.model.session

    @property
    def host(self):
        return self.session.host

    def candidate(self):
        return self.session.results.get("candidate")

    def choice(self):
        return self.session.results.get("recommendation")

    def python_version(self) -> str | None:
        c = self.choice()
        return getattr(c, "version", None) or getattr(self.candidate(), "python", None)

    def effective_cache_dir(self) -> str:
        if self.cache_dir:
            return self.cache_dir
        from wizard.core.install.download import default_cache_root

        return str(default_cache_root())

    def store(self):
        from wizard.core.install.recovery import StateStore

        return StateStore(self.state_dir)

    def options(self) -> InstallOptions | None:
        c = self.candidate()
        if c is None:
            return None
        reqs, index = install_source(c, self.settings)
        proxy = self.settings.proxy.strip()
        return InstallOptions(reqs, index, installer=self.settings.installer, cache_dir=self.cache_dir,
                              state_dir=self.state_dir, confirmed=set(self.confirmed),
                              proxies={"http": proxy, "https": proxy} if proxy else None,
                              uv_python_mirror=self.settings.python_mirror.strip() or None,
                              verify_imports=list(VERIFY_IMPORTS),
                              expected_download_bytes=self.plan.total_bytes if self.plan is not None else 0)

    # --- build -----------------------------------------------------------------------------------------
    def _build(self) -> None:
        self.built = True
        layout = scroll_body(self)

        self.what_label = QLabel()
        self.what_label.setObjectName("whatLabel")
        self.what_label.setWordWrap(True)
        self.what_label.setTextFormat(Qt.TextFormat.RichText)
        self.what_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.what_label)

        self.target_box = QGroupBox()
        target_layout = QVBoxLayout(self.target_box)
        target_layout.setSpacing(4)
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
            target_layout.addWidget(radio)
            target_layout.addWidget(panel)
            self.mode_panels[mode] = panel
            radio.toggled.connect(lambda on, _m=mode: on and self._mode_changed())
        self._build_resume(self.mode_panels[MODE_RESUME])
        self._build_new_venv(self.mode_panels[MODE_NEW_VENV])
        self._build_existing(self.mode_panels[MODE_EXISTING])
        self._build_new_conda(self.mode_panels[MODE_NEW_CONDA])
        self._build_existing_conda(self.mode_panels[MODE_EXISTING_CONDA])
        skip_form = self._panel_layout(self.mode_panels[MODE_SKIP])
        self.skip_note = self._note()
        skip_form.addRow(self.skip_note)
        layout.addWidget(self.target_box)

        self.more_button = QToolButton()
        self.more_button.setObjectName("advancedButton")
        self.more_button.setCheckable(True)
        self.more_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.more_button.setArrowType(Qt.ArrowType.RightArrow)
        self.more_button.toggled.connect(self._toggle_advanced)
        layout.addWidget(self.more_button)
        self.advanced = QGroupBox()
        adv = QFormLayout(self.advanced)
        self.mirror_edit = QLineEdit()
        self.mirror_edit.setObjectName("mirrorEdit")
        self.mirror_edit.setPlaceholderText("https://mirror.example.org/whl")
        self.python_mirror_edit = QLineEdit()
        self.python_mirror_edit.setObjectName("pythonMirrorEdit")
        self.python_mirror_edit.setPlaceholderText(
            "https://mirror.example.org/python-build-standalone/releases/download")
        self.proxy_edit = QLineEdit()
        self.proxy_edit.setObjectName("proxyEdit")
        self.proxy_edit.setPlaceholderText("http://proxy.example.org:3128")
        self.installer_combo = QComboBox()
        self.installer_combo.setObjectName("installerCombo")
        self.installer_combo.addItem("pip", INSTALLER_PIP)
        self.installer_combo.addItem("uv", INSTALLER_UV)
        self.mirror_label, self.python_mirror_label = QLabel(), QLabel()
        self.proxy_label, self.installer_label = QLabel(), QLabel()
        adv.addRow(self.mirror_label, self.mirror_edit)
        adv.addRow(self.python_mirror_label, self.python_mirror_edit)
        adv.addRow(self.proxy_label, self.proxy_edit)
        adv.addRow(self.installer_label, self.installer_combo)
        for edit in (self.mirror_edit, self.python_mirror_edit, self.proxy_edit):
            edit.editingFinished.connect(self._settings_changed)
        self.mirror_edit.setText(self.settings.mirror)
        self.python_mirror_edit.setText(self.settings.python_mirror)
        self.proxy_edit.setText(self.settings.proxy)
        self.installer_combo.setCurrentIndex(max(0, self.installer_combo.findData(self.settings.installer)))
        self.installer_combo.currentIndexChanged.connect(lambda _i: self._settings_changed())
        self.advanced.hide()
        layout.addWidget(self.advanced)

        self.plan_box = QGroupBox()
        plan_layout = QVBoxLayout(self.plan_box)
        status_row = QHBoxLayout()
        self.plan_busy = QProgressBar()
        self.plan_busy.setRange(0, 0)
        self.plan_busy.setMaximumWidth(120)
        self.plan_busy.setMaximumHeight(12)
        self.plan_busy.setTextVisible(False)
        self.plan_status = QLabel()
        self.plan_status.setObjectName("planStatus")
        self.plan_status.setWordWrap(True)
        self.plan_status.setTextFormat(Qt.TextFormat.RichText)
        self.plan_status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        status_row.addWidget(self.plan_busy)
        status_row.addWidget(self.plan_status, 1)
        plan_layout.addLayout(status_row)
        self.plan_tree = QTreeWidget()
        self.plan_tree.setObjectName("planTree")
        self.plan_tree.setColumnCount(3)
        self.plan_tree.setRootIsDecorated(False)
        self.plan_tree.setAlternatingRowColors(True)
        self.plan_tree.setMinimumHeight(120)
        self.plan_tree.setMaximumHeight(210)
        header = self.plan_tree.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(False)
        plan_layout.addWidget(self.plan_tree)
        self.plan_total = QLabel()
        self.plan_total.setObjectName("planTotal")
        self.plan_total.setWordWrap(True)
        self.plan_total.setTextFormat(Qt.TextFormat.RichText)
        plan_layout.addWidget(self.plan_total)
        layout.addWidget(self.plan_box)

        self.checks_box = QGroupBox()
        checks_layout = QVBoxLayout(self.checks_box)
        self.space_form = InfoForm()
        checks_layout.addLayout(self.space_form)
        self.checks_label = QLabel()
        self.checks_label.setObjectName("checksLabel")
        self.checks_label.setWordWrap(True)
        self.checks_label.setTextFormat(Qt.TextFormat.RichText)
        self.checks_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        checks_layout.addWidget(self.checks_label)
        confirm_row = QHBoxLayout()
        self.confirm_button = QPushButton()
        self.confirm_button.setObjectName("confirmButton")
        self.confirm_button.clicked.connect(self.confirm_refusals)
        confirm_row.addWidget(self.confirm_button)
        confirm_row.addStretch(1)
        checks_layout.addLayout(confirm_row)
        self.confirm_button.hide()
        layout.addWidget(self.checks_box)
        layout.addStretch(1)

    def _note(self) -> QLabel:
        label = QLabel()
        label.setWordWrap(True)
        label.setTextFormat(Qt.TextFormat.RichText)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        label.setStyleSheet("color: palette(dark);")
        return label

    def _panel_layout(self, panel: QWidget) -> QFormLayout:
        form = QFormLayout(panel)
        form.setContentsMargins(26, 0, 0, 6)
        form.setHorizontalSpacing(10)
        form.setVerticalSpacing(4)
        return form

    def _build_resume(self, panel: QWidget) -> None:
        form = self._panel_layout(panel)
        row = QHBoxLayout()
        self.resume_combo = QComboBox()
        self.resume_combo.setObjectName("resumeCombo")
        self.resume_combo.currentIndexChanged.connect(lambda _i: self._changed())
        self.remove_button = QPushButton()
        self.remove_button.setObjectName("removeUnfinished")
        self.remove_button.clicked.connect(self.remove_unfinished)
        row.addWidget(self.resume_combo, 1)
        row.addWidget(self.remove_button)
        form.addRow(row)
        self.resume_note = self._note()
        form.addRow(self.resume_note)

    def _build_new_venv(self, panel: QWidget) -> None:
        form = self._panel_layout(panel)
        row = QHBoxLayout()
        self.venv_path = QLineEdit()
        self.venv_path.setObjectName("venvPath")
        self.venv_path.textChanged.connect(lambda _s: self._changed())
        self.browse_button = QPushButton()
        self.browse_button.setObjectName("browseVenv")
        self.browse_button.clicked.connect(self.browse_new_venv)
        row.addWidget(self.venv_path, 1)
        row.addWidget(self.browse_button)
        self.venv_path_label = QLabel()
        form.addRow(self.venv_path_label, row)
        self.python_combo = QComboBox()
        self.python_combo.setObjectName("basePythonCombo")
        self.python_combo.currentIndexChanged.connect(lambda _i: self._changed())
        self.python_label = QLabel()
        form.addRow(self.python_label, self.python_combo)
        self.venv_note = self._note()
        form.addRow(self.venv_note)

    def _build_existing(self, panel: QWidget) -> None:
        form = self._panel_layout(panel)
        row = QHBoxLayout()
        self.existing_combo = QComboBox()
        self.existing_combo.setObjectName("existingCombo")
        self.existing_combo.currentIndexChanged.connect(lambda _i: self._changed())
        self.existing_browse = QPushButton()
        self.existing_browse.setObjectName("browseExisting")
        self.existing_browse.clicked.connect(self.browse_existing)
        row.addWidget(self.existing_combo, 1)
        row.addWidget(self.existing_browse)
        form.addRow(row)
        self.existing_note = self._note()
        form.addRow(self.existing_note)

    def _build_new_conda(self, panel: QWidget) -> None:
        form = self._panel_layout(panel)
        self.conda_name = QLineEdit(DEFAULT_CONDA_NAME)
        self.conda_name.setObjectName("condaName")
        self.conda_name.textChanged.connect(lambda _s: self._changed())
        self.conda_name_label = QLabel()
        form.addRow(self.conda_name_label, self.conda_name)
        self.conda_note = self._note()
        form.addRow(self.conda_note)

    def _build_existing_conda(self, panel: QWidget) -> None:
        form = self._panel_layout(panel)
        self.conda_env_combo = QComboBox()
        self.conda_env_combo.setObjectName("condaEnvCombo")
        self.conda_env_combo.currentIndexChanged.connect(lambda _i: self._changed())
        form.addRow(self.conda_env_combo)
        self.conda_env_note = self._note()
        form.addRow(self.conda_env_note)

    # --- QWizardPage -------------------------------------------------------------------------------
    def initializePage(self) -> None:  # noqa: N802
        if not self.built:
            self._build()
        self.retranslate()  # also fills the lists: interpreters, environments, unfinished installs
        self.refresh()

    def isComplete(self) -> bool:  # noqa: N802
        if self.built and self.mode() == MODE_SKIP:
            return True
        return (self.built and self.target is not None and self.candidate() is not None
                and self.checks is not None and not self.checks_running and self.checks.preflight.ok)

    def nextId(self) -> int:  # noqa: N802
        """Install next -- or, when the student skips installing, Verify."""
        if self.built and self.mode() == MODE_SKIP:
            return int(PageId.VERIFY)
        return int(PageId.INSTALL)

    def validatePage(self) -> bool:  # noqa: N802
        if not self.isComplete():
            return False
        if self.mode() == MODE_SKIP:
            self.session.results.pop("install_request", None)
            return True
        options = self.options()
        if options is None or self.target is None:
            return False
        self.session.results["install_request"] = InstallRequest(
            envs.EnvTarget.from_json(self.target.to_json()), options, self.plan, self._what_text(plain=True))
        return True

    def cleanupPage(self) -> None:  # noqa: N802 - Back to the recommendation: keep the choice
        pass

    # --- lists ---------------------------------------------------------------------------------------
    def _usable_pythons(self) -> list:
        from wizard.core.recommend.choose_python import _usable

        d = self.session.detection
        seen: set[str] = set()
        out = []
        for p in (d.pythons if d else []):
            if _usable(p) and p.path not in seen:
                seen.add(p.path)
                out.append(p)
        return out

    def _condas(self) -> list:
        d = self.session.detection
        return [c for c in (d.conda if d else []) if c.exe and (c.error is None or c.envs)]

    def _fill_lists(self) -> None:
        """Interpreters, existing environments, conda envs and unfinished installs."""
        from wizard.core.machine.system import default_env_root

        self._fill_unfinished()
        # new venv: the interpreters, and uv's own Python of the recommended version
        combo = self.python_combo
        current = combo.currentData()
        combo.blockSignals(True)
        combo.clear()
        chosen = getattr(getattr(self.choice(), "interpreter", None), "path", None)
        for p in self._usable_pythons():
            mark = "  " + t("envpage.python.recommended") if p.path == chosen else ""
            combo.addItem(f"Python {p.version} — {p.path}{mark}", ("python", p.path, p.version))
        version = self.python_version()
        self._uv = envs.find_uv()
        if version:
            combo.addItem(t("envpage.python.uv", version=version), ("uv", version, version))
            if not self._uv:
                item = combo.model().item(combo.count() - 1)
                if item is not None:
                    item.setEnabled(False)
        # (findData compares Python objects by identity: look for an equal tuple instead)
        index = next((i for i in range(combo.count()) if combo.itemData(i) == current), -1)
        if index < 0:
            index = next((i for i in range(combo.count()) if (combo.itemData(i) or ("",))[0] == "python"
                          and combo.itemData(i)[1] == chosen), -1)
        if index < 0 and chosen is None and self._uv and version:
            index = combo.count() - 1  # no interpreter fits: uv installs the recommended version
        combo.setCurrentIndex(max(0, index))
        combo.blockSignals(False)
        typed = self.venv_path.text().strip()
        if not typed or typed == self._auto_path:  # follow the build unless the student typed a path
            self._auto_path = self.default_venv_path()
            self.venv_path.blockSignals(True)
            self.venv_path.setText(self._auto_path)
            self.venv_path.blockSignals(False)

        # existing: venvs the detection saw or the wizard made, and interpreters themselves
        d = self.session.detection
        combo = self.existing_combo
        current_path = combo.currentData().path if combo.currentData() is not None else None
        combo.blockSignals(True)
        combo.clear()
        targets = envs.existing_targets(d.pythons if d else [], [], extra_roots=[default_env_root(self.host)])
        for target in targets:
            combo.addItem(t("envpage.existing.venv", path=target.path), target)
        venv_pythons = {envs.existing_venv(x.path).python_exe for x in targets}
        for p in self._usable_pythons():
            if not p.is_venv and p.path not in venv_pythons:
                combo.addItem(t("envpage.existing.python", version=p.version, path=p.path),
                              envs.existing_python(p.path))
        if current_path:
            for i in range(combo.count()):
                if combo.itemData(i).path == current_path:
                    combo.setCurrentIndex(i)
        combo.blockSignals(False)

        # conda
        combo = self.conda_env_combo
        combo.blockSignals(True)
        combo.clear()
        for conda in self._condas():
            for env in conda.envs:
                base = t("envpage.conda.base_mark") if env.is_base or env.name.lower() in ("base", "root") else ""
                combo.addItem(f"{env.name} — {env.prefix}{base}", (env, conda))
        combo.blockSignals(False)
        has_conda = bool(self._condas())
        self.mode_buttons[MODE_NEW_CONDA].setEnabled(has_conda)
        self.mode_buttons[MODE_EXISTING_CONDA].setEnabled(combo.count() > 0)
        for mode in (MODE_NEW_CONDA, MODE_EXISTING_CONDA):
            button = self.mode_buttons[mode]
            button.setToolTip("" if button.isEnabled() else t("envpage.conda.not_found"))
        if self.mode_group.checkedButton() is None or not self.mode_group.checkedButton().isEnabled():
            self.mode_buttons[MODE_NEW_VENV].setChecked(True)
        self._show_panels()

    def _fill_unfinished(self) -> None:
        combo = self.resume_combo
        current = combo.currentData().env_path if combo.currentData() is not None else None
        combo.blockSignals(True)
        combo.clear()
        for state in self.store().unfinished():
            step = t(f"install.step.{state.failed_step}") if state.failed_step else t("envpage.resume.not_started")
            status = t(f"envpage.resume.status.{state.status}") if state.status in (
                "failed", "cancelled", "running") else state.status
            combo.addItem(t("envpage.resume.item", path=state.env_path, status=status, step=step), state)
            if state.env_path == current:
                combo.setCurrentIndex(combo.count() - 1)
        combo.blockSignals(False)
        has = combo.count() > 0
        self.mode_buttons[MODE_RESUME].setVisible(has)
        if not has and self.mode_buttons[MODE_RESUME].isChecked():
            self.mode_buttons[MODE_NEW_VENV].setChecked(True)

    def default_venv_path(self) -> str:
        """``<home>/GPU-Setup-Wizard/envs/torch-<variant>``, numbered when that folder is taken."""
        c = self.candidate()
        name = f"torch-{c.variant}" if c is not None else "pytorch"
        base = envs.default_venv_path(self.host, name)
        path, n = base, 2
        while os.path.exists(path) and self._unfinished_at(path) is None:
            path, n = f"{base}-{n}", n + 1
        return path

    def _unfinished_at(self, path: str):
        """The wizard's own unfinished install at ``path`` (Install then resumes it), or None."""
        if not path:
            return None
        state = self.store().load(path)
        if state is None or state.status == "complete" or not state.created_by_wizard:
            return None
        if os.path.exists(path) and not envs.is_incomplete(path):
            return None
        return state

    # --- choosing ----------------------------------------------------------------------------------
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
        self._changed()

    def show_settings(self) -> None:
        """Open the mirror/proxy/installer settings (after a network failure)."""
        if self.built and not self.more_button.isChecked():
            self.more_button.setChecked(True)

    def _toggle_advanced(self, shown: bool) -> None:
        self.advanced.setVisible(shown)
        self.more_button.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)

    def build_target(self) -> tuple[envs.EnvTarget | None, str | None]:
        """The target the page's controls describe, or (None, why not)."""
        mode = self.mode()
        self.resume_state = None
        if mode == MODE_SKIP:
            return None, None
        if mode == MODE_RESUME:
            state = self.resume_combo.currentData()
            if state is None:
                return None, t("envpage.resume.none")
            self.resume_state = state
            return state.env_target(), None
        if mode == MODE_NEW_VENV:
            path = self.venv_path.text().strip()
            if not path:
                return None, t("envpage.venv.no_path")
            path = os.path.abspath(os.path.expanduser(path))
            data = self.python_combo.currentData()
            if data is None:
                return None, t("envpage.python.none")
            self.resume_state = self._unfinished_at(path)
            if self.resume_state is not None:
                return self.resume_state.env_target(), None
            kind, value, _version = data
            if kind == "uv":
                if not self._uv:
                    return None, t("install.uv.missing")
                return envs.new_uv_venv(path, value, uv_exe=self._uv), None
            if self.settings.installer == INSTALLER_UV and self._uv:
                return envs.new_uv_venv(path, value, uv_exe=self._uv), None
            return envs.new_venv(path, value), None
        if mode == MODE_EXISTING:
            target = self.existing_combo.currentData()
            if target is None:
                return None, t("envpage.existing.none")
            return envs.EnvTarget.from_json(target.to_json()), None
        if mode == MODE_NEW_CONDA:
            condas = self._condas()
            if not condas:
                return None, t("install.check.no_conda")
            version = self.python_version()
            if not version:
                return None, t("envpage.python.none")
            return envs.new_conda_env(self.conda_name.text().strip(), version, condas[0]), None
        data = self.conda_env_combo.currentData()
        if data is None:
            return None, t("envpage.conda.none")
        env, conda = data
        return envs.existing_conda_env(env, conda), None

    def _conda_facts(self) -> tuple[list[str], str | None]:
        names: list[str] = []
        base = None
        for conda in self._condas():
            names += [e.name for e in conda.envs]
            if base is None and conda.base_prefix:
                base = conda.base_prefix
        return names, base

    # --- the work ------------------------------------------------------------------------------------
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
    def _plan_key(target: envs.EnvTarget, options: InstallOptions) -> tuple:
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

    def _start_plan(self, target: envs.EnvTarget, options: InstallOptions) -> None:
        self._plan_gen += 1
        gen = self._plan_gen
        self.plan_running = True

        def done(outcome: tuple[str, Any]) -> None:
            if gen != self._plan_gen:
                return
            self.plan_running = False
            kind, value = outcome
            if kind == "plan":
                self.plan, self.plan_error = value, None
            else:
                self.plan, self.plan_error = None, value
            self._show_plan()
            if self.target is not None:  # sizes are known now: check the space again
                self._start_checks(self._gen)

        def failed(text: str) -> None:
            if gen != self._plan_gen:
                return
            self.plan_running = False
            self.plan = None
            self.plan_error = PlanError("failed", _Text(text.strip().splitlines()[0] if text.strip() else "?"))
            self._show_plan()

        self._keep(submit(preview, target, options, self.host, on_done=done, on_failed=failed))

    def _start_checks(self, gen: int) -> None:
        if self.target is None:
            return
        self.checks_running = True
        names, base = self._conda_facts()
        ours = self.resume_state is not None
        target = envs.EnvTarget.from_json(self.target.to_json())

        def done(outcome: CheckOutcome) -> None:
            if gen != self._gen:
                return
            self.checks_running = False
            self.checks = outcome
            self._show_checks()
            self.completeChanged.emit()

        def failed(text: str) -> None:
            if gen != self._gen:
                return
            self.checks_running = False
            self.checks = None
            self.checks_label.setText(marked("✖", RED, text.strip().splitlines()[0]))
            self.completeChanged.emit()

        self._keep(submit(run_checks, target, self.host, self.plan, self.effective_cache_dir(), set(self.confirmed),
                          [] if ours else names, base, ours, on_done=done, on_failed=failed))

    def _maybe_describe_uv(self) -> None:
        data = self.python_combo.currentData()
        if self.mode() != MODE_NEW_VENV or data is None or data[0] != "uv" or not self._uv:
            return
        mirror = self.settings.python_mirror or None
        key = (data[1], mirror)
        if key in self._uv_text:
            return
        self._uv_text[key] = t("envpage.uv.asking")

        def done(text: str) -> None:
            self._uv_text[key] = text
            self._show_notes()

        def failed(text: str) -> None:
            self._uv_text[key] = text.strip().splitlines()[0]
            self._show_notes()

        self._keep(submit(describe_uv_python, self.host, self._uv, data[1], mirror, on_done=done, on_failed=failed))

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
        lang = language()
        text = "\n\n".join(c.text(lang) for c in pending) + "\n\n" + t("envpage.confirm.question")
        if not ask_yes_no(self, t("envpage.confirm.title"), text, t("envpage.confirm.yes"), t("envpage.confirm.no")):
            return False
        self.confirmed |= {c.id for c in pending}
        self._changed()
        self.refresh()
        return True

    def browse_new_venv(self) -> None:
        start = os.path.dirname(self.venv_path.text().strip()) or self.host.home()
        folder = QFileDialog.getExistingDirectory(self, t("envpage.venv.browse_title"), start)
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
        folder = QFileDialog.getExistingDirectory(self, t("envpage.existing.browse_title"), self.host.home())
        if folder:
            self.add_existing_folder(folder)

    def add_existing_folder(self, folder: str) -> bool:
        """Add a venv folder the detection did not list, and select it."""
        if not os.path.isfile(os.path.join(folder, "pyvenv.cfg")):
            self.existing_note.setText(marked("✖", RED, t("install.check.not_a_venv", path=folder)))
            return False
        target = envs.existing_venv(os.path.abspath(folder))
        self.existing_combo.addItem(t("envpage.existing.venv", path=target.path), target)
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
        if not ask_yes_no(self, t("envpage.remove.title"), t("envpage.remove.question", path=state.env_path),
                          t("envpage.remove.yes"), t("envpage.confirm.no")):
            return
        from wizard.core.install.recovery import RemoveRefused, remove_environment

        store = self.store()
        self.remove_button.setEnabled(False)

        def work():
            try:
                return remove_environment(state, self.host, store), None
            except RemoveRefused as exc:
                return None, str(exc)

        def done(outcome) -> None:
            self.remove_button.setEnabled(True)
            _result, refused = outcome
            self._fill_unfinished()
            self._show_panels()
            if refused:
                self.resume_note.setText(marked("✖", RED, t("installpage.remove.refused", reason=refused)))
            self._changed()

        def failed(text: str) -> None:
            self.remove_button.setEnabled(True)
            self.resume_note.setText(marked("✖", RED, text.strip().splitlines()[0]))

        self._keep(submit(work, on_done=done, on_failed=failed))

    # --- showing -----------------------------------------------------------------------------------
    def _what_text(self, plain: bool = False) -> str:
        c = self.candidate()
        if c is None:
            return t("envpage.what.none")
        options = self.options()
        reqs = " ".join(options.requirements) if options else ""
        index = (options.index_url if options else None) or "PyPI"
        if plain:
            return t("envpage.what.plain", reqs=reqs, index=index)
        return t("envpage.what", reqs=f"<b>{_esc(reqs)}</b>", index=_esc(index))

    def _show_what(self) -> None:
        self.what_label.setText(self._what_text())

    def _show_notes(self) -> None:
        mode = self.mode()
        problem = marked("✖", RED, self.target_problem) if self.target_problem else ""
        if mode == MODE_NEW_VENV:
            parts = [problem] if problem else []
            data = self.python_combo.currentData()
            if self.resume_state is not None:
                parts.append(f'<span style="color:{ORANGE}">↻ {_esc(t("envpage.venv.resumes"))}</span>')
            if data is not None and data[0] == "uv":
                key = (data[1], self.settings.python_mirror or None)
                parts.append(_esc(self._uv_text.get(key, t("envpage.uv.asking")) if self._uv
                                  else t("install.uv.missing")))
            elif data is not None:
                want = self.python_version()
                have = ".".join(str(data[2] or "").split(".")[:2])
                if want and have and have != want:
                    parts.append(marked("⚠", ORANGE, t("envpage.python.other_version", have=have, want=want)))
            self.venv_note.setText("<br>".join(parts))
            self.venv_note.setVisible(bool(parts))
        elif mode == MODE_EXISTING:
            self.existing_note.setText(problem or _esc(t("envpage.existing.note")))
        elif mode == MODE_NEW_CONDA:
            condas = self._condas()
            names, _base = self._conda_facts()
            issue = envs.conda_name_problem(self.conda_name.text().strip(), names)
            parts = [problem] if problem else []
            if issue is not None:
                parts.append(marked("✖", RED, issue.text(language())))
            if condas:
                parts.append(_esc(t("envpage.conda.uses", exe=condas[0].exe, version=self.python_version() or "?")))
            self.conda_note.setText("<br>".join(parts))
        elif mode == MODE_EXISTING_CONDA:
            self.conda_env_note.setText(problem or _esc(t("envpage.conda.existing_note")))
        elif mode == MODE_SKIP:
            self.skip_note.setText(_esc(t("envpage.skip.note")))
        elif mode == MODE_RESUME:
            state = self.resume_state
            if state is not None:
                lines = [_esc(t("envpage.resume.note"))]
                if state.error:
                    lines.append(f'<span style="color:{GREY}">{_esc(state.error)}</span>')
                self.resume_note.setText("<br>".join(lines))
            self.remove_button.setEnabled(bool(state is not None and state.created_by_wizard))

    def _show_plan(self) -> None:
        lang = language()
        self.plan_busy.setVisible(self.plan_running)
        self.plan_tree.clear()
        self.plan_total.setText("")
        plan, err = self.plan, self.plan_error
        if self.target is None:
            self.plan_status.setText(_esc(self.target_problem or ""))
            self.plan_tree.hide()
            return
        if self.plan_running:
            self.plan_status.setText(_esc(t("envpage.plan.resolving", index=(self.options().index_url
                                                                            if self.options() else None) or "PyPI")))
            self.plan_tree.hide()
            return
        if err is not None:
            text = err.message.text(lang)
            hint = ""
            if err.kind == "network":
                hint = "<br>" + _esc(t("envpage.plan.mirror_hint"))
                self.show_settings()
            self.plan_status.setText(f'<span style="color:{RED}">✖ {_esc(text)}</span>{hint}')
            self.plan_tree.hide()
            return
        if plan is None:
            self.plan_status.setText(_esc(t("envpage.plan.later")))
            self.plan_tree.hide()
            return
        self.plan_status.setText(_esc(t("envpage.plan.exact", python=plan.python_version or "?")))
        self.plan_tree.show()
        for f in plan.files:
            if f.satisfied:
                size = t("install.plan.satisfied")
            else:
                size = format_bytes(f.size) if f.size is not None else t("install.plan.size_unknown")
            item = QTreeWidgetItem([f.name, f.version, size])
            item.setTextAlignment(2, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if f.installed_version and not f.satisfied:
                item.setToolTip(1, t("envpage.plan.replaces", version=f.installed_version))
                item.setText(1, f"{f.version}  (← {f.installed_version})")
            if f.satisfied:
                item.setForeground(2, self.palette().brush(self.palette().ColorGroup.Disabled,
                                                           self.palette().ColorRole.Text))
            self.plan_tree.addTopLevelItem(item)
        rows = min(len(plan.files), 8)
        self.plan_tree.setFixedHeight(self.plan_tree.sizeHintForRow(0) * rows + self.plan_tree.header().height() + 6
                                      if rows else 60)
        self._show_total()

    def _show_total(self) -> None:
        plan = self.plan
        if plan is None:
            return
        if plan.already_satisfied:
            self.plan_total.setText(f'<b style="color:{GREEN}">✓ {_esc(t("install.already_satisfied"))}</b>')
            return
        text = _esc(t("install.plan.total", count=len(plan.to_install), size=format_bytes(plan.total_bytes)))
        if plan.unknown_sizes:
            text += " " + _esc(t("envpage.plan.unknown_sizes", count=plan.unknown_sizes))
        cached = self.checks.cached_bytes if self.checks is not None else 0
        if cached:
            text += "<br>" + _esc(t("envpage.plan.cached", size=format_bytes(cached)))
        self.plan_total.setText(f"<b>{text}</b>" if not cached else text)

    def _show_checks(self) -> None:
        lang = language()
        outcome = self.checks
        self.space_form.clear_rows()
        self.confirm_button.hide()
        if self.target is None:
            self.checks_label.setText("")
            return
        if outcome is None:
            self.checks_label.setText(_esc(t("envpage.checks.running")))
            return
        free_env, free_cache = outcome.free_env, outcome.free_cache
        self.space_form.set_row("envpage.space.env", self._free_text(free_env, self.target.path))
        self.space_form.set_row("envpage.space.cache", self._free_text(free_cache, self.effective_cache_dir()))
        lines = []
        for c in outcome.preflight.checks:
            if c.severity == envs.SEVERITY_OK:
                continue  # the free space rows above say it
            if c.id == "conda-name" and self.mode() == MODE_NEW_CONDA:
                continue  # said next to the name field
            if c.severity == envs.SEVERITY_CONFIRM:
                mark, colour = ("✓", GREEN) if c.confirmed else ("⚠", RED)
                suffix = t("envpage.checks.confirmed") if c.confirmed else t("envpage.checks.needs_confirm")
                lines.append(f'<span style="color:{colour}">{mark}</span>&nbsp;{_esc(c.text(lang))} '
                             f'<i>{_esc(suffix)}</i>')
            elif c.severity == envs.SEVERITY_ERROR:
                lines.append(f'<span style="color:{RED}">✖</span>&nbsp;{_esc(c.text(lang))}')
            else:
                lines.append(f'<span style="color:{ORANGE}">⚠</span>&nbsp;{_esc(c.text(lang))}')
        if outcome.preflight.ok:
            lines.append(f'<span style="color:{GREEN}">✓</span>&nbsp;<b>{_esc(t("envpage.checks.ok"))}</b>')
        self.checks_label.setText("<br>".join(lines))
        if outcome.preflight.needs_confirmation:
            self.confirm_button.show()
        self._show_total()

    def _free_text(self, disk: tuple[int, int] | None, path: str) -> str:
        if disk is None:
            return t("envpage.space.unknown", path=path)
        return t("envpage.space.value", free=format_bytes(disk[0]), total=format_bytes(disk[1]), path=path)

    def retranslate(self) -> None:
        super().retranslate()
        if not self.built:
            return
        labels = {MODE_RESUME: "envpage.mode.resume", MODE_NEW_VENV: "envpage.mode.new_venv",
                  MODE_EXISTING: "envpage.mode.existing", MODE_NEW_CONDA: "envpage.mode.new_conda",
                  MODE_EXISTING_CONDA: "envpage.mode.existing_conda", MODE_SKIP: "envpage.mode.skip"}
        for mode, key in labels.items():
            self.mode_buttons[mode].setText(t(key))
        self.target_box.setTitle(t("envpage.target.title"))
        self.venv_path_label.setText(t("envpage.venv.folder") + ":")
        self.python_label.setText(t("envpage.venv.python") + ":")
        self.browse_button.setText(t("envpage.browse"))
        self.existing_browse.setText(t("envpage.browse"))
        self.remove_button.setText(t("envpage.resume.remove"))
        self.conda_name_label.setText(t("envpage.conda.name") + ":")
        self.more_button.setText(t("envpage.advanced"))
        self.mirror_label.setText(t("envpage.advanced.mirror") + ":")
        self.mirror_edit.setToolTip(t("envpage.advanced.mirror_tip"))
        self.python_mirror_label.setText(t("envpage.advanced.python_mirror") + ":")
        self.proxy_label.setText(t("envpage.advanced.proxy") + ":")
        self.installer_label.setText(t("envpage.advanced.installer") + ":")
        self.plan_box.setTitle(t("envpage.plan.title"))
        self.plan_tree.setHeaderLabels([t("envpage.plan.col.package"), t("envpage.plan.col.version"),
                                        t("envpage.plan.col.size")])
        self.checks_box.setTitle(t("envpage.checks.title"))
        self.confirm_button.setText(t("envpage.confirm.button"))
        self.space_form.retranslate()
        self._fill_lists()
        if self.target is not None or self.target_problem:
            self._show_what()
            self._show_notes()
            self._show_plan()
            self._show_checks()


class _Text:
    """A Message-like wrapper for an error text that has no catalogue key (a crash's first line)."""

    def __init__(self, text: str) -> None:
        self._text = text

    def text(self, lang: str | None = None) -> str:
        return self._text


def register_install_pages(wizard: Any) -> tuple[EnvironmentPage, Any]:
    """Put the Environment and Install pages into ``wizard`` (a :class:`SetupWizard`) in place
    of their placeholders. The Install page also stops a running install when the window
    closes. Returns both pages (also kept as ``wizard.environment_page`` / ``install_page``)."""
    from wizard.ui.pages.install_page import InstallPage

    existing = getattr(wizard, "environment_page", None)
    if isinstance(existing, EnvironmentPage) and wizard.page(PageId.ENVIRONMENT) is existing:
        return existing, wizard.install_page  # already registered: once is enough
    env_page = EnvironmentPage(wizard.model)
    install_page = InstallPage(wizard.model)
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


__all__ = ["CheckOutcome", "EnvironmentPage", "InstallRequest", "InstallSettings", "ask_yes_no", "install_source",
           "preview", "register_install_pages", "run_checks"]
