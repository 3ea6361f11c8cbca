"""The class table as CSV (for a spreadsheet) and as one self-contained HTML page.

Why self-contained: the page is mailed around and opened from a USB stick in a lab with no
network, so it has no external assets: the styles, a few lines of script that sort the table
when a heading is clicked, and the GPU-tier plot as SVG drawn here. Every string from a
student's file (file name, OS, GPU name, versions, ids) is untrusted and escaped
(:func:`html.escape`, quotes included) before it reaches the page; the script reads only the
cells' text. The CSV starts with a UTF-8 BOM so Excel shows Hangul, and a cell that a
spreadsheet would run as a formula is quoted with ``'``: one whose first character -- or the first
of any of its lines, after leading blanks, quotes and control characters, which some imports trim
before they evaluate -- is ``=``, ``+``, ``-``, ``@``, a tab or a carriage return (OWASP's list).
"""

from __future__ import annotations

import csv
import io
import re
from html import escape

from wizard import __version__
from wizard.core.base.i18n import t
from wizard.core.classroom.table import ClassTable, Group, Row, family_fix, family_title, lesson_title, tier_text
from wizard.core.report.fonts import SANS_FAMILIES, font_face_css

COLUMNS = ("student", "status", "os", "gpu", "vram", "driver", "build", "verify", "families", "colab")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_FORMULA_LINE = re.compile(r"(?:^|[\r\n])[\s\"'\x00-\x1f\x7f]*[=+\-@]")


def _gib(nbytes: int | None) -> str:
    return f"{nbytes / 2**30:.1f} GiB" if nbytes else "—"


def cells(row: Row, lang: str) -> list[str]:
    """The row's cells as text, in :data:`COLUMNS` order (the CSV and the page show the same)."""
    f = row.student.facts
    gpu = "; ".join(g.name or "NVIDIA GPU" for g in f.gpus) or t("class_view.no_gpu", lang)
    driver = f.driver or "—"
    if f.cuda_driver:
        driver += f" (CUDA {f.cuda_driver})"
    v = f.verify
    if v is None:
        verify = t("class_view.verify.not_run", lang)
    elif v.failed:
        verify = t("class_view.verify.fail", lang, failed=v.failed, total=v.passed + v.warned + v.failed + v.skipped)
    else:
        verify = t("class_view.verify.pass", lang, passed=v.passed)
    lessons = [lesson_title(x, lang) for x in row.colab]
    lessons += [t("class_view.cloud_mark", lang, lesson=lesson_title(x, lang)) for x in row.cloud]
    label = row.student.label + ("" if row.student.from_facts else " " + t("class_view.old_report", lang))
    for dup in row.student.duplicates:  # kept, and said: the instructor decides which is the real one
        label += " " + t("class_view.dup.mark", lang, why=dup.text(lang))
    return [label, t("class_view.status.ready" if row.ready else "class_view.status.help", lang), f.os or "—", gpu,
            _gib(f.vram_bytes), driver, f.build or "—", verify, ", ".join(row.families) or "—",
            ", ".join(lessons) or "—"]


def headings(lang: str) -> list[str]:
    return [t(f"class_view.col.{c}", lang) for c in COLUMNS]


def _csv_cell(text: str) -> str:
    """``text`` as a cell no spreadsheet runs: see the module docstring."""
    return "'" + text if text.startswith(_FORMULA_START) or _FORMULA_LINE.search(text) else text


def render_csv(table: ClassTable, lang: str) -> str:
    """The table as CSV text (the caller writes it with a BOM: ``utf-8-sig``)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(headings(lang))
    for row in table.rows:
        writer.writerow([_csv_cell(c) for c in cells(row, lang)])
    return out.getvalue()


# --- HTML -----------------------------------------------------------------------------------------

_FONTS = 'system-ui,"Noto Sans CJK KR","Malgun Gothic",sans-serif'
_STYLE = """
body{font-family:%s;margin:24px;color:#1b1f24}
h1{font-size:1.5em}h2{font-size:1.15em;margin-top:1.6em}
table{border-collapse:collapse;font-size:.9em}th,td{border:1px solid #ccd;padding:4px 8px;text-align:left;
vertical-align:top}th{background:#eef1f6;cursor:pointer;user-select:none}th:after{content:" \\2195";color:#99a}
tr.help td.status{background:#fde2e1;color:#8a1c14;font-weight:600}tr.ready td.status{background:#dcf3e1;color:#17602e}
.summary li{margin-bottom:.6em}.fix{white-space:pre-line;color:#333;margin-left:1em}.muted{color:#667}
.layout{display:flex;gap:32px;flex-wrap:wrap;align-items:flex-start}
td.status,td.vram,td.build,td.verify,td.driver{white-space:nowrap}td.colab{font-size:.92em;min-width:16em}
"""

# Sort on a heading click: numbers by data-sort when a cell has one, else text in the page's language.
_SCRIPT = """
document.querySelectorAll("table.sortable th").forEach(function(th,i){th.addEventListener("click",function(){
var tb=th.closest("table").tBodies[0],rows=Array.from(tb.rows),asc=th.dataset.dir!=="asc";th.dataset.dir=asc?"asc":"desc";
var key=function(r){var c=r.cells[i];return c.dataset.sort!==undefined?parseFloat(c.dataset.sort):c.textContent;};
rows.sort(function(a,b){var x=key(a),y=key(b);var d=(typeof x==="number")?x-y:String(x).localeCompare(String(y));
return asc?d:-d;});rows.forEach(function(r){tb.appendChild(r);});});});
"""


def tier_svg(table: ClassTable, lang: str) -> str:
    """A horizontal bar chart of the GPU tiers, as inline SVG."""
    counts = table.tier_counts()
    top = max([c for _, c in counts] + [1])
    bar_w, label_w, row_h = 320, 150, 26
    height = row_h * len(counts) + 36
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{label_w + bar_w + 70}" height="{height}" '
             f'role="img" aria-label="{escape(t("class_view.plot.title", lang))}">',
             f'<text x="0" y="16" font-size="14" font-weight="600">{escape(t("class_view.plot.title", lang))}</text>']
    for i, (tier, count) in enumerate(counts):
        y = 30 + i * row_h
        w = round(bar_w * count / top)
        colour = "#9aa4b2" if tier == "none" else "#3b7dd8"
        parts.append(f'<text x="{label_w - 8}" y="{y + 15}" font-size="12" text-anchor="end">'
                     f'{escape(tier_text(tier, lang))}</text>')
        parts.append(f'<rect x="{label_w}" y="{y + 2}" width="{max(w, 1)}" height="{row_h - 8}" fill="{colour}" '
                     f'class="tier" data-tier="{escape(tier)}"/>')
        parts.append(f'<text x="{label_w + max(w, 1) + 6}" y="{y + 15}" font-size="12">'
                     f'{escape(t("class_view.plot.count", lang, count=count))}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _group_html(group: Group, lang: str) -> str:
    fix = family_fix(group, lang)
    fix_html = (escape(t("class_view.summary.fix", lang, text=fix)) if fix
                else f'<span class="muted">{escape(t("class_view.summary.no_fix", lang))}</span>')
    line = t("class_view.summary.group_line", lang, title=family_title(group, lang), family=group.family,
             count=len(group.labels))
    names = t("class_view.summary.students", lang, names=", ".join(group.labels))
    return (f'<li data-family="{escape(group.family)}"><b>{escape(line)}</b><div class="fix">{fix_html}</div>'
            f'<div class="muted">{escape(names)}</div></li>')


def _summary_html(table: ClassTable, lang: str) -> list[str]:
    total = len(table.rows)
    out = [f'<h2>{escape(t("class_view.summary.heading", lang))}</h2>',
           f'<p id="counts">{escape(t("class_view.summary.counts", lang, ready=table.ready, total=total, help=table.need_help, skipped=len(table.roster.skipped)))}</p>',
           '<div class="layout"><div class="summary">',
           f'<h2>{escape(t("class_view.summary.groups", lang))}</h2>']
    if table.groups:
        out.append("<ul>" + "".join(_group_html(g, lang) for g in table.groups) + "</ul>")
    else:
        out.append(f'<p>{escape(t("class_view.summary.all_ready", lang))}</p>')
    out.append(f'<h2>{escape(t("class_view.summary.colab", lang))}</h2>')
    colab = table.colab_counts()
    if colab:
        out.append("<ul>" + "".join(f"<li>{escape(t('class_view.summary.colab_line', lang, lesson=lesson_title(k, lang), count=c))}</li>"
                                   for k, c in colab) + "</ul>")
    else:
        out.append(f'<p>{escape(t("class_view.summary.colab_none", lang))}</p>')
    out.append(f'</div><div class="plot">{tier_svg(table, lang)}</div></div>')
    return out


def _table_html(table: ClassTable, lang: str) -> list[str]:
    out = [f'<h2>{escape(t("class_view.table.heading", lang))}</h2>', '<table class="sortable" id="students"><thead><tr>']
    out += [f"<th>{escape(h)}</th>" for h in headings(lang)]
    out.append("</tr></thead><tbody>")
    for row in table.rows:
        texts = cells(row, lang)
        tds = []
        for name, text in zip(COLUMNS, texts):
            sort = ""
            if name == "vram":
                sort = f' data-sort="{row.student.facts.vram_bytes or 0}"'
            tds.append(f'<td class="{name}"{sort}>{escape(text)}</td>')
        out.append(f'<tr class="{"ready" if row.ready else "help"}">{"".join(tds)}</tr>')
    out.append("</tbody></table>")
    return out


def render_html(table: ClassTable, lang: str, when: str) -> str:
    """The whole page: summary (counts, help groups with their fix, Colab lessons, tier plot),
    the sortable table, then the skipped files, each with its reason."""
    title = t("class_view.title", lang, count=len(table.rows))
    body = [f"<h1>{escape(title)}</h1>",
            f'<p class="muted">{escape(t("class_view.generated", lang, when=when, generator=f"gpu-setup-wizard {__version__}"))}</p>']
    body += _summary_html(table, lang)
    body += _table_html(table, lang)
    if table.roster.skipped:
        body.append(f'<h2>{escape(t("class_view.skipped.heading", lang))}</h2><ul id="skipped">')
        body += [f"<li>{escape(t('class_view.skipped.line', lang, file=s.file, reason=s.reason.text(lang)))}</li>"
                 for s in table.roster.skipped]
        body.append("</ul>")
    text = "\n".join(body)
    # Hangul on a PC without a Korean font: the shipped fonts embedded and named first, as in the
    # report's HTML (wizard/core/report/fonts.py says why first)
    face = font_face_css(title + text)
    fonts = ",".join(f'"{f}"' for f in SANS_FAMILIES) + "," + _FONTS if face else _FONTS
    return (f'<!DOCTYPE html>\n<html lang="{escape(lang)}"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{escape(title)}</title><style>{face}{_STYLE % fonts}</style></head><body>\n"
            + text + f"\n<script>{_SCRIPT}</script>\n</body></html>\n")


__all__ = ["COLUMNS", "cells", "headings", "render_csv", "render_html", "tier_svg"]
