"""The report as JSON text (schema ``gpu-setup-wizard/report@1.0``), and back.

Why it loads back: the report of another machine where the wizard runs (a lab PC, a cloud GPU
with the wizard installed) is imported for the Colab/cloud rows (:mod:`wizard.core.report.remote`;
Colab itself uses the cell of :mod:`wizard.core.report.colab_cell`); a teaching assistant can
re-render a handed-in JSON as Markdown or HTML. So the document holds the whole :class:`~wizard.core.report.document.Report`: every section's
text in the report's language, and each machine's facts as plain values (``machines[0]`` is the
machine that made the report).

Readers accept any 1.x document (unknown keys are ignored, missing ones take their defaults)
and reject another major version, or another kind of file, with a message saying so
(:func:`wizard.core.base.schema.check_schema`). The dict form itself lives with the classes, in
:mod:`wizard.core.report.document`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from wizard.core.base.schema import load_schema_json
from wizard.core.base.typed import DocumentTypeError, check
from wizard.core.report.document import (
    SCHEMA,
    SCHEMA_VERSION,
    Report,
    ReportSchemaError,
    report_from_dict,
    report_to_dict,
)


def dumps(report: Report) -> str:
    return json.dumps(report_to_dict(report), ensure_ascii=False, indent=2) + "\n"


@dataclass
class _GpuRow:
    """What a machine's ``gpus[]`` entry must hold when it holds it (the report renders these)."""

    name: str | None = None
    memory_total_mib: float | None = None
    compute_capability: str | None = None


def check_report_types(doc: dict) -> None:
    """Refuse a report document whose values do not have the types of the report's dataclasses
    (``machines[0].gpus[0].name = 7``): a :class:`ReportSchemaError` naming the place, so nothing
    past the boundary meets a number where it expects text."""
    try:
        check(Report, {k: v for k, v in doc.items() if k != "schema"})
        for i, machine in enumerate(doc.get("machines") or []):
            for j, gpu in enumerate(machine.get("gpus") or []):
                check(_GpuRow, gpu, f"machines[{i}].gpus[{j}]")
    except DocumentTypeError as exc:
        raise ReportSchemaError(exc.message) from exc


def loads(text: str) -> Report:
    """Parse a report JSON text (another machine's ``report --json``); a document with values of
    the wrong types, or nested absurdly deep, is refused with a :class:`ReportSchemaError`."""
    doc = load_schema_json(text, SCHEMA, SCHEMA_VERSION, ReportSchemaError)
    check_report_types(doc)
    return report_from_dict(doc)


__all__ = ["dumps", "loads", "check_report_types"]
