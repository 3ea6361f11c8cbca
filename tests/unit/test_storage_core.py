"""The storage core on real folders: the bounded walk, the tools' documented cache folders, and
which files of the download cache a cleanup may take (an unfinished install's real state file
decides). Also the TensorFlow route rule (issue 14 item 6), judged from probe events."""

from __future__ import annotations

import hashlib
import json
import os
import threading

import pytest

from wizard.core.install.recovery import EnvState, StateStore
from wizard.core.storage import cleanup as C
from wizard.core.storage import locations as L
from wizard.core.storage.measure import human_size, measure
from wizard.core.verify.checklist import VerifyReport


def _write(path, n):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * n)
    return path


def test_walk_counts_files_once_follows_no_link_and_survives_a_loop(tmp_path):
    _write(tmp_path / "a" / "one.bin", 1000)
    _write(tmp_path / "a" / "b" / "two.bin", 2000)
    (tmp_path / "a" / "loop").symlink_to(tmp_path / "a")  # a loop a naive walk never leaves
    (tmp_path / "a" / "big").symlink_to("/")  # a link to the whole disk is not counted
    u = measure(tmp_path / "a")
    assert u.exists and u.files == 2 and u.links == 2 and not u.truncated and u.errors == 0
    assert 3000 <= u.bytes < 3000 + 4096  # the two files, plus the links themselves
    assert measure(tmp_path / "missing").exists is False


def test_walk_stops_at_its_bound_and_on_cancel_and_says_so(tmp_path):
    for i in range(50):
        _write(tmp_path / f"f{i}", 10)
    u = measure(tmp_path, max_entries=10)
    assert u.truncated and u.files == 10
    stop = threading.Event()
    stop.set()
    assert measure(tmp_path, cancel=stop).truncated


@pytest.mark.skipif(os.name == "nt" or os.geteuid() == 0, reason="root (or Windows) reads every folder")
def test_walk_counts_an_unreadable_folder_instead_of_raising(tmp_path):
    locked = tmp_path / "locked"
    _write(locked / "x", 10)
    locked.chmod(0)
    try:
        assert measure(tmp_path).errors == 1
    finally:
        locked.chmod(0o755)


def test_human_size():
    assert human_size(0) == "0 B" and human_size(1536) == "1.5 KiB" and human_size(3 * 2**30) == "3.0 GiB"


def test_documented_cache_defaults_for_each_os():
    win = {"LOCALAPPDATA": r"C:\Users\김\AppData\Local", "USERPROFILE": r"C:\Users\김"}
    assert L.pip_cache_default(win, "windows")[0].endswith(os.path.join("pip", "Cache"))
    assert L.uv_cache_default(win, "windows")[0].endswith(os.path.join("uv", "cache"))
    mac = {"HOME": "/Users/kim"}
    assert L.pip_cache_default(mac, "macos")[0] == "/Users/kim/Library/Caches/pip"
    assert L.uv_cache_default(mac, "macos")[0] == "/Users/kim/.cache/uv"
    lin = {"HOME": "/home/kim", "XDG_CACHE_HOME": "/data/cache"}
    assert L.pip_cache_default(lin, "linux") == ("/data/cache/pip", L.SOURCE_DEFAULT)
    assert L.pip_cache_default({"PIP_CACHE_DIR": "/p"}, "linux") == ("/p", L.SOURCE_ENV)
    assert L.uv_cache_default({"UV_CACHE_DIR": "/u"}, "windows") == ("/u", L.SOURCE_ENV)
    assert L.hf_cache_path({"HOME": "/home/kim"})[0] == "/home/kim/.cache/huggingface/hub"
    assert L.hf_cache_path({"HF_HOME": "/hf"})[0] == os.path.join("/hf", "hub")
    assert L.hf_cache_path({"HF_HOME": "/hf", "HF_HUB_CACHE": "/hub"})[0] == "/hub"


def test_a_tool_that_does_not_answer_falls_back_to_the_default():
    def runner(argv):
        return None, ""  # not found / timed out

    loc = L.pip_location("/no/python", {"PIP_CACHE_DIR": "/p"}, runner)
    assert loc.path == "/p" and loc.tool is None and loc.source == L.SOURCE_ENV
    loc = L.uv_location("/no/uv", {"UV_CACHE_DIR": "/u"}, lambda argv: (0, "/answered/by/uv\n"))
    assert loc.path == "/answered/by/uv" and loc.tool == "/no/uv" and loc.source == L.SOURCE_TOOL


def test_environments_from_the_folder_the_state_and_the_history_once_each(tmp_path):
    root = tmp_path / "GPU-Setup-Wizard" / "envs"
    _write(root / "torch-gpu" / "pyvenv.cfg", 10)
    _write(root / "notes" / "readme.txt", 10)  # not an environment: not listed
    other = tmp_path / "elsewhere"
    _write(other / "conda-meta" / "history", 10)
    gone = tmp_path / "deleted-long-ago"
    found = L.environment_locations(str(root), [str(root / "torch-gpu"), str(other)],
                                    [str(other / "bin" / "python"), str(gone)])
    paths = [f.path for f in found]
    assert paths == [str(root / "torch-gpu"), str(other)]
    assert found[1].details["also_known_from"] == [L.SOURCE_HISTORY]


def _state(env_path, files, status="failed"):
    return EnvState(env_path=str(env_path), target={"kind": "new-venv", "path": str(env_path)},
                    created_by_wizard=True, status=status,
                    plan={"files": files})


def test_the_download_cache_keeps_what_an_unfinished_install_needs(tmp_path):
    cache = tmp_path / "downloads"
    sha = hashlib.sha256(b"torch").hexdigest()
    _write(cache / "files" / "torch-2.13.0-cp311-none-linux_x86_64.whl", 5000)  # needed: kept
    _write(cache / "files" / "old-1.0-py3-none-any.whl", 3000)  # no install needs it: goes
    _write(cache / "partial" / f"{sha[:40]}.part", 7000)  # the resumable partial: kept
    _write(cache / "partial" / ("f" * 40 + ".part"), 2000)  # a partial no install needs: goes
    _write(cache / "partial" / f"{sha[:40]}.lock", 0)
    store = StateStore(tmp_path / "state")
    env = tmp_path / "env 김"
    store.save(_state(env, [{"filename": "torch-2.13.0-cp311-none-linux_x86_64.whl", "url": "http://x/t.whl",
                              "sha256": sha, "satisfied": False},
                             {"filename": "done-1.0-py3-none-any.whl", "url": "http://x/d.whl", "sha256": None,
                              "satisfied": True}]))
    unfinished = store.unfinished()
    assert len(unfinished) == 1 and unfinished[0].status == "failed"
    item = C.plan_wizard_cache(str(cache), unfinished, running=False)
    assert sorted(os.path.basename(p) for p in item.files) == sorted(["old-1.0-py3-none-any.whl", "f" * 40 + ".part"])
    kept = {os.path.basename(k.path): k for k in item.kept}
    assert kept[f"{sha[:40]}.part"].reason == "unfinished_install" and kept[f"{sha[:40]}.part"].env_path == str(env)
    assert kept["torch-2.13.0-cp311-none-linux_x86_64.whl"].reason == "unfinished_install"
    assert item.before == 17000 and item.expected_after == 12000
    C.run_cleanup(C.CleanPlan([item]), remove_env=lambda i: None)
    assert item.done and item.after == 12000
    assert (cache / "partial" / f"{sha[:40]}.part").stat().st_size == 7000
    assert not (cache / "files" / "old-1.0-py3-none-any.whl").exists()


def test_while_an_install_runs_every_partial_stays(tmp_path):
    cache = tmp_path / "downloads"
    _write(cache / "partial" / ("a" * 40 + ".part"), 100)
    item = C.plan_wizard_cache(str(cache), [], running=True)
    assert not item.files and item.kept[0].reason == "install_running"


def test_an_environment_is_refused_when_not_one_busy_or_the_wizards_own(tmp_path):
    import sys

    docs = tmp_path / "docs"
    _write(docs / "thesis.docx", 100)
    assert C.plan_environment(str(docs), [], busy=lambda p: False).refused == "storage.refused.not_env"
    env = tmp_path / "env"
    _write(env / "pyvenv.cfg", 10)
    assert C.plan_environment(str(env), [], busy=lambda p: True).refused == "storage.refused.busy"
    assert C.plan_environment(str(env), [], busy=lambda p: False).refused is None
    assert C.plan_environment(sys.prefix, [], busy=lambda p: False).refused in ("storage.refused.own_env",
                                                                                 "storage.refused.not_env")
    assert C.plan_environment(str(tmp_path / "nope"), [], busy=lambda p: False).refused == "storage.refused.gone"


def test_a_tool_cache_without_its_tool_is_never_deleted(tmp_path):
    _write(tmp_path / "pip" / "wheels" / "w.whl", 100)
    item = C.plan_tool_cache(L.Location(L.KIND_PIP, str(tmp_path / "pip"), L.SOURCE_DEFAULT, tool=None))
    assert item.refused == "storage.refused.no_tool" and item.expected_freed == 0
    C.run_cleanup(C.CleanPlan([item]), remove_env=lambda i: None)
    assert (tmp_path / "pip" / "wheels" / "w.whl").exists()


# ---------------------------------------------------------------------------- TensorFlow's route
def _events(platform, tf):
    return [{"event": "result", "type": "facts", "section": "python", "data": {"sys_platform": platform}},
            {"event": "result", "type": "facts", "section": "driver", "data": {"found": True}},
            {"event": "result", "type": "check", "id": "tensorflow", **tf}]


def test_tensorflow_on_windows_says_native_gpu_support_ended_after_2_10():
    tf = {"status": "warn", "cause": "tf_no_gpu", "fix": "tf_gpu_setup",
          "evidence": {"version": "2.16.1", "gpus": []}}
    row = VerifyReport.from_events(_events("win32", tf)).check("tensorflow.route")
    assert row.status == "warn" and row.cause == "tf_windows_native_ended" and row.fix == "tf_wsl2"
    assert "2.10" in row.detail_text("en") and "2.10" in row.detail_text("ko")
    assert "tensorflow[and-cuda]" in row.fix_text("en") and "WSL2" in row.fix_text("ko")
    old = {"status": "pass", "evidence": {"version": "2.10.1", "gpus": ["/physical_device:GPU:0"]}}
    assert VerifyReport.from_events(_events("win32", old)).check("tensorflow.route").status == "pass"


def test_no_route_row_without_tensorflow_or_off_windows():
    absent = {"status": "skip", "detail": "tf_not_installed", "evidence": {"installed": False}}
    assert VerifyReport.from_events(_events("win32", absent)).check("tensorflow.route") is None
    linux = {"status": "warn", "cause": "tf_no_gpu_linux", "fix": "tf_and_cuda", "evidence": {"version": "2.16.1"}}
    report = VerifyReport.from_events(_events("linux", linux))
    assert report.check("tensorflow.route") is None
    assert "tensorflow[and-cuda]" in report.check("tensorflow").fix_text("en")
    assert json.dumps(report.to_json("ko"))
