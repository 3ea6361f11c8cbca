"""Explain use case: what a pasted error text means, the same for ``doctor --explain`` and any
window that takes a pasted text."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from wizard.core.base.i18n import t
from wizard.core.base.lazy import lazy_exports

if TYPE_CHECKING:
    from wizard.core.base.host import Host
    from wizard.core.diagnosis.context import ContextError as ContextError
    from wizard.core.diagnosis.model import Diagnosis as Diagnosis

# an environment that cannot be asked (``recognise_in_environment``): the faces catch it by this name
__getattr__ = lazy_exports(__name__, {"ContextError": "wizard.core.diagnosis.context",
                                        "Diagnosis": "wizard.core.diagnosis.model"})

EXPLAIN_SCHEMA = "gpu-setup-wizard/explain@1.0"


def recognise(text: str) -> list[Diagnosis]:
    """The findings ``text`` shows ([] for an empty text or one nothing recognises)."""
    from wizard.core.diagnosis.explain import recognise as _recognise

    if not (text or "").strip():
        return []
    return list(_recognise(text))


def recognise_in_environment(text: str, env_path: str, host: Host | None = None) -> list[Diagnosis]:
    """The findings ``text`` shows, refined by what the environment at ``env_path`` (an interpreter
    or an environment folder) on ``host`` (None: this machine) has: the versions, the interpreter,
    the code page. Raises ``wizard.core.diagnosis.context.ContextError`` when that environment
    cannot be asked."""
    from wizard.core.base.host import RealHost
    from wizard.core.diagnosis.context import apply_context, gather_explain_context

    findings = recognise(text)
    if not findings:
        return findings
    return apply_context(findings, gather_explain_context(host or RealHost(), env_path))


@dataclass
class Explanation:
    """What a pasted text means on this machine: its findings, refined by the environment named
    (the one the Verify page checks), or the text's alone when that environment cannot be asked."""

    findings: list[Diagnosis]
    env_path: str | None = None  # the environment whose versions refined the findings
    env_unusable: bool = False  # it was named but could not be asked: the findings are the text's alone


def explain(text: str, env_path: str | None = None, host: Host | None = None) -> Explanation:
    """The findings of ``text`` with the same context as ``doctor --explain --python ENV``
    (:func:`recognise_in_environment`); where ENV cannot be asked, the text's own findings and a
    flag that says so, since a window cannot answer with an exit status."""
    from wizard.core.diagnosis.context import ContextError as _ContextError

    if not env_path:
        return Explanation(recognise(text))
    try:
        return Explanation(recognise_in_environment(text, env_path, host), env_path)
    except _ContextError:
        return Explanation(recognise(text), env_path, env_unusable=True)


def format_findings(findings: list[Diagnosis], lang: str) -> str:
    """The findings as the text the command prints, or the line that says nothing was found."""
    from wizard.core.diagnosis.model import format_diagnoses

    if not findings:
        return t("diagnosis.explain.nothing", lang)
    return "\n".join([t("diagnosis.explain.heading", lang), ""] + format_diagnoses(findings, lang)).rstrip()


def findings_json(findings: list[Diagnosis], lang: str) -> dict[str, Any]:
    """The findings as the schema'd JSON document."""
    from wizard.core.diagnosis.model import findings_to_json

    return {"schema": EXPLAIN_SCHEMA, "findings": findings_to_json(findings, lang)}
