"""One message catalogue for Korean and English, shared by the CLI and the GUI.

Why not Qt's tr(): ``wizard.core`` must never import Qt, yet findings, reasons and report
lines are written there. So every user-visible string lives in ``resources/i18n/*.json``
as ``{"key": {"en": "...", "ko": "..."}}`` (one file per area, so features do not collide),
and both front ends call :func:`t`. Placeholders use ``str.format`` names: ``{driver}``.

There is no current language for the core or the command line: whoever renders text passes the
language (``t(key, lang)``, ``Message.text(lang)``); code that builds a sentence before it is
shown keeps a :class:`Message` instead of text.

tests/unit/test_i18n.py checks that every key has both languages with the same
placeholders, and that every ``t("...")`` literal in the source exists in the catalogue.
"""

from __future__ import annotations

import json
import locale
import os
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Mapping

from wizard.core.base.resources import resource_path

LANGUAGES = ("ko", "en")


class CatalogueError(RuntimeError):
    """The catalogue is malformed (duplicate key, missing language)."""


#: The files the window's first page and ``doctor`` take their messages from, read first when a
#: key's own file (below) does not have it. Only an order: a key that is not in them is looked
#: for in the other files (sorted by name).
FIRST_FILES = ("cli.json", "common.json", "window.json", "system.json", "gpu.json", "doctor.json", "diagnosis.json", "finding.json")


def own_file(key: str) -> str:
    """The file a key belongs in: every key starts with its file's name ("history.changes.rerun"
    is in history.json; tests/unit/test_i18n.py checks it), so that file is read first."""
    return key.split(".", 1)[0] + ".json"


class _Catalogue:
    """The merged messages of ``resources/i18n/*.json``, read file by file as keys are asked for.

    Why not all at once: the files hold ~2000 messages (490 kB); parsing them all was a tenth of
    what the first paint spends beyond a bare QWizard and of what ``doctor --json`` spends beyond
    the interpreter (issue 17), and the first page needs the messages of four files. A key's own
    file (:func:`own_file`) is read first, then the others in order until the key is found: the
    first page once read 13 of 22 files (finding.json's 168 kB among them) for its one
    ``history.*`` key, each file one more open and read under wine. A key another file
    defines too is an error (:class:`CatalogueError`) when the second file is read; reading
    everything (:func:`catalogue`, or a key no file has) therefore checks every file.
    Worker threads ask for messages too (the later pages load on one): reading is locked.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.messages: dict[str, dict[str, str]] = {}
        self.pending: list[Path] | None = None  # the files not read yet, in reading order
        self.lock = threading.Lock()

    def entry(self, key: str) -> dict[str, str] | None:
        found = self.messages.get(key)
        if found is None and self.pending != []:
            self._read_until(lambda: key in self.messages, self.folder / own_file(key))
            found = self.messages.get(key)
        return found

    def everything(self) -> dict[str, dict[str, str]]:
        self._read_until(lambda: False)
        return self.messages

    def _read_until(self, done: Callable[[], bool], first: Path | None = None) -> None:
        """Read ``first`` (when not read yet), then the next files until ``done()`` or none is left."""
        with self.lock:
            if self.pending is None:
                self.pending = self._order()
            if first is not None and first in self.pending:
                self.pending.remove(first)
                self._read(first)
            while not done() and self.pending:
                self._read(self.pending.pop(0))

    def _order(self) -> list[Path]:
        names = sorted(n for n in os.listdir(self.folder) if n.endswith(".json"))
        first = [n for n in FIRST_FILES if n in names]
        return [self.folder / n for n in first + [n for n in names if n not in first]]

    def _read(self, path: Path) -> None:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        for key, value in data.items():
            if key.startswith("_"):
                continue  # "_comment" and the like
            if key in self.messages:
                raise CatalogueError(f"duplicate message key {key!r} in {path.name}")
            self.messages[key] = value


@lru_cache(maxsize=1)
def _store() -> _Catalogue:
    return _Catalogue(resource_path("i18n"))


def catalogue() -> dict[str, dict[str, str]]:
    """All messages, merged from every ``resources/i18n/*.json``; duplicates are an error."""
    return _store().everything()


def has(key: str) -> bool:
    """Is there a message ``key``? (Reads the files it needs, every one when there is none.)"""
    return _store().entry(key) is not None


def reload_catalogue() -> None:
    """Forget what was read: the next message is read again from the resources (for a test that
    points them elsewhere)."""
    _store.cache_clear()


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


def t(key: str, lang: str | None, /, **params: object) -> str:
    """The message ``key`` in ``lang`` ('ko' or 'en'; None means English), formatted with params.

    There is no current language: whoever renders passes it. An unknown key returns the key itself, so a missing translation shows up in the UI and
    in tests instead of crashing a student's run.
    """
    entry = _store().entry(key)
    if entry is None:
        return key
    text = entry.get(normalise_lang(lang)) or entry.get("en") or key
    if params:
        try:
            return text.format(**params)
        except (KeyError, IndexError, ValueError):
            return text
    return text


@dataclass(frozen=True)
class Message:
    """A sentence kept as key + parameters, rendered in either language when it is shown.

    Core code builds Messages instead of text so that the language is chosen by whoever renders
    (a CLI command, a page, the report), never at the moment a finding or an error is made.
    Parameters are kept as text; a parameter may itself be a Message (a reason inside a
    sentence), rendered in the same language as the sentence around it.
    """

    key: str
    params: tuple[tuple[str, str | Message], ...] = ()  # each value text, or a Message rendered in place

    @classmethod
    def of(cls, key: str, **params: object) -> "Message":
        return cls(key, tuple(sorted(
            (k, v if isinstance(v, Message) else str(v)) for k, v in params.items())))

    def text(self, lang: str | None) -> str:
        return t(self.key, lang, **self.rendered_params(lang))

    def rendered_params(self, lang: str | None) -> dict[str, str]:
        """The parameters as text in ``lang`` (a nested Message is rendered, not repr'd)."""
        return {k: (v.text(lang) if isinstance(v, Message) else v) for k, v in self.params}

    def param(self, name: str) -> str | Message | None:
        return dict(self.params).get(name)

    def to_json(self) -> dict[str, Any]:
        """The stored form, ``{"$t": key, "params": {...}}`` (history files keep findings so)."""
        return {"$t": self.key, "params": {k: (v.to_json() if isinstance(v, Message) else v)
                                           for k, v in self.params}}

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> "Message":
        params = {k: (cls.from_json(v) if is_message_json(v) else v) for k, v in (doc.get("params") or {}).items()}
        return cls.of(str(doc["$t"]), **params)


def is_message_json(value: object) -> bool:
    """True for the stored form of a :class:`Message` (see :meth:`Message.to_json`)."""
    return isinstance(value, Mapping) and "$t" in value


def msg(key: str, **params: object) -> Message:
    """Shorthand for :meth:`Message.of`; also lets the i18n test find every literal key used."""
    return Message.of(key, **params)


class MessageError(Exception):
    """An error whose explanation is a :class:`Message`, so whoever shows it picks the language.

    ``error.text(lang)`` is what a student reads; ``str(error)`` is English, for logs and
    tracebacks. Subclasses add the built-in base a caller catches (ValueError, IndexError, …).
    """

    def __init__(self, message: Message) -> None:
        self.message = message
        super().__init__(message.key)

    def text(self, lang: str | None) -> str:
        return self.message.text(lang)

    def __str__(self) -> str:
        return self.message.text("en")
