"""Run a probe script (``wizard/probe/*.py``) in a target interpreter and read its JSON lines.

The child itself is run by the one process runner (:func:`wizard.core.base.process.run_process`);
this module adds the probes' protocol. :class:`ProbeStream` is the decoder for the probe's
stdout: bytes or text in any chunking, decoded by the runner's :class:`LineDecoder` (a Hangul
character split across two reads stays whole), each complete JSON object yielded as an
event, and lines that are not protocol (a library's stray print, a crash's half-written
line) kept as ``garbage`` for the report instead of failing.

A probe that is killed, crashes, hangs or never starts gives a :class:`ProbeOutcome` saying
so (exit code, whether it finished, the last events, the end of stderr); :func:`run_probe`
never raises for the child's sake.

Both faces call :func:`run_probe`: the CLI on its own thread, the GUI on a worker thread
(:class:`wizard.ui.probe_process.ProbeProcess` relays ``on_event`` as a Qt signal and sets the
cancel token). :func:`run_probe_with_host` runs the same command through a
:class:`~wizard.core.base.host.Host` (no streaming): tests replay recorded probe output with a
recorded host, and it is the simple path for callers that only want the final result.
"""

from __future__ import annotations

import collections
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence, TypeGuard

from wizard.core.base.host import CommandResult, Host
from wizard.core.base.process import (
    CancelLike,
    LineDecoder,
    ProcessSpec,
    child_env,
    kill_tree,
    parse_json_line,
    run_process,
)
from wizard.core.base.resources import probe_path

EVENT_KINDS = ("progress", "result", "error")
PROTOCOL = 1  # the probes' "protocol" number (their first progress line); a newer one is refused
MAX_LINE_CHARS = 4 * 1024 * 1024  # collect_env output is ~10 kB; anything this long is not ours
MAX_GARBAGE_LINES = 200
STDERR_TAIL_CHARS = 16000

Event = dict[str, Any]


def _is_event(obj: Any) -> TypeGuard[dict[str, Any]]:
    return isinstance(obj, dict) and obj.get("event") in EVENT_KINDS


class ProbeStream:
    """Incremental JSON-lines parser for probe output (a :class:`~wizard.core.base.process.Decoder`).

    ``feed(chunk)`` takes ``bytes`` (UTF-8, replacement on invalid bytes, so a cp949 line
    from a misbehaving library cannot stop the stream) or ``str``; it returns the events
    completed by that chunk. ``close()`` (or ``flush()``, as the process runner calls it)
    handles a last line without a newline: a complete JSON object is accepted, anything else
    is kept as ``truncated`` (the probe died while writing it).
    """

    def __init__(self, max_line_chars: int = MAX_LINE_CHARS) -> None:
        self._lines = LineDecoder(max_line=max_line_chars, utf8_only=True, drop_overlong=True)
        self.events: list[Event] = []
        self.garbage: collections.deque[str] = collections.deque(maxlen=MAX_GARBAGE_LINES)
        self.garbage_count = 0
        self.truncated: str | None = None
        self.closed = False

    def feed(self, chunk: bytes | bytearray | memoryview | str) -> list[Event]:
        if self.closed:
            raise ValueError("ProbeStream.feed() after close()")
        data = chunk.encode("utf-8") if isinstance(chunk, str) else bytes(chunk)
        return self._take(self._lines.feed(data))

    def feed_all(self, chunks: Iterable[bytes | str]) -> list[Event]:
        out: list[Event] = []
        for chunk in chunks:
            out.extend(self.feed(chunk))
        out.extend(self.close())
        return out

    def close(self) -> list[Event]:
        """End of stream. Returns the events completed by the rest of the input."""
        if self.closed:
            return []
        self.closed = True
        rest = " ".join(line.strip() for line in self._lines.flush()).strip()
        self._take([])  # an over-long line still open is garbage too
        if not rest:
            return []
        event = self._parse(rest)
        if event is None:
            self.truncated = rest[-2000:]
            return []
        return [event]

    flush = close

    def _take(self, lines: list[str]) -> list[Event]:
        for preview in self._lines.dropped:
            self._garbage(preview + " [... over-long line dropped]")
        self._lines.dropped.clear()
        out: list[Event] = []
        for line in lines:
            line = line.strip()
            if not line:
                continue
            event = self._parse(line)
            if event is None:
                self._garbage(line)
            else:
                out.append(event)
        return out

    def _parse(self, line: str) -> Event | None:
        obj = parse_json_line(line)
        if not _is_event(obj):
            return None
        self.events.append(obj)
        return obj

    def _garbage(self, line: str) -> None:
        self.garbage_count += 1
        self.garbage.append(line[:2000])


@dataclass
class ProbeOutcome:
    """What one probe run did, whatever happened to it.

    ``completed``: the probe printed its final ``done`` line (it ran to its end, even when it
    reports failures). ``returncode`` is None when the process never started or was killed
    by a timeout/cancel before it exited by itself.
    """

    argv: list[str]
    returncode: int | None = None
    events: list[Event] = field(default_factory=list)
    stderr_tail: str = ""
    garbage: list[str] = field(default_factory=list)
    truncated_line: str | None = None
    timed_out: bool = False
    cancelled: bool = False
    error: str | None = None  # could not start: "not found", or the OSError text
    duration_s: float = 0.0

    @property
    def completed(self) -> bool:
        return any(e.get("event") == "result" and e.get("type") == "done" for e in self.events)

    @property
    def started(self) -> bool:
        return self.error is None

    @property
    def ok(self) -> bool:
        return self.started and self.completed and not self.timed_out and not self.cancelled \
            and self.returncode == 0

    @property
    def errors(self) -> list[Event]:
        return [e for e in self.events if e.get("event") == "error"]

    def last_events(self, n: int = 5) -> list[Event]:
        return self.events[-n:]

    @property
    def protocol(self) -> int | None:
        for e in self.events:
            if e.get("event") == "progress" and e.get("step") == "start":
                value = e.get("protocol")
                return value if isinstance(value, int) else None
        return None

    def failure_kind(self) -> str | None:
        """None when the run is fine; else one of: not_started, cancelled, timeout,
        protocol, crashed (ended without its ``done`` line), failed (exit code not 0)."""
        if not self.started:
            return "not_started"
        if self.cancelled:
            return "cancelled"
        if self.timed_out:
            return "timeout"
        proto = self.protocol
        if proto is not None and proto > PROTOCOL:
            return "protocol"
        if not self.completed:
            return "crashed"
        if self.returncode not in (0, None):
            return "failed"
        return None

    def to_json(self) -> dict[str, Any]:
        return {
            "argv": self.argv, "returncode": self.returncode, "completed": self.completed,
            "timed_out": self.timed_out, "cancelled": self.cancelled, "error": self.error,
            "duration_s": round(self.duration_s, 3), "failure": self.failure_kind(),
            "stderr_tail": self.stderr_tail[-4000:], "garbage": self.garbage[-20:],
            "truncated_line": self.truncated_line,
        }


def resolve_script(script: str | os.PathLike[str]) -> Path:
    """'verify.py' / 'bench' → the probe file; a path is taken as it is."""
    text = str(script)
    if os.sep in text or "/" in text:
        return Path(text)
    name = text if text.endswith(".py") else text + ".py"
    return probe_path(name)


def probe_command(python_exe: str | os.PathLike[str], script: str | os.PathLike[str],
                  args: Sequence[str] = ()) -> list[str]:
    """The argv to run a probe: ``[python, -u, /path/to/probe.py, *args]``."""
    return [str(python_exe), "-u", str(resolve_script(script)), *[str(a) for a in args]]


def probe_environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The child environment: UTF-8 forced (PYTHONUTF8=1, PYTHONIOENCODING=utf-8), and no
    PYTHONPATH/PYTHONHOME leaking the wizard's own (bundle) paths into the student's Python."""
    env = child_env(extra=extra)
    for name in ("PYTHONHOME", "PYTHONPATH", "PYTHONSTARTUP", "PYTHONEXECUTABLE"):
        if extra is None or name not in extra:
            env.pop(name, None)
    return env


# Stop a probe held elsewhere by its pid: the one process-tree killer.
kill_pid_tree = kill_tree


def run_probe(python_exe: str | os.PathLike[str], script: str | os.PathLike[str],
              args: Sequence[str] = (), timeout: float | None = 600.0,
              on_event: Callable[[Event], None] | None = None, cancel: CancelLike = None,
              env: Mapping[str, str] | None = None, poll_s: float = 0.05) -> ProbeOutcome:
    """Run a probe, streaming its events to ``on_event`` (called on this thread, in order).

    ``timeout`` (seconds, None = none) and ``cancel`` (a ``threading.Event`` or a callable
    returning True) stop the probe: terminate, then kill, then its whole process tree
    (collect_env's children too). If ``on_event`` raises, the probe is stopped the same way
    and the exception propagates: the caller asked to stop, no process is left behind.
    """
    argv = probe_command(python_exe, script, args)
    stream = ProbeStream()
    spec = ProcessSpec(argv, probe_environment(env), None, timeout, keep_chars=STDERR_TAIL_CHARS)
    result = run_process(spec, on_event, None, cancel, stdout_decoder=stream,
                         stderr_decoder=LineDecoder(utf8_only=True), poll_s=poll_s)
    stopped = result.cancelled or result.timed_out
    # stopped: the exit status the kill left, for the report
    return outcome_from_stream(argv, stream, result.exit_status if stopped else result.returncode, result.stderr,
                               timed_out=result.timed_out, cancelled=result.cancelled, error=result.error,
                               duration_s=result.duration_s)


def outcome_from_output(argv: list[str], stdout: str | bytes, stderr: str = "", returncode: int | None = 0,
                        timed_out: bool = False, error: str | None = None, duration_s: float = 0.0) -> ProbeOutcome:
    """A :class:`ProbeOutcome` from captured output (a recorded run, or a Host result)."""
    stream = ProbeStream()
    stream.feed(stdout)
    return outcome_from_stream(argv, stream, returncode, stderr, timed_out=timed_out, error=error,
                               duration_s=duration_s)


def outcome_from_stream(argv: Sequence[str], stream: ProbeStream, returncode: int | None, stderr: str = "", *,
                        timed_out: bool = False, cancelled: bool = False, error: str | None = None,
                        duration_s: float = 0.0) -> ProbeOutcome:
    """The outcome of a run whose output was fed to ``stream`` chunk by chunk elsewhere (a
    recorded capture replayed in pieces); :func:`run_probe` builds its own."""
    stream.close()
    stopped = timed_out or cancelled
    return ProbeOutcome(argv=list(argv), returncode=None if stopped and returncode is None else returncode,
                        events=list(stream.events), stderr_tail=stderr[-STDERR_TAIL_CHARS:],
                        garbage=list(stream.garbage), truncated_line=stream.truncated, timed_out=timed_out,
                        cancelled=cancelled, error=error, duration_s=duration_s)


def run_probe_with_host(host: Host, python_exe: str | os.PathLike[str], script: str | os.PathLike[str],
                        args: Sequence[str] = (), timeout: float = 600.0) -> ProbeOutcome:
    """Run a probe through ``host.run`` (no streaming). With a ``RecordedHost`` the key is
    ``"<python basename> -u <script path> <args>"`` or a ``*`` prefix of it."""
    argv = probe_command(python_exe, script, args)
    result: CommandResult = host.run(argv, timeout=timeout, env={"PYTHONUTF8": "1", "PYTHONIOENCODING": "utf-8"})
    error = result.error
    if result.not_found:
        error = "not found"
    return outcome_from_output(argv, result.stdout, result.stderr, result.returncode, result.timed_out, error,
                               result.duration_s)
