"""Run a probe script (``wizard/probe/*.py``) in a target interpreter and read its JSON lines.

Two front ends read the same stream: the CLI through :func:`run_probe` (a ``subprocess.Popen``
read line by line on threads) and the GUI through a ``QProcess`` whose ``readyRead`` chunks
go into a :class:`ProbeStream`. So the parsing lives in :class:`ProbeStream`, which knows
nothing about processes: feed it bytes or text in any chunking, it decodes UTF-8
incrementally (a Hangul character split across two reads stays whole), yields each complete
JSON object, and keeps lines that are not protocol (a library's stray print, a crash's
half-written line) as ``garbage`` for the report instead of failing.

A probe that is killed, crashes, hangs or never starts gives a :class:`ProbeOutcome` saying
so (exit code, whether it finished, the last events, the end of stderr); :func:`run_probe`
never raises for the child's sake.

:func:`run_probe_with_host` runs the same command through a :class:`~wizard.core.base.host.Host`
(no streaming): tests replay recorded probe output with a ``RecordedHost``, and it is the
simple path for callers that only want the final result.

The GUI's path with a ``QProcess`` (the window never waits on the probe)::

    argv = probe_command(python, "verify.py", verify_args())      # or "bench.py", bench_args(...)
    proc.setProgram(argv[0]); proc.setArguments(argv[1:])
    proc.setProcessEnvironment(<probe_environment() copied into a QProcessEnvironment>)
    proc.setProcessChannelMode(QProcess.SeparateChannels)  # stderr must not split a JSON line
    readyReadStandardOutput: for e in stream.feed(bytes(proc.readAllStandardOutput())): report.feed(e)
    readyReadStandardError:  keep the text (the last ~16 kB are enough)
    finished(code, status):  report.finish(outcome_from_stream(argv, stream,
                                 code if status == QProcess.NormalExit else None, stderr_text))
    errorOccurred(FailedToStart): outcome_from_stream(argv, stream, None, error="not found")
    Cancel:                  kill_pid_tree(proc.processId()), then finish with cancelled=True
"""

from __future__ import annotations

import codecs
import collections
import json
import os
import queue
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from wizard.core.base.host import CommandResult, Host, child_env, kill_tree
from wizard.core.base.resources import probe_path

EVENT_KINDS = ("progress", "result", "error")
PROTOCOL = 1  # the probes' "protocol" number (their first progress line); a newer one is refused
MAX_LINE_CHARS = 4 * 1024 * 1024  # collect_env output is ~10 kB; anything this long is not ours
MAX_GARBAGE_LINES = 200
STDERR_TAIL_CHARS = 16000

Event = dict[str, Any]
CancelLike = threading.Event | Callable[[], bool] | None


def _is_event(obj: Any) -> bool:
    return isinstance(obj, dict) and obj.get("event") in EVENT_KINDS


class ProbeStream:
    """Incremental JSON-lines parser for probe output.

    ``feed(chunk)`` takes ``bytes`` (decoded as UTF-8, replacement on invalid bytes, so a
    cp949 line from a misbehaving library cannot stop the stream) or ``str``; it returns the
    events completed by that chunk. ``close()`` flushes the decoder and handles a last line
    without a newline: a complete JSON object is accepted, anything else is kept as
    ``truncated`` (the probe died while writing it).
    """

    def __init__(self, max_line_chars: int = MAX_LINE_CHARS) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._buffer = ""
        self._max = max_line_chars
        self._dropping = False  # inside an over-long line, discarding until its newline
        self.events: list[Event] = []
        self.garbage: collections.deque[str] = collections.deque(maxlen=MAX_GARBAGE_LINES)
        self.garbage_count = 0
        self.truncated: str | None = None
        self.closed = False

    def feed(self, chunk: bytes | bytearray | memoryview | str) -> list[Event]:
        if self.closed:
            raise ValueError("ProbeStream.feed() after close()")
        text = chunk if isinstance(chunk, str) else self._decoder.decode(bytes(chunk))
        return self._take(text)

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
        out = self._take(self._decoder.decode(b"", final=True))
        self.closed = True
        rest = self._buffer.strip()
        self._buffer = ""
        if rest and not self._dropping:
            event = self._parse(rest)
            if event is not None:
                out.append(event)
            else:
                self.truncated = rest[-2000:]
        return out

    def _take(self, text: str) -> list[Event]:
        out: list[Event] = []
        while text:
            newline = text.find("\n")
            if newline < 0:
                if not self._dropping:
                    self._buffer += text
                    if len(self._buffer) > self._max:
                        self._garbage(self._buffer[:200] + " [... over-long line dropped]")
                        self._buffer = ""
                        self._dropping = True
                return out
            piece, text = text[:newline], text[newline + 1:]
            if self._dropping:
                self._dropping = False
                self._buffer = ""
                continue
            line = (self._buffer + piece).strip()
            self._buffer = ""
            if not line:
                continue
            event = self._parse(line)
            if event is None:
                self._garbage(line)
            else:
                out.append(event)
        return out

    def _parse(self, line: str) -> Event | None:
        if not line.startswith("{"):
            return None
        try:
            obj = json.loads(line)
        except ValueError:
            return None
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
    """The argv to run a probe: ``[python, -u, /path/to/probe.py, *args]``. The GUI hands
    ``argv[0]`` and ``argv[1:]`` to QProcess, with :func:`probe_environment`."""
    return [str(python_exe), "-u", str(resolve_script(script)), *[str(a) for a in args]]


def probe_environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The child environment: UTF-8 forced (PYTHONUTF8=1, PYTHONIOENCODING=utf-8), and no
    PYTHONPATH/PYTHONHOME leaking the wizard's own (bundle) paths into the student's Python."""
    env = child_env(extra=extra)
    for name in ("PYTHONHOME", "PYTHONPATH", "PYTHONSTARTUP", "PYTHONEXECUTABLE"):
        if extra is None or name not in extra:
            env.pop(name, None)
    return env


def kill_pid_tree(pid: int, grace_s: float = 2.0) -> None:
    """Terminate, then kill, process ``pid`` and all its descendants (collect_env's children).

    For the GUI, which holds a QProcess rather than a Popen: ``QProcess.kill()`` alone would
    leave the probe's own children running. A process already gone is not an error.
    """
    import psutil  # only needed when something must die

    try:
        parent = psutil.Process(pid)
        family = parent.children(recursive=True) + [parent]
    except psutil.Error:
        return
    for p in family:
        try:
            p.terminate()
        except psutil.Error:
            pass
    _, alive = psutil.wait_procs(family, timeout=grace_s)
    for p in alive:
        try:
            p.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(alive, timeout=grace_s)


def _cancelled(cancel: CancelLike) -> bool:
    if cancel is None:
        return False
    if isinstance(cancel, threading.Event):
        return cancel.is_set()
    return bool(cancel())


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
    start = time.monotonic()
    outcome = ProbeOutcome(argv=argv)
    kwargs: dict[str, Any] = {}
    if os.name == "nt":
        kwargs["creationflags"] = getattr(subprocess, "CREATE_NO_WINDOW", 0)
    else:
        kwargs["start_new_session"] = True  # its own process group, killed as a whole
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=probe_environment(env), **kwargs)
    except FileNotFoundError:
        outcome.error = "not found"
        return outcome
    except OSError as exc:  # not executable, bad format (a 32-bit/ARM exe), permission
        outcome.error = str(exc) or type(exc).__name__
        return outcome

    stream = ProbeStream()
    events: queue.Queue[Event | None] = queue.Queue()
    stderr_tail: collections.deque[str] = collections.deque()
    stderr_len = [0]

    def read_stdout() -> None:
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            for event in stream.feed(chunk):
                events.put(event)
        for event in stream.close():
            events.put(event)
        events.put(None)

    def read_stderr() -> None:
        assert proc.stderr is not None
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        fd = proc.stderr.fileno()
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            text = decoder.decode(chunk)
            stderr_tail.append(text)
            stderr_len[0] += len(text)
            while stderr_len[0] > STDERR_TAIL_CHARS * 2 and len(stderr_tail) > 1:
                stderr_len[0] -= len(stderr_tail.popleft())

    readers = [threading.Thread(target=read_stdout, name="probe-stdout", daemon=True),
               threading.Thread(target=read_stderr, name="probe-stderr", daemon=True)]
    for t in readers:
        t.start()

    def stop() -> None:
        if proc.poll() is None:
            kill_tree(proc)

    stdout_done = False
    try:
        while not stdout_done:
            try:
                item = events.get(timeout=poll_s)
            except queue.Empty:
                item = None
                if _cancelled(cancel):
                    outcome.cancelled = True
                    stop()
                    break
                if timeout is not None and time.monotonic() - start > timeout:
                    outcome.timed_out = True
                    stop()
                    break
                continue
            if item is None:
                stdout_done = True
                break
            outcome.events.append(item)
            if on_event is not None:
                on_event(item)
            if _cancelled(cancel):
                outcome.cancelled = True
                stop()
                break
    except BaseException:
        stop()
        raise
    finally:
        if not stdout_done and proc.poll() is None:
            stop()
    # The process ended (or was killed); wait for it and let the readers drain the pipes.
    try:
        remaining = None if timeout is None else max(1.0, timeout - (time.monotonic() - start))
        proc.wait(timeout=remaining if not (outcome.cancelled or outcome.timed_out) else 10)
    except subprocess.TimeoutExpired:
        # stdout closed but the process lingers (it closed its stdout itself): end it
        outcome.timed_out = outcome.timed_out or not outcome.cancelled
        stop()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
    for t in readers:
        t.join(timeout=5)
    while True:  # events the reader queued after we stopped listening
        try:
            item = events.get_nowait()
        except queue.Empty:
            break
        if item is not None:
            outcome.events.append(item)
            if on_event is not None and not (outcome.cancelled or outcome.timed_out):
                on_event(item)
    if not (outcome.cancelled or outcome.timed_out):
        outcome.returncode = proc.returncode
    elif proc.returncode is not None:
        outcome.returncode = proc.returncode  # the exit status the kill left, for the report
    outcome.stderr_tail = "".join(stderr_tail)[-STDERR_TAIL_CHARS:]
    outcome.garbage = list(stream.garbage)
    outcome.truncated_line = stream.truncated
    outcome.duration_s = time.monotonic() - start
    for pipe in (proc.stdout, proc.stderr):
        if pipe is not None:
            try:
                pipe.close()
            except OSError:
                pass
    return outcome


def outcome_from_output(argv: list[str], stdout: str | bytes, stderr: str = "", returncode: int | None = 0,
                        timed_out: bool = False, error: str | None = None, duration_s: float = 0.0) -> ProbeOutcome:
    """A :class:`ProbeOutcome` from captured output (a recorded run, or a Host result)."""
    stream = ProbeStream()
    stream.feed(stdout)
    stream.close()
    return ProbeOutcome(argv=list(argv), returncode=returncode, events=list(stream.events),
                        stderr_tail=stderr[-STDERR_TAIL_CHARS:], garbage=list(stream.garbage),
                        truncated_line=stream.truncated, timed_out=timed_out, error=error, duration_s=duration_s)


def outcome_from_stream(argv: Sequence[str], stream: ProbeStream, returncode: int | None, stderr: str = "", *,
                        timed_out: bool = False, cancelled: bool = False, error: str | None = None,
                        duration_s: float = 0.0) -> ProbeOutcome:
    """The outcome of a run whose output went through ``stream`` (the GUI's QProcess path:
    call this from ``finished``/``errorOccurred`` after feeding every chunk)."""
    stream.close()
    return ProbeOutcome(argv=list(argv), returncode=None if (timed_out or cancelled) and returncode is None else returncode,
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
