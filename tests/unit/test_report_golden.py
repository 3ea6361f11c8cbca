"""Golden files: the Markdown and HTML of a fixed session, in Korean and English.

The session is tests/report_sessions.py's full one (every step ran on an RTX 3060; a Colab
`!nvidia-smi` paste added). A change to the report's text or layout shows up here as a diff;
when it is meant, regenerate and read the new files before committing them:

    GSW_REGEN_GOLDEN=1 .venv/bin/python -m pytest tests/unit/test_report_golden.py

The wizard's version is written as ``{version}`` in the files, so a release does not change them.
"""

from __future__ import annotations

import os
import re

import pytest

from tests import report_sessions as rs
from wizard import __version__
from wizard.app.report import build as build_report
from wizard.core.report.remote import machine_from_text
from wizard.core.report.render import Plot, render_html, render_markdown

REGEN = os.environ.get("GSW_REGEN_GOLDEN") == "1"
VERSION_MARK = "{version}"
# the embedded fonts' bytes (tests/unit/test_report_html_fonts.py checks them) stand as a mark
FONT_DATA = re.compile(r'url\("data:font/(\w+);base64,[A-Za-z0-9+/=]+"\)')


def report_of(lang: str):
    session = rs.full_session(lang)
    session.remotes = [machine_from_text(rs.colab_smi_text(), label="colab.txt")]
    return build_report(session, lang=lang, now=rs.NOW)


def _compare(name: str, text: str) -> None:
    text = text.replace(f"gpu-setup-wizard {__version__}", f"gpu-setup-wizard {VERSION_MARK}")
    text = FONT_DATA.sub(r'url("data:font/\1;base64,{shipped font}")', text)
    path = rs.REPORT_DATA / name
    if REGEN:
        path.write_text(text, encoding="utf-8", newline="\n")
        pytest.skip(f"regenerated {path.name}: read it before committing")
    assert path.exists(), f"{path.name} is missing; make it with GSW_REGEN_GOLDEN=1"
    expected = path.read_text(encoding="utf-8")
    if text != expected:  # the first differing line, for a readable failure
        for i, (a, b) in enumerate(zip(text.splitlines(), expected.splitlines()), 1):
            assert a == b, f"{name} line {i} differs"
        assert len(text.splitlines()) == len(expected.splitlines()), f"{name}: line count differs"
    assert text == expected


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_markdown(lang):
    _compare(f"full_{lang}.md", render_markdown(report_of(lang)))


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_html(lang):
    _compare(f"full_{lang}.html", render_html(report_of(lang)))


def test_the_html_is_one_self_contained_file_with_the_plots():
    """Images inline as data: URIs; no script, no stylesheet or image fetched from anywhere."""
    import base64

    png = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAIAAAB7QOjdAAAADklEQVR4nGP4z8DAwMAAAAUFAQB4Vg8xAAAAAElFTkSu"
                           "QmCC")
    html = render_html(report_of("ko"), [Plot("행렬 곱 속도", png)])
    assert html.count("data:image/png;base64,") == 1
    assert base64.b64encode(png).decode() in html
    assert not re.search(r"<script|<link|src=\"http|url\((?!\"data:font/)", html, re.IGNORECASE)
    assert html.index("data:image/png") > html.index('id="bench_details"')
    with pytest.raises(ValueError):
        render_html(report_of("en"), [Plot("not a png", b"GIF89a....")])


def test_text_is_escaped_in_html_and_markdown():
    from wizard.core.report.document import Item

    report = report_of("en")
    report.section("checklist").items.append(Item("x", "<b>label</b>", "a <script>alert(1)</script> & *b* `code`"))
    html = render_html(report)
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt; &amp;" in html
    assert "<code>code</code>" in html and "&lt;b&gt;label&lt;/b&gt;" in html
    md = render_markdown(report)
    assert "- \\<b>label\\</b>: a \\<script>alert(1)\\</script> & \\*b\\* `code`" in md
