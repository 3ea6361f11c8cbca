"""What kind of failure an install or a plan met, decided once, where the tool's output is read.

Why: the engine's steps know why they failed (pip said "Connection refused", the disk said
ENOSPC, the index has no such version); the faces only have to say it. Sorting failures again
in the window by grepping the message -- a sentence that may already be Korean -- gave two lists
of markers that drifted apart and a regex over a translated text. Here is the one list of the
tools' own words, read where the output is (pip's resolution, a failed command step), and the
one mapping from the engine's reason (``StepError.kind``, ``PlanError.kind``, stored in the
install state as ``error_kind``) to the :class:`FailureKind` the faces word.

The reasons stay the strings they were (the install summary's JSON and saved install states
carry them); :class:`FailureKind` is what a face switches on.
"""

from __future__ import annotations

import re
from enum import Enum


class FailureKind(str, Enum):
    """What the student can do about a failure: fix the connection (a mirror, a proxy), pick a
    build the index has, wait for (or replace) an index that lists a file it does not serve,
    choose where a course's extra packages come from (extras),
    free disk space, pick one build of the torch family, or read the tool's own words (other)."""

    CONNECTION = "connection"
    NO_BUILD = "no-build"
    MISSING_FILE = "missing-file"
    EXTRAS = "extras"
    DISK = "disk"
    MISMATCH = "mismatch"
    OTHER = "other"

    def __str__(self) -> str:  # the value, as a plain str would print (JSON, f-strings)
        return self.value

    __format__ = str.__format__  # type: ignore[assignment]  # str's: the member's value is a str

    @classmethod
    def of(cls, reason: object) -> FailureKind:
        """The kind for an engine reason (``"network"``, ``"space"``, ``"no-version"`` ...);
        OTHER for one it does not name (an older state file's, a tool's own)."""
        if isinstance(reason, FailureKind):
            return reason
        return _KIND_OF_REASON.get(str(reason or ""), cls.OTHER)


# The engine's reasons, by kind. A reason is the engine's own word for what happened; a new one
# goes here, not into a face.
CONNECTION_REASONS = ("network", "http", "offline", "refused", "host", "proxy", "timeout")
DISK_REASONS = ("space", "disk", "disk-full")
NO_BUILD_REASONS = ("no-version",)
# The index answered, and the file its page lists is not there (HTTP 404, 403 or 410): a mirror
# that is incomplete or being changed. Not a connection problem: the server was reached.
MISSING_FILE_REASONS = ("missing-file",)
MISSING_FILE_STATUSES = (403, 404, 410)
# A course's extra packages the indexes asked do not have, or whose source (PyPI, a PyPI mirror)
# could not be reached: another PyTorch build cannot help; their source can
# (wizard/core/install/extras.py).
EXTRAS_REASONS = ("missing-extra", "extras-unreachable")
MISMATCH_REASONS = ("family-mismatch",)
# A plan with one of these cannot be installed as it is: the install would stop on the same
# answer (the engine's resolve step asks the same question).
PLAN_BLOCKING_REASONS = ("network", "no-version", "failed", "family-mismatch", "bad-report", "old-pip", "no-pip",
                         "missing-file", *EXTRAS_REASONS)

_KIND_OF_REASON: dict[str, FailureKind] = {
    **{r: FailureKind.CONNECTION for r in CONNECTION_REASONS},
    **{r: FailureKind.DISK for r in DISK_REASONS},
    **{r: FailureKind.NO_BUILD for r in NO_BUILD_REASONS},
    **{r: FailureKind.MISSING_FILE for r in MISSING_FILE_REASONS},
    **{r: FailureKind.EXTRAS for r in EXTRAS_REASONS},
    **{r: FailureKind.MISMATCH for r in MISMATCH_REASONS},
}

# The tools' own words (pip, requests/urllib3, the OS) for the two causes a step's exit code hides.
NETWORK_MARKERS = ("NewConnectionError", "Failed to establish a new connection", "Max retries exceeded",
                   "Name or service not known", "getaddrinfo failed", "Temporary failure in name resolution",
                   "ConnectTimeoutError", "ProxyError", "SSLError", "Connection refused", "ReadTimeoutError",
                   "Could not fetch URL", "ConnectionError")
DISK_MARKERS = ("No space left on device", "[Errno 28]", "ENOSPC", "disk is full")


# uv's and pip's words for a file the index lists and then will not serve. uv wraps its error
# chain at the terminal's width, and after a retry ("Request failed after 1 retry") the URL goes
# on the next line: any run of white space may stand between the words.
_FILE_STATUS = (re.compile(r"status\s+client\s+error\s+\((\d{3})[^)]*\)\s+for\s+url\s+\((\S+?)\)"),  # uv
                re.compile(r"HTTP\s+error\s+(\d{3})\s+while\s+getting\s+(\S+)"))  # pip
_FILE_SUFFIXES = (".whl", ".tar.gz", ".zip", ".metadata")


def missing_file_in_output(text: str) -> tuple[int, str] | None:
    """(status, URL) when a tool's output says a file (a wheel, an sdist, its metadata) was
    answered 404, 403 or 410 -- the index lists it and does not have it; None otherwise."""
    for pattern in _FILE_STATUS:
        for m in pattern.finditer(text or ""):
            status, url = int(m.group(1)), m.group(2).split("#", 1)[0]
            if status in MISSING_FILE_STATUSES and url.lower().endswith(_FILE_SUFFIXES):
                return status, url
    return None


def reason_in_output(text: str) -> str | None:
    """``"space"`` or ``"network"`` when a tool's output says the disk is full or the
    connection failed (the disk first: a full disk also breaks downloads); None otherwise."""
    body = text or ""
    if any(m in body for m in DISK_MARKERS):
        return "space"
    if any(m in body for m in NETWORK_MARKERS):
        return "network"
    return None


_HOST = re.compile(r"(?:host='([^']+)'|https?://([^/:\s'\"]+))")


def host_in_output(text: str) -> str | None:
    """The first server a tool's output names (``host='…'`` or a URL), for "could not reach …"."""
    m = _HOST.search(text or "")
    return (m.group(1) or m.group(2)) if m else None


def says_network(text: str) -> bool:
    """Does a tool's output name a connection failure?"""
    body = text or ""
    return any(m in body for m in NETWORK_MARKERS)


__all__ = ["CONNECTION_REASONS", "DISK_MARKERS", "DISK_REASONS", "EXTRAS_REASONS", "FailureKind", "MISMATCH_REASONS",
           "MISSING_FILE_REASONS", "MISSING_FILE_STATUSES", "NETWORK_MARKERS", "NO_BUILD_REASONS",
           "PLAN_BLOCKING_REASONS", "host_in_output", "missing_file_in_output", "reason_in_output", "says_network"]
