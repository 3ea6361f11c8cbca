"""One message catalogue for Korean and English, shared by the CLI and the GUI.

Why not Qt's tr(): ``wizard.core`` must never import Qt, yet findings, reasons and report
lines are written there. So every user-visible string lives in ``resources/i18n/*.json``
as ``{"key": {"en": "...", "ko": "..."}}`` (one file per area, so features do not collide),
and both front ends call :func:`t`. Placeholders use ``str.format`` names: ``{driver}``.

tests/unit/test_i18n.py checks that every key has both languages with the same
placeholders, and that every ``t("...")`` literal in the source exists in the catalogue.
"""

from __future__ import annotations

import json
import locale
import os
from functools import lru_cache
from typing import Mapping

from wizard.core.base.resources import resource_path

LANGUAGES = ("ko", "en")
_current = "en"


class CatalogueError(RuntimeError):
    """The catalogue is malformed (duplicate key, missing language)."""


@lru_cache(maxsize=1)
def catalogue() -> dict[str, dict[str, str]]:
    """All messages, merged from every ``resources/i18n/*.json``; duplicates are an error."""
    merged: dict[str, dict[str, str]] = {}
    folder = resource_path("i18n")
    for path in sorted(folder.glob("*.json")):
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        for key, value in data.items():
            if key.startswith("_"):
                continue  # "_comment" and the like
            if key in merged:
                raise CatalogueError(f"duplicate message key {key!r} in {path.name}")
            merged[key] = value
    return merged


def normalise_lang(lang: str | None) -> str:
    """'ko', 'ko_KR.UTF-8', 'Korean_Korea.949' → 'ko'; anything else → 'en'."""
    if not lang:
        return "en"
    low = lang.lower()
    if low.startswith("ko") or low.startswith("korean"):
        return "ko"
    return "en"


def detect_lang(environ: Mapping[str, str] | None = None) -> str:
    """The user's language: GSW_LANG, then LC_ALL/LC_MESSAGES/LANG, then the OS locale.

    Korean Windows reports 'Korean_Korea' (or 'ko_KR') from :func:`locale.getlocale`.
    """
    env = os.environ if environ is None else environ
    for name in ("GSW_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name)
        if value and value not in ("C", "POSIX", "C.UTF-8"):
            return normalise_lang(value)
    if environ is not None:
        return "en"  # an injected environment decides alone
    try:
        loc = locale.getlocale()[0]
    except ValueError:
        loc = None
    return normalise_lang(loc)


def set_language(lang: str) -> None:
    """Set the process-wide language ('ko' or 'en')."""
    global _current
    _current = normalise_lang(lang)


def language() -> str:
    return _current


def t(key: str, lang: str | None = None, /, **params: object) -> str:
    """The message ``key`` in ``lang`` (default: the current language), formatted with params.

    An unknown key returns the key itself, so a missing translation shows up in the UI and
    in tests instead of crashing a student's run.
    """
    entry = catalogue().get(key)
    if entry is None:
        return key
    text = entry.get(normalise_lang(lang) if lang else _current) or entry.get("en") or key
    if params:
        try:
            return text.format(**params)
        except (KeyError, IndexError, ValueError):
            return text
    return text
