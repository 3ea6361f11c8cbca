"""One failure, said once, in the student's language: what kind it is, what to do in the
window, and the tool's raw words only as details.

Why: the engine's messages are written for both faces, so they embed pip's last ``ERROR:``
line and name the command line's ``--index-url``; a Korean student then reads an English pip
line inside a Korean sentence, a CLI flag inside a window, and "downloaded files are kept"
when nothing was downloaded. The pages classify the failure (connection, no matching build,
disk, other), say it with the page's own words and keep the original text for "Details".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from wizard.core.base.i18n import t

CONNECTION = "connection"
NO_BUILD = "no-build"
DISK = "disk"
OTHER = "other"

CONNECTION_KINDS = ("network", "http", "offline", "refused", "host", "proxy", "timeout")
DISK_KINDS = ("space", "disk", "disk-full")
NO_BUILD_KINDS = ("no-version",)
_DISK_MARKERS = ("No space left on device", "[Errno 28]", "ENOSPC", "disk is full")
_CONNECTION_MARKERS = ("NewConnectionError", "Failed to establish a new connection", "Max retries exceeded",
                       "Name or service not known", "getaddrinfo failed", "Temporary failure in name resolution",
                       "ConnectTimeoutError", "ProxyError", "Connection refused", "ReadTimeoutError",
                       "Could not fetch URL", "ConnectionError")
_CLI_FLAG = re.compile(r"\s*\((?:[^()]*?)--index-url\)|,?\s*(?:or\s+)?--index-url|\s*또는\s*--index-url")


def classify(kind: str | None, detail: str = "", text: str = "") -> str:
    """connection / no-build / disk / other, from the engine's kind and, when that is vague,
    the tool's own words (a pip failure whose real cause is a refused connection)."""
    words = f"{detail}\n{text}"
    if kind in DISK_KINDS or any(m in words for m in _DISK_MARKERS):
        return DISK
    if kind in CONNECTION_KINDS or any(m in words for m in _CONNECTION_MARKERS):
        return CONNECTION
    if kind in NO_BUILD_KINDS:
        return NO_BUILD
    return OTHER


def without_cli_flags(text: str) -> str:
    """The engine's sentence without the command line's ``--index-url`` (the window has a field)."""
    return _CLI_FLAG.sub("", text)


@dataclass
class FailureText:
    """``headline``: what happened, in the student's language; ``advice``: what to do in the
    window; ``details``: the raw lines (pip's, the engine's), shown only on request."""

    category: str
    headline: str
    advice: str
    details: str


def describe(kind: str | None, message: str, detail: str, lang: str, *, host: str | None = None,
             reqs: str = "", index: str = "", where: str = "envpage") -> FailureText:
    """The words for one failure. ``message`` is the engine's sentence (already in ``lang``),
    ``detail`` the raw output; ``where``: 'envpage' (the Environment page, the mirror field is
    right there) or 'installpage' (the settings are one button away)."""
    category = classify(kind, detail, message)
    raw = "\n".join(x for x in dict.fromkeys((without_cli_flags(message).strip(), (detail or "").strip())) if x)
    if category == CONNECTION:
        headline = t("g.fail.connection", lang, host=host or _host_in(detail + " " + message) or index or "?")
    elif category == NO_BUILD:
        headline = t("g.fail.no_build", lang, reqs=reqs or "PyTorch", index=index or "PyPI")
    elif category == DISK:
        headline = t("g.fail.disk", lang)
    else:
        headline = without_cli_flags(message).strip() or t("g.fail.other", lang)
        raw = (detail or "").strip()
        if raw and raw in headline:
            raw = ""
    advice = "" if category == OTHER else t(f"g.fail.advice.{category}.{where}", lang)
    return FailureText(category, headline, advice, raw)


_HOST = re.compile(r"(?:host='([^']+)'|https?://([^/:\s'\"]+))")


def _host_in(text: str) -> str | None:
    m = _HOST.search(text or "")
    return (m.group(1) or m.group(2)) if m else None


__all__ = ["CONNECTION", "DISK", "NO_BUILD", "OTHER", "FailureText", "classify", "describe", "without_cli_flags"]
