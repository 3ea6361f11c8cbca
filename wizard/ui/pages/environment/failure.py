"""One failure, said once, in the student's language: what kind it is, what to do in the
window, and the tool's raw words only as details.

The kind is the engine's (:class:`~wizard.app.install.FailureKind`, set where the tool's output
was read); this module only words it. A connection, a missing build and a full disk get the
window's own sentence and advice (the mirror field is right there); anything else is the
engine's sentence, already in the student's language. pip's and the engine's raw lines go to
"Details".
"""

from __future__ import annotations

from dataclasses import dataclass

from wizard.app.install import FailureKind
from wizard.core.base.i18n import t

CONNECTION = FailureKind.CONNECTION
NO_BUILD = FailureKind.NO_BUILD
DISK = FailureKind.DISK
OTHER = FailureKind.OTHER
WORDED_HERE = (CONNECTION, NO_BUILD, DISK)  # the window's own sentence and advice


@dataclass
class FailureText:
    """``headline``: what happened, in the student's language; ``advice``: what to do in the
    window; ``details``: the raw lines (pip's, the engine's), shown only on request."""

    category: FailureKind
    headline: str
    advice: str
    details: str


def describe(kind: FailureKind, message: str, detail: str, lang: str, *, host: str | None = None,
             reqs: str = "", index: str = "", where: str = "envpage") -> FailureText:
    """The words for one failure of ``kind``. ``message`` is the engine's sentence (already in
    ``lang``), ``detail`` the tool's raw output; ``where``: 'envpage' (the mirror field is right
    there) or 'installpage' (the settings are one button away)."""
    kind = FailureKind.of(kind)
    raw = (detail or "").strip()
    if kind == CONNECTION:
        headline = t("install.failure.connection", lang, host=host or index or "?")
    elif kind == NO_BUILD:
        headline = t("install.failure.no_build", lang, reqs=reqs or "PyTorch", index=index or "PyPI")
    elif kind == DISK:
        headline = t("install.failure.disk", lang)
    else:
        headline = message.strip() or t("install.failure.other", lang)
        if raw and raw in headline:
            raw = ""
    advice = t(f"install.failure.advice.{kind.value}.{where}", lang) if kind in WORDED_HERE else ""
    return FailureText(kind, headline, advice, raw)


__all__ = ["CONNECTION", "DISK", "NO_BUILD", "OTHER", "FailureText", "describe"]
