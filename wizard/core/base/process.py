"""The one way the wizard runs a child process: spawn, decode, stream, time out, cancel, kill.

Every child goes through :func:`run_process` -- the machine probes (``RealHost.run``), the
install steps, the verification and benchmark probes, and (on a worker thread) the GUI. So
there is one behaviour to test and to trust:

* an argv list, never a shell; ``PYTHONUTF8=1`` and ``PYTHONIOENCODING=utf-8`` merged into the
  child's environment, stdin from the null device;
* stdout and stderr read on two threads as bytes and decoded incrementally by a
  :class:`LineDecoder`: a Hangul character split across two reads stays whole, and a line
  that is not UTF-8 (a Korean Windows tool writing cp949) is decoded with the locale's code
  page instead of turning into replacement characters;
* every decoded item is handed to the caller's callback on the *calling* thread, in order,
  so a callback may touch the caller's state without locks;
* a timeout or a cancel token (a ``threading.Event`` or a callable returning True) stops the
  child promptly: terminate, wait, kill, then every process it started (:func:`kill_tree`);
  an exception raised by a callback stops it the same way and propagates;
* the child gets its own process group/session, so a Ctrl+C in the terminal reaches the
  wizard (which then cancels) and not the child half-way through writing an environment.

It never raises for the child's sake: a missing executable, a crash, a timeout all come back
as a :class:`ProcessResult`.
"""

from __future__ import annotations

import collections
import json
import locale
import os
import queue
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping, Protocol, Sequence

from wizard.core.base.interrupt import stopping

if TYPE_CHECKING:  # psutil is imported where something must die
    import psutil

UTF8_ENV = {"PYTHONUTF8": "1", "PYTHONIOENCODING": "utf-8"}
DEFAULT_GRACE_S = 2.0  # terminate → (this long) → kill; a whole stop stays within a few seconds
DEFAULT_MAX_LINE = 1 << 20
LINGER_S = 5.0  # after the child exits, how long a grandchild holding its pipes may keep them
NOT_FOUND = "not found"

CancelLike = threading.Event | Callable[[], bool] | None


# --------------------------------------------------------------------------------------------
# Environment
# --------------------------------------------------------------------------------------------
def child_env(base: Mapping[str, str] | None = None, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """Environment for a child: UTF-8 forced, pip's version check off (it would go online)."""
    env = dict(os.environ if base is None else base)
    env.update(UTF8_ENV)
    env.setdefault("PIP_DISABLE_PIP_VERSION_CHECK", "1")
    if extra:
        env.update(extra)
    return env


# --------------------------------------------------------------------------------------------
# Decoding
# --------------------------------------------------------------------------------------------
def decode_bytes(raw: bytes, fallbacks: Sequence[str] = ()) -> str:
    """UTF-8 first (we ask every child for it), then each of ``fallbacks``, then UTF-8 with
    replacement characters. Never raises."""
    if not raw:
        return ""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        pass
    for enc in fallbacks:
        try:
            return raw.decode(enc)
        except (UnicodeDecodeError, LookupError):
            continue
    return raw.decode("utf-8", errors="replace")


def locale_fallbacks(fallback: str | None = None) -> tuple[str, ...]:
    """The encodings to try after UTF-8 for a tool's output: ``fallback`` or the locale's
    preferred encoding, then cp949 (Korean Windows tools that ignore ``PYTHONUTF8``)."""
    return (fallback or locale.getpreferredencoding(False) or "utf-8", "cp949")


class LineDecoder:
    """Bytes in any chunking → complete text lines.

    Lines end at ``\\n``, ``\\r\\n`` or a lone ``\\r`` (progress redraws). Splitting happens on
    bytes and each complete line is decoded whole, which is what makes it incremental and
    safe: neither a UTF-8 nor a cp949 multibyte sequence contains a ``\\n``/``\\r`` byte, so a
    character split across two reads is only decoded once its line is complete, and a line
    that is not UTF-8 can still be recognised as a whole and decoded with ``fallback`` (the
    locale's code page, then cp949). ``utf8_only`` (the probes' JSON protocol) skips the
    fallbacks: invalid bytes become replacement characters.

    A line longer than ``max_line`` bytes without an end is passed on in pieces, or with
    ``drop_overlong`` discarded up to its end (a preview is kept in ``dropped``).
    """

    def __init__(self, fallback: str | None = None, max_line: int = DEFAULT_MAX_LINE, *,
                 utf8_only: bool = False, drop_overlong: bool = False) -> None:
        self._buf = bytearray()
        self._fallbacks: tuple[str, ...] = () if utf8_only else locale_fallbacks(fallback)
        self._max = max_line
        self._drop = drop_overlong
        self._dropping = False
        self.dropped: list[str] = []

    def feed(self, data: bytes | bytearray | memoryview) -> list[str]:
        self._buf += bytes(data)
        out: list[str] = []
        while True:
            end, skip = self._line_end()
            if end < 0:
                break
            raw = bytes(self._buf[:end])
            del self._buf[:end + skip]
            if self._dropping:
                self._dropping = False
                continue
            out.append(self.decode(raw))
        if len(self._buf) > self._max:  # a runaway line without an end
            if self._drop:
                if not self._dropping:
                    self.dropped.append(self.decode(bytes(self._buf[:200])))
                self._dropping = True
            else:
                out.append(self.decode(bytes(self._buf)))
            self._buf.clear()
        return out

    def _line_end(self) -> tuple[int, int]:
        """(index, terminator length) of the first complete line end, or (-1, 0)."""
        idx_n = self._buf.find(b"\n")
        idx_r = self._buf.find(b"\r")
        if idx_n < 0 and idx_r < 0:
            return -1, 0
        if idx_r >= 0 and (idx_n < 0 or idx_r < idx_n):
            if idx_r == len(self._buf) - 1:
                return -1, 0  # a \r at the end may be the first half of \r\n: wait for more
            return idx_r, 2 if self._buf[idx_r + 1:idx_r + 2] == b"\n" else 1
        return idx_n, 1

    def flush(self) -> list[str]:
        """End of stream: the last line when it had no line end (none when it was dropped)."""
        dropping, self._dropping = self._dropping, False
        if not self._buf or dropping:
            self._buf.clear()
            return []
        line = bytes(self._buf).rstrip(b"\r")
        self._buf.clear()
        return [self.decode(line)] if line else []

    def decode(self, raw: bytes) -> str:
        return decode_bytes(raw, self._fallbacks)


def parse_json_line(line: str) -> dict[str, Any] | None:
    """One line of a JSON-lines protocol → its object, or None when it is not a JSON object
    (a library's stray print, a half-written line). Never raises."""
    text = line.strip()
    if not text.startswith("{"):
        return None
    try:
        obj = json.loads(text)
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None


class Decoder(Protocol):
    """What turns a stream's bytes into items for a callback: :class:`LineDecoder` (text
    lines) or a protocol parser built on it (the probes' ``ProbeStream``: JSON events)."""

    def feed(self, data: bytes) -> Sequence[Any]: ...

    def flush(self) -> Sequence[Any]: ...


# --------------------------------------------------------------------------------------------
# Request and result
# --------------------------------------------------------------------------------------------
@dataclass
class ProcessSpec:
    """What to run. ``env`` is the child's complete environment (None: this process's);
    ``PYTHONUTF8``/``PYTHONIOENCODING`` are merged into it either way. ``merge_stderr`` sends
    stderr into stdout (one ordered log, as a terminal shows it). ``keep_chars``: how much of
    each stream the result keeps as text (None: all; the end is kept)."""

    argv: list[str]
    env: Mapping[str, str] | None = None
    cwd: str | None = None
    timeout_s: float | None = None
    merge_stderr: bool = False
    keep_chars: int | None = None


@dataclass
class ProcessResult:
    """What a child did. ``returncode`` is None when it never ran or was stopped by a timeout
    or a cancel; ``error`` says why it never ran (``"not found"``, or the OS error's text)."""

    argv: list[str]
    returncode: int | None
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    error: str | None = None
    duration_s: float = 0.0
    cancelled: bool = False
    exit_status: int | None = None  # what the process left when it was stopped (for reports)

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out and not self.cancelled and self.error is None

    @property
    def not_found(self) -> bool:
        return self.error == NOT_FOUND

    @property
    def output_tail(self) -> str:
        return self.stdout


def is_cancelled(cancel: CancelLike) -> bool:
    if stopping():  # Ctrl+C ended the program (wizard.core.base.interrupt): every child stops
        return True
    if cancel is None:
        return False
    if isinstance(cancel, threading.Event):
        return cancel.is_set()
    return bool(cancel())


# --------------------------------------------------------------------------------------------
# Stopping a process tree
# --------------------------------------------------------------------------------------------
def kill_tree(target: int | subprocess.Popen[bytes], grace_s: float = DEFAULT_GRACE_S) -> None:
    """Terminate the process and every process it started (psutil), wait ``grace_s``, kill
    what is left, and on POSIX signal its whole process group (stragglers started after the
    snapshot). ``target`` is a ``Popen`` (reaped through it, so its exit status is kept) or a
    pid held elsewhere. A process already gone is not an error. At most about 2 × ``grace_s``."""
    import psutil  # small, and only needed when something must die

    popen = target if isinstance(target, subprocess.Popen) else None
    pid = popen.pid if popen is not None else int(target)  # type: ignore[arg-type]  # an int here
    procs: list[psutil.Process] = []
    finders: tuple[Callable[[], list[psutil.Process]], ...] = (lambda: [psutil.Process(pid)] if popen is None else [],
                                                    lambda: psutil.Process(pid).children(recursive=True))
    for find in finders:
        try:
            procs += find()
        except psutil.Error:
            pass
    _signal(popen, procs, "terminate")
    deadline = time.monotonic() + grace_s
    alive = _wait(popen, procs, deadline)
    if alive or (popen is not None and popen.poll() is None):
        _signal(popen, alive, "kill")
        _wait(popen, alive, time.monotonic() + grace_s)
    if os.name != "nt":
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass


def _signal(popen: subprocess.Popen[bytes] | None, procs: Sequence[psutil.Process], how: str) -> None:
    """Send terminate or kill to the Popen (when it still runs) and to each psutil process."""
    import psutil

    if popen is not None and popen.poll() is None:
        try:
            getattr(popen, how)()
        except OSError:
            pass  # it ended in between
    for p in procs:
        try:
            getattr(p, how)()
        except psutil.Error:
            pass


def _wait(popen: subprocess.Popen[bytes] | None, procs: Sequence[psutil.Process], deadline: float) -> list[psutil.Process]:
    """Wait until ``deadline`` for the Popen and the processes; the ones still alive."""
    import psutil

    if popen is not None:
        try:
            popen.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
    _gone, alive = psutil.wait_procs(list(procs), timeout=max(0.0, deadline - time.monotonic()))
    return alive


# --------------------------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------------------------
def popen_flags() -> dict[str, Any]:
    """No console window and a new process group on Windows; a new session elsewhere."""
    if os.name == "nt":
        return {"creationflags": getattr(subprocess, "CREATE_NO_WINDOW", 0)
                | getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}
    return {"start_new_session": True}


class _Capture:
    """The end of one stream's text, kept for the result (``keep`` None: everything)."""

    def __init__(self, keep: int | None) -> None:
        self.keep = keep
        self.parts: collections.deque[str] = collections.deque()
        self.size = 0

    def add(self, item: Any) -> None:
        if not isinstance(item, str) or self.keep == 0:
            return
        self.parts.append(item)
        self.size += len(item) + 1
        while self.keep is not None and self.size > self.keep * 2 and len(self.parts) > 1:
            self.size -= len(self.parts.popleft()) + 1

    def joined(self) -> str:
        if not self.parts:
            return ""
        text = "\n".join(self.parts) + "\n"
        return text if self.keep is None else text[-self.keep:]


def _reader(fd: int, name: str, decoder: Decoder, out: queue.Queue[tuple[str, Any]]) -> None:
    """A reader thread: bytes → decoded items → the queue; ``(name, None)`` at the end."""
    try:
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            for item in decoder.feed(chunk):
                out.put((name, item))
        for item in decoder.flush():
            out.put((name, item))
    finally:
        out.put((name, None))


@dataclass
class _Run:
    """One running child and what has come of it, for :func:`run_process`'s loop."""

    spec: ProcessSpec
    proc: subprocess.Popen[bytes]
    items: queue.Queue[tuple[str, Any]]
    callbacks: dict[str, Callable[[Any], None] | None]
    captures: dict[str, _Capture]
    open_streams: int
    start: float
    cancelled: bool = False
    timed_out: bool = False
    aborted: bool = False  # a callback raised: nothing more is delivered
    exited_at: float | None = None

    @property
    def stopped(self) -> bool:
        return self.cancelled or self.timed_out or self.aborted

    def deliver(self, name: str, item: Any) -> None:
        self.captures[name].add(item)
        callback = self.callbacks[name]
        if callback is not None:
            callback(item)

    def should_stop(self, cancel: CancelLike) -> bool:
        if is_cancelled(cancel):
            self.cancelled = True
        elif self.spec.timeout_s is not None and time.monotonic() - self.start > self.spec.timeout_s:
            self.timed_out = True
        return self.cancelled or self.timed_out

    def finished(self) -> bool:
        """The child exited and its pipes closed (or a grandchild kept them too long)."""
        if self.proc.poll() is None:
            return False
        if self.exited_at is None:
            self.exited_at = time.monotonic()
        return self.open_streams == 0 or time.monotonic() - self.exited_at > LINGER_S


def run_process(spec: ProcessSpec, on_stdout: Callable[[Any], None] | None = None,
                on_stderr: Callable[[Any], None] | None = None, cancel: CancelLike = None, *,
                stdout_decoder: Decoder | None = None, stderr_decoder: Decoder | None = None,
                grace_s: float = DEFAULT_GRACE_S, poll_s: float = 0.05) -> ProcessResult:
    """Run ``spec`` to its end, a timeout or a cancel; see the module docstring.

    ``on_stdout``/``on_stderr`` get each decoded item (a text line from the default
    :class:`LineDecoder`, or what ``stdout_decoder`` makes), on this thread, in order. With
    ``merge_stderr`` everything arrives through ``on_stdout``. Items that arrive after a stop
    are kept in the result but not delivered: the caller asked to stop.
    """
    argv = [str(a) for a in spec.argv]
    start = time.monotonic()
    env = dict(os.environ if spec.env is None else spec.env)
    env.update(UTF8_ENV)
    if stopping():  # the program is ending: start nothing new
        return ProcessResult(argv, None, cancelled=True)
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT if spec.merge_stderr else subprocess.PIPE,
                                env=env, cwd=spec.cwd, **popen_flags())
    except FileNotFoundError:
        return ProcessResult(argv, None, error=NOT_FOUND, duration_s=time.monotonic() - start)
    except OSError as exc:  # not executable, a bad format (a 32-bit/ARM exe), permission, a bad cwd
        return ProcessResult(argv, None, error=str(exc) or type(exc).__name__, duration_s=time.monotonic() - start)
    run = _Run(spec, proc, queue.Queue(), {"stdout": on_stdout, "stderr": on_stderr},
               {"stdout": _Capture(spec.keep_chars), "stderr": _Capture(spec.keep_chars)}, 0, start)
    threads = []
    for name, pipe, decoder in (("stdout", proc.stdout, stdout_decoder), ("stderr", proc.stderr, stderr_decoder)):
        if pipe is None:
            continue
        thread = threading.Thread(target=_reader, args=(pipe.fileno(), name, decoder or LineDecoder(), run.items),
                                  name=f"gsw-child-{name}", daemon=True)
        threads.append(thread)
        run.open_streams += 1
        thread.start()
    try:
        _pump(run, cancel, grace_s, poll_s)
    except BaseException:
        run.aborted = True
        kill_tree(proc, grace_s)
        raise
    finally:
        _close(run, threads)
    return ProcessResult(argv, None if run.stopped else proc.returncode, run.captures["stdout"].joined(),
                         run.captures["stderr"].joined(), run.timed_out, None, time.monotonic() - start,
                         run.cancelled, proc.returncode)


def _pump(run: _Run, cancel: CancelLike, grace_s: float, poll_s: float) -> None:
    """The loop on the caller's thread: deliver items, watch the clock and the token."""
    while not run.finished():
        if run.open_streams == 0:  # the pipes are closed: wait for the exit itself
            try:
                run.proc.wait(timeout=poll_s)
            except subprocess.TimeoutExpired:
                if run.should_stop(cancel):
                    kill_tree(run.proc, grace_s)
                    return
            continue
        try:
            name, item = run.items.get(timeout=poll_s)
        except queue.Empty:
            if run.should_stop(cancel):
                kill_tree(run.proc, grace_s)
                return
            continue
        if item is None:
            run.open_streams -= 1
            continue
        run.deliver(name, item)
        if run.should_stop(cancel):
            kill_tree(run.proc, grace_s)
            return


def _close(run: _Run, threads: Sequence[threading.Thread]) -> None:
    """Reap the child, let the readers drain, keep what they queued after a stop."""
    try:
        run.proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        kill_tree(run.proc, 0.5)
    for thread in threads:
        thread.join(timeout=2)
    while True:
        try:
            name, item = run.items.get_nowait()
        except queue.Empty:
            break
        if item is not None:
            if run.stopped:
                run.captures[name].add(item)
            else:
                run.deliver(name, item)
    if any(thread.is_alive() for thread in threads):
        return  # a grandchild still holds a pipe: its reader thread (a daemon) keeps the fd
    for pipe in (run.proc.stdout, run.proc.stderr):
        if pipe is not None:
            try:
                pipe.close()
            except OSError:
                pass


__all__ = [
    "CancelLike", "DEFAULT_GRACE_S", "Decoder", "LineDecoder", "NOT_FOUND", "ProcessResult", "ProcessSpec",
    "UTF8_ENV", "child_env", "decode_bytes", "is_cancelled", "kill_tree", "locale_fallbacks", "parse_json_line",
    "popen_flags", "run_process",
]
