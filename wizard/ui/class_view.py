""""Open class view…" for the instructor or TA: a folder of students' reports → one HTML page, opened.

Why its own module: the Report page only places the button (a small hook); picking the folder,
making the page off the GUI thread (500 reports take a second or two, and the window must not
freeze), and opening it live here. The work is the same use case as ``gpu-setup-wizard class``
(:func:`wizard.app.classroom.make_class_view`); the page is written beside the chosen folder,
named after it, and opened in the browser. When nothing opens it, the folder's path is shown.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QMessageBox, QPushButton, QWidget

from wizard.core.base.i18n import t
from wizard.ui import workers
from wizard.ui.widgets import file_dialogs

LangOf = Callable[[], str]


def _make(folder: str, output: str, lang: str) -> tuple[Any, str | None]:
    """Worker thread: (the result, None), or (None, the message in ``lang``) when the folder holds
    no report or the page cannot be written; anything else is a bug and reaches ``failed``."""
    from wizard.app.classroom import ClassViewError, make_class_view

    try:
        return make_class_view([folder], output, lang), None
    except ClassViewError as exc:
        return None, exc.text(lang)
    except OSError as exc:
        return None, t("class_view.cli.unwritable", lang, path=output, error=exc.strerror or str(exc))


class ClassViewButton(QPushButton):
    """The button; ``finished(path or "")`` when a page was written and opened (or not)."""

    finished = Signal(str)

    def __init__(self, lang_of: LangOf, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("openClassView")
        self.lang_of = lang_of
        # what picks the folder and what opens a URL: the real dialog and desktop; a test gives its own
        self.choose_folder: Callable[[], str] = lambda: file_dialogs.existing_folder(
            self, t("class_view.ui.pick_folder", self.lang_of()), self.lang_of())
        self.url_opener: file_dialogs.UrlOpener = QDesktopServices.openUrl
        self.last_page: Path | None = None
        self.last_error: str | None = None
        self._task: workers.Task | None = None
        self.clicked.connect(self.open_class_view)
        self.retranslate()

    def retranslate(self) -> None:
        lang = self.lang_of()
        self.setText(t("class_view.ui.button", lang))
        self.setToolTip(t("class_view.ui.button_tip", lang))

    def open_class_view(self) -> None:
        folder = self.choose_folder()
        if not folder:
            return
        from wizard.app.classroom import default_output

        self.setEnabled(False)
        output = str(default_output(folder))
        self._task = workers.submit(_make, folder, output, self.lang_of(), on_done=self._done, on_failed=self._failed)

    def _done(self, value: tuple[Any, str | None]) -> None:
        self.setEnabled(True)
        result, problem = value
        if problem is not None:
            self._show_problem(problem)
            return
        self.last_page, self.last_error = result.path, None
        if not self.url_opener(QUrl.fromLocalFile(str(result.path))):
            file_dialogs.open_folder(self, result.path.parent, self.lang_of(), self.url_opener)
        self.finished.emit(str(result.path))

    def _failed(self, text: str) -> None:
        self.setEnabled(True)
        self._show_problem(text)

    def _show_problem(self, text: str) -> None:
        self.last_error = text
        box = QMessageBox(QMessageBox.Icon.Warning, t("class_view.ui.failed", self.lang_of()), text,
                          QMessageBox.StandardButton.Ok, self)
        box.setObjectName("classViewFailed")
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        self.finished.emit("")


__all__ = ["ClassViewButton"]
