"""The top of the Environment page: the one-line "what" (the requirements and where they come
from), what came back from the last run, and the button that offers the last run's build. A
widget that shows what it is given and says when its button is clicked."""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QVBoxLayout, QWidget

from wizard.app.install import InstallOptions, sources_text
from wizard.core.base.i18n import t
from wizard.ui.pages.base import status_label
from wizard.ui.pages.environment.common import esc as _esc


def what_text(options: InstallOptions | None, has_build: bool, lang: str, plain: bool = False) -> str:
    """"Installs <requirements> from <index>" (rich text, or plain for the Install page)."""
    if not has_build:
        return t("environment.what.none", lang)
    reqs = " ".join(options.requirements) if options else ""
    index = sources_text(options, lang) if options else "PyPI"  # a course's extras: where from, in words
    if plain:
        return t("environment.what.plain", lang, reqs=reqs, index=index)
    return t("environment.what", lang, reqs=f"<b>{_esc(reqs)}</b>", index=_esc(index))


class WhatView(QWidget):
    """The "what" line, the last run's note under it, and the last run's build on a button."""

    use_last_build = Signal()

    def __init__(self, lang_of: Callable[[], str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._lang_of = lang_of
        self._build_offered: tuple[str, str] | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.what_label = status_label("whatLabel", selectable=True)
        layout.addWidget(self.what_label)
        self.last_build_button = QPushButton()  # the last run's build, offered (never chosen silently)
        self.last_build_button.setObjectName("lastBuildButton")
        self.last_build_button.clicked.connect(self.use_last_build)
        self.last_build_button.hide()
        row = QHBoxLayout()
        row.addWidget(self.last_build_button)
        row.addStretch(1)
        layout.addLayout(row)

    def show_what(self, what_html: str, last_run_html: str, build_offered: tuple[str, str] | None) -> None:
        """Show the "what" line, the last run's note (rich text, may be empty) and, for a build
        (torch, variant) of the last run that is not the choice, the button that takes it."""
        self.what_label.setText(what_html + (f"<br>{last_run_html}" if last_run_html else ""))
        self._build_offered = build_offered
        self.last_build_button.setVisible(build_offered is not None)
        self.retranslate()

    def retranslate(self) -> None:
        if self._build_offered is not None:
            torch, variant = self._build_offered
            self.last_build_button.setText(t("environment.reuse.last_build.use", self._lang_of(), torch=torch,
                                             variant=variant))


__all__ = ["WhatView", "what_text"]
