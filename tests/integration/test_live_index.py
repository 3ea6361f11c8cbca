"""Reading the newest releases from the package indexes, against a real HTTP server on 127.0.0.1.

The server serves PyPI's JSON documents (the recorded torch one, and torchvision/torchaudio/
TensorFlow in its shape) and PyTorch variant pages (PEP 503, as download.pytorch.org writes them),
with ETags and Last-Modified; it answers conditional requests with 304. An RTX 4090 on driver
580.95 shows which release the recommender picks.
"""

from __future__ import annotations

import copy
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from wizard.core.recommend import live_index, update
from wizard.core.recommend.inputs import MachineFacts
from wizard.core.recommend.recommender import recommend

DATA = Path(__file__).resolve().parents[1] / "data"
RTX4090 = MachineFacts(os="linux", arch="x86_64", python="3.13", driver_version="580.95", cuda_driver="13.0",
                       gpu_ccs=["8.9"], gpu_names=["NVIDIA GeForce RTX 4090"])
TODAY = "2026-12-06"
LAST_MODIFIED = "Sat, 05 Dec 2026 10:00:00 GMT"


def pypi_docs() -> dict[str, dict]:
    docs = {"torch": json.loads((DATA / "compat_refresh" / "pypi" / "torch.json").read_text())}
    for name in ("torchvision", "torchaudio", "tensorflow"):
        docs[name] = json.loads((DATA / "live_index" / "pypi" / f"{name}.json").read_text())
    return docs


def variant_page(variant: str, versions: dict[str, list[str]] | None) -> bytes:
    """A download.pytorch.org page: the recorded cu130 one, or one in its form for another variant."""
    if variant == "cu130" and versions is None:
        return (DATA / "live_index" / "whl" / "cu130" / "torch.html").read_bytes()
    lines = ["<!DOCTYPE html>", "<html>", "  <body>", "    <h1>Links for torch</h1>"]
    for ver, plats in versions.items():
        for plat in plats:
            for py in ("311", "312", "313"):
                local = "" if variant == "-" else f"+{variant}"
                name = f"torch-{ver}{local}-cp{py}-cp{py}-{plat}.whl"
                lines.append(f'    <a href="/whl/{variant}/{name.replace("+", "%2B")}#sha256={"0" * 64}" '
                             f'data-requires-python="&gt;=3.10">{name}</a><br/>')
    return ("\n".join(lines + ["  </body>", "</html>", ""])).encode()


ALL_PLATS = ["manylinux_2_28_x86_64", "manylinux_2_28_aarch64", "win_amd64"]


class IndexServer:
    """Routes with ETags; counts full answers and 304s; ``down()`` closes the socket."""

    def __init__(self) -> None:
        self.routes: dict[str, bytes] = {}
        self.full: list[str] = []
        self.not_modified: list[str] = []
        self.with_last_modified_only: set[str] = set()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                body = server.routes.get(self.path)
                if body is None:
                    self.send_error(404)
                    return
                if self.path == "/huge":  # says nothing of its size and never ends
                    self.send_response(200)
                    self.end_headers()
                    try:
                        while True:
                            self.wfile.write(b"[" * 65536)
                    except OSError:
                        return
                etag = '"' + str(hash(body) & 0xFFFFFFFF) + '"'
                lm_only = self.path in server.with_last_modified_only
                if (not lm_only and self.headers.get("If-None-Match") == etag) or \
                        (lm_only and self.headers.get("If-Modified-Since") == LAST_MODIFIED):
                    server.not_modified.append(self.path)
                    self.send_response(304)
                    self.end_headers()
                    return
                server.full.append(self.path)
                self.send_response(200)
                if not lm_only:
                    self.send_header("ETag", etag)
                self.send_header("Last-Modified", LAST_MODIFIED)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.port = self.httpd.server_port

    def publish(self, docs: dict[str, dict], pages: dict[str, bytes]) -> None:
        for name, doc in docs.items():
            self.routes[f"/pypi/{name}/json"] = json.dumps(doc).encode()
        for variant, page in pages.items():
            self.routes[f"/whl/{variant}/torch/"] = page

    def down(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    s = IndexServer()
    yield s
    s.down()


@pytest.fixture(autouse=True)
def _fresh_table():
    update.reset()
    yield
    update.reset()


def config(tmp_path: Path, port: int) -> update.UpdateConfig:
    base = f"http://127.0.0.1:{port}"
    return update.UpdateConfig(url="", cache_dir=tmp_path / "cache", allow_loopback_http=True, timeout=3.0,
                               index_check=True, pypi_json=base + "/pypi/{name}/json",
                               pytorch_page=base + "/whl/{variant}/torch/")


def today_pages() -> dict[str, bytes]:
    """What the index serves for the bundled table's newest release (2.15.0) today."""
    return {"cu130": variant_page("cu130", None), "cu132": variant_page("cu132", {"2.15.0": ALL_PLATS}),
            "cpu": variant_page("cpu", {"2.15.0": ALL_PLATS})}


def with_release(docs: dict[str, dict], new: str, *, torchvision: str | None) -> dict[str, dict]:
    """``docs`` with torch ``new`` on PyPI (2.15.0's files under the new number), and a torchvision
    that pins it when ``torchvision`` is given."""
    docs = copy.deepcopy(docs)
    torch = docs["torch"]
    torch["releases"][new] = [dict(f, filename=f["filename"].replace("2.15.0", new), upload_time="2026-12-05T16:00:00")
                              for f in torch["releases"]["2.15.0"]]
    torch["info"]["version"] = new
    if torchvision:
        tv = docs["torchvision"]
        tv["releases"][torchvision] = [{"filename": f"torchvision-{torchvision}-py3-none-any.whl",
                                        "upload_time": "2026-12-05T16:30:00", "yanked": False}]
        tv["info"]["version"] = torchvision
        tv["info"]["requires_dist"] = ["numpy", f"torch=={new}"]
    return docs


def check(cfg: update.UpdateConfig, today: str = TODAY) -> dict:
    return update.check_for_update(cfg, today=today, force=True).extra["index"]


def best(cfg: update.UpdateConfig) -> tuple[str, update.DataSource]:
    db, source = update.load_active(cfg)
    rec = recommend(RTX4090, kb=db)
    assert rec.best is not None
    return rec.best.torch, source


def test_first_read_confirms_the_newest_releases_and_says_the_day(server, tmp_path):
    server.publish(pypi_docs(), today_pages())
    cfg = config(tmp_path, server.port)
    got = check(cfg)
    assert got["read"] and got["notes"] == [] and got["checked_on"] == TODAY
    torch, source = best(cfg)
    assert torch == "2.15.0"
    # the table marks cu130 of 2.15 "not yet seen on the PyTorch index": the index page now shows it
    assert source.index_added == ("torch 2.15 cu130",)
    db, _ = update.load_active(cfg)
    assert "cu130" not in db.release("2.15").unverified and "variants" not in db.release("2.15").unverified
    assert dict(source.index_newest) == {"torch": "2.15.0", "torchvision": "0.29.2", "torchaudio": "2.11.1",
                                         "tensorflow": "2.21.0"}  # 0.30.0rc1 is a pre-release: not taken
    assert f"confirmed from the package indexes on {TODAY}" in source.text("en")
    assert TODAY in source.text("ko") and "패키지 인덱스" in source.text("ko")
    doc = source.to_json("en")
    assert doc["index_confirmed_on"] == TODAY and doc["index_newest"]["tensorflow"] == "2.21.0"


def test_second_read_revalidates_with_304(server, tmp_path):
    server.publish(pypi_docs(), today_pages())
    server.with_last_modified_only.add("/whl/cpu/torch/")  # this page has no ETag: If-Modified-Since
    cfg = config(tmp_path, server.port)
    check(cfg)
    full_first = len(server.full)
    assert full_first == 7 and server.not_modified == []  # 4 projects, 3 variant pages
    check(cfg, today="2026-12-07")
    assert len(server.full) == full_first and len(server.not_modified) == 7
    assert "/whl/cpu/torch/" in server.not_modified
    _torch, source = best(cfg)
    assert source.index_on == "2026-12-07"  # confirmed again, though nothing was downloaded


def test_a_new_patch_is_recommended_the_day_it_appears(server, tmp_path):
    cfg = config(tmp_path, server.port)
    docs = with_release(pypi_docs(), "2.15.1", torchvision=None)
    server.publish(docs, today_pages())
    check(cfg)
    assert best(cfg)[0] == "2.15.0"  # on PyPI, but no torchvision for it yet: not guessed
    pages = {v: variant_page(v, {"2.15.0": ALL_PLATS, "2.15.1": ALL_PLATS}) for v in ("cu130", "cu132")}
    pages["cpu"] = variant_page("cpu", {"2.15.0": ALL_PLATS})
    server.publish(with_release(pypi_docs(), "2.15.1", torchvision="0.29.3"), pages)
    check(cfg)
    assert best(cfg)[0] == "2.15.0"  # torchvision is out, the cpu page lacks 2.15.1: not yet
    pages["cpu"] = variant_page("cpu", {"2.15.0": ALL_PLATS, "2.15.1": ALL_PLATS})
    server.publish({}, pages)
    check(cfg)
    torch, source = best(cfg)
    assert torch == "2.15.1" and source.index_added == ("torch 2.15 cu130", "torch 2.15.1")
    db, _ = update.load_active(cfg)
    rel = db.release("2.15")
    assert rel.torchvision["2.15.1"] == "0.29.3" and rel.torchaudio["2.15.1"] is None
    assert "torch 2.15.1" in source.text("en") and "torch 2.15.1" in source.text("ko")


def test_a_new_minor_release_brings_only_the_variants_its_pages_show(server, tmp_path):
    cfg = config(tmp_path, server.port)
    pages = {"cu130": variant_page("cu130", {"2.15.0": ALL_PLATS, "2.16.0": ALL_PLATS}),
             "cu132": variant_page("cu132", {"2.15.0": ALL_PLATS, "2.16.0": ALL_PLATS[:1]}),
             "cpu": variant_page("cpu", {"2.15.0": ALL_PLATS, "2.16.0": ALL_PLATS})}
    server.publish(with_release(pypi_docs(), "2.16.0", torchvision="0.30.0"), pages)
    check(cfg)
    torch, source = best(cfg)
    assert torch == "2.16.0" and source.index_added[-1] == "torch 2.16.0"
    db, _ = update.load_active(cfg)
    rel = db.release("2.16")
    assert rel.variants["linux-x86_64"] == ("cu130", "cu132", "cpu")
    assert rel.variants["windows-x86_64"] == ("cu130", "cpu")  # cu132 has no Windows file for 2.16.0
    assert rel.variants["macos-arm64"] == ("mps",)
    assert "not yet in the reviewed table" in rel.notes
    assert db.release("2.15").patches == ("2.15.0",)  # the reviewed release is left as it was


def test_a_closed_arch_range_is_carried_to_the_new_minor_and_marked_assumed():
    from wizard.core.base.resources import load_json

    table = copy.deepcopy(load_json("compat.json"))
    for entry in table["cuda_archs"]:
        if entry["variant"] == "cu132":
            entry["torch"]["to"] = "2.15"  # as a table looks once a variant's list is known to end
    docs = with_release(pypi_docs(), "2.16.0", torchvision="0.30.0")
    facts = {"checked_on": TODAY, "stale": [], "projects": {n: live_index.pypi_project(json.dumps(d).encode())
                                                            for n, d in docs.items()},
             "index": {v: {"2.15.0": ["linux-x86_64"], "2.16.0": ["linux-x86_64"]} for v in ("cu130", "cu132", "cpu")}}
    applied = live_index.apply(table, facts)
    from wizard.core.recommend.compat import parse

    db = parse(applied.data)
    entry = next(e for e in db.cuda_archs if e.variant == "cu132" and e.covers("2.16"))
    assert "assumed from torch 2.15" in (entry.archs["linux-x86_64"].unverified or "")
    assert db.release("2.16").variants == {"linux-x86_64": ("cu130", "cu132", "cpu"), "macos-arm64": ("mps",)}
    assert applied.added == ["torch 2.16.0"] and table["cuda_archs"] != applied.data["cuda_archs"]


def test_offline_keeps_the_last_facts_and_says_they_are_from_the_saved_copies(server, tmp_path):
    server.publish(with_release(pypi_docs(), "2.15.1", torchvision="0.29.3"),
                   {v: variant_page(v, {"2.15.0": ALL_PLATS, "2.15.1": ALL_PLATS}) for v in ("cu130", "cu132", "cpu")})
    cfg = config(tmp_path, server.port)
    check(cfg, today="2026-12-05")
    server.down()
    got = check(cfg, today=TODAY)
    assert got["read"] and got["checked_on"] == TODAY[:8] + "05"  # the copies' day, not today's
    assert any(n.key == "recommend.compat.index.stale" for n in got["notes"])
    torch, source = best(cfg)
    assert torch == "2.15.1"
    assert "saved" in source.text("en") and "저장" in source.text("ko")


def test_no_network_and_nothing_saved_is_a_note_not_a_traceback(tmp_path):
    import socket

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    cfg = config(tmp_path, port)
    got = check(cfg)
    assert got["read"] is False and len(got["notes"]) == 1  # torch unreachable: nothing else is waited for
    torch, source = best(cfg)
    assert torch == "2.15.0" and source.index_on is None
    assert "Could not read PyPI torch" in source.text("en") and "읽지 못해" in source.text("ko")


def test_offline_setting_reads_nothing(server, tmp_path):
    server.publish(pypi_docs(), today_pages())
    cfg = update.UpdateConfig(**{**config(tmp_path, server.port).__dict__, "offline": True})
    assert update.check_for_update(cfg, today=TODAY, force=True).status == "off"
    assert server.full == []


@pytest.mark.parametrize("case", ["malformed-json", "wrong-shape", "huge", "links-only-hostile", "404"])
def test_hostile_pages_are_skipped_and_the_table_stands(server, tmp_path, case):
    docs = pypi_docs()
    server.publish(docs, today_pages())
    cfg = config(tmp_path, server.port)
    if case == "malformed-json":
        server.routes["/pypi/torch/json"] = b'{"info": {"version": "9.9.9"}, "releases": {"9.9'
    elif case == "wrong-shape":
        server.routes["/pypi/torch/json"] = json.dumps({"info": [], "releases": ["torch-9.9.9-cp313-cp313-win_amd64.whl"]}).encode()
    elif case == "huge":
        server.routes["/huge"] = b"x"
        cfg = update.UpdateConfig(**{**cfg.__dict__, "pypi_json": f"http://127.0.0.1:{server.port}/huge"})
    elif case == "links-only-hostile":
        evil = ['<a href="javascript:alert(1)">torch-9.9.9+cu130-cp313-cp313-win_amd64.whl</a>',
                '<a href="/x">' + "torch-" + "9" * 5000 + ".whl</a>", "<a href='/whl/../../etc/passwd'>passwd</a>",
                '<a href="/y">torch-2.15.0+cu130-cp313-cp313-win_amd64.whl</a><a']
        server.routes["/whl/cu130/torch/"] = ("<html><body>" + "".join(evil)).encode()
    elif case == "404":
        del server.routes["/whl/cu132/torch/"]
    got = check(cfg)
    torch, source = best(cfg)
    assert torch == "2.15.0"
    assert all(n.text("en") and n.text("ko") for n in got["notes"])
    if case in ("malformed-json", "wrong-shape", "huge"):
        assert got["read"] is False and source.index_on is None
        assert "PyPI torch" in source.text("en")
    if case == "404":
        assert got["read"] and any("HTTP 404" in n.text("en") for n in got["notes"])


def test_a_damaged_saved_copy_is_not_an_answer(server, tmp_path):
    server.publish(pypi_docs(), today_pages())
    cfg = config(tmp_path, server.port)
    check(cfg)
    for body in (tmp_path / "cache" / live_index.PAGES_DIR).glob("*.body"):
        body.write_bytes(b"changed on disk")
    (tmp_path / "cache" / live_index.FACTS_NAME).write_text("{ not json")
    assert best(cfg)[1].index_on is None  # the damaged facts are ignored
    check(cfg)  # the changed copies are not revalidated: downloaded again
    assert server.not_modified == [] and best(cfg)[1].index_on == TODAY


def test_wheel_names_are_read_like_pip_reads_them():
    assert live_index.wheel_facts("/whl/cu130/torch-2.15.0%2Bcu130-cp313-cp313-manylinux_2_28_x86_64.whl#sha256=ab") == \
        ("2.15.0", "cu130", "3.13", {"linux-x86_64"})
    assert live_index.wheel_facts("torch-2.15.0-cp314-cp314t-win_amd64.whl") == ("2.15.0", None, None, {"windows-x86_64"})
    assert live_index.wheel_facts(
        "tensorflow-2.21.0-cp312-cp312-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl")[3] == {"linux-x86_64"}
    assert live_index.wheel_facts("torch-2.15.0.tar.gz") is None
    assert live_index.wheel_facts("torch-" + "9" * 5000 + ".whl") is None
    page = live_index.index_page((DATA / "live_index" / "whl" / "cu130" / "torch.html").read_bytes(),
                                 "https://download.pytorch.org/whl/cu130/torch/")
    assert page["2.15.0"] == ["linux-aarch64", "linux-x86_64", "windows-x86_64"]


def test_recommend_command_names_the_index_day_in_text_and_json(server, tmp_path, monkeypatch):
    """The whole path a student runs: `recommend` checks (once a day), then says which data it used."""
    from datetime import date

    from tests.cli_runner import run_cli

    server.publish(with_release(pypi_docs(), "2.15.1", torchvision="0.29.3"),
                   {v: variant_page(v, {"2.15.0": ALL_PLATS, "2.15.1": ALL_PLATS}) for v in ("cu130", "cu132", "cpu")})
    base = f"http://127.0.0.1:{server.port}"
    monkeypatch.setenv("GSW_INDEX_CHECK", "1")
    monkeypatch.setenv("GSW_INDEX_PYPI_JSON", base + "/pypi/{name}/json")
    monkeypatch.setenv("GSW_INDEX_PYTORCH_PAGE", base + "/whl/{variant}/torch/")
    monkeypatch.setenv("GSW_COMPAT_CACHE_DIR", str(tmp_path / "cache"))
    machine = ("--os", "linux", "--arch", "x86_64", "--python", "3.13", "--driver", "580.95", "--gpu-cc", "8.9")
    update.reset()
    doc = run_cli("recommend", *machine, "--json").json
    today = date.today().isoformat()
    assert doc["candidates"][0]["torch"] == "2.15.1"
    source = doc["compat"]["source"]
    assert source["kind"] == "built-in" and source["index_confirmed_on"] == today
    assert source["index_added"] == ["torch 2.15 cu130", "torch 2.15.1"] and source["index_newest"]["tensorflow"] == "2.21.0"
    update.reset()
    text = run_cli("recommend", *machine, lang="ko").stdout
    assert "호환성 데이터: 내장" in text and f"{today}에 패키지 인덱스에서 확인" in text and "torch 2.15.1" in text
    assert len(server.full) == 7  # the second run the same day asked nothing


def test_mirror_addresses_from_the_environment_must_name_their_one_field(monkeypatch):
    monkeypatch.setenv("GSW_INDEX_PYPI_JSON", "https://mirror.example/pypi/{name}/json")
    monkeypatch.setenv("GSW_INDEX_PYTORCH_PAGE", "https://mirror.example/whl/{variant}}/torch/")
    cfg = update.UpdateConfig.from_env()
    assert cfg.pypi_json == "https://mirror.example/pypi/{name}/json" and cfg.pytorch_page == ""


def test_a_pep691_json_page_from_a_mirror_is_read_too():
    doc = {"meta": {"api-version": "1.1"}, "name": "torch",
           "files": [{"filename": "torch-2.15.0+cu130-cp313-cp313-win_amd64.whl", "url": "x.whl", "hashes": {}},
                     {"filename": "torch-2.15.0+cu130-cp313-cp313-manylinux_2_28_x86_64.whl", "url": "y.whl",
                      "hashes": {}, "yanked": "broken"}]}
    assert live_index.index_page(json.dumps(doc).encode(), "https://mirror.example/whl/cu130/torch/") == \
        {"2.15.0": ["windows-x86_64"]}  # the yanked Linux file does not count
    with pytest.raises(live_index.SourceUnreadable):
        live_index.index_page(b'{"meta": {"api-version": "2.0"}, "files": []}', "https://mirror.example/")


def test_many_unreadable_pages_are_one_note(server, tmp_path):
    """A host that fails every variant page (a firewall on download.pytorch.org, seen on a real
    network) is one line with the count, not a line per page in the window's data line."""
    server.publish(pypi_docs(), {})  # PyPI answers, every PyTorch page is a 404
    got = check(config(tmp_path, server.port))
    unread = [n for n in got["notes"] if n.key.startswith("recommend.compat.index.unread")]
    assert len(unread) == 1 and unread[0].key == "recommend.compat.index.unread_many"
    text = unread[0].text("ko")
    assert "개를 읽지 못해" in text and "download.pytorch.org" in text
