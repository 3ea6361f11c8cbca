"""The fonts a Korean HTML report embeds draw every character it uses (Qt reads the embedded
bytes back; the tests of what is embedded are tests/unit/test_report_html_fonts.py)."""

from __future__ import annotations

from tests import report_sessions as rs
from tests.html_fonts import embedded_faces as _faces
from tests.html_fonts import visible_text as _visible_text
from wizard.app.report import build as build_report
from wizard.app.report import render


def test_the_embedded_fonts_draw_every_character_of_a_korean_report(qapp):
    from PySide6.QtGui import QFont, QFontDatabase, QFontMetrics

    page = render(build_report(rs.full_session("ko"), lang="ko", now=rs.NOW), "html")
    families = []
    for family, data in _faces(page).items():
        font_id = QFontDatabase.addApplicationFontFromData(data)
        assert font_id >= 0, family
        families += QFontDatabase.applicationFontFamilies(font_id)
    metrics = [QFontMetrics(QFont(f)) for f in families]
    text = _visible_text(page)
    assert "한" in text or "환" in text  # the report really is Korean: something is checked
    missing = sorted({ch for ch in text if ord(ch) > 0x7F and not ch.isspace()
                      and not any(m.inFontUcs4(ord(ch)) for m in metrics)})
    assert missing == []
