"""The online wheel check against a real HTTP server on 127.0.0.1 serving generated index pages.

The server speaks both simple-API flavours: PEP 691 JSON when the client asks for it, PEP 503
HTML otherwise (and always HTML under /html-only, like download.pytorch.org), with ETag and
Last-Modified revalidation, a 404 for unknown projects, and absolute-URI requests so it can stand
in for a proxy. The wheel names are generated from the recommender's own candidates.
"""

from __future__ import annotations

import hashlib
import html
import json
import socket
import threading
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import pytest
import requests

from wizard.core.recommend.inputs import MachineFacts, Wishes
from wizard.core.recommend.recommender import recommend
from wizard.core.recommend.wheel_index import (
    PEP691_JSON,
    STATUS_FOUND,
    STATUS_MISSING,
    STATUS_NOT_FOUND,
    STATUS_OFFLINE,
    WheelIndex,
    parse_simple_html,
    parse_simple_json,
    project_url,
    target_tags,
)

LAST_MODIFIED = formatdate(1_790_000_000, usegmt=True)


def wheel_names(package: str, version: str, local: str | None, pythons=("310", "311", "312", "313")) -> list[str]:
    """File names in the style of download.pytorch.org: cpXY wheels for Linux and Windows."""
    ver = f"{version}+{local}" if local else version
    names = []
    for py in pythons:
        names.append(f"{package}-{ver}-cp{py}-cp{py}-manylinux_2_28_x86_64.whl")
        names.append(f"{package}-{ver}-cp{py}-cp{py}-win_amd64.whl")
    return names


class IndexState:
    """What the server serves and what it saw."""

    def __init__(self) -> None:
        self.projects: dict[str, list[dict]] = {}
        self.requests: list[dict] = []
        self.lock = threading.Lock()

    def add(self, project: str, filenames: list[str], yanked: tuple[str, ...] = ()) -> None:
        files = self.projects.setdefault(project, [])
        files.extend({"filename": f, "yanked": f in yanked} for f in filenames)

    def etag(self, project: str) -> str:
        digest = hashlib.sha256(json.dumps(self.projects[project]).encode()).hexdigest()[:16]
        return f'"{digest}"'


def make_handler(state: IndexState):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, fmt, *args):  # keep pytest output clean
            pass

        def do_GET(self):  # noqa: N802 - http.server's naming
            target = urlsplit(self.path)  # absolute when the client uses us as a proxy
            parts = [p for p in target.path.split("/") if p]
            with state.lock:
                state.requests.append({"path": self.path, "accept": self.headers.get("Accept", ""),
                                       "inm": self.headers.get("If-None-Match"),
                                       "ims": self.headers.get("If-Modified-Since"), "status": None})
            project = parts[-1] if parts else ""
            if project not in state.projects:
                return self._send(404, "text/plain", b"not found")
            html_only = "html-only" in parts
            etag = state.etag(project)
            if html_only:  # validators like a static file server: Last-Modified only
                if self.headers.get("If-Modified-Since") == LAST_MODIFIED:
                    return self._send(304, None, b"")
            elif self.headers.get("If-None-Match") == etag:
                return self._send(304, None, b"", etag=etag)
            files = state.projects[project]
            wants_json = PEP691_JSON in self.headers.get("Accept", "") and not html_only
            if wants_json:
                body = json.dumps({"meta": {"api-version": "1.1"}, "name": project, "files": [
                    {"filename": f["filename"], "url": f"../../files/{f['filename']}", "hashes": {},
                     "yanked": f["yanked"]} for f in files]}).encode()
                return self._send(200, PEP691_JSON, body, etag=etag)
            rows = "".join(
                f'<a href="../../files/{html.escape(f["filename"])}#sha256=0"'
                f'{" data-yanked" if f["yanked"] else ""}>{html.escape(f["filename"])}</a><br/>\n'
                for f in files)
            body = f"<!DOCTYPE html><html><body><h1>Links for {project}</h1>\n{rows}</body></html>".encode()
            if html_only:
                return self._send(200, "text/html", body, last_modified=LAST_MODIFIED)
            return self._send(200, "text/html; charset=utf-8", body, etag=etag)

        def _send(self, status, ctype, body, etag=None, last_modified=None):
            with state.lock:
                state.requests[-1]["status"] = status
            self.send_response(status)
            if ctype:
                self.send_header("Content-Type", ctype)
            if etag:
                self.send_header("ETag", etag)
            if last_modified:
                self.send_header("Last-Modified", last_modified)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if body:
                self.wfile.write(body)

    return Handler


@pytest.fixture()
def server():
    state = IndexState()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(state))
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    state.base = f"http://127.0.0.1:{httpd.server_address[1]}"
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


@pytest.fixture()
def no_proxy_env(monkeypatch):
    """Loopback must not be sent to a proxy configured on the machine running the tests."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


def free_port() -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


LINUX311 = target_tags("3.11", "linux", "x86_64")


@pytest.fixture()
def candidate(server):
    """The recommender's best build for a Linux RTX 3060 + driver 580, pointed at the test mirror,
    with its wheels published there."""
    facts = MachineFacts("linux", "x86_64", "3.11", "580.95.05", "13.0", ["8.6"])
    cand = recommend(facts, Wishes(index_url=f"{server.base}/whl")).best
    assert cand.index_url == f"{server.base}/whl/{cand.variant}"
    server.add("torch", wheel_names("torch", cand.torch, cand.variant))
    server.add("torchvision", wheel_names("torchvision", cand.torchvision, cand.variant))
    return cand


# ---------------------------------------------------------------------------------------------
def test_pep691_json_page_is_asked_for_and_read(server, candidate, no_proxy_env, tmp_path):
    result = WheelIndex(cache_dir=tmp_path).check(candidate.index_url, "torch", candidate.torch, LINUX311,
                                                  candidate.variant)
    assert result.status == STATUS_FOUND, result.message("en")
    assert result.matching == [f"torch-{candidate.torch}+{candidate.variant}-cp311-cp311-manylinux_2_28_x86_64.whl"]
    assert PEP691_JSON in server.requests[0]["accept"]
    assert "torch" in result.message("en") and result.message("ko") != result.message("en")


def test_pep503_html_only_index(server, no_proxy_env, tmp_path):
    server.add("torch", wheel_names("torch", "2.14.1", "cu126"))
    index = f"{server.base}/html-only/whl/cu126"
    result = WheelIndex(cache_dir=tmp_path).check(index, "torch", "2.14.1", target_tags("3.12", "windows", "x86_64"),
                                                  "cu126")
    assert result.status == STATUS_FOUND
    assert result.matching == ["torch-2.14.1+cu126-cp312-cp312-win_amd64.whl"]


def test_the_whole_candidate_is_checked(server, candidate, no_proxy_env, tmp_path):
    check = WheelIndex(cache_dir=tmp_path).check_candidate(candidate, LINUX311)
    assert check.ok and check.status == STATUS_FOUND
    assert [c.package for c in check.checks] == ["torch", "torchvision"]  # torchaudio no longer pinned


def test_no_wheel_for_this_python(server, candidate, no_proxy_env, tmp_path):
    result = WheelIndex(cache_dir=tmp_path).check(candidate.index_url, "torch", candidate.torch,
                                                  target_tags("3.15", "linux", "x86_64"), candidate.variant)
    assert result.status == STATUS_MISSING
    assert "cp315" in result.message("en")


def test_other_local_versions_and_yanked_files_do_not_count(server, no_proxy_env, tmp_path):
    server.add("torch", wheel_names("torch", "2.14.1", "cpu"))
    server.add("torch", ["torch-2.14.1+cu126-cp311-cp311-manylinux_2_28_x86_64.whl"],
               yanked=("torch-2.14.1+cu126-cp311-cp311-manylinux_2_28_x86_64.whl",))
    client = WheelIndex(cache_dir=tmp_path)
    assert client.check(f"{server.base}/whl/cu126", "torch", "2.14.1", LINUX311, "cu126").status == STATUS_MISSING
    assert client.check(f"{server.base}/whl/cpu", "torch", "2.14.1", LINUX311, "cpu").status == STATUS_FOUND


def test_etag_revalidation_gets_304_and_the_same_answer(server, candidate, no_proxy_env, tmp_path):
    client = WheelIndex(cache_dir=tmp_path)
    first = client.check(candidate.index_url, "torch", candidate.torch, LINUX311, candidate.variant)
    second = WheelIndex(cache_dir=tmp_path).check(candidate.index_url, "torch", candidate.torch, LINUX311,
                                                  candidate.variant)
    assert [r["status"] for r in server.requests] == [200, 304]
    assert server.requests[1]["inm"] and server.requests[1]["inm"].startswith('"')
    assert not first.from_cache and second.from_cache and second.revalidated
    assert second.matching == first.matching
    assert len(list(tmp_path.glob("*.json"))) == 1


def test_a_changed_page_is_downloaded_again(server, candidate, no_proxy_env, tmp_path):
    client = WheelIndex(cache_dir=tmp_path)
    assert client.check(candidate.index_url, "torch", "9.9.9", LINUX311).status == STATUS_MISSING
    server.add("torch", ["torch-9.9.9-cp311-cp311-manylinux_2_28_x86_64.whl"])  # the ETag changes
    result = client.check(candidate.index_url, "torch", "9.9.9", LINUX311)
    assert result.status == STATUS_FOUND and not result.from_cache
    assert [r["status"] for r in server.requests] == [200, 200]


def test_last_modified_revalidation(server, no_proxy_env, tmp_path):
    server.add("torch", wheel_names("torch", "2.14.1", "cu126"))
    index = f"{server.base}/html-only/whl/cu126"
    WheelIndex(cache_dir=tmp_path).check(index, "torch", "2.14.1", LINUX311)
    again = WheelIndex(cache_dir=tmp_path).check(index, "torch", "2.14.1", LINUX311)
    assert server.requests[1]["ims"] == LAST_MODIFIED and server.requests[1]["status"] == 304
    assert again.revalidated and again.status == STATUS_FOUND


def test_unreachable_index_says_offline_and_bundled_table(no_proxy_env, tmp_path):
    index = f"http://127.0.0.1:{free_port()}/whl/cu126"
    result = WheelIndex(cache_dir=tmp_path, timeout=2).check(index, "torch", "2.14.1", LINUX311)
    assert result.status == STATUS_OFFLINE and result.decided_by_table
    assert "offline" in result.message("en").lower() and "bundled table" in result.message("en")
    assert "오프라인" in result.message("ko")


def test_offline_uses_the_saved_copy_and_says_when(server, candidate, no_proxy_env, tmp_path):
    WheelIndex(cache_dir=tmp_path).check(candidate.index_url, "torch", candidate.torch, LINUX311)
    offline = WheelIndex(cache_dir=tmp_path, offline=True)
    result = offline.check(candidate.index_url, "torch", candidate.torch, LINUX311)
    assert result.status == STATUS_FOUND and result.stale and result.saved_at
    assert result.saved_at[:10] in result.message("en")
    assert len(server.requests) == 1  # offline mode asked nobody


def test_offline_mode_without_cache(no_proxy_env, tmp_path):
    result = WheelIndex(cache_dir=tmp_path, offline=True).check("http://127.0.0.1:9/whl/cu126", "torch", "2.14.1",
                                                                LINUX311)
    assert result.status == STATUS_OFFLINE


def test_404_is_not_found(server, no_proxy_env, tmp_path):
    result = WheelIndex(cache_dir=tmp_path).check(f"{server.base}/whl/cu999", "torch", "2.14.1", LINUX311)
    assert result.status == STATUS_NOT_FOUND and result.http_status == 404
    assert "404" in result.message("en")


def test_damaged_cache_is_refetched(server, candidate, no_proxy_env, tmp_path):
    client = WheelIndex(cache_dir=tmp_path)
    client.check(candidate.index_url, "torch", candidate.torch, LINUX311)
    for path in tmp_path.glob("*.json"):
        path.write_text("{broken", encoding="utf-8")
    result = client.check(candidate.index_url, "torch", candidate.torch, LINUX311)
    assert result.status == STATUS_FOUND and not result.from_cache
    assert server.requests[-1]["inm"] is None


def test_proxy_from_the_environment_is_used(server, monkeypatch, tmp_path):
    """HTTP_PROXY points at the loopback server: a request for an unresolvable host reaches it
    as an absolute-URI proxy request, so the standard variables are honoured."""
    server.add("torch", wheel_names("torch", "2.14.1", "cu126"))
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "HTTPS_PROXY", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", server.base)
    monkeypatch.setenv("http_proxy", server.base)
    client = WheelIndex(cache_dir=tmp_path)
    assert client.session.trust_env
    result = client.check("http://pytorch-mirror.invalid/whl/cu126", "torch", "2.14.1", LINUX311, "cu126")
    assert result.status == STATUS_FOUND
    assert server.requests[0]["path"] == "http://pytorch-mirror.invalid/whl/cu126/torch/"


def test_default_cache_dir_is_the_user_cache(monkeypatch, tmp_path):
    import platformdirs

    monkeypatch.setattr(platformdirs, "user_cache_dir", lambda *a, **k: str(tmp_path / "cache"))
    assert WheelIndex().cache_dir == tmp_path / "cache" / "simple-index"


def test_page_parsers_directly():
    base = "https://download.example/whl/cu126/torch/"
    files = parse_simple_html('<a href="../../torch-2.1.2%2Bcu121-cp311-cp311-win_amd64.whl#sha256=ab" '
                              'data-requires-python="&gt;=3.8">torch-2.1.2+cu121-cp311-cp311-win_amd64.whl</a>', base)
    assert files[0].filename == "torch-2.1.2+cu121-cp311-cp311-win_amd64.whl"
    assert files[0].requires_python == ">=3.8"
    assert files[0].url.startswith("https://download.example/whl/torch-2.1.2")
    with pytest.raises(Exception, match="version"):
        parse_simple_json({"meta": {"api-version": "2.0"}, "files": []}, base)
    assert project_url("https://x/whl/cu126/", "Torch_Vision") == "https://x/whl/cu126/torch-vision/"


def test_requests_really_goes_over_the_network(server, no_proxy_env):
    """Guard for the fixtures above: the server answers a plain requests call."""
    server.add("torch", ["torch-2.14.1-py3-none-any.whl"])
    assert requests.get(f"{server.base}/simple/torch/", timeout=5).status_code == 200
