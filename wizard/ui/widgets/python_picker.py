"""Which environment's Python the Verify and Benchmark pages run their probe in.

Offered in this order: the environment the Install step just made, the interpreter the
recommendation chose, every interpreter detection found, and Browse… for any other. The
choice is shared through ``session.target_python`` so both pages agree.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QWidget

from wizard.app import verify as app_verify
from wizard.app.session import Session
from wizard.core.base.i18n import t


class PythonPicker(QWidget):
    changed = Signal(str)

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.label = QLabel()
        self.combo = QComboBox()
        self.combo.setObjectName("targetPython")
        self.combo.setMinimumContentsLength(30)
        # a long environment path must not widen the page: the combo elides, the path is the tooltip
        self.combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.browse = QPushButton()
        self.browse.clicked.connect(self._browse)
        layout.addWidget(self.label)
        layout.addWidget(self.combo, 1)
        layout.addWidget(self.browse)
        self.combo.currentIndexChanged.connect(self._changed)
        self.retranslate()

    @property
    def lang(self) -> str:
        return self.session.lang

    def candidates(self) -> list[tuple[str, str]]:
        """(label, path) in the order a student most likely wants them."""
        found: list[tuple[str, str]] = []
        install = self.session.install
        env_python = install.env_python if install is not None else None
        if env_python:
            found.append((t("window.python_picker.installed", self.lang, path=env_python), env_python))
        choice = self.session.recommendation
        interpreter = getattr(choice, "interpreter", None)
        if interpreter is not None:
            found.append((t("window.python_picker.recommended", self.lang, version=interpreter.version or "?", path=interpreter.path),
                          interpreter.path))
        d = self.session.detection
        for p in (d.pythons if d else []):
            if not p.error:
                found.append((f"Python {p.version} — {p.path}", p.path))
        chosen = self.session.target_python
        if chosen and chosen not in [path for _, path in found]:
            found.insert(0, (chosen, chosen))
        seen: set[str] = set()
        unique = []
        for label, path in found:
            if path not in seen:
                seen.add(path)
                unique.append((label, path))
        return unique

    def refresh(self) -> None:
        current = self.session.target_python
        self.combo.blockSignals(True)
        self.combo.clear()
        for label, path in self.candidates():
            self.combo.addItem(label, path)
            self.combo.setItemData(self.combo.count() - 1, path, 3)  # tooltip role
        index = self.combo.findData(current) if current else 0
        self.combo.setCurrentIndex(max(0, index))
        self.combo.blockSignals(False)
        self._changed()

    def path(self) -> str | None:
        return self.combo.currentData()

    def _changed(self, _index: int = 0) -> None:
        path = self.path()
        if path:
            app_verify.use_python(self.session, path)
            self.changed.emit(path)

    def _browse(self) -> None:
        from wizard.ui.widgets.file_dialogs import open_file_name  # Documents first, in the window's language

        path = open_file_name(self, t("window.python_picker.browse_title", self.lang), self.lang)
        if path:
            app_verify.use_python(self.session, path)
            self.refresh()

    def retranslate(self) -> None:
        self.label.setText(t("window.python_picker.label", self.lang) + ":")
        self.browse.setText(t("window.python_picker.browse", self.lang))
