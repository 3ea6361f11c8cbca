"""The checks a course profile passes beyond its schema: nesting, numbers, text, lesson ids and
the packages it asks the install to add.

Why: a profile is handed to a whole class by file or URL, and every student's wizard trusts it.
The schema (``course.schema.json``) says which fields exist; these say what no field may hold:

- a nesting deeper than :data:`MAX_DEPTH` (``tomllib`` parses recursively: a 40 kB file of
  ``[[[[…`` raised RecursionError; dotted keys nest without brackets), refused before and after
  parsing;
- ``nan`` or ``inf`` anywhere (TOML has both; a comparison with NaN is always false, so a
  range check lets it through, and ``int(nan)`` crashed the report);
- control characters in any text (they reach the student's terminal and the report), and a
  line break anywhere but the Colab note;
- a lesson id twice (two contradictory rows for one lesson);
- a package that is not a name with versions, extras and markers: the wizard's one rule for
  what gets installed (:mod:`wizard.core.install.requirements`) -- a ``file://``, ``http://`` or
  ``git+`` requirement would install code no index and no hash vouches for.
"""

from __future__ import annotations

import math
import re
import unicodedata
from typing import Any

from wizard.core.base.i18n import Message, msg

# A real profile nests four deep (document → lessons → lesson → value); twenty is far beyond it and
# far below any recursion limit.
MAX_DEPTH = 20
# Text that may span lines (shown as a paragraph); every other string is one line.
MULTILINE_FIELDS = {("colab", "note")}
_ALLOWED_CONTROLS = "\t"


class CourseProblem(ValueError):
    """What is wrong with a profile, as the message to show (the caller adds nothing)."""

    def __init__(self, message: Message) -> None:
        super().__init__(message.key)
        self.message = message


def toml_nesting(text: str, stop_at: int = MAX_DEPTH) -> int:
    """How deep ``[`` and ``{`` nest in TOML ``text`` outside strings and comments, counting no
    further than ``stop_at + 1``. Linear, and never recursive (it runs before the parser)."""
    depth = deepest = 0
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "#":
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if c in "\"'":
            quote = c * 3 if text.startswith(c * 3, i) else c
            i += len(quote)
            while i < n and not text.startswith(quote, i):
                if c == '"' and text[i] == "\\":
                    i += 1
                elif len(quote) == 1 and text[i] == "\n":  # an unterminated one-line string: the parser's job
                    break
                i += 1
            i += len(quote)
            continue
        if c in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > stop_at:
                    return deepest
        elif c in "]}":
            depth = max(depth - 1, 0)
        i += 1
    return deepest


def _place(path: tuple[Any, ...]) -> str:
    return "/".join(str(p) for p in path) or "(top)"


def _bad_text(value: str, multiline: bool) -> bool:
    for ch in value:
        if ch == "\n" and multiline:
            continue
        if ch in _ALLOWED_CONTROLS:
            continue
        if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") and ch not in "\u200c\u200d":
            return True
    return False


def check_document(doc: Any, source: str) -> None:
    """The whole parsed document: depth, finite numbers and clean text in every value and key.
    Iterative, so a document nested too deep is refused rather than overflowing the stack."""
    stack: list[tuple[Any, tuple[Any, ...], int]] = [(doc, (), 0)]
    while stack:
        value, path, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise CourseProblem(msg("course.too_deep", source=source, depth=MAX_DEPTH))
        if isinstance(value, dict):
            for key, sub in value.items():
                if _bad_text(str(key), False):
                    raise CourseProblem(msg("course.control_chars", source=source, where=_place(path) + "/(key)"))
                stack.append((sub, (*path, key), depth + 1))
        elif isinstance(value, list):
            stack.extend((sub, (*path, i), depth + 1) for i, sub in enumerate(value))
        elif isinstance(value, float) and not math.isfinite(value):
            raise CourseProblem(msg("course.not_finite", source=source, where=_place(path), value=str(value)))
        elif isinstance(value, str) and _bad_text(value, tuple(path[-2:]) in MULTILINE_FIELDS):
            raise CourseProblem(msg("course.control_chars", source=source, where=_place(path)))


def check_fields(doc: dict[str, Any], source: str) -> None:
    """After the schema: each lesson id once, each package through the install rule, the Colab
    link an https:// address (it becomes a link in the report)."""
    from wizard.core.install.requirements import RequirementRefused, check_requirement

    seen: set[str] = set()
    for lesson in doc.get("lessons", []):
        lid = lesson["id"]
        if lid in seen:
            raise CourseProblem(msg("course.duplicate_lesson", source=source, id=lid))
        seen.add(lid)
    for package in doc["course"].get("packages", []):
        try:
            check_requirement(package)
        except RequirementRefused as exc:
            raise CourseProblem(msg("course.bad_package", source=source, reason=exc.message)) from exc
    url = doc.get("colab", {}).get("url", "")
    if url and not re.match(r"https://[^\s/]+", url, re.IGNORECASE):
        raise CourseProblem(msg("course.invalid", source=source, where="colab/url", error="https://…"))


__all__ = ["CourseProblem", "MAX_DEPTH", "check_document", "check_fields", "toml_nesting"]
