"""The signed compatibility-data update against a real HTTP server on 127.0.0.1.

The server serves a good update, a tampered file, a wrong signature, an unsigned manifest, an
older file, a malformed manifest and a connection that never answers. Only the good one may change
what the recommender says (an RTX 4090 on driver 580.95, pinned to nothing): the "update" here
adds a made-up torch 2.99 that the recommender would pick, so any accepted file shows.
"""

from __future__ import annotations

import base64
import gzip
import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from nacl.signing import SigningKey

from tests.compat_tables import newer_table
from wizard.core.recommend import update
from wizard.core.recommend.inputs import MachineFacts
from wizard.core.recommend.recommender import recommend

RTX4090 = MachineFacts(os="linux", arch="x86_64", python="3.13", driver_version="580.95", cuda_driver="13.0",
                       gpu_ccs=["8.9"], gpu_names=["NVIDIA GeForce RTX 4090"])


class Server:
    """Routes → (status, body); '/hang' accepts and never answers."""

    def __init__(self) -> None:
        self.routes: dict[str, bytes] = {}
        self.release = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                if self.path == "/hang":
                    server.release.wait(30)
                    return
                if self.path == "/trickle":  # a header, then a byte now and then, never the end
                    self.send_response(200)
                    self.send_header("Content-Length", "100000")
                    self.end_headers()
                    while not server.release.wait(0.1):
                        try:
                            self.wfile.write(b" ")
                            self.wfile.flush()
                        except OSError:
                            return
                    return
                body = server.routes.get(self.path)
                if body is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                if self.path.endswith(".gz.json"):  # as a static host serves JSON: gzip on the wire
                    body = gzip.compress(body)
                    self.send_header("Content-Encoding", "gzip")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.httpd.server_port}{path}"

    def close(self) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    s = Server()
    yield s
    s.close()


@pytest.fixture
def key() -> SigningKey:
    return SigningKey.generate()  # a throwaway key: the real private key never enters the repository


@pytest.fixture(autouse=True)
def _fresh_table():
    update.reset()
    yield
    update.reset()


def config(tmp_path: Path, url: str, key: SigningKey, **kw) -> update.UpdateConfig:
    return update.UpdateConfig(url=url, cache_dir=tmp_path / "cache", public_keys=(bytes(key.verify_key),),
                               allow_loopback_http=True, timeout=kw.pop("timeout", 3.0), **kw)


def publish(server: Server, name: str, data: bytes, key: SigningKey, *, served: bytes | None = None,
            expires: str | None = None) -> str:
    """Serve ``served`` (default ``data``) at /name.json with a manifest for ``data`` signed by ``key``."""
    server.routes[f"/{name}.json"] = served if served is not None else data
    server.routes[f"/{name}.manifest"] = update.sign_manifest(data, server.url(f"/{name}.json"), bytes(key),
                                                              expires=expires)
    return server.url(f"/{name}.manifest")


def best_torch(cfg: update.UpdateConfig) -> str:
    db, _ = update.load_active(cfg)
    rec = recommend(RTX4090, kb=db)
    assert rec.best is not None
    return rec.best.torch


def test_good_update_is_cached_used_and_named(server, key, tmp_path):
    url = publish(server, "good", newer_table(), key)
    cfg = config(tmp_path, url, key)
    before = best_torch(cfg)
    result = update.check_for_update(cfg, today="2099-01-02")
    assert result.status == "updated", result.text("en")
    assert best_torch(cfg) == "2.99.0" != before
    source = update.active_source(cfg)
    assert (source.kind, source.reviewed_on) == ("updated", "2099-01-01")
    assert "2099-01-01" in source.text("ko") and "업데이트" in source.text("ko")
    # at most once a day: a second check the same day does not ask the server
    server.routes.clear()
    assert update.check_for_update(cfg, today="2099-01-02").status == "skipped"


@pytest.mark.parametrize("case, code", [
    ("tampered", "hash"),
    ("wrong_key", "bad_signature"),
    ("unsigned", "unsigned"),
    ("malformed", "malformed"),
    ("older", "older"),
    ("expired", "expired"),  # a frozen old manifest, still served (or replayed) after its life
    ("no_expiry", "malformed"),  # signed, but with no end: refused, or it could be replayed forever
])
def test_bad_updates_are_refused_and_change_nothing(server, key, tmp_path, case, code):
    good = newer_table()
    if case == "tampered":
        url = publish(server, case, good, key, served=good.replace(b'"2.99.0"', b'"2.98.0"', 1))
    elif case == "wrong_key":
        url = publish(server, case, good, SigningKey.generate())
    elif case == "unsigned":
        url = publish(server, case, good, key)
        doc = json.loads(server.routes["/unsigned.manifest"])
        doc.pop("signature")
        server.routes["/unsigned.manifest"] = json.dumps(doc).encode()
    elif case == "malformed":
        server.routes["/malformed.manifest"] = b"{not json"
        url = server.url("/malformed.manifest")
    elif case == "expired":
        url = publish(server, case, good, key, expires="2026-01-31")
    elif case == "no_expiry":
        url = publish(server, case, good, key)
        doc = json.loads(server.routes["/no_expiry.manifest"])
        payload = json.loads(doc["payload"])
        payload.pop("expires")
        doc["payload"] = json.dumps(payload, sort_keys=True)
        doc["signature"] = base64.b64encode(key.sign(doc["payload"].encode()).signature).decode()
        server.routes["/no_expiry.manifest"] = json.dumps(doc).encode()
    else:
        url = publish(server, case, newer_table("2000-01-01"), key)
    cfg = config(tmp_path, url, key)
    before = best_torch(cfg)
    result = update.check_for_update(cfg, today="2099-01-02")
    assert result.status == "refused"
    assert result.reason is not None and result.reason.key == f"recommend.compat.update.refused.{code}"
    for lang in ("en", "ko"):
        assert "\n" not in result.text(lang) and result.text(lang)
    assert best_torch(cfg) == before != "2.99.0"
    assert update.active_source(cfg).kind == "built-in"
    assert not (tmp_path / "cache" / update.FILE_NAME).exists()


def test_hung_server_times_out_and_changes_nothing(server, key, tmp_path):
    cfg = config(tmp_path, server.url("/hang"), key, timeout=0.5)
    before = best_torch(cfg)
    result = update.check_for_update(cfg, today="2099-01-02")
    assert result.status == "failed"
    assert best_torch(cfg) == before


def test_gzip_on_the_wire_is_the_signed_file(server, key, tmp_path):
    url = publish(server, "table.gz", newer_table(), key)
    result = update.check_for_update(config(tmp_path, url, key), today="2099-01-02")
    assert result.status == "updated", result.text("en")


def test_trickling_server_is_cut_off_and_changes_nothing(server, key, tmp_path):
    cfg = config(tmp_path, server.url("/trickle"), key, timeout=0.3)
    before = best_torch(cfg)
    result = update.check_for_update(cfg, today="2099-01-02")
    assert result.status == "failed" and "TimeoutError" in result.text("en")
    assert best_torch(cfg) == before


def test_cached_file_changed_on_disk_is_refused_at_load(server, key, tmp_path):
    url = publish(server, "good", newer_table(), key)
    cfg = config(tmp_path, url, key)
    assert update.check_for_update(cfg, today="2099-01-02").status == "updated"
    cached = tmp_path / "cache" / update.FILE_NAME
    cached.write_bytes(cached.read_bytes().replace(b'"2.99.0"', b'"2.98.0"', 1))
    db, source = update.load_active(cfg)
    assert source.kind == "built-in" and source.refused is not None
    assert source.refused.key == "recommend.compat.update.refused.hash"
    assert best_torch(cfg) != "2.99.0"


def test_off_switches(server, key, tmp_path, monkeypatch):
    url = publish(server, "good", newer_table(), key)
    assert update.check_for_update(config(tmp_path, url, key, enabled=False)).status == "off"
    assert update.check_for_update(config(tmp_path, url, key, offline=True)).status == "off"
    monkeypatch.setenv("GSW_COMPAT_UPDATE", "0")
    assert update.UpdateConfig.from_env().active is False
    monkeypatch.delenv("GSW_COMPAT_UPDATE")
    monkeypatch.setenv("GSW_CONFIG_DIR", str(tmp_path / "cfg"))
    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg" / "compat-update.json").write_text('{"enabled": false, "manifest_url": "https://example.org/m"}')
    assert update.UpdateConfig.from_env().active is False
    assert update.check_for_update(config(tmp_path, url, key)).status != "off"


def test_plain_http_is_refused_off_loopback(key, tmp_path):
    cfg = update.UpdateConfig(url="http://example.invalid/m.json", cache_dir=tmp_path, public_keys=(bytes(key.verify_key),))
    result = update.check_for_update(cfg, today="2099-01-02")
    assert result.status == "refused" and result.reason.key == "recommend.compat.update.refused.not_https"


def test_nothing_listens_is_a_failure_not_a_traceback(key, tmp_path):
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    result = update.check_for_update(config(tmp_path, f"http://127.0.0.1:{port}/m", key), today="2099-01-02")
    assert result.status == "failed" and "(" in result.text("ko")


def test_a_cached_update_that_expired_is_said_stale_and_the_built_in_table_is_used(server, key, tmp_path):
    """The update was good when it came; months later no newer one could be read: the wizard
    notices, says so in both languages, and recommends from the shipped table."""
    data = newer_table()
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / update.FILE_NAME).write_bytes(data)
    signed = update.sign_manifest(data, "https://example.org/c.json", bytes(key), expires="2026-02-01")
    (cache / update.MANIFEST_NAME).write_bytes(signed)
    cfg = config(tmp_path, "", key)
    source = update.active_source(cfg)
    assert source.kind == "built-in" and source.refused is not None
    assert source.refused.key == "recommend.compat.update.refused.expired"
    assert "2026-02-01" in source.refused.text("en") and "expired" in source.refused.text("en")
    assert "만료" in source.refused.text("ko")
    assert best_torch(cfg) != "2.99.0"
    # the same file with a manifest still in its life is used
    (cache / update.MANIFEST_NAME).write_bytes(update.sign_manifest(data, "https://example.org/c.json", bytes(key)))
    assert best_torch(cfg) == "2.99.0"


def test_a_manifest_lives_valid_days_by_default(key):
    from datetime import date, timedelta

    manifest = update.verify_manifest(update.sign_manifest(newer_table(), "https://example.org/c.json", bytes(key)),
                                      (bytes(key.verify_key),))
    assert manifest.expires == (date.today() + timedelta(days=update.VALID_DAYS)).isoformat()
    with pytest.raises(update.UpdateRefused) as refused:
        update.verify_manifest(update.sign_manifest(newer_table(), "https://example.org/c.json", bytes(key)),
                               (bytes(key.verify_key),), today=(date.today() + timedelta(days=update.VALID_DAYS + 1)).isoformat())
    assert refused.value.code == "expired"
