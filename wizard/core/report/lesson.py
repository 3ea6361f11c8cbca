"""The lesson's three parts of the report: the checklist, the benchmark, the judgment.

These are what the course asks a student to fill in by hand (date, local GPU, nvidia-smi result,
PyTorch CUDA, GPU memory, Colab, cloud GPU; CPU time, GPU time, speedup; which lessons run here
and which need Colab or the cloud), so they come first, each line from a measured fact or
"not run".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from wizard.core.base.i18n import t
from wizard.core.machine.models import STATUS_NO_DRIVER, STATUS_OK, Detection
from wizard.core.report.document import (
    CPU_BUILD_RIGHT_HERE,
    FAIL,
    INFO,
    KIND_CLOUD,
    KIND_COLAB,
    NOT_RUN,
    PASS,
    SKIP,
    WARN,
    Item,
    Section,
    Table,
    gib_from_mib,
    gpu_label,
)
from wizard.core.report.inputs import ReportContext, bench_course, check_of, cuda_available, gpus_of
from wizard.core.report.text import date_text, fmt_seconds, fmt_speedup, gib, machine_title, not_run, remote_summary

if TYPE_CHECKING:
    from wizard.core.verify.benchmark import BenchReport
    from wizard.core.verify.checklist import VerifyReport


def _remote_line(ctx: ReportContext, kind: str) -> Item:
    label_key = "report.line.colab" if kind == KIND_COLAB else "report.line.cloud"
    found = [m for m in ctx.machines[1:] if m.kind == kind]
    if not found:
        hint = "report.remote.none_colab" if kind == KIND_COLAB else "report.remote.none_cloud"
        return Item(kind, ctx.t(label_key), ctx.t("report.remote.none"), NOT_RUN, [ctx.t(hint)])
    texts = []
    for m in found:
        texts.append(ctx.t("report.remote.yes", what=remote_summary(m, ctx.lang)))
    return Item(kind, ctx.t(label_key), "; ".join(texts), PASS)


# --- the lesson's checklist ---------------------------------------------------------------------


def checklist_section(ctx: ReportContext) -> Section:
    d, verify = ctx.detection, ctx.verify
    # the day the checklist is filled in: when the report is made, as its footer says (the run
    # may have started hours or days earlier in a window left open)
    made = ctx.made_at or ctx.inputs.started_at
    items = [Item("date", ctx.t("report.line.date"), date_text(made) or ctx.t("common.na"))]
    if d is None:
        why = "report.why.no_detection"
        items += [Item("local_gpu", ctx.t("report.line.local_gpu"), not_run(ctx.lang, why), NOT_RUN),
                  Item("nvidia_smi", ctx.t("report.line.nvidia_smi"), not_run(ctx.lang, why), NOT_RUN)]
    else:
        items += [_local_gpu_line(ctx, d), nvidia_smi_line(ctx, d)]
    items.append(_pytorch_line(ctx, verify))
    items.append(_memory_line(ctx, d, verify))
    items += [_remote_line(ctx, KIND_COLAB), _remote_line(ctx, KIND_CLOUD)]
    return Section("checklist", ctx.t("report.title"), level=1, items=items)


def _local_gpu_line(ctx: ReportContext, d: Detection) -> Item:
    label = ctx.t("report.line.local_gpu")
    gpus = gpus_of(d)
    if gpus:
        return Item("local_gpu", label, "; ".join(gpu_label(g.name, g.memory_total_mib, g.compute_capability)
                                                    for g in gpus))
    nvidia_adapters = [a.name or a.pci_id or "NVIDIA" for a in d.system.display_adapters if a.vendor == "nvidia"]
    if nvidia_adapters:  # a card the driver does not answer for
        return Item("local_gpu", label, ctx.t("report.gpu.no_driver", names=", ".join(nvidia_adapters)), FAIL)
    others = [a.name for a in d.system.display_adapters if a.vendor != "nvidia" and a.name]
    if d.system.os == "macos":
        return Item("local_gpu", label, ctx.t("report.gpu.macos", others=", ".join(others) or "Apple"))
    value = ctx.t("report.gpu.none") + (f" ({', '.join(others)})" if others else "")
    return Item("local_gpu", label, value)


def nvidia_smi_line(ctx: ReportContext, d: Detection) -> Item:
    nv = d.nvidia
    label = ctx.t("report.line.nvidia_smi")
    smi = next((s for s in nv.sources if s.source.startswith("nvidia-smi")), None)
    if nv.status == STATUS_OK:
        value = ctx.t("report.smi.ok", driver=nv.driver_version or "?", cuda=nv.cuda_version or "?",
                      count=len(nv.gpus))
        details = []
        if smi is not None and smi.status != STATUS_OK:
            details.append(ctx.t("report.smi.nvml_only", error=smi.raw_error or smi.status))
        return Item("nvidia_smi", label, value, PASS, details)
    text = t(f"doctor.nvidia_status.{nv.status}", ctx.lang)
    no_card = nv.status == STATUS_NO_DRIVER and not any(a.vendor == "nvidia" for a in d.system.display_adapters)
    error = next((s.raw_error for s in nv.sources if s.raw_error), None)
    details = [error.strip().splitlines()[0][:200]] if error and not no_card else []
    return Item("nvidia_smi", label, text, INFO if no_card else FAIL, details)


def _pytorch_line(ctx: ReportContext, verify: VerifyReport | None) -> Item:
    label = ctx.t("report.line.pytorch_cuda")
    if verify is None:
        details = []
        if ctx.install is not None and ctx.install.ok:
            details.append(ctx.t("report.pytorch.installed_not_verified"))
        return Item("pytorch_cuda", label, not_run(ctx.lang, "report.why.no_verify"), NOT_RUN, details)
    versions = verify.versions
    torch_v = versions.get("torch")
    if not torch_v:
        imp = check_of(verify, "torch.import")
        detail = (imp.detail_text(ctx.lang) if imp is not None else None) or ctx.t("report.pytorch.not_importable")
        return Item("pytorch_cuda", label, detail, FAIL)
    cuda = versions.get("cuda")
    value = ctx.t("report.pytorch.value", torch=torch_v, cuda=cuda or ctx.t("report.pytorch.cpu_build"),
                  available=_bool_text(cuda_available(verify)))
    c = check_of(verify, "cuda.available")
    status = {PASS: PASS, FAIL: FAIL, WARN: WARN}.get(c.status if c is not None else "", INFO)
    if not cuda:
        build = check_of(verify, "cuda.build")
        status = build.status if build is not None and build.status in (FAIL, WARN) else INFO
        if build is not None and build.cause == CPU_BUILD_RIGHT_HERE:
            status = INFO  # no NVIDIA GPU: the CPU build is the right one, not something to fix
    return Item("pytorch_cuda", label, value, status)


def _bool_text(value: Any) -> str:
    return {True: "True", False: "False"}.get(value, "?")


def _memory_line(ctx: ReportContext, d: Detection | None, verify: VerifyReport | None) -> Item:
    label = ctx.t("report.line.gpu_memory")
    mem = check_of(verify, "cuda.memory")
    if mem is not None and mem.status in (PASS, WARN):
        ev = mem.evidence  # the probe's own numbers (JSON from the target environment)
        total, free = ev.get("total_bytes"), ev.get("free_bytes")
        if total:
            value = ctx.t("report.memory.torch", total=gib(total), free=gib(free) or "?")
            return Item("gpu_memory", label, value, WARN if mem.status == WARN else INFO)
    if d is None:
        return Item("gpu_memory", label, not_run(ctx.lang, "report.why.no_detection"), NOT_RUN)
    gpus = [g for g in gpus_of(d) if g.memory_total_mib]
    if not gpus:
        return Item("gpu_memory", label, ctx.t("report.memory.none"))
    values = []
    for g in gpus:
        used = g.memory_used_mib
        values.append(ctx.t("report.memory.driver", total=f"{g.memory_total_mib:.0f}",
                            gib=gib_from_mib(g.memory_total_mib),
                            used=f"{used:.0f}" if used is not None else "?"))
    return Item("gpu_memory", label, "; ".join(values))


# --- benchmark ------------------------------------------------------------------------------------


def benchmark_section(ctx: ReportContext) -> Section:
    sec = Section("benchmark", ctx.t("report.section.benchmark"))
    bench, local = ctx.bench, ctx.machines[0]
    labels = (ctx.t("report.line.cpu_time"), ctx.t("report.line.gpu_time"), ctx.t("report.line.speedup"))
    if bench is None:
        why = not_run(ctx.lang, "report.why.no_bench")
        sec.items = [Item(i, label, why, NOT_RUN) for i, label in zip(("cpu_time", "gpu_time", "speedup"), labels)]
        sec.status = NOT_RUN
    else:
        cpu, gpu = bench_course(bench)
        size = local.bench_size
        what = ctx.t("report.bench.what", size=size) if size else ""
        if cpu is None:
            cpu_item = Item("cpu_time", labels[0], ctx.t("report.bench.no_course"), NOT_RUN)
        else:
            cpu_item = Item("cpu_time", labels[0], f"{fmt_seconds(local.cpu_s, ctx.lang)} ({what})")
        if gpu is None:
            reason = _no_gpu_reason(ctx, bench)
            gpu_item = Item("gpu_time", labels[1], ctx.t("report.bench.no_gpu", reason=reason), SKIP)
            speed_item = Item("speedup", labels[2], t("common.na", ctx.lang), SKIP)
        else:
            name = bench.gpu_name or gpu.device
            gpu_item = Item("gpu_time", labels[1], f"{fmt_seconds(local.gpu_s, ctx.lang)} ({what}, {name})")
            status = WARN if (local.speedup or 0) < 1 else INFO
            speed_item = Item("speedup", labels[2], fmt_speedup(local.speedup, ctx.lang), status)
        sec.items = [cpu_item, gpu_item, speed_item]
    if len(ctx.machines) > 1:
        sec.tables.append(_comparison_table(ctx))
    return sec


def _no_gpu_reason(ctx: ReportContext, bench: BenchReport) -> str:
    for s in bench.skipped:
        text = s.text(ctx.lang)
        if text:
            return text
    return ctx.t("report.gpu.none")


def _comparison_table(ctx: ReportContext) -> Table:
    cols = [ctx.t(k) for k in ("report.col.machine", "report.col.gpu", "report.col.driver_cuda", "report.col.torch",
                               "report.col.cpu_time", "report.col.gpu_time", "report.col.speedup")]
    rows = []
    na, not_run = t("common.na", ctx.lang), t("report.not_run", ctx.lang)
    for m in ctx.machines:
        ran = m.cpu_s is not None or m.gpu_s is not None
        rows.append([
            machine_title(m, ctx.lang),
            m.gpu_text or (ctx.t("report.gpu.none") if m.nvidia_status else na),
            f"{m.driver_version} / CUDA {m.cuda_version or '?'}" if m.driver_version else na,
            m.torch_version or na,
            fmt_seconds(m.cpu_s, ctx.lang) if m.cpu_s is not None else (not_run if not ran else na),
            fmt_seconds(m.gpu_s, ctx.lang) if m.gpu_s is not None else (not_run if not ran else na),
            fmt_speedup(m.speedup, ctx.lang) if m.speedup is not None else (not_run if not ran else na),
        ])
    return Table("comparison", cols, rows, caption=ctx.t("report.bench.comparison"))


# --- judgment ---------------------------------------------------------------------------------------


def workload_judgments(ctx: ReportContext) -> tuple[list[Any], str] | None:
    """The lessons judged for this machine (its own GPU, else its CPU for the small ones) and
    the sentence saying what they were judged for; None when detection did not run. The VRAM
    page's GPU choice is a what-if and never the basis: a PC without a GPU is judged as one."""
    if ctx.detection is None:
        return None
    from wizard.core.vram.units import vram_from_gpu
    from wizard.core.vram.workloads import judge_machine_lessons

    gpus = []
    for g in gpus_of(ctx.detection):
        if g.memory_total_mib:
            total, used = vram_from_gpu(g)
            gpus.append((g.name, total, used))
    lessons = judge_machine_lessons(gpus, ctx.detection.system.ram_total_bytes)
    return lessons.judgments, lessons.basis(ctx.lang)


def judgment_section(ctx: ReportContext) -> Section:
    from wizard.core.vram.workloads import report_headings, report_lines

    sec = Section("judgment", ctx.t("report.section.judgment"))
    head_here, head_remote = report_headings(ctx.lang)
    judged = workload_judgments(ctx)
    if judged is None:
        why = not_run(ctx.lang, "report.why.no_detection")
        sec.items = [Item("runs_here", head_here, why, NOT_RUN), Item("needs_remote", head_remote, why, NOT_RUN)]
        sec.status = NOT_RUN
        return sec
    judgments, basis = judged
    here, remote = report_lines(judgments, ctx.lang)
    none = ctx.t("report.judgment.none")
    sec.items = [Item("runs_here", head_here, ctx.t("report.judgment.count", count=len(here)) if here else none,
                      INFO, here),
                 Item("needs_remote", head_remote, ctx.t("report.judgment.count", count=len(remote)) if remote
                      else none, INFO, remote)]
    sec.paragraphs = [basis]
    return sec


__all__ = ["checklist_section", "benchmark_section", "judgment_section", "nvidia_smi_line",
           "workload_judgments"]
