"""A real package index on 127.0.0.1 for the install tests, and tiny wheels to put in it.

:class:`LoopbackIndex` is an HTTP/1.1 server in a thread that speaks PEP 503 (HTML project
pages whose links carry ``#sha256=`` fragments) and PEP 658 (``data-core-metadata`` /
``data-dist-info-metadata`` with a ``<file>.metadata`` next to every wheel, so ``pip install
--dry-run`` resolves without downloading a wheel, as it does against download.pytorch.org and
PyPI). Files answer ``HEAD`` and ``Range`` requests (206 with ``Content-Range``, 416 past the
end) and have an ``ETag``.

Switches a test flips to make the network misbehave, one GET at a time:

* ``drop_after(filename, n)``: the next GET of the file sends ``n`` body bytes, then the
  connection is cut (the client sees a short read against the ``Content-Length``);
* ``corrupt(filename, times)``: the next ``times`` GETs flip one byte in the middle;
* ``throttle(filename, bytes_per_s)``: send slowly (to cancel in the middle of a file);
* ``fail(filename, status)``: answer with an HTTP error.

Counters a test reads: ``bytes_served[filename]`` (file body bytes actually written to
sockets), ``other_bytes_served`` (body bytes of pages and ``.metadata`` files; with the file
bytes: :meth:`total_bytes_served`), ``file_gets[filename]``, ``sent_per_get(filename)`` and ``log`` (method, path, Range
header, status, bytes sent). A transfer the client abandoned may still count one more chunk
after the test resets the counters (its thread finishes a write); ``sent_per_get`` tells the
requests apart.

Any path whose last segment is a known project answers that project's page, so an index URL
such as ``<base>/whl/cpu`` (the shape :func:`wizard.core.recommend.commands.mirror_index_url`
builds) works as well as ``<base>/simple``. A file added with ``folder="cu126"`` is listed only
on pages under that folder (``<base>/whl/cu126/torch/``): a variant folder can have its own files.
"""

from __future__ import annotations

import base64
import collections
import hashlib
import html
import os
import random
import re
import socket
import threading
import time
import zipfile
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterable
from urllib.parse import unquote, urlsplit

from packaging.utils import canonicalize_name, parse_wheel_filename

CHUNK = 64 * 1024


# ---------------------------------------------------------------------------------------------
# Wheels
# ---------------------------------------------------------------------------------------------
def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def make_wheel(folder: str | os.PathLike[str], name: str, version: str, *,
               files: dict[str, bytes | str] | None = None, requires: Iterable[str] = (),
               payload_bytes: int = 0, many_files: int = 0, seed: int = 0) -> Path:
    """Write a valid pure-Python wheel (METADATA, WHEEL, RECORD with hashes) and return its path.

    ``files`` maps paths inside the wheel to contents; by default a package ``<name>`` whose
    ``__init__`` sets ``__version__``. ``payload_bytes`` adds a data file of random (so
    incompressible) bytes, to make a wheel big enough to cut in the middle; ``many_files``
    adds that many small modules, to make pip take a while to install it.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    dist = re.sub(r"[-_.]+", "_", name).lower()
    public_version = version
    pkg = dist
    contents: dict[str, bytes] = {}
    if files is None:
        files = {f"{pkg}/__init__.py": f"__version__ = {public_version!r}\n"}
    for path, body in files.items():
        contents[path] = body.encode("utf-8") if isinstance(body, str) else body
    if payload_bytes:
        contents[f"{pkg}/payload.bin"] = random_bytes(payload_bytes, seed)
    for i in range(many_files):
        contents[f"{pkg}/extra/m{i:05d}.py"] = f"VALUE = {i}\n".encode()
    info = f"{dist}-{version}.dist-info"
    meta = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    meta += [f"Requires-Dist: {r}" for r in requires]
    contents[f"{info}/METADATA"] = ("\n".join(meta) + "\n").encode()
    contents[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: gsw-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    record = [f"{p},{_record_hash(b)},{len(b)}" for p, b in contents.items()]
    record.append(f"{info}/RECORD,,")
    contents[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    path = folder / f"{dist}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for p, body in contents.items():
            zf.writestr(p, body)
    return path


def random_bytes(n: int, seed: int = 0) -> bytes:
    """Deterministic incompressible bytes (DEFLATE cannot shrink them, so the wheel is as big)."""
    return random.Random(seed).randbytes(n)


def wheel_metadata(path: str | os.PathLike[str]) -> bytes:
    """The METADATA file inside a wheel (what PEP 658 serves as ``<file>.metadata``)."""
    with zipfile.ZipFile(path) as zf:
        name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        return zf.read(name)


# ---------------------------------------------------------------------------------------------
# The index
# ---------------------------------------------------------------------------------------------
@dataclass
class ServedFile:
    filename: str
    project: str
    data: bytes
    sha256: str
    metadata: bytes | None
    folder: str | None = None  # listed only on pages under this index folder (``/whl/cu126/...``)

    @property
    def size(self) -> int:
        return len(self.data)


class LoopbackIndex:
    """The server and its switches. Use as a context manager or call :meth:`start`/:meth:`stop`."""

    def __init__(self, with_hashes: bool = True, with_metadata: bool = True) -> None:
        self.with_hashes = with_hashes
        self.with_metadata = with_metadata
        self.files: dict[str, ServedFile] = {}
        self.lock = threading.Lock()
        self.bytes_served: collections.Counter[str] = collections.Counter()
        self.other_bytes_served = 0  # project pages, the root page, .metadata files, errors
        # bumped by reset_counters: a body still being sent on a connection from before the
        # reset (a cancelled, throttled download) counts for none of the new counters
        self.generation = 0
        self.file_gets: collections.Counter[str] = collections.Counter()
        self.log: list[dict] = []
        self._drops: dict[str, list[int]] = collections.defaultdict(list)
        self._corrupt: collections.Counter[str] = collections.Counter()
        self._throttle: dict[str, float] = {}
        self._fail: dict[str, int] = {}
        self._down_after_drop: set[str] = set()
        self.down = False  # every request is answered by closing the connection
        # extra headers of the project pages: a mirror behind a cache says "Cache-Control: max-age=600"
        self.page_headers: dict[str, str] = {}
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- content --------------------------------------------------------------------------
    def add_wheel(self, path: str | os.PathLike[str], folder: str | None = None) -> ServedFile:
        """Serve ``path``; with ``folder`` (a variant such as ``cu126``) its project page lists it only
        under that folder (``<base>/whl/cu126/torch/``), beside the files added without one."""
        path = Path(path)
        data = path.read_bytes()
        name, _version, _build, _tags = parse_wheel_filename(path.name)
        served = ServedFile(path.name, str(name), data, hashlib.sha256(data).hexdigest(),
                            wheel_metadata(path) if path.suffix == ".whl" else None, folder)
        with self.lock:
            self.files[path.name] = served
        return served

    def add_wheels(self, paths: Iterable[str | os.PathLike[str]], folder: str | None = None) -> list[ServedFile]:
        return [self.add_wheel(p, folder) for p in paths]

    def projects(self) -> set[str]:
        with self.lock:
            return {f.project for f in self.files.values()}

    # --- switches -------------------------------------------------------------------------
    def drop_after(self, filename: str, nbytes: int, then_down: bool = False) -> None:
        """Cut the next GET of ``filename`` after ``nbytes``; ``then_down``: and answer nothing
        more afterwards (the server is gone, as when a campus link drops)."""
        with self.lock:
            self._drops[filename].append(nbytes)
            if then_down:
                self._down_after_drop.add(filename)

    def corrupt(self, filename: str, times: int = 1) -> None:
        with self.lock:
            self._corrupt[filename] += times

    def throttle(self, filename: str, bytes_per_s: float | None) -> None:
        with self.lock:
            if bytes_per_s is None:
                self._throttle.pop(filename, None)
            else:
                self._throttle[filename] = bytes_per_s

    def fail(self, filename: str, status: int | None) -> None:
        with self.lock:
            if status is None:
                self._fail.pop(filename, None)
            else:
                self._fail[filename] = status

    def reset_counters(self) -> None:
        with self.lock:
            self.generation += 1
            self.bytes_served.clear()
            self.other_bytes_served = 0
            self.file_gets.clear()
            self.log.clear()

    def total_file_bytes_served(self) -> int:
        with self.lock:
            return sum(self.bytes_served.values())

    def total_bytes_served(self) -> int:
        """Every body byte the server wrote: files, pages and metadata."""
        with self.lock:
            return sum(self.bytes_served.values()) + self.other_bytes_served

    def sent_per_get(self, filename: str) -> list[tuple[str | None, int]]:
        """(Range header, body bytes written) for each GET of the file, in order."""
        with self.lock:
            return [(e["range"], e["sent"]) for e in self.log if e["method"] == "GET" and e["file"] == filename]

    def ranges_asked(self, filename: str) -> list[str | None]:
        with self.lock:
            return [e["range"] for e in self.log if e["method"] == "GET" and e["file"] == filename]

    # --- addresses ------------------------------------------------------------------------
    @property
    def base(self) -> str:
        assert self._httpd is not None, "server not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def simple_url(self) -> str:
        return self.base + "/simple"

    def file_url(self, filename: str) -> str:
        return f"{self.base}/files/{filename}"

    # --- life -----------------------------------------------------------------------------
    def start(self) -> "LoopbackIndex":
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02},
                                        name="loopback-index", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> "LoopbackIndex":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- pages ----------------------------------------------------------------------------
    def project_page(self, project: str, folder: str | None = None) -> bytes:
        """The page of ``project`` as seen under index folder ``folder``: the files added without a
        folder, and those added for this one."""
        with self.lock:
            files = sorted((f for f in self.files.values() if canonicalize_name(f.project) == project
                            and f.folder in (None, folder)), key=lambda f: f.filename)
        rows = []
        for f in files:
            href = f"{self.base}/files/{html.escape(f.filename)}"
            if self.with_hashes:
                href += f"#sha256={f.sha256}"
            attrs = ""
            if self.with_metadata and f.metadata is not None:
                digest = hashlib.sha256(f.metadata).hexdigest()
                attrs = f' data-core-metadata="sha256={digest}" data-dist-info-metadata="sha256={digest}"'
            rows.append(f'<a href="{href}"{attrs}>{html.escape(f.filename)}</a><br/>')
        body = "<!DOCTYPE html>\n<html><body><h1>Links for {}</h1>\n{}\n</body></html>\n".format(
            html.escape(project), "\n".join(rows))
        return body.encode("utf-8")

    def root_page(self) -> bytes:
        names = sorted({canonicalize_name(p) for p in self.projects()})
        rows = "\n".join(f'<a href="{n}/">{n}</a><br/>' for n in names)
        return f"<!DOCTYPE html>\n<html><body>\n{rows}\n</body></html>\n".encode("utf-8")


def _make_handler(index: LoopbackIndex):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt: str, *args: object) -> None:  # keep pytest output clean
            pass

        def do_HEAD(self) -> None:  # noqa: N802 - http.server's naming
            self._serve(head=True)

        def do_GET(self) -> None:  # noqa: N802
            self._serve(head=False)

        # ------------------------------------------------------------------------------------
        def _record(self, file: str | None, status: int) -> dict:
            entry = {"method": self.command, "path": self.path, "file": file, "range": self.headers.get("Range"),
                     "status": status, "sent": 0}
            with index.lock:
                index.log.append(entry)
            return entry

        def _serve(self, head: bool) -> None:
            if index.down:
                self._record(None, 0)
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            path = unquote(urlsplit(self.path).path)
            parts = [p for p in path.split("/") if p]
            if len(parts) >= 2 and parts[-2] == "files":
                name = parts[-1]
                if name.endswith(".metadata") and name[:-9] in index.files:
                    served = index.files[name[:-9]]
                    if served.metadata is None or not index.with_metadata:
                        return self._plain(404, b"no metadata", None)
                    return self._plain(200, served.metadata, None, "text/plain", head=head)
                if name in index.files:
                    return self._file(index.files[name], head)
                return self._plain(404, b"not found", None)
            if not parts or parts[-1] == "simple":
                return self._plain(200, index.root_page(), None, "text/html; charset=utf-8", head=head)
            project = canonicalize_name(parts[-1])
            if project in {canonicalize_name(p) for p in index.projects()}:
                folder = parts[-2] if len(parts) >= 2 else None
                return self._plain(200, index.project_page(project, folder), None, "text/html; charset=utf-8",
                                   head=head)
            return self._plain(404, b"not found", None)

        def _plain(self, status: int, body: bytes, file: str | None, ctype: str = "text/plain",
                   head: bool = False) -> None:
            self._record(file, status)
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            if ctype.startswith("text/html") and status == 200:
                for key, value in index.page_headers.items():
                    self.send_header(key, value)
            self.end_headers()
            if not head:
                self.wfile.write(body)
                with index.lock:
                    index.other_bytes_served += len(body)

        def _file(self, served: ServedFile, head: bool) -> None:
            name = served.filename
            with index.lock:
                status_override = index._fail.get(name)
            if status_override:
                return self._plain(status_override, b"failing on purpose", name)
            data = served.data
            etag = f'"{served.sha256[:24]}"'
            start, end = 0, len(data) - 1
            status = 200
            range_header = self.headers.get("Range")
            if range_header and not head:
                match = re.fullmatch(r"bytes=(\d+)-(\d*)", range_header.strip())
                if_range = self.headers.get("If-Range")
                if match and (if_range is None or if_range == etag):
                    start = int(match.group(1))
                    if match.group(2):
                        end = min(int(match.group(2)), len(data) - 1)
                    if start >= len(data):
                        self._record(name, 416)
                        self.send_response(416)
                        self.send_header("Content-Range", f"bytes */{len(data)}")
                        self.send_header("Content-Length", "0")
                        self.end_headers()
                        return
                    status = 206
            body = data[start:end + 1]
            drop_at = None
            corrupt = False
            delay = None
            if not head:
                with index.lock:
                    index.file_gets[name] += 1
                    if index._drops.get(name):
                        drop_at = index._drops[name].pop(0)
                    if index._corrupt[name] > 0:
                        index._corrupt[name] -= 1
                        corrupt = True
                    rate = index._throttle.get(name)
                if corrupt:
                    middle = len(data) // 2
                    if start <= middle <= end:
                        buf = bytearray(body)
                        buf[middle - start] ^= 0xFF
                        body = bytes(buf)
                delay = (CHUNK / rate) if rate else None
            entry = self._record(name, status)
            with index.lock:
                generation = index.generation
            self.send_response(status)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Accept-Ranges", "bytes")
            self.send_header("ETag", etag)
            # as PyPI serves files: immutable, cacheable for ever (pip's HTTP cache keeps them)
            self.send_header("Cache-Control", "max-age=365000000, immutable, public")
            if status == 206:
                self.send_header("Content-Range", f"bytes {start}-{end}/{len(data)}")
            self.end_headers()
            if head:
                return
            sent = 0
            try:
                while sent < len(body):
                    chunk = body[sent:sent + CHUNK]
                    if drop_at is not None and sent + len(chunk) >= drop_at:
                        chunk = chunk[:max(0, drop_at - sent)]
                        if chunk:
                            self.wfile.write(chunk)
                            self.wfile.flush()
                            with index.lock:
                                if index.generation == generation:
                                    index.bytes_served[name] += len(chunk)
                                entry["sent"] += len(chunk)
                        self.close_connection = True
                        with index.lock:
                            if name in index._down_after_drop:
                                index.down = True
                        try:
                            self.connection.shutdown(socket.SHUT_RDWR)
                        except OSError:
                            pass
                        return
                    self.wfile.write(chunk)
                    with index.lock:
                        if index.generation == generation:
                            index.bytes_served[name] += len(chunk)
                        entry["sent"] += len(chunk)
                    sent += len(chunk)
                    if delay:
                        time.sleep(delay)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True  # the client went away (a cancel): count what was sent

    return Handler


def free_port() -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


__all__ = ["LoopbackIndex", "ServedFile", "free_port", "make_wheel", "random_bytes", "wheel_metadata"]
