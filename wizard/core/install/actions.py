"""What each install step does: the bodies of the Python steps, and the command, parser and
reading of the outcome of each process step. :meth:`JobState.steps` puts them in order:
prepare → python (uv python install, when needed) → create → ensurepip (a uv venv whose pip
the install does not bring) → inspect (what is installed; ``pip freeze`` of an existing env
saved) → resolve (uv's plan, or pip's dry-run report: :mod:`~wizard.core.install.resolve_step`,
with the plan cache) → plan (sizes, space check) → download → install (offline from the cache:
``--no-index --find-links``, pip or uv; uv adds the Python's bundled pip to a new uv venv) →
verify → finish.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from wizard.core.base.files import write_atomic
from wizard.core.base.i18n import msg
from wizard.core.install.download import Downloader
from wizard.core.install.download_errors import DownloadCancelled, DownloadError
from wizard.core.install.download_progress import DownloadProgress
from wizard.core.install.env_commands import (
    CONDA_CREATE_TIMEOUT,
    UV_PYTHON_INSTALL_TIMEOUT,
    bundled_pip_wheel,
    conda_env_list_argv,
    create_argvs,
    parse_conda_env_location,
    parse_conda_failure,
    parse_uv_failure,
    uv_env,
    uv_python_find_argv,
    uv_python_install_argv,
)
from wizard.core.install.environments import (
    CREATOR_UV,
    EnvTarget,
    find_uv,
    is_incomplete,
    remove_incomplete_marker,
    write_incomplete_marker,
)
from wizard.core.install.job import (
    INSTALLER_UV,
    STEP_CREATE,
    STEP_DOWNLOAD,
    STEP_ENSUREPIP,
    STEP_FINISH,
    STEP_INSPECT,
    STEP_INSTALL,
    STEP_PLAN,
    STEP_PREPARE,
    STEP_PYTHON,
    STEP_VERIFY,
    JobCancelled,
    JobState,
    OutputParser,
    ProcessResult,
    ProcessSpec,
    StepContext,
    StepError,
    StepProgress,
)
from wizard.core.install.parsers import CondaCreateParser, PipInstallParser, UvInstallParser
from wizard.core.install.plan import (
    INSTALLED_SCRIPT,
    MIN_PIP,
    PIP_ENV,
    InstallPlan,
    fill_sizes,
    format_bytes,
    installed_argv,
    mark_satisfied,
    parse_installed,
    parse_pip_version,
    pip_argv,
    pip_command,
)
from wizard.core.install.preflight import SEVERITY_CONFIRM, SEVERITY_OK, UNPACK_FACTOR, preflight, unpacked_size
from wizard.core.install.recovery import STATUS_COMPLETE, STATUS_RUNNING, EnvState
from wizard.core.install.requirements_gate import checked_for_step
from wizard.core.install.resolve_step import (  # noqa: F401 - the runner's names for the resolve step
    _extra_pip_args,
    _mark,
    _uv,
    resolve_command,
    resolve_finish,
    resolve_from_cache,
    resolve_parser,
    uv_env_for,
)
from wizard.core.install.venv_listing import read_installed, site_packages, venv_version

# Runs in the target environment after the install: versions of everything, and imports.
VERIFY_SCRIPT = INSTALLED_SCRIPT + (
    "imports = {}\n"
    "import importlib\n"
    "for mod in sys.argv[1:]:\n"
    "    try:\n"
    "        importlib.import_module(mod)\n"
    "        imports[mod] = 'ok'\n"
    "    except BaseException as exc:\n"
    "        imports[mod] = '%s: %s' % (type(exc).__name__, exc)\n"
    "print(json.dumps({'gsw_imports': 1, 'imports': imports}))\n"
)



def prepare(ctx: StepContext) -> None:
    """Load or start the recovery state, find out what the target needs, run the checks that
    do not need the plan; record the state only when nothing blocks."""
    job = ctx.job
    # the one rule for what gets installed (requirements.py), before anything is made or saved
    job.options.requirements = checked_for_step(STEP_PREPARE, job.options.requirements)
    job.work_dir.mkdir(parents=True, exist_ok=True)
    state = _load_or_new_state(ctx)
    t = job.target
    state.status = STATUS_RUNNING
    state.failed_step = None
    # ours: an unfinished environment this wizard started (its folder is new or still marked)
    ours = job.resuming and state.created_by_wizard and (
        not os.path.exists(t.path) or is_incomplete(t.path))
    _find_uv_python(job)
    _preflight(ctx, ours)
    job.state = state
    job.store.save(state)
    if t.creates_env and not t.is_conda and not os.path.exists(t.python_exe):
        # The folder and its marker come first, so a create that is cancelled half-way still
        # leaves a folder Resume and Remove recognise. (conda makes its prefix itself.)
        os.makedirs(t.path, exist_ok=True)
        write_incomplete_marker(t.path, {"requirements": job.options.requirements})


def _load_or_new_state(ctx: StepContext) -> EnvState:
    """The unfinished earlier run's state (a resume), or a new one."""
    job = ctx.job
    t = job.target
    state = job.store.load(t.path) if t.path else None
    if state is not None and state.status == STATUS_COMPLETE:
        state = None  # a finished earlier run: this is a new job on an existing environment
    if state is None:
        return EnvState(env_path=t.path, target=t.to_json(), created_by_wizard=t.creates_env,
                        requirements=list(job.options.requirements), index_url=job.options.index_url,
                        extras=list(job.options.extras), extras_index=job.options.extras_index)
    job.resuming = True
    # an installer killed mid-write leaves files that look installed: put the whole set in again
    job.reinstall = state.error_kind == "killed-mid-write"
    if state.created_by_wizard and not t.creates_env:
        # resuming a new environment that now exists: keep treating it as ours
        job.target = EnvTarget.from_json(state.target)
    same = (state.requirements == list(job.options.requirements) and state.index_url == job.options.index_url
            and state.extras_index == job.options.extras_index)
    if same and state.plan:
        try:
            job.plan = InstallPlan.from_json(state.plan)
        except (ValueError, KeyError, TypeError):
            job.plan = None
    if not same:  # the student changed the build after a failure: plan again for the new one
        state.requirements = list(job.options.requirements)
        state.index_url = job.options.index_url
        state.extras, state.extras_index = list(job.options.extras), job.options.extras_index
        state.plan = None
    ctx.log(msg("install.resuming", steps=", ".join(state.steps_done) or "-").text(ctx.job.lang))
    return state


def _find_uv_python(job: JobState) -> None:
    """uv-managed Python: is the wanted version there already?"""
    t = job.target
    if not (t.creates_env and t.creator == CREATOR_UV and not t.base_python and t.python_version):
        return
    uv = t.uv_exe or job.options.uv_exe or find_uv()
    if not uv:
        raise StepError(STEP_PREPARE, msg("install.uv.missing"), "no-uv")
    t.uv_exe = uv
    res = job.host.run(uv_python_find_argv(uv, t.python_version), timeout=60,
                       env=uv_env(job.options.uv_python_mirror))
    job.need_python_install = not res.ok


def _preflight(ctx: StepContext, ours: bool) -> None:
    """The checks that do not need the plan; a blocking one stops here, nothing touched."""
    job = ctx.job
    t = job.target
    existing_names: list[str] = []
    base_prefix = None
    if t.is_conda and t.conda_exe:
        from wizard.core.machine.conda import parse_conda_env_list

        res = job.host.run(conda_env_list_argv(t.conda_exe), timeout=120)
        if res.ok:
            try:
                base_prefix, found = parse_conda_env_list(res.stdout)
                existing_names = [e.name for e in found]
            except ValueError:
                pass
    interpreter = None
    if not t.creates_env and os.path.exists(t.python_exe):
        from wizard.core.machine.pythons import query_interpreter

        interpreter, _key = query_interpreter(job.host, t.python_exe, "target")
    job.preflight = preflight(
        t, job.host, download_bytes=job.options.expected_download_bytes, cache_dir=str(job.cache.root),
        interpreter=interpreter, existing_conda_names=[] if ours else existing_names,
        conda_base_prefix=base_prefix, confirmed=job.options.confirmed,
        folder_state=(lambda p: "missing") if ours else None)
    for check in job.preflight.checks:
        if check.severity != SEVERITY_OK:
            ctx.log(f"[{check.severity}] {check.text(ctx.job.lang)}")
    blocking = job.preflight.blocking
    if blocking:
        # nothing was touched: no state is recorded (a refused folder must never become "ours")
        kind = "confirm" if all(c.severity == SEVERITY_CONFIRM for c in blocking) else "preflight"
        raise StepError(STEP_PREPARE, blocking[0].message, kind, "\n".join(c.text(ctx.job.lang) for c in blocking))


def python_command(job: JobState) -> ProcessSpec:
    t = job.target
    argv = uv_python_install_argv(t.uv_exe or "uv", t.python_version or "")
    env = job.child_env(uv_env(job.options.uv_python_mirror))
    return ProcessSpec(argv, env, None, UV_PYTHON_INSTALL_TIMEOUT)


def python_finish(job: JobState, result: ProcessResult, parser: OutputParser) -> None:
    if not result.ok:
        failure = parse_uv_failure(parser.tail_text())
        raise StepError(STEP_PYTHON, failure.message, "network" if failure.kind in ("offline", "refused", "http")
                        else failure.kind, parser.tail_text(), failure.host)
    if job.state is not None:
        job.state.python_installed = job.target.python_version


def create_command(job: JobState) -> ProcessSpec:
    argvs = create_argvs(job.target)
    timeout = CONDA_CREATE_TIMEOUT if job.target.is_conda else 600.0
    return ProcessSpec(argvs[0], job.child_env(uv_env(job.options.uv_python_mirror)), None, timeout)


def create_parser(job: JobState) -> OutputParser:
    return CondaCreateParser(STEP_CREATE) if job.target.is_conda else OutputParser(STEP_CREATE)


def create_finish(job: JobState, result: ProcessResult, parser: OutputParser) -> None:
    t = job.target
    if not result.ok:
        if t.is_conda:
            failure = parse_conda_failure(parser.tail_text())
            raise StepError(STEP_CREATE, failure.message, "network" if failure.kind == "offline" else failure.kind,
                            parser.tail_text(), failure.host)
        raise job.process_failure(STEP_CREATE, result, parser)
    if t.is_conda:
        location = parse_conda_env_location(parser.tail_text())
        if location and location != t.path and job.state is not None:
            t.path = location
            job.state.target = t.to_json()
            job.store.move(job.state, location)
    if not os.path.exists(t.python_exe):
        raise StepError(STEP_CREATE, msg("install.error.no_python_after_create", path=t.python_exe), "failed")
    write_incomplete_marker(t.path, {"requirements": job.options.requirements})


def pip_wheel_with_install(job: JobState) -> str | None:
    """The Python's bundled pip wheel when it goes into a new uv venv with the install itself.

    A venv uv makes has no pip, and the student's own ``pip install`` (a course's requirements,
    Jupyter's ``%pip``) must work in it afterwards; no step of the wizard needs it (uv plans,
    installs and lists; a resume plans with uv again). So where uv installs, the wheel is one
    more argument of the offline install -- the same uv run, no step of its own (a separate
    ``uv pip install`` of pip cost a warm run 80-100 ms, a fifth of it). None where the
    ensurepip step does the work: pip installs, no bundled wheel (then ``python -m
    ensurepip``), or an earlier run already gave the venv its pip."""
    t = job.target
    if not (job.installer == INSTALLER_UV and t.creator == CREATOR_UV and t.creates_env):
        return None
    if job.done(STEP_ENSUREPIP) or not (t.uv_exe or job.options.uv_exe or find_uv()):
        return None
    return bundled_pip_wheel(t.path)


def ensurepip_command(job: JobState) -> ProcessSpec:
    """pip in a venv uv made, where the install does not bring it (:func:`pip_wheel_with_install`):
    ``python -m ensurepip`` (seconds)."""
    return ProcessSpec([job.env_python(), "-m", "ensurepip", "--default-pip"], job.child_env(), None, 300.0)


def ensurepip_skipped(job: JobState) -> bool:
    """No ensurepip step: not a new uv venv, done by an earlier run, or the install brings pip."""
    t = job.target
    return not (t.creator == CREATOR_UV and t.creates_env) or job.done(STEP_ENSUREPIP) \
        or pip_wheel_with_install(job) is not None


def _fresh_uv_venv_version(job: JobState) -> str | None:
    """The Python version of a venv uv made in this very run (empty: ``uv venv`` seeds nothing),
    read from its ``pyvenv.cfg``; None when the environment must be asked what it holds."""
    t = job.target
    if not (job.installer == INSTALLER_UV and t.creator == CREATOR_UV and STEP_CREATE in job.steps_run):
        return None
    return venv_version(t.path)


def inspect_env(ctx: StepContext) -> None:
    job = ctx.job
    py = job.env_python()
    fresh = _fresh_uv_venv_version(job)
    if fresh is not None:  # nothing to ask a venv made a moment ago (saves a Python start-up)
        job.installed, job.python_version = {}, fresh
    else:
        res = job.host.run(installed_argv(py), timeout=120)
        if not res.ok:
            raise StepError(STEP_INSPECT, msg("install.plan.error.inspect", python=py,
                                              detail=(res.stderr or res.error or "").strip()[-300:]), "failed")
        try:
            job.installed, job.python_version = parse_installed(res.stdout)
        except ValueError as exc:
            raise StepError(STEP_INSPECT, msg("install.plan.error.inspect", python=py, detail=str(exc)),
                            "failed") from exc
    job.pip_cmd = pip_command(py, job.options.pip_mode, job.python_version)
    uv = job.installer == INSTALLER_UV
    if job.pip_cmd[0] == py and not uv:  # the environment's own pip: it must know --dry-run --report
        ver = job.host.run([*job.pip_cmd, "--isolated", "--version"], timeout=60, env=dict(PIP_ENV))
        pip_version = parse_pip_version(ver.stdout) if ver.ok else None
        if pip_version is None:
            raise StepError(STEP_INSPECT, msg("install.plan.error.no_pip"), "no-pip", (ver.stderr or "")[-300:])
        if pip_version < MIN_PIP:
            raise StepError(STEP_INSPECT, msg("install.plan.error.old_pip"), "old-pip")
    if job.plan is not None:  # resuming with the saved plan: what is installed now decides
        _mark(job, job.plan.files)
    state = job.state
    if state is not None and not state.created_by_wizard and not state.freeze_file:
        freeze = job.host.run([_uv(job), "pip", "freeze", "--no-config", "--python", py], timeout=120,
                              env=uv_env_for(job)) if uv else \
            job.host.run(pip_argv(job.pip_cmd, "freeze", "--all"), timeout=120, env=dict(PIP_ENV))
        if freeze.ok:
            path = job.store.freeze_path_for(state.env_path)
            write_atomic(path, freeze.stdout, mkdir=True)
            state.freeze_file = str(path)
            ctx.log(msg("install.freeze_saved", path=str(path)).text(ctx.job.lang))
        else:
            raise StepError(STEP_INSPECT, msg("install.error.freeze", detail=(freeze.stderr or "")[-300:]), "failed")


def plan_step(ctx: StepContext) -> None:
    job = ctx.job
    plan = job.plan
    assert plan is not None
    checked_for_step(STEP_PLAN, plan.pins())  # the resolver's pins go to pip/uv too: the same rule
    for f in plan.files:  # a file the cache holds, verified: its size is known without asking
        if f.size is None and not f.satisfied:
            f.size = job.cache.known_size(f)
    session = job.session_factory() if job.session_factory else None
    fill_sizes(plan.files, session, proxy=job.options.proxies)
    if job.state is not None:
        job.state.plan = plan.to_json()
        job.state.pins = [f.pin for f in plan.files]
        job.state.installer = job.installer
    for line in plan.summary_lines(job.lang):
        ctx.log(line)
    job.planned_bytes = plan.total_bytes
    job.was_satisfied = plan.already_satisfied
    if plan.already_satisfied:
        ctx.log(msg("install.already_satisfied").text(ctx.job.lang))
        return
    cached = sum(f.size or 0 for f in plan.to_install if job.cache.path(f.filename).exists())
    partial = sum(job.cache.partial_size(f) for f in plan.to_install)
    to_fetch = max(0, plan.total_bytes - cached - partial)
    result = preflight(job.target, job.host, download_bytes=to_fetch,
                                unpacked_bytes=int(plan.total_bytes * UNPACK_FACTOR),
                                cache_dir=str(job.cache.root), confirmed=job.options.confirmed,
                                folder_state=lambda p: "missing", writable=lambda p: None,
                                replacing=[f.name for f in plan.to_install])
    space = [c for c in result.checks if c.id in ("disk-space", "cache-space", "path-too-long") and c.blocks]
    if space:
        raise StepError(STEP_PLAN, space[0].message, "space", "\n".join(c.text(ctx.job.lang) for c in space))
    ctx.progress(StepProgress(STEP_PLAN, 1.0, msg("install.plan.total", count=len(plan.to_install),
                                                  size=format_bytes(plan.total_bytes))))


def download(ctx: StepContext) -> None:
    job = ctx.job
    plan = job.plan
    assert plan is not None

    def report(p: DownloadProgress) -> None:
        ctx.progress(StepProgress(STEP_DOWNLOAD, p.fraction, msg(
            "install.progress.download", done=format_bytes(p.done_bytes), total=format_bytes(p.total_bytes),
            speed=format_bytes(p.speed_bps) + "/s", eta=_eta(p.eta_s)), p))

    downloader = Downloader(job.cache, parallel=job.options.parallel, progress=report, cancel=ctx.cancel,
                            session_factory=job.session_factory, proxies=job.options.proxies,
                            retries=job.options.download_retries, backoff_s=job.options.download_backoff_s)
    try:
        r = job.download_result = downloader.fetch(plan.to_install)
    except DownloadCancelled as exc:
        raise JobCancelled(STEP_DOWNLOAD) from exc
    except DownloadError as exc:
        raise StepError(STEP_DOWNLOAD, exc.message, exc.kind, str(exc), getattr(exc, "host", None)) from exc
    ctx.log(msg("install.download_done", fetched=format_bytes(r.downloaded_bytes),
                cached=format_bytes(r.from_cache_bytes), seconds=f"{r.elapsed_s:.1f}").text(ctx.job.lang))
    for name in r.refetched:
        ctx.log(msg("install.refetched", file=name).text(ctx.job.lang))
    # the exact unpacked size and deepest path, from the wheels' zip directories
    unpacked, deepest = _unpacked(job, [p for p in r.paths.values() if p.suffix == ".whl"])
    result = preflight(job.target, job.host, download_bytes=0, unpacked_bytes=unpacked,
                                confirmed=job.options.confirmed, folder_state=lambda p: "missing",
                                writable=lambda p: None, deepest_member=max(deepest, 1),
                                replacing=[f.name for f in plan.to_install])
    problems = [c for c in result.checks if c.id in ("disk-space", "path-too-long") and c.blocks]
    if problems:
        raise StepError(STEP_DOWNLOAD, problems[0].message, "space", "\n".join(c.text(ctx.job.lang) for c in problems))


def _unpacked(job: JobState, wheels: list[Path]) -> tuple[int, int]:
    """The wheels' unpacked bytes and longest member path: remembered in the cache's index per
    file, read from the zip directory only the first time."""
    total, deepest = 0, 0
    for path in wheels:
        known = job.cache.unpacked(path.name)
        if known is None:
            known = unpacked_size([path])
            job.cache.remember_unpacked(path.name, *known)
        total, deepest = total + known[0], max(deepest, known[1])
    return total, deepest


def _eta(seconds: float | None) -> str:
    if seconds is None:
        return "--:--"
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}" if seconds >= 3600 \
        else f"{seconds // 60}:{seconds % 60:02d}"


def install_argv(job: JobState) -> list[str]:
    """The offline install from the cache: exact pins, ``--no-deps`` (the plan is complete)."""
    plan = job.plan
    assert plan is not None
    find_links = str(job.cache.files_dir)
    if job.installer == INSTALLER_UV:
        again = ["--reinstall"] if job.reinstall else []
        pip = _pip_wheel_arg(job)
        return [_uv(job), "pip", "install", "--no-config", "--python", job.env_python(), "--offline", "--no-index",
                "--find-links", find_links, "--no-deps", *again, *_extra_pip_args(job), *plan.pins(), *pip]
    again = ["--force-reinstall"] if job.reinstall else []
    return pip_argv(job.pip_or_default(), "install", "--no-index", "--find-links", find_links, "--no-deps",
                    "--no-input", "--progress-bar", "off", *again, *_extra_pip_args(job), *plan.pins())


def _pip_wheel_arg(job: JobState) -> list[str]:
    """The bundled pip wheel as an argument of the install (none when the plan pins pip itself)."""
    wheel = pip_wheel_with_install(job)
    if wheel is None or (job.plan is not None and any(f.name == "pip" for f in job.plan.files)):
        return []
    return [wheel]


def install_command(job: JobState) -> ProcessSpec:
    env = uv_env_for(job) if job.installer == INSTALLER_UV else job.child_env()
    return ProcessSpec(install_argv(job), env, str(job.work_dir), job.options.process_timeout_s)


def install_parser(job: JobState) -> OutputParser:
    if job.installer == INSTALLER_UV:
        return UvInstallParser(STEP_INSTALL)
    return PipInstallParser(STEP_INSTALL, len(job.plan.to_install) if job.plan else 1)


def install_finish(job: JobState, result: ProcessResult, parser: OutputParser) -> None:
    if not result.ok:
        raise job.process_failure(STEP_INSTALL, result, parser)


def _verify_with_uv(job: JobState) -> bool:
    """Nothing to import: uv lists what is installed (no Python start-up, ~20 ms)."""
    return job.installer == INSTALLER_UV and not job.options.verify_imports


def verify_command(job: JobState) -> ProcessSpec:
    if _verify_with_uv(job):
        argv = [_uv(job), "pip", "list", "--no-config", "--python", job.env_python(), "--format", "json"]
        return ProcessSpec(argv, uv_env_for(job), str(job.work_dir), 600.0)
    argv = [job.env_python(), "-I", "-c", VERIFY_SCRIPT, *job.options.verify_imports]
    return ProcessSpec(argv, job.child_env(), str(job.work_dir), 600.0)


def _parse_uv_list(text: str) -> dict[str, str]:
    """``uv pip list --format json`` → {canonical name: version}."""
    from packaging.utils import canonicalize_name

    for line in reversed(text.splitlines()):
        line = line.strip()
        if line.startswith("["):
            items = json.loads(line)
            return {canonicalize_name(str(i["name"])): str(i["version"]) for i in items}
    raise ValueError("no package list in uv's output")


def verify_in_place(ctx: StepContext) -> bool:
    """Nothing to import and a venv uv made: its ``site-packages`` read here
    (:mod:`~wizard.core.install.venv_listing`), no uv run; False: ask uv or the interpreter."""
    job = ctx.job
    t = job.target
    if not (_verify_with_uv(job) and t.creator == CREATOR_UV and t.creates_env):
        return False
    folder = site_packages(t.path)
    installed = read_installed(folder) if folder is not None else None
    if not installed:
        return False
    job.installed = installed
    ctx.log(msg("install.verify.read_in_place", count=len(installed), folder=str(folder)).text(job.lang))
    _check_installed(job, "\n".join(f"{n}=={v}" for n, v in sorted(installed.items())))
    return True


def verify_finish(job: JobState, result: ProcessResult, parser: OutputParser) -> None:
    if not result.ok:
        raise job.process_failure(STEP_VERIFY, result, parser)
    text = parser.tail_text()
    try:
        if _verify_with_uv(job):
            job.installed = _parse_uv_list(text)
        else:
            job.installed, job.python_version = parse_installed(text)
    except (ValueError, KeyError, TypeError) as exc:
        raise StepError(STEP_VERIFY, msg("install.error.verify", detail=str(exc)), "failed", text) from exc
    for line in reversed(text.splitlines()):
        if '"gsw_imports"' in line:
            job.imports = json.loads(line).get("imports", {})
            break
    _check_installed(job, text)


def _check_installed(job: JobState, text: str) -> None:
    """Every planned file at its exact version, pip where the install brought it, every import ok."""
    plan = job.plan
    wrong = []
    if plan is not None:
        mark_satisfied(plan.files, job.installed)
        wrong = [f"{f.name} {f.installed_version or '-'} ≠ {f.version}" for f in plan.files if not f.satisfied]
    if _pip_wheel_arg(job) and "pip" not in job.installed:  # the install brought it: it must be there
        wrong.append("pip -")
    bad_imports = [f"{m}: {r}" for m, r in job.imports.items() if r != "ok"]
    if wrong or bad_imports:
        raise StepError(STEP_VERIFY, msg("install.error.verify", detail="; ".join(wrong + bad_imports)), "verify",
                        text)


def finish(ctx: StepContext) -> None:
    job = ctx.job
    remove_incomplete_marker(job.target.path)
    if job.state is not None:
        if STEP_FINISH not in job.state.steps_done:
            job.state.steps_done.append(STEP_FINISH)
        job.state.status = STATUS_COMPLETE
        job.state.failed_step = None
        job.state.error = None
        job.store.save(job.state)
    ctx.log(msg("install.complete", python=job.env_python(), seconds=f"{job.elapsed_s:.1f}").text(ctx.job.lang))
