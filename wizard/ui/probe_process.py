"""Run a probe script in a target interpreter through QProcess; events arrive as signals.

The window never waits on the probe: output is read on ``readyRead`` into the core's
:class:`~wizard.core.verify.probe_runner.ProbeStream` (incremental UTF-8, tolerant of stray lines),
and the outcome is built by the same core function the CLI uses. stdout and stderr stay
separate channels, so a library's warning on stderr cannot split a JSON line.
"""

from __future__ import annotations

from typing import Sequence

from PySide6.QtCore import QObject, QProcess, QProcessEnvironment, QTimer, Signal

STDERR_TAIL_CHARS = 16000  # as wizard.core.verify.probe_runner keeps; that module loads on first run


class ProbeProcess(QObject):
    event = Signal(object)  # one JSON event (dict)
    finished = Signal(object)  # ProbeOutcome

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.proc: QProcess | None = None
        self.stream = None
        self.stderr = ""
        self.argv: list[str] = []
        self.cancelled = False
        self.timed_out = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._on_timeout)

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.state() != QProcess.ProcessState.NotRunning

    def start(self, python: str, script: str, args: Sequence[str] = (), timeout_s: float = 600) -> None:
        from wizard.core.verify.probe_runner import ProbeStream, probe_command, probe_environment

        self.stream = ProbeStream()
        self.stderr = ""
        self.cancelled = self.timed_out = False
        self.argv = probe_command(python, script, list(args))
        proc = QProcess(self)
        env = QProcessEnvironment()
        for key, value in probe_environment().items():
            env.insert(key, value)
        proc.setProcessEnvironment(env)
        proc.setProcessChannelMode(QProcess.ProcessChannelMode.SeparateChannels)
        proc.readyReadStandardOutput.connect(self._read_stdout)
        proc.readyReadStandardError.connect(self._read_stderr)
        proc.finished.connect(self._on_finished)
        proc.errorOccurred.connect(self._on_error)
        self.proc = proc
        proc.setProgram(self.argv[0])
        proc.setArguments(self.argv[1:])
        proc.start()
        self._timer.start(int(timeout_s * 1000))

    def cancel(self) -> None:
        """Terminate, then kill, then the whole process tree; ``finished`` follows."""
        if self.running and self.proc is not None:
            self.cancelled = True
            pid = self.proc.processId()
            if pid:
                from wizard.core.verify.probe_runner import kill_pid_tree
                from wizard.ui.workers import submit

                submit(kill_pid_tree, pid, 1.5)  # it waits between terminate and kill: not here

    def _on_timeout(self) -> None:
        if self.running:
            self.timed_out = True
            self.cancel()

    def _read_stdout(self) -> None:
        assert self.proc is not None
        for event in self.stream.feed(bytes(self.proc.readAllStandardOutput())):
            self.event.emit(event)

    def _read_stderr(self) -> None:
        assert self.proc is not None
        self.stderr = (self.stderr + bytes(self.proc.readAllStandardError()).decode("utf-8", "replace"))[
            -STDERR_TAIL_CHARS:]

    def _on_finished(self, code: int, status: QProcess.ExitStatus) -> None:
        from wizard.core.verify.probe_runner import outcome_from_stream

        self._timer.stop()
        self._read_stdout()
        self._read_stderr()
        for event in self.stream.close():
            self.event.emit(event)
        normal = status == QProcess.ExitStatus.NormalExit and not self.cancelled
        outcome = outcome_from_stream(self.argv, self.stream, code if normal else None, self.stderr,
                                      timed_out=self.timed_out, cancelled=self.cancelled and not self.timed_out)
        self.finished.emit(outcome)

    def _on_error(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart:
            from wizard.core.verify.probe_runner import outcome_from_stream

            self._timer.stop()
            outcome = outcome_from_stream(self.argv, self.stream, None, self.stderr, error="not found")
            self.finished.emit(outcome)
