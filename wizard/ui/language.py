"""Which language a widget renders in: its page's session language, asked at each render.

There is no process-wide current language: a page passes its bound ``current_lang`` to the
widgets it makes, so a language switch on the System page reaches every widget on its next
retranslate, and two windows (tests open many) never share a language by accident.
"""

from __future__ import annotations

from typing import Callable

LangOf = Callable[[], str]


def english() -> str:
    """The language of a widget made on its own (tests, the screenshot scripts)."""
    return "en"
