"""Read a ``doctor --json`` document (another machine's) back into a :class:`Detection`.

Used by ``recommend --from-doctor`` and later by the report's remote rows: a teaching
assistant gets a student's JSON and asks what that machine should install. Unknown keys are
ignored and missing ones take their defaults, so a 1.x document from a newer wizard still reads.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, TypeVar

from wizard.core.machine.models import (
    CondaEnv,
    CondaInstall,
    Detection,
    Disagreement,
    DisplayAdapter,
    GpuInfo,
    GpuProcess,
    MigDevice,
    NvidiaInfo,
    PythonInterpreter,
    SourceResult,
    SystemInfo,
)

T = TypeVar("T")

# Which nested lists hold which dataclass.
_NESTED = {
    (SystemInfo, "display_adapters"): DisplayAdapter,
    (NvidiaInfo, "gpus"): GpuInfo,
    (NvidiaInfo, "sources"): SourceResult,
    (NvidiaInfo, "disagreements"): Disagreement,
    (SourceResult, "gpus"): GpuInfo,
    (GpuInfo, "mig_devices"): MigDevice,
    (GpuInfo, "processes"): GpuProcess,
    (CondaInstall, "envs"): CondaEnv,
}


def _build(cls: type[T], data: Any) -> T:
    if not isinstance(data, dict):
        raise ValueError(f"expected an object for {cls.__name__}, got {type(data).__name__}")
    kwargs: dict[str, Any] = {}
    for f in fields(cls):  # type: ignore[arg-type]
        if f.name not in data:
            continue
        value = data[f.name]
        inner = _NESTED.get((cls, f.name))
        if inner is not None:
            value = [_build(inner, item) for item in (value or [])]
        kwargs[f.name] = value
    return cls(**kwargs)


def detection_from_doctor_json(doc: dict[str, Any]) -> Detection:
    """The Detection a doctor document describes (its findings are recomputed, not trusted)."""
    from wizard.core.machine.findings import detection_findings

    system = _build(SystemInfo, doc.get("system") or {"os": "unknown"})
    detection = Detection(
        system=system,
        nvidia=_build(NvidiaInfo, doc.get("nvidia") or {}),
        pythons=[_build(PythonInterpreter, p) for p in doc.get("pythons") or []],
        conda=[_build(CondaInstall, c) for c in doc.get("conda") or []],
    )
    detection.findings = detection_findings(detection)
    return detection
