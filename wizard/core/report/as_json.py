"""The report as JSON (schema ``gpu-setup-wizard/report@1.0``), and back.

Why it loads back: a student runs ``gpu-setup-wizard report --json`` in Colab or on a cloud GPU
over SSH, and the wizard on their PC imports that file for the Colab/cloud rows
(:mod:`wizard.core.report.remote`); a teaching assistant can re-render a handed-in JSON as Markdown or
HTML. So the document holds the whole :class:`~wizard.core.report.model.Report`: every section's text
in the report's language, and each machine's facts as plain values (``machines[0]`` is the
machine that made the report).

Readers accept any 1.x document (unknown keys are ignored, missing ones take their defaults)
and reject another major version, or another kind of file, with a message saying so.
"""

from __future__ import annotations

import json
from dataclasses import fields
from typing import Any, TypeVar

from wizard.core.base.i18n import t
from wizard.core.report.model import (
    SCHEMA,
    SCHEMA_VERSION,
    Block,
    Item,
    MachineRecord,
    Report,
    Section,
    Table,
)

T = TypeVar("T")


class ReportSchemaError(ValueError):
    """Not a report document, or one of an unsupported major version; the message says which."""


def _plain(obj: Any) -> Any:
    if hasattr(obj, "__dataclass_fields__"):
        return {f.name: _plain(getattr(obj, f.name)) for f in fields(obj)}
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    return obj


def report_to_dict(report: Report) -> dict[str, Any]:
    """The JSON document (a dict of JSON types); ``schema`` first so a reader sees it at once."""
    body = _plain(report)
    return {"schema": f"{SCHEMA}@{SCHEMA_VERSION}", **body}


def dumps(report: Report) -> str:
    return json.dumps(report_to_dict(report), ensure_ascii=False, indent=2) + "\n"


def check_report_schema(doc: Any) -> str:
    """The document's version; raises :class:`ReportSchemaError` for anything else."""
    if not isinstance(doc, dict) or not isinstance(doc.get("schema"), str):
        raise ReportSchemaError(t("schema.not_ours", kind=SCHEMA))
    name, _, version = doc["schema"].partition("@")
    if name != SCHEMA:
        raise ReportSchemaError(t("schema.wrong_kind", kind=SCHEMA, found=name))
    if version.split(".")[0] != SCHEMA_VERSION.split(".")[0]:
        raise ReportSchemaError(t("schema.wrong_major", kind=SCHEMA, found=version, supported=SCHEMA_VERSION))
    return version


def _build(cls: type[T], data: Any, nested: dict[str, type] | None = None) -> T:
    if not isinstance(data, dict):
        raise ReportSchemaError(t("report.json.bad_part", part=cls.__name__))
    kwargs: dict[str, Any] = {}
    for f in fields(cls):  # type: ignore[arg-type]
        if f.name not in data:
            continue
        value = data[f.name]
        inner = (nested or {}).get(f.name)
        if inner is not None:
            if not isinstance(value, list):
                raise ReportSchemaError(t("report.json.bad_part", part=f"{cls.__name__}.{f.name}"))
            value = [_build(inner, v) for v in value]
        kwargs[f.name] = value
    try:
        return cls(**kwargs)
    except TypeError as exc:  # a required field is missing
        raise ReportSchemaError(t("report.json.bad_part", part=f"{cls.__name__}: {exc}")) from exc


def report_from_dict(doc: dict[str, Any]) -> Report:
    """The :class:`Report` a checked document describes."""
    check_report_schema(doc)
    sections = [_build(Section, s, {"items": Item, "tables": Table, "blocks": Block}) for s in doc.get("sections") or []]
    appendices = [_build(Block, b) for b in doc.get("appendices") or []]
    machines = [_build(MachineRecord, m) for m in doc.get("machines") or []]
    if not machines:
        raise ReportSchemaError(t("report.json.bad_part", part="machines"))
    data = {k: v for k, v in doc.items() if k not in ("schema", "sections", "appendices", "machines")}
    data.update(sections=sections, appendices=appendices, machines=machines)
    return _build(Report, data)


def loads(text: str) -> Report:
    """Parse a report JSON text (another machine's ``report --json``)."""
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise ReportSchemaError(t("schema.not_json", error=str(exc))) from exc
    return report_from_dict(doc)


__all__ = ["ReportSchemaError", "report_to_dict", "report_from_dict", "dumps", "loads", "check_report_schema"]
