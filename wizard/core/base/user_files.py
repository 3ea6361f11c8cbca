"""Opening a file a student names: a regular file only, never a pipe or a device.

Why: ``open()`` on a named pipe (FIFO) blocks until some writer appears -- ``doctor --explain p``
on a ``mkfifo p`` hung past Ctrl+C for 36 minutes -- and a terminal, a socket or ``/dev/zero``
is no document either. So the file is looked at with ``stat`` before it is opened, opened with
``O_NONBLOCK`` (a pipe swapped in between the look and the open still cannot block), looked at
again through the open descriptor, and only then handed on as an ordinary blocking file. Every
reader of a user's file goes through :func:`open_user_file` (the bounded reader
:func:`wizard.core.base.user_input.read_user_text` does); stdin (``-``) is the way to pipe text in.
"""

from __future__ import annotations

import os
import stat
from typing import BinaryIO

from wizard.core.base.i18n import MessageError, msg


class NotARegularFile(MessageError, OSError):
    """The path names a pipe, a device, a folder or a socket: refused without reading it."""

    def __init__(self, path: str | os.PathLike[str], kind: str) -> None:
        super().__init__(msg("common.input.not_regular", name=os.path.basename(os.fspath(path)) or os.fspath(path),
                             kind=kind))
        self.strerror = self.message.text("en")
        self.filename = os.fspath(path)


def file_kind(mode: int) -> str:
    """A word for what a non-regular file is (the message's ``kind``)."""
    if stat.S_ISFIFO(mode):
        return "named pipe"
    if stat.S_ISDIR(mode):
        return "folder"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "special file"


def is_regular(path: str | os.PathLike[str]) -> bool:
    """``path`` is a regular file (links followed, as ``open`` would); never opens it."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def open_user_file(path: str | os.PathLike[str]) -> BinaryIO:
    """``path`` opened for binary reading when it is a regular file. Raises
    :class:`NotARegularFile` at once for anything else (a FIFO is never waited on), and OSError
    when it cannot be opened."""
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise NotARegularFile(path, file_kind(st.st_mode))
    nonblock = getattr(os, "O_NONBLOCK", 0)
    flags = os.O_RDONLY | nonblock | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOCTTY", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotARegularFile(path, file_kind(st.st_mode))
        # Undo O_NONBLOCK where it was set (POSIX). Windows has no O_NONBLOCK, and its
        # os.set_blocking works on pipes only: on a file it raises "[WinError 1] Invalid function",
        # which made every kernel.json and every input file unreadable there.
        if nonblock:
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


__all__ = ["NotARegularFile", "open_user_file", "is_regular", "file_kind"]
