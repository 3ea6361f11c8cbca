"""Run a probe script in a target interpreter off the GUI thread; events arrive as signals.

A Qt adapter over the core's :func:`~wizard.core.verify.probe_runner.run_probe` -- the same
function the CLI calls -- run on a worker thread (:func:`wizard.ui.workers.submit`). Its
``on_event`` callback fires on the worker and is relayed as the ``event`` signal (queued to
the GUI thread, in order); the outcome follows as ``finished`` after the last event. Cancel
and the timeout are the core's: :meth:`cancel` sets the cancel token and the worker stops the
probe and its whole process tree. The window never waits on the probe.
"""

from __future__ import annotations

from typing import Sequence

from PySide6.QtCore import QObject, Signal

from wizard.ui.workers import WorkerAdapter, submit


class ProbeProcess(WorkerAdapter):
    event = Signal(object)  # type: ignore[assignment]  # one JSON event (dict); shadows QObject.event by name
    finished = Signal(object)  # ProbeOutcome

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.argv: list[str] = []
        self.outcome: object | None = None  # a ProbeOutcome once finished

    @property
    def cancelled(self) -> bool:
        return self.cancel_event.is_set()

    def start(self, python: str, script: str, args: Sequence[str] = (), timeout_s: float = 600) -> None:
        # loaded on the first run, not when the window opens
        from wizard.app.verify import probe_command, run_probe

        self.argv = probe_command(python, script, list(args))
        self.cancel_event.clear()
        self.outcome = None
        self.running = True
        self._task = submit(lambda: run_probe(python, script, list(args), timeout=timeout_s,
                                              on_event=lambda e: self._emit(self.event, e),
                                              cancel=self.cancel_event),
                            on_done=self._on_done, on_failed=self._on_failed)

    def _on_failed(self, text: str) -> None:  # GUI thread: run_probe itself raised (a bug)
        from wizard.app.verify import ProbeOutcome

        self._on_done(ProbeOutcome(argv=self.argv, error=text))

    def _on_done(self, outcome: object) -> None:  # GUI thread, after every event
        self.running = False
        self.outcome = outcome
        self.finished.emit(outcome)
