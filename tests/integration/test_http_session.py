"""The one HTTP session factory (wizard/core/base/http.py) against real servers on 127.0.0.1.

Each test would fail on the requests set-ups it replaced: a plain ``requests.get`` sends
``python-requests/…``, reads a one-byte-a-second body for ever, follows a redirect to any scheme
and host, retries nothing, and lets the environment's proxy win over a typed one.
"""

from __future__ import annotations

import collections
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests

from wizard import __version__
from wizard.core.base import http
from wizard.core.course.profile import CourseError, load_course

GOOD_COURSE = b'schema = "gpu-setup-wizard/course@1.0"\n[course]\nname = "Lab"\n'


@dataclass
class Server:
    """Routes on 127.0.0.1; counts GETs per path and keeps each request's User-Agent."""

    hits: collections.Counter[str] = field(default_factory=collections.Counter)
    agents: list[str] = field(default_factory=list)
    port: int = 0
    _httpd: ThreadingHTTPServer | None = None

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    def handle(self, h: BaseHTTPRequestHandler) -> None:
        path = h.path.split("?", 1)[0]
        self.hits[path] += 1
        self.agents.append(h.headers.get("User-Agent", ""))
        if path == "/drip":  # headers at once, then one byte a second for a minute
            h.send_response(200)
            h.send_header("Content-Length", "60")
            h.end_headers()
            for _ in range(60):
                try:
                    h.wfile.write(b"x")
                    h.wfile.flush()
                except OSError:
                    return
                time.sleep(1.0)
            return
        if path == "/drip-headers":  # the status line, then a header line every half second for 30 s
            h.wfile.write(b"HTTP/1.1 200 OK\r\n")
            for i in range(60):
                try:
                    h.wfile.write(b"X-Drip-%d: x\r\n" % i)
                    h.wfile.flush()
                except OSError:
                    return
                time.sleep(0.5)
            return
        if path == "/busy":
            return self._send(h, 503, b"busy")
        if path == "/big":
            return self._send(h, 200, b"y" * 200_000)
        if path.startswith("/to-"):  # /to-<host> → http://<host>:<port>/good.toml
            h.send_response(302)
            h.send_header("Location", self.url("/good.toml", path[4:]))
            h.send_header("Content-Length", "0")
            h.end_headers()
            return
        if path == "/good.toml":
            return self._send(h, 200, GOOD_COURSE)
        return self._send(h, 200, b"ok")

    @staticmethod
    def _send(h: BaseHTTPRequestHandler, status: int, body: bytes) -> None:
        h.send_response(status)
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)

    def __enter__(self) -> "Server":
        self._httpd = _serve(self.handle, "0.0.0.0")  # 127.0.0.2 must reach it too (a redirect target)
        self.port = self._httpd.server_address[1]
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._httpd is not None
        self._httpd.shutdown()
        self._httpd.server_close()


def _serve(handle, host: str = "127.0.0.1") -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            handle(self)

    httpd = ThreadingHTTPServer((host, 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    return httpd


@pytest.fixture
def server() -> Iterator[Server]:
    with Server() as s:
        yield s


@pytest.fixture
def proxy() -> Iterator[list[str]]:
    """A loopback HTTP proxy that answers every request itself and keeps the URL it was asked for."""
    seen: list[str] = []

    def handle(h: BaseHTTPRequestHandler) -> None:
        seen.append(h.path)  # absolute-form: http://host:port/path
        Server._send(h, 200, b"via proxy")

    httpd = _serve(handle)
    seen.append(f"http://127.0.0.1:{httpd.server_address[1]}")  # [0]: the proxy's own address
    yield seen
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(autouse=True)
def no_environment_proxy(monkeypatch):
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy",
                 "NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)


def test_every_request_says_it_is_the_wizard(server):
    resp = http.http_session().get(server.url("/hello"))
    assert resp.status_code == 200 and resp.content == b"ok"
    assert server.agents == [f"gpu-setup-wizard/{__version__}"]


def test_a_slow_drip_body_is_given_up_at_the_deadline(server):
    sess = http.http_session(timeout=(2.0, 5.0), deadline_s=3.0)
    start = time.monotonic()
    with pytest.raises(http.DeadlineExceeded):
        sess.get(server.url("/drip"))
    took = time.monotonic() - start
    assert 2.5 < took < 5.0, took  # the read timeout (5 s) never fires: a byte comes every second


def test_dripping_headers_are_given_up_at_the_deadline(server):
    sess = http.http_session(timeout=(2.0, 5.0), deadline_s=2.0)
    for stream in (False, True):
        start = time.monotonic()
        with pytest.raises(http.DeadlineExceeded):
            sess.get(server.url("/drip-headers"), stream=stream)
        assert time.monotonic() - start < 4.0  # the server goes on for 30 s


def test_a_streamed_slow_drip_is_given_up_at_the_deadline_too(server):
    sess = http.http_session(timeout=(2.0, 5.0), deadline_s=2.0)
    start = time.monotonic()
    with sess.get(server.url("/drip"), stream=True) as resp, pytest.raises(requests.Timeout):
        http.read_body(resp)
    assert time.monotonic() - start < 4.0


def test_the_course_url_has_a_total_deadline(server, monkeypatch):
    from wizard.core.course import profile

    monkeypatch.setattr(profile, "URL_DEADLINE_S", 2.0)
    start = time.monotonic()
    with pytest.raises(CourseError):
        load_course(server.url("/drip"))
    assert time.monotonic() - start < 5.0


def test_a_body_over_the_cap_is_refused(server):
    with pytest.raises(http.ResponseTooLarge):
        http.http_session(max_bytes=100_000).get(server.url("/big"))
    assert len(http.http_session(max_bytes=300_000).get(server.url("/big")).content) == 200_000


def test_retry_is_bounded(server):
    resp = http.http_session(retries=2).get(server.url("/busy"))
    assert resp.status_code == 503  # the last answer, after the retries
    assert server.hits["/busy"] == 3
    server.hits.clear()
    assert http.http_session(retries=0).get(server.url("/busy")).status_code == 503
    assert server.hits["/busy"] == 1


def test_a_refused_connection_is_retried_a_bounded_number_of_times():
    import socket

    with socket.socket() as s:  # a port that was free a moment ago: nothing listens on it
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    start = time.monotonic()
    with pytest.raises(requests.ConnectionError):
        http.http_session(retries=2).get(f"http://127.0.0.1:{port}/")
    assert time.monotonic() - start < 5.0


def test_the_typed_proxy_is_used_and_wins_over_the_environment(server, proxy, monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # the environment's: a closed port
    resp = http.http_session(proxy=proxy[0]).get(server.url("/through"))
    assert resp.content == b"via proxy"
    assert proxy[1:] == [server.url("/through")]
    assert server.hits["/through"] == 0
    # NO_PROXY still exempts a host from the typed proxy (a classroom's own server)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    assert http.http_session(proxy=proxy[0]).get(server.url("/direct")).content == b"ok"
    assert len(proxy) == 2 and server.hits["/direct"] == 1


def test_the_environments_proxy_is_used_without_a_typed_one(server, proxy, monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", proxy[0])
    assert http.http_session().get(server.url("/env")).content == b"via proxy"
    assert proxy[1:] == [server.url("/env")]


def test_a_plain_redirect_is_followed_when_https_is_not_required(server):
    resp = http.http_session().get(server.url("/to-127.0.0.1"))
    assert resp.content == GOOD_COURSE and server.hits["/good.toml"] == 1


def test_every_hop_is_checked_when_only_https_is_allowed(server):
    sess = http.http_session(https_only=True, allow_loopback_http=True)
    assert sess.get(server.url("/to-127.0.0.1")).content == GOOD_COURSE  # both hops to this machine
    with pytest.raises(http.InsecureURL) as err:
        sess.get(server.url("/to-127.0.0.2"))  # the second hop: plain http to another host
    assert err.value.url == server.url("/good.toml", "127.0.0.2")
    assert server.hits["/good.toml"] == 1  # the refused hop was never asked


def test_a_course_url_redirecting_to_plain_http_elsewhere_is_refused(server):
    """red-team finding 7: http://127.0.0.1/… → http://127.0.0.2/… was followed and used."""
    assert load_course(server.url("/to-127.0.0.1")).name == "Lab"
    with pytest.raises(CourseError) as err:
        load_course(server.url("/to-127.0.0.2"))
    assert "127.0.0.2" in err.value.text("en") and "https" in err.value.text("ko")
    assert server.hits["/good.toml"] == 1


@pytest.mark.parametrize(("url", "loopback", "ok"), [
    ("https://example.org/c.toml", False, True),
    ("HTTPS://example.org/c.toml", False, True),
    ("http://example.org/c.toml", True, False),
    ("http://127.0.0.1:8000/c.toml", True, True),
    ("http://127.0.0.1:8000/c.toml", False, False),
    ("http://localhost/c.toml", True, True),
    ("http://[::1]:80/c.toml", True, True),
    ("http://127.0.0.2/c.toml", True, False),
    ("http://127.0.0.1.evil.example/c.toml", True, False),
    ("file:///etc/passwd", True, False),
    ("ftp://example.org/c.toml", True, False),
    ("https:///nohost", True, False),
    ("http://[::1/c.toml", True, False),
])
def test_the_hop_rule(url, loopback, ok):
    assert http.url_allowed(url, allow_loopback_http=loopback) is ok


def test_ssl_cert_file_is_honoured(monkeypatch, tmp_path):
    cafile = tmp_path / "ca.pem"
    cafile.write_text("not used: only its name is read\n")
    monkeypatch.delenv("REQUESTS_CA_BUNDLE", raising=False)
    monkeypatch.delenv("CURL_CA_BUNDLE", raising=False)
    monkeypatch.setenv("SSL_CERT_FILE", str(cafile))
    sess = http.http_session()
    assert sess.verify == str(cafile)
    settings = sess.merge_environment_settings("https://example.org/", {}, None, None, None)
    assert settings["verify"] == str(cafile)
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(tmp_path / "other.pem"))  # requests' own variable wins
    assert sess.merge_environment_settings("https://example.org/", {}, None, None, None)["verify"] == str(
        tmp_path / "other.pem")


# --- https on 127.0.0.1: a certificate made for the test, trusted only through SSL_CERT_FILE ---------------
@pytest.fixture(scope="module")
def certificate(tmp_path_factory) -> tuple[str, str]:
    """A self-signed certificate for 127.0.0.1 (openssl, as the packaging tests use it)."""
    import shutil
    import subprocess

    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is not installed (scripts/test installs it on Debian)")
    folder = tmp_path_factory.mktemp("tls")
    key, cert = str(folder / "key.pem"), str(folder / "cert.pem")
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                    "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True, timeout=60)
    return key, cert


@pytest.fixture
def tls_server(certificate, server) -> Iterator[str]:
    """https://127.0.0.1:P: /good.toml, and /to-http, which redirects to the plain-http server."""
    import ssl

    def handle(h: BaseHTTPRequestHandler) -> None:
        if h.path == "/to-http":
            h.send_response(302)
            h.send_header("Location", server.url("/good.toml"))
            h.send_header("Content-Length", "0")
            h.end_headers()
            return
        Server._send(h, 200, GOOD_COURSE)

    httpd = _serve(handle)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificate[1], certificate[0])
    httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    yield f"https://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_ssl_cert_file_is_what_makes_a_private_ca_trusted(tls_server, certificate, monkeypatch):
    for name in ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "SSL_CERT_FILE"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(requests.exceptions.SSLError):  # not trusted: certifi's list does not know it
        http.http_session(retries=0).get(tls_server + "/good.toml")
    monkeypatch.setenv("SSL_CERT_FILE", certificate[1])  # a university's network sets this one
    with pytest.raises(requests.exceptions.SSLError):  # plain requests ignores SSL_CERT_FILE
        requests.get(tls_server + "/good.toml", timeout=10)
    assert http.http_session().get(tls_server + "/good.toml").content == GOOD_COURSE


def test_https_redirecting_to_plain_http_is_refused(tls_server, certificate, server, monkeypatch):
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", certificate[1])
    assert http.http_session().get(tls_server + "/to-http").content == GOOD_COURSE  # followed when allowed
    with pytest.raises(http.InsecureURL) as err:
        http.http_session(https_only=True).get(tls_server + "/to-http")
    assert err.value.url == server.url("/good.toml")
    assert server.hits["/good.toml"] == 1  # only the allowed run reached it


# --- the proxy typed in the window reaches the index checks too ------------------------------------------
def _loopback_candidate(index: str):
    from wizard.core.recommend.inputs import MachineFacts, Wishes
    from wizard.core.recommend.recommender import recommend

    facts = MachineFacts("linux", "x86_64", "3.11", "580.95.05", "13.0", ["8.6"])
    candidate = recommend(facts, Wishes(index_url=index)).best
    assert candidate is not None and candidate.index_url.startswith(index)
    return facts, candidate


def test_the_index_check_goes_through_the_typed_proxy(proxy, monkeypatch, tmp_path):
    from wizard.app import recommend as app_recommend

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("GSW_CONFIG_DIR", str(tmp_path / "config"))  # nothing remembered
    facts, candidate = _loopback_candidate("http://127.0.0.1:9/whl")  # nothing listens there
    app_recommend.check_index(candidate, facts, proxy=proxy[0])
    assert f"{candidate.index_url}/torch/" in proxy[1:]


def test_the_recommend_pages_check_uses_the_proxy_typed_last_time(proxy, monkeypatch, tmp_path):
    from wizard.app import recommend as app_recommend
    from wizard.app.reuse import Remembered, save_remembered

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("GSW_CONFIG_DIR", str(tmp_path / "config"))
    facts, candidate = _loopback_candidate("http://127.0.0.1:9/whl")
    app_recommend.check_index(candidate, facts)
    assert proxy[1:] == []  # no proxy typed yet: straight to the (closed) index
    save_remembered(Remembered(proxy=proxy[0]))  # an install started with a proxy typed in the window
    app_recommend.check_index(candidate, facts)
    assert f"{candidate.index_url}/torch/" in proxy[1:]


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_recommend_refuses_a_course_redirected_to_plain_http_in_one_line(server, lang):
    """red-team finding 7, as the student meets it: one line in their language, no traceback."""
    from tests.cli_runner import run_cli

    done = run_cli("recommend", "--course", server.url("/to-127.0.0.2"), "--lang", lang,
                   env={"GSW_COMPAT_UPDATE": "0"})
    assert done.exit_status != 0
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert "127.0.0.2" in lines[0] and "https://" in lines[0]
    assert ("Refused" in lines[0]) if lang == "en" else ("읽지 않았습니다" in lines[0])
    assert server.hits["/good.toml"] == 0
