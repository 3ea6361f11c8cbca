"""The widgets of the Environment page: the target modes and their panels, the advanced
settings (mirror, proxy, installer), the plan and the checks. Built once, on first show."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QToolButton,
    QTreeWidget,
    QVBoxLayout,
    QWidget,
)

from wizard.app.install import INSTALLER_AUTO, INSTALLER_PIP, INSTALLER_UV
from wizard.ui.pages.base import scroll_body
from wizard.ui.pages.environment.common import (
    DEFAULT_CONDA_NAME,
    MODE_EXISTING,
    MODE_EXISTING_CONDA,
    MODE_NEW_CONDA,
    MODE_NEW_VENV,
    MODE_RESUME,
    MODE_SKIP,
    MODES,
)
from wizard.ui.widgets.folded_details import build_folded_details
from wizard.ui.widgets.info_form import InfoForm


class EnvironmentPanels:
    """The build half of :class:`~wizard.ui.pages.environment_page.EnvironmentPage` (a mixin:
    the widgets are the page's attributes, so tests and the page reach them alike)."""

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
        self._build_advanced(layout)
        self._build_plan_box(layout)
        self._build_checks_box(layout)
        from wizard.ui.pages.bundle_panel import add_bundle_row  # an offline bundle instead of a download

        self.bundle_row = add_bundle_row(self, layout)
        layout.addStretch(1)

    def _build_advanced(self, layout: QVBoxLayout) -> None:
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
        self.installer_combo.addItem("auto", INSTALLER_AUTO)  # uv when found, else pip (the engine's default)
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

    def _build_plan_box(self, layout: QVBoxLayout) -> None:
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
        self._build_alternatives(plan_layout)
        layout.addWidget(self.plan_box)

    def _build_alternatives(self, plan_layout: QVBoxLayout) -> None:
        """Under a failed plan: the raw details (folded) and the builds the index does have."""
        self.details_button, self.details_label = build_folded_details(
            plan_layout, "planDetailsButton", "planDetails")
        self.alt_label = QLabel()
        self.alt_label.setObjectName("altLabel")
        self.alt_label.setWordWrap(True)
        self.alt_label.setTextFormat(Qt.TextFormat.RichText)
        self.alt_label.hide()
        plan_layout.addWidget(self.alt_label)
        self.alt_row = QHBoxLayout()
        self.alt_row.addStretch(1)
        self.alt_buttons: list[QPushButton] = []
        plan_layout.addLayout(self.alt_row)

    def _build_checks_box(self, layout: QVBoxLayout) -> None:
        self.checks_box = QGroupBox()
        checks_layout = QVBoxLayout(self.checks_box)
        self.space_form = InfoForm(self.current_lang)
        checks_layout.addLayout(self.space_form)
        self.checks_label = QLabel()
        self.checks_label.setObjectName("checksLabel")
        self.checks_label.setWordWrap(True)
        self.checks_label.setTextFormat(Qt.TextFormat.RichText)
        self.checks_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        checks_layout.addWidget(self.checks_label)
        self.go_on_label = QLabel()
        self.go_on_label.setObjectName("goOnLabel")
        self.go_on_label.setWordWrap(True)
        self.go_on_label.setTextFormat(Qt.TextFormat.RichText)
        self.go_on_label.hide()
        checks_layout.addWidget(self.go_on_label)
        confirm_row = QHBoxLayout()
        self.confirm_button = QPushButton()
        self.confirm_button.setObjectName("confirmButton")
        self.confirm_button.clicked.connect(self.confirm_refusals)
        confirm_row.addWidget(self.confirm_button)
        confirm_row.addStretch(1)
        checks_layout.addLayout(confirm_row)
        self.confirm_button.hide()
        layout.addWidget(self.checks_box)

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

