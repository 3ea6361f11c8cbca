"""Reading what a student hands the wizard: one decoder, one size cap, one JSON depth limit.

Why one module: every reader of a user's file (``doctor --nvidia-smi-file``, ``--explain``,
``recommend --from-doctor``, ``report --add-remote``, the history folder) meets the same files —
PowerShell 5's ``>`` writes UTF-16 LE with a BOM, Notepad adds a UTF-8 BOM, a Korean Windows
console writes cp949 — and the same hostile ones: ``/dev/zero`` (``st_size`` is 0, so a size
check before reading does not help), a 50 MB ``nvidia-smi -l 1`` log, a JSON nested 100,000 deep
(``json.loads`` raises RecursionError, which no caller expects). Each reader used to handle a
different subset of these; here they are handled once.

- :func:`decode_user_bytes` never raises and guesses the encoding the way a Windows editor saved it.
- :func:`read_user_text` reads at most :data:`MAX_USER_BYTES` (+1 to know it was cut), from a file
  or stdin, and says whether it cut.
- :func:`loads_user_json` refuses a document nested deeper than :data:`MAX_JSON_DEPTH` before
  ``json.loads`` sees it, with a message instead of a RecursionError.
"""

from __future__ import annotations

import codecs
import json
import os
import re
import sys
from dataclasses import dataclass
from typing import Any, BinaryIO

from wizard.core.base.i18n import Message, MessageError, msg

# nvidia-smi -q -x of an 8-GPU server is ~400 kB, a report with collect_env ~100 kB: a few MB is
# generous for anything the wizard reads, and bounds time and memory on anything else.
MAX_USER_BYTES = 4 * 1024 * 1024
# Our documents nest about 6 deep; a hundred is far beyond any real one and far below recursion limits.
MAX_JSON_DEPTH = 100
_CHUNK = 1024 * 1024


class UserInputError(MessageError, ValueError):
    """A user's file the wizard refuses (too deep, too big to be ours); the message says why."""


@dataclass(frozen=True)
class UserText:
    """A decoded user file. ``truncated``: it had more than ``limit`` bytes, and only those were read."""

    text: str
    truncated: bool = False
    limit: int = MAX_USER_BYTES

    def cut_notice(self, name: str) -> Message | None:
        """The line telling the student only the start was read, or None when nothing was cut."""
        if not self.truncated:
            return None
        return msg("common.input.cut", name=name, size=size_text(self.limit))


def size_text(nbytes: int) -> str:
    """A cap as a student reads it: "4 MB", or "1 kB" for the small caps tests use."""
    return f"{nbytes / 2**20:.0f} MB" if nbytes >= 2**20 else f"{max(nbytes // 1024, 1)} kB"


def decode_user_bytes(data: bytes) -> str:
    """Bytes of a saved paste → text: BOMs, UTF-16 (PowerShell 5's ``>`` writes UTF-16 LE),
    UTF-8, then Korean Windows' cp949, then UTF-8 with replacements. Never raises."""
    if not data:
        return ""
    for bom, enc in ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")):
        if data.startswith(bom):
            return data.decode(enc, errors="replace")
    sample = data[:4000]
    if len(sample) >= 4 and sample[1::2].count(0) > len(sample) // 4 and sample[0::2].count(0) < len(sample) // 16:
        return data.decode("utf-16-le", errors="replace")
    if len(sample) >= 4 and sample[0::2].count(0) > len(sample) // 4 and sample[1::2].count(0) < len(sample) // 16:
        return data.decode("utf-16-be", errors="replace")
    for enc in ("utf-8", "cp949"):
        try:
            return data.decode(enc)
        except UnicodeDecodeError:
            continue
    return data.decode("utf-8", errors="replace")


def read_bounded(stream: BinaryIO, limit: int = MAX_USER_BYTES) -> tuple[bytes, bool]:
    """At most ``limit`` bytes of ``stream`` and whether there was more. Reads in chunks, so a
    device without an end (``/dev/zero``, a pipe that never closes after ``limit``) costs ``limit``."""
    parts: list[bytes] = []
    have = 0
    while have <= limit:
        chunk = stream.read(min(_CHUNK, limit + 1 - have))
        if not chunk:
            break
        parts.append(chunk)
        have += len(chunk)
    data = b"".join(parts)
    if len(data) > limit:
        cut = limit - (limit % 2)  # keep UTF-16 code units whole
        return data[:cut], True
    return data, False


def read_user_text(path: str | os.PathLike[str], limit: int = MAX_USER_BYTES) -> UserText:
    """FILE (or stdin for ``"-"``) decoded with :func:`decode_user_bytes`, at most ``limit`` bytes.
    Raises OSError when it cannot be read (:class:`~wizard.core.base.user_files.NotARegularFile`, an
    OSError, for a pipe, a device or a folder)."""
    if str(path) == "-":
        data, cut = read_bounded(sys.stdin.buffer, limit)
    else:
        from wizard.core.base.user_files import open_user_file

        with open_user_file(path) as fh:  # a regular file only: a FIFO is refused, never waited on
            data, cut = read_bounded(fh, limit)
    return UserText(decode_user_bytes(data), cut, limit)


_ESCAPED = re.compile(r"\\.", re.DOTALL)
_JSON_TOKENS = re.compile(r'"[^"]*"|[\[\]{}]')  # linear: escapes are removed first, so quotes pair up


def json_depth(text: str, stop_at: int = MAX_JSON_DEPTH) -> int:
    """How deep ``text``'s brackets nest (strings skipped), counting no further than ``stop_at + 1``."""
    depth = deepest = 0
    for match in _JSON_TOKENS.finditer(_ESCAPED.sub("", text)):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > stop_at:
                    return deepest
        elif token in "]}":
            depth -= 1
    return deepest


def loads_user_json(text: str | bytes, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``json.loads`` for a document from a user or from disk: a nesting deeper than ``max_depth``
    raises :class:`UserInputError` (a ValueError) instead of a RecursionError; invalid JSON raises
    ValueError as ``json.loads`` does."""
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    if json_depth(text, max_depth) > max_depth:
        raise UserInputError(msg("common.input.too_deep", depth=max_depth))
    try:
        return json.loads(text)
    except RecursionError as exc:  # a nesting the scan could not see (it cannot happen, but never a traceback)
        raise UserInputError(msg("common.input.too_deep", depth=max_depth)) from exc


__all__ = ["MAX_USER_BYTES", "MAX_JSON_DEPTH", "UserInputError", "UserText", "decode_user_bytes", "read_bounded",
           "read_user_text", "size_text", "json_depth", "loads_user_json"]
