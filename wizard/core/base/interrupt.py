"""Stop everything this process started, once the student pressed Ctrl+C.

Why this exists: every child runs in its own session (see :mod:`wizard.core.base.process`), so a
Ctrl+C in the terminal reaches the wizard and never the child. That protects an install half-way
through writing an environment, but a command that reads the machine (``doctor``, ``vram``) asks
nvidia-smi on worker threads: a hung nvidia-smi then outlived the wizard (an orphan), or the
thread pool waited for its 15 s timeout before the Ctrl+C took effect. :func:`stop_children`
kills the children of this process and makes every later :func:`~wizard.core.base.process.run_process`
call stop at once, so the worker threads come back promptly and start nothing new.

It is one-way on purpose: it is called when the program is ending, and a use case that handles
Ctrl+C itself (``install``, ``verify``) never calls it.

Waiting on the main thread: the kernel may hand a process's SIGINT to *any* of its threads. Python
then only sets a flag; the main thread runs the handler (raising KeyboardInterrupt) the next time it
executes bytecode. A main thread blocked in ``future.result()`` or ``thread.join()`` without a timeout
does not wake for a signal that another thread received, so about one Ctrl+C in fifteen waited for the
hung nvidia-smi's 15 s timeout. :func:`join` waits in short slices instead,
so the main thread sees the Ctrl+C within :data:`WAKE_S` whichever thread the kernel chose.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import psutil

STOP_GRACE_S = 1.0  # terminate → this long → kill: a hung nvidia-smi dies on the first signal
WAKE_S = 0.1  # how often a waiting main thread looks for a Ctrl+C another thread received

_stopping = threading.Event()


def stopping() -> bool:
    """True once :func:`stop_children` was called: no new child should run."""
    return _stopping.is_set()


def stop_children(grace_s: float = STOP_GRACE_S) -> int:
    """Mark the process as stopping and kill every process it started, grandchildren included
    (SIGTERM, then SIGKILL for what is left after ``grace_s``); how many there were.

    Safe to call twice, from any thread; a child already gone is not an error. A second Ctrl+C
    (impatience, or a tool that signals the whole process group) is ignored from here on: the
    stop is already under way, and a KeyboardInterrupt inside it would leave children behind."""
    _stopping.set()
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    import psutil  # small, and only needed when something must die

    try:
        children = psutil.Process(os.getpid()).children(recursive=True)
    except psutil.Error:
        return 0
    for child in children:
        _signal(child, "terminate")
    # The program is ending: whatever is reaped here, its runner reports as cancelled anyway. A zombie
    # is already dead (one handed to an init that does not reap would otherwise hold the whole grace).
    _gone, alive = psutil.wait_procs([c for c in children if not _zombie(c)], timeout=grace_s)
    for child in alive:
        if not _zombie(child):
            _signal(child, "kill")
    return len(children)


def join(thread: threading.Thread, timeout: float | None = None) -> None:
    """``thread.join(timeout)`` in short slices, so that a Ctrl+C interrupts it at once on the main thread."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while thread.is_alive():
        left = WAKE_S if deadline is None else min(WAKE_S, deadline - time.monotonic())
        if left <= 0:
            return
        thread.join(left)


def _zombie(proc: psutil.Process) -> bool:
    import psutil

    try:
        return bool(proc.status() == psutil.STATUS_ZOMBIE)
    except psutil.Error:
        return True  # gone


def _signal(proc: object, how: str) -> None:
    import psutil

    try:
        getattr(proc, how)()
    except psutil.Error:
        pass  # it ended in between


__all__ = ["STOP_GRACE_S", "WAKE_S", "join", "stopping", "stop_children"]
