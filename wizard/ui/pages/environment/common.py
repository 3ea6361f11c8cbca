"""What the Environment and Install pages share: the target modes, the colours and marks of
their rich-text labels, the confirmation dialog (one function, so tests can answer it), and
the filter that keeps Enter in a field from pressing the wizard's default button."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QMessageBox, QWidget

from wizard.app.environments import (  # noqa: F401 - the modes are the app layer's, named here for the pages
    MODE_EXISTING,
    MODE_EXISTING_CONDA,
    MODE_NEW_CONDA,
    MODE_NEW_VENV,
    MODE_RESUME,
    MODE_SKIP,
    MODES,
)

GREEN, ORANGE, RED, GREY = "#2e7d32", "#ef6c00", "#c62828", "#6d6d6d"
REFRESH_DELAY_MS = 250
DEFAULT_CONDA_NAME = "pytorch"


def alive(widget: object) -> bool:
    """Is the page still there? A worker's answer may arrive after the window was closed and
    the page deleted: it is then dropped instead of touching deleted widgets."""
    import shiboken6

    return shiboken6.isValid(widget)


def esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


_esc = esc


def marked(symbol: str, colour: str, text: str) -> str:
    """``text`` (escaped) after a coloured mark, for the rich-text labels."""
    return f'<span style="color:{colour}">{symbol} {esc(text)}</span>'


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


_ENTER_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter)


class EnterStaysOnPage(QObject):
    """Installed on a page: Return/Enter that no child accepted stops at the page.

    A line edit ignores Return/Enter after it has said ``returnPressed``/``editingFinished``, so
    the key goes up to the QWizard (a QDialog), which clicks its default button -- on the
    Environment page Install, a commit page. Here it stops and ``entered`` is said (the page
    plans again and shows the new plan). Buttons take their own Enter; the wizard's are not on
    the page."""

    entered = Signal()

    def __init__(self, page: QWidget) -> None:
        super().__init__(page)
        page.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent) and event.key() in _ENTER_KEYS:
            event.accept()
            self.entered.emit()
            return True
        return False

