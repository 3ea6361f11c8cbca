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
* the session is the wizard's one HTTP session (:mod:`wizard.core.base.http`): its User-Agent,
  the proxy typed in the window or the environment's, the certificates; a mirror is simply
  another URL in the plan.

Threads: :meth:`Downloader.fetch` blocks. It runs the transfers on a small pool and calls the
``progress`` callback on *its own* thread, every ``progress_interval_s`` -- in the GUI that is
a worker thread, which forwards the :class:`DownloadProgress` to the page with a signal.
``cancel`` (a ``threading.Event``) stops every transfer within a fraction of a second: the
open responses are closed from the calling thread, so even a stalled read ends at once.

Never looping for ever: each file has a budget. A server that answers a ``Range`` request
with the whole file (``python -m http.server``, many mirrors) makes every retry start again at
byte 0; on a link that breaks every 30 MB a 200 MB file then never arrives. So a file may be
started again from 0 at most ``max_restarts`` times (then :class:`ResumeUnsupported` says the
server does not support resuming), fetch at most ``budget_factor`` times its size in one run,
and use at most ``max_attempts`` connections (then :class:`DownloadGaveUp`); and only an attempt
that brought *new* bytes (past the furthest point reached) resets the failure count. The speed
and ETA shown are the speed of that real progress, not of bytes fetched again.

Two installs sharing the cache take a lock per file (:mod:`wizard.core.install.locks`): the
second waits, then finds the file finished.

The cache folder is :mod:`wizard.core.install.cache`, the errors :mod:`wizard.core.install.download_errors`,
the HTTP helpers :mod:`wizard.core.install.download_http`.
"""

from __future__ import annotations

import collections
import errno
import threading
import time
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence
from urllib.parse import urlsplit

from wizard.core.base.lazy import lazy_import

if TYPE_CHECKING:
    import requests
    import urllib3
else:
    requests = lazy_import("requests")  # loads on first use: not at the window's start-up
    urllib3 = lazy_import("urllib3")

from wizard.core.base.files import replace_file
from wizard.core.install.cache import FileLike, WheelCache, sha256_file
from wizard.core.install.download_errors import (
    DiskFullError,
    DownloadCancelled,
    DownloadGaveUp,
    HashMismatch,
    HttpStatusError,
    NetworkError,
    ResumeUnsupported,
)
from wizard.core.install.download_http import (
    abort,
    body_chunks,
    content_range_start,
    content_range_total,
    read_json,
    short,
    write_json,
)
from wizard.core.install.download_progress import DownloadProgress, DownloadResult, FileProgress, rates, settle_stopped
from wizard.core.install.locks import acquire_waiting, cache_file_lock

DEFAULT_PARALLEL = 3  # a few at once: more does not help one link, and torch is one big file anyway
DEFAULT_TIMEOUT = (10.0, 60.0)  # connect, read (a stalled read for a minute = a dropped connection)
DEFAULT_RETRIES = 5  # consecutive failed attempts without real progress (see MIN_PROGRESS)
DEFAULT_MAX_RESTARTS = 3  # starts from byte 0 after asking to resume: then the server cannot resume
DEFAULT_BUDGET_FACTOR = 3.0  # bytes over the network for one file in one run, times its size
BUDGET_SLACK = 1024 * 1024  # ... and at least this much above its size (tiny files)
DEFAULT_MAX_ATTEMPTS = 500  # connections for one file in one run, whatever each brought
MIN_PROGRESS = 64 * 1024  # new bytes an attempt must bring to count as progress
DEFAULT_BACKOFF = (0.5, 1.0, 2.0, 4.0, 8.0)
CHUNK = 256 * 1024
SPEED_WINDOW_S = 3.0


# --------------------------------------------------------------------------------------------
# The downloader
# --------------------------------------------------------------------------------------------


def _default_session() -> requests.Session:
    """The wizard's HTTP session (:mod:`wizard.core.base.http`) for downloads: no total deadline
    (a 2.5 GB wheel on a slow link is not a hung server; a stall is ended by the read timeout)
    and no retry of its own (the transfer loop below resumes from the byte it reached)."""
    from wizard.core.base.http import http_session

    return http_session(timeout=DEFAULT_TIMEOUT, deadline_s=None, retries=0)


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
    failures: int = 0  # attempts in a row that brought no real progress
    last_detail: str = ""
    best_before: int = 0  # fp.best when the current attempt began
    # sha256 of the partial file's bytes, kept while they arrive in order from byte 0 (None: the
    # file was resumed from an earlier run or restarted oddly -- hashed from disk at the end)
    digest: Any = None
    digest_len: int = 0


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
                 chunk_size: int = CHUNK, max_restarts: int = DEFAULT_MAX_RESTARTS,
                 budget_factor: float = DEFAULT_BUDGET_FACTOR, max_attempts: int = DEFAULT_MAX_ATTEMPTS,
                 min_progress: int = MIN_PROGRESS) -> None:
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
        self.max_restarts = max(0, max_restarts)
        self.budget_factor = max(1.0, budget_factor)
        self.max_attempts = max(1, max_attempts)
        self.min_progress = max(1, min_progress)
        self._local = threading.local()
        self._lock = threading.Lock()
        self._stop = threading.Event()  # cancel, or a failure elsewhere
        self._responses: set[requests.Response] = set()
        self._hashed: dict[str, tuple[int, str]] = {}  # partial file → (bytes hashed, sha256) as it arrived
        self._fetched = 0
        self._useful = 0  # bytes that took a file past the furthest point it had reached
        self._samples: collections.deque[tuple[float, int, int]] = collections.deque()
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
        self._useful = 0
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
        if error is not None:
            settle_stopped(progress.values())
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
            abort(resp)

    def _session(self) -> requests.Session:
        sess = getattr(self._local, "session", None)
        if sess is None:
            sess = self.session_factory()
            if self.proxies is not None:
                from wizard.core.base.http import set_proxy

                set_proxy(sess, self.proxies)  # the typed proxy wins over the environment's
            self._local.session = sess
        return sess

    def _check(self) -> None:
        if self._stop.is_set() or self.cancel.is_set():
            raise _Stop()

    def _count(self, n: int, fp: FileProgress) -> None:
        with self._lock:
            self._fetched += n
            fp.fetched += n
            fp.done += n
            if fp.done > fp.best:
                self._useful += fp.done - max(fp.best, fp.done - n)
                fp.best = fp.done

    def _emit(self, progress: dict[str, FileProgress]) -> None:
        now = time.monotonic()
        with self._lock:
            fetched, useful = self._fetched, self._useful
            files = [FileProgress(**vars(p)) for p in progress.values()]
        self._samples.append((now, fetched, useful))
        while len(self._samples) > 2 and now - self._samples[0][0] > SPEED_WINDOW_S:
            self._samples.popleft()
        speed, network = rates(self._samples)
        total = sum(f.size or 0 for f in files)
        done = sum(min(f.done, f.size) if f.size else f.done for f in files)
        cached = sum(f.size or f.done for f in files if f.state == "cached")
        eta = max(0, total - done) / speed if speed > 0 else None
        snap = DownloadProgress(files, total, done, fetched, cached, speed, eta, now - self._start,
                                unknown_sizes=sum(1 for f in files if f.size is None), network_bps=network,
                                restarts=sum(f.restarts for f in files))
        if self.progress is not None:
            self.progress(snap)

    def _one(self, f: FileLike, fp: FileProgress, result: DownloadResult) -> None:
        """One file: from the cache, or fetched under the file's lock (another install sharing
        the cache may be fetching it: wait, then take it from the cache)."""
        self._check()
        if self._from_cache(f, fp, result):
            return
        lock = cache_file_lock(self.cache.lock_path(f))

        def waiting() -> None:
            with self._lock:
                fp.waiting_for_other = True

        if not acquire_waiting(lock, lambda: self._stop.is_set() or self.cancel.is_set(), waiting):
            raise _Stop()
        try:
            with self._lock:
                fp.waiting_for_other = False
            if self._from_cache(f, fp, result):  # the other install finished it meanwhile
                return
            self._fetch_checked(f, fp, result)
        finally:
            lock.release()

    def _from_cache(self, f: FileLike, fp: FileProgress, result: DownloadResult) -> bool:
        cached = self.cache.verified(f, self.cancel)
        if cached is None:
            return False
        size = cached.stat().st_size
        with self._lock:
            fp.size = fp.size or size
            fp.done = size
            fp.state = "cached"
            result.from_cache_bytes += size
            result.paths[f.filename] = cached
        return True

    def _fetch_checked(self, f: FileLike, fp: FileProgress, result: DownloadResult) -> None:
        """Fetch into the partial file, check the hash (once more on a mismatch), move it in."""
        for attempt in (1, 2):
            resumed = self._to_partial(f, fp)
            if attempt == 1:
                with self._lock:
                    result.resumed_bytes += resumed
            part = self.cache.partial(f)
            fp.state = "verifying"
            with self._lock:
                known = self._hashed.pop(str(part), None)
            # hashed while it arrived (no second read of a 2 GB file), else from disk
            actual = known[1] if known is not None and known[0] == part.stat().st_size \
                else sha256_file(part, self.cancel)
            if f.sha256 is not None and actual != f.sha256:
                part.unlink(missing_ok=True)
                with self._lock:
                    fp.done = fp.best = 0  # bad bytes were no progress: the new copy is
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
        tr.meta = read_json(tr.meta_path)
        if tr.meta.get("url") not in (None, f.url):
            # The same file (partials are named by its sha256) from another server: a mirror set
            # after a network failure. Its bytes are still good -- the hash check at the end
            # proves it -- but the old server's ETag means nothing to the new one.
            tr.meta = {}
        start_size = self.cache.partial_size(f)
        with self._lock:
            fp.resumed_from = start_size
            fp.done = start_size
            fp.best = max(fp.best, start_size)
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
            self._within_budget(tr, starting=True)
            resp = self._request(tr, offset)
            if resp is not None and self._receive_guarded(tr, resp, offset):
                if tr.digest is not None:
                    with self._lock:
                        self._hashed[str(part)] = (tr.digest_len, tr.digest.hexdigest())
                return start_size

    def _budget(self, size: int | None) -> int | None:
        if size is None:
            return None
        return max(int(size * self.budget_factor), size + BUDGET_SLACK)

    def _within_budget(self, tr: _Transfer, starting: bool = False) -> None:
        """Stop this file when its budget is spent: bytes (``budget_factor`` × its size) or, before
        a new connection, ``max_attempts`` connections. The server's failure to resume is named
        when it is the reason; what arrived stays in the partial file."""
        fp = tr.fp
        budget = self._budget(tr.f.size if tr.f.size is not None else fp.size)
        over_bytes = budget is not None and fp.fetched > budget
        over_attempts = starting and fp.attempts >= self.max_attempts
        if not (over_bytes or over_attempts):
            return
        fp.state = "failed"
        if fp.restarts:
            raise ResumeUnsupported(tr.host, tr.f.url, tr.f.filename, fp.fetched, fp.size, fp.restarts)
        raise DownloadGaveUp(tr.host, tr.f.url, tr.f.filename, fp.fetched, fp.size, fp.attempts)

    def _restarted(self, tr: _Transfer) -> None:
        """The server sent the file from byte 0 although we asked to resume (or the range went
        wrong): one restart more; past ``max_restarts`` the server cannot resume on this link."""
        fp = tr.fp
        with self._lock:
            fp.restarts += 1
            fp.done = 0
        if fp.restarts > self.max_restarts:
            fp.state = "failed"
            raise ResumeUnsupported(tr.host, tr.f.url, tr.f.filename, fp.fetched, fp.size, fp.restarts)

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
        tr.best_before = tr.fp.best
        try:
            return self._session().get(tr.f.url, headers=headers, stream=True, timeout=self.timeout)
        except (requests.ConnectionError, requests.Timeout) as exc:
            self._check()
            self._failed(tr, short(exc), exc)
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
        turned into a retry: at once when the attempt brought new bytes (at least
        ``min_progress`` past the furthest point reached), else after a back-off."""
        with self._lock:
            self._responses.add(resp)
        try:
            return self._receive(tr, resp, offset)
        except (requests.ConnectionError, requests.Timeout, requests.exceptions.ChunkedEncodingError,
                urllib3.exceptions.HTTPError, ConnectionError, TimeoutError) as exc:
            self._check()
            if tr.fp.restarts >= self.max_restarts:  # it broke again: asking once more starts at 0 again
                tr.fp.state = "failed"
                raise ResumeUnsupported(tr.host, tr.f.url, tr.f.filename, tr.fp.fetched, tr.fp.size,
                                        tr.fp.restarts) from exc
            if tr.fp.best - tr.best_before >= self.min_progress:
                tr.failures = 0
                tr.last_detail = short(exc)
            else:
                self._failed(tr, short(exc), exc)
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
            total = content_range_total(resp.headers.get("Content-Range", ""))
            if total is not None and offset == total:
                return True
            tr.part.unlink(missing_ok=True)
            self._restarted(tr)
            return False
        if resp.status_code in (429, 500, 502, 503, 504):
            self._failed(tr, f"HTTP {resp.status_code}")
            return False
        if resp.status_code not in (200, 206):
            fp.state = "failed"
            raise HttpStatusError(tr.host, f.url, resp.status_code, f.filename)
        start = content_range_start(resp.headers.get("Content-Range", ""))
        if resp.status_code == 206 and start != offset:  # a range we did not ask for: start clean
            tr.part.unlink(missing_ok=True)
            self._restarted(tr)
            return False
        append = resp.status_code == 206
        if not append:
            if offset:  # asked to resume, got the whole file: the bytes we had are fetched again
                self._restarted(tr)
            offset = 0
            with self._lock:
                fp.done = 0
        etag = resp.headers.get("ETag")
        if etag and etag != tr.meta.get("etag") or tr.meta.get("url") != f.url:
            tr.meta = {"url": f.url, "etag": etag}
            write_json(tr.meta_path, tr.meta)
        if fp.size is None:
            total = content_range_total(resp.headers.get("Content-Range", "")) if append else None
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
        if not append:
            import hashlib

            tr.digest, tr.digest_len = hashlib.sha256(), 0
        elif tr.digest is not None and tr.digest_len != self.cache.partial_size(tr.f):
            tr.digest = None  # the bytes on disk are not the ones hashed: hash the file at the end
        try:
            with open(tr.part, "ab" if append else "wb") as fh:
                for chunk in body_chunks(resp, self.chunk_size):
                    self._check()
                    if chunk:
                        fh.write(chunk)
                        if tr.digest is not None:
                            tr.digest.update(chunk)
                            tr.digest_len += len(chunk)
                        self._count(len(chunk), tr.fp)
                        self._within_budget(tr)
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


__all__ = ["Downloader"]  # the first: re-exported
