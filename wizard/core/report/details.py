"""The report's detail sections, after the lesson's three: the blog's verification checklist,
the system, the install, verification and benchmark details, VRAM, findings, what changed, and
the raw appendices (collect_env and nvidia-smi exactly as printed) a teaching assistant asks for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from wizard.core.base.i18n import has, t
from wizard.core.machine.models import STATUS_OK
from wizard.core.report.document import (
    CPU_BUILD_RIGHT_HERE,
    FAIL,
    INFO,
    NOT_RUN,
    PASS,
    SKIP,
    STATUSES,
    STYLE_CHECKS,
    WARN,
    Block,
    Item,
    Section,
    Table,
)
from wizard.core.report.inputs import ReportContext, check_of, checks_of
from wizard.core.report.lesson import nvidia_smi_line, workload_judgments
from wizard.core.report.text import date_text, fmt_duration, fmt_speedup, gib, machine_title, not_run, num, status_word

if TYPE_CHECKING:
    from wizard.core.verify.checks import Check

# --- the blog's verification checklist ---------------------------------------------------------------


def _check_item(ctx: ReportContext, item_id: str, label_key: str, c: Check | None,
                missing: tuple[str, str] | None = None, status: str | None = None) -> Item:
    """A line from a verify check; ``missing``: (status, text) when the check is absent;
    ``status``: shown instead of the check's own (its text stays the check's)."""
    label = ctx.t(label_key)
    if c is None:
        shown, text = missing or (NOT_RUN, not_run(ctx.lang, "report.why.no_verify"))
        return Item(item_id, label, text, shown)
    status = status or c.status
    detail = c.detail_text(ctx.lang)
    details = []
    if status in (FAIL, WARN):
        cause, fix = c.cause_text(ctx.lang), c.fix_text(ctx.lang)
        if cause and cause != detail:
            details.append(ctx.t("report.cause", text=cause))
        if fix:
            details.append(ctx.t("report.fix", text=fix))
    status = status if status in STATUSES else INFO
    return Item(item_id, label, str(detail or status_word(status, ctx.lang)), status, details)


def verify_checklist_section(ctx: ReportContext) -> Section:
    d, verify = ctx.detection, ctx.verify
    sec = Section("verify_checklist", ctx.t("report.section.verify_checklist"), style=STYLE_CHECKS)
    # driver: what detection saw outside the environment; the env's own view when it disagrees
    drv = check_of(verify, "cuda.driver")
    if drv is not None and drv.status in (FAIL, WARN):
        driver_item = _check_item(ctx, "driver", "report.check.driver", drv)
    elif d is None:
        driver_item = Item("driver", ctx.t("report.check.driver"), not_run(ctx.lang, "report.why.no_detection"),
                           NOT_RUN)
    elif d.nvidia.status == STATUS_OK:
        driver_item = Item("driver", ctx.t("report.check.driver"),
                           ctx.t("report.smi.ok", driver=d.nvidia.driver_version or "?",
                                 cuda=d.nvidia.cuda_version or "?", count=len(d.nvidia.gpus)), PASS)
    else:
        line = nvidia_smi_line(ctx, d)
        no_card = line.status == INFO
        driver_item = Item("driver", ctx.t("report.check.driver"), line.value, SKIP if no_card else FAIL,
                           line.details + [f.fix(ctx.lang) for f in d.findings[:1] if not no_card])
    items = [driver_item]
    # CUDA: the build, then whether CUDA starts
    avail, build = check_of(verify, "cuda.available"), check_of(verify, "cuda.build")
    cuda_check = avail
    if avail is None or avail.status == SKIP:
        cuda_check = build if build is not None and build.status in (FAIL, WARN) else avail or build
    # no NVIDIA GPU: CUDA does not apply here
    cpu_right_here = cuda_check is not None and cuda_check.cause == CPU_BUILD_RIGHT_HERE
    items.append(_check_item(ctx, "cuda", "report.check.cuda", cuda_check, status=SKIP if cpu_right_here else None))
    torch_check = check_of(verify, "torch.import")
    if torch_check is not None and torch_check.status == PASS:
        # the torch family (torchvision, torchaudio) belongs to "PyTorch works": one that cannot
        # be imported next to this torch fails the line, with its cause and fix
        family = [check_of(verify, name) for name in ("torchvision", "torchaudio")]
        torch_check = next((c for c in family if c is not None and c.status == FAIL), torch_check)
    items.append(_check_item(ctx, "pytorch", "report.check.pytorch", torch_check))
    tensor = check_of(verify, "cuda.matmul.fp32", 0)
    kernel = check_of(verify, "cuda.kernel", 0)
    if kernel is not None and kernel.status == FAIL:
        tensor = kernel
    no_gpu = (SKIP, ctx.t("report.check.no_gpu_here"))
    items.append(_check_item(ctx, "gpu_tensor", "report.check.gpu_tensor", tensor, no_gpu if verify else None))
    items.append(_check_item(ctx, "memory", "report.check.memory", check_of(verify, "cuda.memory", 0),
                             no_gpu if verify else None))
    sec.items = items
    return sec


# --- system ----------------------------------------------------------------------------------------


def system_section(ctx: ReportContext) -> Section:
    sec = Section("system", ctx.t("report.section.system"))
    d = ctx.detection
    if d is None:
        sec.status = NOT_RUN
        sec.paragraphs = [not_run(ctx.lang, "report.why.no_detection")]
        if ctx.inputs.detection_error:
            sec.paragraphs.append(ctx.inputs.detection_error.strip().splitlines()[0])
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
        Item("ram", ctx.t("doctor.ram"), gib(s.ram_total_bytes) or na),
        Item("disk", ctx.t("report.system.disk"), ctx.t("report.system.disk_value", free=gib(s.disk_free_bytes) or na,
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


# warnings that speak of "the command below": only where that command is shown
_COMMAND_WARNINGS = {"recommend.warn.pypi_default"}


def _warning_texts(ctx: ReportContext, candidate: Any, with_command: bool) -> list[str]:
    return [m.text(ctx.lang) for m in getattr(candidate, "warnings", [])
            if with_command or getattr(m, "key", None) not in _COMMAND_WARNINGS]


def _chosen_item(ctx: ReportContext, rec: Any, chosen: Any, with_command: bool) -> Item:
    """The build the student picked instead: judged by the rule the Recommend page's picker
    uses (:func:`~wizard.core.recommend.recommender.check_candidate`), so a build the picker
    said meets every condition is no warning here."""
    from wizard.core.recommend.recommender import check_candidate

    failures = check_candidate(rec.facts, chosen.torch, chosen.variant, lang=ctx.lang)
    notes = _warning_texts(ctx, chosen, with_command)
    if failures:
        return Item("chosen", ctx.t("report.install.chosen"), _candidate_title(chosen), WARN, failures + notes)
    return Item("chosen", ctx.t("report.install.chosen"), _candidate_title(chosen), INFO,
                [t("recommend.page.override_ok", ctx.lang)] + notes)


def _recommendation_items(ctx: ReportContext, sec: Section, with_command: bool) -> None:
    """What the wizard recommended (and what the student chose); the index and the command
    only while nothing was installed: then they are the advice, afterwards what ran says it."""
    choice = ctx.inputs.recommendation
    rec = getattr(choice, "recommendation", None)
    best = getattr(rec, "best", None)
    chosen = ctx.inputs.candidate or best
    if choice is None:
        sec.items.append(Item("recommended", ctx.t("report.install.recommended"),
                              not_run(ctx.lang, "report.why.no_recommendation"), NOT_RUN))
        return
    if best is None:
        sec.items.append(Item("recommended", ctx.t("report.install.recommended"), ctx.t("report.install.no_build"),
                              FAIL, [a.text(ctx.lang) for a in getattr(rec, "advice", [])]))
        return
    details = [m.text(ctx.lang) for m in best.reasons] + ["⚠ " + w for w in _warning_texts(ctx, best, with_command)]
    sec.items.append(Item("recommended", ctx.t("report.install.recommended"), _candidate_title(best), INFO, details))
    if chosen is not None and chosen is not best and _candidate_title(chosen) != _candidate_title(best):
        sec.items.append(_chosen_item(ctx, rec, chosen, with_command))
    interp = getattr(choice, "interpreter", None)
    python = (ctx.t("report.install.python_found", version=choice.version, path=interp.path) if interp
              else ctx.t("report.install.python_missing", version=choice.version))
    sec.items.append(Item("python", "Python", python))
    plan = ctx.inputs.install_plan  # set up on the Environment page: its index (a mirror) wins
    if with_command:
        index = plan.get("index_url") if plan else getattr(chosen, "index_url", None)
        sec.items.append(Item("index", ctx.t("report.install.index"), _index_text(ctx, index)))
    for a in [a for a in getattr(rec, "advice", []) if a.severity == "required"]:
        sec.items.append(Item("advice", ctx.t("report.install.first"), a.text(ctx.lang), WARN, list(a.commands)))
    if with_command:
        command = (_pip_command(ctx, plan.get("requirements") or [], plan.get("index_url"), plan.get("extras_index"))
                   if plan else chosen.commands().as_text().get("pip") if chosen is not None else None)
        sec.blocks.append(Block("command", ctx.t("report.install.command"), command))


def _pip_command(ctx: ReportContext, requirements: Any, index_url: str | None,
                 extras_index: str | None = None) -> str | None:
    """``python -m pip install REQS --index-url INDEX`` of an install's requirements and index;
    a course's extras that came from their own source (PyPI, a PyPI mirror) add
    ``--extra-index-url SOURCE`` -- an https or loopback address only (anything else a report
    could carry is not put into a command the reader copies), and never the build's own index."""
    from wizard.core.base.http import url_allowed
    from wizard.core.install.extras import same_index

    reqs = [str(r) for r in requirements]
    if not reqs:
        return None
    command = " ".join(["python -m pip install", *reqs])
    if index_url:
        command += " --index-url " + _index_text(ctx, index_url)
    source = (extras_index or "").strip()
    if (source and index_url and not same_index(source, index_url)
            and url_allowed(source, allow_loopback_http=True) and not any(c.isspace() for c in source)):
        command += " --extra-index-url " + _index_text(ctx, source)
    return command


def _index_text(ctx: ReportContext, url: str | None) -> str:
    """An index URL as the reader should see it: without a user or password it may carry;
    none at all is pip's default index (PyPI)."""
    from urllib.parse import urlsplit, urlunsplit

    if not url:
        return ctx.t("report.install.index_pypi")
    parts = urlsplit(url)
    if parts.username or parts.password:
        host = parts.hostname or ""
        parts = parts._replace(netloc=host + (f":{parts.port}" if parts.port else ""))
    return urlunsplit(parts)


def _build_item(ctx: ReportContext) -> Item:
    """The build that is in the environment, as verify's probe found it there."""
    label = ctx.t("report.install.build")
    if ctx.verify is None:
        return Item("build", label, not_run(ctx.lang, "report.why.no_verify"), NOT_RUN)
    versions = ctx.verify.versions
    if not versions.get("torch"):
        return Item("build", label, ctx.t("report.pytorch.not_importable"), FAIL)
    cuda = versions.get("cuda")
    kind = f"CUDA {cuda}" if cuda else ctx.t("report.install.cpu_only_build")
    return Item("build", label, f"torch {versions['torch']} ({kind})")


def install_section(ctx: ReportContext) -> Section:
    sec = Section("install", ctx.t("report.section.install"))
    inst = ctx.install
    _recommendation_items(ctx, sec, with_command=inst is None)
    if inst is None:
        sec.items.append(Item("installed", ctx.t("report.install.installed"),
                              not_run(ctx.lang, "report.why.no_install"), NOT_RUN))
        return sec
    na = t("common.na", ctx.lang)
    index = _index_text(ctx, inst.index_url)
    sec.items.append(Item("index", ctx.t("report.install.index_used"), index))
    where = inst.env_path or na
    kind_key = f"report.install.kind.{inst.target_kind}"
    kind = ctx.t(kind_key) if inst.target_kind and has(kind_key) else inst.target_kind
    sec.items.append(Item("where", ctx.t("report.install.where"), where + (f" ({kind})" if kind else "")))
    sec.items.append(Item("env_python", ctx.t("report.install.env_python"), inst.env_python or na))
    packages = [f"{p.name} {p.version}" for p in inst.installed]
    if inst.ok:
        value = ", ".join(packages) if packages else (ctx.t("report.install.already") if inst.already_satisfied
                                                      else ", ".join(inst.requirements) or na)
        sec.items.append(Item("installed", ctx.t("report.install.installed"), value, PASS))
        sec.items.append(_build_item(ctx))
    else:
        text = inst.error.message if inst.error is not None else None
        sec.items.append(Item("installed", ctx.t("report.install.installed"),
                              ctx.t("report.install.failed", status=inst.status or "?"), FAIL,
                              [text] if text else []))
    command = _pip_command(ctx, inst.requirements, inst.index_url, inst.extras_index)
    if command:
        sec.blocks.append(Block("command_ran", ctx.t("report.install.command_ran"), command))
    return sec


# --- verification details ------------------------------------------------------------------------


def verification_section(ctx: ReportContext) -> Section:
    sec = Section("verification", ctx.t("report.section.verification"))
    verify = ctx.verify
    if verify is None:
        sec.status = NOT_RUN
        sec.paragraphs = [not_run(ctx.lang, "report.why.no_verify")]
        return sec
    counts = verify.counts()
    if verify.python_exe:
        sec.paragraphs.append(ctx.t("report.verify.env", python=verify.python_exe))
    sec.paragraphs.append(t("verify.report.counts", ctx.lang, passed=counts.get("pass", 0), warned=counts.get("warn", 0),
                            failed=counts.get("fail", 0), skipped=counts.get("skip", 0)))
    if not verify.complete:
        sec.paragraphs.append(ctx.t("report.verify.incomplete"))
    rows, statuses = [], []
    for c in checks_of(verify):
        status = c.status if c.status in STATUSES else INFO
        rows.append([status_word(status, ctx.lang), c.title(ctx.lang) or c.id, c.detail_text(ctx.lang) or ""])
        statuses.append(status)
    sec.tables.append(Table("checks", [ctx.t("report.col.status"), ctx.t("report.col.check"),
                                       ctx.t("report.col.result")], rows, row_status=statuses))
    versions = verify.versions
    shown = [(k, versions.get(k)) for k in ("python", "torch", "cuda", "cudnn", "nccl", "driver_cuda", "arch_list")]
    rows = [[k, " ".join(str(a) for a in v) if isinstance(v, list) else str(v)] for k, v in shown
            if v not in (None, "", [])]
    if rows:
        sec.tables.append(Table("versions", [ctx.t("report.col.component"), ctx.t("report.col.version")], rows))
    return sec


# --- benchmark details ----------------------------------------------------------------------------
_UNIT_SECONDS = ("s",)


def bench_details_section(ctx: ReportContext) -> Section:
    sec = Section("bench_details", ctx.t("report.section.bench_details"))
    bench = ctx.bench
    if bench is None:
        sec.status = NOT_RUN
        sec.paragraphs = [not_run(ctx.lang, "report.why.no_bench")]
        return sec
    for text in (bench.summary(ctx.lang), bench.course_line(ctx.lang)):
        if text:
            sec.paragraphs.append(str(text))
    cpu_model, threads = bench.bench_facts.get("cpu"), bench.threads
    if cpu_model:
        sec.items.append(Item("cpu", "CPU", f"{cpu_model}" + (f", {threads} threads" if threads else "")))
    if bench.gpu_name:
        sec.items.append(Item("gpu", "GPU", str(bench.gpu_name)))
    suite = bench.bench_facts.get("suite")
    if suite:
        suite_key = f"report.bench.suite.{suite}"
        sec.items.append(Item("suite", ctx.t("report.bench.suite"), ctx.t(suite_key) if has(suite_key) else str(suite)))
    speedups = bench.speedups()
    if speedups:
        rows = [[ctx.t(f"report.speedup.{s.id}"), f"{s.baseline} → {s.target}",
                 str(s.size if s.size is not None else ""), fmt_speedup(s.factor, ctx.lang)] for s in speedups]
        sec.tables.append(Table("speedups", [ctx.t("report.col.what"), ctx.t("report.col.devices"),
                                             ctx.t("report.col.size"), ctx.t("report.col.speedup")], rows))
    effs = bench.efficiencies()
    if effs:
        rows = [[t(f"bench.result.{e.id}", ctx.lang), str(e.dtype), str(e.size or ""),
                 f"{num(float(e.measured or 0))} / {num(float(e.peak or 0))}", f"{float(e.percent or 0):.0f}%"]
                for e in effs]
        sec.tables.append(Table("efficiency", [ctx.t("report.col.what"), "dtype", ctx.t("report.col.size"),
                                               ctx.t("report.col.measured_peak"), ctx.t("report.col.efficiency")], rows,
                                caption=ctx.t("report.bench.efficiency_caption")))
    if bench.results:
        rows = []
        for r in bench.results:
            title = t(f"bench.result.{r.id}", ctx.lang)
            unit = r.unit or ""
            value = fmt_duration(r.value, ctx.lang) if unit in _UNIT_SECONDS else f"{num(float(r.value or 0))} {unit}"
            rows.append([title, r.device or "", r.dtype or "", str(r.size if r.size is not None else ""), value,
                         fmt_duration(r.median_s, ctx.lang)])
        sec.tables.append(Table("results", [ctx.t("report.col.what"), ctx.t("report.col.device"), "dtype",
                                            ctx.t("report.col.size"), ctx.t("report.col.value"),
                                            ctx.t("report.col.median")], rows))
    if bench.skipped:
        sec.items.append(Item("skipped", ctx.t("report.bench.skipped"), str(len(bench.skipped)), SKIP,
                              sorted({f"{s.id} ({s.device}): {s.text(ctx.lang)}" for s in bench.skipped})))
    return sec


# --- VRAM -------------------------------------------------------------------------------------------


def vram_section(ctx: ReportContext) -> Section:
    from wizard.core.vram.units import format_gib, format_params

    sec = Section("vram", ctx.t("report.section.vram"))
    est = ctx.inputs.vram
    if est is None:
        sec.items.append(Item("estimate", ctx.t("report.vram.estimate"), not_run(ctx.lang, "report.why.no_vram"),
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
            if getattr(est, "what_if", False):  # a card the student asked about, not this machine's GPU
                card = getattr(est, "gpu_name", None) or format_gib(est.vram_total_bytes or 0)
                value = ctx.t("report.vram.what_if", card=card, verdict=value)
                status = INFO
        sec.items.append(Item("fits", ctx.t("report.vram.result"), value, status,
                              list(est.assumption_texts(ctx.lang))[:4]))
    judged = workload_judgments(ctx)
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


def findings_section(ctx: ReportContext) -> Section:
    sec = Section("findings", ctx.t("report.section.findings"))
    d = ctx.detection
    # the Verify page's diagnosis (every failure-mode rule, the detection's own findings first)
    # when it ran; else what detection found
    findings = ctx.inputs.diagnosis
    if findings is None and d is not None:
        findings = d.findings
    seen: set[str] = set()
    severity_status = {"error": FAIL, "warning": WARN, "info": INFO}
    for f in findings or []:
        title = f.title(ctx.lang)
        if f.id in seen:
            continue
        seen.add(f.id)
        sec.items.append(Item(f.id, f"{t('diagnosis.severity.' + f.severity, ctx.lang)}: {title}", f.cause(ctx.lang),
                              severity_status.get(f.severity, INFO), [ctx.t("report.fix", text=f.fix(ctx.lang))]))
    for c in checks_of(ctx.verify):
        cause, fix = c.cause_text(ctx.lang), c.fix_text(ctx.lang)
        if c.status not in (FAIL, WARN) or not (cause or fix):
            continue
        if c.cause == CPU_BUILD_RIGHT_HERE:
            continue  # the detection's "no NVIDIA GPU" note says it, as a note
        key = f"verify:{c.cause or c.id}"
        if key in seen or (c.finding and c.finding in seen):
            continue
        seen.add(key)
        details = [ctx.t("report.fix", text=fix)] if fix else []
        sec.items.append(Item(c.id, f"{ctx.t('report.findings.verify')}: {c.title(ctx.lang)}",
                              str(cause or c.detail_text(ctx.lang) or ""), c.status, details))
    if not sec.items:
        if d is None and ctx.verify is None:
            sec.status = NOT_RUN
            sec.paragraphs = [not_run(ctx.lang, "report.why.no_detection")]
        else:
            sec.paragraphs = [ctx.t("report.findings.none")]
    return sec


# --- what changed ------------------------------------------------------------------------------------


def changes_section(ctx: ReportContext) -> Section:
    sec = Section("changes", ctx.t("report.section.changes"))
    if not ctx.inputs.changes_checked:
        sec.status = NOT_RUN
        sec.paragraphs = [not_run(ctx.lang, "report.why.no_history")]
        return sec
    diff = ctx.inputs.changes
    if diff is None:
        sec.paragraphs = [ctx.t("report.changes.nothing")]
        return sec
    old = getattr(getattr(diff, "old", None), "time", None)
    sec.paragraphs = [ctx.t("report.changes.since", time=date_text(old) or "?")]
    tones = {"better": PASS, "worse": FAIL, "neutral": INFO}
    for i, change in enumerate(getattr(diff, "changes", [])):
        sec.items.append(Item(f"change{i + 1}", ctx.t(f"report.tone.{change.tone}"), change.text(ctx.lang),
                              tones.get(change.tone, INFO)))
    if not sec.items:
        sec.paragraphs.append(t("history.diff.none", ctx.lang))
    return sec


# --- appendices ---------------------------------------------------------------------------------------


def appendices(ctx: ReportContext) -> list[Block]:
    verify = ctx.verify
    collect = None
    if verify is not None:
        ce = verify.collect_env
        collect = ce.get("text") if isinstance(ce, dict) and isinstance(ce.get("text"), str) else None
        if collect is None:
            collect = verify.collect_env_text
    blocks = [Block("collect_env", ctx.t("report.appendix.collect_env"), collect,
                    not_run(ctx.lang, "report.why.no_verify") if verify is None
                    else ctx.t("report.appendix.no_collect_env"))]
    d = ctx.detection
    smi = d.nvidia.raw_smi_output if d is not None else None
    empty = not_run(ctx.lang, "report.why.no_detection") if d is None else ctx.t("report.appendix.no_smi")
    blocks.append(Block("nvidia_smi", ctx.t("report.appendix.nvidia_smi"), smi, empty))
    for i, m in enumerate(ctx.machines[1:], 1):
        if m.raw_nvidia_smi:
            blocks.append(Block(f"nvidia_smi_{m.kind}_{i}",
                                ctx.t("report.appendix.nvidia_smi_remote", machine=machine_title(m, ctx.lang)),
                                m.raw_nvidia_smi))
    return blocks


__all__ = ["verify_checklist_section", "system_section", "install_section", "verification_section",
           "bench_details_section", "vram_section", "findings_section", "changes_section", "appendices"]
