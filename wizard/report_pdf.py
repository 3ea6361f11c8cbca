"""The report as PDF, written by Qt's own PDF writer from the report's HTML.

Why Qt and not a PDF library: the wizard already ships Qt, and QTextDocument lays out the same
HTML the window previews, so the PDF is what the student saw. Qt embeds the fonts it draws with
(subsets, with their Unicode maps), so the Korean text is in the file and can be selected,
searched and copied; the document's default font is a list of families that draw Hangul on each
system (Noto Sans CJK KR on Linux from fonts-noto-cjk, Malgun Gothic on Windows, Apple SD
Gothic Neo on macOS), and Qt falls back along it.

Qt is imported inside the functions: ``wizard.core`` never imports Qt, and the CLI loads this
module only for ``report --format pdf``. Without a display (a server, Colab, SSH) a
QGuiApplication on the ``offscreen`` platform is enough.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from wizard.core.base.files import atomic_path
from wizard.core.report.render import CJK_FONT_FAMILIES, LATIN_FONT_FAMILIES, MONO_FONT_FAMILIES

PAGE_MARGIN_MM = 15.0
RESOLUTION_DPI = 300
BASE_POINT_SIZE = 10.0


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


def report_font(point_size: float = BASE_POINT_SIZE) -> Any:
    """A QFont: a Latin family installed here, then the families that draw Hangul here (Qt falls
    back along the list per character), then sans-serif."""
    from PySide6.QtGui import QFont, QFontDatabase

    installed = set(QFontDatabase.families())
    latin = [f for f in LATIN_FONT_FAMILIES if f in installed][:1]
    families = latin + ([f for f in CJK_FONT_FAMILIES if f in installed] or list(CJK_FONT_FAMILIES))
    font = QFont()
    font.setFamilies(families + ["sans-serif"])
    font.setStyleHint(QFont.StyleHint.SansSerif)
    font.setPointSizeF(point_size)
    return font


def hangul_font_available() -> bool:
    """Is a font that draws Hangul installed? (Without one the PDF's Korean would be boxes.)"""
    from PySide6.QtGui import QFontDatabase

    for family in QFontDatabase.families():
        if family in CJK_FONT_FAMILIES or QFontDatabase.WritingSystem.Korean in QFontDatabase.writingSystems(family):
            return True
    return False


def render_pdf(html: str, path: str | os.PathLike[str], *, title: str | None = None,
               creator: str = "gpu-setup-wizard") -> Path:
    """Lay out ``html`` on A4 pages and write the PDF to ``path`` (atomically: a temporary file
    in the same folder, then a rename). Returns the path."""
    ensure_gui_app()
    from PySide6.QtCore import QMarginsF, QSizeF
    from PySide6.QtGui import QPageLayout, QPageSize, QPdfWriter, QTextDocument

    target = Path(path)
    with atomic_path(target, prefix=".tmp-report-", suffix=".pdf") as tmp_path:
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
        doc = QTextDocument()
        doc.setDefaultFont(report_font())
        doc.setDocumentMargin(0)
        mono = ", ".join(f'"{f}"' for f in MONO_FONT_FAMILIES)
        # Qt's rich text has no "margin" on <body>; the page layout gives the margins instead
        doc.setDefaultStyleSheet(f"body {{ margin: 0; }} pre, code {{ font-family: {mono}, monospace; }}")
        # lay the text out on the writer itself (its resolution: a 10 pt font is 10 pt on paper)
        # and on its page's printable size; without a page size print_() would add 2 cm margins
        doc.documentLayout().setPaintDevice(writer)
        doc.setHtml(html)
        doc.setPageSize(QSizeF(writer.pageLayout().paintRectPixels(writer.resolution()).size()))
        doc.print_(writer)
        del writer  # finishes the file
        if os.path.getsize(tmp) == 0:
            raise PdfError(f"Qt wrote an empty PDF for {target}")
    return target


__all__ = ["PdfError", "ensure_gui_app", "report_font", "hangul_font_available", "render_pdf"]
