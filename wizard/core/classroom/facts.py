"""One student's machine as the class view needs it, read from an exported report.

Why typed dataclasses of its own: a handed-in report is an untrusted file. The report's own
loader (:func:`wizard.core.report.as_json.loads`) checks the sections and machines, but ``facts``
is a plain object to it; here every value of ``facts`` is checked against these annotations
(:func:`wizard.core.base.typed.build`), so ``"vram_bytes": "lots"`` is a skipped file with a
reason, never a crash half-way through 500 reports. Types are not enough: ``10**400`` is an int,
and one such report took the whole page down (a float division overflowed). So every number is
bounded too (:func:`check_bounds`: memory below 1 PiB, counts below a million, lists no longer
than a real report's, text no longer than a page) and a report outside them is skipped, named. A 1.0 report has no ``facts``: the same
values are taken from its ``machines[0]`` and its sections (:func:`facts_from_legacy`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any

from wizard.core.base.i18n import MessageError, has, msg
from wizard.core.report.document import FAIL, NOT_RUN, PASS, SKIP, WARN, Report


@dataclass
class GpuFact:
    name: str | None = None
    vram_bytes: int | None = None
    cc: str | None = None


@dataclass
class PackageFact:
    name: str | None = None
    version: str | None = None


@dataclass
class InstallFact:
    ok: bool | None = None
    index_url: str | None = None
    installer: str | None = None
    torch_build: str | None = None
    packages: list[PackageFact] = field(default_factory=list)


@dataclass
class VerifyFact:
    passed: int = 0
    warned: int = 0
    failed: int = 0
    skipped: int = 0
    failed_ids: list[str] = field(default_factory=list)
    torch: str | None = None
    torch_cuda: str | None = None
    cuda_available: bool | None = None


@dataclass
class FindingFact:
    id: str
    family: str
    severity: str = "info"
    variant: str | None = None
    fix_key: str | None = None
    fix_text: str | None = None  # a 1.0 report's own fix line (in the report's language): no key to translate


@dataclass
class LessonFact:
    id: str
    verdict: str  # gpu | cpu | colab | cloud | cannot


@dataclass
class VramFact:
    chosen: bool = False
    fits: bool | None = None


@dataclass
class ReportFacts:
    """The ``facts`` object of a 1.1 report (see :func:`wizard.core.report.as_json.report_facts`)."""

    started_at: str | None = None  # when the run began (the report's checklist date)
    os: str | None = None
    platform: str | None = None
    ram_bytes: int | None = None
    nvidia_status: str | None = None
    gpus: list[GpuFact] = field(default_factory=list)
    driver: str | None = None
    cuda_driver: str | None = None
    install: InstallFact | None = None
    verify: VerifyFact | None = None
    findings: list[FindingFact] = field(default_factory=list)
    lessons: list[LessonFact] = field(default_factory=list)
    vram: VramFact = field(default_factory=VramFact)

    @property
    def build(self) -> str | None:
        """The torch build in the environment (verify saw it), else the one installed."""
        if self.verify is not None and self.verify.torch:
            return self.verify.torch
        return self.install.torch_build if self.install is not None else None

    @property
    def vram_bytes(self) -> int | None:
        sizes = [g.vram_bytes for g in self.gpus if g.vram_bytes]
        return max(sizes) if sizes else None


MAX_BYTES = 2**50  # 1 PiB: no GPU's or PC's memory comes near
MAX_COUNT = 10**6
MAX_LIST = {"gpus": 64, "findings": 1000, "lessons": 1000, "packages": 10000, "failed_ids": 1000}
MAX_TEXT = 10_000


class FactOutOfRange(MessageError, ValueError):
    """A value of a report's facts that no real machine has; the message names where."""


def _bounded(value: Any, where: str, name: str) -> None:
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, int):
        top = MAX_BYTES if name.endswith("_bytes") else MAX_COUNT
        if not 0 <= value < top:
            raise FactOutOfRange(msg("class_view.skip.out_of_range", where=where, limit=str(top)))
    elif isinstance(value, float) and not (math.isfinite(value) and abs(value) < MAX_BYTES):
        raise FactOutOfRange(msg("class_view.skip.out_of_range", where=where, limit=str(MAX_BYTES)))
    elif isinstance(value, str) and len(value) > MAX_TEXT:
        raise FactOutOfRange(msg("class_view.skip.out_of_range", where=where, limit=f"{MAX_TEXT} characters"))
    elif isinstance(value, list):
        limit = MAX_LIST.get(name, MAX_COUNT)
        if len(value) > limit:
            raise FactOutOfRange(msg("class_view.skip.out_of_range", where=where, limit=f"{limit} items"))
        for i, item in enumerate(value):
            _bounded(item, f"{where}[{i}]", name)
    elif is_dataclass(value):
        for f in fields(value):
            _bounded(getattr(value, f.name), f"{where}.{f.name}", f.name)


def check_bounds(facts: "ReportFacts", where: str = "facts") -> "ReportFacts":
    """``facts`` when every number, list and text is within what a real report holds; raises
    :class:`FactOutOfRange` (a MessageError) naming the first value that is not."""
    _bounded(facts, where, "facts")
    return facts


def _verify_from_sections(report: Report) -> VerifyFact | None:
    sec = report.section("verify_checklist")
    items = sec.items if sec is not None else []
    if not items or all(i.status == NOT_RUN for i in items):
        return None
    count = {s: sum(1 for i in items if i.status == s) for s in (PASS, WARN, FAIL, SKIP)}
    local = report.local
    return VerifyFact(passed=count[PASS], warned=count[WARN], failed=count[FAIL], skipped=count[SKIP],
                      failed_ids=sorted(i.id for i in items if i.status == FAIL), torch=local.torch_version,
                      torch_cuda=local.torch_cuda, cuda_available=local.cuda_available)


def _findings_from_sections(report: Report) -> list[FindingFact]:
    sec = report.section("findings")
    out = []
    for item in sec.items if sec is not None else []:
        if item.status not in (FAIL, WARN):
            continue
        known = has(f"finding.{item.id}.title")
        fix = next((d for d in item.details if d.strip()), None)
        out.append(FindingFact(id=item.id, family=item.id if known else f"verify:{item.id}",
                               severity="error" if item.status == FAIL else "warning",
                               fix_key=f"finding.{item.id}.fix" if known else None, fix_text=fix))
    return out


def _lessons_for(gpus: list[GpuFact]) -> list[LessonFact]:
    """A 1.0 report names its lessons only in sentences: they are judged again here, by the one
    judge the report used, from the report's GPUs (its RAM is not in a 1.0 report, so a small lesson
    a GPU-less PC would train on its CPU says Colab here)."""
    from wizard.core.report.as_json import LESSON_VERDICTS
    from wizard.core.vram.workloads import judge_machine_lessons

    lessons = judge_machine_lessons([(g.name, g.vram_bytes, 0) for g in gpus if g.vram_bytes], None)
    return [LessonFact(j.workload.id, LESSON_VERDICTS.get(j.verdict, "cannot")) for j in lessons.judgments]


def facts_from_legacy(report: Report) -> ReportFacts:
    """The facts of a report without ``facts`` (schema 1.0), from ``machines[0]`` and the sections."""
    local = report.local
    gpus = []
    for g in local.gpus:
        mib = g.get("memory_total_mib")
        real = isinstance(mib, (int, float)) and not isinstance(mib, bool) and math.isfinite(mib) and 0 < mib < MAX_BYTES
        gpus.append(GpuFact(name=g.get("name") if isinstance(g.get("name"), str) else None,
                            vram_bytes=int(mib * 2**20) if real and mib is not None else None,
                            cc=g.get("compute_capability") if isinstance(g.get("compute_capability"), str) else None))
    if len(gpus) > MAX_LIST["gpus"]:
        raise FactOutOfRange(msg("class_view.skip.out_of_range", where="machines[0].gpus", limit=f"{MAX_LIST['gpus']} items"))
    return check_bounds(ReportFacts(started_at=local.date, os=local.os, nvidia_status=local.nvidia_status,
                                    gpus=gpus, driver=local.driver_version,
                                    cuda_driver=local.cuda_version, verify=_verify_from_sections(report),
                                    findings=_findings_from_sections(report), lessons=_lessons_for(gpus)))


__all__ = ["GpuFact", "PackageFact", "InstallFact", "VerifyFact", "FindingFact", "LessonFact", "VramFact",
           "ReportFacts", "facts_from_legacy", "check_bounds", "FactOutOfRange", "MAX_BYTES"]
