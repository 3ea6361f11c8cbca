"""The window's fonts: the shipped Hangul font as the fallback where the system has none.

Why: without a font that draws Hangul every Korean string is empty boxes (also "언어" next to
the language menu), and many Linux desktops, WSL and minimal images have none. The wizard ships
a subset of Noto Sans CJK KR and a few symbols (``wizard/resources/fonts``). Registering them
is cheap (measured in a child process after QApplication: the four files about 1 ms; asking Qt
which families draw Korean about 4 ms, but that fills the font database the first paint would
fill anyway, and the first label then paints about 2 ms sooner), so they are always registered;
they are put into the application font's family list
only when no installed family draws Hangul, so a system's own Korean font (Malgun Gothic,
Noto Sans CJK KR, Nanum) keeps drawing the window where there is one.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from PySide6.QtGui import QFont, QFontInfo
from PySide6.QtWidgets import QApplication

from wizard.core.base.i18n import t
from wizard.report_pdf import SHIPPED_FAMILIES, SHIPPED_HANGUL_FAMILY, register_shipped_fonts, system_hangul_families


@dataclass(frozen=True)
class FontSetup:
    """What start-up found and did (for the tests, and for a support question)."""

    shipped: tuple[str, ...]  #: the shipped families Qt accepted
    system_hangul: tuple[str, ...]  #: installed families that draw Hangul (the shipped ones left out)
    fallback_used: bool  #: the application font now falls back to the shipped families

    @property
    def hangul_ok(self) -> bool:
        """Some font draws Hangul: the system's, or the shipped one."""
        return bool(self.system_hangul) or SHIPPED_HANGUL_FAMILY in self.shipped


def fallback_font(base: QFont, shipped: list[str] | tuple[str, ...], resolved: str = "") -> QFont:
    """``base`` with the shipped families after its own (Qt tries them, per character, in order).

    ``resolved`` is the installed family ``base`` stands for: Qt's default family is often an
    alias ("Sans Serif") that is no family of its own, and a list starting with an alias would
    let the shipped font draw the Latin text too.
    """
    font = QFont(base)
    own = [f for f in [resolved, *(base.families() or [base.family()])] if f]
    own = list(dict.fromkeys(own))
    font.setFamilies(own + [f for f in shipped if f not in own])
    return font


def setup_fonts(app: QApplication, lang: str | None = None) -> FontSetup:
    """Register the shipped fonts; when nothing installed draws Hangul, make them the fallback
    of the application font (every widget inherits it). With ``lang``, a machine where no font
    draws Hangul at all (the shipped files missing from a broken install) is told so on stderr,
    with the fix, in ``lang`` and in English (the window itself cannot show the Korean)."""
    system = tuple(system_hangul_families())
    resolved = QFontInfo(app.font()).family()  # before registering: afterwards it may be the shipped one
    shipped = tuple(register_shipped_fonts())
    use = not system and SHIPPED_HANGUL_FAMILY in shipped
    if use:
        app.setFont(fallback_font(app.font(), [f for f in shipped if f in SHIPPED_FAMILIES], resolved))
    setup = FontSetup(shipped=shipped, system_hangul=system, fallback_used=use)
    if lang is not None and not setup.hangul_ok:
        for text in dict.fromkeys((t("window.fonts.no_hangul", lang), t("window.fonts.no_hangul", "en"))):
            print(f"gpu-setup-wizard: {text}", file=sys.stderr)
    return setup


__all__ = ["FontSetup", "fallback_font", "setup_fonts"]
