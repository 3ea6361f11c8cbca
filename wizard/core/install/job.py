"""The install job: the step vocabulary, what to install (:class:`InstallOptions`), and what
each step has learnt so far (:class:`JobState`).

An install is a list of steps of two kinds:

* :class:`ProcessStep` -- a child process: ``step.command(job)`` gives a
  :class:`~wizard.core.base.process.ProcessSpec` (argv list, complete environment, working
  folder, timeout), ``step.parser(job)`` an :class:`OutputParser` that turns output lines into
  :class:`StepProgress`, and ``step.finish(job, result, parser)`` reads the outcome (raising
  :class:`StepError` on failure).
* :class:`PythonStep` -- work in Python (downloads, reading reports): ``step.run(ctx)`` with a
  :class:`StepContext` carrying ``progress``/``log`` callbacks and a ``cancel`` event.

The steps (:mod:`~wizard.core.install.actions`) read and fill the :class:`JobState`; its
lifecycle calls (``step_started`` … ``step_cancelled``) keep the recovery state
(:mod:`wizard.core.install.recovery`) up to date. :class:`wizard.core.install.runner.InstallJob`
is a job state with its plan of steps, and :func:`~wizard.core.install.runner.run_steps` the
one loop that runs them.
"""

from __future__ import annotations

import collections
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from wizard.core.base.host import Host, RealHost
from wizard.core.base.i18n import Message, msg
from wizard.core.base.process import ProcessResult, ProcessSpec
from wizard.core.install.cache import WheelCache
from wizard.core.install.download_progress import DownloadProgress, DownloadResult
from wizard.core.install.environments import EnvTarget
from wizard.core.install.failure_kind import FailureKind, host_in_output, reason_in_output
from wizard.core.install.plan import InstallPlan, pip_child_env, pip_command
from wizard.core.install.preflight import PreflightResult

if TYPE_CHECKING:  # control imports this module
    from wizard.core.install.control import CancelOutlook
from wizard.core.install.recovery import (
    STATUS_CANCELLED,
    STATUS_COMPLETE,
    STATUS_FAILED,
    STATUS_RUNNING,
    EnvState,
    StateStore,
)

INSTALLER_PIP = "pip"
INSTALLER_UV = "uv"
INSTALLER_AUTO = "auto"  # uv when its binary is found (it is a dependency of the wizard), else pip
TAIL_LINES = 60

STEP_PREPARE = "prepare"
STEP_PYTHON = "python"
STEP_CREATE = "create"
STEP_ENSUREPIP = "ensurepip"
STEP_INSPECT = "inspect"
STEP_RESOLVE = "resolve"
STEP_PLAN = "plan"
STEP_DOWNLOAD = "download"
STEP_INSTALL = "install"
STEP_VERIFY = "verify"
STEP_FINISH = "finish"

# Relative effort of each step, for the overall bar (downloads dominate a real install).
STEP_WEIGHTS = {STEP_PREPARE: 1, STEP_PYTHON: 8, STEP_CREATE: 5, STEP_ENSUREPIP: 3, STEP_INSPECT: 1,
                STEP_RESOLVE: 4, STEP_PLAN: 2, STEP_DOWNLOAD: 55, STEP_INSTALL: 18, STEP_VERIFY: 3, STEP_FINISH: 0}


@dataclass
class StepProgress:
    """What a step reports. ``fraction`` None = indeterminate. ``download`` is set by the
    download step (bytes, speed, ETA, per-file)."""

    step_id: str
    fraction: float | None = None
    message: Message | None = None
    download: DownloadProgress | None = None

    def text(self, lang: str | None) -> str:
        return self.message.text(lang) if self.message is not None else ""


class OutputParser:
    """Lines of a child's output → progress. Keeps the last lines for the failure message."""

    def __init__(self, step_id: str) -> None:
        self.step_id = step_id
        self.tail: collections.deque[str] = collections.deque(maxlen=TAIL_LINES)

    def feed_line(self, line: str) -> StepProgress | None:
        if line.strip():
            self.tail.append(line)
        return self.parse(line)

    def parse(self, line: str) -> StepProgress | None:
        return None

    def shows(self, line: str) -> bool:
        """Does the student's log get this line? (A tool's debug lines feed the parser only.)"""
        return True

    def tail_text(self) -> str:
        return "\n".join(self.tail)



class StepError(Exception):
    """A step failed. ``message`` says what, in words; ``kind`` lets the page pick its advice
    (network → the mirror setting; hash; space; cancelled ...)."""

    def __init__(self, step_id: str, message: Message, kind: str = "failed", detail: str = "",
                 host: str | None = None) -> None:
        super().__init__(message.text("en"))
        self.step_id = step_id
        self.message = message
        self.kind = kind
        self.detail = detail
        self.host = host

    @property
    def failure_kind(self) -> FailureKind:
        """What the faces say about it (connection, disk, no build, ...): the reason, mapped once."""
        return FailureKind.of(self.kind)


class JobCancelled(Exception):
    def __init__(self, step_id: str) -> None:
        super().__init__(f"cancelled during {step_id}")
        self.step_id = step_id


@dataclass
class StepContext:
    job: "JobState"
    progress: Callable[[StepProgress], None]
    log: Callable[[str], None]
    cancel: threading.Event


@dataclass
class Step:
    id: str

    @property
    def title(self) -> Message:
        return msg(f"install.step.{self.id}")

    @property
    def weight(self) -> int:
        return STEP_WEIGHTS.get(self.id, 1)

    def skip(self, job: "JobState") -> bool:
        return False


@dataclass
class ProcessStep(Step):
    build: Callable[["JobState"], ProcessSpec] = None  # type: ignore[assignment]
    make_parser: Callable[["JobState"], OutputParser] | None = None
    on_finish: Callable[["JobState", ProcessResult, OutputParser], None] = None  # type: ignore[assignment]
    skip_when: Callable[["JobState"], bool] | None = None
    # A step that writes the environment: a cancel lets it finish (the run stops after it);
    # only job.force_stop() kills it, and the state then says it was killed mid-write.
    finish_on_cancel: bool = False
    # A way to the step's result without the child (a kept plan the index still confirms):
    # called first; True means done, and the process is not started.
    attempt: Callable[["StepContext"], bool] | None = None

    def command(self, job: "JobState") -> ProcessSpec:
        return self.build(job)

    def parser(self, job: "JobState") -> OutputParser:
        return self.make_parser(job) if self.make_parser else OutputParser(self.id)

    def finish(self, job: "JobState", result: ProcessResult, parser: OutputParser) -> None:
        if result.cancelled:
            raise JobCancelled(self.id)
        if self.on_finish is not None:
            self.on_finish(job, result, parser)
        elif not result.ok:
            raise job.process_failure(self.id, result, parser)

    def skip(self, job: "JobState") -> bool:
        return bool(self.skip_when and self.skip_when(job))


@dataclass
class PythonStep(Step):
    func: Callable[[StepContext], None] = None  # type: ignore[assignment]
    skip_when: Callable[["JobState"], bool] | None = None

    def run(self, ctx: StepContext) -> None:
        self.func(ctx)

    def skip(self, job: "JobState") -> bool:
        return bool(self.skip_when and self.skip_when(job))


SUMMARY_SCHEMA = "gpu-setup-wizard/install@1.0"
LOG_LINES = 20000


@dataclass
class InstallOptions:
    """What to install and how. ``requirements``: pip requirement strings (the recommendation's
    ``torch==X``, ``torchvision==Y``); ``index_url``: the chosen index (a mirror replaces it);
    ``installer``: pip, uv, or auto (uv when its binary is found, else pip) -- uv plans from
    metadata (``uv pip compile``) and installs from the cache; ``verify_imports``: modules
    imported at the end (the Verify page does the thorough check); ``uv_cache_dir``: uv's own
    cache (None: uv's default, shared with the student's own uv)."""

    requirements: list[str]
    index_url: str | None = None
    extra_index_urls: list[str] = field(default_factory=list)
    installer: str = INSTALLER_AUTO
    cache_dir: str | None = None
    state_dir: str | None = None
    parallel: int = 3
    confirmed: set[str] = field(default_factory=set)
    proxies: dict[str, str] | None = None
    uv_exe: str | None = None
    uv_python_mirror: str | None = None
    only_binary: bool = True
    verify_imports: list[str] = field(default_factory=list)
    expected_download_bytes: int = 0  # from a preview plan, for the first space check
    pip_mode: str = "auto"  # auto | wizard (the wizard's pip with --python) | target (the env's own pip)
    download_retries: int = 5
    download_backoff_s: tuple[float, ...] = (0.5, 1.0, 2.0, 4.0, 8.0)
    process_timeout_s: float = 3600.0
    uv_cache_dir: str | None = None
    # ask the index again instead of trusting a cached page: a re-plan after a failed answer (a
    # mirror fixed meanwhile must be seen; uv keeps pages a server calls fresh for minutes)
    refresh_index: bool = False
    # a course's extra packages (requirement strings, also in ``requirements``) and where they
    # come from when the build's index lacks them (wizard/core/install/extras.py); None: the
    # build's index is their only source
    extras: list[str] = field(default_factory=list)
    extras_index: str | None = None

    def resolved_installer(self) -> str:
        """pip or uv: what "auto" means on this machine (uv when its binary is found)."""
        if self.installer != INSTALLER_AUTO:
            return self.installer
        from wizard.core.install.environments import find_uv

        return INSTALLER_UV if (self.uv_exe or find_uv()) else INSTALLER_PIP


class JobState:
    """One install into one target. Holds what each step learns; the steps read it.

    ``host`` runs the short commands (inspect, find); ``store``/``cache`` default to the
    user state and cache folders (tests pass temporary ones); ``work_dir`` holds the pip
    report and the saved log.
    """

    def __init__(self, target: EnvTarget, options: InstallOptions, host: Host | None = None, *,
                 store: StateStore | None = None, cache: WheelCache | None = None,
                 work_dir: str | os.PathLike[str] | None = None,
                 session_factory: Callable[[], Any] | None = None,
                 on_log: Callable[[str], None] | None = None, lang: str = "en") -> None:
        self.target = target
        self.lang = lang  # the log is read by the student: written in their language
        self.options = options
        self.host = host or RealHost()
        self.store = store or StateStore(options.state_dir)
        self.cache = cache or WheelCache(options.cache_dir)
        from wizard.core.install.recovery import env_key

        self.work_dir = Path(work_dir) if work_dir is not None else \
            Path(self.store.root) / "work" / env_key(target.path or target.name or "target")
        self.session_factory = session_factory
        self.on_log = on_log
        self.log_lines: collections.deque[str] = collections.deque(maxlen=LOG_LINES)
        self.state: EnvState | None = None
        self.plan: InstallPlan | None = None
        self.preflight: PreflightResult | None = None
        self.download_result: DownloadResult | None = None
        self.installed: dict[str, str] = {}
        self.imports: dict[str, str] = {}
        self.python_version: str | None = None
        self.need_python_install = False
        self.pip_cmd: list[str] | None = None
        self.planned_bytes = 0  # what the plan had to bring in, as the plan step found it
        self.was_satisfied = False  # the environment already had the exact set
        self.resuming = False
        self.reinstall = False  # the last run's installer was killed mid-write: install the set again
        self.started = time.monotonic()
        self.steps_run: list[str] = []
        self.failure: StepError | None = None
        self.installer = options.resolved_installer()  # pip or uv, decided once per job
        self.current_step: str | None = None  # the step running now (None between and after runs)
        self.kill_event = threading.Event()  # force_stop(): kills even a step that finishes on cancel
        self.killed_mid_write = False
        self.running = False  # run_steps is going (also between two steps)
        self.cancel_event: threading.Event | None = None  # the run's cancel (set by run_steps)

    # --- cancel, as a front end asks about it --------------------------------------------------
    def cancel_outlook(self) -> "CancelOutlook":
        """Is a step running, and what does cancelling now do? (any thread; no I/O)"""
        from wizard.core.install.control import outlook

        return outlook(self)

    def force_stop(self) -> None:
        """Stop now, even a step that writes the environment (the installer is killed mid-write;
        the state says so and offers Remove/Resume). Only behind an explicit second
        confirmation: the plain cancel event lets such a step finish. Sets the run's cancel too."""
        self.kill_event.set()
        if self.cancel_event is not None:
            self.cancel_event.set()

    # --- the log -------------------------------------------------------------------------------
    def log(self, line: str) -> None:
        self.log_lines.append(line)
        if self.on_log is not None:
            self.on_log(line)

    def save_log(self, path: str | os.PathLike[str]) -> None:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write("\n".join(self.log_lines) + "\n")

    @property
    def elapsed_s(self) -> float:
        return time.monotonic() - self.started

    # --- the plan ------------------------------------------------------------------------------
    @property
    def nothing_to_do(self) -> bool:
        return self.plan is not None and not self.plan.to_install

    def done(self, step_id: str) -> bool:
        return self.state is not None and step_id in self.state.steps_done

    def overall_fraction(self, steps: Sequence[Step], current: str, fraction: float | None) -> float:
        total = sum(s.weight for s in steps) or 1
        before = 0
        for s in steps:
            if s.id == current:
                break
            before += s.weight
        weight = next((s.weight for s in steps if s.id == current), 0)
        return min(1.0, (before + weight * (fraction or 0.0)) / total)

    # --- lifecycle (called by either runner) ---------------------------------------------------
    def step_started(self, step: Step) -> None:
        self.current_step = step.id
        self.log(f"== {step.title.text(self.lang)}")
        if self.state is not None:
            self.state.status = STATUS_RUNNING
            self.state.current_step = step.id
            self.store.save(self.state)

    def step_skipped(self, step: Step) -> None:
        self.log(f"-- {step.title.text(self.lang)}: " + msg("install.step.skipped").text(self.lang))

    def step_succeeded(self, step: Step) -> None:
        self.current_step = None
        self.steps_run.append(step.id)
        if self.state is not None:
            if step.id not in self.state.steps_done:
                self.state.steps_done.append(step.id)
            if step.id != STEP_FINISH:
                self.store.save(self.state)

    def step_failed(self, step: Step, error: StepError) -> None:
        self.failure = error
        self.log(f"!! {error.message.text(self.lang)}")
        if error.detail:
            self.log(error.detail)
        self._record_failure(step, error)

    def step_crashed(self, step: Step, error: StepError) -> None:
        """A bug in a step (it propagates to the caller, which tells it): the state records the
        failure, so it never stays "running" and Resume is offered."""
        self._record_failure(step, error)

    def step_refused(self, error: StepError) -> None:
        """The run could not start (another install holds the environment): said, and nothing
        recorded -- the state belongs to the run that is going on."""
        self.failure = error
        self.log(f"!! {error.message.text(self.lang)}")

    def _record_failure(self, step: Step, error: StepError) -> None:
        self.current_step = None
        if self.state is not None:
            self.state.current_step = None
            self.state.status = STATUS_FAILED
            self.state.failed_step = step.id
            self.state.error = error.message.text("en")
            self.state.error_kind = error.kind
            self._save_state()

    def step_cancelled(self, step: Step) -> None:
        self.current_step = None
        killed = self.killed_mid_write
        self.log("!! " + msg("install.cancelled_mid_write" if killed else "install.cancelled").text(self.lang))
        if self.state is not None:
            self.state.status = STATUS_CANCELLED
            self.state.failed_step = step.id
            self.state.current_step = None
            self.state.error = msg("install.cancelled_mid_write").text("en") if killed else None
            self.state.error_kind = "killed-mid-write" if killed else "cancelled"
            self._save_state()

    def _save_state(self) -> None:
        """Save the state while reporting an end; never raises. Where even that fails (the disk
        is full), the file keeps "running" with the lock free: the store reads it as interrupted."""
        if self.state is None:
            return
        try:
            self.store.save(self.state)
        except OSError as exc:
            self.log(f"!! {exc}")

    def recovery_options(self) -> list[str]:
        return self.state.options() if self.state is not None else []

    # --- helpers for steps ------------------------------------------------------------------------
    def env_python(self) -> str:
        return self.target.python_exe

    def pip_or_default(self) -> list[str]:
        """The pip command the inspect step chose (the wizard's pip with ``--python``, or the
        environment's own); decided again when a step runs without it (a GUI resuming)."""
        if self.pip_cmd is None:
            self.pip_cmd = pip_command(self.env_python(), self.options.pip_mode, self.python_version)
        return self.pip_cmd

    def child_env(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """The environment for a step's child: pip's isolation, UTF-8, and the proxy the
        student typed into the settings (pip and uv read the standard variables)."""
        env = pip_child_env()
        for scheme, value in (self.options.proxies or {}).items():
            if scheme in ("http", "https", "all") and value:
                env[f"{scheme.upper()}_PROXY"] = value
                env[f"{scheme}_proxy"] = value
        if extra:
            env.update(extra)
        return env

    def process_failure(self, step_id: str, result: ProcessResult, parser: OutputParser) -> StepError:
        if result.error:
            return StepError(step_id, msg("install.error.not_started", step=msg(f"install.step.{step_id}"),
                                          detail=result.error), "not-started", result.error)
        if result.timed_out:
            return StepError(step_id, msg("install.error.timeout", step=msg(f"install.step.{step_id}")),
                             "timeout", parser.tail_text())
        lines = [ln for ln in parser.tail if ln.strip()]
        errors = [ln for ln in lines if "error" in ln.lower()]
        detail = (errors or lines or [""])[-1].strip()
        tail = parser.tail_text()
        # the tool's own words say why a bare exit code failed: a refused connection, a full disk
        reason = reason_in_output(tail) or "failed"
        return StepError(step_id, msg("install.error.step_failed", step=msg(f"install.step.{step_id}"),
                                      code=result.returncode, detail=detail), reason, tail,
                         host_in_output(tail) if reason == "network" else None)

    def summary(self) -> dict[str, Any]:
        """The CLI's final JSON (schema ``gpu-setup-wizard/install@1.0``)."""
        plan = self.plan
        dl = self.download_result
        wanted = {f.name for f in plan.files} if plan else set()
        installed = [{"name": n, "version": v} for n, v in sorted(self.installed.items()) if n in wanted]
        return {
            "schema": SUMMARY_SCHEMA,
            "ok": self.failure is None and self.state is not None and self.state.status == STATUS_COMPLETE,
            "status": self.state.status if self.state else None,
            "env_python": self.env_python(),
            "env_path": self.target.path,
            "target_kind": self.target.kind,
            "requirements": list(self.options.requirements),
            "index_url": self.options.index_url,
            # a course's extras' source, asked after index_url (None: the index alone; extras.py)
            "extras_index": self.options.extras_index,
            "installer": self.installer,
            "pip": " ".join(self.pip_cmd[:3]) if self.pip_cmd else None,
            "already_satisfied": self.was_satisfied,
            "installed": installed,
            "imports": dict(self.imports),
            "downloaded_bytes": dl.downloaded_bytes if dl else 0,
            "from_cache_bytes": dl.from_cache_bytes if dl else 0,
            "resumed_bytes": dl.resumed_bytes if dl else 0,
            "planned_bytes": self.planned_bytes,
            "cache_dir": str(self.cache.root),
            "elapsed_s": round(self.elapsed_s, 2),
            "steps_run": list(self.steps_run),
            "error": None if self.failure is None else {"step": self.failure.step_id, "kind": self.failure.kind,
                                                         "message": self.failure.message.text(self.lang),
                                                         "host": self.failure.host},
            "recovery": self.recovery_options(),
        }
