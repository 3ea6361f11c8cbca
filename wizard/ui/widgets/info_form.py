"""Label/value rows keyed by message key: the System, GPU and Environment pages' facts.

In a module of its own so that the first page's paint does not create ``QFormLayout`` (PySide
creates a class when a module first names it): the System page builds its form after that paint.
"""

from __future__ import annotations

from PySide6 import QtCore
from PySide6.QtWidgets import QFormLayout, QLabel

from wizard.core.base.i18n import t
from wizard.ui.language import LangOf, english


def value_label() -> QLabel:
    label = QLabel()
    label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setWordWrap(True)
    return label


class InfoForm(QFormLayout):
    """Label/value rows keyed by message key, re-translatable, values selectable."""

    def __init__(self, lang_of: LangOf = english) -> None:
        super().__init__()
        self.lang_of = lang_of
        self.setLabelAlignment(QtCore.Qt.AlignmentFlag.AlignRight)
        self.setHorizontalSpacing(14)
        self.setVerticalSpacing(5)
        self._rows: dict[str, tuple[QLabel, QLabel]] = {}

    @property
    def lang(self) -> str:
        return self.lang_of()

    def set_row(self, key: str, value: str, tooltip: str | None = None) -> QLabel:
        if key not in self._rows:
            name, val = QLabel(), value_label()
            name.setStyleSheet("color: #4a4a4a;")  # readable: palette(mid) was light grey on grey (16.12)
            self.addRow(name, val)
            self._rows[key] = (name, val)
        name, val = self._rows[key]
        name.setText(t(key, self.lang) + ":")
        val.setText(value)
        val.setToolTip(tooltip or "")
        return val

    def retranslate(self) -> None:
        for key, (name, _val) in self._rows.items():
            name.setText(t(key, self.lang) + ":")

    def clear_rows(self) -> None:
        while self.rowCount():
            self.removeRow(0)
        self._rows.clear()


__all__ = ["InfoForm", "value_label"]
