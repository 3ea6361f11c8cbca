"""Qt's own texts in the window's language: file dialogs ("Look in", "Save"), message-box
buttons, context menus.

The wizard's texts come from its catalogue; the widgets Qt builds itself (QFileDialog,
QMessageBox's standard buttons, a line edit's Undo/Copy menu) are translated only when a
QTranslator with Qt's ``qtbase_ko.qm`` is installed. PySide6 ships that file
(``QLibraryInfo.path(TranslationsPath)``), and the bundle keeps it
(``installers/bundle_config.KEPT_QT_TRANSLATIONS``). English needs nothing: it is built into Qt.

A translator is installed on the one QApplication, so it is process-wide, unlike the wizard's
languages (each window asks its session). That is why :func:`set_qt_language` is called not only
at start-up and when the language menu changes, but also right before a dialog opens
(:mod:`wizard.ui.widgets.file_dialogs`): the dialog then speaks its window's language even
when two windows in different languages share the process (the tests open many).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QTranslator

from wizard.core.base.i18n import t

#: the Qt catalogues loaded for each language the wizard speaks ('en' is Qt's own)
QT_CATALOGUES = {"ko": ("qtbase_ko",)}
#: Qt texts newer than PySide6's qtbase_ko.qm (Qt 6.11 gave the file dialog's labels mnemonics,
#: the Korean file still has the old strings), taken from the wizard's catalogue instead.
#: Found by opening every Qt dialog the wizard uses in both languages and comparing texts.
QT_SUPPLEMENT = {("QFileDialog", "&Look in:"): "window.qt.file_dialog.look_in",
                 ("QFileDialog", "Files of &type:"): "window.qt.file_dialog.files_of_type"}

_installed: dict[str, object] = {"lang": "en", "translators": [], "app": None}


class CatalogueSupplement(QTranslator):
    """Answers only the Qt texts of :data:`QT_SUPPLEMENT`; for every other text it has none, and
    Qt asks the next translator (installed later, so it is asked first)."""

    def __init__(self, lang: str) -> None:
        super().__init__()
        self.lang = lang

    def translate(self, context: str, source_text: str, disambiguation: str | None = None,  # noqa: ARG002
                  n: int = -1) -> str | None:
        key = QT_SUPPLEMENT.get((context, source_text))
        return t(key, self.lang) if key else None  # None: "not translated here"

    def isEmpty(self) -> bool:  # noqa: N802 (Qt's name)
        return False


def translation_dirs() -> list[Path]:
    """Where Qt's .qm files may be: Qt's own answer, then PySide6's folder in a wheel or a
    PyInstaller bundle (when a bundle's qt.conf points elsewhere)."""
    dirs = [Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath))]
    roots = []
    spec = importlib.util.find_spec("PySide6")
    if spec is not None and spec.origin:
        roots.append(Path(spec.origin).parent)
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        roots.append(Path(frozen) / "PySide6")
    for root in roots:  # Linux/macOS wheels: PySide6/Qt/translations; Windows: PySide6/translations
        dirs += [root / "Qt" / "translations", root / "translations"]
    return [d for i, d in enumerate(dirs) if d not in dirs[:i]]


def load_translators(lang: str, dirs: list[Path] | None = None) -> list[QTranslator]:
    """Loaded translators for ``lang`` (empty for English, or when no .qm file is found)."""
    found: list[QTranslator] = []
    for name in QT_CATALOGUES.get(lang, ()):
        for folder in dirs if dirs is not None else translation_dirs():
            translator = QTranslator()
            if translator.load(name, str(folder)):
                found.append(translator)
                break
    if found:
        found.append(CatalogueSupplement(lang))
    return found


def set_qt_language(lang: str) -> bool:
    """Make Qt's own texts ``lang``; True when Qt's catalogue for it is in place (always for
    English). Cheap when nothing changes, so callers need not check first."""
    app = QCoreApplication.instance()
    if app is None:
        return False
    same_app = _installed["app"] is app
    if same_app and lang == _installed["lang"]:
        return lang not in QT_CATALOGUES or bool(_installed["translators"])
    if same_app:
        for old in _installed["translators"]:  # type: ignore[attr-defined]  # the list kept above
            app.removeTranslator(old)
    translators = load_translators(lang)
    for translator in translators:
        app.installTranslator(translator)
    _installed.update(lang=lang, translators=translators, app=app)
    return lang not in QT_CATALOGUES or bool(translators)


def follow_language(model: Any) -> None:
    """Qt's texts follow ``model`` (a SessionModel): its language now, and on every switch."""
    set_qt_language(model.lang)
    model.language_changed.connect(set_qt_language)


def qt_language() -> str:
    """The language Qt's own texts are in now."""
    return str(_installed["lang"]) if _installed["app"] is QCoreApplication.instance() else "en"


__all__ = ["QT_CATALOGUES", "translation_dirs", "load_translators", "set_qt_language", "follow_language",
           "qt_language"]
