"""Issue 27.12: a lesson row of the report's judgment (and a checklist row) is never split across
two PDF pages. A report with many long lesson rows is drawn to PDF and read back page by page
with poppler's pdftotext: each row's first and last word are on the same page."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from tests import report_sessions as rs  # noqa: E402
from wizard.app.report import build as build_report  # noqa: E402
from wizard.core.report.document import Item  # noqa: E402
from wizard.core.report.render import render_html  # noqa: E402

pytestmark = [pytest.mark.gui,  # the PDF is drawn by Qt
              pytest.mark.skipif(not shutil.which("pdftotext"), reason="poppler-utils (pdftotext) is not installed")]


@pytest.fixture(autouse=True)
def _qt_application(request):
    """The test process's QApplication first (see tests/unit/test_report_pdf.py)."""
    if request.config.pluginmanager.hasplugin("pytest-qt") or request.config.pluginmanager.hasplugin("qt"):
        request.getfixturevalue("qapp")


def _row(tag: str, n: int) -> str:
    words = " ".join(f"word{n}x{k}" for k in range(18 + n % 7 * 6))  # three to eight lines on A4
    return f"{tag}{n:02d}start {words} {tag}{n:02d}end"


def _pages(path: Path) -> list[str]:
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, timeout=60, check=True).stdout
    count = int(next(line.split()[-1] for line in info.splitlines() if line.startswith("Pages:")))
    return [subprocess.run(["pdftotext", "-f", str(p), "-l", str(p), str(path), "-"], capture_output=True,
                           text=True, timeout=60, check=True).stdout for p in range(1, count + 1)]


def _split_rows(pages: list[str], tag: str, count: int) -> list[str]:
    split = []
    for n in range(count):
        first = [i for i, text in enumerate(pages) if f"{tag}{n:02d}start" in text]
        last = [i for i, text in enumerate(pages) if f"{tag}{n:02d}end" in text]
        assert first and last, f"{tag}{n:02d} is missing from the PDF"
        if first != last:
            split.append(f"{tag}{n:02d}: pages {[i + 1 for i in first]} and {[i + 1 for i in last]}")
    return split


@pytest.mark.skipif(not shutil.which("pdfinfo"), reason="poppler-utils (pdfinfo) is not installed")
def test_no_lesson_or_checklist_row_is_split_across_pages(tmp_path):
    from wizard.report_pdf import render_pdf

    report = build_report(rs.full_session("en"), lang="en", now=rs.NOW)
    sections = {s.id: s for s in report.sections}
    checklist = sections["checklist"]
    checklist.items += [Item(f"extra{n}", f"Line {n}", _row("C", n)) for n in range(24)]
    judgment = sections["judgment"]
    judgment.items[-1].details = [_row("L", n) for n in range(40)]
    path = render_pdf(render_html(report, for_qt=True), tmp_path / "report.pdf", title=report.title)
    pages = _pages(path)
    assert len(pages) >= 6  # the rows reach several page ends
    split = _split_rows(pages, "C", 24) + _split_rows(pages, "L", 40)
    assert not split, split
