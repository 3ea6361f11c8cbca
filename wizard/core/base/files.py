"""Atomic file writes: the one way the wizard replaces a file it owns.

Why one helper: a report export, a history snapshot, the install-state file, the download cache
index and the wheel-index cache are all read back later, by this run or the next one. A power cut
or a crash in the middle of a plain ``open(path, "w")`` leaves half a file that the next run must
treat as corrupt. Writing to a temporary file in the same folder (so the rename never crosses a
file system), flushing it to disk and then :func:`os.replace`-ing it over the target means a
reader always sees the old file or the new one, never a mix.

On Windows a virus scanner or the search indexer often holds a file it has just seen for a few
milliseconds, so a replace right after a write can fail with ``PermissionError``; the rename is
retried briefly before giving up.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator

log = logging.getLogger(__name__)

REPLACE_RETRIES = 10  # Windows only: ~0.5 s in all, enough for a scanner to let go of the file
REPLACE_RETRY_DELAY_S = 0.05


def replace_file(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
    """:func:`os.replace`, retried briefly on Windows when another process holds ``dst`` open."""
    attempts = REPLACE_RETRIES if sys.platform == "win32" else 1
    for attempt in range(attempts):
        try:
            os.replace(src, dst)
            return
        except PermissionError:
            if attempt == attempts - 1:
                raise
            time.sleep(REPLACE_RETRY_DELAY_S)


def fsync_dir(folder: str | os.PathLike[str]) -> None:
    """Make a rename in ``folder`` durable where the OS allows it (POSIX); a no-op on Windows,
    which cannot open a directory for fsync."""
    if sys.platform == "win32":
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError as exc:  # a folder we may write into but not open (rare): the data itself is synced
        log.debug("cannot open %s to sync it: %s", folder, exc)
        return
    try:
        os.fsync(fd)
    except OSError as exc:  # network shares refuse fsync on a directory; the file itself is synced
        log.debug("cannot sync the folder %s: %s", folder, exc)
    finally:
        os.close(fd)


def _folder_of(target: Path) -> Path:
    return target.parent if str(target.parent) else Path(".")


def created_mode() -> int:
    """The mode a plain ``open()`` gives a new file: 0o666 less the umask. Read from the process's
    status where the OS shows it, never by setting the umask (process-wide: a thread creating a
    file meanwhile would get it); 0o644 elsewhere. A temporary file is made 0o600, which is right
    for private data and wrong for a file meant to be handed on."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return 0o666 & ~int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o644


def _share(name: str | os.PathLike[str]) -> None:
    if os.name != "nt":  # Windows: no mode bits to speak of
        os.chmod(name, created_mode())


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str], *, prefix: str = ".tmp-", suffix: str | None = None,
                mkdir: bool = False, shared: bool = False) -> Iterator[Path]:
    """A temporary path next to ``path`` for a writer that needs a file name (Qt's PDF writer);
    when the block ends without an exception the file replaces ``path``, otherwise it is removed.

    The writer must have closed the file before the block ends. ``shared``: the file gets the
    mode a plain ``open()`` would give it (readable by others as the umask allows), not 0o600.
    """
    target = Path(path)
    folder = _folder_of(target)
    if mkdir:
        folder.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=prefix, suffix=target.suffix if suffix is None else suffix, dir=folder)
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        if shared:
            _share(tmp)
        replace_file(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(folder)


def write_atomic(path: str | os.PathLike[str], data: bytes | str, *, encoding: str = "utf-8",
                 prefix: str = ".tmp-", suffix: str | None = None, mkdir: bool = False,
                 shared: bool = False) -> Path:
    """Write ``data`` (text is encoded with ``encoding``) to ``path`` atomically and durably.

    ``mkdir`` creates the folder first; ``shared``: the mode a plain ``open()`` would give (a
    report handed to a teaching assistant), not the temporary file's 0o600. On any error (disk full, cancelled) the temporary file is
    removed and the old ``path`` is left as it was; the error propagates. Returns the path.
    """
    payload = data.encode(encoding) if isinstance(data, str) else data
    target = Path(path)
    folder = _folder_of(target)
    if mkdir:
        folder.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=prefix, suffix=target.suffix if suffix is None else suffix, dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        if shared:
            _share(name)
        replace_file(name, target)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    fsync_dir(folder)
    return target


__all__ = ["write_atomic", "atomic_path", "replace_file", "fsync_dir", "created_mode"]
