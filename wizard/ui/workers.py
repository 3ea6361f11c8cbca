"""Run Python work off the GUI thread (QThreadPool), results back through signals.

Why not QThread subclasses: the work here is "call this function once"; a QRunnable on the
global pool is the lightest way, as superqt's workers do. The signals object is created on
the GUI thread, so its queued connections deliver results there.
"""

from __future__ import annotations

import traceback
from typing import Any, Callable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal


class TaskSignals(QObject):
    done = Signal(object)
    failed = Signal(str)


class Task(QRunnable):
    """``fn(*args)`` on a pool thread; ``signals.done(result)`` or ``signals.failed(text)``."""

    def __init__(self, fn: Callable[..., Any], *args: Any) -> None:
        super().__init__()
        self.fn = fn
        self.args = args
        self.signals = TaskSignals()
        self.setAutoDelete(True)

    def run(self) -> None:  # pool thread
        try:
            result = self.fn(*self.args)
        except Exception as exc:  # noqa: BLE001 - shown to the user with its type and text
            self.signals.failed.emit(f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=3)}")
            return
        self.signals.done.emit(result)


def submit(fn: Callable[..., Any], *args: Any, on_done: Callable[[Any], None] | None = None,
           on_failed: Callable[[str], None] | None = None) -> Task:
    task = Task(fn, *args)
    if on_done:
        task.signals.done.connect(on_done)
    if on_failed:
        task.signals.failed.connect(on_failed)
    QThreadPool.globalInstance().start(task)
    return task
