"""How much a folder takes, measured without surprises: a bounded walk.

Why its own module: a pip cache can hold 100 000 files and an environment a symlink loop or a
folder the student cannot read. So the walk uses :func:`os.scandir` with an explicit stack
(no recursion limit), never follows a symbolic link (a link is counted as the link itself, and
a venv's ``lib64 -> lib`` is not counted twice), counts the entries it could not read instead of
raising, stops after ``max_entries`` (saying it stopped, so a size is never presented as
complete when it is not) and can be cancelled between entries.
"""

from __future__ import annotations

import os
import threading
from dataclasses import asdict, dataclass
from typing import Any

DEFAULT_MAX_ENTRIES = 2_000_000


@dataclass
class Usage:
    """What one folder (or file) takes. ``bytes`` is the sum of the files' sizes (apparent
    size: what deleting them gives back, near enough); ``errors`` entries could not be read;
    ``truncated``: the walk stopped at its bound or a cancel, so ``bytes`` is a lower bound."""

    path: str
    exists: bool
    bytes: int = 0
    files: int = 0
    dirs: int = 0
    links: int = 0
    errors: int = 0
    truncated: bool = False

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def measure(path: str | os.PathLike[str], max_entries: int = DEFAULT_MAX_ENTRIES,
            cancel: threading.Event | None = None) -> Usage:
    """The size of ``path`` and everything under it (see the module docstring)."""
    root = os.fspath(path)
    usage = Usage(root, exists=os.path.lexists(root))
    if not usage.exists:
        return usage
    try:
        st = os.lstat(root)
    except OSError:
        usage.errors += 1
        return usage
    if not os.path.isdir(root) or os.path.islink(root):
        usage.files, usage.bytes = 1, st.st_size
        return usage
    stack = [root]
    seen = 0
    while stack:
        folder = stack.pop()
        usage.dirs += 1
        try:
            with os.scandir(folder) as it:
                for entry in it:
                    seen += 1
                    if seen > max_entries or (cancel is not None and cancel.is_set()):
                        usage.truncated = True
                        return usage
                    _add(entry, usage, stack)
        except OSError:
            usage.errors += 1
    return usage


def _add(entry: os.DirEntry, usage: Usage, stack: list[str]) -> None:
    try:
        if entry.is_symlink():
            usage.links += 1
            usage.bytes += entry.stat(follow_symlinks=False).st_size
        elif entry.is_dir(follow_symlinks=False):
            stack.append(entry.path)
        else:
            usage.files += 1
            usage.bytes += entry.stat(follow_symlinks=False).st_size
    except OSError:
        usage.errors += 1


def human_size(n_bytes: int | None) -> str:
    """1536 → '1.5 KiB' (binary units, as the OS's own tools on Windows show sizes)."""
    if n_bytes is None:
        return "?"
    value = float(n_bytes)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(value) < 1024 or unit == "TiB":
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} TiB"


__all__ = ["Usage", "measure", "human_size", "DEFAULT_MAX_ENTRIES"]
