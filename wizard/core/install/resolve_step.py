"""The resolve step: which exact files -- ``uv pip compile`` (the default) or pip's dry-run
report -- and the plan cache that spares a warm run uv's second resolution while the index
answers the same (:mod:`~wizard.core.install.plan_cache`). The helpers the later steps share
(the uv binary and its environment, pip's extra arguments, marking what is installed) live
here too, so :mod:`~wizard.core.install.actions` stays a list of steps.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from wizard.core.base.files import write_atomic
from wizard.core.base.i18n import msg
from wizard.core.install.environments import find_uv
from wizard.core.install.extras import for_extras, ordered_indexes
from wizard.core.install.family import family_problem
from wizard.core.install.job import (
    INSTALLER_UV,
    STEP_RESOLVE,
    JobState,
    OutputParser,
    ProcessResult,
    ProcessSpec,
    StepContext,
    StepError,
)
from wizard.core.install.parsers import ResolveParser, UvResolveParser
from wizard.core.install.plan import (
    InstallPlan,
    PlanError,
    classify_pip_failure,
    mark_satisfied,
    parse_pip_report,
    resolve_argv,
)
from wizard.core.install.plan_cache import CachedPlan, ConsultedUrls, PlanCache, fetch_answers, plan_key
from wizard.core.install.preflight import CHECK_EXTERNALLY_MANAGED
from wizard.core.install.uv_plan import (
    PYLOCK_NAME,
    classify_uv_failure,
    parse_pylock,
    uv_child_env,
    uv_network_args,
    uv_resolve_argv,
    write_requirements_in,
)


def _mark(job: JobState, files: list) -> None:
    """What is already installed -- nothing, after an installer was killed mid-write."""
    mark_satisfied(files, job.installed)
    if job.reinstall:
        for f in files:
            f.satisfied = False


def _report_path(job: JobState) -> str:
    return str(job.work_dir / "pip-report.json")


def _extra_pip_args(job: JobState) -> list[str]:
    return ["--break-system-packages"] if CHECK_EXTERNALLY_MANAGED in job.options.confirmed else []


def _lock_path(job: JobState) -> str:
    return str(job.work_dir / PYLOCK_NAME)


def _uv(job: JobState) -> str:
    return job.options.uv_exe or job.target.uv_exe or find_uv() or "uv"


def uv_env_for(job: JobState) -> dict[str, str]:
    """The child environment of the job's uv runs (isolated; the job's uv cache; its proxy)."""
    return job.child_env(uv_child_env(None, job.options.uv_cache_dir))


def resolve_command(job: JobState) -> ProcessSpec:
    """The plan from metadata only: ``uv pip compile`` (default) or pip's dry-run report."""
    if job.installer == INSTALLER_UV:
        lock = _lock_path(job)
        Path(lock).unlink(missing_ok=True)  # uv would prefer the versions of an old lock file
        write_requirements_in(lock, job.options.requirements)
        main, extra = ordered_indexes(job.options)  # a course's extras' source after the build's index
        argv = uv_resolve_argv(_uv(job), job.env_python(), job.options.requirements, main, lock, extra,
                               job.options.only_binary, refresh=job.options.refresh_index)
        # uv's HTTP client's DEBUG lines name the URLs it read: the plan cache's record
        # (RUST_LOG, not -v: -v cannot go with --quiet, which keeps the lock off stdout)
        return ProcessSpec(argv, {**uv_env_for(job), "RUST_LOG": "uv_client=debug"}, str(job.work_dir), 900.0)
    report = _report_path(job)
    Path(report).unlink(missing_ok=True)
    main, extra = ordered_indexes(job.options)
    argv = resolve_argv(job.pip_or_default(), job.options.requirements, main, report, extra,
                        job.options.only_binary, extra_args=_extra_pip_args(job))
    return ProcessSpec(argv, job.child_env(), str(job.work_dir), 900.0)


def resolve_parser(job: JobState) -> OutputParser:
    return UvResolveParser(STEP_RESOLVE) if job.installer == INSTALLER_UV else ResolveParser(STEP_RESOLVE)


def _plan_key(job: JobState) -> str:
    o = job.options
    main, extra = ordered_indexes(o)
    return plan_key(_uv(job), job.env_python(), o.requirements, main, extra, o.only_binary, uv_network_args())


def _plan_cache(job: JobState) -> PlanCache:
    return PlanCache(job.cache.root / "plans")


def _page_session(job: JobState) -> Callable[[], Any]:
    """Sessions for the plan cache's requests: the wizard's HTTP session with the job's proxy."""
    from wizard.core.base.http import http_session, set_proxy

    def make() -> Any:
        sess = job.session_factory() if job.session_factory else http_session()
        if job.options.proxies:
            set_proxy(sess, job.options.proxies)  # the typed proxy wins over the environment's
        return sess
    return make


def resolve_from_cache(ctx: StepContext) -> bool:
    """The plan uv made before for this very question, while the index answers every URL uv
    read exactly as then (:mod:`~wizard.core.install.plan_cache`); False: uv plans."""
    job = ctx.job
    if job.installer != INSTALLER_UV:
        return False
    key, cache = _plan_key(job), _plan_cache(job)
    kept = cache.load(key)
    if kept is None:
        return False
    if not cache.still_valid(kept, _page_session(job)):
        ctx.log(msg("install.plan.cache_changed").text(job.lang))
        cache.forget(key)
        return False
    try:
        files = parse_pylock(kept.lock_text, job.options.requirements)
    except PlanError:
        cache.forget(key)
        return False
    write_atomic(_lock_path(job), kept.lock_text, mkdir=True)  # what was planned, beside the log
    _accept_resolution(job, files)
    ctx.log(msg("install.plan.cache_hit", count=len(kept.responses)).text(job.lang))
    return True


def _keep_plan(job: JobState, parser: OutputParser) -> None:
    """Keep uv's plan with the answers it read, when its log shows it asked for all of them."""
    urls = getattr(parser, "urls", None)
    if not isinstance(urls, ConsultedUrls) or not urls.cacheable():
        return
    answers = fetch_answers(urls.used, _page_session(job))
    if answers is None:
        return
    try:
        with open(_lock_path(job), encoding="utf-8") as fh:
            lock_text = fh.read()
    except OSError:
        return
    _plan_cache(job).store(_plan_key(job), CachedPlan(lock_text, answers))


def _read_resolution(job: JobState) -> list:
    """The planned files from uv's lock file or pip's report."""
    if job.installer == INSTALLER_UV:
        with open(_lock_path(job), encoding="utf-8") as fh:
            return parse_pylock(fh.read(), job.options.requirements)
    with open(_report_path(job), encoding="utf-8") as fh:
        return parse_pip_report(fh.read())[0]


def resolve_finish(job: JobState, result: ProcessResult, parser: OutputParser) -> None:
    if not result.ok:
        if result.timed_out or result.error:
            raise job.process_failure(STEP_RESOLVE, result, parser)
        classify = classify_uv_failure if job.installer == INSTALLER_UV else classify_pip_failure
        err = for_extras(classify(parser.tail_text(), job.options.index_url), job.options)
        raise StepError(STEP_RESOLVE, err.message, err.kind, err.detail or parser.tail_text(), err.host)
    try:
        files = _read_resolution(job)
    except OSError as exc:
        raise StepError(STEP_RESOLVE, msg("install.plan.error.bad_report", detail=str(exc)), "bad-report") from exc
    except PlanError as exc:
        raise StepError(STEP_RESOLVE, exc.message, exc.kind, exc.detail) from exc
    _accept_resolution(job, files)
    if job.installer == INSTALLER_UV:
        _keep_plan(job, parser)


def _accept_resolution(job: JobState, files: list) -> None:
    """The resolved files become the job's plan (a torch family of two builds is refused)."""
    problem = family_problem(files)
    if problem is not None:  # never pair a torch with a torchvision of another build
        raise StepError(STEP_RESOLVE, problem.message, problem.kind, problem.detail)
    _mark(job, files)
    job.plan = InstallPlan(job.env_python(), list(job.options.requirements), job.options.index_url, files,
                           python_version=job.python_version, installed_before=dict(job.installed))
