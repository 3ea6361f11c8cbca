"""The frame of a dialog whose actions run on worker threads (the Storage and Kernel dialogs).

Why one frame: both dialogs are a row of action buttons, then Close, a busy bar, a status line
and a read-only output box, retranslated when the language changes, and both must stop the
work still running when they close (Close, Esc and the window's X all end in ``done``). One
base keeps those parts and the cancel-on-close rule the same in both.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

from PySide6.QtWidgets import QBoxLayout, QDialog, QHBoxLayout, QPlainTextEdit, QPushButton, QWidget

from wizard.core.base.i18n import t
from wizard.ui.pages.base import busy_bar, status_label
from wizard.ui.session_model import SessionModel


class TaskDialog(QDialog):
    """A dialog with ``busy_with`` (the job running, or None) and ``_cancel`` (set on close).

    A subclass builds its own top part and action row, then calls :meth:`_add_tail`, and
    defines :meth:`retranslate`.
    """

    def __init__(self, model: SessionModel, object_name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(object_name)
        self.model = model
        self.busy_with: str | None = None
        self._cancel = threading.Event()

    @property
    def lang(self) -> str:
        return self.model.session.lang

    def _button(self, name: str, slot: Callable[[], Any], row: QHBoxLayout) -> QPushButton:
        button = QPushButton()
        button.setObjectName(name)
        button.clicked.connect(lambda _checked=False: slot())
        row.addWidget(button)
        return button

    def _add_tail(self, layout: QBoxLayout, row: QHBoxLayout, prefix: str, width: int, height: int) -> None:
        """Close at the end of ``row``, then the busy bar, the status line and the output box
        (object names ``<prefix>Close``/``Status``/``Output``)."""
        row.addStretch(1)
        self.close_button = self._button(f"{prefix}Close", self.close, row)
        layout.addLayout(row)
        self.busy = busy_bar()
        layout.addWidget(self.busy)
        self.status = status_label(f"{prefix}Status")
        layout.addWidget(self.status)
        self.output = QPlainTextEdit()
        self.output.setObjectName(f"{prefix}Output")
        self.output.setReadOnly(True)
        self.output.setMinimumHeight(140)
        layout.addWidget(self.output, 1)
        self.resize(width, height)

    def _on_language_changed(self, _lang: str) -> None:
        self.retranslate()

    def retranslate(self) -> None:
        raise NotImplementedError

    def done(self, result: int) -> None:  # noqa: D401 - Qt's name; close, Esc and Close all end here
        self._cancel.set()  # the work still running stops at its next check
        super().done(result)


class OpenerButton(QPushButton):
    """A page's "open the dialog" button, translating itself (a bound slot: Qt drops it with
    the button)."""

    def __init__(self, key: str, object_name: str, model: SessionModel) -> None:
        super().__init__(t(key, model.session.lang))
        self.key = key
        self.setObjectName(object_name)
        model.language_changed.connect(self.on_language_changed)

    def on_language_changed(self, lang: str) -> None:
        self.setText(t(self.key, lang))


__all__ = ["OpenerButton", "TaskDialog"]
