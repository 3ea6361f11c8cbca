"""Verify inside a Jupyter kernel: the same probe, the same checklist, where the notebook runs.

Why not just run the probe with the kernel's ``argv[0]``: a kernel spec also carries its own
environment variables (``env`` in kernel.json), and ipykernel's start-up is what a notebook
goes through. So the kernel is started from its spec with jupyter_client's ``KernelManager``,
the verification probe's source (``wizard/probe/verify.py``) is executed in it, and its stdout
-- the probe's JSON lines, arriving as IOPub ``stream`` messages -- is fed to the same
:class:`~wizard.core.verify.probe_runner.ProbeStream` the terminal run uses. The result is a
:class:`~wizard.core.verify.checklist.VerifyReport` like any other.

Inside the kernel ``sys.stdout`` has no real file descriptor of the notebook's, so the probe's
channel is given a stdout whose ``fileno()`` says so: the channel then writes its lines to that
stream (see ``Channel`` in ``wizard/probe/_common.py``) instead of duplicating the kernel
process's own descriptor 1, which goes to whoever started the kernel, not to the notebook.

The run is bounded by ``timeout`` (start-up included) and the kernel is always shut down.
"""

from __future__ import annotations

import logging
import os
import queue
import re
import tempfile
import time
from typing import TYPE_CHECKING, Any, Callable

from wizard.core.base.process import CancelLike, is_cancelled
from wizard.core.base.resources import probe_path
from wizard.core.verify.checklist import VerifyReport, verify_args
from wizard.core.verify.probe_runner import (
    STDERR_TAIL_CHARS,
    Event,
    ProbeStream,
    outcome_from_stream,
    probe_environment,
)

if TYPE_CHECKING:
    from wizard.core.machine.models import Detection

log = logging.getLogger(__name__)

START_TIMEOUT_S = 60.0
READY_STEP_S = 2.0  # how long one wait for the kernel's first answer lasts before a cancel is looked at
POLL_S = 0.2
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")

# Run in the kernel: the probe's source with a stdout that has no descriptor, its main() called
# with the probe's arguments, the kernel's own streams and hooks put back afterwards.
KERNEL_CODE = """\
def __gsw_verify(source, path, argv):
    import io, sys, threading

    class _Out(io.TextIOBase):
        def __init__(self, stream):
            self._stream = stream
        def writable(self):
            return True
        def write(self, text):
            return self._stream.write(text)
        def flush(self):
            self._stream.flush()
        def fileno(self):
            raise io.UnsupportedOperation("fileno")

    saved = (sys.stdout, sys.excepthook, getattr(threading, "excepthook", None))
    sys.stdout = _Out(saved[0])
    try:
        scope = {"__name__": "__gsw_verify__", "__file__": path}
        exec(compile(source, path, "exec"), scope)
        return scope["main"](argv)
    finally:
        sys.stdout.flush()
        sys.stdout, sys.excepthook = saved[0], saved[1]
        if saved[2] is not None:
            threading.excepthook = saved[2]

__gsw_rc = __gsw_verify(%(source)r, %(path)r, %(argv)r)
"""


def kernel_code(args: list[str]) -> str:
    path = probe_path("verify.py")
    return KERNEL_CODE % {"source": path.read_text(encoding="utf-8"), "path": str(path), "argv": list(args)}


class KernelStartError(RuntimeError):
    """The kernel could not be started (no such kernel, its interpreter is gone, it died)."""


def jupyter_client_missing() -> str | None:
    """None when jupyter_client can be imported here; else why not (a wizard installed without
    its dependencies: listing still works from the folders, a kernel cannot be started)."""
    try:
        import jupyter_client  # noqa: F401
    except ImportError as exc:
        return str(exc)
    return None


class KernelStartCancelled(KernelStartError):
    """The caller cancelled while the kernel was starting (it has been stopped)."""


class KernelStartTimeout(KernelStartError):
    """The kernel gave no answer within the time allowed (it has been stopped)."""


CREATE_NO_WINDOW = 0x08000000  # subprocess.CREATE_NO_WINDOW, which only Windows' subprocess defines


def kernel_popen_flags(os_name: str = os.name) -> dict[str, int]:
    """Extra Popen arguments for the kernel process: on Windows, no console window.

    jupyter_client adds CREATE_NO_WINDOW only when the parent's ``sys.executable`` ends with
    ``pythonw.exe``; the frozen windowed wizard is ``gpu-setup-wizard.exe``, so without this the
    kernel's console ``python.exe`` opened a console window of its own for as long as it ran.
    """
    return {"creationflags": CREATE_NO_WINDOW} if os_name == "nt" else {}


def _start(kernel_name: str, start_timeout: float, stderr_file: Any, cancel: CancelLike = None) -> tuple[Any, Any]:
    """A started kernel and its client, ready for ``execute``; the wait for the kernel's first
    answer is cut in short steps, so a cancel (the dialog closed) is seen within seconds."""
    try:
        from jupyter_client.kernelspec import NoSuchKernel
        from jupyter_client.manager import KernelManager
    except ImportError as exc:
        raise KernelStartError(f"jupyter_client is not installed: {exc}") from exc

    km = KernelManager(kernel_name=kernel_name)
    try:
        km.start_kernel(env=probe_environment(), stderr=stderr_file, stdout=stderr_file, **kernel_popen_flags())
    except NoSuchKernel as exc:
        raise KernelStartError(f"no such kernel: {kernel_name}") from exc
    except (OSError, RuntimeError, ValueError) as exc:
        raise KernelStartError(f"{type(exc).__name__}: {exc}") from exc
    kc = km.client()
    kc.start_channels()
    deadline = time.monotonic() + start_timeout
    while True:
        try:
            kc.wait_for_ready(timeout=max(0.5, min(READY_STEP_S, deadline - time.monotonic())))
            return km, kc
        except RuntimeError as exc:  # no answer in this step, or the kernel died while starting
            if is_cancelled(cancel):
                _stop(km, kc)
                raise KernelStartCancelled("cancelled while the kernel started") from exc
            if not km.is_alive():
                _stop(km, kc)
                raise KernelStartError(str(exc)) from exc
            if time.monotonic() >= deadline:
                _stop(km, kc)
                raise KernelStartTimeout(str(exc)) from exc


def _stop(km: Any, kc: Any) -> None:
    """Close the channels and kill the kernel, whatever state it is in. It is the ``finally``
    of every run: an error here is logged, not raised, so it cannot hide the run's result."""
    try:
        kc.stop_channels()
    except Exception as exc:  # noqa: BLE001 - sockets of a dead kernel; the kernel is stopped next
        log.debug("closing the kernel's channels: %s", exc)
    try:
        km.shutdown_kernel(now=True)
    except Exception as exc:  # noqa: BLE001 - a kernel already gone; nothing is left to stop
        log.warning("shutting the kernel down: %s", exc)


def run_verify_in_kernel(kernel_name: str, detection: Detection | None = None, *, timeout: float = 300.0,
                         on_event: Callable[[Event], None] | None = None, cancel: CancelLike = None,
                         skip: tuple[str, ...] = (), start_timeout: float = START_TIMEOUT_S,
                         interpreter: str | None = None) -> VerifyReport:
    """Start ``kernel_name``, run the verification probe in it, shut it down: the checklist.
    Never raises for the kernel's sake; a kernel that cannot start, crashes or times out is
    the report's ``probe`` check, as with a terminal run."""
    start = time.monotonic()
    argv = [f"kernel:{kernel_name}"]
    stream = ProbeStream()
    stderr: list[str] = []
    state: dict[str, Any] = {"timed_out": False, "cancelled": False, "error": None, "rc": None}
    with tempfile.TemporaryFile(mode="w+b") as kernel_log:
        try:
            km, kc = _start(kernel_name, min(start_timeout, timeout), kernel_log, cancel)
        except KernelStartCancelled:
            state["cancelled"] = True
        except KernelStartTimeout as exc:
            state["timed_out"] = True
            stderr.append(f"{exc}\n")
        except KernelStartError as exc:
            state["error"] = str(exc)
        else:
            try:
                argv = list(km.kernel_spec.argv) or argv
                _execute(kc, kernel_code(verify_args(skip)), stream, stderr, state, on_event, cancel,
                         start + timeout)
            finally:
                _stop(km, kc)
        kernel_log.seek(0)
        log_text = kernel_log.read()[-STDERR_TAIL_CHARS:].decode("utf-8", "replace")
    if log_text.strip():
        stderr.append(log_text)
    outcome = outcome_from_stream(argv, stream, state["rc"], "".join(stderr), timed_out=state["timed_out"],
                                  cancelled=state["cancelled"], error=state["error"],
                                  duration_s=time.monotonic() - start)
    report = VerifyReport.from_outcome(outcome, detection, interpreter or (argv[0] if argv else None))
    return report


def _execute(kc: Any, code: str, stream: ProbeStream, stderr: list[str], state: dict[str, Any],
             on_event: Callable[[Event], None] | None, cancel: CancelLike, deadline: float) -> None:
    """Send ``code``, feed its stdout to ``stream`` until the kernel is idle again, then read
    the reply's exit status (``__gsw_rc``)."""
    msg_id = kc.execute(code, store_history=False, allow_stdin=False, user_expressions={"rc": "__gsw_rc"})
    while True:
        if is_cancelled(cancel):
            state["cancelled"] = True
            return
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            state["timed_out"] = True
            return
        try:
            msg = kc.get_iopub_msg(timeout=min(POLL_S, remaining))
        except queue.Empty:
            continue
        if msg.get("parent_header", {}).get("msg_id") != msg_id:
            continue
        kind, content = msg.get("msg_type"), msg.get("content", {})
        if kind == "stream" and content.get("name") == "stdout":
            for event in stream.feed(content.get("text", "")):
                if on_event is not None:
                    on_event(event)
        elif kind == "stream":
            stderr.append(content.get("text", ""))
        elif kind == "error":
            stderr.append(ANSI.sub("", "\n".join(content.get("traceback") or [])) + "\n")
        elif kind == "status" and content.get("execution_state") == "idle":
            break
    _read_reply(kc, msg_id, state, deadline)


def _read_reply(kc: Any, msg_id: str, state: dict[str, Any], deadline: float) -> None:
    while True:
        remaining = max(1.0, deadline - time.monotonic())
        try:
            reply = kc.get_shell_msg(timeout=min(remaining, 10.0))
        except queue.Empty:
            state["rc"] = 1
            return
        if reply.get("parent_header", {}).get("msg_id") != msg_id:
            continue
        content = reply.get("content", {})
        if content.get("status") != "ok":
            state["rc"] = 1
            return
        rc = (content.get("user_expressions") or {}).get("rc") or {}
        text = (rc.get("data") or {}).get("text/plain", "") if rc.get("status") == "ok" else ""
        state["rc"] = int(text) if text.strip().lstrip("-").isdigit() else 1
        return


__all__ = ["run_verify_in_kernel", "kernel_code", "KernelStartError", "KERNEL_CODE", "jupyter_client_missing"]
