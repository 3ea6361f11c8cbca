"""The report as PDF, written by Qt's own PDF writer from the report's HTML.

Why Qt and not a PDF library: the wizard already ships Qt, and QTextDocument lays out the same
HTML the window previews, so the PDF is what the student saw. Qt embeds the fonts it draws with
(subsets, with their Unicode maps), so the Korean text is in the file and can be selected,
searched and copied; the document's default font is a list of families that draw Hangul on each
system (Noto Sans CJK KR on Linux from fonts-noto-cjk, Malgun Gothic on Windows, Apple SD
Gothic Neo on macOS), and Qt falls back along it. A machine with none of them (a minimal Linux
image, WSL) gets the Hangul font the wizard ships (``wizard/resources/fonts``, registered by
:func:`register_shipped_fonts`, which the window's start-up calls too), so its Korean text is
never missing from the file.

Qt is imported inside the functions: ``wizard.core`` never imports Qt, and the CLI loads this
module only for ``report --format pdf``. Without a display (a server, Colab, SSH) a
QGuiApplication on the ``offscreen`` platform is enough.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

PAGE_MARGIN_MM = 15.0
RESOLUTION_DPI = 300
BASE_POINT_SIZE = 10.0

#: the fonts under wizard/resources/fonts (see its README): file names, and the families they add
SHIPPED_FONT_FILES = ("GSWSansCJKKR-Regular.otf", "GSWSansCJKKR-Bold.otf", "GSWSymbols-Regular.ttf",
                      "GSWSymbols-Bold.ttf", "GSWMono-Regular.otf")
SHIPPED_HANGUL_FAMILY = "GSW Sans CJK KR"
SHIPPED_SYMBOL_FAMILY = "GSW Symbols"
SHIPPED_MONO_FAMILY = "GSW Mono"  # ASCII, Latin-1, box drawing: monospace text on a machine with no font
SHIPPED_FAMILIES = (SHIPPED_HANGUL_FAMILY, SHIPPED_SYMBOL_FAMILY)  # the fallbacks of proportional text
#: monospace families one of which nearly every system has (the fast answer to "is there one?")
COMMON_MONO_FAMILIES = ("DejaVu Sans Mono", "Consolas", "Menlo", "Liberation Mono", "Noto Sans Mono",
                        "Ubuntu Mono", "Courier New", "Noto Sans Mono CJK KR")
_registered: list[str] = []  # the families registered in this process (Qt keeps them until exit)


class PdfError(RuntimeError):
    """The PDF could not be written (no Qt, no usable font, the file could not be saved)."""


def _has_display() -> bool:
    if sys.platform.startswith("win") or sys.platform == "darwin":
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def ensure_gui_app() -> Any:
    """The running QGuiApplication (a QApplication counts), or a new one: on the offscreen
    platform when there is no display and no platform was chosen."""
    try:
        from PySide6.QtGui import QGuiApplication
    except ImportError as exc:  # the Qt libraries are missing on this machine
        raise PdfError(f"Qt is not available: {exc}") from exc
    app = QGuiApplication.instance()
    if app is None:
        if not _has_display() and not os.environ.get("QT_QPA_PLATFORM"):
            os.environ["QT_QPA_PLATFORM"] = "offscreen"
        app = QGuiApplication([sys.argv[0] if sys.argv else "gpu-setup-wizard"])
    return app


def register_shipped_fonts() -> list[str]:
    """Register the shipped fonts with Qt's font database, once per process; the families added.

    Cheap (measured: about 1 ms for the five files, Qt reads their tables lazily), so it is done
    whenever a Qt application exists; a registered font is only *used* where a font list names
    it, or by the system's fallback when nothing installed draws a character. A file that is
    missing or unreadable is left out (Qt returns -1): the wizard then draws with what the system
    has, as before, and :func:`hangul_font_available` says so.
    """
    if _registered:
        return list(_registered)
    from PySide6.QtGui import QFontDatabase

    from wizard.core.base.resources import resource_path

    found: list[str] = []
    for name in SHIPPED_FONT_FILES:
        font_id = QFontDatabase.addApplicationFont(str(resource_path("fonts", name)))
        if font_id >= 0:
            found += [f for f in QFontDatabase.applicationFontFamilies(font_id) if f not in found]
    _registered.extend(found)
    if SHIPPED_MONO_FAMILY in found:
        _mono_where_none()
    return found


def _mono_where_none() -> None:
    """With no monospace font installed (a slim container), the monospace names the report's
    HTML and the pages ask for ("monospace", "DejaVu Sans Mono" …) get the shipped one as their
    substitute; Qt uses a substitute only for a family it does not have. Where any monospace font
    exists nothing changes (checked by name first: one lookup on a normal system)."""
    from PySide6.QtGui import QFont, QFontDatabase

    # fontconfig's generic names show up as families of their own ("Monospace" is fixed pitch even
    # when no font stands behind it); they are not fonts
    generic = {"Monospace", "Sans Serif", "Serif", "monospace", "sans-serif", "serif"}
    installed = [f for f in QFontDatabase.families() if f not in (*SHIPPED_FAMILIES, SHIPPED_MONO_FAMILY, *generic)]
    if set(COMMON_MONO_FAMILIES) & set(installed) or any(QFontDatabase.isFixedPitch(f) for f in installed):
        return
    from wizard.core.report.render import MONO_FONT_FAMILIES  # only here: it is not needed at start-up

    for family in ("monospace", "Monospace", *MONO_FONT_FAMILIES):
        QFont.insertSubstitution(family, SHIPPED_MONO_FAMILY)


def system_hangul_families() -> list[str]:
    """The installed families that draw Hangul, the shipped one left out."""
    from PySide6.QtGui import QFontDatabase

    return [f for f in QFontDatabase.families(QFontDatabase.WritingSystem.Korean) if f not in (*SHIPPED_FAMILIES, SHIPPED_MONO_FAMILY)]


def report_font(point_size: float = BASE_POINT_SIZE) -> Any:
    """A QFont: a Latin family installed here, then the families that draw Hangul here (Qt falls
    back along the list per character), the shipped Hangul and symbol fonts, then sans-serif."""
    from PySide6.QtGui import QFont, QFontDatabase

    from wizard.core.report.render import CJK_FONT_FAMILIES, LATIN_FONT_FAMILIES

    shipped = register_shipped_fonts()
    installed = set(QFontDatabase.families())
    latin = [f for f in LATIN_FONT_FAMILIES if f in installed][:1]
    hangul = [f for f in CJK_FONT_FAMILIES if f in installed] or system_hangul_families()[:1]
    families = latin + hangul + [f for f in SHIPPED_FAMILIES if f in shipped]
    font = QFont()
    font.setFamilies(families + ["sans-serif"])
    font.setStyleHint(QFont.StyleHint.SansSerif)
    font.setPointSizeF(point_size)
    return font


def hangul_font_available() -> bool:
    """Is a font that draws Hangul installed or shipped? (Without one the PDF's Korean would be boxes.)"""
    return SHIPPED_HANGUL_FAMILY in register_shipped_fonts() or bool(system_hangul_families())


def _split_row(doc: Any) -> tuple[int, float] | None:
    """(block number, how far it must move down) of the first list row (a lesson, a checklist
    line) that runs over a page's end, or None. Rows taller than a page are left to split:
    they cannot fit anywhere."""
    page = doc.pageSize().height()
    layout = doc.documentLayout()
    layout.documentSize()  # the whole document laid out: Qt lays out a long one lazily
    block = doc.begin()
    while block.isValid():
        if block.textList() is not None:
            rect = layout.blockBoundingRect(block)
            top, bottom = rect.top(), rect.bottom() - 1
            if rect.height() < page and int(top // page) != int(bottom // page):
                return block.blockNumber(), (int(top // page) + 1) * page - top + 1
        block = block.next()
    return None


def _move_down(doc: Any, moves: dict[int, float]) -> None:
    """A larger top margin on each block numbered in ``moves``: it starts on the next page. (Not
    Qt's page-break-before: where the row before ends a hair from the page's end, that skips
    a whole page.)"""
    from PySide6.QtGui import QTextCursor

    for number, by in moves.items():
        block = doc.findBlockByNumber(number)
        fmt = block.blockFormat()
        fmt.setTopMargin(fmt.topMargin() + by)
        QTextCursor(block).setBlockFormat(fmt)


def paginate(make_doc: Any, limit: int = 200) -> tuple[Any, int]:
    """(the document, the rows moved): every list row (a lesson, a checklist line) that would
    run over a page's end starts on the next page instead; Qt's layout breaks a paragraph
    between any two lines. ``make_doc(moves)`` gives the document laid out on its pages, each
    block numbered in ``moves`` moved down by so much (:func:`_move_down`); it is made anew
    after each row moved (a block format changed in a laid-out document leaves the rest of it
    unlaid), row by row from the top, since each move shifts the rows after it."""
    moves: dict[int, float] = {}
    doc = make_doc(moves)
    while len(moves) < limit:
        split = _split_row(doc)
        if split is None or split[0] in moves:
            break
        moves[split[0]] = split[1]
        doc = make_doc(moves)
    return doc, len(moves)


def render_pdf(html: str, path: str | os.PathLike[str], *, title: str | None = None,
               creator: str = "gpu-setup-wizard", shared: bool = False) -> Path:
    """Lay out ``html`` on A4 pages and write the PDF to ``path`` (atomically: a temporary file
    in the same folder, then a rename). ``shared``: readable by others as the umask allows (a
    redacted report), not private to the user. Returns the path."""
    ensure_gui_app()
    from PySide6.QtCore import QMarginsF, QSizeF
    from PySide6.QtGui import QPageLayout, QPageSize, QPdfWriter, QTextDocument

    from wizard.core.base.files import atomic_path
    from wizard.core.report.render import MONO_FONT_FAMILIES

    target = Path(path)
    with atomic_path(target, prefix=".tmp-report-", suffix=".pdf", shared=shared) as tmp_path:
        tmp = str(tmp_path)
        writer = QPdfWriter(tmp)
        writer.setResolution(RESOLUTION_DPI)
        writer.setCreator(creator)
        if title:
            writer.setTitle(title)
        layout = QPageLayout(QPageSize(QPageSize.PageSizeId.A4), QPageLayout.Orientation.Portrait,
                             QMarginsF(PAGE_MARGIN_MM, PAGE_MARGIN_MM, PAGE_MARGIN_MM, PAGE_MARGIN_MM),
                             QPageLayout.Unit.Millimeter)
        writer.setPageLayout(layout)
        mono = ", ".join(f'"{f}"' for f in MONO_FONT_FAMILIES + (SHIPPED_MONO_FAMILY,) + SHIPPED_FAMILIES)
        page_size = QSizeF(writer.pageLayout().paintRectPixels(writer.resolution()).size())

        def make_doc(moves: dict[int, float], device: QPdfWriter = writer) -> QTextDocument:
            doc = QTextDocument()
            doc.setDefaultFont(report_font())
            doc.setDocumentMargin(0)
            # Qt's rich text has no "margin" on <body>; the page layout gives the margins instead
            doc.setDefaultStyleSheet(f"body {{ margin: 0; }} pre, code {{ font-family: {mono}, monospace; }}")
            # lay the text out on the writer itself (its resolution: a 10 pt font is 10 pt on paper)
            # and on its page's printable size; without a page size print_() would add 2 cm margins
            doc.documentLayout().setPaintDevice(device)
            doc.setHtml(html)
            _move_down(doc, moves)  # before the layout (see paginate)
            doc.setPageSize(page_size)
            return doc

        doc, _moved = paginate(make_doc)
        doc.print_(writer)
        del writer  # finishes the file
        if os.path.getsize(tmp) == 0:
            raise PdfError(f"Qt wrote an empty PDF for {target}")
    return target


__all__ = ["PdfError", "ensure_gui_app", "register_shipped_fonts", "system_hangul_families", "report_font",
           "hangul_font_available", "render_pdf", "paginate", "SHIPPED_FAMILIES", "SHIPPED_HANGUL_FAMILY", "SHIPPED_SYMBOL_FAMILY",
           "SHIPPED_MONO_FAMILY"]
