"""The shipped Hangul font, embedded in an HTML file that needs it.

A report's Markdown is text and its PDF embeds the shipped fonts (:mod:`wizard.report_pdf`); an
HTML file is opened in whatever browser the teaching assistant has, on a PC that may have no
Korean font at all (a minimal Linux, a fresh Windows Server, a container): the Hangul came out as
empty boxes. So an HTML export whose text goes beyond Latin-1 carries the wizard's own fonts as
``@font-face`` data URIs (about 850 kB of base64; a text that is all Latin-1 gets nothing) and
names them FIRST: the HTML then looks like the window and the PDF, which use the same fonts.
Named last, after the system fonts, they were not enough: Chromium drew a run that mixes Latin
and Hangul ("벤치마크(Benchmark)") in the system's Latin font and its Hangul as boxes. The
faces are declared for the normal weight only, so the browser makes the bold (declared for
every weight, it drew headings in the regular weight).
"""

from __future__ import annotations

import base64
import functools

from wizard.core.base.resources import resource_path

# (family, file, format): Hangul and the rest of the catalogue's characters; the few symbols
# Noto Sans CJK lacks (✔ ✖ ↻ ...), 15 kB; the monospaced ASCII and box drawing of logs, 22 kB
EMBEDDED_FONTS = (("GSW Sans CJK KR", "GSWSansCJKKR-Regular.otf", "opentype"),
                  ("GSW Symbols", "GSWSymbols-Regular.ttf", "truetype"),
                  ("GSW Mono", "GSWMono-Regular.otf", "opentype"))
SANS_FAMILIES = ("GSW Sans CJK KR", "GSW Symbols")  # first in the text's font list
MONO_FAMILY = "GSW Mono"  # first in the code's list, with SANS_FAMILIES after the system monos


def needs_hangul_font(text: str) -> bool:
    """Whether ``text`` has a character beyond Latin-1 (Hangul, CJK, arrows and the like)."""
    return any(ord(ch) > 0xFF for ch in text)


@functools.lru_cache(maxsize=None)
def font_data_uri(file_name: str) -> str:
    """The shipped font file as a ``data:`` URI."""
    data = resource_path("fonts", file_name).read_bytes()
    kind = "otf" if file_name.endswith(".otf") else "ttf"
    return f"data:font/{kind};base64," + base64.b64encode(data).decode("ascii")


def font_face_css(text: str) -> str:
    """The ``@font-face`` rules that embed the shipped fonts when ``text`` needs them, else ''."""
    if not needs_hangul_font(text):
        return ""
    return "".join(f'@font-face {{ font-family: "{family}"; font-style: normal; font-weight: normal; '
                   f'src: url("{font_data_uri(name)}") format("{fmt}"); }}\n' for family, name, fmt in EMBEDDED_FONTS)


__all__ = ["EMBEDDED_FONTS", "MONO_FAMILY", "SANS_FAMILIES", "font_data_uri", "font_face_css", "needs_hangul_font"]
