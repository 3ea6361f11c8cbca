"""How long a recommendation and the online wheel check take (pytest-benchmark).

Run:  python -m pytest benchmarks/bench_recommend.py --benchmark-only
(numbers go in the report or benchmarks/README, never into test assertions).

* recommend(): pure computation over the bundled table, for a few typical machines.
* WheelIndex.check(): against a loopback HTTP server serving a page the size of
  download.pytorch.org/whl/cu126/torch/ (about 1,500 wheels, PEP 503 HTML), with a cold cache
  (a fresh folder each round: full download and parse) and a warm one (a conditional request
  answered 304, the page parsed from the cache).
"""

from __future__ import annotations

import hashlib
import itertools
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from wizard.core.recommend import compat
from wizard.core.recommend.inputs import MachineFacts
from wizard.core.recommend.recommender import recommend
from wizard.core.recommend.wheel_index import WheelIndex, target_tags

MACHINES = {
    "win-rtx3060-566": MachineFacts("windows", "x86_64", "3.11", "566.36", "12.7", ["8.6"]),
    "win-rtx5090-566": MachineFacts("windows", "x86_64", "3.11", "566.36", "12.7", ["12.0"]),
    "linux-2gpus-580": MachineFacts("linux", "x86_64", "3.12", "580.95.05", "13.0", ["6.1", "8.6"]),
    "mac-arm64": MachineFacts("macos", "arm64", "3.12", os_version="15.1"),
}


@pytest.mark.parametrize("name", list(MACHINES))
def test_recommend_one_machine(benchmark, name):
    compat.load()  # the table is parsed once per process; measure the recommendation alone
    rec = benchmark(recommend, MACHINES[name])
    assert rec.candidates or rec.advice


def _big_page() -> bytes:
    versions = [f"2.{minor}.{patch}" for minor in range(0, 15) for patch in range(0, 3)]
    pythons = ["38", "39", "310", "311", "312", "313", "314"]
    platforms = ["manylinux_2_28_x86_64", "manylinux_2_28_aarch64", "win_amd64", "manylinux1_x86_64"]
    rows = [f'<a href="/files/torch-{v}%2Bcu126-cp{p}-cp{p}-{plat}.whl#sha256={"0" * 64}">'
            f"torch-{v}+cu126-cp{p}-cp{p}-{plat}.whl</a><br/>"
            for v, p, plat in itertools.product(versions, pythons, platforms)]
    return ("<!DOCTYPE html><html><body>\n" + "\n".join(rows) + "\n</body></html>").encode()


@pytest.fixture(scope="module")
def index_server():
    body = _big_page()
    etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
    counts = {"200": 0, "304": 0}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, fmt, *args):
            pass

        def do_GET(self):  # noqa: N802
            if self.headers.get("If-None-Match") == etag:
                counts["304"] += 1
                self.send_response(304)
                self.send_header("ETag", etag)
                self.end_headers()
                return
            counts["200"] += 1
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("ETag", etag)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/whl/cu126", counts, len(body)
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture()
def direct(monkeypatch):
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")


TAGS = target_tags("3.11", "linux", "x86_64")


def test_wheel_check_cold_cache(benchmark, index_server, direct, tmp_path_factory):
    url, counts, size = index_server
    before = counts["200"]

    def fresh():
        return (WheelIndex(cache_dir=tmp_path_factory.mktemp("cold")),), {}

    result = benchmark.pedantic(lambda client: client.check(url, "torch", "2.14.1", TAGS, "cu126"),
                                setup=fresh, rounds=30)
    assert result.ok and not result.from_cache
    assert counts["200"] - before >= 30
    benchmark.extra_info["page_bytes"] = size


def test_wheel_check_warm_cache(benchmark, index_server, direct, tmp_path):
    url, counts, size = index_server
    client = WheelIndex(cache_dir=tmp_path)
    client.check(url, "torch", "2.14.1", TAGS, "cu126")
    before = counts["304"]
    result = benchmark(client.check, url, "torch", "2.14.1", TAGS, "cu126")
    assert result.ok and result.revalidated
    assert counts["304"] > before
    benchmark.extra_info["page_bytes"] = size
