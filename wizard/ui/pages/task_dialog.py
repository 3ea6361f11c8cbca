"""The frame of a dialog whose actions run on worker threads (the Storage and Kernel dialogs).

Why one frame: both dialogs are a row of action buttons, then Close, a busy bar, a status line
and a read-only output box, retranslated when the language changes, and both must stop the
work still running when they close (Close, Esc and the window's X all end in ``done``). One
base keeps those parts and the cancel-on-close rule the same in both.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

from PySide6.QtWidgets import (
    QBoxLayout,
    QDialog,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTreeWidget,
    QVBoxLayout,
    QWidget,
)

from wizard.core.base.i18n import t
from wizard.ui.pages.base import busy_bar, status_label
from wizard.ui.session_model import SessionModel


class TaskDialog(QDialog):
    """A dialog with ``busy_with`` (the job running, or None) and ``_cancel`` (set on close).

    A subclass's ``_build`` starts with :meth:`_add_head`, adds its own parts and action row,
    then calls :meth:`_add_tail`; it defines ``retranslate`` and ``refresh`` (the first job).
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

    def _start_up(self) -> None:
        """Build, translate, follow the language, and start the first job (``refresh``); a
        subclass calls it last in its ``__init__``, once its own state is set."""
        self._build()
        self.retranslate()
        self.model.language_changed.connect(self._on_language_changed)  # bound: dropped with this dialog
        self.refresh()

    def _add_head(self, tree_name: str, columns: int) -> QVBoxLayout:
        """The dialog's layout with its intro line and its tree (``intro``, ``tree``) at the top."""
        layout = QVBoxLayout(self)
        self.intro = QLabel()
        self.intro.setWordWrap(True)
        layout.addWidget(self.intro)
        self.tree = QTreeWidget()
        self.tree.setObjectName(tree_name)
        self.tree.setColumnCount(columns)
        return layout

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

    def _build(self) -> None:
        raise NotImplementedError

    def retranslate(self) -> None:
        raise NotImplementedError

    def refresh(self) -> None:
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
