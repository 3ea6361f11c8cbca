"""Read a ``doctor --json`` document (another machine's) back into a :class:`Detection`.

Used by ``recommend --from-doctor`` and later by the report's remote rows: a teaching
assistant gets a student's JSON and asks what that machine should install. Unknown keys are
ignored and missing ones take their defaults, so a 1.x document from a newer wizard still reads.
Every value is checked against the dataclasses' annotations on the way in
(:mod:`wizard.core.base.typed`): a document with ``"name": 7`` is refused with one line naming
the place, instead of loading and failing later wherever the name is first used as text.
"""

from __future__ import annotations

from typing import Any

from wizard.core.base.typed import DocumentTypeError, build
from wizard.core.machine.models import CondaInstall, Detection, NvidiaInfo, PythonInterpreter, SystemInfo


def _list(doc: Any, key: str) -> list[Any]:
    value = doc.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise DocumentTypeError(key, "a list", value)
    return value


def detection_from_doctor_json(doc: dict[str, Any]) -> Detection:
    """The Detection a doctor document describes (its findings are recomputed, not trusted).
    Raises :class:`~wizard.core.base.typed.DocumentTypeError` (a ValueError) for a value of the wrong type."""
    from wizard.core.machine.findings import detection_findings

    if not isinstance(doc, dict):
        raise DocumentTypeError("", "an object", doc)
    system = build(SystemInfo, doc.get("system") or {"os": "unknown"}, "system")
    detection = Detection(
        system=system,
        nvidia=build(NvidiaInfo, doc.get("nvidia") or {}, "nvidia"),
        pythons=[build(PythonInterpreter, p, f"pythons[{i}]") for i, p in enumerate(_list(doc, "pythons"))],
        conda=[build(CondaInstall, c, f"conda[{i}]") for i, c in enumerate(_list(doc, "conda"))],
    )
    detection.findings = detection_findings(detection)
    return detection
