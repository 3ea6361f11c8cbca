"""The Environment page's advanced settings: a mirror of the PyTorch index, where a course's extra
packages come from (PyPI or a PyPI mirror; shown while a course with extras is open), uv's Python
mirror, a proxy and the installer, folded under "Advanced" until a student (or a network failure) opens
them.

A widget that owns its state: it edits one :class:`~wizard.app.install.InstallSettings` and says
``changed`` when a field is done being edited (focus-out or Enter) or the installer is picked.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QFormLayout, QGroupBox, QLabel, QLineEdit, QToolButton, QVBoxLayout, QWidget

from wizard.app.install import INSTALLER_AUTO, INSTALLER_PIP, INSTALLER_UV, InstallSettings, index_url_problem
from wizard.core.base.i18n import t


class SettingsPanel(QWidget):
    """The "Advanced" button and the settings it unfolds."""

    changed = Signal()

    def __init__(self, settings: InstallSettings, lang_of: Callable[[], str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self._lang_of = lang_of
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.more_button = QToolButton()
        self.more_button.setObjectName("advancedButton")
        self.more_button.setCheckable(True)
        self.more_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.more_button.setArrowType(Qt.ArrowType.RightArrow)
        self.more_button.toggled.connect(self._toggle)
        layout.addWidget(self.more_button)
        self.advanced = QGroupBox()
        form = QFormLayout(self.advanced)
        self.mirror_edit = QLineEdit()
        self.mirror_edit.setObjectName("mirrorEdit")
        self.mirror_edit.setPlaceholderText("https://mirror.example.org/whl")
        self.extras_edit = QLineEdit()  # "" is PyPI; the mirror's own address: the mirror only
        self.extras_edit.setObjectName("extrasIndexEdit")
        self.extras_edit.setPlaceholderText("https://pypi.org/simple")
        self.extras_problem = QLabel()  # why the typed address is not one (it is then not used)
        self.extras_problem.setObjectName("extrasIndexProblem")
        self.extras_problem.setWordWrap(True)
        self.extras_problem.setStyleSheet("color: #b00020;")
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
        self.proxy_label, self.installer_label, self.extras_label = QLabel(), QLabel(), QLabel()
        form.addRow(self.mirror_label, self.mirror_edit)
        form.addRow(self.extras_label, self.extras_edit)
        form.addRow("", self.extras_problem)
        self._form = form
        self.extras_needed = False
        self.set_extras_needed(False)
        form.addRow(self.python_mirror_label, self.python_mirror_edit)
        form.addRow(self.proxy_label, self.proxy_edit)
        form.addRow(self.installer_label, self.installer_combo)
        self.show_values()
        for edit in (self.mirror_edit, self.extras_edit, self.python_mirror_edit, self.proxy_edit):
            edit.editingFinished.connect(self._edited)
        self.installer_combo.currentIndexChanged.connect(lambda _i: self._edited())
        self.advanced.hide()
        layout.addWidget(self.advanced)

    @property
    def lang(self) -> str:
        return self._lang_of()

    def show_values(self) -> None:
        """Put the settings' values into the fields (without saying ``changed``)."""
        s = self.settings
        for edit, value in ((self.mirror_edit, s.mirror), (self.python_mirror_edit, s.python_mirror),
                            (self.proxy_edit, s.proxy), (self.extras_edit, s.extras_index)):
            edit.blockSignals(True)
            edit.setText(value)
            edit.blockSignals(False)
        self.installer_combo.blockSignals(True)
        self.installer_combo.setCurrentIndex(max(0, self.installer_combo.findData(s.installer)))
        self.installer_combo.blockSignals(False)

    def _edited(self) -> None:
        s = self.settings
        s.mirror = self.mirror_edit.text().strip()
        s.python_mirror = self.python_mirror_edit.text().strip()
        s.proxy = self.proxy_edit.text().strip()
        s.installer = self.installer_combo.currentData() or INSTALLER_PIP
        extras = self.extras_edit.text().strip()
        problem = index_url_problem(extras) if extras else None
        self.extras_problem.setText(t(problem, self.lang, url=extras) if problem else "")
        self._form.setRowVisible(self.extras_problem, bool(problem) and self.extras_needed)  # the row, not the label
        if problem is None:  # a text that is no address is not used: the last good source stays
            s.extras_index = extras
        self.changed.emit()

    def set_extras_needed(self, needed: bool) -> None:
        """The extras' source is shown while a course with extra packages is open (it means
        nothing otherwise)."""
        self.extras_needed = needed
        self._form.setRowVisible(self.extras_edit, needed)
        self._form.setRowVisible(self.extras_problem, needed and bool(self.extras_problem.text()))

    def reveal(self) -> None:
        """Unfold the settings (after a network failure: the mirror field is what to change)."""
        if not self.more_button.isChecked():
            self.more_button.setChecked(True)

    def _toggle(self, shown: bool) -> None:
        self.advanced.setVisible(shown)
        self.more_button.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)

    def set_shown(self, shown: bool) -> None:
        """The whole panel (hidden when the student skips installing)."""
        self.more_button.setVisible(shown)
        self.advanced.setVisible(shown and self.more_button.isChecked())

    def retranslate(self) -> None:
        lang = self.lang
        self.more_button.setText(t("environment.advanced", lang))
        self.mirror_label.setText(t("environment.advanced.mirror", lang) + ":")
        self.mirror_edit.setToolTip(t("environment.advanced.mirror_tip", lang))
        self.extras_label.setText(t("environment.advanced.extras_index", lang) + ":")
        self.extras_edit.setToolTip(t("environment.advanced.extras_index_tip", lang))
        self.python_mirror_label.setText(t("environment.advanced.python_mirror", lang) + ":")
        self.proxy_label.setText(t("environment.advanced.proxy", lang) + ":")
        self.installer_label.setText(t("environment.advanced.installer", lang) + ":")
        self.installer_combo.setItemText(0, t("environment.installer.auto", lang))  # the first item: "auto"


__all__ = ["SettingsPanel"]
