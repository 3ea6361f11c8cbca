"""A page's row of one action button and the line beside it that says what came of it.

Why one base: the course-profile row (System page) and the offline-bundle row (Environment
page) are the same row: a named button, a wrapping label taking the rest of the width, and a
``retranslate`` run now and whenever the language changes. A subclass sets its own state first
(``retranslate`` reads it), then calls this ``__init__``, and defines ``choose`` and
``retranslate``.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QBoxLayout, QHBoxLayout, QLabel, QPushButton


class ButtonRow:
    """The button (``button``) and its status line (``label``), added to ``layout``."""

    def __init__(self, page: Any, layout: QBoxLayout, button_name: str, label_name: str) -> None:
        self.page = page
        self.button = QPushButton()
        self.button.setObjectName(button_name)
        self.label = QLabel()
        self.label.setObjectName(label_name)
        self.label.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.button)
        row.addWidget(self.label, 1)
        layout.addLayout(row)
        self.button.clicked.connect(lambda _checked=False: self.choose())
        page.model.language_changed.connect(lambda _lang: self.retranslate())
        self.retranslate()

    @property
    def lang(self) -> str:
        return self.page.model.session.lang

    def choose(self) -> None:
        raise NotImplementedError

    def retranslate(self) -> None:
        raise NotImplementedError


__all__ = ["ButtonRow"]
