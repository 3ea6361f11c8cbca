"""Qt adapters over the install engine's one step loop and the one process runner.

Nothing here runs a child or walks steps itself. :class:`StepRunner` runs the engine's
:func:`~wizard.app.steps.run_steps` -- the same loop the CLI runs -- on a worker
thread (:func:`wizard.ui.workers.submit`) and relays its callbacks as Qt signals;
:class:`ProcessRunner` does the same for one child through
:func:`~wizard.app.steps.run_step_process`. The callbacks fire on the worker; a
signal emitted there reaches the page's slots on the GUI thread, queued and in order, and the
loop's end arrives after every line and progress report it sent. The GUI thread never waits:
Cancel only sets the loop's cancel token, and the worker stops the child (terminate, then
kill, then its whole tree) and reports the end like any other.

Consequently ``job.on_log`` (and everything else the steps do) runs on the worker thread;
``job.log_lines`` holds the whole log either way.
"""

from __future__ import annotations

from typing import Sequence

import shiboken6
from PySide6.QtCore import QObject, Signal

from wizard.app.steps import InstallJob, Step, StepError, StepHooks, run_step_process, run_steps
from wizard.core.base.i18n import msg
from wizard.core.base.process import ProcessResult, ProcessSpec
from wizard.ui.workers import WorkerAdapter, submit

KILL_GRACE_S = 2.0  # terminate → (this long) → kill; the whole stop stays within a few seconds


class ProcessRunner(WorkerAdapter):
    """One child process. ``line(str)`` per decoded output line (stdout and stderr merged),
    then exactly one ``ended(ProcessResult)``."""

    line = Signal(str)
    ended = Signal(object)  # ProcessResult

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.result: ProcessResult | None = None

    @property
    def cancelled(self) -> bool:
        return self.cancel_event.is_set()

    def start(self, spec: ProcessSpec) -> None:
        self.running = True
        self.cancel_event.clear()
        self._task = submit(lambda: run_step_process(spec, lambda text: self._emit(self.line, text),
                                                     self.cancel_event, KILL_GRACE_S),
                            on_done=self._on_done,
                            on_failed=lambda text: self._on_done(ProcessResult(list(spec.argv), None, error=text)))

    def _on_done(self, result: ProcessResult) -> None:  # GUI thread
        self.running = False
        self.result = result
        self.ended.emit(result)


class StepRunner(WorkerAdapter):
    """Run ``steps`` of ``job`` (all of ``job.steps()`` by default) with the engine's loop.

    Signals: ``progress(Progress)``, ``line(str)`` for every log line (already in
    ``job.log_lines``), ``step_started(str)``, ``step_finished(str, str)`` (the step and
    ``succeeded``/``failed``/``cancelled``/``skipped``), ``finished(bool)`` -- True when every
    step succeeded. After a failure ``job.failure`` holds the :class:`StepError`.
    """

    progress = Signal(object)
    line = Signal(str)
    step_started = Signal(str)
    step_finished = Signal(str, str)
    finished = Signal(bool)

    def __init__(self, job: InstallJob, steps: Sequence[Step] | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.job = job
        self.steps = list(steps) if steps is not None else job.steps()
        self.index = -1
        self.outcome: bool | None = None
        self.current: Step | None = None
        self._previous_on_log = job.on_log

    def start(self) -> None:
        self.running = True
        self.index = -1
        previous = self._previous_on_log

        def on_log(text: str) -> None:  # worker thread (or the GUI thread for an internal error)
            if previous is not None:
                previous(text)
            self._emit(self.line, text)

        self.job.on_log = on_log
        hooks = StepHooks(started=self._on_step_started, ended=self._on_step_ended)
        self._task = submit(lambda: run_steps(self.job, self.steps, cancel=self.cancel_event, hooks=hooks,
                                              on_progress=lambda p: self._emit(self.progress, p)),
                            on_done=self._end, on_failed=self._crashed)

    def _on_step_started(self, step: Step) -> None:  # worker thread
        self.current = step
        self.index = self.steps.index(step)
        self._emit(self.step_started, step.id)

    def _on_step_ended(self, step: Step, outcome: str) -> None:  # worker thread
        self._emit(self.step_finished, step.id, outcome)

    def _crashed(self, text: str) -> None:  # GUI thread: a bug in a step, not a failure it reports
        step = self.current or (self.steps[0] if self.steps else None)
        first = text.strip().splitlines()[0] if text.strip() else "?"
        self.job.log(text.rstrip())
        if step is not None:
            self.job.step_failed(step, StepError(step.id, msg("install.page.error.internal", step=step.title,
                                                              detail=first), "internal", text))
        self._end(False)

    def _end(self, ok: bool) -> None:  # GUI thread
        self.running = False
        self.outcome = bool(ok)
        self.job.on_log = self._previous_on_log
        if shiboken6.isValid(self):
            self.finished.emit(bool(ok))


__all__ = ["KILL_GRACE_S", "ProcessRunner", "StepRunner"]
