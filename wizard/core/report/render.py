"""The report as Markdown and as one self-contained HTML file.

Markdown keeps the lesson's headings and order (``# GPU/Cloud 환경 점검 결과``, its seven lines,
``## 벤치마크(Benchmark)``, ``## 판단``), so a student can paste it where the lesson asks for the
checklist; the details and the appendices follow. HTML is the same document, styled, with the
benchmark plots embedded as PNG images (``data:`` URIs: one file, nothing to fetch), every text
escaped. The same HTML feeds the window's preview (QTextBrowser) and the PDF (QTextDocument), so
it keeps to what Qt's rich-text engine draws as well as a browser does: tables with cell padding,
class selectors, no flexbox.
"""

from __future__ import annotations

import base64
import html
import re
import struct
from dataclasses import dataclass
from typing import Iterable, Sequence

from wizard.core.base.i18n import t
from wizard.core.report.document import (
    FAIL,
    INFO,
    NOT_RUN,
    PASS,
    SKIP,
    STYLE_CHECKS,
    WARN,
    Block,
    Item,
    Report,
    Section,
    Table,
)
from wizard.core.report.fonts import MONO_FAMILY, SANS_FAMILIES, font_face_css

# Latin text first in a Latin font, Hangul from the first font below that draws it (the families
# of Linux with fonts-noto-cjk, Windows, macOS). Latin first also for a reason in the PDF: with
# Noto Sans CJK as the only family, Qt's PDF writer gave some regular-weight digits no Unicode
# mapping, so "RTX 3060" could not be searched or copied (tests/unit/test_report_pdf.py).
LATIN_FONT_FAMILIES = ("Noto Sans", "DejaVu Sans", "Segoe UI", "Arial", "Helvetica Neue", "Liberation Sans")
CJK_FONT_FAMILIES = ("Noto Sans CJK KR", "Noto Sans KR", "Malgun Gothic", "Apple SD Gothic Neo", "NanumGothic",
                     "Source Han Sans KR")
MONO_FONT_FAMILIES = ("DejaVu Sans Mono", "Consolas", "Menlo", "Noto Sans Mono CJK KR", "D2Coding")
NOWRAP_MAX = 16  # table cells this short without spaces (versions, numbers) are not wrapped
PLOT_MAX_WIDTH = 640  # CSS px; wider plots are scaled down (Qt's rich text needs the width given)

STATUS_COLOURS = {PASS: "#2e7d32", WARN: "#ef6c00", FAIL: "#c62828", SKIP: "#6d6d6d", NOT_RUN: "#6d6d6d",
                  INFO: "#1565c0"}


@dataclass
class Plot:
    """A PNG the caller drew (the benchmark's plots), placed at the end of ``section``."""

    caption: str
    png: bytes
    section: str = "bench_details"


# ---------------------------------------------------------------------------------------------
# Shared
# ---------------------------------------------------------------------------------------------
def _shows_mark(section: Section, item: Item) -> bool:
    """Checklists mark every line; other sections only lines that need attention."""
    if item.status == NOT_RUN:
        return False  # the value already says "not run"
    if section.style == STYLE_CHECKS:
        return True
    return item.status in (WARN, FAIL)


def footer_text(report: Report) -> str:
    privacy = "report.footer.private_included" if report.private_included else "report.footer.private_hidden"
    return t("report.footer", report.lang, generator=report.generator, time=report.generated_at.replace("T", " "),
             privacy=t(privacy, report.lang))


def _appendix_heading(report: Report, index: int, block: Block) -> str:
    letter = chr(ord("A") + index) if index < 26 else str(index + 1)
    return t("report.appendix.heading", report.lang, letter=letter, title=block.title)


# ---------------------------------------------------------------------------------------------
# Markdown
# ---------------------------------------------------------------------------------------------
_CODE_SPAN = re.compile(r"(`[^`\n]+`)")  # `pip install ...` in message texts: shown as code
_MD_LINE_START = re.compile(r"^(\s*)([#>+\-=]|\d+[.)])(?=\s|$)")
_ASCII_PUNCT = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def _md_escape_plain(text: str) -> str:
    out = []
    for i, ch in enumerate(text):
        prev = text[i - 1] if i else ""
        nxt = text[i + 1] if i + 1 < len(text) else ""
        if ch == "\\":
            out.append("\\\\" if nxt in _ASCII_PUNCT and nxt else ch)  # C:\Users stays readable
        elif ch in "*<`":
            out.append("\\" + ch)
        elif ch == "_" and not (prev.isalnum() and nxt.isalnum()):
            out.append("\\_")
        elif ch == "]" and nxt == "(":
            out.append("\\]")
        else:
            out.append(ch)
    return "".join(out)


def md_escape(text: str) -> str:
    """Escape what Markdown would read as markup, and no more, so the file still reads well as
    plain text: underscores inside words (``amp_fp16``) and backslashes of Windows paths stay as
    they are (CommonMark reads neither as markup); `code spans` of message texts are kept."""
    parts = _CODE_SPAN.split(text)
    out = "".join(part if i % 2 else _md_escape_plain(part) for i, part in enumerate(parts))
    return _MD_LINE_START.sub(r"\1\\\2", out)


def _md_lines(text: str) -> list[str]:
    return [md_escape(line) for line in text.splitlines() if line.strip()] or [""]


def _md_fence(text: str) -> str:
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def _md_item(report: Report, section: Section, item: Item) -> list[str]:
    value_lines = _md_lines(item.value) if item.value else []
    head = f"- {md_escape(item.label)}:"
    if _shows_mark(section, item):
        head += f" **{t('report.status.' + item.status, report.lang)}**"
        if value_lines:
            head += " —"
    if value_lines:
        head += " " + value_lines[0]
    out = [head]
    out += [f"  {line}" for line in value_lines[1:]]
    for detail in item.details:
        lines = _md_lines(detail)
        out.append(f"  - {lines[0]}")
        out += [f"    {line}" for line in lines[1:]]
    return out


def _md_cell(text: str) -> str:
    return " ".join(md_escape(text).replace("|", "\\|").split()) or " "


def _md_table(table: Table) -> list[str]:
    out = []
    if table.caption:
        out += [f"*{md_escape(table.caption)}*", ""]
    out.append("| " + " | ".join(_md_cell(c) for c in table.columns) + " |")
    out.append("|" + "|".join("---" for _ in table.columns) + "|")
    for row in table.rows:
        cells = list(row) + [""] * (len(table.columns) - len(row))
        out.append("| " + " | ".join(_md_cell(c) for c in cells) + " |")
    return out


def _md_block(report: Report, block: Block, heading: str | None = None, level: int = 3) -> list[str]:
    out = [f"{'#' * level} {md_escape(heading or block.title)}", ""]
    if block.text is None or not block.text.strip():
        out.append(md_escape(block.empty_note or t("report.not_run", report.lang)))
        return out
    fence = _md_fence(block.text)
    return out + [fence + "text", block.text.rstrip("\n"), fence]


def _md_section(report: Report, section: Section) -> list[str]:
    out = [f"{'#' * section.level} {md_escape(section.title)}", ""]
    for p in section.paragraphs:
        out += [" ".join(_md_lines(p)), ""]
    if section.items:
        for item in section.items:
            out += _md_item(report, section, item)
        out.append("")
    for table in section.tables:
        out += _md_table(table) + [""]
    for block in section.blocks:
        out += _md_block(report, block) + [""]
    return out


def render_markdown(report: Report) -> str:
    """The report as Markdown: the lesson's checklist first, then the details and appendices."""
    out: list[str] = []
    for section in report.sections:
        out += _md_section(report, section)
    for i, block in enumerate(report.appendices):
        out += _md_block(report, block, _appendix_heading(report, i, block), level=2) + [""]
    out += ["---", "", f"*{md_escape(footer_text(report))}*", ""]
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------
# HTML
# ---------------------------------------------------------------------------------------------
def _css(for_qt: bool, embedded: bool = False) -> str:
    """``embedded``: the page carries the shipped fonts (:mod:`wizard.core.report.fonts`), named first."""
    first, mono_first = (SANS_FAMILIES, (MONO_FAMILY,)) if embedded else ((), ())
    sans = ", ".join(f'"{f}"' for f in first + LATIN_FONT_FAMILIES + CJK_FONT_FAMILIES) + ", sans-serif"
    # Qt's rich text: the page (PDF) or the viewer (preview) gives the margins; its line-height
    # spreads list items far apart, so it keeps its own
    body_extra = "" if for_qt else " line-height: 1.45; margin: 24px; max-width: 60em;"
    mono = ", ".join(f'"{f}"' for f in mono_first + MONO_FONT_FAMILIES + first) + ", monospace"
    if for_qt:  # coloured words: Qt paints an inline background a pixel onto the page above a page break
        marks = "\n".join(f".st-{s} {{ color: {c}; font-weight: bold; }}" for s, c in STATUS_COLOURS.items())
    else:
        marks = "\n".join(f".st-{s} {{ background-color: {c}; color: #ffffff; font-weight: bold; padding: 0 5px; "
                          f"border-radius: 3px; }}" for s, c in STATUS_COLOURS.items())
    cells = "\n".join(f"td.st-{s} {{ color: {c}; background-color: transparent; }}"
                      for s, c in STATUS_COLOURS.items())
    return f"""
body {{ font-family: {sans}; font-size: 10.5pt; color: #1f2328;{body_extra} }}
h1 {{ font-size: 18pt; margin-top: 0; margin-bottom: 8px; color: #0b3d91; }}
h2 {{ font-size: 13.5pt; margin-top: 20px; margin-bottom: 6px; color: #0b3d91;
      border-bottom: 1px solid #c9d3e3; }}
h3 {{ font-size: 11pt; margin-top: 12px; margin-bottom: 4px; }}
p {{ margin-top: 4px; margin-bottom: 6px; }}
ul {{ margin-top: 2px; margin-bottom: 6px; }}
li {{ margin-bottom: 2px; }}
ul.details {{ color: #424a53; font-size: 9.5pt; }}
.label {{ font-weight: bold; }}
.notrun {{ color: #6d6d6d; font-style: italic; }}
.caption {{ color: #424a53; font-size: 9.5pt; font-style: italic; }}
table.data {{ border-collapse: collapse; margin-top: 4px; margin-bottom: 10px; font-size: 9pt; }}
table.data th {{ background-color: #e8eef7; text-align: left; font-weight: bold; }}
table.data th, table.data td {{ border: 1px solid #c9d3e3; padding: 3px 6px; vertical-align: top; }}
td.st {{ font-weight: bold; white-space: nowrap; }}
td.nw {{ white-space: nowrap; }}
code {{ font-family: {mono}; font-size: 9pt; background-color: #f0f2f5; }}
pre {{ font-family: {mono}; font-size: 8pt; background-color: #f4f6f8; border: 1px solid #d0d7de;
       padding: 6px; white-space: pre-wrap; }}
.footer {{ color: #6d6d6d; font-size: 8.5pt; margin-top: 18px; }}
{marks}
{cells}
"""


def _e(text: str) -> str:
    """Escape for HTML; `code spans` of message texts become <code>."""
    parts = _CODE_SPAN.split(text)
    return "".join(f"<code>{html.escape(part[1:-1], quote=True)}</code>" if i % 2 else html.escape(part, quote=True)
                   for i, part in enumerate(parts))


def _e_lines(text: str) -> str:
    return "<br>".join(_e(line) for line in text.splitlines()) if text else ""


STATUS_SYMBOLS = {PASS: "✓", WARN: "⚠", FAIL: "✗", SKIP: "–", INFO: "•", NOT_RUN: "–"}


def _html_mark(report: Report, status: str) -> str:
    word = t(f"report.status.{status}", report.lang)
    return f'<span class="st-{status}">{STATUS_SYMBOLS.get(status, "")}&nbsp;{_e(word)}</span>'


def _html_item(report: Report, section: Section, item: Item) -> str:
    parts = [f'<span class="label">{_e(item.label)}:</span> ']
    if _shows_mark(section, item):
        parts.append(_html_mark(report, item.status) + " ")
    if item.value:
        value = _e_lines(item.value)
        parts.append(f'<span class="notrun">{value}</span>' if item.status == NOT_RUN else value)
    if item.details:
        parts.append('<ul class="details">' + "".join(f"<li>{_e_lines(d)}</li>" for d in item.details) + "</ul>")
    return f'<li id="{_e(section.id)}-{_e(item.id)}">' + "".join(parts) + "</li>"


def _html_table(report: Report, table: Table) -> str:
    out = []
    if table.caption:
        out.append(f'<p class="caption">{_e(table.caption)}</p>')
    # borders from the cells (CSS, collapsed); 99%: Qt adds the borders to a 100% table, which
    # then overflows the preview by a pixel or two and grows a horizontal scroll bar
    out.append(f'<table class="data" id="table-{_e(table.id)}" width="99%" cellspacing="0" cellpadding="4">')
    out.append("<tr>" + "".join(f"<th>{_e(c)}</th>" for c in table.columns) + "</tr>")
    for i, row in enumerate(table.rows):
        status = table.row_status[i] if i < len(table.row_status) else None
        cells = []
        for j, cell in enumerate(list(row) + [""] * (len(table.columns) - len(row))):
            cls = f' class="st st-{status}"' if status and j == 0 else ""
            if not cls and len(cell) <= NOWRAP_MAX and not any(ch.isspace() for ch in cell):
                cls = ' class="nw"'  # a version or a number: never broken in the middle
            cells.append(f"<td{cls}>{_e_lines(cell)}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def _html_block(report: Report, block: Block, heading: str, level: int) -> str:
    head = f'<h{level} id="block-{_e(block.id)}">{_e(heading)}</h{level}>'
    if block.text is None or not block.text.strip():
        return head + f'\n<p class="notrun">{_e(block.empty_note or t("report.not_run", report.lang))}</p>'
    return head + f"\n<pre>{_e(block.text.rstrip())}</pre>"


def png_size(png: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG's header, None when it is not a PNG."""
    if len(png) < 24 or png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", png[16:24])


def _html_plot(plot: Plot) -> str:
    size = png_size(plot.png)
    if size is None:
        raise ValueError(f"plot {plot.caption!r} is not a PNG image")
    width, height = size
    if width > PLOT_MAX_WIDTH:
        width, height = PLOT_MAX_WIDTH, round(height * PLOT_MAX_WIDTH / width)
    data = base64.b64encode(plot.png).decode("ascii")
    return (f'<p><img src="data:image/png;base64,{data}" width="{width}" height="{height}" '
            f'alt="{_e(plot.caption)}"><br><span class="caption">{_e(plot.caption)}</span></p>')


def _html_section(report: Report, section: Section, plots: Iterable[Plot]) -> str:
    level = max(1, min(6, section.level))
    out = [f'<h{level} id="{_e(section.id)}">{_e(section.title)}</h{level}>']
    for p in section.paragraphs:
        cls = ' class="notrun"' if section.status == NOT_RUN else ""
        out.append(f"<p{cls}>{_e_lines(p)}</p>")
    if section.items:
        out.append("<ul>" + "\n".join(_html_item(report, section, i) for i in section.items) + "</ul>")
    out += [_html_table(report, table) for table in section.tables]
    out += [_html_block(report, b, b.title, min(6, level + 1)) for b in section.blocks]
    out += [_html_plot(p) for p in plots]
    return "\n".join(out)


def render_html(report: Report, plots: Sequence[Plot] = (), *, for_qt: bool = False) -> str:
    """One self-contained HTML file (inline style, images as data: URIs, no scripts).
    ``for_qt``: for Qt's rich-text engine (the preview and the PDF), which lays out a little
    differently from a browser; the content is the same."""
    ids = {s.id for s in report.sections}
    placed: dict[str, list[Plot]] = {}
    for plot in plots:
        target = plot.section if plot.section in ids else report.sections[-1].id
        placed.setdefault(target, []).append(plot)
    body = [_html_section(report, s, placed.get(s.id, [])) for s in report.sections]
    body += [_html_block(report, b, _appendix_heading(report, i, b), 2) for i, b in enumerate(report.appendices)]
    body.append(f'<p class="footer">{_e(footer_text(report))}</p>')
    text = "\n".join(body)
    # a browser on a PC without a Korean font: the shipped fonts, embedded (Qt's engine, for the
    # preview and the PDF, has them registered already and no @font-face)
    face = "" if for_qt else font_face_css(report.title + text)
    return (f'<!DOCTYPE html>\n<html lang="{_e(report.lang)}">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="generator" content="{_e(report.generator)}">\n<title>{_e(report.title)}</title>\n'
            f"<style>{face}{_css(for_qt, bool(face))}</style>\n</head>\n<body>\n" + text + "\n</body>\n</html>\n")


__all__ = ["Plot", "render_markdown", "render_html", "md_escape", "png_size", "footer_text", "LATIN_FONT_FAMILIES",
           "CJK_FONT_FAMILIES",
           "MONO_FONT_FAMILIES", "STATUS_COLOURS"]
