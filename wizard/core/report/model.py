"""The checklist report: what this run measured, in the lesson's order, ready to hand in.

The lesson ends with a checklist students fill in by hand (DESIGN.md: date, local GPU,
nvidia-smi result, PyTorch CUDA, GPU memory, Colab, cloud GPU; benchmark CPU time, GPU time,
speedup; which lessons run here and which need Colab or the cloud). :func:`build_report` fills
every line from what the session measured, so a teaching assistant can trust it: a step that
did not run says "not run" and nothing is guessed. The lesson's three parts come first, then
the blog's verification checklist (driver, CUDA, PyTorch, a GPU tensor operation, memory),
then the details a teaching assistant asks for, then the raw appendices (collect_env and
nvidia-smi exactly as they were printed).

Why the model holds text, not message keys: the report is a document. It is built in one
language, its JSON (:mod:`wizard.core.report.as_json`) loads back into the same model and renders
to the same Markdown and HTML (:mod:`wizard.core.report.render`), on a machine with another
wizard version. Beside the text, :class:`MachineRecord` keeps each machine's facts as values
(driver, CUDA, GPUs, torch, benchmark times), which is what another report imports for its
Colab/cloud rows (:mod:`wizard.core.report.remote`).

The later steps' results are read by duck typing (``to_json(lang)``, ``summary()``), because
those steps evolve on their own; a result of an unknown shape is reported as not run, never
as passed.
"""

from __future__ import annotations

import datetime as _dt
import os
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from wizard import __version__
from wizard.core.base.i18n import language, t
from wizard.core.machine.models import STATUS_NO_DRIVER, STATUS_OK, Detection, GpuInfo

if TYPE_CHECKING:
    from wizard.core.base.privacy import Redactor
    from wizard.app.session import Session

SCHEMA = "gpu-setup-wizard/report"
SCHEMA_VERSION = "1.0"

# A line's status. "info": a plain fact; "not_run": the step that measures it did not run.
PASS, WARN, FAIL, SKIP, INFO, NOT_RUN = "pass", "warn", "fail", "skip", "info", "not_run"
STATUSES = (PASS, WARN, FAIL, SKIP, INFO, NOT_RUN)

# Section styles: "fields" shows "label: value" (a mark only for problems); "checks" shows a
# pass/fail mark on every line (the verification checklist).
STYLE_FIELDS, STYLE_CHECKS = "fields", "checks"

KIND_LOCAL, KIND_COLAB, KIND_CLOUD = "local", "colab", "cloud"
MACHINE_KINDS = (KIND_LOCAL, KIND_COLAB, KIND_CLOUD)

# verify's cause for a CPU-only build on a machine without an NVIDIA GPU: the right build there
CPU_BUILD_RIGHT_HERE = "cpu_only_no_gpu"

# Environment variables a Colab runtime sets (its kernel and `!` shell both see them).
COLAB_ENV_VARS = ("COLAB_RELEASE_TAG", "COLAB_GPU", "COLAB_BACKEND_VERSION", "COLAB_JUPYTER_IP")

# The section ids, in the order of the report.
SECTION_ORDER = ("checklist", "benchmark", "judgment", "verify_checklist", "system", "install", "verification",
                 "bench_details", "vram", "findings", "changes")


# ---------------------------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------------------------
@dataclass
class Item:
    """One line: ``label: value``, with a status and nested detail lines (cause, fix, lessons)."""

    id: str
    label: str
    value: str
    status: str = INFO
    details: list[str] = field(default_factory=list)


@dataclass
class Table:
    """Rows of text under column headings; ``row_status`` colours a row's status cell."""

    id: str
    columns: list[str]
    rows: list[list[str]]
    caption: str | None = None
    row_status: list[str] = field(default_factory=list)


@dataclass
class Block:
    """Preformatted text kept exactly (commands, collect_env, nvidia-smi). ``text`` None: none."""

    id: str
    title: str
    text: str | None
    empty_note: str | None = None  # what to print instead when there is no text


@dataclass
class Section:
    id: str
    title: str
    level: int = 2
    status: str = INFO  # NOT_RUN when the whole step did not run
    style: str = STYLE_FIELDS
    paragraphs: list[str] = field(default_factory=list)
    items: list[Item] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)

    def item(self, item_id: str) -> Item | None:
        return next((i for i in self.items if i.id == item_id), None)


@dataclass
class MachineRecord:
    """One machine's facts as values: this PC, or a Colab/cloud machine added to the report."""

    kind: str  # "local" | "colab" | "cloud"
    source: str  # "detection" | "report-json" | "doctor-json" | "nvidia-smi"
    date: str | None = None
    label: str | None = None  # where it came from (a file name), for the reader
    os: str | None = None
    platform_hint: str | None = None  # "colab" when the run itself was inside Colab
    nvidia_status: str | None = None
    driver_version: str | None = None
    cuda_version: str | None = None  # the highest CUDA the driver supports
    gpus: list[dict[str, Any]] = field(default_factory=list)  # name, memory_total_mib, compute_capability
    torch_version: str | None = None
    torch_cuda: str | None = None
    cuda_available: bool | None = None
    bench_size: int | None = None  # N of the course's N×N matmul
    cpu_s: float | None = None
    gpu_s: float | None = None
    speedup: float | None = None
    raw_nvidia_smi: str | None = None  # a pasted or imported nvidia-smi output (remote machines)

    @property
    def gpu_text(self) -> str | None:
        if not self.gpus:
            return None
        return "; ".join(_gpu_label(g.get("name"), g.get("memory_total_mib"), g.get("compute_capability"))
                         for g in self.gpus)


@dataclass
class Report:
    lang: str
    generated_at: str
    title: str
    sections: list[Section]
    appendices: list[Block]
    machines: list[MachineRecord]  # [0] is this machine; then the Colab/cloud machines added
    private_included: bool = False
    generator: str = f"gpu-setup-wizard {__version__}"

    def section(self, section_id: str) -> Section | None:
        return next((s for s in self.sections if s.id == section_id), None)

    def item(self, section_id: str, item_id: str) -> Item | None:
        s = self.section(section_id)
        return s.item(item_id) if s else None

    def appendix(self, block_id: str) -> Block | None:
        return next((b for b in self.appendices if b.id == block_id), None)

    @property
    def local(self) -> MachineRecord:
        return self.machines[0]

    @property
    def remotes(self) -> list[MachineRecord]:
        return self.machines[1:]

    def redacted(self, redactor: Redactor) -> "Report":
        """The same report with the user name, home folder, host name and GPU ids replaced."""
        from wizard.core.report.as_json import report_from_dict, report_to_dict

        doc = redactor.redact(report_to_dict(self))
        report = report_from_dict(doc)
        report.private_included = False
        return report


# ---------------------------------------------------------------------------------------------
# Small formatting helpers
# ---------------------------------------------------------------------------------------------
def _num(value: float, digits: int = 3) -> str:
    """Significant digits without exponent for the magnitudes a report shows."""
    if value == 0:
        return "0"
    if abs(value) >= 10 ** digits:
        return f"{value:.0f}"
    text = f"{value:.{digits}g}"
    if "e" in text:
        text = f"{value:.6f}".rstrip("0").rstrip(".")
    return text


def fmt_seconds(seconds: float | None, lang: str) -> str:
    if seconds is None:
        return t("common.na", lang)
    if seconds >= 0.001:
        return f"{_num(seconds, 4)} s"
    return f"{_num(seconds * 1e6, 3)} µs"


def fmt_duration(seconds: float | None, lang: str) -> str:
    """A duration in the unit that reads best: '1.198 s', '418.1 ms', '23.1 µs' (tables)."""
    if seconds is None:
        return t("common.na", lang)
    if seconds >= 1:
        return f"{_num(seconds, 4)} s"
    if seconds >= 0.001:
        return f"{_num(seconds * 1e3, 4)} ms"
    return f"{_num(seconds * 1e6, 3)} µs"


def fmt_speedup(factor: float | None, lang: str) -> str:
    if factor is None:
        return t("common.na", lang)
    return t("report.speedup_value", lang, factor=_num(factor, 3))


def _gib_from_mib(mib: float | None) -> str | None:
    return None if mib is None else f"{mib / 1024:.1f} GiB"


def _gib(n_bytes: float | None) -> str | None:
    return None if n_bytes is None else f"{n_bytes / 2**30:.1f} GiB"


def _gpu_label(name: str | None, memory_mib: float | None, cc: str | None) -> str:
    bits = [b for b in (_gib_from_mib(memory_mib), f"sm_{cc.replace('.', '')}" if cc else None) if b]
    return (name or "NVIDIA GPU") + (f" ({', '.join(bits)})" if bits else "")


def _status_word(status: str, lang: str) -> str:
    return t(f"report.status.{status}", lang)


def _not_run(lang: str, why_key: str | None = None) -> str:
    text = t("report.not_run", lang)
    return f"{text} — {t(why_key, lang)}" if why_key else text


def detect_platform_hint(environ: Mapping[str, str]) -> str | None:
    """"colab" when these variables say the process runs in a Colab runtime, else None."""
    return "colab" if any(environ.get(name) for name in COLAB_ENV_VARS) else None


# ---------------------------------------------------------------------------------------------
# Reading the later steps' results (duck typing: they evolve on their own)
# ---------------------------------------------------------------------------------------------
def _as_doc(value: Any, lang: str) -> dict[str, Any] | None:
    """A step's result as its JSON document: a dict as is, else ``to_json(lang)``."""
    if value is None:
        return None
    if isinstance(value, Mapping):
        return dict(value)
    to_json = getattr(value, "to_json", None)
    if callable(to_json):
        try:
            doc = to_json(lang)
        except TypeError:
            doc = to_json()
        return doc if isinstance(doc, dict) else None
    return None


def _install_doc(value: Any) -> dict[str, Any] | None:
    """The install result: the install summary dict (``InstallJob.summary()``)."""
    if value is None:
        return None
    if isinstance(value, Mapping):
        return dict(value)
    summary = getattr(value, "summary", None)
    if callable(summary):
        doc = summary()
        return doc if isinstance(doc, dict) else None
    return _as_doc(value, "en")


def _checks(verify: dict[str, Any] | None) -> list[dict[str, Any]]:
    if not verify:
        return []
    return [c for c in verify.get("checks") or [] if isinstance(c, dict)]


def _check(verify: dict[str, Any] | None, cid: str, device: int | None = None) -> dict[str, Any] | None:
    for c in _checks(verify):
        if c.get("id") == cid and (device is None or c.get("device") in (device, None)):
            return c
    return None


def _bench_course(bench: dict[str, Any] | None) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The course's N×N matmul on the CPU and on the GPU (the last of each)."""
    cpu = gpu = None
    for r in (bench or {}).get("results") or []:
        if isinstance(r, dict) and r.get("id") == "course_matmul":
            if r.get("device") == "cpu":
                cpu = r
            else:
                gpu = r
    return cpu, gpu


# ---------------------------------------------------------------------------------------------
# This machine as a record
# ---------------------------------------------------------------------------------------------
def _gpus_of(detection: Detection | None) -> list[GpuInfo]:
    if detection is None or detection.nvidia.status != STATUS_OK:
        return []
    return list(detection.nvidia.gpus)


def local_machine(session: Session, lang: str | None = None) -> MachineRecord:
    lang = lang or session.lang
    d = session.detection
    verify = _as_doc(session.results.get("verify"), lang)
    bench = _as_doc(session.results.get("bench"), lang)
    record = MachineRecord(kind=KIND_LOCAL, source="detection", date=session.started_at,
                           platform_hint=detect_platform_hint(session.host.environ))
    if d is not None:
        record.os = d.system.os_pretty or (d.system.os if d.system.os != "unknown" else None)
        record.nvidia_status = d.nvidia.status
        record.driver_version = d.nvidia.driver_version
        record.cuda_version = d.nvidia.cuda_version
        record.gpus = [{"name": g.name, "memory_total_mib": g.memory_total_mib,
                        "compute_capability": g.compute_capability} for g in _gpus_of(d)]
    if verify:
        versions = verify.get("versions") or {}
        record.torch_version = versions.get("torch")
        record.torch_cuda = versions.get("cuda")
        cuda = (verify.get("facts") or {}).get("cuda")
        if isinstance(cuda, dict) and isinstance(cuda.get("is_available"), bool):
            record.cuda_available = cuda["is_available"]
    cpu, gpu = _bench_course(bench)
    if cpu is not None:
        record.bench_size = cpu.get("size")
        record.cpu_s = cpu.get("median_s")
    if gpu is not None:
        record.gpu_s = gpu.get("median_s")
    if record.cpu_s and record.gpu_s:
        record.speedup = record.cpu_s / record.gpu_s
    return record


def session_redactor(session: Session) -> Redactor:
    """Who to hide: the home folder and user of the session's host, and its host name."""
    from wizard.core.base.privacy import redactor_for

    facts = session.host.platform_facts()
    hostname = (session.detection.system.hostname if session.detection else None) or facts.get("node")
    return redactor_for(session.host.home(), session.host.environ, hostname)


# ---------------------------------------------------------------------------------------------
# Building
# ---------------------------------------------------------------------------------------------
@dataclass
class _Ctx:
    session: Session
    lang: str
    detection: Detection | None
    verify: dict[str, Any] | None
    bench: dict[str, Any] | None
    install: dict[str, Any] | None
    machines: list[MachineRecord]

    def t(self, key: str, **params: Any) -> str:
        return t(key, self.lang, **params)


def build_report(session: Session, *, lang: str | None = None, include_private: bool = False,
                 now: _dt.datetime | None = None, redactor: Redactor | None = None,
                 remotes: Iterable[MachineRecord] | None = None) -> Report:
    """The report of ``session``. Colab/cloud machines come from ``remotes``, else from
    ``session.results["remotes"]``. Without ``include_private`` the user name, home folder,
    host name and GPU ids are replaced (``redactor`` defaults to the session host's)."""
    lang = lang or session.lang or language()
    results = session.results
    remote_list = list(remotes if remotes is not None else results.get("remotes") or [])
    ctx = _Ctx(session, lang, session.detection, _as_doc(results.get("verify"), lang),
               _as_doc(results.get("bench"), lang), _install_doc(results.get("install")),
               [local_machine(session, lang), *remote_list])
    when = (now or _dt.datetime.now().astimezone()).isoformat(timespec="seconds")
    sections = [
        _checklist(ctx), _benchmark(ctx), _judgment(ctx), _verify_checklist(ctx), _system(ctx), _install(ctx),
        _verification(ctx), _bench_details(ctx), _vram(ctx), _findings(ctx), _changes(ctx),
    ]
    report = Report(lang=lang, generated_at=when, title=ctx.t("report.title"), sections=sections,
                    appendices=_appendices(ctx), machines=ctx.machines, private_included=include_private)
    if include_private:
        return report
    return report.redacted(redactor or session_redactor(session))


# --- the lesson's checklist ---------------------------------------------------------------------
def _date_text(iso: str | None) -> str | None:
    if not iso:
        return None
    try:
        when = _dt.datetime.fromisoformat(iso)
    except ValueError:
        return iso
    return when.strftime("%Y-%m-%d %H:%M")


def _remote_line(ctx: _Ctx, kind: str) -> Item:
    label_key = "report.line.colab" if kind == KIND_COLAB else "report.line.cloud"
    found = [m for m in ctx.machines[1:] if m.kind == kind]
    if not found:
        hint = "report.remote.none_colab" if kind == KIND_COLAB else "report.remote.none_cloud"
        return Item(kind, ctx.t(label_key), ctx.t("report.remote.none"), NOT_RUN, [ctx.t(hint)])
    texts = []
    for m in found:
        texts.append(ctx.t("report.remote.yes", what=remote_summary(m, ctx.lang)))
    return Item(kind, ctx.t(label_key), "; ".join(texts), PASS)


def remote_summary(m: MachineRecord, lang: str) -> str:
    """'Tesla T4 (15.0 GiB), driver 550.54.15, CUDA 12.4 (pasted nvidia-smi output)'."""
    parts = [m.gpu_text or (t("report.remote.no_gpu", lang) if m.nvidia_status else t("common.na", lang))]
    if m.driver_version:
        parts.append(t("report.remote.driver", lang, driver=m.driver_version, cuda=m.cuda_version or "?"))
    if m.torch_version:
        parts.append(f"torch {m.torch_version}")
    return f"{', '.join(parts)} ({t('report.source.' + m.source, lang)})"


def _checklist(ctx: _Ctx) -> Section:
    d, verify = ctx.detection, ctx.verify
    items = [Item("date", ctx.t("report.line.date"), _date_text(ctx.session.started_at) or ctx.t("common.na"))]
    if d is None:
        why = "report.why.no_detection"
        items += [Item("local_gpu", ctx.t("report.line.local_gpu"), _not_run(ctx.lang, why), NOT_RUN),
                  Item("nvidia_smi", ctx.t("report.line.nvidia_smi"), _not_run(ctx.lang, why), NOT_RUN)]
    else:
        items += [_local_gpu_line(ctx, d), _nvidia_smi_line(ctx, d)]
    items.append(_pytorch_line(ctx, verify))
    items.append(_memory_line(ctx, d, verify))
    items += [_remote_line(ctx, KIND_COLAB), _remote_line(ctx, KIND_CLOUD)]
    return Section("checklist", ctx.t("report.title"), level=1, items=items)


def _local_gpu_line(ctx: _Ctx, d: Detection) -> Item:
    label = ctx.t("report.line.local_gpu")
    gpus = _gpus_of(d)
    if gpus:
        return Item("local_gpu", label, "; ".join(_gpu_label(g.name, g.memory_total_mib, g.compute_capability)
                                                    for g in gpus))
    nvidia_adapters = [a.name or a.pci_id or "NVIDIA" for a in d.system.display_adapters if a.vendor == "nvidia"]
    if nvidia_adapters:  # a card the driver does not answer for
        return Item("local_gpu", label, ctx.t("report.gpu.no_driver", names=", ".join(nvidia_adapters)), FAIL)
    others = [a.name for a in d.system.display_adapters if a.vendor != "nvidia" and a.name]
    if d.system.os == "macos":
        return Item("local_gpu", label, ctx.t("report.gpu.macos", others=", ".join(others) or "Apple"))
    value = ctx.t("report.gpu.none") + (f" ({', '.join(others)})" if others else "")
    return Item("local_gpu", label, value)


def _nvidia_smi_line(ctx: _Ctx, d: Detection) -> Item:
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


def _pytorch_line(ctx: _Ctx, verify: dict[str, Any] | None) -> Item:
    label = ctx.t("report.line.pytorch_cuda")
    if not verify:
        details = []
        if ctx.install and ctx.install.get("ok"):
            details.append(ctx.t("report.pytorch.installed_not_verified"))
        return Item("pytorch_cuda", label, _not_run(ctx.lang, "report.why.no_verify"), NOT_RUN, details)
    versions = verify.get("versions") or {}
    torch_v = versions.get("torch")
    if not torch_v:
        imp = _check(verify, "torch.import")
        detail = (imp or {}).get("detail") or ctx.t("report.pytorch.not_importable")
        return Item("pytorch_cuda", label, detail, FAIL)
    cuda = versions.get("cuda")
    facts_cuda = (verify.get("facts") or {}).get("cuda")
    available = facts_cuda.get("is_available") if isinstance(facts_cuda, dict) else None
    value = ctx.t("report.pytorch.value", torch=torch_v, cuda=cuda or ctx.t("report.pytorch.cpu_build"),
                  available=_bool_text(available))
    c = _check(verify, "cuda.available")
    status = {PASS: PASS, FAIL: FAIL, WARN: WARN}.get((c or {}).get("status"), INFO)
    if not cuda:
        build = _check(verify, "cuda.build") or {}
        status = build.get("status") if build.get("status") in (FAIL, WARN) else INFO
        if build.get("cause_id") == CPU_BUILD_RIGHT_HERE:
            status = INFO  # no NVIDIA GPU: the CPU build is the right one, not something to fix
    return Item("pytorch_cuda", label, value, status)


def _bool_text(value: Any) -> str:
    return {True: "True", False: "False"}.get(value, "?")


def _memory_line(ctx: _Ctx, d: Detection | None, verify: dict[str, Any] | None) -> Item:
    label = ctx.t("report.line.gpu_memory")
    mem = _check(verify, "cuda.memory")
    if mem and mem.get("status") in (PASS, WARN):
        ev = mem.get("evidence") or {}
        total, free = ev.get("total_bytes"), ev.get("free_bytes")
        if total:
            value = ctx.t("report.memory.torch", total=_gib(total), free=_gib(free) or "?")
            return Item("gpu_memory", label, value, WARN if mem["status"] == WARN else INFO)
    if d is None:
        return Item("gpu_memory", label, _not_run(ctx.lang, "report.why.no_detection"), NOT_RUN)
    gpus = [g for g in _gpus_of(d) if g.memory_total_mib]
    if not gpus:
        return Item("gpu_memory", label, ctx.t("report.memory.none"))
    values = []
    for g in gpus:
        used = g.memory_used_mib
        values.append(ctx.t("report.memory.driver", total=f"{g.memory_total_mib:.0f}",
                            gib=_gib_from_mib(g.memory_total_mib),
                            used=f"{used:.0f}" if used is not None else "?"))
    return Item("gpu_memory", label, "; ".join(values))


# --- benchmark ------------------------------------------------------------------------------------
def _benchmark(ctx: _Ctx) -> Section:
    sec = Section("benchmark", ctx.t("report.section.benchmark"))
    bench, local = ctx.bench, ctx.machines[0]
    labels = (ctx.t("report.line.cpu_time"), ctx.t("report.line.gpu_time"), ctx.t("report.line.speedup"))
    if not bench:
        why = _not_run(ctx.lang, "report.why.no_bench")
        sec.items = [Item(i, label, why, NOT_RUN) for i, label in zip(("cpu_time", "gpu_time", "speedup"), labels)]
        sec.status = NOT_RUN
    else:
        cpu, gpu = _bench_course(bench)
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
            name = (bench.get("gpu") or {}).get("name") or gpu.get("device")
            gpu_item = Item("gpu_time", labels[1], f"{fmt_seconds(local.gpu_s, ctx.lang)} ({what}, {name})")
            status = WARN if (local.speedup or 0) < 1 else INFO
            speed_item = Item("speedup", labels[2], fmt_speedup(local.speedup, ctx.lang), status)
        sec.items = [cpu_item, gpu_item, speed_item]
    if len(ctx.machines) > 1:
        sec.tables.append(_comparison_table(ctx))
    return sec


def _no_gpu_reason(ctx: _Ctx, bench: dict[str, Any]) -> str:
    for s in bench.get("skipped") or []:
        if isinstance(s, dict) and s.get("text"):
            return str(s["text"])
    return ctx.t("report.gpu.none")


def machine_title(m: MachineRecord, lang: str) -> str:
    """'Colab · colab.json': the kind, and the file it came from."""
    return t(f"report.machine.{m.kind}", lang) + (f" · {m.label}" if m.label else "")


def _comparison_table(ctx: _Ctx) -> Table:
    cols = [ctx.t(k) for k in ("report.col.machine", "report.col.gpu", "report.col.driver_cuda", "report.col.torch",
                               "report.line.cpu_time", "report.line.gpu_time", "report.line.speedup")]
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
def _vram_basis(ctx: _Ctx) -> tuple[int | None, int, str] | None:
    """(VRAM total bytes or None for no GPU, bytes in use, the sentence saying what it is), or
    None when there is nothing to judge from (detection did not run)."""
    from wizard.core.vram.estimate import format_gib, vram_from_gpu

    est = ctx.session.results.get("vram")
    total = getattr(est, "vram_total_bytes", None)
    if total:
        used = int(getattr(est, "vram_used_bytes", 0) or 0)
        gpus = [g for g in _gpus_of(ctx.detection) if vram_from_gpu(g)[0] == total]
        if gpus:
            return total, used, ctx.t("report.judgment.basis_gpu", name=gpus[0].name or "GPU", total=format_gib(total, 1))
        return total, used, ctx.t("report.judgment.basis_typed", total=format_gib(total, 1))
    if ctx.detection is None:
        return None
    gpus = [g for g in _gpus_of(ctx.detection) if g.memory_total_mib]
    if not gpus:
        return None, 0, ctx.t("report.judgment.basis_no_gpu")
    gpu = max(gpus, key=lambda g: g.memory_total_mib or 0)
    total, used = vram_from_gpu(gpu)
    return total, used, ctx.t("report.judgment.basis_gpu", name=gpu.name or "GPU", total=format_gib(total or 0, 1))


def _judgments(ctx: _Ctx) -> tuple[list[Any], str] | None:
    basis = _vram_basis(ctx)
    if basis is None:
        return None
    from wizard.core.vram.workloads import judge_workloads

    total, used, sentence = basis
    return judge_workloads(total, used), sentence


def _judgment(ctx: _Ctx) -> Section:
    from wizard.core.vram.workloads import report_headings, report_lines

    sec = Section("judgment", ctx.t("report.section.judgment"))
    head_here, head_remote = report_headings(ctx.lang)
    judged = _judgments(ctx)
    if judged is None:
        why = _not_run(ctx.lang, "report.why.no_detection")
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


# --- the blog's verification checklist ---------------------------------------------------------------
def _check_item(ctx: _Ctx, item_id: str, label_key: str, c: dict[str, Any] | None,
                missing: tuple[str, str] | None = None) -> Item:
    """A line from a verify check; ``missing``: (status, text) when the check is absent."""
    label = ctx.t(label_key)
    if c is None:
        status, text = missing or (NOT_RUN, _not_run(ctx.lang, "report.why.no_verify"))
        return Item(item_id, label, text, status)
    details = []
    if c.get("status") in (FAIL, WARN):
        if c.get("cause") and c.get("cause") != c.get("detail"):
            details.append(ctx.t("report.cause", text=c["cause"]))
        if c.get("fix"):
            details.append(ctx.t("report.fix", text=c["fix"]))
    status = c.get("status") if c.get("status") in STATUSES else INFO
    return Item(item_id, label, str(c.get("detail") or _status_word(status, ctx.lang)), status, details)


def _verify_checklist(ctx: _Ctx) -> Section:
    d, verify = ctx.detection, ctx.verify
    sec = Section("verify_checklist", ctx.t("report.section.verify_checklist"), style=STYLE_CHECKS)
    # driver: what detection saw outside the environment; the env's own view when it disagrees
    drv = _check(verify, "cuda.driver")
    if drv is not None and drv.get("status") in (FAIL, WARN):
        driver_item = _check_item(ctx, "driver", "report.check.driver", drv)
    elif d is None:
        driver_item = Item("driver", ctx.t("report.check.driver"), _not_run(ctx.lang, "report.why.no_detection"),
                           NOT_RUN)
    elif d.nvidia.status == STATUS_OK:
        driver_item = Item("driver", ctx.t("report.check.driver"),
                           ctx.t("report.smi.ok", driver=d.nvidia.driver_version or "?",
                                 cuda=d.nvidia.cuda_version or "?", count=len(d.nvidia.gpus)), PASS)
    else:
        line = _nvidia_smi_line(ctx, d)
        no_card = line.status == INFO
        driver_item = Item("driver", ctx.t("report.check.driver"), line.value, SKIP if no_card else FAIL,
                           line.details + [f.fix(ctx.lang) for f in d.findings[:1] if not no_card])
    items = [driver_item]
    # CUDA: the build, then whether CUDA starts
    avail, build = _check(verify, "cuda.available"), _check(verify, "cuda.build")
    cuda_check = avail
    if avail is None or avail.get("status") == SKIP:
        cuda_check = build if build is not None and build.get("status") in (FAIL, WARN) else avail or build
    if cuda_check is not None and cuda_check.get("cause_id") == CPU_BUILD_RIGHT_HERE:
        cuda_check = {**cuda_check, "status": SKIP}  # no NVIDIA GPU: CUDA does not apply here
    items.append(_check_item(ctx, "cuda", "report.check.cuda", cuda_check))
    items.append(_check_item(ctx, "pytorch", "report.check.pytorch", _check(verify, "torch.import")))
    tensor = _check(verify, "cuda.matmul.fp32", 0)
    kernel = _check(verify, "cuda.kernel", 0)
    if kernel is not None and kernel.get("status") == FAIL:
        tensor = kernel
    no_gpu = (SKIP, ctx.t("report.check.no_gpu_here"))
    items.append(_check_item(ctx, "gpu_tensor", "report.check.gpu_tensor", tensor, no_gpu if verify else None))
    items.append(_check_item(ctx, "memory", "report.check.memory", _check(verify, "cuda.memory", 0),
                             no_gpu if verify else None))
    sec.items = items
    return sec


# --- system ----------------------------------------------------------------------------------------
def _system(ctx: _Ctx) -> Section:
    sec = Section("system", ctx.t("report.section.system"))
    d = ctx.detection
    if d is None:
        sec.status = NOT_RUN
        sec.paragraphs = [_not_run(ctx.lang, "report.why.no_detection")]
        if ctx.session.detection_error:
            sec.paragraphs.append(ctx.session.detection_error.strip().splitlines()[0])
        return sec
    s = d.system
    na = t("common.na", ctx.lang)
    os_line = s.os_pretty or s.os
    if s.is_wsl:
        os_line += f" (WSL{s.wsl_version or ''})"
    if s.os_build:
        os_line += f" [{s.os_build}]"
    cores = f"{s.cpu_physical_cores or '?'}/{s.cpu_logical_cores or '?'}"
    sec.items = [
        Item("os", ctx.t("doctor.os"), os_line + (f", {s.arch}" if s.arch else "")),
        Item("cpu", ctx.t("doctor.cpu"), f"{s.cpu_model or na} ({cores})"),
        Item("ram", ctx.t("doctor.ram"), _gib(s.ram_total_bytes) or na),
        Item("disk", ctx.t("report.system.disk"), ctx.t("report.system.disk_value", free=_gib(s.disk_free_bytes) or na,
                                                         path=s.disk_path or na)),
    ]
    working = [p for p in d.pythons if not p.error]
    pythons = [f"Python {p.version or '?'} — {p.path} ({p.source})" for p in working]
    sec.items.append(Item("pythons", ctx.t("report.system.pythons"),
                          ctx.t("report.judgment.count", count=len(working)) if working else ctx.t("common.none_found"),
                          INFO, pythons))
    if d.conda:
        sec.items.append(Item("conda", "conda", ", ".join(f"{c.exe} {c.version or ''}".strip() for c in d.conda)))
    return sec


# --- recommendation and install --------------------------------------------------------------------
def _candidate_title(c: Any) -> str:
    from wizard.core.recommend.text import candidate_title

    return candidate_title(c)


def _install(ctx: _Ctx) -> Section:
    sec = Section("install", ctx.t("report.section.install"))
    results = ctx.session.results
    choice = results.get("recommendation")
    rec = getattr(choice, "recommendation", None)
    best = getattr(rec, "best", None)
    chosen = results.get("candidate") or best
    if choice is None:
        sec.items.append(Item("recommended", ctx.t("report.install.recommended"),
                              _not_run(ctx.lang, "report.why.no_recommendation"), NOT_RUN))
    elif best is None:
        sec.items.append(Item("recommended", ctx.t("report.install.recommended"), ctx.t("report.install.no_build"),
                              FAIL, [a.text(ctx.lang) for a in getattr(rec, "advice", [])]))
    else:
        details = [m.text(ctx.lang) for m in best.reasons] + ["⚠ " + m.text(ctx.lang) for m in best.warnings]
        sec.items.append(Item("recommended", ctx.t("report.install.recommended"), _candidate_title(best), INFO, details))
        if chosen is not None and chosen is not best and _candidate_title(chosen) != _candidate_title(best):
            sec.items.append(Item("chosen", ctx.t("report.install.chosen"), _candidate_title(chosen), WARN,
                                  [m.text(ctx.lang) for m in getattr(chosen, "warnings", [])]))
        interp = getattr(choice, "interpreter", None)
        python = (ctx.t("report.install.python_found", version=choice.version, path=interp.path) if interp
                  else ctx.t("report.install.python_missing", version=choice.version))
        sec.items.append(Item("python", "Python", python))
        sec.items.append(Item("index", ctx.t("report.install.index"), chosen.index_url))
        required = [a for a in getattr(rec, "advice", []) if a.severity == "required"]
        for a in required:
            sec.items.append(Item("advice", ctx.t("report.install.first"), a.text(ctx.lang), WARN, list(a.commands)))
        commands = chosen.commands().as_text()
        sec.blocks.append(Block("command", ctx.t("report.install.command"), commands.get("pip")))
    inst = ctx.install
    if inst is None:
        sec.items.append(Item("installed", ctx.t("report.install.installed"),
                              _not_run(ctx.lang, "report.why.no_install"), NOT_RUN))
        return sec
    na = t("common.na", ctx.lang)
    where = inst.get("env_path") or na
    kind = inst.get("target_kind")
    sec.items.append(Item("where", ctx.t("report.install.where"), where + (f" ({kind})" if kind else "")))
    sec.items.append(Item("env_python", ctx.t("report.install.env_python"), inst.get("env_python") or na))
    packages = [f"{p.get('name')} {p.get('version')}" for p in inst.get("installed") or [] if isinstance(p, dict)]
    if inst.get("ok"):
        value = ", ".join(packages) if packages else (ctx.t("report.install.already") if inst.get("already_satisfied")
                                                      else ", ".join(inst.get("requirements") or []) or na)
        sec.items.append(Item("installed", ctx.t("report.install.installed"), value, PASS))
    else:
        err = inst.get("error") or {}
        text = err.get("message") if isinstance(err, dict) else None
        sec.items.append(Item("installed", ctx.t("report.install.installed"),
                              ctx.t("report.install.failed", status=inst.get("status") or "?"), FAIL,
                              [text] if text else []))
    return sec


# --- verification details ------------------------------------------------------------------------
def _verification(ctx: _Ctx) -> Section:
    sec = Section("verification", ctx.t("report.section.verification"))
    verify = ctx.verify
    if not verify:
        sec.status = NOT_RUN
        sec.paragraphs = [_not_run(ctx.lang, "report.why.no_verify")]
        return sec
    counts = verify.get("counts") or {}
    python = verify.get("python")
    if python:
        sec.paragraphs.append(ctx.t("report.verify.env", python=python))
    sec.paragraphs.append(t("verify.report.counts", ctx.lang, passed=counts.get("pass", 0), warned=counts.get("warn", 0),
                            failed=counts.get("fail", 0), skipped=counts.get("skip", 0)))
    if verify.get("complete") is False:
        sec.paragraphs.append(ctx.t("report.verify.incomplete"))
    rows, statuses = [], []
    for c in _checks(verify):
        status = c.get("status") if c.get("status") in STATUSES else INFO
        rows.append([_status_word(status, ctx.lang), str(c.get("title") or c.get("id")), str(c.get("detail") or "")])
        statuses.append(status)
    sec.tables.append(Table("checks", [ctx.t("report.col.status"), ctx.t("report.col.check"),
                                       ctx.t("report.col.result")], rows, row_status=statuses))
    versions = verify.get("versions") or {}
    shown = [(k, versions.get(k)) for k in ("python", "torch", "cuda", "cudnn", "nccl", "driver_cuda", "arch_list")]
    rows = [[k, " ".join(str(a) for a in v) if isinstance(v, list) else str(v)] for k, v in shown
            if v not in (None, "", [])]
    if rows:
        sec.tables.append(Table("versions", [ctx.t("report.col.component"), ctx.t("report.col.version")], rows))
    return sec


# --- benchmark details ----------------------------------------------------------------------------
_UNIT_SECONDS = ("s",)


def _bench_details(ctx: _Ctx) -> Section:
    sec = Section("bench_details", ctx.t("report.section.bench_details"))
    bench = ctx.bench
    if not bench:
        sec.status = NOT_RUN
        sec.paragraphs = [_not_run(ctx.lang, "report.why.no_bench")]
        return sec
    for key in ("summary", "course_line"):
        if bench.get(key):
            sec.paragraphs.append(str(bench[key]))
    gpu, cpu = bench.get("gpu") or {}, bench.get("cpu") or {}
    if cpu.get("model"):
        sec.items.append(Item("cpu", "CPU", f"{cpu['model']}" + (f", {cpu['threads']} threads" if cpu.get("threads")
                                                                  else "")))
    if gpu.get("name"):
        sec.items.append(Item("gpu", "GPU", str(gpu["name"])))
    if bench.get("suite"):
        sec.items.append(Item("suite", ctx.t("report.bench.suite"), str(bench["suite"])))
    speedups = [s for s in bench.get("speedups") or [] if isinstance(s, dict)]
    if speedups:
        rows = [[ctx.t(f"report.speedup.{s.get('id')}"), f"{s.get('baseline')} → {s.get('target')}",
                 str(s.get("size") if s.get("size") is not None else ""), fmt_speedup(s.get("factor"), ctx.lang)]
                for s in speedups]
        sec.tables.append(Table("speedups", [ctx.t("report.col.what"), ctx.t("report.col.devices"),
                                             ctx.t("report.col.size"), ctx.t("report.line.speedup")], rows))
    effs = [e for e in bench.get("efficiency") or [] if isinstance(e, dict)]
    if effs:
        rows = [[t(f"bench.result.{e.get('id')}", ctx.lang), str(e.get("dtype")), str(e.get("size") or ""),
                 f"{_num(float(e.get('measured') or 0))} / {_num(float(e.get('peak') or 0))}",
                 f"{float(e.get('percent') or 0):.0f}%"] for e in effs]
        sec.tables.append(Table("efficiency", [ctx.t("report.col.what"), "dtype", ctx.t("report.col.size"),
                                               ctx.t("report.col.measured_peak"), ctx.t("report.col.efficiency")], rows,
                                caption=ctx.t("report.bench.efficiency_caption")))
    results = [r for r in bench.get("results") or [] if isinstance(r, dict)]
    if results:
        rows = []
        for r in results:
            title = t(f"bench.result.{r.get('id')}", ctx.lang)
            unit = str(r.get("unit") or "")
            value = fmt_duration(r.get("value"), ctx.lang) if unit in _UNIT_SECONDS else \
                f"{_num(float(r.get('value') or 0))} {unit}"
            rows.append([title, str(r.get("device") or ""), str(r.get("dtype") or ""),
                         str(r.get("size") if r.get("size") is not None else ""), value,
                         fmt_duration(r.get("median_s"), ctx.lang)])
        sec.tables.append(Table("results", [ctx.t("report.col.what"), ctx.t("report.col.device"), "dtype",
                                            ctx.t("report.col.size"), ctx.t("report.col.value"),
                                            ctx.t("report.col.median")], rows))
    skipped = [s for s in bench.get("skipped") or [] if isinstance(s, dict)]
    if skipped:
        sec.items.append(Item("skipped", ctx.t("report.bench.skipped"), str(len(skipped)), SKIP,
                              sorted({f"{s.get('id')} ({s.get('device')}): {s.get('text')}" for s in skipped})))
    return sec


# --- VRAM -------------------------------------------------------------------------------------------
def _vram(ctx: _Ctx) -> Section:
    from wizard.core.vram.estimate import format_gib, format_params

    sec = Section("vram", ctx.t("report.section.vram"))
    est = ctx.session.results.get("vram")
    if est is None:
        sec.items.append(Item("estimate", ctx.t("report.vram.estimate"), _not_run(ctx.lang, "report.why.no_vram"),
                              NOT_RUN))
    else:
        model = getattr(est, "model", None)
        name = getattr(model, "name", None) or "?"
        params = getattr(model, "params", None)
        sec.items.append(Item("model", ctx.t("report.vram.model"),
                              name + (f" ({format_params(params)})" if params else "")))
        setting = ctx.t("report.vram.setting", mode=t(f"vram.mode.{est.mode}", ctx.lang),
                        precision=t(f"vram.precision.{est.precision}", ctx.lang), batch=est.batch)
        sec.items.append(Item("setting", ctx.t("report.vram.setting_label"), setting))
        fits = est.fits
        if fits is None:
            value = ctx.t("report.vram.need_no_gpu", need=format_gib(est.total_bytes))
            status = INFO
        else:
            key = "report.vram.fits" if fits else "report.vram.does_not_fit"
            value = ctx.t(key, need=format_gib(est.total_bytes), usable=format_gib(est.usable_bytes or 0))
            status = PASS if fits else FAIL
        sec.items.append(Item("fits", ctx.t("report.vram.result"), value, status,
                              list(est.assumption_texts(ctx.lang))[:4]))
    judged = _judgments(ctx)
    if judged is not None:
        judgments, basis = judged
        sec.paragraphs.append(basis)
        rows = [[j.title(ctx.lang), j.text(ctx.lang)] for j in judgments]
        statuses = [PASS if j.runs_here else (WARN if j.verdict != "too_big" else FAIL) for j in judgments]
        sec.tables.append(Table("lessons", [ctx.t("report.col.lesson"), ctx.t("report.col.verdict")], rows,
                                row_status=statuses))
    if est is None and judged is None:
        sec.status = NOT_RUN
    return sec


# --- findings ----------------------------------------------------------------------------------------
def _findings(ctx: _Ctx) -> Section:
    sec = Section("findings", ctx.t("report.section.findings"))
    d = ctx.detection
    # the Verify page's diagnosis (every failure-mode rule, the detection's own findings first)
    # when it ran; else what detection found
    findings = ctx.session.results.get("diagnosis")
    if findings is None and d is not None:
        findings = d.findings
    seen: set[str] = set()
    severity_status = {"error": FAIL, "warning": WARN, "info": INFO}
    for f in findings or []:
        title = f.title(ctx.lang)
        if f.id in seen:
            continue
        seen.add(f.id)
        sec.items.append(Item(f.id, f"{t('severity.' + f.severity, ctx.lang)}: {title}", f.cause(ctx.lang),
                              severity_status.get(f.severity, INFO), [ctx.t("report.fix", text=f.fix(ctx.lang))]))
    for c in _checks(ctx.verify):
        if c.get("status") not in (FAIL, WARN) or not (c.get("cause") or c.get("fix")):
            continue
        if c.get("cause_id") == CPU_BUILD_RIGHT_HERE:
            continue  # the detection's "no NVIDIA GPU" note says it, as a note
        key = f"verify:{c.get('cause_id') or c.get('id')}"
        if key in seen or (c.get("finding") and c.get("finding") in seen):
            continue
        seen.add(key)
        details = [ctx.t("report.fix", text=c["fix"])] if c.get("fix") else []
        sec.items.append(Item(str(c.get("id")), f"{ctx.t('report.findings.verify')}: {c.get('title')}",
                              str(c.get("cause") or c.get("detail") or ""), c["status"], details))
    if not sec.items:
        if d is None and not ctx.verify:
            sec.status = NOT_RUN
            sec.paragraphs = [_not_run(ctx.lang, "report.why.no_detection")]
        else:
            sec.paragraphs = [ctx.t("report.findings.none")]
    return sec


# --- what changed ------------------------------------------------------------------------------------
def _changes(ctx: _Ctx) -> Section:
    sec = Section("changes", ctx.t("report.section.changes"))
    results = ctx.session.results
    if "changes" not in results:
        sec.status = NOT_RUN
        sec.paragraphs = [_not_run(ctx.lang, "report.why.no_history")]
        return sec
    diff = results["changes"]
    if diff is None:
        sec.paragraphs = [ctx.t("report.changes.nothing")]
        return sec
    old = getattr(getattr(diff, "old", None), "time", None)
    sec.paragraphs = [ctx.t("report.changes.since", time=_date_text(old) or "?")]
    tones = {"better": PASS, "worse": FAIL, "neutral": INFO}
    for i, change in enumerate(getattr(diff, "changes", [])):
        sec.items.append(Item(f"change{i + 1}", ctx.t(f"report.tone.{change.tone}"), change.text(ctx.lang),
                              tones.get(change.tone, INFO)))
    if not sec.items:
        sec.paragraphs.append(t("diff.none", ctx.lang))
    return sec


# --- appendices ---------------------------------------------------------------------------------------
def _appendices(ctx: _Ctx) -> list[Block]:
    verify = ctx.verify
    collect = None
    if verify:
        ce = verify.get("collect_env")
        collect = ce.get("text") if isinstance(ce, dict) else None
        if collect is None:
            raw = ctx.session.results.get("verify")
            text = getattr(raw, "collect_env_text", None)
            collect = text if isinstance(text, str) else None
    blocks = [Block("collect_env", ctx.t("report.appendix.collect_env"), collect,
                    _not_run(ctx.lang, "report.why.no_verify") if not verify else ctx.t("report.appendix.no_collect_env"))]
    d = ctx.detection
    smi = d.nvidia.raw_smi_output if d is not None else None
    empty = _not_run(ctx.lang, "report.why.no_detection") if d is None else ctx.t("report.appendix.no_smi")
    blocks.append(Block("nvidia_smi", ctx.t("report.appendix.nvidia_smi"), smi, empty))
    for i, m in enumerate(ctx.machines[1:], 1):
        if m.raw_nvidia_smi:
            blocks.append(Block(f"nvidia_smi_{m.kind}_{i}",
                                ctx.t("report.appendix.nvidia_smi_remote", machine=machine_title(m, ctx.lang)),
                                m.raw_nvidia_smi))
    return blocks


def write_atomic(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write an export through a temporary file in the same folder and a rename: an interrupted
    save leaves the old file or the new one, never half a report."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=".tmp-report-", suffix=target.suffix, dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return target


def with_remote(machine: MachineRecord, kind: str | None = None, label: str | None = None) -> MachineRecord:
    """A copy of ``machine`` as a remote of ``kind`` (colab/cloud)."""
    return replace(machine, kind=kind or machine.kind, label=label if label is not None else machine.label)


__all__ = [
    "SCHEMA", "SCHEMA_VERSION", "PASS", "WARN", "FAIL", "SKIP", "INFO", "NOT_RUN", "STATUSES", "STYLE_FIELDS",
    "STYLE_CHECKS", "KIND_LOCAL", "KIND_COLAB", "KIND_CLOUD", "MACHINE_KINDS", "SECTION_ORDER", "Item", "Table",
    "Block", "Section", "MachineRecord", "Report", "build_report", "local_machine", "session_redactor",
    "detect_platform_hint", "remote_summary", "machine_title", "fmt_seconds", "fmt_duration", "fmt_speedup",
    "with_remote", "write_atomic",
]
