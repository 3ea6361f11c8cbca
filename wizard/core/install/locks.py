"""One install at a time: a lock per environment and a lock per file of the download cache.

Why: two installs into the same environment (a second window, the CLI while the window runs,
a double click) used to run side by side. Both wrote the same partial download, so the first
fetched the file twice and the second crashed on a partial file the first had just moved away;
both wrote the same state file, which then said "running" for ever. Now:

* an install holds its environment's lock (:class:`EnvLock`) for as long as its steps run. A
  second one is refused at once, with a sentence naming the environment and the process that
  holds it (:class:`InstallBusy`); it changes nothing. The lock is an OS lock (``filelock``):
  a killed process lets go of it, so a crash never leaves an environment locked;
* a file of the download cache is fetched under its own lock (:func:`cache_file_lock`): two
  installs into *different* environments that share the cache wait for each other per file,
  and the second then finds the file finished in the cache (0 bytes fetched twice);
* "is anyone installing into this environment?" (:func:`env_busy`) tells a state file that
  says "running" from a run that died (SIGKILL, power cut, a full disk that would not even take
  the state file) from one that is really running.

``filelock`` is imported on first use: the window's start-up does not pay for it.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from wizard.core.base.files import write_atomic
from wizard.core.base.i18n import Message, msg

LOCK_WAIT_S = 2.0  # a probe (env_busy) holds the lock for microseconds: never mistake it for an install
POLL_S = 0.1  # how often a wait for a cache file's lock looks at the cancel flag


class InstallBusy(Exception):
    """Another install holds this environment's lock. ``message`` says so, in words."""

    def __init__(self, message: Message) -> None:
        super().__init__(message.text("en"))
        self.message = message


def _file_lock(path: Path) -> Any:
    import filelock

    path.parent.mkdir(parents=True, exist_ok=True)
    return filelock.FileLock(str(path), thread_local=False)


@dataclass
class EnvLock:
    """The lock of one environment (``lock_path``) and the note of who holds it (``owner_path``:
    pid and start time, shown to a second install)."""

    lock_path: Path
    env_path: str
    owner_path: Path = field(init=False)
    _lock: Any = field(init=False, default=None, repr=False)

    def __post_init__(self) -> None:
        self.owner_path = self.lock_path.with_suffix(".owner.json")

    def acquire(self, wait_s: float = LOCK_WAIT_S) -> None:
        """Take the lock, or raise :class:`InstallBusy` naming the holder. An OSError (the state
        folder cannot be written) propagates: the caller reports it like any other."""
        import filelock

        self._lock = _file_lock(self.lock_path)
        try:
            self._lock.acquire(timeout=wait_s)
        except filelock.Timeout:
            self._lock = None
            raise InstallBusy(msg("install.error.busy", path=self.env_path, owner=self._owner())) from None
        note = {"pid": os.getpid(), "since": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                "program": os.path.basename(sys.argv[0] if sys.argv else "")}
        try:
            write_atomic(self.owner_path, json.dumps(note), suffix=".tmp")
        except OSError:
            pass  # only a courtesy for the second install's message (a full disk must not stop this one)

    def release(self) -> None:
        if self._lock is None:
            return
        try:
            self.owner_path.unlink(missing_ok=True)
        except OSError:
            pass
        self._lock.release()
        self._lock = None

    def _owner(self) -> Message:
        try:
            with open(self.owner_path, encoding="utf-8") as fh:
                note = json.load(fh)
            return msg("install.error.busy_owner", pid=int(note["pid"]), since=str(note["since"]))
        except (OSError, ValueError, KeyError, TypeError):
            return msg("install.error.busy_unknown")


def env_busy(lock_path: Path) -> bool:
    """True while some install holds the lock at ``lock_path`` (this process's own included)."""
    import filelock

    if not lock_path.exists():
        return False
    try:
        lock = _file_lock(lock_path)
        lock.acquire(timeout=0)
    except filelock.Timeout:
        return True
    except OSError:
        return False  # a folder we cannot write: nobody installs through it either
    lock.release()
    return False


def cache_file_lock(path: Path) -> Any:
    """The lock of one cache file (a ``filelock.FileLock`` at ``path``)."""
    return _file_lock(path)


def acquire_waiting(lock: Any, stop: threading.Event | Callable[[], bool],
                    on_wait: Callable[[], None] | None = None) -> bool:
    """Take ``lock``, waiting as long as another process holds it, but no longer than ``stop``
    allows (checked every :data:`POLL_S`). ``on_wait`` is called once, when the wait begins.
    False: stopped before the lock was had."""
    import filelock

    stopped = stop.is_set if isinstance(stop, threading.Event) else stop
    told = False
    while not stopped():
        try:
            lock.acquire(timeout=POLL_S)
            return True
        except filelock.Timeout:
            if not told and on_wait is not None:
                on_wait()
            told = True
    return False


__all__ = ["EnvLock", "InstallBusy", "LOCK_WAIT_S", "acquire_waiting", "cache_file_lock", "env_busy"]
