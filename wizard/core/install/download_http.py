"""Small HTTP helpers of the downloader (:mod:`wizard.core.install.download`), kept apart so the
transfer loop stays readable: ending a response from another thread, reading a body without
losing bytes at a cut, parsing ``Content-Range``, and the partial file's side-car JSON.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any, Iterator

from wizard.core.base.files import write_atomic


def abort(resp: Any) -> None:
    """End a response now, even while another thread is blocked reading it.

    Closing the file object does not wake a ``recv`` that is already waiting (a stalled
    server); shutting the socket down does, on every OS. urllib3 keeps the socket on the
    response's connection (a private attribute, looked up defensively); without it, close.
    """
    conn = getattr(resp.raw, "_connection", None)
    sock = getattr(conn, "sock", None)
    if sock is None:
        fp = getattr(getattr(getattr(resp.raw, "_fp", None), "fp", None), "raw", None)
        sock = getattr(fp, "_sock", None)
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass  # already closed by the other side
    resp.close()


def body_chunks(resp: Any, size: int) -> Iterator[bytes]:
    """The body as it arrives, every byte of it.

    ``iter_content`` (urllib3's ``read(amt)``) fills a buffer of ``amt`` bytes from several
    reads and loses what it had gathered when the connection drops in the middle, so a resume
    would ask again for bytes that already arrived. ``read1`` returns each read's bytes at once:
    a cut costs nothing. (urllib3 1.x has no ``read1``; there ``iter_content`` is used.)
    """
    read1 = getattr(resp.raw, "read1", None)
    if read1 is None:
        yield from resp.iter_content(size)
        return
    while True:
        data = read1(size, decode_content=False)
        if not data:
            return
        yield data


def short(exc: BaseException) -> str:
    """An exception as one line of at most 240 characters, for a message's detail."""
    text = str(exc) or type(exc).__name__
    return text if len(text) <= 240 else text[:237] + "..."


def content_range_start(value: str) -> int | None:
    """The first byte of ``bytes 100-199/1000``; None when the header is missing or odd."""
    try:
        return int(value.split()[1].split("-")[0])
    except (IndexError, ValueError):
        return None


def content_range_total(value: str) -> int | None:
    """The total of ``bytes 100-199/1000`` (or ``bytes */1000``); None when unknown."""
    try:
        total = value.rsplit("/", 1)[1]
    except IndexError:
        return None
    return int(total) if total.isdigit() else None


def read_json(path: Path) -> dict[str, Any]:
    """A side-car JSON object, or {} when it is missing or damaged (it only saves a re-fetch)."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_json(path: Path, data: dict[str, Any]) -> None:
    write_atomic(path, json.dumps(data), suffix=".tmp", mkdir=True)


__all__ = ["abort", "body_chunks", "content_range_start", "content_range_total", "read_json", "short",
           "write_json"]
