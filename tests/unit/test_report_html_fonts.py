"""An exported HTML report draws its Hangul on a PC without a Korean font: the shipped fonts are
embedded and named first (as the window and the PDF use them), and they have every character the
report uses. (Seen in Chromium under a fontconfig with DejaVu only: named after the system fonts,
a run mixing Latin and Hangul came out as boxes.)"""

from __future__ import annotations

import re

import pytest

from tests import report_sessions as rs
from tests.html_fonts import embedded_faces as _faces
from wizard.app.report import build as build_report
from wizard.app.report import render
from wizard.core.base.resources import resource_path
from wizard.core.report.document import Report, Section
from wizard.core.report.fonts import EMBEDDED_FONTS


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_a_report_with_hangul_embeds_the_shipped_fonts_and_names_them_first(lang):
    page = render(build_report(rs.full_session(lang), lang=lang, now=rs.NOW), "html")
    faces = _faces(page)
    for family, name, _ in EMBEDDED_FONTS:
        assert faces[family] == resource_path("fonts", name).read_bytes()
    body_font = re.search(r"body \{ font-family: ([^;]+);", page).group(1)
    assert body_font.startswith('"GSW Sans CJK KR", "GSW Symbols", ') and '"Malgun Gothic"' in body_font
    code_font = re.search(r"code \{ font-family: ([^;]+);", page).group(1)
    assert code_font.startswith('"GSW Mono", ') and code_font.endswith('"GSW Sans CJK KR", "GSW Symbols", monospace')
    assert "font-weight: normal" in page and "100 900" not in page  # the browser makes the bold


def test_a_latin_only_document_carries_no_font():
    report = Report(lang="en", generated_at="2026-12-01T10:00:00", title="GPU check", machines=[],
                    sections=[Section("system", "System", paragraphs=["Linux, 16 GB"])], appendices=[])
    page = render(report, "html")
    assert "@font-face" not in page and "GSW Sans CJK KR" not in page


def test_the_preview_for_qt_has_no_embedded_font():
    """Qt's rich text has the shipped fonts registered already; a data URI there is only weight."""
    page = render(build_report(rs.full_session("ko"), lang="ko", now=rs.NOW), "html", for_qt=True)
    assert "@font-face" not in page
