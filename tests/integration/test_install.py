"""The install engine against a real package index on 127.0.0.1 (tests/integration/index_server.py).

Every install here is real: wheels built in the test, served over HTTP with sha256 fragments and
PEP 658 metadata, resolved by pip's dry-run report, fetched by the wizard's downloader (Range
resume, hash check, cache), installed offline from the cache into a new venv whose path has
Hangul and spaces, and imported. The network misbehaves on purpose: a connection cut in the
middle of a file, a flipped byte, a slow server to cancel against, an address nobody listens on.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import venv
from pathlib import Path

import psutil
import pytest

from tests.cli_runner import run_cli
from tests.integration.index_server import LoopbackIndex, free_port, make_wheel
from tests.no_proxy import no_proxy_for_loopback  # noqa: F401  (autouse: loopback without a proxy)
from wizard.core.base.host import RealHost
from wizard.core.base.process import ProcessSpec
from wizard.core.install.cache import WheelCache
from wizard.core.install.download import Downloader
from wizard.core.install.download_errors import DownloadCancelled, HttpStatusError, NetworkError
from wizard.core.install.env_commands import bundled_pip_wheel
from wizard.core.install.environments import (
    KIND_NEW_VENV,
    EnvTarget,
    existing_venv,
    find_uv,
    is_incomplete,
    new_uv_venv,
    new_venv,
)
from wizard.core.install.job import InstallOptions
from wizard.core.install.parsers import PipInstallParser
from wizard.core.install.plan import InstallPlan, PlannedFile, classify_pip_failure, format_bytes, mark_satisfied
from wizard.core.install.recovery import (
    OPTION_REMOVE,
    OPTION_RESTORE,
    OPTION_RESUME,
    STATUS_CANCELLED,
    STATUS_COMPLETE,
    STATUS_FAILED,
    RemoveRefused,
    StateStore,
    parse_freeze,
    remove_environment,
    restore_plan,
)
from wizard.core.install.runner import InstallJob, StreamDecoder, restore_steps, run_process, run_steps

REPO = Path(__file__).resolve().parents[2]
BIG = 6_000_000
pytestmark = pytest.mark.slow  # real pip, venvs and downloads against a loopback index


def env_python(path: Path) -> Path:
    return path / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def run_py(py: Path, code: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(py), "-c", code], capture_output=True, text=True, timeout=120)


# --------------------------------------------------------------------------------------------
# Fixtures
# --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory):
    d = tmp_path_factory.mktemp("wheels")
    return {
        "a": make_wheel(d, "gsw-demo-a", "1.0", requires=["gsw-demo-b>=1"]),
        "b2": make_wheel(d, "gsw-demo-b", "2.0", payload_bytes=1_500_000, seed=2),
        "b1": make_wheel(d, "gsw-demo-b", "1.0", seed=1),
        "big": make_wheel(d, "gsw-big", "1.0", payload_bytes=BIG, seed=3),
        "many": make_wheel(d, "gsw-many", "1.0", many_files=6000),
    }


@pytest.fixture()
def index(wheelhouse):
    with LoopbackIndex() as idx:
        idx.add_wheels(wheelhouse.values())
        yield idx


@pytest.fixture()
def root(tmp_path):
    """A folder with Hangul and a space, as students' home folders have."""
    base = tmp_path / "김철수 학생"
    base.mkdir()
    return base


def make_job(root: Path, target: EnvTarget, reqs: list[str], index: LoopbackIndex, *,
             cache: Path | None = None, **options) -> InstallJob:
    opts = InstallOptions(reqs, index_url=index.simple_url, cache_dir=str(cache or root / "cache"),
                          state_dir=str(root / "state"), download_backoff_s=(0.05, 0.1, 0.2), **options)
    return InstallJob(target, opts, RealHost())


def new_target(root: Path, name: str = "가상 환경") -> EnvTarget:
    return new_venv(str(root / "envs" / name), sys.executable)


def sizes(index: LoopbackIndex, *paths: Path) -> int:
    return sum(index.files[p.name].size for p in paths)


# --------------------------------------------------------------------------------------------
# The whole path
# --------------------------------------------------------------------------------------------
def test_full_install_into_a_hangul_path_with_spaces(index, wheelhouse, root):
    target = new_target(root)
    job = make_job(root, target, ["gsw-demo-a==1.0"], index, verify_imports=["gsw_demo_a", "gsw_demo_b"])
    seen = []
    assert run_steps(job, on_progress=seen.append), job.failure and job.failure.message.text()
    summary = job.summary()
    assert summary["schema"] == "gpu-setup-wizard/install@1.0" and summary["ok"]
    assert {i["name"]: i["version"] for i in summary["installed"]} == {"gsw-demo-a": "1.0", "gsw-demo-b": "2.0"}
    expected = sizes(index, wheelhouse["a"], wheelhouse["b2"])
    assert summary["downloaded_bytes"] == expected == index.total_file_bytes_served()
    assert summary["from_cache_bytes"] == 0 and summary["planned_bytes"] == expected
    # pip resolved from metadata: the only file bodies served were the downloader's
    assert all(e["range"] is None for e in index.log if e["method"] == "GET" and e["file"])
    out = run_py(env_python(Path(target.path)), "import gsw_demo_a, gsw_demo_b, sys; print(gsw_demo_b.__version__, "
                                                 "sys.prefix)")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[0] == "2.0" and "김철수 학생" in out.stdout
    assert not is_incomplete(target.path)
    state = StateStore(root / "state").load(target.path)
    assert state.status == STATUS_COMPLETE and state.created_by_wizard and state.options() == []
    overall = [p.overall for p in seen]
    assert overall == sorted(overall) and overall[-1] == 1.0
    assert {p.step_id for p in seen} >= {"create", "resolve", "download", "install", "verify"}


def test_rerun_fetches_nothing_and_a_done_environment_is_left_alone(index, wheelhouse, root):
    first = make_job(root, new_target(root, "one"), ["gsw-demo-a==1.0"], index)
    assert run_steps(first)
    total = first.summary()["downloaded_bytes"]
    assert total > 1_500_000
    index.reset_counters()
    second = make_job(root, new_target(root, "two"), ["gsw-demo-a==1.0"], index)
    assert run_steps(second)
    s = second.summary()
    assert s["downloaded_bytes"] == 0 and s["from_cache_bytes"] == total
    assert index.total_file_bytes_served() == 0
    # the same command on the finished environment: already satisfied, nothing fetched or installed
    index.reset_counters()
    again = make_job(root, existing_venv(second.target.path), ["gsw-demo-a==1.0"], index)
    assert run_steps(again)
    s = again.summary()
    assert s["already_satisfied"] and "install" not in s["steps_run"] and "download" not in s["steps_run"]
    assert index.total_file_bytes_served() == 0


@pytest.mark.parametrize("installer", ["uv", "pip"])
def test_bytes_fetched_are_the_wheels_once_and_the_reported_figure_is_the_index_count(index, wheelhouse, root,
                                                                                       installer):
    """Issue 17.2 / 15.4: the plan reads metadata only (no wheel fetched before the download),
    a first run fetches each wheel once, a re-run into a fresh venv fetches none, and the
    ``downloaded_bytes`` reported is what the index counted, both times, with either installer."""
    reqs = ["gsw-demo-a==1.0"]
    wheels = index.files[wheelhouse["a"].name].size + index.files[wheelhouse["b2"].name].size
    first = make_job(root, new_target(root, "one"), reqs, index, installer=installer)
    assert run_steps(first), first.failure and first.failure.message.text("en")
    s = first.summary()
    assert s["installer"] == installer and ("ensurepip" in s["steps_run"]) is False
    assert s["downloaded_bytes"] == index.total_file_bytes_served() == wheels
    assert index.total_bytes_served() <= 1.02 * wheels  # pages and .metadata files on top: small
    assert all(n == 1 for n in index.file_gets.values())  # no wheel fetched twice (the plan fetched none)
    index.reset_counters()
    second = make_job(root, new_target(root, "two"), reqs, index, installer=installer)
    assert run_steps(second), second.failure and second.failure.message.text("en")
    s = second.summary()
    assert s["downloaded_bytes"] == 0 == index.total_file_bytes_served() and s["from_cache_bytes"] == wheels
    assert not index.file_gets  # no GET of a wheel at all: sizes came from the cache's verified index


def test_a_different_build_of_the_same_version_is_not_satisfied():
    """pip calls 2.13.0+cpu a match for torch==2.13.0; the plan must not."""
    plan = InstallPlan("/p", ["torch==2.13.0"], None, [
        PlannedFile("torch", "2.13.0+cu126", "torch-2.13.0+cu126-cp311-cp311-linux_x86_64.whl", "http://x/t.whl", None),
        PlannedFile("filelock", "3.20.0", "filelock-3.20.0-py3-none-any.whl", "http://x/f.whl", None)])
    mark_satisfied(plan.files, {"torch": "2.13.0+cpu", "filelock": "3.20.0"})
    assert [f.name for f in plan.to_install] == ["torch"]
    assert plan.replaces()[0].installed_version == "2.13.0+cpu"
    assert plan.pins() == ["torch==2.13.0+cu126"]
    assert InstallPlan.from_json(json.loads(json.dumps(plan.to_json()))).pins() == plan.pins()


# --------------------------------------------------------------------------------------------
# The downloader on a misbehaving network
# --------------------------------------------------------------------------------------------
def planned(index: LoopbackIndex, *paths: Path) -> list[PlannedFile]:
    out = []
    for p in paths:
        served = index.files[p.name]
        out.append(PlannedFile(served.project, "0", p.name, index.file_url(p.name), served.sha256, served.size))
    return out


def test_resume_after_a_dropped_connection_fetches_only_the_rest(index, wheelhouse, root):
    name = wheelhouse["big"].name
    index.drop_after(name, 1_000_000)
    files = planned(index, wheelhouse["big"])
    result = Downloader(WheelCache(root / "cache"), backoff_s=(0.05,)).fetch(files)
    size = index.files[name].size
    assert index.ranges_asked(name) == [None, "bytes=1000000-"]
    assert index.bytes_served[name] == size  # 1,000,000 before the cut + the rest, nothing twice
    assert result.downloaded_bytes == size and result.refetched == []
    assert result.paths[name].read_bytes() == index.files[name].data


def test_a_corrupted_byte_is_caught_and_fetched_once_more(index, wheelhouse, root):
    name = wheelhouse["big"].name
    index.corrupt(name, times=1)
    result = Downloader(WheelCache(root / "cache")).fetch(planned(index, wheelhouse["big"]))
    assert result.refetched == [name]
    assert index.file_gets[name] == 2 and index.bytes_served[name] == 2 * index.files[name].size
    assert result.paths[name].read_bytes() == index.files[name].data


def test_a_file_corrupted_twice_stops_the_install_and_is_never_installed(index, wheelhouse, root):
    name = wheelhouse["b2"].name
    index.corrupt(name, times=2)
    target = new_target(root)
    job = make_job(root, target, ["gsw-demo-a==1.0"], index)
    assert not run_steps(job)
    assert job.failure.step_id == "download" and job.failure.kind == "hash"
    for lang in ("en", "ko"):
        text = job.failure.message.text(lang)
        assert name in text and index.files[name].sha256 in text and "127.0.0.1" in text
    cache = WheelCache(root / "cache")
    # the bad file left nothing (another file stopped half-way by the failure may keep its part)
    assert not cache.path(name).exists() and not (cache.partial_dir / f"{index.files[name].sha256[:40]}.part").exists()
    assert index.file_gets[name] == 2
    out = run_py(env_python(Path(target.path)), "import gsw_demo_b")
    assert out.returncode != 0  # nothing from the bad download reached the environment
    state = StateStore(root / "state").load(target.path)
    assert state.status == STATUS_FAILED and state.failed_step == "download" and state.error_kind == "hash"
    assert state.options() == [OPTION_RESUME, OPTION_REMOVE]
    assert is_incomplete(target.path)


def test_parallel_downloads_with_speed_and_eta(index, wheelhouse, root):
    files = planned(index, wheelhouse["big"], wheelhouse["b2"], wheelhouse["many"])
    for f in files:
        index.throttle(f.filename, f.size / 1.0)  # each file alone takes about a second
    snaps = []
    result = Downloader(WheelCache(root / "cache"), parallel=3, progress=snaps.append).fetch(files)
    # parallel is seen in the snapshots (files downloading at once, below), not timed: a loaded
    # machine may take any time
    assert result.downloaded_bytes == sum(f.size for f in files)
    moving = [s for s in snaps if s.speed_bps > 0 and s.eta_s is not None]
    assert moving, "no progress snapshot had a speed and an ETA"
    assert max(len([f for f in s.files if f.state == "downloading"]) for s in snaps) >= 2
    assert snaps[-1].done_bytes == snaps[-1].total_bytes == result.downloaded_bytes


def test_unreachable_server_names_the_host_and_suggests_a_mirror(root):
    port = free_port()
    f = PlannedFile("x", "1", "x-1-py3-none-any.whl", f"http://127.0.0.1:{port}/files/x-1-py3-none-any.whl", None, 10)
    with pytest.raises(NetworkError) as info:
        Downloader(WheelCache(root / "cache"), retries=1, backoff_s=(0.05,)).fetch([f])
    assert info.value.host == "127.0.0.1"
    assert "mirror" in info.value.message.text("en") and "미러" in info.value.message.text("ko")


def test_http_error_is_reported_with_the_status(index, wheelhouse, root):
    index.fail(wheelhouse["b1"].name, 403)
    with pytest.raises(HttpStatusError) as info:
        Downloader(WheelCache(root / "cache")).fetch(planned(index, wheelhouse["b1"]))
    assert info.value.status == 403 and "403" in info.value.message.text("ko")


def test_resolution_failure_names_the_host(index, root):
    dead = f"http://127.0.0.1:{free_port()}/simple"
    job = make_job(root, new_target(root), ["gsw-demo-a==1.0"], index)
    job.options.index_url = dead
    assert not run_steps(job)
    assert job.failure.step_id == "resolve" and job.failure.kind == "network"
    assert job.failure.host == "127.0.0.1" and "127.0.0.1" in job.failure.message.text("ko")
    assert job.summary()["recovery"] == [OPTION_RESUME, OPTION_REMOVE]


def test_no_such_version_is_not_called_a_network_problem(index, root):
    job = make_job(root, new_target(root), ["gsw-demo-a==9.9"], index)
    assert not run_steps(job)
    assert job.failure.kind == "no-version", job.failure.detail


def test_pip_failure_texts_are_classified():
    refused = ("WARNING: Retrying (Retry(total=1, connect=None, read=None, redirect=None, status=None)) after "
               "connection broken by 'NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object at "
               "0x7f>: Failed to establish a new connection: [Errno -2] Name or service not known')': "
               "/whl/cu126/torch/\n"
               "ERROR: Could not find a version that satisfies the requirement torch==2.6.0 (from versions: none)\n"
               "ERROR: No matching distribution found for torch==2.6.0\n")
    err = classify_pip_failure(refused, "https://download.pytorch.org/whl/cu126")
    assert err.kind == "network" and err.host == "download.pytorch.org"
    missing = "ERROR: Could not find a version that satisfies the requirement torch==9.9 (from versions: 2.6.0)\n"
    assert classify_pip_failure(missing, "https://download.pytorch.org/whl/cu126").kind == "no-version"
    assert classify_pip_failure("/x/python: No module named pip\n", None).kind == "no-pip"


# --------------------------------------------------------------------------------------------
# Cancel, then Resume or Remove
# --------------------------------------------------------------------------------------------
def _cancel_when(job: InstallJob, phase: str, cancel: threading.Event, marks: dict):
    def watch(p):
        if cancel.is_set():
            return
        if phase == "download" and p.step_id == "download" and p.step and p.step.download \
                and p.step.download.fetched_bytes > 1_500_000:
            marks["at"] = time.monotonic()
            cancel.set()
        if phase == "install" and p.step_id == "install" and p.step and (p.step.fraction or 0) >= 0.35:
            marks["at"] = time.monotonic()
            cancel.set()
    return watch


@pytest.mark.parametrize("phase", ["download", "install"])
@pytest.mark.parametrize("then", ["resume", "remove"])
def test_cancel_then_resume_or_remove(index, wheelhouse, root, phase, then):
    reqs = ["gsw-big==1.0"] if phase == "download" else ["gsw-many==1.0"]
    module = "gsw_big" if phase == "download" else "gsw_many"
    big = wheelhouse["big"].name
    if phase == "download":
        index.throttle(big, 1_500_000)  # 6 MB at 1.5 MB/s: time to cancel in the middle
    target = new_target(root)
    job = make_job(root, target, reqs, index)
    cancel, marks = threading.Event(), {}
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    assert not run_steps(job, on_progress=_cancel_when(job, phase, cancel, marks), cancel=cancel)
    stopped_in = time.monotonic() - marks["at"]
    # run_steps came back, so the cancel landed; the bound only tells a hang (terminate, kill, tree)
    # from a slow machine, it does not time the machine
    assert stopped_in < 60.0, stopped_in
    leftover = [p for p in psutil.Process().children(recursive=True) if p.pid not in before and p.is_running()
                and p.status() != psutil.STATUS_ZOMBIE]
    assert not leftover, leftover
    store = StateStore(root / "state")
    state = store.load(target.path)
    # a cancel during the install step lets the installer finish writing; the run stops before verify
    reached = "verify" if phase == "install" else phase
    assert state.status == STATUS_CANCELLED and state.failed_step == reached, (state.failed_step, state.error)
    assert state.error_kind == "cancelled" and state.index_url == index.simple_url
    assert state.options() == [OPTION_RESUME, OPTION_REMOVE]
    assert is_incomplete(target.path)
    if phase == "install":  # never killed mid-write: everything is in place, only unverified
        assert run_py(env_python(Path(target.path)), f"import {module}").returncode == 0
        assert any("allowed to finish" in line for line in job.log_lines)
    cache = WheelCache(root / "cache")
    partial = 0
    if phase == "download":
        partial = sum(p.stat().st_size for p in cache.partial_dir.glob("*.part"))
        assert 1_500_000 <= partial < BIG  # what arrived is kept for Resume
    if then == "remove":
        result = remove_environment(state, RealHost(), store)
        assert result.removed == [target.path]
        assert not os.path.exists(target.path) and store.load(target.path) is None
        return
    index.throttle(big, None)
    index.reset_counters()
    resumed = make_job(root, existing_venv(target.path), reqs, index)  # the same command, again
    assert run_steps(resumed), resumed.failure and resumed.failure.message.text()
    s = resumed.summary()
    assert resumed.target.kind == KIND_NEW_VENV  # recognised as the wizard's unfinished environment
    assert "create" not in s["steps_run"] and "resolve" not in s["steps_run"]  # done steps, saved plan
    assert s["requirements"] == reqs and s["index_url"] == index.simple_url
    if phase == "install":
        assert "install" not in s["steps_run"] and "verify" in s["steps_run"]
    if phase == "download":
        assert index.sent_per_get(big) == [(f"bytes={partial}-", index.files[big].size - partial)]
        assert s["resumed_bytes"] == partial
    else:
        assert s["downloaded_bytes"] == 0 and index.total_file_bytes_served() == 0
    out = run_py(env_python(Path(target.path)), f"import {module}")
    assert out.returncode == 0, out.stderr
    assert not is_incomplete(target.path) and store.load(target.path).status == STATUS_COMPLETE


def test_downloader_cancel_is_prompt_even_on_a_stalled_read(index, wheelhouse, root):
    name = wheelhouse["big"].name
    index.throttle(name, 20_000)  # a trickle: each read waits
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    start = time.monotonic()
    with pytest.raises(DownloadCancelled):
        Downloader(WheelCache(root / "cache"), cancel=cancel).fetch(planned(index, wheelhouse["big"]))
    # the whole file at this trickle takes 5 minutes and a stalled read times out after one: a
    # cancel that waited for either would take far longer than this
    assert time.monotonic() - start < 20.0


def test_remove_refuses_what_the_wizard_did_not_create(index, root):
    existing = root / "my own env"
    venv.create(existing, with_pip=False)
    (existing / "notes.txt").write_text("mine", encoding="utf-8")
    store = StateStore(root / "state")
    from wizard.core.install.recovery import EnvState

    state = EnvState(str(existing), existing_venv(str(existing)).to_json(), created_by_wizard=False)
    with pytest.raises(RemoveRefused):
        remove_environment(state, RealHost(), store)
    state.created_by_wizard = True  # even when the record says so, a folder of other things stays
    docs = root / "documents"
    docs.mkdir()
    (docs / "thesis.hwp").write_text("x", encoding="utf-8")
    state.env_path = str(docs)
    with pytest.raises(RemoveRefused):
        remove_environment(state, RealHost(), store)
    assert (docs / "thesis.hwp").exists() and (existing / "notes.txt").exists()


# --------------------------------------------------------------------------------------------
# An existing environment: freeze first, Restore on failure
# --------------------------------------------------------------------------------------------
def test_existing_env_is_frozen_and_restored_after_a_failure(index, wheelhouse, root):
    env_dir = root / "기존 환경"
    venv.create(env_dir, with_pip=True)
    py = env_python(env_dir)
    pre = subprocess.run([str(py), "-m", "pip", "--isolated", "install", "-q", "--index-url", index.simple_url,
                          "gsw-demo-b==1.0"], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PIP_CONFIG_FILE": os.devnull})
    assert pre.returncode == 0, pre.stderr
    target = existing_venv(str(env_dir))
    job = make_job(root, target, ["gsw-demo-a==1.0"], index, verify_imports=["gsw_demo_a", "no_such_module_here"])
    assert not run_steps(job)
    assert job.failure.step_id == "verify"
    state = StateStore(root / "state").load(str(env_dir))
    assert not state.created_by_wizard and state.freeze_file
    frozen, _ = parse_freeze(Path(state.freeze_file).read_text(encoding="utf-8"))
    assert frozen["gsw-demo-b"] == "1.0"
    assert state.options() == [OPTION_RESUME, OPTION_RESTORE]  # never Remove: it was not ours
    assert run_py(py, "import gsw_demo_b; print(gsw_demo_b.__version__)").stdout.strip() == "2.0"
    restore = make_job(root, target, ["gsw-demo-a==1.0"], index)
    assert run_steps(restore, restore_steps(restore)), restore.failure and restore.failure.message.text()
    out = run_py(py, "import importlib.util as u, gsw_demo_b; print(gsw_demo_b.__version__, "
                     "u.find_spec('gsw_demo_a') is None)")
    assert out.stdout.split() == ["1.0", "True"]


def test_restore_plan_from_freeze():
    freeze = "gsw-demo-b==1.0\nnumpy==1.26.4\nmkl-service @ file:///croot/mkl-service_1/work\n-e git+https://x/y#egg=z\n"
    plan = restore_plan(freeze, {"gsw-demo-b": "2.0", "gsw-demo-a": "1.0", "numpy": "1.26.4", "mkl-service": "2.4.0"})
    assert plan.uninstall == ["gsw-demo-a"] and plan.reinstall == ["gsw-demo-b==1.0"]
    assert plan.not_restorable == ["mkl-service @ file:///croot/mkl-service_1/work", "-e git+https://x/y#egg=z"]


# --------------------------------------------------------------------------------------------
# uv
# --------------------------------------------------------------------------------------------
@pytest.fixture()
def uv_exe():
    found = find_uv()
    if not found:
        pytest.skip("uv is not installed (pip install uv)")
    return found


def test_uv_creates_the_venv_and_installs_offline_from_the_cache(index, wheelhouse, root, uv_exe):
    target = new_uv_venv(str(root / "uv 환경"), sys.executable, uv_exe=uv_exe)
    job = make_job(root, target, ["gsw-demo-a==1.0"], index, installer="uv", uv_exe=uv_exe,
                   verify_imports=["gsw_demo_a"])
    assert run_steps(job), job.failure and job.failure.message.text()
    s = job.summary()
    # uv plans (metadata only) and installs; the venv still gets pip, so the student's own
    # `pip install` works in it: the Python's bundled pip wheel, one more argument of the
    # offline install (no step of its own)
    assert s["installer"] == "uv" and "ensurepip" not in s["steps_run"]
    assert any(" pip compile " in line and "pylock.toml" in line for line in job.log_lines)
    installs = [line for line in job.log_lines if "--offline" in line and "--no-index" in line]
    wheel = bundled_pip_wheel(target.path)
    assert wheel and len(installs) == 1 and wheel in installs[0]
    assert run_py(env_python(Path(target.path)), "import gsw_demo_a").returncode == 0
    pip = run_py(env_python(Path(target.path)), "import pip; print(pip.__version__)")
    assert pip.returncode == 0 and pip.stdout.strip(), pip.stderr


def test_pip_installer_keeps_the_pip_path(index, wheelhouse, root, uv_exe):
    """pip stays the fallback: a uv venv planned and installed by pip gets its ensurepip."""
    target = new_uv_venv(str(root / "pip 환경"), sys.executable, uv_exe=uv_exe)
    job = make_job(root, target, ["gsw-demo-a==1.0"], index, installer="pip", uv_exe=uv_exe,
                   verify_imports=["gsw_demo_a"])
    assert run_steps(job), job.failure and job.failure.message.text()
    s = job.summary()
    assert s["installer"] == "pip" and "ensurepip" in s["steps_run"]
    assert any("--dry-run" in line and "--report" in line for line in job.log_lines)
    assert run_py(env_python(Path(target.path)), "import pip, gsw_demo_a").returncode == 0


def test_uv_python_install_uses_the_mirror_and_says_which_host_failed(index, root, uv_exe, monkeypatch):
    monkeypatch.setenv("UV_PYTHON_INSTALL_DIR", str(root / "uv-pythons"))  # no managed Python here
    target = new_uv_venv(str(root / "managed"), "3.12", uv_exe=uv_exe)
    job = make_job(root, target, ["gsw-demo-a==1.0"], index, uv_exe=uv_exe,
                   uv_python_mirror=index.base + "/python-mirror")
    assert not run_steps(job)
    assert job.failure.step_id == "python" and job.failure.kind == "network"
    assert job.failure.host == "127.0.0.1"
    asked = [e["path"] for e in index.log if e["path"].startswith("/python-mirror/")]
    assert asked and asked[0].endswith(".tar.gz") and "cpython-3.12" in asked[0]
    assert is_incomplete(target.path)  # the folder exists only as the wizard's marked, unfinished one
    state = StateStore(root / "state").load(target.path)
    assert state.options() == [OPTION_RESUME, OPTION_REMOVE]
    assert remove_environment(state, RealHost(), StateStore(root / "state")).removed == [target.path]
    assert not os.path.exists(target.path)


# --------------------------------------------------------------------------------------------
# Child processes and their output
# --------------------------------------------------------------------------------------------
def test_stream_decoder_keeps_split_characters_and_survives_cp949():
    d = StreamDecoder(fallback="utf-8")
    text = "설치 완료: 가상 환경\n".encode("utf-8")
    lines = []
    for i in range(len(text)):  # one byte at a time: every Hangul character is split
        lines += d.feed(text[i:i + 1])
    assert lines == ["설치 완료: 가상 환경"]
    assert d.feed("오류 메시지\r\n".encode("cp949")) == ["오류 메시지"]  # not UTF-8: cp949 decodes it
    assert d.feed(b"50%\r60%\r") == ["50%"]  # a trailing \r waits: it may be half of \r\n
    assert d.feed(b"\n") == ["60%"]
    assert d.feed(b"no newline") == [] and d.flush() == ["no newline"]


def test_run_process_decodes_utf8_and_cp949_children():
    code = ("import sys; sys.stdout.buffer.write('한글 출력\\n'.encode('utf-8')); "
            "sys.stdout.buffer.write('윈도우 메시지\\r\\n'.encode('cp949')); sys.stdout.flush()")
    lines = []
    result = run_process(ProcessSpec([sys.executable, "-c", code], dict(os.environ), None, 60), lines.append)
    assert result.ok and lines == ["한글 출력", "윈도우 메시지"]


def test_run_process_cancel_kills_the_whole_tree():
    code = ("import subprocess, sys, time; "
            "c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
            "print(c.pid, flush=True); time.sleep(60)")
    pids, cancel = [], threading.Event()

    def on_line(line):
        pids.append(int(line))
        cancel.set()

    result = run_process(ProcessSpec([sys.executable, "-c", code], dict(os.environ), None, 60), on_line, cancel)
    assert result.cancelled and result.returncode is None  # back before the child's 60 s timeout
    grandchild = pids[0]
    deadline = time.monotonic() + 30  # wait for the condition; the bound only tells a hang
    while time.monotonic() < deadline and psutil.pid_exists(grandchild) and \
            psutil.Process(grandchild).status() != psutil.STATUS_ZOMBIE:
        time.sleep(0.05)
    assert not psutil.pid_exists(grandchild) or psutil.Process(grandchild).status() == psutil.STATUS_ZOMBIE


def test_run_process_timeout_and_missing_program():
    result = run_process(ProcessSpec([sys.executable, "-c", "import time; time.sleep(30)"], dict(os.environ), None,
                                     0.5))
    assert result.timed_out and not result.ok
    missing = run_process(ProcessSpec(["/no/such/program-gsw"], dict(os.environ)))
    assert missing.error == "not found"


def test_pip_install_parser_counts_packages():
    p = PipInstallParser("install", 2)
    lines = ["Looking in links: /c/files", "Processing /c/files/torch-2.6.0+cu126-cp311-cp311-win_amd64.whl",
             "Processing /c/files/filelock-3.20.0-py3-none-any.whl", "Installing collected packages: filelock, torch",
             "Successfully installed filelock-3.20.0 torch-2.6.0+cu126"]
    fractions = [p.feed_line(line).fraction for line in lines[1:]]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert p.feed_line(lines[0]) is None


def test_every_step_has_a_title_in_both_languages(root, index):
    from wizard.core.base.i18n import catalogue

    job = make_job(root, new_target(root), ["x==1"], index)
    ids = [s.id for s in job.steps()] + [s.id for s in restore_steps(job)]
    missing = [i for i in ids if f"install.step.{i}" not in catalogue()]
    assert not missing, missing
    assert format_bytes(1_500_000) == "1.5 MB" and format_bytes(999) == "999 B"


# --------------------------------------------------------------------------------------------
# The CLI
# --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def fake_torch(tmp_path_factory):
    """Tiny stand-ins named torch/torchvision at the versions the recommender picks for torch 2.13 CPU."""
    from wizard.core.recommend.inputs import MachineFacts, Wishes
    from wizard.core.recommend.recommender import recommend

    minor = f"{sys.version_info[0]}.{sys.version_info[1]}"
    best = recommend(MachineFacts("linux", "x86_64", minor), Wishes(torch="2.13.0", variant="cpu")).best
    if best is None or sys.platform != "linux":
        pytest.skip("the recommender offers no torch 2.13 CPU build for this Python/OS")
    d = tmp_path_factory.mktemp("fake torch")
    wheels = [make_wheel(d, "torch", f"{best.torch}+cpu", requires=["typing-extensions>=4"]),
              make_wheel(d, "torchvision", f"{best.torchvision}+cpu", requires=[f"torch=={best.torch}"]),
              make_wheel(d, "typing-extensions", "4.12.2", files={"typing_extensions.py": "X = 1\n"})]
    return best, wheels


def in_root(root: Path) -> dict[str, str]:
    """The wizard's cache and install state inside ``root``."""
    return {"XDG_CACHE_HOME": str(root / "xdg cache"), "XDG_STATE_HOME": str(root / "xdg state")}


def test_cli_plan_install_and_rerun(fake_torch, root):
    best, wheels = fake_torch
    with LoopbackIndex() as idx:
        idx.add_wheels(wheels)
        venv_dir = root / "가상 환경" / "torch cpu"
        common = ["--venv", str(venv_dir), "--python", sys.executable, "--torch", "2.13.0", "--variant", "cpu",
                  "--index-url", idx.base + "/whl", "--json"]
        plan = run_cli("install", *common, "--plan-only", lang="ko", env=in_root(root))
        assert plan.returncode == 0, plan.stderr
        doc = json.loads(plan.stdout)
        assert doc["schema"] == "gpu-setup-wizard/install-plan@1.0"
        assert doc["index_url"] == f"{idx.base}/whl/cpu"
        assert {f["name"] for f in doc["files"]} == {"torch", "torchvision", "typing-extensions"}
        assert all(f["size"] == idx.files[f["filename"]].size for f in doc["files"])
        assert "파일" in plan.stderr  # the plan is told in Korean
        assert not venv_dir.exists() and idx.total_file_bytes_served() == 0  # --plan-only changes nothing

        out = run_cli("install", *common, env=in_root(root))
        assert out.returncode == 0, out.stderr
        summary = json.loads(out.stdout)
        assert summary["schema"] == "gpu-setup-wizard/install@1.0" and summary["ok"]
        assert Path(summary["env_python"]).exists()
        assert {i["name"]: i["version"] for i in summary["installed"]} == {
            "torch": f"{best.torch}+cpu", "torchvision": f"{best.torchvision}+cpu", "typing-extensions": "4.12.2"}
        assert summary["downloaded_bytes"] == sum(f.size for f in idx.files.values())
        assert summary["from_cache_bytes"] == 0 and summary["imports"] == {}  # importing is Verify's work
        assert "[" in out.stderr and "%" in out.stderr  # progress lines on stderr

        again = run_cli("install", *common, env=in_root(root))
        assert again.returncode == 0, again.stderr
        s2 = json.loads(again.stdout)
        assert s2["already_satisfied"] and s2["downloaded_bytes"] == 0


def test_cli_refuses_the_wizards_own_environment_without_yes(fake_torch, root):
    _best, wheels = fake_torch
    with LoopbackIndex() as idx:
        idx.add_wheels(wheels)
        out = run_cli("install", "--venv", sys.prefix, "--torch", "2.13.0", "--variant", "cpu", "--index-url",
                      idx.base + "/whl", "--plan-only", "--json", env=in_root(root))
    assert out.returncode == 3, out.stderr
    doc = json.loads(out.stdout)
    assert any(c["id"] == "own-runtime" and c["blocks"] for c in doc["checks"])
    assert "--yes" in out.stderr


# --------------------------------------------------------------------------------------------
# A real torch wheel, end to end
# --------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_real_torch_wheel_end_to_end(tmp_path_factory):
    wheels = tmp_path_factory.mktemp("torch wheels")
    got = subprocess.run([sys.executable, "-m", "pip", "download", "torch==2.13.0", "--only-binary", ":all:",
                          "-d", str(wheels), "-q"], capture_output=True, text=True, timeout=900)
    torch_wheels = list(wheels.glob("torch-2.13.0*.whl"))
    if got.returncode != 0 or not torch_wheels:
        pytest.skip(f"no torch 2.13.0 wheel can be had here: {(got.stderr or got.stdout)[-300:]}")
    root = tmp_path_factory.mktemp("torch e2e 김")
    with LoopbackIndex() as idx:
        idx.add_wheels(sorted(wheels.glob("*.whl")))
        target = new_venv(str(root / "파이토치 환경"), sys.executable)
        job = make_job(root, target, ["torch==2.13.0"], idx, verify_imports=["torch"])
        assert run_steps(job), job.failure and (job.failure.message.text() + "\n" + job.failure.detail)
        s = job.summary()
        assert s["downloaded_bytes"] == sum(f.size for f in idx.files.values())
        torch_version = {i["name"]: i["version"] for i in s["installed"]}["torch"]
        assert torch_version.startswith("2.13.0")
    out = run_py(env_python(Path(target.path)), "import torch; print(torch.__version__, torch.ones(3).sum().item())")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [torch_version, "3.0"]


def test_a_refused_folder_is_never_recorded_as_the_wizards(index, root):
    """A new venv aimed at a folder of other files is refused, leaves no record, and so can
    never be 'resumed' into that folder or removed with it."""
    docs = root / "documents"
    docs.mkdir()
    (docs / "thesis.hwp").write_text("x", encoding="utf-8")
    target = new_venv(str(docs), sys.executable)
    for _ in range(2):  # the second run is what a student's "try again" does
        job = make_job(root, target, ["gsw-demo-a==1.0"], index)
        assert not run_steps(job)
        assert job.failure.step_id == "prepare" and job.failure.kind == "preflight"
        assert StateStore(root / "state").load(str(docs)) is None
    assert sorted(p.name for p in docs.iterdir()) == ["thesis.hwp"]


def test_switching_to_a_mirror_after_a_failure_resumes_the_same_file(wheelhouse, root):
    """The partial file is named by its sha256: after a network failure the student sets a
    mirror, and the mirror continues from the byte the first server reached."""
    name = wheelhouse["big"].name
    cache = WheelCache(root / "cache")
    with LoopbackIndex() as first, LoopbackIndex() as mirror:
        first.add_wheel(wheelhouse["big"])
        mirror.add_wheel(wheelhouse["big"])
        first.drop_after(name, 2_000_000, then_down=True)
        with pytest.raises(NetworkError) as info:
            Downloader(cache, retries=1, backoff_s=(0.01,)).fetch(planned(first, wheelhouse["big"]))
        assert info.value.host == "127.0.0.1"
        moved = planned(mirror, wheelhouse["big"])
        assert cache.partial_size(moved[0]) == 2_000_000
        result = Downloader(cache).fetch(moved)
        assert mirror.sent_per_get(name) == [("bytes=2000000-", mirror.files[name].size - 2_000_000)]
        assert result.resumed_bytes == 2_000_000 and result.downloaded_bytes == mirror.files[name].size - 2_000_000
        assert result.paths[name].read_bytes() == mirror.files[name].data


def test_cli_network_failure_then_remove(fake_torch, root):
    venv_dir = root / "실패한 환경"
    dead = f"http://127.0.0.1:{free_port()}/whl"
    args = ["--venv", str(venv_dir), "--python", sys.executable, "--torch", "2.13.0", "--variant", "cpu"]
    out = run_cli("install", *args, "--index-url", dead, "--json", env=in_root(root))
    assert out.returncode == 1, out.stderr
    summary = json.loads(out.stdout)
    assert summary["error"]["step"] == "resolve" and summary["error"]["kind"] == "network"
    assert summary["error"]["host"] == "127.0.0.1"
    assert "--index-url" in out.stderr  # the mirror hint
    assert summary["recovery"] == ["resume", "remove"]
    assert is_incomplete(str(venv_dir))
    removed = run_cli("install", "--venv", str(venv_dir), "--remove", "--json", env=in_root(root))
    assert removed.returncode == 0, removed.stderr
    assert json.loads(removed.stdout)["removed"] == [str(venv_dir)]
    assert not venv_dir.exists()
    again = run_cli("install", "--venv", str(venv_dir), "--remove", env=in_root(root))
    assert again.returncode == 2  # nothing recorded any more


def test_a_bundled_pip_wheel_resolves_from_metadata_in_an_old_environment(index, wheelhouse, root, monkeypatch):
    """A frozen wizard has no pip of its own to drive the target; it ships a pip wheel, and the
    target's interpreter runs pip from it -- a current pip, whatever the environment has."""
    import zipfile

    import pip

    from wizard.core.install.plan import PIP_ENV, parse_pip_report, pip_command, resolve_argv

    pip_dir = Path(pip.__file__).parent
    wheel = root / "pip-current-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:  # the package as a zip: what a pip wheel holds
        for path in pip_dir.rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts:
                zf.write(path, Path("pip") / path.relative_to(pip_dir))
    monkeypatch.setenv("GSW_PIP_WHEEL", str(wheel))
    env_dir = root / "old env"
    venv.create(env_dir, with_pip=False)  # no pip at all in the environment
    py = str(env_python(env_dir))
    cmd = pip_command(py, mode="bundled", python_version="3.11")
    assert cmd == [py, os.path.join(str(wheel), "pip")]
    report = root / "report.json"
    argv = resolve_argv(cmd, ["gsw-demo-a==1.0"], index.simple_url, str(report))
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, env={**os.environ, **PIP_ENV})
    assert done.returncode == 0, done.stderr
    files, _ = parse_pip_report(report.read_text(encoding="utf-8"))
    assert sorted(f.name for f in files) == ["gsw-demo-a", "gsw-demo-b"]
    assert index.total_file_bytes_served() == 0  # metadata only: no wheel downloaded to plan


def test_cli_resume_repeats_the_versions_and_the_mirror_not_a_new_recommendation(fake_torch, root):
    """Issue 16.1: the command that resumes names only the folder; the run goes on with the very
    pins, mirror and installer it started with (not the newest torch, not the default index)."""
    best, wheels = fake_torch
    with LoopbackIndex() as idx:
        idx.add_wheels(wheels)
        torchvision = next(n for n in idx.files if n.startswith("torchvision"))
        idx.fail(torchvision, 503)  # the mirror breaks during the download: an unfinished install
        venv_dir = root / "환경" / "torch cpu"
        first = run_cli("install", "--venv", str(venv_dir), "--python", sys.executable, "--torch", best.torch,
                        "--variant", "cpu", "--index-url", idx.base + "/whl", "--json", env=in_root(root))
        assert first.returncode != 0
        state = json.loads(first.stdout)
        assert state["error"]["step"] == "download" and state["index_url"] == idx.base + "/whl/cpu"
        idx.fail(torchvision, None)
        idx.reset_counters()
        again = run_cli("install", "--venv", str(venv_dir), "--json", env=in_root(root))  # nothing but the folder
        assert again.returncode == 0, again.stderr
        s = json.loads(again.stdout)
        assert s["ok"] and s["index_url"] == idx.base + "/whl/cpu" and s["installer"] == state["installer"]
        assert s["requirements"] == state["requirements"] and "resolve" not in s["steps_run"]
        assert {i["name"]: i["version"] for i in s["installed"]}["torch"] == f"{best.torch}+cpu"
        assert {e["file"] for e in idx.log if e["method"] == "GET" and e["file"]} == {torchvision}
