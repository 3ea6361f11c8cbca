"""The one rule for what the wizard asks pip or uv to install.

Why one rule, here: a requirement string reaches pip's or uv's command line (or uv's
``requirements.in``) from several places -- the recommendation's pins, a course profile's
``packages``, an offline bundle's manifest, a resumed install's saved state. pip reads each
such argument as whatever it looks like: ``x @ file:///elsewhere.whl`` and a plain path install
a file from anywhere on disk, ``x @ http://…`` fetches from the network even under
``--no-index``, and ``-r FILE``, ``--find-links=DIR``, ``--index-url URL`` are options. A profile
handed out by URL, or a ``bundle.json`` on a shared USB stick, can therefore make every student's
machine install unchecked code. So every requirement the wizard hands to an installer passes
:func:`check_requirement` first, and anything else is refused -- before a venv is made -- with one
line saying what was refused and why.

The rule: a requirement is accepted only when it is a string of at most
:data:`MAX_REQUIREMENT_CHARS` characters with no control character, does not start with ``-``,
parses with :class:`packaging.requirements.Requirement`, names a valid project (PEP 508's name
pattern, and not one ending like an archive: pip installs ``x.whl`` from the current folder when
it is there) and has no URL. What remains is a name with extras, version specifiers and markers:
something an index (or the bundle folder, for an offline install) is asked for, never a location.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Iterable

from packaging.requirements import InvalidRequirement, Requirement

from wizard.core.base.i18n import Message, MessageError, msg

# The longest real requirement the wizard writes is ~40 characters ("torchaudio==2.6.0+cu126"); a
# course's "transformers[torch]>=4.40,<5; python_version >= '3.9'" is ~60. 300 bounds a hostile one.
MAX_REQUIREMENT_CHARS = 300
# PEP 508 / the core metadata spec: a project name, case-insensitive.
_NAME = re.compile(r"[A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9]", re.IGNORECASE)
_URL_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:(//|[^0-9])")
_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")
# pip takes an argument whose name ends like an archive as a file to install when one is there
# ("evil-1.0-py3-none-any.whl" is also a valid project name): such a "name" is a path.
ARCHIVE_ENDINGS = (".whl", ".zip", ".tar.gz", ".tgz", ".tar", ".tar.bz2", ".tbz", ".tar.xz", ".txz", ".tlz",
                   ".tar.lz", ".tar.lzma")

REASON_NOT_TEXT = "not_text"
REASON_TOO_LONG = "too_long"
REASON_CONTROL = "control"
REASON_EMPTY = "empty"
REASON_OPTION = "option"
REASON_URL = "url"
REASON_PATH = "path"
REASON_SYNTAX = "syntax"
REASON_NAME = "name"


class RequirementRefused(MessageError, ValueError):
    """A requirement the wizard will not pass to pip or uv; ``requirement`` is the offending text
    (shortened and made printable), ``reason`` one of the ``REASON_*`` words."""

    def __init__(self, message: Message, requirement: str, reason: str) -> None:
        super().__init__(message)
        self.requirement = requirement
        self.reason = reason


@dataclass(frozen=True)
class Accepted:
    """A requirement that passed the rule: the text the installer gets and what it parsed to."""

    text: str
    requirement: Requirement

    @property
    def name(self) -> str:
        return self.requirement.name


def shown(value: Any, limit: int = 80) -> str:
    """``value`` as one printable line for a refusal: control characters escaped, cut at ``limit``."""
    text = value if isinstance(value, str) else repr(value)
    text = "".join(c if c.isprintable() and c not in "\r\n" else repr(c)[1:-1] for c in text)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def refusal(requirement: Any, reason: str) -> RequirementRefused:
    """The error for ``requirement`` refused for ``reason``: "<req>: <why>", both languages."""
    text = shown(requirement)
    return RequirementRefused(msg("install.requirement.refused", requirement=text,
                                  why=msg(f"install.requirement.why.{reason}")), text, reason)


def _has_control(text: str) -> bool:
    return any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") for c in text)


def _why_unparsable(text: str) -> str:
    """Which kind of not-a-requirement ``text`` is (for the one line the student reads)."""
    if _DRIVE.match(text):
        return REASON_PATH
    if _URL_SCHEME.match(text) or "://" in text:
        return REASON_URL
    if "/" in text or "\\" in text or text.startswith(".") or text.lower().endswith(ARCHIVE_ENDINGS):
        return REASON_PATH
    return REASON_SYNTAX


def check_requirement(value: Any) -> Accepted:
    """``value`` checked against the rule (see the module's docstring); :class:`RequirementRefused`
    with the reason when it fails. The accepted text is ``value`` without surrounding spaces."""
    if not isinstance(value, str):
        raise refusal(value, REASON_NOT_TEXT)
    if len(value) > MAX_REQUIREMENT_CHARS:
        raise refusal(value, REASON_TOO_LONG)
    if _has_control(value):
        raise refusal(value, REASON_CONTROL)
    text = value.strip()
    if not text:
        raise refusal(value, REASON_EMPTY)
    if text.startswith("-"):
        raise refusal(value, REASON_OPTION)
    try:
        req = Requirement(text)
    except InvalidRequirement:
        raise refusal(value, _why_unparsable(text)) from None
    if req.url is not None:
        raise refusal(value, REASON_URL)
    if not _NAME.fullmatch(req.name):
        raise refusal(value, REASON_NAME)
    if req.name.lower().endswith(ARCHIVE_ENDINGS):
        raise refusal(value, REASON_PATH)
    return Accepted(text, req)


def checked_requirements(values: Iterable[Any]) -> list[str]:
    """Every one of ``values`` through :func:`check_requirement` (the first refusal is raised);
    the texts to pass to the installer, in order."""
    return [check_requirement(v).text for v in values]


def first_refusal(values: Iterable[Any]) -> RequirementRefused | None:
    """The refusal of the first value that fails the rule, or None when all pass."""
    for v in values:
        try:
            check_requirement(v)
        except RequirementRefused as exc:
            return exc
    return None


__all__ = ["Accepted", "MAX_REQUIREMENT_CHARS", "RequirementRefused", "check_requirement", "checked_requirements",
           "first_refusal", "refusal", "shown"]
