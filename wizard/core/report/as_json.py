"""The report as JSON text (schema ``gpu-setup-wizard/report@1.1``), and back.

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

Since 1.1 the document also holds ``facts`` (:func:`report_facts`): the same machine, install,
verification, findings and lesson verdicts as plain, language-free values (ids, versions, bytes,
counts), for programs that read many reports at once (the class view of
:mod:`wizard.core.classroom`) and must not parse sentences in the student's language. A 1.0
report has no ``facts``; its readers fall back to ``machines`` and the sections.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
    from wizard.core.report.inputs import ReportContext


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


# The lesson verdicts of :func:`wizard.core.vram.workloads.judge_machine_lessons`, as the facts say them.
LESSON_VERDICTS = {"runs_here": "gpu", "runs_on_cpu": "cpu", "needs_colab": "colab", "needs_cloud": "cloud",
                   "too_big": "cannot"}
_FAILING = ("fail", "warn")


def _gpu_facts(ctx: ReportContext) -> list[dict[str, Any]]:
    from wizard.core.report.inputs import gpus_of
    from wizard.core.vram.units import mib_to_bytes

    return [{"name": g.name, "vram_bytes": mib_to_bytes(g.memory_total_mib) if g.memory_total_mib else None,
             "cc": g.compute_capability} for g in gpus_of(ctx.detection)]


def _install_facts(ctx: ReportContext) -> dict[str, Any] | None:
    inst = ctx.install
    if inst is None:
        return None
    packages = [{"name": p.name, "version": p.version} for p in inst.installed]
    torch = next((p["version"] for p in packages if p["name"] == "torch"), None)
    if torch is None:
        torch = ctx.verify.versions.get("torch") if ctx.verify is not None else None
    return {"ok": inst.ok, "index_url": inst.index_url, "installer": inst.installer,
            "torch_build": torch, "packages": packages}


def _verify_facts(ctx: ReportContext) -> dict[str, Any] | None:
    from wizard.core.report.inputs import checks_of, cuda_available

    verify = ctx.verify
    if verify is None:
        return None
    checks = checks_of(verify)
    count = {s: sum(1 for c in checks if c.status == s) for s in ("pass", "warn", "fail", "skip")}
    versions = verify.versions
    return {"passed": count["pass"], "warned": count["warn"], "failed": count["fail"], "skipped": count["skip"],
            "failed_ids": sorted({c.id for c in checks if c.status == "fail"}),
            "torch": versions.get("torch"), "torch_cuda": versions.get("cuda"),
            "cuda_available": cuda_available(verify)}


def _finding_facts(ctx: ReportContext) -> list[dict[str, Any]]:
    """The findings section's items as ids: a failure mode's ``family`` is its id in
    failure-modes.json (verify's own causes, which have none, are ``verify:<cause>``), and
    ``fix_key`` is the catalogue key of its fix, so a reader renders it in any language."""
    from wizard.core.base.i18n import has
    from wizard.core.report.document import CPU_BUILD_RIGHT_HERE
    from wizard.core.report.inputs import checks_of

    findings = ctx.inputs.diagnosis
    if findings is None and ctx.detection is not None:
        findings = ctx.detection.findings
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for f in findings or []:
        if f.id in seen:
            continue
        seen.add(f.id)
        key = f"finding.{f.id}.fix"
        if f.variant and has(f"finding.{f.id}.{f.variant}.fix"):
            key = f"finding.{f.id}.{f.variant}.fix"
        out.append({"id": f.id, "family": f.id, "severity": f.severity, "variant": f.variant, "fix_key": key})
    for c in checks_of(ctx.verify):
        if c.status not in _FAILING or c.cause == CPU_BUILD_RIGHT_HERE:
            continue
        family = c.finding or f"verify:{c.cause or c.id}"
        if family in seen:
            continue
        seen.add(family)
        out.append({"id": c.id, "family": family, "severity": "error" if c.status == "fail" else "warning",
                    "variant": None, "fix_key": f"verify.fix.{c.fix}" if c.fix else None})
    return out


def _lesson_facts(ctx: ReportContext) -> list[dict[str, Any]]:
    from wizard.core.report.lesson import workload_judgments

    judged = workload_judgments(ctx)  # judge_machine_lessons, as the judgment section has it
    if judged is None:
        return []
    return [{"id": j.workload.id, "verdict": LESSON_VERDICTS.get(j.verdict, "cannot")} for j in judged[0]]


def report_facts(ctx: ReportContext) -> dict[str, Any]:
    """The report's facts as language-free values (the ``facts`` object of the 1.1 document).
    Built from the same context as the sections, so the two cannot disagree; nothing here is
    text in the student's language, and redaction treats it like the rest of the document."""
    d = ctx.detection
    est = ctx.inputs.vram
    fits = getattr(est, "fits", None) if est is not None else None
    return {
        "started_at": ctx.inputs.started_at,
        "os": (d.system.os_pretty or d.system.os) if d is not None else None,
        "platform": d.system.os if d is not None else None,
        "ram_bytes": d.system.ram_total_bytes if d is not None else None,
        "nvidia_status": d.nvidia.status if d is not None else None,
        "gpus": _gpu_facts(ctx),
        "driver": d.nvidia.driver_version if d is not None else None,
        "cuda_driver": d.nvidia.cuda_version if d is not None else None,
        "install": _install_facts(ctx),
        "verify": _verify_facts(ctx),
        "findings": _finding_facts(ctx),
        "lessons": _lesson_facts(ctx),
        "vram": {"chosen": est is not None, "fits": fits if isinstance(fits, bool) else None},
    }


__all__ = ["dumps", "loads", "check_report_types", "report_facts", "LESSON_VERDICTS"]
