"""One step plan for creating an environment and installing PyTorch, and the CLI's runner for it.

The job (:class:`InstallJob`) is a list of steps. Two kinds:

* :class:`ProcessStep` -- a child process: ``step.command(job)`` gives a :class:`ProcessSpec`
  (argv list, complete environment with ``PYTHONUTF8=1``/``PYTHONIOENCODING=utf-8``, working
  folder, timeout), ``step.parser(job)`` an :class:`OutputParser` that turns output lines into
  :class:`StepProgress`, and ``step.finish(job, result)`` reads the outcome (raising
  :class:`StepError` on failure). The GUI runs these with ``QProcess`` (merged channels),
  feeding ``readyRead`` bytes to a :class:`StreamDecoder`; the CLI runs them with
  :func:`run_process` (``subprocess``, a reader thread). Both decode incrementally: UTF-8, and
  a line that is not UTF-8 (a Korean Windows tool writing cp949) is decoded with the locale's
  code page, then cp949, instead of turning into replacement characters.
* :class:`PythonStep` -- work in Python (downloads, reading reports): ``step.run(ctx)`` with a
  :class:`StepContext` carrying ``progress``/``log`` callbacks and a ``cancel``
  ``threading.Event``. The GUI runs it on a worker thread; the callbacks are called on that
  thread (forward them to the page with a signal).

Before each step the runner asks ``step.skip(job)`` (pure: it reads what earlier steps found),
then calls ``job.step_started(step)``, and afterwards ``job.step_succeeded(step)``,
``job.step_failed(step, error)`` or ``job.step_cancelled(step)`` -- which keep the recovery
state (:mod:`wizard.core.install.recovery`) up to date. Cancel stops a child cleanly: terminate, then
kill, then the child's whole process tree (:func:`wizard.core.base.host.kill_tree`).

The steps: prepare → python (uv python install, when needed) → create → ensurepip (uv venvs)
→ inspect (what is installed; ``pip freeze`` of an existing env saved) → resolve (pip's
dry-run report) → plan (sizes, space check) → download (:mod:`wizard.core.install.download`) →
install (offline from the cache: ``--no-index --find-links``, pip or uv) → verify → finish.

A GUI runner, in outline (what :func:`run_steps` does with ``subprocess``)::

    job = InstallJob(target, options)              # options.confirmed after the dialog
    steps = job.steps()
    for step in steps:                             # one at a time, driven by signals
        if step.skip(job): job.step_skipped(step); continue
        job.step_started(step)
        if isinstance(step, ProcessStep):
            spec, parser, decoder = step.command(job), step.parser(job), StreamDecoder()
            # QProcess: program spec.argv[0], arguments spec.argv[1:], environment spec.env,
            # working directory spec.cwd, MergedChannels; a QTimer for spec.timeout_s.
            # readyRead: for line in decoder.feed(bytes): job.log(line); p = parser.feed_line(line)
            #            -> p.fraction, p.text(lang); job.overall_fraction(steps, step.id, p.fraction)
            # Cancel:    kill_pid_tree(process.processId())
            # finished:  decoder.flush() lines as above, then
            step.finish(job, ProcessResult(code, cancelled=..., timed_out=...), parser)
        else:                                      # on a QThreadPool worker
            step.run(StepContext(job, progress_cb, log_cb, cancel_event))
        job.step_succeeded(step)
    # StepError e: job.step_failed(step, e); e.message.text(lang); job.recovery_options()
    # JobCancelled: job.step_cancelled(step)
"""

from __future__ import annotations

import collections
import json
import locale
import os
import queue
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from wizard.core.install import targets as envs_mod
from wizard.core.install.download import DownloadCancelled, DownloadError, Downloader, DownloadProgress, WheelCache
from wizard.core.install.targets import EnvTarget, PreflightResult
from wizard.core.base.host import Host, RealHost, child_env, kill_tree
from wizard.core.install.plan import (
    INSTALLED_SCRIPT, MIN_PIP, PIP_ENV, InstallPlan, PlanError, classify_pip_failure, fill_sizes, format_bytes,
    installed_argv, mark_satisfied, parse_installed, parse_pip_report, parse_pip_version, pip_argv, pip_child_env,
    pip_command, resolve_argv,
)
from wizard.core.recommend.recommender import Message, msg
from wizard.core.install.recovery import (
    STATUS_CANCELLED, STATUS_COMPLETE, STATUS_FAILED, STATUS_RUNNING, EnvState, StateStore,
)

SUMMARY_SCHEMA = "gpu-setup-wizard/install@1.0"
INSTALLER_PIP = "pip"
INSTALLER_UV = "uv"
LOG_LINES = 20000
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


# --------------------------------------------------------------------------------------------
# Decoding child output
# --------------------------------------------------------------------------------------------
class StreamDecoder:
    """Bytes in any chunking → complete text lines.

    Lines end at ``\\n``, ``\\r\\n`` or a lone ``\\r`` (progress redraws). Each line is decoded
    as UTF-8 (the child is told to write it); a line that is not valid UTF-8 is decoded with
    ``fallback`` (default: the locale's preferred encoding), then cp949, then UTF-8 with
    replacement -- so a Hangul message from a tool that ignores ``PYTHONUTF8`` survives.
    """

    def __init__(self, fallback: str | None = None, max_line: int = 1 << 20) -> None:
        self._buf = bytearray()
        self._fallback = fallback or locale.getpreferredencoding(False) or "utf-8"
        self._max = max_line

    def feed(self, data: bytes | bytearray | memoryview) -> list[str]:
        self._buf += bytes(data)
        out: list[str] = []
        while True:
            idx_n = self._buf.find(b"\n")
            idx_r = self._buf.find(b"\r")
            if idx_n < 0 and idx_r < 0:
                break
            if idx_r >= 0 and (idx_n < 0 or idx_r < idx_n):
                if idx_r == len(self._buf) - 1:
                    break  # a \r at the end may be the first half of \r\n: wait for more
                end, skip = idx_r, 2 if self._buf[idx_r + 1:idx_r + 2] == b"\n" else 1
            else:
                end, skip = idx_n, 1
            out.append(self._decode(bytes(self._buf[:end])))
            del self._buf[:end + skip]
        if len(self._buf) > self._max:  # a runaway line without an end: pass it on in pieces
            out.append(self._decode(bytes(self._buf)))
            self._buf.clear()
        return out

    def flush(self) -> list[str]:
        if not self._buf:
            return []
        line = bytes(self._buf).rstrip(b"\r")
        self._buf.clear()
        return [self._decode(line)]

    def _decode(self, raw: bytes) -> str:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            pass
        for enc in (self._fallback, "cp949"):
            try:
                return raw.decode(enc)
            except (UnicodeDecodeError, LookupError):
                continue
        return raw.decode("utf-8", errors="replace")


# --------------------------------------------------------------------------------------------
# Progress and parsers
# --------------------------------------------------------------------------------------------
@dataclass
class StepProgress:
    """What a step reports. ``fraction`` None = indeterminate. ``download`` is set by the
    download step (bytes, speed, ETA, per-file)."""

    step_id: str
    fraction: float | None = None
    message: Message | None = None
    download: DownloadProgress | None = None

    def text(self, lang: str | None = None) -> str:
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

    def tail_text(self) -> str:
        return "\n".join(self.tail)


class PipInstallParser(OutputParser):
    """pip install: 'Processing <file>' per package, then 'Installing collected packages',
    then 'Successfully installed'. ``expected``: how many packages the plan installs."""

    def __init__(self, step_id: str, expected: int) -> None:
        super().__init__(step_id)
        self.expected = max(1, expected)
        self.processed = 0

    def parse(self, line: str) -> StepProgress | None:
        s = line.strip()
        if s.startswith("Processing ") or s.startswith("Collecting "):
            self.processed += 1
            frac = 0.3 * min(1.0, self.processed / self.expected)
            name = s.split(None, 1)[1].rsplit("/", 1)[-1].rsplit("\\", 1)[-1]
            return StepProgress(self.step_id, frac, msg("install.progress.preparing", name=name))
        if s.startswith("Installing collected packages:"):
            return StepProgress(self.step_id, 0.35, msg("install.progress.installing_files"))
        if s.startswith("Attempting uninstall:"):
            return StepProgress(self.step_id, 0.35, msg("install.progress.replacing", name=s.split(":", 1)[1].strip()))
        if s.startswith("Successfully installed"):
            return StepProgress(self.step_id, 1.0, msg("install.progress.installed"))
        return None


class UvInstallParser(OutputParser):
    """uv pip install: 'Resolved N packages', 'Prepared N packages', 'Installed N packages'."""

    def parse(self, line: str) -> StepProgress | None:
        s = line.strip()
        if s.startswith("Resolved "):
            return StepProgress(self.step_id, 0.1, msg("install.progress.resolved"))
        if s.startswith("Prepared "):
            return StepProgress(self.step_id, 0.6, msg("install.progress.installing_files"))
        if s.startswith("Installed "):
            return StepProgress(self.step_id, 1.0, msg("install.progress.installed"))
        return None


class ResolveParser(OutputParser):
    """pip's dry run: a 'Collecting X' line per distribution it considers."""

    def parse(self, line: str) -> StepProgress | None:
        s = line.strip()
        if s.startswith("Collecting "):
            return StepProgress(self.step_id, None, msg("install.progress.resolving", name=s.split(None, 1)[1]))
        return None


class CondaCreateParser(OutputParser):
    def parse(self, line: str) -> StepProgress | None:
        for phase, frac in envs_mod.CONDA_PHASES:
            if phase in line:
                return StepProgress(self.step_id, frac, msg("install.progress.conda_phase", phase=phase))
        return None


class UvPythonParser(OutputParser):
    def parse(self, line: str) -> StepProgress | None:
        s = line.strip()
        if s.startswith("Installed Python") or s.startswith("Installed "):
            return StepProgress(self.step_id, 1.0, msg("install.progress.python_done", detail=s))
        if s.startswith("Downloading") or s.startswith("Searching"):
            return StepProgress(self.step_id, None, msg("install.progress.python_download", detail=s))
        return None


# --------------------------------------------------------------------------------------------
# Steps
# --------------------------------------------------------------------------------------------
@dataclass
class ProcessSpec:
    argv: list[str]
    env: dict[str, str]
    cwd: str | None = None
    timeout_s: float | None = None


@dataclass
class ProcessResult:
    """How a child ended. ``returncode`` None when it was killed (cancel/timeout) or never ran."""

    returncode: int | None
    output_tail: str = ""
    cancelled: bool = False
    timed_out: bool = False
    error: str | None = None  # could not start ("not found", or the OSError text)
    duration_s: float = 0.0

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.cancelled and not self.timed_out and self.error is None


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


class JobCancelled(Exception):
    def __init__(self, step_id: str) -> None:
        super().__init__(f"cancelled during {step_id}")
        self.step_id = step_id


@dataclass
class StepContext:
    job: "InstallJob"
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

    def skip(self, job: "InstallJob") -> bool:
        return False


@dataclass
class ProcessStep(Step):
    build: Callable[["InstallJob"], ProcessSpec] = None  # type: ignore[assignment]
    make_parser: Callable[["InstallJob"], OutputParser] = None  # type: ignore[assignment]
    on_finish: Callable[["InstallJob", ProcessResult, OutputParser], None] = None  # type: ignore[assignment]
    skip_when: Callable[["InstallJob"], bool] | None = None

    def command(self, job: "InstallJob") -> ProcessSpec:
        return self.build(job)

    def parser(self, job: "InstallJob") -> OutputParser:
        return self.make_parser(job) if self.make_parser else OutputParser(self.id)

    def finish(self, job: "InstallJob", result: ProcessResult, parser: OutputParser) -> None:
        if result.cancelled:
            raise JobCancelled(self.id)
        if self.on_finish is not None:
            self.on_finish(job, result, parser)
        elif not result.ok:
            raise job.process_failure(self.id, result, parser)

    def skip(self, job: "InstallJob") -> bool:
        return bool(self.skip_when and self.skip_when(job))


@dataclass
class PythonStep(Step):
    func: Callable[[StepContext], None] = None  # type: ignore[assignment]
    skip_when: Callable[["InstallJob"], bool] | None = None

    def run(self, ctx: StepContext) -> None:
        self.func(ctx)

    def skip(self, job: "InstallJob") -> bool:
        return bool(self.skip_when and self.skip_when(job))


# --------------------------------------------------------------------------------------------
# Options and the job
# --------------------------------------------------------------------------------------------
@dataclass
class InstallOptions:
    """What to install and how. ``requirements``: pip requirement strings (the recommendation's
    ``torch==X``, ``torchvision==Y``); ``index_url``: the chosen index (a mirror replaces it);
    ``installer``: pip or uv for the offline install; ``verify_imports``: modules imported at
    the end (the Verify page does the thorough check)."""

    requirements: list[str]
    index_url: str | None = None
    extra_index_urls: list[str] = field(default_factory=list)
    installer: str = INSTALLER_PIP
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


class InstallJob:
    """One install into one target. Holds what each step learns; the steps read it.

    ``host`` runs the short commands (inspect, find); ``store``/``cache`` default to the
    user state and cache folders (tests pass temporary ones); ``work_dir`` holds the pip
    report and the saved log.
    """

    def __init__(self, target: EnvTarget, options: InstallOptions, host: Host | None = None, *,
                 store: StateStore | None = None, cache: WheelCache | None = None,
                 work_dir: str | os.PathLike[str] | None = None,
                 session_factory: Callable[[], Any] | None = None,
                 on_log: Callable[[str], None] | None = None) -> None:
        self.target = target
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
        self.download_result = None
        self.installed: dict[str, str] = {}
        self.imports: dict[str, str] = {}
        self.python_version: str | None = None
        self.need_python_install = False
        self.pip_cmd: list[str] | None = None
        self.planned_bytes = 0  # what the plan had to bring in, as the plan step found it
        self.was_satisfied = False  # the environment already had the exact set
        self.resuming = False
        self.started = time.monotonic()
        self.steps_run: list[str] = []
        self.failure: StepError | None = None

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
    def steps(self) -> list[Step]:
        """The whole plan, in order. Skipped steps say so through :meth:`Step.skip`."""
        return [
            PythonStep(STEP_PREPARE, func=_prepare),
            ProcessStep(STEP_PYTHON, build=_python_command, make_parser=lambda j: UvPythonParser(STEP_PYTHON),
                        on_finish=_python_finish, skip_when=lambda j: not j.need_python_install),
            ProcessStep(STEP_CREATE, build=_create_command, make_parser=_create_parser, on_finish=_create_finish,
                        skip_when=lambda j: not j.target.creates_env
                        or (j.done(STEP_CREATE) and os.path.exists(j.target.python_exe))),
            ProcessStep(STEP_ENSUREPIP, build=_ensurepip_command,
                        skip_when=lambda j: not (j.target.creator == envs_mod.CREATOR_UV and j.target.creates_env)
                        or j.done(STEP_ENSUREPIP)),
            PythonStep(STEP_INSPECT, func=_inspect),
            ProcessStep(STEP_RESOLVE, build=_resolve_command, make_parser=lambda j: ResolveParser(STEP_RESOLVE),
                        on_finish=_resolve_finish, skip_when=lambda j: j.plan is not None),
            PythonStep(STEP_PLAN, func=_plan_step),
            PythonStep(STEP_DOWNLOAD, func=_download, skip_when=lambda j: j.nothing_to_do),
            ProcessStep(STEP_INSTALL, build=_install_command, make_parser=_install_parser,
                        on_finish=_install_finish, skip_when=lambda j: j.nothing_to_do),
            ProcessStep(STEP_VERIFY, build=_verify_command, on_finish=_verify_finish),
            PythonStep(STEP_FINISH, func=_finish),
        ]

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
        self.log(f"== {step.title.text()}")
        if self.state is not None:
            self.state.status = STATUS_RUNNING
            self.store.save(self.state)

    def step_skipped(self, step: Step) -> None:
        self.log(f"-- {step.title.text()}: " + msg("install.step.skipped").text())

    def step_succeeded(self, step: Step) -> None:
        self.steps_run.append(step.id)
        if self.state is not None:
            if step.id not in self.state.steps_done:
                self.state.steps_done.append(step.id)
            if step.id != STEP_FINISH:
                self.store.save(self.state)

    def step_failed(self, step: Step, error: StepError) -> None:
        self.failure = error
        self.log(f"!! {error.message.text()}")
        if error.detail:
            self.log(error.detail)
        if self.state is not None:
            self.state.status = STATUS_FAILED
            self.state.failed_step = step.id
            self.state.error = error.message.text("en")
            self.state.error_kind = error.kind
            self.store.save(self.state)

    def step_cancelled(self, step: Step) -> None:
        self.log("!! " + msg("install.cancelled").text())
        if self.state is not None:
            self.state.status = STATUS_CANCELLED
            self.state.failed_step = step.id
            self.state.error = None
            self.state.error_kind = "cancelled"
            self.store.save(self.state)

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
            return StepError(step_id, msg("install.error.not_started", step=msg(f"install.step.{step_id}").text(),
                                          detail=result.error), "not-started", result.error)
        if result.timed_out:
            return StepError(step_id, msg("install.error.timeout", step=msg(f"install.step.{step_id}").text()),
                             "timeout", parser.tail_text())
        lines = [ln for ln in parser.tail if ln.strip()]
        errors = [ln for ln in lines if "error" in ln.lower()]
        detail = (errors or lines or [""])[-1].strip()
        return StepError(step_id, msg("install.error.step_failed", step=msg(f"install.step.{step_id}").text(),
                                      code=result.returncode, detail=detail), "failed", parser.tail_text())

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
            "installer": self.options.installer,
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
                                                         "message": self.failure.message.text(),
                                                         "host": self.failure.host},
            "recovery": self.recovery_options(),
        }


# --------------------------------------------------------------------------------------------
# Step bodies
# --------------------------------------------------------------------------------------------
def _prepare(ctx: StepContext) -> None:
    job = ctx.job
    t = job.target
    job.work_dir.mkdir(parents=True, exist_ok=True)
    state = job.store.load(t.path) if t.path else None
    if state is not None and state.status == STATUS_COMPLETE:
        state = None  # a finished earlier run: this is a new job on an existing environment
    if state is not None:
        job.resuming = True
        if state.created_by_wizard and not t.creates_env:
            # resuming a new environment that now exists: keep treating it as ours
            t = EnvTarget.from_json(state.target)
            job.target = t
        same = state.requirements == list(job.options.requirements) and state.index_url == job.options.index_url
        if same and state.plan:
            try:
                job.plan = InstallPlan.from_json(state.plan)
            except (ValueError, KeyError, TypeError):
                job.plan = None
        if not same:  # the student changed the build after a failure: plan again for the new one
            state.requirements = list(job.options.requirements)
            state.index_url = job.options.index_url
            state.plan = None
        ctx.log(msg("install.resuming", steps=", ".join(state.steps_done) or "-").text())
    else:
        state = EnvState(env_path=t.path, target=t.to_json(), created_by_wizard=t.creates_env,
                         requirements=list(job.options.requirements), index_url=job.options.index_url)
    state.status = STATUS_RUNNING
    state.failed_step = None
    # ours: an unfinished environment this wizard started (its folder is new or still marked)
    ours = job.resuming and state.created_by_wizard and (
        not os.path.exists(t.path) or envs_mod.is_incomplete(t.path))
    # uv-managed Python: is the wanted version there already?
    if t.creates_env and t.creator == envs_mod.CREATOR_UV and not t.base_python and t.python_version:
        uv = t.uv_exe or job.options.uv_exe or envs_mod.find_uv()
        if not uv:
            raise StepError(STEP_PREPARE, msg("install.uv.missing"), "no-uv")
        t.uv_exe = uv
        res = job.host.run(envs_mod.uv_python_find_argv(uv, t.python_version), timeout=60,
                           env=envs_mod.uv_env(job.options.uv_python_mirror))
        job.need_python_install = not res.ok
    # checks that do not need the plan
    existing_names: list[str] = []
    base_prefix = None
    if t.is_conda and t.conda_exe:
        from wizard.core.machine.conda import parse_conda_env_list

        res = job.host.run(envs_mod.conda_env_list_argv(t.conda_exe), timeout=120)
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
    job.preflight = envs_mod.preflight(
        t, job.host, download_bytes=job.options.expected_download_bytes, cache_dir=str(job.cache.root),
        interpreter=interpreter, existing_conda_names=[] if ours else existing_names,
        conda_base_prefix=base_prefix, confirmed=job.options.confirmed,
        folder_state=(lambda p: "missing") if ours else None)
    for check in job.preflight.checks:
        if check.severity != envs_mod.SEVERITY_OK:
            ctx.log(f"[{check.severity}] {check.text()}")
    blocking = job.preflight.blocking
    if blocking:
        # nothing was touched: no state is recorded (a refused folder must never become "ours")
        kind = "confirm" if all(c.severity == envs_mod.SEVERITY_CONFIRM for c in blocking) else "preflight"
        raise StepError(STEP_PREPARE, blocking[0].message, kind, "\n".join(c.text() for c in blocking))
    job.state = state
    job.store.save(state)
    if t.creates_env and not t.is_conda and not os.path.exists(t.python_exe):
        # The folder and its marker come first, so a create that is cancelled half-way still
        # leaves a folder Resume and Remove recognise. (conda makes its prefix itself.)
        os.makedirs(t.path, exist_ok=True)
        envs_mod.write_incomplete_marker(t.path, {"requirements": job.options.requirements})


def _python_command(job: InstallJob) -> ProcessSpec:
    t = job.target
    argv = envs_mod.uv_python_install_argv(t.uv_exe or "uv", t.python_version or "")
    env = job.child_env(envs_mod.uv_env(job.options.uv_python_mirror))
    return ProcessSpec(argv, env, None, envs_mod.UV_PYTHON_INSTALL_TIMEOUT)


def _python_finish(job: InstallJob, result: ProcessResult, parser: OutputParser) -> None:
    if not result.ok:
        failure = envs_mod.parse_uv_failure(parser.tail_text())
        raise StepError(STEP_PYTHON, failure.message, "network" if failure.kind in ("offline", "refused", "http")
                        else failure.kind, parser.tail_text(), failure.host)
    if job.state is not None:
        job.state.python_installed = job.target.python_version


def _create_command(job: InstallJob) -> ProcessSpec:
    argvs = envs_mod.create_argvs(job.target)
    timeout = envs_mod.CONDA_CREATE_TIMEOUT if job.target.is_conda else 600.0
    return ProcessSpec(argvs[0], job.child_env(envs_mod.uv_env(job.options.uv_python_mirror)), None, timeout)


def _create_parser(job: InstallJob) -> OutputParser:
    return CondaCreateParser(STEP_CREATE) if job.target.is_conda else OutputParser(STEP_CREATE)


def _create_finish(job: InstallJob, result: ProcessResult, parser: OutputParser) -> None:
    t = job.target
    if not result.ok:
        if t.is_conda:
            failure = envs_mod.parse_conda_failure(parser.tail_text())
            raise StepError(STEP_CREATE, failure.message, "network" if failure.kind == "offline" else failure.kind,
                            parser.tail_text(), failure.host)
        raise job.process_failure(STEP_CREATE, result, parser)
    if t.is_conda:
        location = envs_mod.parse_conda_env_location(parser.tail_text())
        if location and location != t.path and job.state is not None:
            t.path = location
            job.state.target = t.to_json()
            job.store.move(job.state, location)
    if not os.path.exists(t.python_exe):
        raise StepError(STEP_CREATE, msg("install.error.no_python_after_create", path=t.python_exe), "failed")
    envs_mod.write_incomplete_marker(t.path, {"requirements": job.options.requirements})


def _ensurepip_command(job: InstallJob) -> ProcessSpec:
    return ProcessSpec([job.env_python(), "-m", "ensurepip", "--default-pip"], job.child_env(), None, 300.0)


def _inspect(ctx: StepContext) -> None:
    job = ctx.job
    py = job.env_python()
    res = job.host.run(installed_argv(py), timeout=120)
    if not res.ok:
        raise StepError(STEP_INSPECT, msg("install.plan.error.inspect", python=py,
                                          detail=(res.stderr or res.error or "").strip()[-300:]), "failed")
    try:
        job.installed, job.python_version = parse_installed(res.stdout)
    except ValueError as exc:
        raise StepError(STEP_INSPECT, msg("install.plan.error.inspect", python=py, detail=str(exc)), "failed") \
            from exc
    job.pip_cmd = pip_command(py, job.options.pip_mode, job.python_version)
    if job.pip_cmd[0] == py:  # the environment's own pip: it must know --dry-run --report
        ver = job.host.run([*job.pip_cmd, "--isolated", "--version"], timeout=60, env=dict(PIP_ENV))
        pip_version = parse_pip_version(ver.stdout) if ver.ok else None
        if pip_version is None:
            raise StepError(STEP_INSPECT, msg("install.plan.error.no_pip"), "no-pip", (ver.stderr or "")[-300:])
        if pip_version < MIN_PIP:
            raise StepError(STEP_INSPECT, msg("install.plan.error.old_pip"), "old-pip")
    if job.plan is not None:  # resuming with the saved plan: what is installed now decides
        mark_satisfied(job.plan.files, job.installed)
    state = job.state
    if state is not None and not state.created_by_wizard and not state.freeze_file:
        freeze = job.host.run(pip_argv(job.pip_cmd, "freeze", "--all"), timeout=120, env=dict(PIP_ENV))
        if freeze.ok:
            path = job.store.freeze_path_for(state.env_path)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(freeze.stdout, encoding="utf-8")
            state.freeze_file = str(path)
            ctx.log(msg("install.freeze_saved", path=str(path)).text())
        else:
            raise StepError(STEP_INSPECT, msg("install.error.freeze", detail=(freeze.stderr or "")[-300:]), "failed")


def _report_path(job: InstallJob) -> str:
    return str(job.work_dir / "pip-report.json")


def _extra_pip_args(job: InstallJob) -> list[str]:
    return ["--break-system-packages"] if envs_mod.CHECK_EXTERNALLY_MANAGED in job.options.confirmed else []


def _resolve_command(job: InstallJob) -> ProcessSpec:
    report = _report_path(job)
    Path(report).unlink(missing_ok=True)
    argv = resolve_argv(job.pip_or_default(), job.options.requirements, job.options.index_url, report,
                        job.options.extra_index_urls, job.options.only_binary, extra_args=_extra_pip_args(job))
    return ProcessSpec(argv, job.child_env(), str(job.work_dir), 900.0)


def _resolve_finish(job: InstallJob, result: ProcessResult, parser: OutputParser) -> None:
    if not result.ok:
        if result.timed_out or result.error:
            raise job.process_failure(STEP_RESOLVE, result, parser)
        err = classify_pip_failure(parser.tail_text(), job.options.index_url)
        raise StepError(STEP_RESOLVE, err.message, err.kind, err.detail or parser.tail_text(), err.host)
    try:
        with open(_report_path(job), encoding="utf-8") as fh:
            files, _env = parse_pip_report(fh.read())
    except OSError as exc:
        raise StepError(STEP_RESOLVE, msg("install.plan.error.bad_report", detail=str(exc)), "bad-report") from exc
    except PlanError as exc:
        raise StepError(STEP_RESOLVE, exc.message, exc.kind, exc.detail) from exc
    mark_satisfied(files, job.installed)
    job.plan = InstallPlan(job.env_python(), list(job.options.requirements), job.options.index_url, files,
                           python_version=job.python_version, installed_before=dict(job.installed))


def _plan_step(ctx: StepContext) -> None:
    job = ctx.job
    plan = job.plan
    assert plan is not None
    session = job.session_factory() if job.session_factory else None
    fill_sizes(plan.files, session)
    if job.state is not None:
        job.state.plan = plan.to_json()
    for line in plan.summary_lines():
        ctx.log(line)
    job.planned_bytes = plan.total_bytes
    job.was_satisfied = plan.already_satisfied
    if plan.already_satisfied:
        ctx.log(msg("install.already_satisfied").text())
        return
    cached = sum(f.size or 0 for f in plan.to_install if job.cache.path(f.filename).exists())
    partial = sum(job.cache.partial_size(f) for f in plan.to_install)
    to_fetch = max(0, plan.total_bytes - cached - partial)
    result = envs_mod.preflight(job.target, job.host, download_bytes=to_fetch,
                                unpacked_bytes=int(plan.total_bytes * envs_mod.UNPACK_FACTOR),
                                cache_dir=str(job.cache.root), confirmed=job.options.confirmed,
                                folder_state=lambda p: "missing", writable=lambda p: None)
    space = [c for c in result.checks if c.id in ("disk-space", "cache-space", "path-too-long") and c.blocks]
    if space:
        raise StepError(STEP_PLAN, space[0].message, "space", "\n".join(c.text() for c in space))
    ctx.progress(StepProgress(STEP_PLAN, 1.0, msg("install.plan.total", count=len(plan.to_install),
                                                  size=format_bytes(plan.total_bytes))))


def _download(ctx: StepContext) -> None:
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
        job.download_result = downloader.fetch(plan.to_install)
    except DownloadCancelled as exc:
        raise JobCancelled(STEP_DOWNLOAD) from exc
    except DownloadError as exc:
        raise StepError(STEP_DOWNLOAD, exc.message, exc.kind, str(exc), getattr(exc, "host", None)) from exc
    r = job.download_result
    ctx.log(msg("install.download_done", fetched=format_bytes(r.downloaded_bytes),
                cached=format_bytes(r.from_cache_bytes), seconds=f"{r.elapsed_s:.1f}").text())
    for name in r.refetched:
        ctx.log(msg("install.refetched", file=name).text())
    # the exact unpacked size and deepest path, from the wheels' zip directories
    wheels = [p for p in r.paths.values() if p.suffix == ".whl"]
    unpacked, deepest = envs_mod.unpacked_size(wheels)
    result = envs_mod.preflight(job.target, job.host, download_bytes=0, unpacked_bytes=unpacked,
                                confirmed=job.options.confirmed, folder_state=lambda p: "missing",
                                writable=lambda p: None, deepest_member=max(deepest, 1))
    problems = [c for c in result.checks if c.id in ("disk-space", "path-too-long") and c.blocks]
    if problems:
        raise StepError(STEP_DOWNLOAD, problems[0].message, "space", "\n".join(c.text() for c in problems))


def _eta(seconds: float | None) -> str:
    if seconds is None:
        return "--:--"
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}" if seconds >= 3600 \
        else f"{seconds // 60}:{seconds % 60:02d}"


def install_argv(job: InstallJob) -> list[str]:
    """The offline install from the cache: exact pins, ``--no-deps`` (the plan is complete)."""
    plan = job.plan
    assert plan is not None
    find_links = str(job.cache.files_dir)
    if job.options.installer == INSTALLER_UV:
        uv = job.options.uv_exe or envs_mod.find_uv() or "uv"
        return [uv, "pip", "install", "--no-config", "--python", job.env_python(), "--offline", "--no-index",
                "--find-links", find_links, "--no-deps", *_extra_pip_args(job), *plan.pins()]
    return pip_argv(job.pip_or_default(), "install", "--no-index", "--find-links", find_links, "--no-deps",
                    "--no-input", "--progress-bar", "off", *_extra_pip_args(job), *plan.pins())


def _install_command(job: InstallJob) -> ProcessSpec:
    return ProcessSpec(install_argv(job), job.child_env(), str(job.work_dir), job.options.process_timeout_s)


def _install_parser(job: InstallJob) -> OutputParser:
    if job.options.installer == INSTALLER_UV:
        return UvInstallParser(STEP_INSTALL)
    return PipInstallParser(STEP_INSTALL, len(job.plan.to_install) if job.plan else 1)


def _install_finish(job: InstallJob, result: ProcessResult, parser: OutputParser) -> None:
    if not result.ok:
        raise job.process_failure(STEP_INSTALL, result, parser)


def _verify_command(job: InstallJob) -> ProcessSpec:
    argv = [job.env_python(), "-I", "-c", VERIFY_SCRIPT, *job.options.verify_imports]
    return ProcessSpec(argv, job.child_env(), str(job.work_dir), 600.0)


def _verify_finish(job: InstallJob, result: ProcessResult, parser: OutputParser) -> None:
    if not result.ok:
        raise job.process_failure(STEP_VERIFY, result, parser)
    text = parser.tail_text()
    try:
        job.installed, job.python_version = parse_installed(text)
    except ValueError as exc:
        raise StepError(STEP_VERIFY, msg("install.error.verify", detail=str(exc)), "failed", text) from exc
    for line in reversed(text.splitlines()):
        if '"gsw_imports"' in line:
            job.imports = json.loads(line).get("imports", {})
            break
    plan = job.plan
    wrong = []
    if plan is not None:
        mark_satisfied(plan.files, job.installed)
        wrong = [f"{f.name} {f.installed_version or '-'} ≠ {f.version}" for f in plan.files if not f.satisfied]
    bad_imports = [f"{m}: {r}" for m, r in job.imports.items() if r != "ok"]
    if wrong or bad_imports:
        raise StepError(STEP_VERIFY, msg("install.error.verify", detail="; ".join(wrong + bad_imports)), "verify",
                        text)


def _finish(ctx: StepContext) -> None:
    job = ctx.job
    envs_mod.remove_incomplete_marker(job.target.path)
    if job.state is not None:
        if STEP_FINISH not in job.state.steps_done:
            job.state.steps_done.append(STEP_FINISH)
        job.state.status = STATUS_COMPLETE
        job.state.failed_step = None
        job.state.error = None
        job.store.save(job.state)
    ctx.log(msg("install.complete", python=job.env_python(), seconds=f"{job.elapsed_s:.1f}").text())


# --------------------------------------------------------------------------------------------
# The CLI runner
# --------------------------------------------------------------------------------------------
def kill_pid_tree(pid: int, grace_s: float = 2.0) -> None:
    """Cancel for a child started elsewhere (the GUI's ``QProcess.processId()``): terminate,
    then kill, then every process it started. The same order as :func:`wizard.core.base.host.kill_tree`."""
    import psutil

    try:
        parent = psutil.Process(pid)
        children = parent.children(recursive=True)
    except psutil.Error:
        return
    procs = [parent, *children]
    for p in procs:
        try:
            p.terminate()
        except psutil.Error:
            pass
    _gone, alive = psutil.wait_procs(procs, timeout=grace_s)
    for p in alive:
        try:
            p.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(alive, timeout=grace_s)


def run_process(spec: ProcessSpec, on_line: Callable[[str], None] | None = None,
                cancel: threading.Event | None = None, poll_s: float = 0.05,
                grace_s: float = 2.0) -> ProcessResult:
    """Run one child with merged output, decoding lines as they come.

    ``cancel`` or the timeout stops it: terminate, then kill, then the whole process tree.
    ``on_line`` is called on this thread. Never raises for the child's sake.
    """
    start = time.monotonic()
    kwargs: dict[str, Any] = {}
    if os.name == "nt":
        kwargs["creationflags"] = getattr(subprocess, "CREATE_NO_WINDOW", 0) | \
            getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)
    else:
        kwargs["start_new_session"] = True  # Ctrl+C reaches us, not the child; we stop it ourselves
    try:
        proc = subprocess.Popen(spec.argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, env=spec.env, cwd=spec.cwd, **kwargs)
    except FileNotFoundError:
        return ProcessResult(None, error="not found", duration_s=time.monotonic() - start)
    except OSError as exc:
        return ProcessResult(None, error=str(exc) or type(exc).__name__, duration_s=time.monotonic() - start)
    lines: queue.Queue[str | None] = queue.Queue()
    decoder = StreamDecoder()
    tail: collections.deque[str] = collections.deque(maxlen=TAIL_LINES)

    def reader() -> None:
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            for line in decoder.feed(chunk):
                lines.put(line)
        for line in decoder.flush():
            lines.put(line)
        lines.put(None)

    thread = threading.Thread(target=reader, name="gsw-child-output", daemon=True)
    thread.start()
    cancelled = timed_out = False
    finished_reading = False
    try:
        while not finished_reading:
            try:
                item = lines.get(timeout=poll_s)
            except queue.Empty:
                item = ""
                if cancel is not None and cancel.is_set():
                    cancelled = True
                elif spec.timeout_s is not None and time.monotonic() - start > spec.timeout_s:
                    timed_out = True
                if cancelled or timed_out:
                    kill_tree(proc, grace_s)
                    break
                continue
            if item is None:
                finished_reading = True
                break
            tail.append(item)
            if on_line is not None:
                on_line(item)
            if cancel is not None and cancel.is_set():
                cancelled = True
                kill_tree(proc, grace_s)
                break
    except BaseException:
        kill_tree(proc, grace_s)
        raise
    try:
        proc.wait(timeout=None if finished_reading and not (cancelled or timed_out) else 10)
    except subprocess.TimeoutExpired:
        kill_tree(proc, 0.5)
    thread.join(timeout=5)
    while True:  # what the reader queued after we stopped listening
        try:
            item = lines.get_nowait()
        except queue.Empty:
            break
        if item:
            tail.append(item)
            if on_line is not None and not cancelled:
                on_line(item)
    if proc.stdout is not None:
        proc.stdout.close()
    rc = None if (cancelled or timed_out) else proc.returncode
    return ProcessResult(rc, "\n".join(tail), cancelled, timed_out, None, time.monotonic() - start)


@dataclass
class Progress:
    """What the CLI (or any front end) hears: overall and the current step."""

    step_id: str
    step_index: int
    step_count: int
    overall: float
    step: StepProgress | None
    elapsed_s: float


def run_steps(job: InstallJob, steps: Sequence[Step] | None = None, *,
              on_progress: Callable[[Progress], None] | None = None,
              cancel: threading.Event | None = None) -> bool:
    """Run the steps in order on this thread (the CLI). True when every step succeeded.

    A :class:`StepError` stops the run (``job.failure`` holds it); a cancel stops it with the
    recovery state saved. The log goes to ``job.on_log``.
    """
    steps = list(steps) if steps is not None else job.steps()
    cancel = cancel or threading.Event()
    for index, step in enumerate(steps):
        if cancel.is_set():
            job.step_cancelled(step)
            return False
        if step.skip(job):
            job.step_skipped(step)
            continue

        def report(p: StepProgress | None, _i: int = index, _s: Step = step) -> None:
            if on_progress is not None:
                frac = p.fraction if p is not None else None
                on_progress(Progress(_s.id, _i, len(steps), job.overall_fraction(steps, _s.id, frac), p,
                                     job.elapsed_s))

        job.step_started(step)
        report(None)
        try:
            if isinstance(step, ProcessStep):
                spec = step.command(job)
                job.log("$ " + " ".join(_quote(a) for a in spec.argv))
                parser = step.parser(job)

                def on_line(line: str, _parser: OutputParser = parser) -> None:
                    job.log(line)
                    p = _parser.feed_line(line)
                    if p is not None:
                        report(p)

                result = run_process(spec, on_line, cancel)
                step.finish(job, result, parser)
            elif isinstance(step, PythonStep):
                step.run(StepContext(job, report, job.log, cancel))
        except JobCancelled:
            job.step_cancelled(step)
            return False
        except StepError as exc:
            job.step_failed(step, exc)
            return False
        except KeyboardInterrupt:
            cancel.set()
            job.step_cancelled(step)
            raise
        job.step_succeeded(step)
        report(StepProgress(step.id, 1.0))
    return True


def _quote(arg: str) -> str:
    from wizard.core.recommend.commands import quote_arg

    return quote_arg(arg)


def restore_steps(job: InstallJob) -> list[Step]:
    """Restore an existing environment to its saved ``pip freeze``: uninstall what was added,
    reinstall what was replaced (with the student's own pip configuration plus the cache)."""
    from wizard.core.install.recovery import RestorePlan, restore_argvs, restore_plan

    holder: dict[str, Any] = {}

    def compute(ctx: StepContext) -> None:
        state = ctx.job.state or ctx.job.store.load(ctx.job.target.path)
        if state is None or not state.freeze_file or not os.path.exists(state.freeze_file):
            raise StepError("restore", msg("install.restore.no_freeze"), "no-freeze")
        ctx.job.state = state
        res = ctx.job.host.run(installed_argv(ctx.job.env_python()), timeout=120)
        if not res.ok:
            raise StepError("restore", msg("install.plan.error.inspect", python=ctx.job.env_python(),
                                           detail=(res.stderr or "")[-300:]), "failed")
        now, _ = parse_installed(res.stdout)
        with open(state.freeze_file, encoding="utf-8") as fh:
            plan = restore_plan(fh.read(), now)
        indexes = [state.index_url] if state.index_url else []
        pip_cmd = ctx.job.pip_or_default()
        if plan.uninstall:
            holder["restore-uninstall"] = restore_argvs(pip_cmd, RestorePlan(plan.uninstall, [], []))[0]
        if plan.reinstall:
            holder["restore-reinstall"] = restore_argvs(pip_cmd, RestorePlan([], plan.reinstall, []),
                                                        str(ctx.job.cache.files_dir), indexes)[0]
        for line in plan.not_restorable:
            ctx.log(msg("install.restore.skipped_line", line=line).text())
        ctx.log(msg("install.restore.plan", uninstall=", ".join(plan.uninstall) or "-",
                    reinstall=", ".join(plan.reinstall) or "-").text())

    def command(step_id: str) -> Callable[[InstallJob], ProcessSpec]:
        def build(job: InstallJob) -> ProcessSpec:
            env = child_env()
            env.pop("PYTHONPATH", None)
            env.pop("PYTHONHOME", None)
            return ProcessSpec(holder[step_id], env, None, job.options.process_timeout_s)
        return build

    def done(ctx: StepContext) -> None:
        state = ctx.job.state
        if state is not None:
            state.status = STATUS_COMPLETE
            state.failed_step = None
            state.error = None
            ctx.job.store.save(state)
        ctx.log(msg("install.restore.done").text())

    return [
        PythonStep("restore", func=compute),
        ProcessStep("restore-uninstall", build=command("restore-uninstall"),
                    skip_when=lambda j: "restore-uninstall" not in holder),
        ProcessStep("restore-reinstall", build=command("restore-reinstall"),
                    skip_when=lambda j: "restore-reinstall" not in holder),
        PythonStep("restore-done", func=done),
    ]


def preview_plan(target: EnvTarget, options: InstallOptions, host: Host | None = None,
                 work_dir: str | os.PathLike[str] | None = None, session: Any = None) -> InstallPlan | None:
    """The plan before anything is created, for the Environment page: resolved with the
    target's interpreter when it exists, else the interpreter a new venv is made from (same
    version, same platform). None when neither exists yet (a new conda env, a uv Python not
    installed): the Install page shows the exact plan after the environment is made. Blocking;
    run it on a worker."""
    from wizard.core.install.plan import resolve_plan

    host = host or RealHost()
    py = target.python_exe if os.path.exists(target.python_exe) else (
        target.base_python if target.base_python and os.path.exists(target.base_python) else None)
    if py is None:
        return None
    import tempfile

    with tempfile.TemporaryDirectory(prefix="gsw-plan-") as tmp:
        plan = resolve_plan(host, py, options.requirements, options.index_url, work_dir or tmp,
                            extra_index_urls=options.extra_index_urls, session=session)
    if py != target.python_exe:
        for f in plan.files:  # a new environment has nothing installed yet
            f.satisfied, f.installed_version = False, None
        plan.installed_before = {}
        plan.env_python = target.python_exe
    return plan


__all__ = [
    "CondaCreateParser", "InstallJob", "InstallOptions", "JobCancelled", "OutputParser", "PipInstallParser",
    "ProcessResult", "ProcessSpec", "ProcessStep", "Progress", "PythonStep", "ResolveParser", "STEP_WEIGHTS",
    "SUMMARY_SCHEMA", "Step", "StepContext", "StepError", "StepProgress", "StreamDecoder", "UvInstallParser",
    "UvPythonParser", "install_argv", "kill_pid_tree", "preview_plan", "restore_steps", "run_process", "run_steps",
]
