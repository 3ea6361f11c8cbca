"""File dialogs and "open folder" the way a student expects them.

* They start in the student's Documents folder (Qt's ``DocumentsLocation``; the home folder when
  there is none), not in the folder the wizard happened to be started from: a student who
  double-clicked the installer's shortcut would otherwise save the report into Program Files or
  the install folder and never find it again.
* Qt's own texts ("Look in", "Save", "Cancel") are in the window's language:
  :func:`wizard.ui.translations.set_qt_language` runs right before each dialog opens.
* Opening a folder in the file manager can fail silently (a minimal Linux desktop, WSL, a
  server over ``ssh -X`` has nothing that answers ``xdg-open``). Then a message says where the
  folder is, with the path selectable so it can be copied.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from PySide6.QtCore import QStandardPaths, Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from wizard.core.base.i18n import t
from wizard.ui.translations import set_qt_language

#: ``opener(url) -> bool``: what opens a folder (Qt's desktop services; a test passes its own)
UrlOpener = Callable[[QUrl], bool]


def documents_folder() -> Path:
    """The student's Documents folder when it exists, else the home folder."""
    docs = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    if docs and Path(docs).is_dir():
        return Path(docs)
    return Path.home()


def start_in(folder: str | Path | None = None, name: str = "") -> str:
    """Where a dialog opens: ``folder`` (when it exists) or Documents, plus a proposed file name."""
    base = Path(folder) if folder and Path(folder).is_dir() else documents_folder()
    return str(base / name) if name else str(base)


def save_file_name(parent: QWidget | None, title: str, lang: str, name: str = "", file_filter: str = "",
                   folder: str | Path | None = None) -> str:
    """The path the student chose to save to, or '' when they cancelled."""
    set_qt_language(lang)
    path, _ = QFileDialog.getSaveFileName(parent, title, start_in(folder, name), file_filter)
    return path


def open_file_name(parent: QWidget | None, title: str, lang: str, file_filter: str = "",
                   folder: str | Path | None = None) -> str:
    """The file the student chose to open, or '' when they cancelled."""
    set_qt_language(lang)
    path, _ = QFileDialog.getOpenFileName(parent, title, start_in(folder), file_filter)
    return path


def existing_folder(parent: QWidget | None, title: str, lang: str, folder: str | Path | None = None) -> str:
    """The folder the student chose, or '' when they cancelled."""
    set_qt_language(lang)
    return QFileDialog.getExistingDirectory(parent, title, start_in(folder))


def open_folder(parent: QWidget | None, folder: str | Path, lang: str,
                opener: UrlOpener | None = None) -> bool:
    """Show ``folder`` in the file manager; when nothing answers, a message with its path
    (``open()``: window-modal, without a nested event loop, so the caller returns at once).
    True when the file manager was started."""
    opener = opener or QDesktopServices.openUrl
    if opener(QUrl.fromLocalFile(str(folder))):
        return True
    set_qt_language(lang)
    box = QMessageBox(QMessageBox.Icon.Information, t("window.files.open_folder.failed_title", lang),
                      t("window.files.open_folder.failed", lang, path=folder), QMessageBox.StandardButton.Ok, parent)
    box.setObjectName("openFolderFailed")
    box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return False


__all__ = ["UrlOpener", "documents_folder", "start_in", "save_file_name", "open_file_name", "existing_folder",
           "open_folder"]
