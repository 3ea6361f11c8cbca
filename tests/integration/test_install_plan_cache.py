"""The plan cache and pip in uv venvs, with real uv, real venvs and the loopback index.

A warm install reuses uv's plan only while the index answers every URL uv read exactly as
before; a changed page makes uv plan again. A venv uv makes gets its pip with the install's
own uv run (no step of its own), and the install's check -- reading the venv's site-packages
in place -- says so, and sees what uv sees.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.integration.index_server import LoopbackIndex, make_wheel
from tests.no_proxy import no_proxy_for_loopback  # noqa: F401  (autouse: loopback without a proxy)
from wizard.core.base.host import RealHost
from wizard.core.install.download import _default_session
from wizard.core.install.env_commands import bundled_pip_wheel
from wizard.core.install.environments import find_uv, new_uv_venv
from wizard.core.install.job import InstallOptions
from wizard.core.install.plan_cache import CachedPlan, ConsultedUrls, PlanCache, fetch_answers, plan_key
from wizard.core.install.runner import InstallJob, run_steps
from wizard.core.install.venv_listing import read_installed, site_packages

pytestmark = pytest.mark.slow  # real uv, venvs and downloads against a loopback index


@pytest.fixture()
def uv_exe():
    found = find_uv()
    if not found:
        pytest.skip("uv is not installed (pip install uv)")
    return found


@pytest.fixture()
def wheels(tmp_path):
    d = tmp_path / "wheels"
    d.mkdir()
    return {"a": make_wheel(d, "gsw-pc-a", "1.0", requires=["gsw-pc-b>=1"]),
            "b1": make_wheel(d, "gsw-pc-b", "1.0", seed=1),
            "b2": make_wheel(d, "gsw-pc-b", "2.0", seed=2)}


def _job(root: Path, name: str, index: LoopbackIndex, uv: str) -> InstallJob:
    target = new_uv_venv(str(root / "envs" / name), sys.executable, uv_exe=uv)
    opts = InstallOptions(["gsw-pc-a==1.0"], index_url=index.simple_url, cache_dir=str(root / "cache"),
                          state_dir=str(root / "state"), installer="uv", uv_exe=uv,
                          uv_cache_dir=str(root / "uv-cache"))
    return InstallJob(target, opts, RealHost())


def _run(job: InstallJob) -> dict:
    assert run_steps(job), job.failure and job.failure.message.text("en")
    return job.summary()


def _compiled(job: InstallJob) -> bool:
    return any(line.startswith("$ ") and " pip compile " in line for line in job.log_lines)


def _page_gets(index: LoopbackIndex) -> set[str]:
    """The pages and .metadata files the index answered (not the wheels)."""
    return {e["path"] for e in index.log if e["method"] == "GET" and e["file"] is None and e["status"] == 200}


def _installed(job: InstallJob) -> dict[str, str]:
    return {i["name"]: i["version"] for i in job.summary()["installed"]}


def test_a_warm_run_reuses_the_plan_after_asking_the_index_the_same_questions(tmp_path, wheels, uv_exe):
    with LoopbackIndex() as index:
        index.add_wheels(wheels.values())
        first = _job(tmp_path, "one", index, uv_exe)
        _run(first)
        assert _compiled(first) and _installed(first) == {"gsw-pc-a": "1.0", "gsw-pc-b": "2.0"}
        asked_by_uv = _page_gets(index)
        assert asked_by_uv and list((tmp_path / "cache" / "plans").glob("*.json"))
        index.reset_counters()
        index.log.clear()
        second = _job(tmp_path, "two", index, uv_exe)
        s = _run(second)
    assert not _compiled(second)
    assert any(line.startswith("Plan: the same as last time") for line in second.log_lines)
    # the same requests uv made, answered again by the index; no wheel fetched (all cached)
    assert _page_gets(index) == asked_by_uv
    assert index.total_file_bytes_served() == 0 and s["downloaded_bytes"] == 0
    assert _installed(second) == {"gsw-pc-a": "1.0", "gsw-pc-b": "2.0"}
    out = subprocess.run([second.env_python(), "-c", "import gsw_pc_b; print(gsw_pc_b.__version__)"],
                         capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "2.0", out.stderr


def test_a_changed_page_makes_uv_plan_again(tmp_path, wheels, uv_exe):
    with LoopbackIndex() as index:
        index.add_wheels([wheels["a"], wheels["b1"]])
        first = _job(tmp_path, "one", index, uv_exe)
        _run(first)
        assert _installed(first) == {"gsw-pc-a": "1.0", "gsw-pc-b": "1.0"}
        index.add_wheels([wheels["b2"]])  # a new release of the dependency: its page changes
        second = _job(tmp_path, "two", index, uv_exe)
        _run(second)
        assert _compiled(second)
        assert any("answers differently" in line for line in second.log_lines)
        assert _installed(second) == {"gsw-pc-a": "1.0", "gsw-pc-b": "2.0"}
        third = _job(tmp_path, "three", index, uv_exe)  # the new plan is the one kept now
        _run(third)
    assert not _compiled(third) and _installed(third) == {"gsw-pc-a": "1.0", "gsw-pc-b": "2.0"}


def test_an_index_that_cannot_answer_is_never_taken_for_the_same(tmp_path, wheels, uv_exe):
    with LoopbackIndex() as index:
        index.add_wheels(wheels.values())
        _run(_job(tmp_path, "one", index, uv_exe))
        index.down = True  # every request is cut: the kept plan cannot be confirmed
        second = _job(tmp_path, "two", index, uv_exe)
        assert not run_steps(second)
    assert second.failure is not None and second.failure.step_id == "resolve" and _compiled(second)


def test_pip_comes_with_the_install_and_is_checked(tmp_path, wheels, uv_exe):
    with LoopbackIndex() as index:
        index.add_wheels(wheels.values())
        job = _job(tmp_path, "pip", index, uv_exe)
        s = _run(job)
    wheel = bundled_pip_wheel(job.target.path)
    if wheel is None:
        pytest.skip("this Python has no bundled pip wheel (ensurepip does the work)")
    assert "ensurepip" not in s["steps_run"]
    installs = [line for line in job.log_lines if line.startswith("$ ") and " --offline " in line]
    assert len(installs) == 1 and wheel in installs[0]
    assert "pip" in job.installed  # the install's own check read it back
    out = subprocess.run([job.env_python(), "-m", "pip", "--version"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr


def test_the_check_reads_what_uv_lists_and_sees_a_missing_package(tmp_path, wheels, uv_exe):
    import json

    with LoopbackIndex() as index:
        index.add_wheels(wheels.values())
        job = _job(tmp_path, "check", index, uv_exe)
        _run(job)
    assert any("installed distributions read from" in line for line in job.log_lines)
    assert not any(line.startswith("$ ") and " pip list " in line for line in job.log_lines)
    py = job.env_python()
    listed = subprocess.run([uv_exe, "pip", "list", "--no-config", "--python", py, "--format", "json"],
                            capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0, listed.stderr
    by_uv = {i["name"].lower(): i["version"] for i in json.loads(listed.stdout)}
    assert read_installed(site_packages(job.target.path)) == by_uv
    gone = subprocess.run([uv_exe, "pip", "uninstall", "--no-config", "--python", py, "gsw-pc-b"],
                          capture_output=True, text=True, timeout=120)
    assert gone.returncode == 0, gone.stderr
    assert not run_steps(job, [s for s in job.steps() if s.id == "verify"])
    assert job.failure is not None and job.failure.kind == "verify"
    assert "gsw-pc-b" in job.failure.message.text("en")


# --- the key and uv's log, without a run ------------------------------------------------------
def test_the_key_changes_with_the_question(tmp_path, uv_exe):
    base = dict(uv_exe=uv_exe, python=sys.executable, requirements=["torch==2.13.0"], index_url="http://i/simple",
                extra_index_urls=[], only_binary=True, network_args=[])
    key = plan_key(**base)
    assert plan_key(**base) == key
    for change in ({"requirements": ["torch==2.12.0"]}, {"index_url": "http://other/simple"},
                   {"extra_index_urls": ["http://pypi/simple"]}, {"only_binary": False},
                   {"network_args": ["--allow-insecure-host", "i"]}):
        assert plan_key(**{**base, **change}) != key, change
    fake = tmp_path / "python"
    fake.write_bytes(b"not the same interpreter")
    assert plan_key(**{**base, "python": str(fake)}) != key


def test_only_a_log_that_asked_for_every_answer_is_kept():
    page, meta = "http://127.0.0.1:1/simple/gsw-a/", "http://127.0.0.1:1/files/gsw_a-1.0-py3-none-any.whl.metadata"
    asked = ConsultedUrls()
    for line in (f"DEBUG No cache entry for: {page}", f"DEBUG Sending fresh GET request for: {page}",
                 f"DEBUG Found stale response for: {meta}", f"DEBUG Sending revalidation request for: {meta}",
                 f"DEBUG Found modified response for: {meta}"):
        asked.feed(line)
    assert asked.used == [page, meta] and asked.cacheable()
    from_uv_cache = ConsultedUrls()
    from_uv_cache.feed(f"DEBUG Found fresh response for: {page}")  # uv's own cache answered: maybe older
    assert not from_uv_cache.cacheable()
    wheel = ConsultedUrls()
    url = "http://127.0.0.1:1/files/gsw_a-1.0-py3-none-any.whl"
    wheel.feed(f"DEBUG Sending fresh GET request for: {url}")  # metadata from the wheel itself
    assert not wheel.cacheable()


def test_a_damaged_entry_is_no_plan(tmp_path):
    cache = PlanCache(tmp_path)
    (tmp_path / "k.json").write_text("{not json", encoding="utf-8")
    assert cache.load("k") is None
    (tmp_path / "k.json").write_text('{"schema": "gpu-setup-wizard/plan-cache@1", "lock": 1}', encoding="utf-8")
    assert cache.load("k") is None


class _EtagPages(BaseHTTPRequestHandler):
    """A page with an ETag that answers ``If-None-Match`` with 304, as PyPI does."""

    body = b"<a href='x-1.0-py3-none-any.whl'>x</a>"
    statuses: list[int] = []

    def log_message(self, fmt: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        etag = '"v-%d"' % len(self.body)
        status = 304 if self.headers.get("If-None-Match") == etag else 200
        self.statuses.append(status)
        self.send_response(status)
        self.send_header("ETag", etag)
        self.send_header("Content-Length", "0" if status == 304 else str(len(self.body)))
        self.end_headers()
        if status == 200:
            self.wfile.write(self.body)


def test_a_server_with_etags_is_asked_conditionally_and_a_change_is_seen(tmp_path):
    server = ThreadingHTTPServer(("127.0.0.1", 0), _EtagPages)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/simple/x/"
    try:
        first = fetch_answers([url], _default_session)
        assert first is not None and first[url].etag
        cache = PlanCache(tmp_path)
        assert cache.store("k", CachedPlan("lock", first))
        kept = cache.load("k")
        _EtagPages.statuses.clear()
        assert cache.still_valid(kept, _default_session)
        assert _EtagPages.statuses == [304]  # the body was not sent again
        _EtagPages.body = b"<a href='x-2.0-py3-none-any.whl'>x</a> (a new release)"
        assert not cache.still_valid(kept, _default_session)
    finally:
        server.shutdown()
        server.server_close()
