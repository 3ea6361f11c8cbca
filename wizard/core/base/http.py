"""One way to make HTTP requests: every network reader of the wizard gets its session here.

Why one factory: the index checks, the install's downloads and size checks, the signed table
update, the course URL and the maintainers' table refresh each had their own ``requests`` set-up
with their own timeouts and headers; only the downloader said who it was, and the proxy a student
typed in the window reached the install but not the index checks. A session from
:func:`http_session` has, for every request it sends:

* a User-Agent, ``gpu-setup-wizard/<version>`` (a mirror's operator can tell us apart);
* a connect and a read timeout, AND a total deadline for the whole request -- every redirect hop,
  the headers and the body. A per-read timeout alone never ends a server that sends one byte a
  second; the body is read here in small pieces (``read1``) and the deadline checked between them,
  with the socket's own timeout shrunk to what is left, and a watchdog shuts the socket down at
  the deadline while the headers are awaited (a server may drip those too);
* the proxy typed in the window (``proxy=``) for every URL the environment's ``NO_PROXY`` does not
  exempt, else the environment's ``HTTPS_PROXY``/``HTTP_PROXY`` (requests' ``trust_env``). Plain
  ``requests`` lets the environment's proxy win over one set on the session: here the typed one wins;
* the certificates of ``REQUESTS_CA_BUNDLE`` / ``CURL_CA_BUNDLE`` (requests reads them) and of
  ``SSL_CERT_FILE`` (which requests ignores, and a university's network often sets);
* a bounded retry through urllib3's :class:`~urllib3.util.retry.Retry`: connection failures and
  502/503/504 for idempotent requests, ``retries`` times, with a short backoff, never longer than
  the deadline, and never sleeping for a server's ``Retry-After``;
* optionally (``https_only=True``) a refusal of any hop that is not https -- the first URL AND every
  redirect (``http://`` to this machine may be allowed: a classroom's own test server);
* optionally (``max_bytes=``) a cap on a body that the session reads itself.

A request made without ``stream=True`` has its body read here (deadline and cap applied); with
``stream=True`` the caller reads it with :func:`read_body` (deadline and cap applied) or, for a
large download, in its own loop (then the read timeout is what bounds a stall).

The errors are ``requests``' own kinds, so callers' existing ``except`` clauses hold:
:class:`DeadlineExceeded` is a ``requests.Timeout``, :class:`ResponseTooLarge` and
:class:`InsecureURL` are ``requests.RequestException`` (an ``OSError``).

``requests`` takes ~90 ms to import: callers import this module where they first need the
network, not at the top of a module the window loads at start-up.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

import requests
from requests.adapters import HTTPAdapter
from requests.utils import should_bypass_proxies
from urllib3 import PoolManager
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import DecodeError, ProtocolError, ReadTimeoutError, SSLError
from urllib3.response import HTTPResponse
from urllib3.util.retry import Retry

from wizard import __version__

CONNECT_TIMEOUT_S = 10.0
READ_TIMEOUT_S = 30.0  # no byte for this long: the connection is taken as dropped
DEADLINE_S = 120.0  # one whole request, every hop and the body (None: no deadline, a large download)
RETRIES = 2  # after the first try: three connections at most for one request
BACKOFF_S = 0.25  # urllib3's backoff factor: no wait before the first retry, 0.5 s before the second
MAX_BACKOFF_S = 2.0
RETRY_STATUSES = frozenset({502, 503, 504})  # a gateway or an overloaded server: worth one more try
CHUNK = 16 * 1024
REDIRECT_BODY_MAX = 64 * 1024  # a redirect's body is only read to be dropped
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})

Timeout = tuple[float, float]

_state = threading.local()  # the deadline of the request this thread is sending (sessions may be shared)


def user_agent() -> str:
    """``gpu-setup-wizard/<version>``: what every request of the wizard says it is."""
    return f"gpu-setup-wizard/{__version__}"


class DeadlineExceeded(requests.Timeout):
    """The whole request (every hop, headers and body) took longer than its deadline."""

    def __init__(self, url: str, seconds: float) -> None:
        super().__init__(f"{url}: no complete answer within {seconds:.0f} s")
        self.url = url
        self.seconds = seconds


class ResponseTooLarge(requests.RequestException):
    """The body is larger than the reader's cap; nothing of it is kept."""

    def __init__(self, url: str, limit: int) -> None:
        super().__init__(f"{url}: larger than {limit} bytes")
        self.url = url
        self.limit = limit


class InsecureURL(requests.RequestException):
    """A hop (the first URL or a redirect) is not https where only https is allowed."""

    def __init__(self, url: str) -> None:
        super().__init__(f"{url}: not an https address")
        self.url = url


def url_allowed(url: str, *, allow_loopback_http: bool = False) -> bool:
    """True for an ``https://`` URL, and for ``http://`` to this machine when ``allow_loopback_http``.

    "This machine" is exactly 127.0.0.1, ``localhost`` or ``::1`` (not 127.0.0.2, not a name that
    resolves to loopback): the rule must not depend on what a resolver answers."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
    except ValueError:  # an unbalanced "[" in the host, a bad port
        return False
    scheme = parts.scheme.lower()
    if scheme == "https":
        return bool(host)
    return allow_loopback_http and scheme == "http" and host in LOOPBACK_HOSTS


def proxy_map(proxy: str | Mapping[str, str] | None) -> dict[str, str]:
    """A proxy as typed (``http://proxy:3128``) or as requests' mapping → the mapping ({} for none)."""
    if proxy is None:
        return {}
    if isinstance(proxy, str):
        proxy = proxy.strip()
        return {"http": proxy, "https": proxy} if proxy else {}
    return {k: v for k, v in proxy.items() if v}


class _DeadlineRetry(Retry):
    """urllib3's Retry, exhausted once the current request's deadline has passed."""

    def is_exhausted(self) -> bool:
        deadline: float | None = getattr(_state, "deadline", None)
        if deadline is not None and time.monotonic() >= deadline:
            return True
        return bool(super().is_exhausted())


def _retry(retries: int) -> Retry:
    retries = max(0, retries)
    return _DeadlineRetry(total=retries, connect=retries, read=retries, status=retries, redirect=0,
                          other=0, backoff_factor=BACKOFF_S, backoff_max=MAX_BACKOFF_S,
                          status_forcelist=RETRY_STATUSES, raise_on_status=False,
                          respect_retry_after_header=False)


class WizardSession(requests.Session):
    """A ``requests.Session`` with the wizard's rules (see the module's docstring).

    Safe to share between threads as requests' own session is: the per-request deadline is kept
    per thread."""

    def __init__(self, *, timeout: Timeout = (CONNECT_TIMEOUT_S, READ_TIMEOUT_S),
                 deadline_s: float | None = DEADLINE_S, retries: int = RETRIES,
                 proxy: str | Mapping[str, str] | None = None, https_only: bool = False,
                 allow_loopback_http: bool = False, max_bytes: int | None = None) -> None:
        super().__init__()
        self.headers["User-Agent"] = user_agent()
        self.timeout = timeout
        self.deadline_s = deadline_s
        self.explicit_proxies = proxy_map(proxy)
        self.https_only = https_only
        self.allow_loopback_http = allow_loopback_http
        self.max_bytes = max_bytes
        cafile = os.environ.get("SSL_CERT_FILE", "")
        if cafile and os.path.isfile(cafile):
            # requests reads REQUESTS_CA_BUNDLE / CURL_CA_BUNDLE itself (they win over this)
            self.verify = cafile
        adapter = _Adapter(self, max_retries=_retry(retries))
        self.mount("https://", adapter)
        self.mount("http://", adapter)

    def set_proxy(self, proxy: str | Mapping[str, str] | None) -> None:
        """Use ``proxy`` (as typed in the window) for every URL ``NO_PROXY`` does not exempt."""
        self.explicit_proxies = proxy_map(proxy)

    # requests calls request() once, and send() for the first URL and for every redirect hop
    def request(self, method: str, url: str | bytes, *args: Any, **kwargs: Any) -> requests.Response:
        if len(args) < 8 and kwargs.get("timeout") is None:  # timeout is request()'s 9th parameter
            kwargs["timeout"] = self.timeout
        before = getattr(_state, "deadline", None)
        _state.deadline = time.monotonic() + self.deadline_s if self.deadline_s else None
        try:
            return super().request(method, url, *args, **kwargs)
        finally:
            _state.deadline = before

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:
        url = request.url or ""
        if self.https_only and not url_allowed(url, allow_loopback_http=self.allow_loopback_http):
            raise InsecureURL(url)
        deadline: float | None = getattr(_state, "deadline", None)
        own = deadline is None and self.deadline_s is not None  # send() called directly
        if own and self.deadline_s is not None:
            deadline = _state.deadline = time.monotonic() + self.deadline_s
        try:
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise DeadlineExceeded(url, self.deadline_s or 0.0)
                kwargs["timeout"] = _capped(kwargs.get("timeout") or self.timeout, left)
            stream = bool(kwargs.get("stream"))
            kwargs["stream"] = True
            with _Watchdog(deadline) as watchdog:
                try:
                    resp = super().send(request, **kwargs)  # redirects: requests calls send() for each hop
                    if watchdog.fired:  # a cut read can end the headers as if they were complete
                        resp.close()
                        raise DeadlineExceeded(url, self.deadline_s or 0.0)
                    if not stream:
                        _keep_body(resp, self.max_bytes)
                        if watchdog.fired:  # a body without a length, cut: it is not the whole body
                            raise DeadlineExceeded(url, self.deadline_s or 0.0)
                except requests.RequestException as exc:
                    if watchdog.fired and not isinstance(exc, DeadlineExceeded):
                        raise DeadlineExceeded(url, self.deadline_s or 0.0) from exc
                    raise
            return resp
        finally:
            if own:
                _state.deadline = None

    def merge_environment_settings(self, url: str, proxies: dict[str, str] | None, stream: bool | None,
                                   verify: bool | str | None, cert: str | tuple[str, str] | None) -> dict[str, Any]:
        settings: dict[str, Any] = super().merge_environment_settings(url, proxies, stream, verify, cert)
        if self.explicit_proxies and not (self.trust_env and url and should_bypass_proxies(url, None)):
            settings["proxies"] = dict(self.explicit_proxies)
        return settings


class _Watchdog:
    """Shuts down the sockets the current hop reads its answer from once ``deadline`` passes: a
    server that drips its status line and headers (each byte within the read timeout) is ended
    there. The sockets are those :class:`_WatchedConnection` registers on this thread."""

    def __init__(self, deadline: float | None) -> None:
        self.deadline = deadline
        self.fired = False
        self.sockets: list[socket.socket] = []
        self._timer: threading.Timer | None = None
        self._before: list[socket.socket] | None = None

    def __enter__(self) -> _Watchdog:
        self._before = getattr(_state, "sockets", None)
        _state.sockets = self.sockets
        if self.deadline is not None:
            self._timer = threading.Timer(max(0.0, self.deadline - time.monotonic()), self._fire)
            self._timer.daemon = True
            self._timer.start()
        return self

    def _fire(self) -> None:
        self.fired = True
        for sock in list(self.sockets):
            try:
                sock.shutdown(socket.SHUT_RDWR)  # wakes a blocked recv on every OS; closing does not
            except OSError:
                pass  # already closed

    def __exit__(self, *exc: object) -> None:
        if self._timer is not None:
            self._timer.cancel()
        _state.sockets = self._before


class _WatchedConnection(HTTPConnection):
    """urllib3's connection, telling this thread's :class:`_Watchdog` which socket it reads from."""

    def getresponse(self) -> HTTPResponse:  # type: ignore[override]  # urllib3's own signature
        sockets: list[socket.socket] | None = getattr(_state, "sockets", None)
        if sockets is not None and isinstance(self.sock, socket.socket):
            sockets.append(self.sock)
        return super().getresponse()


class _WatchedHTTPSConnection(HTTPSConnection):
    def getresponse(self) -> HTTPResponse:  # type: ignore[override]  # urllib3's own signature
        sockets: list[socket.socket] | None = getattr(_state, "sockets", None)
        if sockets is not None and isinstance(self.sock, socket.socket):
            sockets.append(self.sock)
        return super().getresponse()


class _HTTPPool(HTTPConnectionPool):
    ConnectionCls = _WatchedConnection


class _HTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _WatchedHTTPSConnection


_POOLS = {"http": _HTTPPool, "https": _HTTPSPool}


class _Adapter(HTTPAdapter):
    """requests' adapter, marking each hop's response with its deadline and cap, and reading a
    redirect's body itself (bounded): requests reads it unbounded before following the redirect."""

    def __init__(self, session: WizardSession, max_retries: Retry) -> None:
        super().__init__(max_retries=max_retries)
        self._session = session

    def init_poolmanager(self, connections: int, maxsize: int, block: bool = False, **pool_kwargs: Any) -> None:
        super().init_poolmanager(connections, maxsize, block, **pool_kwargs)
        self.poolmanager.pool_classes_by_scheme = _POOLS  # the watched connections

    def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> PoolManager:
        manager: PoolManager = super().proxy_manager_for(proxy, **proxy_kwargs)  # a (SOCKS)ProxyManager
        if not proxy.lower().startswith("socks"):  # a SOCKS proxy's pools are its own
            manager.pool_classes_by_scheme = _POOLS
        return manager

    def send(self, request: requests.PreparedRequest, *args: Any, **kwargs: Any) -> requests.Response:
        resp = super().send(request, *args, **kwargs)
        resp.wizard_deadline = getattr(_state, "deadline", None)  # type: ignore[attr-defined]  # for read_body
        resp.wizard_deadline_s = self._session.deadline_s  # type: ignore[attr-defined]
        resp.wizard_max_bytes = self._session.max_bytes  # type: ignore[attr-defined]
        if resp.is_redirect:
            _keep_body(resp, REDIRECT_BODY_MAX)
        return resp


RequestTimeout = float | tuple[float | None, float | None] | None  # what requests takes as ``timeout``


def _capped(timeout: RequestTimeout, left: float) -> float | tuple[float, float]:
    """``timeout`` (a number or a (connect, read) pair) with each part at most ``left`` seconds."""
    if isinstance(timeout, tuple):
        connect, read = timeout
        return (left if connect is None else min(float(connect), left),
                left if read is None else min(float(read), left))
    if isinstance(timeout, (int, float)):
        return min(float(timeout), left)
    return (min(CONNECT_TIMEOUT_S, left), min(READ_TIMEOUT_S, left))


def _socket_of(resp: requests.Response) -> socket.socket | None:
    """The response's socket (urllib3 keeps it on the connection: private, looked up defensively)."""
    conn = getattr(resp.raw, "_connection", None)
    sock = getattr(conn, "sock", None)
    if sock is None:
        fp = getattr(getattr(getattr(resp.raw, "_fp", None), "fp", None), "raw", None)
        sock = getattr(fp, "_sock", None)
    return sock if isinstance(sock, socket.socket) else None


def _keep_body(resp: requests.Response, limit: int | None) -> None:
    """Read the body now (bounded) and keep it where ``resp.content`` / ``resp.text`` find it."""
    try:
        body = read_body(resp, limit)
    except BaseException:
        resp.close()
        raise
    resp._content = body  # what requests' own `content` property fills
    resp._content_consumed = True
    resp.raw.release_conn()  # read to the end: the connection may serve the next request


def read_body(resp: requests.Response, limit: int | None = None) -> bytes:
    """The whole (decoded) body of a ``stream=True`` response from a :class:`WizardSession`, within
    the request's deadline and at most ``limit`` bytes (default: the session's ``max_bytes``).

    Raises :class:`DeadlineExceeded`, :class:`ResponseTooLarge`, or requests' ConnectionError /
    ChunkedEncodingError / ContentDecodingError as ``resp.content`` would."""
    if resp._content_consumed and isinstance(resp._content, bytes):
        body: bytes = resp._content
        if limit is not None and len(body) > limit:
            raise ResponseTooLarge(resp.url, limit)
        return body
    deadline: float | None = getattr(resp, "wizard_deadline", None)
    seconds: float = getattr(resp, "wizard_deadline_s", None) or 0.0
    if limit is None:
        limit = getattr(resp, "wizard_max_bytes", None)
    raw = resp.raw
    read1 = getattr(raw, "read1", None)  # what has arrived, at once (urllib3 2); 1.26 has only read()
    chunks: list[bytes] = []
    size = 0
    try:
        while True:
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise DeadlineExceeded(resp.url, seconds)
                sock = _socket_of(resp)
                if sock is not None:  # a stall near the deadline ends at the deadline, not a read timeout later
                    current = sock.gettimeout()
                    sock.settimeout(left if current is None else min(current, left))
            data = read1(CHUNK, decode_content=True) if read1 is not None else raw.read(CHUNK, decode_content=True)
            if not data:
                break
            size += len(data)
            if limit is not None and size > limit:
                raise ResponseTooLarge(resp.url, limit)
            chunks.append(data)
    except ProtocolError as exc:
        raise requests.exceptions.ChunkedEncodingError(exc) from exc
    except DecodeError as exc:
        raise requests.exceptions.ContentDecodingError(exc) from exc
    except ReadTimeoutError as exc:
        if deadline is not None and time.monotonic() >= deadline:
            raise DeadlineExceeded(resp.url, seconds) from exc
        raise requests.exceptions.ConnectionError(exc) from exc
    except SSLError as exc:
        raise requests.exceptions.SSLError(exc) from exc
    except (socket.timeout, TimeoutError) as exc:
        raise DeadlineExceeded(resp.url, seconds) from exc
    return b"".join(chunks)


def http_session(*, timeout: Timeout = (CONNECT_TIMEOUT_S, READ_TIMEOUT_S), deadline_s: float | None = DEADLINE_S,
                 retries: int = RETRIES, proxy: str | Mapping[str, str] | None = None, https_only: bool = False,
                 allow_loopback_http: bool = False, max_bytes: int | None = None) -> WizardSession:
    """A session with the wizard's User-Agent, timeouts, deadline, proxy, certificates and retry.

    ``proxy``: the one typed in the window ("" or None: the environment's). ``deadline_s=None``
    for a large download, which is bounded by its read timeout and its own budget instead.
    ``retries=0`` where the caller retries itself (the downloader resumes from the byte it reached).
    """
    return WizardSession(timeout=timeout, deadline_s=deadline_s, retries=retries, proxy=proxy,
                         https_only=https_only, allow_loopback_http=allow_loopback_http, max_bytes=max_bytes)


def set_proxy(session: requests.Session, proxy: str | Mapping[str, str] | None) -> None:
    """Give ``session`` the typed ``proxy``: a :class:`WizardSession`'s wins over the environment's;
    on a plain session (a test's factory) it is requests' own ``session.proxies``."""
    if isinstance(session, WizardSession):
        session.set_proxy(proxy)
    else:
        session.proxies.update(proxy_map(proxy))


__all__ = ["CONNECT_TIMEOUT_S", "DEADLINE_S", "DeadlineExceeded", "InsecureURL", "LOOPBACK_HOSTS", "READ_TIMEOUT_S",
           "RETRIES", "ResponseTooLarge", "WizardSession", "http_session", "proxy_map", "read_body", "set_proxy",
           "url_allowed", "user_agent"]
