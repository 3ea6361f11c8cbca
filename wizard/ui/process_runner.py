"""How the GUI runs the install engine's steps without ever blocking the event loop.

The engine (:mod:`wizard.core.install.runner`) is one step plan with two runners. The CLI's
runner (``run_steps``) blocks its thread; this is the GUI's:

* :class:`ProcessRunner` runs one :class:`~wizard.core.install.runner.ProcessSpec` with
  ``QProcess``: merged channels, the spec's complete environment (``PYTHONUTF8=1`` and
  ``PYTHONIOENCODING=utf-8`` are already in it), its folder, a ``QTimer`` for its timeout.
  ``readyRead`` bytes go through the engine's :class:`StreamDecoder`, so a Hangul character
  split across two reads, or a cp949 line from a Korean Windows tool, arrives whole. Cancel
  is the engine's :func:`kill_pid_tree` (terminate, then kill, then every process the child
  started), run on a worker thread because it waits up to a few seconds; ``QProcess`` then
  reports the end through ``finished`` like any other. Nothing here calls ``waitFor*``.
* :class:`StepRunner` walks a step list exactly as ``run_steps`` does (skip / started /
  succeeded / failed / cancelled), one step per event-loop turn: process steps through a
  :class:`ProcessRunner`, Python steps on the worker pool (:func:`wizard.ui.workers.submit`),
  whose progress and log callbacks fire on the worker and cross to the GUI thread as queued
  signals. Every ``job.log`` call therefore happens on the GUI thread, in order.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from typing import Any, Sequence

import shiboken6
from PySide6.QtCore import QObject, QProcess, QProcessEnvironment, QTimer, Signal

from wizard.core.install.runner import (
    InstallJob,
    JobCancelled,
    OutputParser,
    ProcessResult,
    ProcessSpec,
    ProcessStep,
    PythonStep,
    Step,
    StepContext,
    StepError,
    StepProgress,
    StreamDecoder,
    kill_pid_tree,
)
from wizard.core.recommend.recommender import msg
from wizard.ui.workers import submit

KILL_GRACE_S = 2.0  # terminate → (this long) → kill; the whole stop stays within a few seconds


def _quote(arg: str) -> str:
    """An argument as the log shows it: quoted to paste into a shell; an inline script (``-c``
    with several lines) by its first line, so the log stays one line per command."""
    from wizard.core.recommend.commands import quote_arg

    if "\n" in arg:
        lines = arg.strip().splitlines()
        return quote_arg(f"{lines[0]} … ({len(lines)} lines)")
    return quote_arg(arg)


class ProcessRunner(QObject):
    """One child process for one step. ``line(str)`` per decoded output line, then exactly one
    ``ended(ProcessResult)``."""

    line = Signal(str)
    ended = Signal(object)  # ProcessResult

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.process: QProcess | None = None
        self.decoder = StreamDecoder()
        self.cancelled = False
        self.timed_out = False
        self._error: str | None = None
        self._started_at = 0.0
        self._done = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._on_timeout)
        self._kill_task = None

    @property
    def running(self) -> bool:
        return self.process is not None and not self._done

    def start(self, spec: ProcessSpec) -> None:
        proc = QProcess(self)
        self.process = proc
        proc.setProgram(spec.argv[0])
        proc.setArguments([str(a) for a in spec.argv[1:]])
        env = QProcessEnvironment()
        for key, value in spec.env.items():
            env.insert(key, value)
        proc.setProcessEnvironment(env)
        if spec.cwd:
            proc.setWorkingDirectory(spec.cwd)
        proc.setProcessChannelMode(QProcess.ProcessChannelMode.MergedChannels)
        proc.setStandardInputFile(QProcess.nullDevice())
        if os.name != "nt" and hasattr(proc, "setUnixProcessParameters"):
            # its own session, as the CLI's children have: a Ctrl+C in the terminal that
            # started the wizard does not reach it; Cancel stops it, tree and all
            proc.setUnixProcessParameters(QProcess.UnixProcessFlag.CreateNewSession)
        proc.readyReadStandardOutput.connect(self._on_output)
        proc.finished.connect(self._on_finished)
        proc.errorOccurred.connect(self._on_error)
        self._started_at = time.monotonic()
        if spec.timeout_s:
            self._timer.start(int(spec.timeout_s * 1000))
        proc.start()

    def cancel(self) -> None:
        """Stop the child and everything it started; ``ended`` follows with ``cancelled``."""
        if not self.running:
            return
        self.cancelled = True
        self._stop()

    # --- internals -----------------------------------------------------------------------------
    def _stop(self) -> None:
        proc = self.process
        if proc is None:
            return
        pid = int(proc.processId() or 0)
        if pid <= 0:  # not started yet (or already gone): Qt can stop what it has
            proc.kill()
            return
        # kill_pid_tree waits for the processes to go: on a worker, never on this thread
        self._kill_task = submit(kill_pid_tree, pid, KILL_GRACE_S)

    def _on_timeout(self) -> None:
        if self.running:
            self.timed_out = True
            self._stop()

    def _emit_lines(self, lines: Sequence[str]) -> None:
        for text in lines:
            self.line.emit(text)

    def _on_output(self) -> None:
        if self.process is None:
            return
        data = bytes(self.process.readAllStandardOutput().data())
        if data:
            self._emit_lines(self.decoder.feed(data))

    def _on_error(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart:
            # no ``finished`` follows a failed start
            proc = self.process
            exists = proc is not None and os.path.exists(proc.program())
            self._error = (proc.errorString() if proc is not None else "") if exists else "not found"
            self._finish(None)

    def _on_finished(self, code: int, status: QProcess.ExitStatus) -> None:
        self._on_output()
        self._emit_lines(self.decoder.flush())
        if self.cancelled or self.timed_out:
            self._finish(None)
        elif status == QProcess.ExitStatus.NormalExit:
            self._finish(code)
        else:  # killed by a signal from elsewhere, or a crash: as subprocess says it, -signal
            self._finish(-abs(code) if code else -1)

    def _finish(self, code: int | None) -> None:
        if self._done:
            return
        self._done = True
        self._timer.stop()
        self.ended.emit(ProcessResult(code, "", cancelled=self.cancelled, timed_out=self.timed_out,
                                      error=self._error, duration_s=time.monotonic() - self._started_at))


@dataclass
class Progress:
    """What the page hears: the step, the overall fraction, the step's own report."""

    step_id: str
    step_index: int
    step_count: int
    overall: float
    step: StepProgress | None
    elapsed_s: float


class _Bridge(QObject):
    """Lives on the GUI thread; a worker emits, the GUI thread receives (queued)."""

    progress = Signal(object)  # StepProgress
    log = Signal(str)


class StepRunner(QObject):
    """Run ``steps`` of ``job`` one after another on the event loop.

    Signals: ``progress(Progress)``, ``line(str)`` for every log line (already in
    ``job.log_lines``), ``step_started(str)``, ``finished(bool)`` -- True when every step
    succeeded. After a failure ``job.failure`` holds the :class:`StepError`.
    """

    progress = Signal(object)
    line = Signal(str)
    step_started = Signal(str)
    finished = Signal(bool)

    def __init__(self, job: InstallJob, steps: Sequence[Step] | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.job = job
        self.steps = list(steps) if steps is not None else job.steps()
        self.index = -1
        self.cancel_event = threading.Event()
        self.running = False
        self.outcome: bool | None = None
        self.current: Step | None = None
        self._runner: ProcessRunner | None = None
        self._parser: OutputParser | None = None
        self._task = None
        self._bridge = _Bridge(self)
        self._bridge.progress.connect(self._on_step_progress)
        self._bridge.log.connect(self._log)
        previous = job.on_log
        self._previous_on_log = previous

        def on_log(text: str) -> None:
            if previous is not None:
                previous(text)
            if self._alive():
                self.line.emit(text)

        job.on_log = on_log

    # --- control ----------------------------------------------------------------------------------
    def start(self) -> None:
        self.running = True
        self.index = -1
        QTimer.singleShot(0, self._next)

    def cancel(self) -> None:
        """Stop: the running child is killed (tree and all), a Python step sees the event."""
        if not self.running:
            return
        self.cancel_event.set()
        if self._runner is not None:
            self._runner.cancel()

    # --- the walk -----------------------------------------------------------------------------------
    def _next(self) -> None:
        job = self.job
        while True:
            self.index += 1
            if self.index >= len(self.steps):
                self._end(True)
                return
            step = self.steps[self.index]
            self.current = step
            if self.cancel_event.is_set():
                job.step_cancelled(step)
                self._end(False)
                return
            if step.skip(job):
                job.step_skipped(step)
                continue
            break
        job.step_started(step)
        self.step_started.emit(step.id)
        self._report(None)
        if isinstance(step, ProcessStep):
            self._start_process(step)
        elif isinstance(step, PythonStep):
            self._start_python(step)
        else:  # an unknown kind of step: nothing to run
            self._succeeded(step)

    def _start_process(self, step: ProcessStep) -> None:
        job = self.job
        try:
            spec = step.command(job)
        except StepError as exc:
            self._failed(step, exc)
            return
        job.log("$ " + " ".join(_quote(a) for a in spec.argv))
        self._parser = step.parser(job)
        runner = ProcessRunner(self)
        self._runner = runner
        runner.line.connect(self._on_process_line)
        runner.ended.connect(lambda result, _s=step: self._process_ended(_s, result))
        runner.start(spec)
        if self.cancel_event.is_set():  # cancelled while the spec was built
            runner.cancel()

    def _on_process_line(self, text: str) -> None:
        self.job.log(text)
        if self._parser is not None:
            p = self._parser.feed_line(text)
            if p is not None:
                self._report(p)

    def _process_ended(self, step: ProcessStep, result: ProcessResult) -> None:
        runner, parser = self._runner, self._parser
        self._runner = None
        if runner is not None:
            # not now: this runs inside the runner's own signal emission
            QTimer.singleShot(0, runner.deleteLater)
        if result.cancelled or self.cancel_event.is_set():
            result.cancelled = True
        try:
            step.finish(self.job, result, parser or OutputParser(step.id))
        except JobCancelled:
            self._cancelled(step)
            return
        except StepError as exc:
            self._failed(step, exc)
            return
        self._succeeded(step)

    def _start_python(self, step: PythonStep) -> None:
        bridge = self._bridge
        ctx = StepContext(self.job, bridge.progress.emit, bridge.log.emit, self.cancel_event)

        def work() -> tuple[str, Any]:  # worker thread
            try:
                step.run(ctx)
            except JobCancelled as exc:
                return "cancelled", exc
            except StepError as exc:
                return "failed", exc
            return "ok", None

        def done(outcome: tuple[str, Any], _s: PythonStep = step) -> None:
            kind, exc = outcome
            if kind == "cancelled":
                self._cancelled(_s)
            elif kind == "failed":
                self._failed(_s, exc)
            else:
                self._succeeded(_s)

        def crashed(text: str, _s: PythonStep = step) -> None:
            first = text.strip().splitlines()[0] if text.strip() else "?"
            self.job.log(text.rstrip())
            self._failed(_s, StepError(_s.id, msg("installpage.error.internal", step=_s.title.text(), detail=first),
                                       "internal", text))

        self._task = submit(work, on_done=done, on_failed=crashed)

    def _log(self, text: str) -> None:
        self.job.log(text)

    def _on_step_progress(self, p: StepProgress) -> None:
        if self.running:
            self._report(p)

    def _alive(self) -> bool:
        """False once Qt has deleted this object (the window closed while a worker finished):
        the job's own record is still kept, only the signals go nowhere."""
        return shiboken6.isValid(self)

    def _report(self, p: StepProgress | None) -> None:
        if self.current is None or not self._alive():
            return
        frac = p.fraction if p is not None else None
        overall = self.job.overall_fraction(self.steps, self.current.id, frac)
        self.progress.emit(Progress(self.current.id, self.index, len(self.steps), overall, p, self.job.elapsed_s))

    # --- outcomes ------------------------------------------------------------------------------------
    def _succeeded(self, step: Step) -> None:
        self.job.step_succeeded(step)
        if not self._alive():
            return
        self._report(StepProgress(step.id, 1.0))
        QTimer.singleShot(0, self._next)

    def _failed(self, step: Step, exc: StepError) -> None:
        self.job.step_failed(step, exc)
        self._end(False)

    def _cancelled(self, step: Step) -> None:
        self.job.step_cancelled(step)
        self._end(False)

    def _end(self, ok: bool) -> None:
        self.running = False
        self.outcome = ok
        self.job.on_log = self._previous_on_log
        if self._alive():
            self.finished.emit(ok)


__all__ = ["KILL_GRACE_S", "ProcessRunner", "Progress", "StepRunner"]
