"""The one step loop of an install, and the names other code imports from the install engine.

:func:`run_steps` is the only loop over an install's steps, for both faces: the CLI calls it
on its own thread, the GUI on a worker thread (:class:`wizard.ui.process_runner.StepRunner`
relays its callbacks as Qt signals). For each step it asks ``step.skip(job)`` (pure: it reads
what earlier steps found), then calls ``job.step_started(step)``, runs it -- a process step
through :func:`run_step_process` (the one process runner, stdout and stderr merged into one
ordered log, decoded incrementally: UTF-8, and a cp949 line from a Korean Windows tool
decoded with the locale's code page) and a Python step in place -- and afterwards
``job.step_succeeded(step)``, ``job.step_failed(step, error)`` or ``job.step_cancelled(step)``,
which keep the recovery state (:mod:`wizard.core.install.recovery`) up to date. Cancel stops a
child cleanly: terminate, then kill, then the child's whole process tree.

Never two at once, never stuck at "running": the loop holds the environment's lock
(:mod:`wizard.core.install.locks`) while it runs, so a second install into the same environment
is refused at once with a sentence saying one is running, and touches nothing. Every OSError a
step meets (a full disk writing the state file or the cache index, a folder made read-only) is
recorded like any failure -- the state says "failed" at that step and Resume continues -- and
a bug in a step is recorded before it propagates. A run that dies without a word (SIGKILL)
leaves "running" on disk with its lock free, which :class:`~wizard.core.install.recovery.StateStore`
reads as interrupted.

Where the rest lives: the step vocabulary, the job's options and state in
:mod:`~wizard.core.install.job`, the output parsers in :mod:`~wizard.core.install.parsers`,
what each step does in :mod:`~wizard.core.install.actions`; here, :class:`InstallJob` puts
those steps in order.
"""

from __future__ import annotations

import errno
import os
import threading
import traceback
from dataclasses import dataclass, replace
from typing import Any, Callable, Sequence

from wizard.core.base.host import Host, RealHost
from wizard.core.base.i18n import msg
from wizard.core.base.process import LineDecoder, ProcessResult, ProcessSpec, child_env, kill_tree
from wizard.core.base.process import run_process as _run_child
from wizard.core.install import actions as act
from wizard.core.install.download_http import short
from wizard.core.install.environments import EnvTarget
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
    STEP_RESOLVE,
    STEP_VERIFY,
    InstallOptions,
    JobCancelled,
    JobState,
    ProcessStep,
    PythonStep,
    Step,
    StepContext,
    StepError,
    StepProgress,
)
from wizard.core.install.locks import InstallBusy
from wizard.core.install.parsers import UvPythonParser
from wizard.core.install.plan import InstallPlan, PlanError, installed_argv, parse_installed
from wizard.core.install.recovery import STATUS_COMPLETE

# The decoder of a step's output, under its old name; cancel for a pid held elsewhere, likewise.
StreamDecoder = LineDecoder
kill_pid_tree = kill_tree

OUTPUT_KEEP_CHARS = 16000  # what a step's result keeps of its output (the parser keeps the lines)


class InstallJob(JobState):
    """One install into one target: the job state (:class:`~wizard.core.install.job.JobState`)
    with its plan of steps, in the order the student's install runs them."""

    def steps(self) -> list[Step]:
        """The whole plan, in order. Skipped steps say so through :meth:`Step.skip`."""
        return [
            PythonStep(STEP_PREPARE, func=act.prepare),
            ProcessStep(STEP_PYTHON, build=act.python_command, make_parser=lambda j: UvPythonParser(STEP_PYTHON),
                        on_finish=act.python_finish, skip_when=lambda j: not j.need_python_install),
            ProcessStep(STEP_CREATE, build=act.create_command, make_parser=act.create_parser,
                        on_finish=act.create_finish, finish_on_cancel=True,
                        skip_when=lambda j: not j.target.creates_env
                        or (j.done(STEP_CREATE) and os.path.exists(j.target.python_exe))),
            ProcessStep(STEP_ENSUREPIP, build=act.ensurepip_command, finish_on_cancel=True,
                        skip_when=act.ensurepip_skipped),
            PythonStep(STEP_INSPECT, func=act.inspect_env),
            ProcessStep(STEP_RESOLVE, build=act.resolve_command, make_parser=act.resolve_parser,
                        on_finish=act.resolve_finish, skip_when=lambda j: j.plan is not None,
                        attempt=act.resolve_from_cache),
            PythonStep(STEP_PLAN, func=act.plan_step),
            PythonStep(STEP_DOWNLOAD, func=act.download, skip_when=lambda j: j.nothing_to_do),
            ProcessStep(STEP_INSTALL, build=act.install_command, make_parser=act.install_parser,
                        on_finish=act.install_finish, skip_when=lambda j: j.nothing_to_do,
                        finish_on_cancel=True),
            ProcessStep(STEP_VERIFY, build=act.verify_command, on_finish=act.verify_finish,
                        attempt=act.verify_in_place),
            PythonStep(STEP_FINISH, func=act.finish),
        ]


def run_step_process(spec: ProcessSpec, on_line: Callable[[str], None] | None = None,
                     cancel: threading.Event | None = None, grace_s: float = 2.0) -> ProcessResult:
    """Run one step's child with stdout and stderr merged, ``on_line`` called per line on this
    thread. ``cancel`` or the timeout stops it, tree and all. Never raises for the child's sake."""
    return _run_child(replace(spec, merge_stderr=True, keep_chars=OUTPUT_KEEP_CHARS), on_line, None, cancel,
                      grace_s=grace_s)


run_process = run_step_process  # the name the install tests and older callers use


@dataclass
class Progress:
    """What a front end hears: the step, the overall fraction, the step's own report."""

    step_id: str
    step_index: int
    step_count: int
    overall: float
    step: StepProgress | None
    elapsed_s: float


@dataclass
class StepHooks:
    """What a front end may hear besides progress and the log (``job.on_log``): a step began,
    a step ended (``"succeeded"``, ``"failed"``, ``"cancelled"`` or ``"skipped"``). Called on
    the loop's thread."""

    started: Callable[[Step], None] | None = None
    ended: Callable[[Step, str], None] | None = None

    def start(self, step: Step) -> None:
        if self.started is not None:
            self.started(step)

    def end(self, step: Step, outcome: str) -> None:
        if self.ended is not None:
            self.ended(step, outcome)


def run_steps(job: InstallJob, steps: Sequence[Step] | None = None, *,
              on_progress: Callable[[Progress], None] | None = None,
              cancel: threading.Event | None = None, hooks: StepHooks | None = None) -> bool:
    """Run the steps in order on this thread. True when every step succeeded.

    A :class:`StepError` or an OSError stops the run (``job.failure`` holds it); a cancel stops
    it with the recovery state saved; another install holding the environment's lock stops it
    before anything is touched (``job.failure.kind == "busy"``). The log goes to ``job.on_log``.
    Any other exception (a bug in a step) is recorded in the state and propagates, after
    ``hooks.ended(step, "failed")``.
    """
    steps = list(steps) if steps is not None else job.steps()
    first = steps[0].id if steps else STEP_PREPARE
    lock = job.store.lock(job.target.path or job.target.name or "target")
    try:
        lock.acquire()
    except InstallBusy as exc:
        job.step_refused(StepError(first, exc.message, "busy"))
        return False
    except OSError as exc:  # the state folder cannot even hold a lock file
        job.step_refused(os_failure(first, exc))
        return False
    cancel = cancel or threading.Event()
    job.cancel_event, job.running = cancel, True
    try:
        return _run_all(job, steps, on_progress, cancel, hooks or StepHooks())
    finally:
        job.running, job.current_step = False, None
        lock.release()


def _run_all(job: InstallJob, steps: list[Step], on_progress: Callable[[Progress], None] | None,
             cancel: threading.Event, hooks: StepHooks) -> bool:
    """The loop of :func:`run_steps`, with the environment's lock held."""
    for index, step in enumerate(steps):
        if cancel.is_set():
            job.step_cancelled(step)
            hooks.end(step, "cancelled")
            return False
        if step.skip(job):
            job.step_skipped(step)
            hooks.end(step, "skipped")
            continue

        def report(p: StepProgress | None, _i: int = index, _s: Step = step) -> None:
            if on_progress is not None:
                frac = p.fraction if p is not None else None
                on_progress(Progress(_s.id, _i, len(steps), job.overall_fraction(steps, _s.id, frac), p,
                                     job.elapsed_s))

        outcome = _run_one(job, step, report, cancel, hooks)
        hooks.end(step, outcome)
        if outcome != "succeeded":
            return False
        report(StepProgress(step.id, 1.0))
    return True


def _run_one(job: InstallJob, step: Step, report: Callable[[StepProgress | None], None],
             cancel: threading.Event, hooks: StepHooks) -> str:
    """One step, start to end: its outcome word, with the job's lifecycle calls made (inside the
    guard: a state file that cannot be written is this step's failure, not a traceback)."""
    try:
        job.step_started(step)
        hooks.start(step)
        report(None)
        if isinstance(step, ProcessStep):
            if step.attempt is None or not step.attempt(StepContext(job, report, job.log, cancel)):
                _run_child_step(job, step, report, cancel)
        elif isinstance(step, PythonStep):
            step.run(StepContext(job, report, job.log, cancel))
        job.step_succeeded(step)
    except JobCancelled:
        job.step_cancelled(step)
        return "cancelled"
    except StepError as exc:
        job.step_failed(step, exc)
        return "failed"
    except OSError as exc:
        job.step_failed(step, os_failure(step.id, exc))
        return "failed"
    except KeyboardInterrupt:
        cancel.set()
        job.step_cancelled(step)
        hooks.end(step, "cancelled")
        raise
    except BaseException as exc:
        job.step_crashed(step, StepError(step.id, msg("install.error.unexpected", step=step.title,
                                                      detail=short(exc)), "internal", traceback.format_exc()))
        hooks.end(step, "failed")
        raise
    return "succeeded"


def _run_child_step(job: InstallJob, step: ProcessStep, report: Callable[[StepProgress | None], None],
                    cancel: threading.Event) -> None:
    """A process step's child: the command in the log, its lines to the log and the parser."""
    spec = step.command(job)
    job.log("$ " + " ".join(_quote(a) for a in spec.argv))
    parser = step.parser(job)

    def on_line(line: str) -> None:
        p = parser.feed_line(line)
        if parser.shows(line):
            job.log(line)
        if p is not None:
            report(p)

    # a step writing the environment hears only force_stop(); a cancel waits for it
    waits = step.finish_on_cancel
    result = run_step_process(spec, on_line, job.kill_event if waits else cancel)
    if waits and result.cancelled:
        job.killed_mid_write = True
    elif waits and cancel.is_set():
        job.log(msg("install.cancel.step_finished", step=step.title).text(job.lang))
    step.finish(job, result, parser)


def os_failure(step_id: str, exc: OSError) -> StepError:
    """An OSError met in a step, as a failure the student can act on: a full disk says so (free
    space, then resume); anything else names the system's refusal and the file."""
    key = "install.error.os_disk_full" if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", -1)) \
        else "install.error.os"
    kind = "disk" if key.endswith("disk_full") else "os"
    return StepError(step_id, msg(key, step=msg(f"install.step.{step_id}"), detail=short(exc)), kind,
                     traceback.format_exc())


def _quote(arg: str) -> str:
    """An argument as the log shows it: quoted to paste into a shell; an inline script (``-c``
    with several lines) by its first line, so the log stays one line per command."""
    from wizard.core.recommend.commands import quote_arg

    if "\n" in arg:
        lines = arg.strip().splitlines()
        return quote_arg(f"{lines[0]} … ({len(lines)} lines)")
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
            ctx.log(msg("install.restore.skipped_line", line=line).text(ctx.job.lang))
        ctx.log(msg("install.restore.plan", uninstall=", ".join(plan.uninstall) or "-",
                    reinstall=", ".join(plan.reinstall) or "-").text(ctx.job.lang))

    def command(step_id: str) -> Callable[[JobState], ProcessSpec]:
        def build(job: JobState) -> ProcessSpec:
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
        ctx.log(msg("install.restore.done").text(ctx.job.lang))

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
    from wizard.core.install.preview import resolve_plan

    host = host or RealHost()
    py = target.python_exe if os.path.exists(target.python_exe) else (
        target.base_python if target.base_python and os.path.exists(target.base_python) else None)
    if py is None:
        return None
    import tempfile

    with tempfile.TemporaryDirectory(prefix="gsw-plan-") as tmp:
        uv = None
        if options.resolved_installer() == INSTALLER_UV:
            from wizard.core.install.environments import find_uv

            uv = options.uv_exe or target.uv_exe or find_uv()
        from wizard.core.install.extras import for_extras, ordered_indexes

        main, extra = ordered_indexes(options)  # a course's extras' source after the build's index
        try:
            plan = resolve_plan(host, py, options.requirements, main, work_dir or tmp,
                                extra_index_urls=extra, session=session, uv_exe=uv,
                                uv_cache_dir=options.uv_cache_dir, refresh=options.refresh_index)
        except PlanError as exc:
            said = for_extras(exc, options)  # a course's extras the indexes lack: named, not torch
            if said is exc:
                raise
            raise said from exc
    if py != target.python_exe:
        for f in plan.files:  # a new environment has nothing installed yet
            f.satisfied, f.installed_version = False, None
        plan.installed_before = {}
        plan.env_python = target.python_exe
    return plan


__all__ = [
    "InstallJob",
    "Progress",
    "StepHooks",
    "StreamDecoder",
    "kill_pid_tree",
    "preview_plan",
    "restore_steps",
    "run_process",
    "run_step_process",
    "run_steps",
]
