"""Paths from the command line that no file system can hold, refused before anything runs.

A path past the system's limits does not fail where it is typed: ``python -m venv`` gets half
way, then ensurepip dies with a raw ``CalledProcessError`` (issue 15), or pip fails on the
deepest file of torch. So the limits are checked at the boundary, with the numbers in the
message and only the start of the path shown (repeating 4,000 characters helps nobody).
"""

from __future__ import annotations

import os
import sys

NAME_MAX_BYTES = 255  # one folder or file name: ext4, APFS, NTFS (in UTF-16 units, close enough)
PATH_MAX_BYTES = 4095  # a whole path on Linux (PATH_MAX 4096 with its NUL)
MACOS_PATH_MAX_BYTES = 1023  # macOS: PATH_MAX 1024
ENV_ROOM_BYTES = 300  # what an environment adds below its folder: lib/python3.x/site-packages/torch/…
SHOWN_CHARS = 60


def shown(path: str) -> str:
    """The start of a long path, enough to recognise it."""
    return path if len(path) <= SHOWN_CHARS else path[:SHOWN_CHARS] + "…"


def path_problem(path: str, room: int = 0) -> tuple[str, dict[str, object]] | None:
    """(catalogue key, its parameters) when ``path`` cannot exist (``room``: bytes that files
    inside it will add), else None."""
    limit = MACOS_PATH_MAX_BYTES if sys.platform == "darwin" else PATH_MAX_BYTES
    raw = os.fsencode(os.path.abspath(os.path.expanduser(path)))
    longest = max((len(part) for part in raw.split(os.fsencode(os.sep))), default=0)
    if longest > NAME_MAX_BYTES:
        return "cli.error.name_too_long", {"path": shown(path), "length": longest, "limit": NAME_MAX_BYTES}
    if len(raw) + room > limit:
        return "cli.error.path_too_long", {"path": shown(path), "length": len(raw), "limit": limit - room}
    return None


__all__ = ["path_problem", "shown", "ENV_ROOM_BYTES"]
