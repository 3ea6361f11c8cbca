"""A file server on 127.0.0.1 that misbehaves the way real mirrors and links do, for the
downloader's budget and lock tests.

* ``ignore_range``: answer every GET with ``200`` and the whole file, whatever ``Range`` says
  (``python -m http.server`` does this);
* ``cut_after``: send at most this many body bytes per GET, then cut the connection (flaky
  Wi-Fi); with ``ignore_range`` a file bigger than that can never arrive; ``cut_grow``: each
  GET of a file may send that many bytes more than the one before;
* ``gate``: after the first chunk of a GET, wait until the test opens the gate (a download
  that is surely in progress while the test starts a second install);
* ``max_gets``: past this many GETs of one file, answer 404 -- so a downloader that would loop
  for ever ends instead (and its test fails on what it counted, not by hanging).

Counters: ``gets[name]``, ``served[name]`` (body bytes written), ``ranges[name]``.
"""

from __future__ import annotations

import collections
import hashlib
import re
import socket
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CHUNK = 64 * 1024
GATE_WAIT_S = 120.0  # a safety net only: every test opens the gate on a condition


@dataclass
class HostileServer:
    files: dict[str, bytes]
    ignore_range: bool = False
    cut_after: int | None = None
    cut_grow: int = 0
    max_gets: int = 60
    gate: threading.Event | None = None
    gets: collections.Counter = field(default_factory=collections.Counter)
    served: collections.Counter = field(default_factory=collections.Counter)
    ranges: dict[str, list] = field(default_factory=lambda: collections.defaultdict(list))
    get_started: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    _httpd: ThreadingHTTPServer | None = None

    def sha256(self, name: str) -> str:
        return hashlib.sha256(self.files[name]).hexdigest()

    def url(self, name: str) -> str:
        assert self._httpd is not None
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/files/{name}"

    def __enter__(self) -> "HostileServer":
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.gate is not None:
            self.gate.set()
        assert self._httpd is not None
        self._httpd.shutdown()
        self._httpd.server_close()


def _handler(server: HostileServer):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt: str, *args: object) -> None:
            pass

        def do_HEAD(self) -> None:  # noqa: N802
            name = self.path.rsplit("/", 1)[-1]
            if name not in server.files:
                return self._status(404)
            self.send_response(200)
            self.send_header("Content-Length", str(len(server.files[name])))
            self.end_headers()

        def _status(self, code: int) -> None:
            self.send_response(code)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_GET(self) -> None:  # noqa: N802
            name = self.path.rsplit("/", 1)[-1]
            if name not in server.files:
                return self._status(404)
            with server.lock:
                server.gets[name] += 1
                server.ranges[name].append(self.headers.get("Range"))
                over = server.gets[name] > server.max_gets
            if over:
                return self._status(404)
            data = server.files[name]
            start = 0
            match = re.fullmatch(r"bytes=(\d+)-", (self.headers.get("Range") or "").strip())
            if match and not server.ignore_range and int(match.group(1)) < len(data):
                start = int(match.group(1))
                self.send_response(206)
                self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
            else:
                self.send_response(200)
            self.send_header("Content-Length", str(len(data) - start))
            self.send_header("ETag", f'"{hashlib.sha256(data).hexdigest()[:16]}"')
            self.end_headers()
            with server.lock:
                cut = None if server.cut_after is None else server.cut_after + server.cut_grow * (server.gets[name] - 1)
            self._body(name, data[start:], cut)

        def _body(self, name: str, body: bytes, cut: int | None) -> None:
            limit = len(body) if cut is None else min(len(body), cut)
            sent = 0
            try:
                while sent < limit:
                    chunk = body[sent:min(limit, sent + CHUNK)]
                    self.wfile.write(chunk)
                    self.wfile.flush()
                    sent += len(chunk)
                    with server.lock:
                        server.served[name] += len(chunk)
                    server.get_started.set()
                    if server.gate is not None and sent < limit:
                        server.gate.wait(GATE_WAIT_S)
            except (BrokenPipeError, ConnectionResetError):
                pass
            if sent < len(body):  # cut: the client sees a short read against Content-Length
                self.close_connection = True
                try:
                    self.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    return Handler


__all__ = ["HostileServer"]
