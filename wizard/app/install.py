"""Install use cases: where PyTorch goes, what is asked of which index, the plan, and the run.

Every install decision both faces make lives here once: the default folder of a new venv (and
its numbering when the folder is taken), whether a folder is an unfinished install the wizard
resumes, the requirements and the index (a mirror replaces download.pytorch.org), the
options of the job, the plan preview and the pre-flight checks. The Environment page and
``gpu-setup-wizard install`` call these, so the same inputs give the same plan in both.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping
from urllib.parse import urlsplit

from wizard.app.install_request import InstallRequest as InstallRequest  # the session keeps one: its own module
from wizard.core.install import environments, preflight
from wizard.core.install.download_progress import DownloadProgress
from wizard.core.install.environments import EnvTarget, is_incomplete, new_uv_venv, new_venv
from wizard.core.install.failure_kind import PLAN_BLOCKING_REASONS, FailureKind
from wizard.core.install.job import INSTALLER_AUTO, INSTALLER_PIP, INSTALLER_UV, STEP_DOWNLOAD, InstallOptions
from wizard.core.install.plan import InstallPlan, PlanError, format_bytes
from wizard.core.install.preflight import (
    CONFIRMABLE,
    SEVERITY_CONFIRM,
    SEVERITY_ERROR,
    SEVERITY_OK,
    UNPACK_FACTOR,
    PreflightResult,
)
from wizard.core.install.recovery import OPTION_REMOVE, OPTION_RESTORE, OPTION_RESUME
from wizard.core.install.recovery import EnvState as EnvState  # re-exported for the faces' annotations
from wizard.core.install.recovery import StateStore as StateStore
from wizard.core.install.runner import InstallJob, Progress, run_steps

if TYPE_CHECKING:
    import threading

    from wizard.app.session import Session
    from wizard.core.base.host import Host
    from wizard.core.base.i18n import Message
    from wizard.core.install.job import Step
    from wizard.core.install.summary import InstallSummary
    from wizard.core.machine.models import PythonInterpreter
    from wizard.core.recommend.recommender import Candidate

# The value types and constants the faces read (they import this layer, never an engine stage)
VALUE_TYPES = (EnvTarget, FailureKind, InstallJob, InstallOptions, InstallPlan, PlanError, Progress)
CONSTANTS = (CONFIRMABLE, INSTALLER_AUTO, INSTALLER_PIP, INSTALLER_UV, OPTION_REMOVE, OPTION_RESTORE, OPTION_RESUME,
             SEVERITY_CONFIRM, SEVERITY_ERROR, SEVERITY_OK, STEP_DOWNLOAD, format_bytes)
# ... named for the type checker too (strict: an imported name is re-exported only when listed); this
# module's own functions and classes need no listing
__all__ = ["CONFIRMABLE", "INSTALLER_AUTO", "INSTALLER_PIP", "INSTALLER_UV", "OPTION_REMOVE", "OPTION_RESTORE",
           "OPTION_RESUME", "SEVERITY_CONFIRM", "SEVERITY_ERROR", "SEVERITY_OK", "STEP_DOWNLOAD", "EnvTarget",
           "DownloadProgress", "FailureKind", "InstallJob", "InstallOptions", "InstallPlan", "PlanError", "Progress",
           "format_bytes"]

# What the install's own last step imports: nothing. It checks that every planned distribution
# is there at its exact version (a partial install is caught there); importing each package
# of the torch family and running one op of each is Verify's work, which follows an install in
# both faces -- doing it twice cost the install 2 s (the whole of a warm uv install is 0.4 s).
VERIFY_IMPORTS: tuple[str, ...] = ()
# Except in an environment the student already had: there the install changed something that
# worked, so its last step imports torch, and a torch that no longer imports fails the install
# while the saved package list can still put the environment back (Restore).
EXISTING_ENV_IMPORTS: tuple[str, ...] = ("torch",)


@dataclass
class InstallSettings:
    """The advanced settings: a mirror of the PyTorch index, uv's Python mirror, a proxy,
    which tool plans and installs from the cache ("auto": uv when its binary is found), and
    where a course's extra packages come from when the build's index lacks them
    (``extras_index``: "" is PyPI, or a PyPI mirror; the mirror's own address: the mirror only).
    """

    mirror: str = ""
    python_mirror: str = ""
    proxy: str = ""
    installer: str = INSTALLER_AUTO
    extras_index: str = ""


@dataclass
class CheckOutcome:
    """What the pre-flight found for one target: the checks, free space where the environment
    and the cache go, what the cache already holds, and the target interpreter's own answer."""

    preflight: PreflightResult
    free_env: tuple[int, int] | None = None
    free_cache: tuple[int, int] | None = None
    cached_bytes: int = 0
    interpreter: PythonInterpreter | None = None


@dataclass
class PlanOutcome:
    """A plan preview: the plan (None: resolvable only once the environment exists) or why not."""

    plan: InstallPlan | None = None
    error: PlanError | None = None


# --- what to install -----------------------------------------------------------------------------
def install_source(candidate: Candidate, mirror: str | None = None) -> tuple[list[str], str | None]:
    """(requirements, index URL) for the chosen build; a mirror replaces the index.

    A mirror of PyPI is used as it is for a build from PyPI; a mirror of
    download.pytorch.org/whl gets the build's variant appended (``<mirror>/cu128``). A build
    from any other index (a Jetson's JetPack wheels) is not on either kind of mirror: it keeps
    its own index (``<mirror>/cu126`` was a page that cannot hold it, see :func:`mirror_applies`)."""
    from wizard.core.recommend.commands import mirror_index_url, requirements

    reqs = requirements(candidate)
    mirror = (mirror or "").strip()
    index: str | None
    if mirror and mirror_applies(candidate):
        index = mirror if candidate.uses_default_index else mirror_index_url(mirror, candidate.variant)
    else:
        index = None if candidate.uses_default_index else candidate.index_url
    return reqs, index


PYTORCH_INDEX_HOST = "download.pytorch.org"


def mirror_applies(candidate: Candidate) -> bool:
    """Whether a package mirror can stand in for the build's index: a mirror mirrors PyPI or
    download.pytorch.org/whl, so only builds from those two are on one."""
    if candidate.uses_default_index:
        return True
    return (urlsplit(candidate.index_url).hostname or "").lower() == PYTORCH_INDEX_HOST


def install_options(candidate: Candidate, settings: InstallSettings, *, cache_dir: str | None = None,
                    state_dir: str | None = None, confirmed: set[str] | None = None,
                    plan: InstallPlan | None = None, parallel: int | None = None) -> InstallOptions:
    """The job's options for ``candidate`` under ``settings`` (the mirror, proxy and installer)."""
    reqs, index = install_source(candidate, settings.mirror)
    proxy = settings.proxy.strip()
    extra: dict[str, Any] = {"parallel": max(1, parallel)} if parallel is not None else {}
    return InstallOptions(reqs, index, installer=settings.installer, cache_dir=cache_dir, state_dir=state_dir,
                          confirmed=set(confirmed or ()), proxies={"http": proxy, "https": proxy} if proxy else None,
                          uv_python_mirror=settings.python_mirror.strip() or None,
                          verify_imports=list(VERIFY_IMPORTS),
                          expected_download_bytes=plan.total_bytes if plan is not None else 0, **extra)


def options_for(session: Session, candidate: Candidate, settings: InstallSettings, **kwargs: Any) -> InstallOptions:
    """:func:`install_options` with the session's course extras added, so the plan preview, the
    "what" line and the install all ask for the same packages from the same indexes (a preview
    without ``transformers`` said "Ready" for an install that then failed on it)."""
    options = install_options(candidate, settings, **kwargs)
    if getattr(session, "course", None) is not None:
        from wizard.core.course.profile import add_extras

        add_extras(session.course, options, settings.extras_index.strip() or None)
        _tensorflow_for_machine(session, options)
    return options


def _tensorflow_for_machine(session: Session, options: InstallOptions) -> None:
    """A course's bare ``tensorflow`` made this machine's: ``tensorflow[and-cuda]`` on Linux and WSL2
    with an NVIDIA GPU, ``tensorflow-metal`` beside it on a Mac with Apple silicon
    (wizard/core/recommend/tensorflow.py); unchanged without a recommendation."""
    choice = getattr(session, "recommendation", None)
    if choice is None or not options.requirements:
        return
    from wizard.core.recommend.tensorflow import with_tensorflow_route

    options.requirements = with_tensorflow_route(list(options.requirements), choice.recommendation.facts)


def asking_again(options: InstallOptions) -> InstallOptions:
    """``options`` for a question asked again after a failed answer (a re-typed mirror, Resume):
    the index is asked, not a page uv cached while the mirror was broken."""
    from dataclasses import replace

    return replace(options, refresh_index=True)


def python_version(session: Session) -> str | None:
    """The Python version the install is for: the recommendation's, else the chosen build's."""
    return getattr(session.recommendation, "version", None) or getattr(session.candidate, "python", None)


def plan_blocks(error: PlanError | None) -> bool:
    """A plan answer that cannot be installed as it is (no connection, no such build, a torch
    family of mixed builds ...): Install stays off and nothing says "ready"."""
    return error is not None and error.kind in PLAN_BLOCKING_REASONS


def failure_kind(reason: object) -> FailureKind:
    """The kind the faces word, for an engine reason (a saved install state's ``error_kind``)."""
    return FailureKind.of(reason)


def sources_text(options: InstallOptions, lang: str | None = None) -> str:
    """Where the packages come from. With ``lang`` and a course's extras that have their own
    source: in words ("<mirror> (the course's X: from PyPI when not there)", made to follow
    "from" in a sentence); otherwise the indexes in the order they are asked (extra ones first,
    as uv does; "PyPI" for none)."""
    if lang is not None:
        from wizard.core.install.extras import sources_words

        words = sources_words(options, lang)
        if words is not None:
            return words
    from wizard.core.install.extras import ordered_indexes

    main, extra = ordered_indexes(options)
    return " + ".join([*extra, main or "PyPI"])


# --- where it goes -------------------------------------------------------------------------------
def state_store(state_dir: str | None = None) -> StateStore:
    """The store of install states (``None``: the user's state folder)."""
    from wizard.core.install.recovery import StateStore

    return StateStore(state_dir)


def unfinished_at(store: StateStore, path: str) -> EnvState | None:
    """The wizard's own unfinished install at ``path`` (installing there resumes it), or None.

    Only an install the wizard created and did not complete counts, and only while the folder
    is missing or still incomplete (a finished environment someone made there is not ours)."""
    if not path:
        return None
    state = store.load(path)
    if state is None or state.status == "complete" or not state.created_by_wizard:
        return None
    if os.path.exists(path) and not is_incomplete(path):
        return None
    return state


def default_venv_path(host: Host, candidate: Candidate | None, store: StateStore) -> str:
    """``<home>/GPU-Setup-Wizard/envs/torch-<variant>``, numbered (``-2``, ``-3``) while that
    folder is taken by something that is not our own unfinished install."""
    name = f"torch-{candidate.variant}" if candidate is not None else "pytorch"
    base = environments.default_venv_path(host, name)
    path, n = base, 2
    while os.path.exists(path) and unfinished_at(store, path) is None:
        path, n = f"{base}-{n}", n + 1
    return path


def new_venv_target(path: str, python: str, *, uv_exe: str | None = None, installer: str = INSTALLER_AUTO,
                    managed: bool = False) -> EnvTarget:
    """A new venv at ``path`` from the interpreter ``python`` -- or, with ``managed``, from the
    Python version uv installs. uv makes the venv when it installs (the default when its binary
    is found: no ensurepip, a fraction of a second), or when the Python is its own."""
    if installer != INSTALLER_PIP and not uv_exe:
        uv_exe = environments.find_uv()
    if managed or (installer != INSTALLER_PIP and uv_exe):
        return new_uv_venv(path, python, uv_exe=uv_exe)
    return new_venv(path, python)


def venv_target_at(path: str, python: str, store: StateStore, **kwargs: Any) -> tuple[EnvTarget, EnvState | None]:
    """(target, resumed state): the unfinished install at ``path`` when there is one, else a new venv."""
    path = os.path.abspath(os.path.expanduser(path))
    state = unfinished_at(store, path)
    if state is not None:
        return state.env_target(), state
    return new_venv_target(path, python, **kwargs), None


def resume_request(state: EnvState, settings: InstallSettings | None = None, *, cache_dir: str | None = None,
                   state_dir: str | None = None, confirmed: set[str] | None = None) -> InstallRequest:
    """Resume an unfinished install exactly as it ran: the same requirements and index (the
    mirror it used), the same installer, so the saved plan -- the exact versions in
    ``state.pins`` -- is reused. Never a fresh recommendation, never the default index.
    ``settings`` gives only the proxy (a network setting, not a choice of packages)."""
    settings = settings or InstallSettings()
    proxy = settings.proxy.strip()
    options = InstallOptions(list(state.requirements), state.index_url,
                             installer=state.installer or settings.installer, cache_dir=cache_dir,
                             state_dir=state_dir, confirmed=set(confirmed or ()),
                             proxies={"http": proxy, "https": proxy} if proxy else None,
                             uv_python_mirror=settings.python_mirror.strip() or None,
                             verify_imports=list(VERIFY_IMPORTS),
                             refresh_index=state.status == "failed",  # a failed answer is asked again
                             extras=list(state.extras), extras_index=state.extras_index)  # a course's, as it ran
    pins = ", ".join(state.pins) if state.pins else " ".join(state.requirements)
    return InstallRequest(state.env_target(), options, None, f"{pins} ← {state.index_url or 'PyPI'}")


# --- plan and checks (slow: worker thread or the command's own) ---------------------------------
def plan_install(target: EnvTarget, options: InstallOptions, host: Host) -> PlanOutcome:
    """Resolve the exact files against the index, without installing anything."""
    from wizard.core.install.runner import preview_plan

    try:
        return PlanOutcome(preview_plan(target, options, host))
    except PlanError as exc:
        return PlanOutcome(None, exc)


def default_cache_dir(cache_dir: str | None = None) -> str:
    if cache_dir:
        return cache_dir
    from wizard.core.install.cache import default_cache_root

    return str(default_cache_root())


def run_checks(target: EnvTarget, host: Host, plan: InstallPlan | None, cache_dir: str,
               confirmed: set[str], conda_names: list[str] | None = None, conda_base: str | None = None,
               resumable: bool = False) -> CheckOutcome:
    """Pre-flight for ``target``: the interpreter is asked about itself (PEP 668, its prefix),
    the cache is looked at (files already there are not downloaded again)."""
    from wizard.core.install.cache import WheelCache
    from wizard.core.machine.pythons import query_interpreter

    interpreter = None
    if not target.creates_env and os.path.exists(target.python_exe):
        interpreter, _key = query_interpreter(host, target.python_exe, "target")
    download, unpacked, cached = 0, None, 0
    if plan is not None:
        cache = WheelCache(cache_dir)
        cached = sum(f.size or 0 for f in plan.to_install if cache.path(f.filename).exists())
        download = max(0, plan.total_bytes - cached)
        unpacked = int(plan.total_bytes * UNPACK_FACTOR)
    result = preflight.preflight(target, host, download_bytes=download, unpacked_bytes=unpacked, cache_dir=cache_dir,
                            interpreter=interpreter, existing_conda_names=list(conda_names or []),
                            conda_base_prefix=conda_base, confirmed=confirmed,
                            folder_state=(lambda _p: "missing") if resumable else None,
                            replacing=[f.name for f in plan.to_install] if plan is not None else ())
    return CheckOutcome(result, host.disk_free(target.path) if target.path else None, host.disk_free(cache_dir),
                        cached, interpreter)


def plan_document(request: InstallRequest, checks: CheckOutcome | None, lang: str) -> dict[str, Any]:
    """The plan as both faces export it: files, target, requirements, index and the checks."""
    from wizard.core.install.plan import PLAN_SCHEMA

    doc: dict[str, Any] = request.plan.to_json() if request.plan is not None else {"schema": PLAN_SCHEMA, "files": None}
    doc.update({"target": request.target.to_json(), "requirements": list(request.options.requirements),
                "index_url": request.options.index_url})
    if checks is not None:
        doc.update({"checks": [c.to_json(lang) for c in checks.preflight.checks], "ok": checks.preflight.ok})
    return doc


# --- the run -------------------------------------------------------------------------------------
@dataclass
class InstallOutcome:
    """How the install ended: ok, the job (its summary, failure and recovery options)."""

    ok: bool
    job: InstallJob
    summary: dict[str, Any] = field(default_factory=dict)


def new_job(session: Session, request: InstallRequest, *, on_log: Callable[[str], None] | None = None) -> InstallJob:
    """The install job for ``request`` on the session's host (the window runs it through its
    step runner, the CLI with :func:`run_install`). A course profile in the session adds its
    extra packages to the request (once; the command line has added them already)."""
    if getattr(session, "course", None) is not None:
        from wizard.core.course.profile import add_extras

        add_extras(session.course, request.options)
        _tensorflow_for_machine(session, request.options)
    if not request.target.creates_env and not request.options.verify_imports:
        request.options.verify_imports = list(EXISTING_ENV_IMPORTS)
    return InstallJob(request.target, request.options, session.host, on_log=on_log)


def run_install(session: Session, job: InstallJob, *, on_progress: Callable[[Progress], None] | None = None,
                cancel: threading.Event | None = None) -> InstallOutcome:
    """Run ``job`` on this thread and record a finished install's summary in the session."""
    ok = run_steps(job, on_progress=on_progress, cancel=cancel)
    outcome = InstallOutcome(ok, job, job.summary())
    if ok:
        record_install(session, outcome.summary)
    return outcome


def restore_run(job: InstallJob) -> list[Step]:
    """The steps that put an existing environment's previous packages back (after a failure)."""
    from wizard.core.install.runner import restore_steps

    return restore_steps(job)


def restore_job(state: EnvState, host: Host, store: StateStore | None = None, *, cache_dir: str | None = None,
                on_progress: Callable[[Progress], None] | None = None) -> InstallOutcome:
    """Put back the packages an existing environment had before the install in ``state``
    changed it (its saved ``pip freeze``), on this thread."""
    job = InstallJob(state.env_target(), InstallOptions(state.requirements, state.index_url, cache_dir=cache_dir),
                     host, store=store if store is not None else state_store())
    job.state = state
    return InstallOutcome(run_steps(job, restore_run(job), on_progress=on_progress), job)


def index_url_problem(url: str) -> str | None:
    """The catalogue key for why ``url`` is no web address an index can have, or None."""
    from wizard.core.recommend.wheel_index import index_url_problem as problem

    return problem(url)


def conda_name_problem(name: str, existing: list[str]) -> Message | None:
    """Why ``name`` cannot be a new conda env (conda's own rules), or None."""
    return preflight.conda_name_problem(name, existing)


def describe_uv_python(host: Host, uv: str, version: str, mirror: str | None, lang: str) -> str:
    """One sentence: what uv will download for Python ``version`` and where (blocking: a worker's)."""
    from wizard.core.base.i18n import t
    from wizard.core.install.env_commands import (
        COMMAND_TIMEOUT,
        describe_uv_python_download,
        uv_env,
        uv_python_find_argv,
    )

    found = host.run(uv_python_find_argv(uv, version), timeout=COMMAND_TIMEOUT, env=uv_env(mirror))
    if found.ok and found.stdout.strip():
        return t("environment.uv.have", lang, version=version, path=found.stdout.strip().splitlines()[-1])
    download, folder = describe_uv_python_download(host, uv, version, mirror)
    if download is None:
        return t("environment.uv.unknown", lang, version=version)
    return t("install.uv.download_info", lang, version=download.version, url=download.url,
             folder=folder or t("common.na", lang))


def record_install(session: Session, summary: Mapping[str, Any] | InstallSummary) -> InstallSummary:
    """A finished install: its summary (the job's document, typed here once), and its Python
    becomes the one Verify checks."""
    from wizard.core.install.summary import InstallSummary

    typed = summary if isinstance(summary, InstallSummary) else InstallSummary.from_json(summary)
    session.install = typed
    session.target_python = typed.env_python or session.target_python
    return typed
