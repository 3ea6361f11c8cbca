"""Run Python work off the GUI thread; results come back to the GUI thread through signals.

Why a Python thread pool and not QRunnable: a QRunnable subclass written in Python, with
auto-delete on, is deleted by Qt's pool while Python may still hold it, which crashed the
interpreter ("deallocating None") under the live plot's once-a-second sampling. Here the
work runs on ``concurrent.futures`` threads and only a signal crosses over: the signals
object is created on the GUI thread, so emitting from a worker is a queued call, and the
task stays referenced in ``_ACTIVE`` until its result has been delivered and the emission
is over (dropping it inside its own emission destroyed the sender mid-signal: a crash).
"""

from __future__ import annotations

import threading
import traceback
from typing import TYPE_CHECKING, Any, Callable

import shiboken6
from PySide6.QtCore import QObject, QTimer, Signal, SignalInstance

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

_POOL: "ThreadPoolExecutor | None" = None  # made by the first submit: concurrent.futures (and
_POOL_LOCK = threading.Lock()  # logging under it) is not on the way to the first paint


def _pool() -> "ThreadPoolExecutor":
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            from concurrent.futures import ThreadPoolExecutor

            _POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="wizard-worker")
        return _POOL
_ACTIVE: set["Task"] = set()


class Task(QObject):
    """``fn(*args)`` on a worker thread; ``done(result)`` or ``failed(text)`` on the GUI thread."""

    done = Signal(object)
    failed = Signal(str)

    def __init__(self, fn: Callable[..., Any], *args: Any) -> None:
        super().__init__()
        self.fn = fn
        self.args = args

    def _run(self) -> None:  # worker thread
        try:
            result = self.fn(*self.args)
        except Exception as exc:  # noqa: BLE001 - shown to the user with its type and text
            self.failed.emit(f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=3)}")
            return
        self.done.emit(result)

    def _release(self, _value: object = None) -> None:  # GUI thread, the last slot
        # Not now: this runs inside the signal's emission, and dropping the last reference
        # here would destroy the sender mid-emit (that corrupted memory). Next loop turn.
        QTimer.singleShot(0, lambda: _ACTIVE.discard(self))


def submit(fn: Callable[..., Any], *args: Any, on_done: Callable[[Any], None] | None = None,
           on_failed: Callable[[str], object] | None = None) -> Task:
    task = Task(fn, *args)
    if on_done:
        task.done.connect(on_done)
    if on_failed:
        task.failed.connect(on_failed)
    task.done.connect(task._release)  # connected last, so it runs after the caller's slots
    task.failed.connect(task._release)
    _ACTIVE.add(task)
    _pool().submit(task._run)
    return task


class WorkerAdapter(QObject):
    """The base of the Qt adapters over the core's runners (``StepRunner``, ``ProcessRunner``,
    ``ProbeProcess``): a cancel token the worker honours, a running flag, guarded emission.
    The GUI thread never waits: :meth:`cancel` only sets the token."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.cancel_event = threading.Event()
        self.running = False
        self._task: Task | None = None

    def _emit(self, signal: SignalInstance, *values: Any) -> None:
        """Emit from the worker unless Qt has deleted this object (the window closed while
        the worker finished): the core's own record is kept, the signal goes nowhere."""
        if shiboken6.isValid(self):
            signal.emit(*values)

    def cancel(self) -> None:
        """Ask the worker to stop (the child and everything it started); the end follows as usual."""
        if self.running:
            self.cancel_event.set()
