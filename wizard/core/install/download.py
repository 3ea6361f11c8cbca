"""Fetch the planned files ourselves: several at once, resumable, hash-checked, cached.

Why not let pip download: pip cannot resume a broken 2.5 GB download (it starts again), shows
its progress only as a terminal bar, and keeps what it fetched in an HTTP cache that is not
meant to be reused by name. Here every file of the plan is fetched with ``requests`` into a
cache folder the wizard owns, so:

* a dropped connection resumes with an HTTP ``Range`` request from the byte it reached (and
  ``If-Range`` with the server's ETag, so a file that changed meanwhile starts over);
* a cancelled run keeps its partial files: Resume continues them, it does not start again;
* every file is checked against the index's sha256 before it is used; a mismatch deletes the
  file and fetches it once more, then stops with a message naming the file and both hashes;
* finished files live under the user cache dir (platformdirs) and are reused by every later
  run: re-running after a driver update fetches 0 bytes. The install then runs offline from
  the cache (``--no-index --find-links``);
* proxies come from the standard variables (``HTTPS_PROXY``, ``NO_PROXY``), which requests
  honours; a mirror is simply another URL in the plan.

Threads: :meth:`Downloader.fetch` blocks. It runs the transfers on a small pool and calls the
``progress`` callback on *its own* thread, every ``progress_interval_s`` -- in the GUI that is
a worker thread, which forwards the :class:`DownloadProgress` to the page with a signal.
``cancel`` (a ``threading.Event``) stops every transfer within a fraction of a second: the
open responses are closed from the calling thread, so even a stalled read ends at once.

The cache folder is :mod:`wizard.core.install.cache`, the errors :mod:`wizard.core.install.download_errors`.
"""

from __future__ import annotations

import collections
import errno
import json
import socket
import threading
import time
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence
from urllib.parse import urlsplit

from wizard.core.base.lazy import lazy_import

requests = lazy_import("requests")  # loads on first use: not at the window's start-up
urllib3 = lazy_import("urllib3")

from wizard import __version__
from wizard.core.base.files import replace_file, write_atomic
from wizard.core.install.cache import FileLike, WheelCache, sha256_file
from wizard.core.install.download_errors import (
    DiskFullError,
    DownloadCancelled,
    HashMismatch,
    HttpStatusError,
    NetworkError,
)

DEFAULT_PARALLEL = 3  # a few at once: more does not help one link, and torch is one big file anyway
DEFAULT_TIMEOUT = (10.0, 60.0)  # connect, read (a stalled read for a minute = a dropped connection)
DEFAULT_RETRIES = 5  # consecutive failed attempts without a byte of progress
DEFAULT_BACKOFF = (0.5, 1.0, 2.0, 4.0, 8.0)
CHUNK = 256 * 1024
SPEED_WINDOW_S = 3.0


# --------------------------------------------------------------------------------------------
# Progress
# --------------------------------------------------------------------------------------------


@dataclass


class FileProgress:
    filename: str
    size: int | None
    done: int = 0
    state: str = "waiting"  # waiting | cached | downloading | verifying | done | failed | cancelled
    resumed_from: int = 0
    attempts: int = 0


@dataclass


class DownloadProgress:
    """A snapshot for the page: overall and per-file. ``speed_bps`` over the last few seconds."""

    files: list[FileProgress]
    total_bytes: int  # known sizes
    done_bytes: int  # on disk, fetched + cached + resumed
    fetched_bytes: int  # over the network in this run
    cached_bytes: int
    speed_bps: float
    eta_s: float | None
    elapsed_s: float
    unknown_sizes: int = 0

    @property
    def fraction(self) -> float | None:
        """Share of the known bytes on disk; None while no size is known (an indeterminate bar)."""
        if self.total_bytes <= 0:
            return None
        return min(1.0, self.done_bytes / self.total_bytes)

    @property
    def files_done(self) -> int:
        return sum(1 for f in self.files if f.state in ("done", "cached"))


@dataclass


class DownloadResult:
    paths: dict[str, Path]
    downloaded_bytes: int  # fetched over the network in this run
    from_cache_bytes: int  # complete files already in the cache
    resumed_bytes: int  # partial files from an earlier run, continued
    refetched: list[str] = field(default_factory=list)  # files fetched again after a bad hash
    elapsed_s: float = 0.0
    files: list[FileProgress] = field(default_factory=list)


# --------------------------------------------------------------------------------------------
# The downloader
# --------------------------------------------------------------------------------------------


def _default_session() -> requests.Session:
    session = requests.Session()  # trust_env: HTTPS_PROXY / NO_PROXY / REQUESTS_CA_BUNDLE apply
    session.headers["User-Agent"] = f"gpu-setup-wizard/{__version__} requests/{requests.__version__}"
    return session


class _Stop(Exception):
    """Internal: this transfer must end (cancel, or another file failed)."""


@dataclass


class _Transfer:
    """One file's transfer across its attempts: what the retry loop of ``_to_partial`` carries."""

    f: FileLike
    fp: FileProgress
    part: Path
    meta_path: Path
    host: str
    meta: dict[str, Any] = field(default_factory=dict)  # {"url", "etag"} of the partial file's bytes
    failures: int = 0  # attempts in a row that brought no byte
    last_detail: str = ""
    progressed: bool = False  # the current attempt wrote bytes


class Downloader:
    """Fetch planned files into a :class:`WheelCache`. One instance per run.

    ``session_factory`` makes one ``requests.Session`` per worker thread (the default honours
    the proxy variables); ``proxies`` overrides them (a proxy typed into the wizard's settings).
    """

    def __init__(self, cache: WheelCache, *, parallel: int = DEFAULT_PARALLEL,
                 progress: Callable[[DownloadProgress], None] | None = None,
                 cancel: threading.Event | None = None,
                 session_factory: Callable[[], requests.Session] | None = None,
                 proxies: dict[str, str] | None = None,
                 timeout: tuple[float, float] = DEFAULT_TIMEOUT, retries: int = DEFAULT_RETRIES,
                 backoff_s: Sequence[float] = DEFAULT_BACKOFF, progress_interval_s: float = 0.1,
                 chunk_size: int = CHUNK) -> None:
        self.cache = cache
        self.parallel = max(1, parallel)
        self.progress = progress
        self.cancel = cancel or threading.Event()
        self.session_factory = session_factory or _default_session
        self.proxies = proxies
        self.timeout = timeout
        self.retries = retries
        self.backoff_s = tuple(backoff_s) or (0.0,)
        self.progress_interval_s = progress_interval_s
        self.chunk_size = chunk_size
        self._local = threading.local()
        self._lock = threading.Lock()
        self._stop = threading.Event()  # cancel, or a failure elsewhere
        self._responses: set[requests.Response] = set()
        self._fetched = 0
        self._samples: collections.deque[tuple[float, int]] = collections.deque()
        self._start = 0.0

    # --- public -------------------------------------------------------------------------------
    def fetch(self, files: Sequence[FileLike]) -> DownloadResult:
        """Download (or find in the cache) every file; returns where each one is.

        Raises :class:`DownloadCancelled`, :class:`NetworkError`, :class:`HttpStatusError`,
        :class:`HashMismatch` or :class:`DiskFullError`. Finished files stay in the cache and
        partial ones in its partial folder whatever happens, for the next run.
        """
        self.cache.ensure()
        self._start = time.monotonic()
        self._stop.clear()
        self._fetched = 0
        self._samples.clear()
        unique: dict[str, FileLike] = {}
        for f in files:
            unique.setdefault(f.filename, f)
        progress = {name: FileProgress(name, f.size) for name, f in unique.items()}
        result = DownloadResult({}, 0, 0, 0, files=list(progress.values()))
        if not unique:
            self._emit(progress)
            return result
        pool = ThreadPoolExecutor(max_workers=min(self.parallel, len(unique)), thread_name_prefix="gsw-download")
        futures: dict[Future, str] = {pool.submit(self._one, f, progress[name], result): name
                                      for name, f in unique.items()}
        error: BaseException | None = None
        try:
            pending = set(futures)
            while pending:
                done, pending = wait(pending, timeout=self.progress_interval_s, return_when=FIRST_EXCEPTION)
                for fut in done:
                    exc = fut.exception()
                    if exc is not None and error is None and not isinstance(exc, _Stop):
                        error = exc
                if self.cancel.is_set() and error is None:
                    error = DownloadCancelled()
                if error is not None and not self._stop.is_set():
                    self._halt()
                self._emit(progress)
        except BaseException:
            self._halt()
            raise
        finally:
            pool.shutdown(wait=True)
        result.elapsed_s = time.monotonic() - self._start
        result.downloaded_bytes = self._fetched
        self._emit(progress)
        if error is not None:
            if isinstance(error, _Stop):
                raise DownloadCancelled()
            raise error
        return result

    # --- internals ----------------------------------------------------------------------------
    def _halt(self) -> None:
        """Stop every transfer now: flag, then close the open responses (ends blocked reads)."""
        self._stop.set()
        with self._lock:
            responses = list(self._responses)
        for resp in responses:
            _abort(resp)

    def _session(self) -> requests.Session:
        sess = getattr(self._local, "session", None)
        if sess is None:
            sess = self.session_factory()
            if self.proxies is not None:
                sess.proxies.update(self.proxies)
            self._local.session = sess
        return sess

    def _check(self) -> None:
        if self._stop.is_set() or self.cancel.is_set():
            raise _Stop()

    def _count(self, n: int, fp: FileProgress) -> None:
        with self._lock:
            self._fetched += n
            fp.done += n

    def _emit(self, progress: dict[str, FileProgress]) -> None:
        now = time.monotonic()
        with self._lock:
            fetched = self._fetched
            files = [FileProgress(**vars(p)) for p in progress.values()]
        self._samples.append((now, fetched))
        while len(self._samples) > 2 and now - self._samples[0][0] > SPEED_WINDOW_S:
            self._samples.popleft()
        t0, b0 = self._samples[0]
        speed = (fetched - b0) / (now - t0) if now - t0 > 0.2 else 0.0
        total = sum(f.size or 0 for f in files)
        done = sum(min(f.done, f.size) if f.size else f.done for f in files)
        cached = sum(f.size or f.done for f in files if f.state == "cached")
        remaining = max(0, total - done)
        eta = remaining / speed if speed > 0 else None
        snap = DownloadProgress(files, total, done, fetched, cached, speed, eta, now - self._start,
                                unknown_sizes=sum(1 for f in files if f.size is None))
        if self.progress is not None:
            self.progress(snap)

    def _one(self, f: FileLike, fp: FileProgress, result: DownloadResult) -> None:
        self._check()
        cached = self.cache.verified(f, self.cancel)
        if cached is not None:
            size = cached.stat().st_size
            with self._lock:
                fp.size = fp.size or size
                fp.done = size
                fp.state = "cached"
                result.from_cache_bytes += size
                result.paths[f.filename] = cached
            return
        for attempt in (1, 2):
            resumed = self._to_partial(f, fp)
            if attempt == 1:
                with self._lock:
                    result.resumed_bytes += resumed
            part = self.cache.partial(f)
            fp.state = "verifying"
            actual = sha256_file(part, self.cancel)
            if f.sha256 is not None and actual != f.sha256:
                part.unlink(missing_ok=True)
                with self._lock:
                    fp.done = 0
                if attempt == 1:
                    with self._lock:
                        result.refetched.append(f.filename)
                    continue
                fp.state = "failed"
                raise HashMismatch(f.filename, f.sha256, actual, urlsplit(f.url).hostname or "")
            got = part.stat().st_size
            if f.size is not None and got != f.size:  # no hash to go by: the size must agree
                part.unlink(missing_ok=True)
                fp.state = "failed"
                raise HashMismatch(f.filename, f"{f.size} bytes", f"{got} bytes", urlsplit(f.url).hostname or "")
            target = self.cache.path(f.filename)
            replace_file(part, target)
            part.with_suffix(".json").unlink(missing_ok=True)
            self.cache.record(f.filename, actual)
            with self._lock:
                fp.state = "done"
                fp.size = fp.size or target.stat().st_size
                result.paths[f.filename] = target
            return

    def _to_partial(self, f: FileLike, fp: FileProgress) -> int:
        """Bring the partial file to the whole file. Returns the bytes it already had."""
        part = self.cache.partial(f)
        tr = _Transfer(f, fp, part, part.with_suffix(".json"), host=urlsplit(f.url).hostname or f.url)
        tr.meta = _read_json(tr.meta_path)
        if tr.meta.get("url") not in (None, f.url):
            # The same file (partials are named by its sha256) from another server: a mirror set
            # after a network failure. Its bytes are still good -- the hash check at the end
            # proves it -- but the old server's ETag means nothing to the new one.
            tr.meta = {}
        start_size = self.cache.partial_size(f)
        with self._lock:
            fp.resumed_from = start_size
            fp.done = start_size
        if urlsplit(f.url).scheme == "file":
            self._copy_local(f, fp, part)
            return 0
        while True:
            self._check()
            offset = self.cache.partial_size(f)
            if f.size is not None and offset == f.size:
                return start_size
            if f.size is not None and offset > f.size:
                part.unlink(missing_ok=True)
                offset = 0
            resp = self._request(tr, offset)
            if resp is not None and self._receive_guarded(tr, resp, offset):
                return start_size

    def _request(self, tr: _Transfer, offset: int) -> requests.Response | None:
        """GET the file from ``offset`` (a Range request, If-Range on the ETag we saw). None when
        the server could not be reached and a retry has been waited for."""
        headers = {"Accept-Encoding": "identity"}
        if offset:
            headers["Range"] = f"bytes={offset}-"
            if tr.meta.get("etag"):
                headers["If-Range"] = tr.meta["etag"]
        tr.fp.state = "downloading"
        tr.fp.attempts += 1
        try:
            return self._session().get(tr.f.url, headers=headers, stream=True, timeout=self.timeout)
        except (requests.ConnectionError, requests.Timeout) as exc:
            self._check()
            self._failed(tr, _short(exc), exc)
            return None

    def _failed(self, tr: _Transfer, detail: str, exc: BaseException | None = None) -> None:
        """One more failed attempt without progress: give up past ``retries``, else back off."""
        tr.failures += 1
        tr.last_detail = detail
        if tr.failures > self.retries:
            tr.fp.state = "failed"
            raise NetworkError(tr.host, tr.f.url, detail, tr.f.filename) from exc
        self._sleep(tr.failures)

    def _receive_guarded(self, tr: _Transfer, resp: requests.Response, offset: int) -> bool:
        """:meth:`_receive`, with the response closable by :meth:`_halt` and a dropped connection
        turned into a retry (at once when bytes arrived, else after a back-off)."""
        with self._lock:
            self._responses.add(resp)
        tr.progressed = False
        try:
            return self._receive(tr, resp, offset)
        except (requests.ConnectionError, requests.Timeout, requests.exceptions.ChunkedEncodingError,
                urllib3.exceptions.HTTPError, ConnectionError, TimeoutError) as exc:
            self._check()
            if tr.progressed:
                tr.failures = 0
                tr.last_detail = _short(exc)
            else:
                self._failed(tr, _short(exc), exc)
            return False
        except _Stop:
            tr.fp.state = "cancelled"
            raise
        except (AttributeError, ValueError) as exc:
            # urllib3 raises these from a read on a response closed by _halt()
            if self._stop.is_set() or self.cancel.is_set():
                tr.fp.state = "cancelled"
                raise _Stop() from exc
            raise
        finally:
            with self._lock:
                self._responses.discard(resp)
            resp.close()

    def _receive(self, tr: _Transfer, resp: requests.Response, offset: int) -> bool:
        """Write the response's body into the partial file. True: the file is whole; False: try
        again (the server said the range is wrong, or is busy)."""
        f, fp = tr.f, tr.fp
        if resp.status_code == 416 and offset:
            total = _content_range_total(resp.headers.get("Content-Range", ""))
            if total is not None and offset == total:
                return True
            tr.part.unlink(missing_ok=True)
            return False
        if resp.status_code in (429, 500, 502, 503, 504):
            self._failed(tr, f"HTTP {resp.status_code}")
            return False
        if resp.status_code not in (200, 206):
            fp.state = "failed"
            raise HttpStatusError(tr.host, f.url, resp.status_code, f.filename)
        append = resp.status_code == 206 and _content_range_start(resp.headers.get("Content-Range", "")) == offset
        if not append:
            offset = 0
            with self._lock:
                fp.done = 0
        etag = resp.headers.get("ETag")
        if etag and etag != tr.meta.get("etag") or tr.meta.get("url") != f.url:
            tr.meta = {"url": f.url, "etag": etag}
            _write_json(tr.meta_path, tr.meta)
        if fp.size is None:
            total = _content_range_total(resp.headers.get("Content-Range", "")) if append else None
            length = resp.headers.get("Content-Length", "")
            if total is None and length.isdigit():
                total = int(length) + (offset if append else 0)
            fp.size = total
        self._write_body(tr, resp, append)
        have = self.cache.partial_size(f)
        expected = f.size if f.size is not None else fp.size
        if expected is not None and have < expected:
            raise requests.ConnectionError(f"connection closed at byte {have} of {expected}")
        return True

    def _write_body(self, tr: _Transfer, resp: requests.Response, append: bool) -> None:
        try:
            with open(tr.part, "ab" if append else "wb") as fh:
                for chunk in _body_chunks(resp, self.chunk_size):
                    self._check()
                    if chunk:
                        fh.write(chunk)
                        tr.progressed = True
                        self._count(len(chunk), tr.fp)
        except OSError as exc:
            if exc.errno == errno.ENOSPC:
                tr.fp.state = "failed"
                raise DiskFullError(str(self.cache.root), tr.f.filename) from exc
            raise

    def _copy_local(self, f: FileLike, fp: FileProgress, part: Path) -> None:
        from urllib.request import url2pathname  # pulls in http.client: only for file:// URLs

        src = url2pathname(urlsplit(f.url).path)
        fp.state = "downloading"
        with self._lock:
            fp.done = 0
        try:
            with open(src, "rb") as inp, open(part, "wb") as out:
                while True:
                    self._check()
                    block = inp.read(self.chunk_size)
                    if not block:
                        break
                    out.write(block)
                    with self._lock:
                        fp.done += len(block)
        except FileNotFoundError as exc:
            raise HttpStatusError("localhost", f.url, 404, f.filename) from exc

    def _sleep(self, failures: int) -> None:
        delay = self.backoff_s[min(failures, len(self.backoff_s)) - 1]
        if self._stop.wait(delay) or self.cancel.is_set():
            raise _Stop()


def _abort(resp: requests.Response) -> None:
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


def _body_chunks(resp: requests.Response, size: int):
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


def _short(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text if len(text) <= 240 else text[:237] + "..."


def _content_range_start(value: str) -> int | None:
    # "bytes 100-199/1000"
    try:
        return int(value.split()[1].split("-")[0])
    except (IndexError, ValueError):
        return None


def _content_range_total(value: str) -> int | None:
    try:
        total = value.rsplit("/", 1)[1]
    except IndexError:
        return None
    return int(total) if total.isdigit() else None


def _read_json(path: Path) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_json(path: Path, data: dict[str, Any]) -> None:
    write_atomic(path, json.dumps(data), suffix=".tmp", mkdir=True)


__all__ = ["DownloadProgress", "DownloadResult", "Downloader", "FileProgress"]
