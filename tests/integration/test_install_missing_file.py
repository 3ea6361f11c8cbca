"""An index that lists a file it does not serve (a mirror syncing, or incomplete): the server was
reached and answered 404, so the failure is "the index does not have this file", never "could
not connect"; and the files the stopped run never received are not said to be "kept for Resume".

Real servers on 127.0.0.1 (the loopback index, a socket that never answers), a real venv.
"""

from __future__ import annotations

import socket
import sys
import threading
from pathlib import Path

import pytest

from tests.integration.hostile_server import HostileServer
from tests.integration.index_server import LoopbackIndex, make_wheel
from tests.no_proxy import no_proxy_for_loopback  # noqa: F401  (autouse: loopback without a proxy)
from wizard.core.base.host import RealHost
from wizard.core.install.cache import WheelCache
from wizard.core.install.download import Downloader
from wizard.core.install.download_errors import HttpStatusError
from wizard.core.install.download_progress import DownloadProgress
from wizard.core.install.environments import new_venv
from wizard.core.install.failure_kind import FailureKind
from wizard.core.install.job import InstallOptions
from wizard.core.install.plan import PlannedFile
from wizard.core.install.runner import InstallJob, run_steps

CONNECTION_WORDS = ("could not reach", "connection or proxy", "연결하지 못", "프록시")


@pytest.fixture()
def silent():
    """A server that takes the connection and never answers: a file that never starts."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}/files/"
    sock.close()


@pytest.mark.parametrize("status", [404, 403, 410])
def test_a_file_the_index_lists_but_does_not_serve_is_missing_not_a_connection_failure(tmp_path, status):
    with LoopbackIndex() as idx:
        wheel = make_wheel(tmp_path / "w", "gsw-gone", "1.0")
        served = idx.add_wheels([wheel])[0]
        idx.fail(served.filename, status)
        f = PlannedFile("gsw-gone", "1.0", served.filename, idx.file_url(served.filename), served.sha256, served.size)
        with pytest.raises(HttpStatusError) as info:
            Downloader(WheelCache(tmp_path / "cache"), backoff_s=(0.05,)).fetch([f])
    err = info.value
    assert err.kind == "missing-file" and FailureKind.of(err.kind) == FailureKind.MISSING_FILE
    for lang in ("en", "ko"):
        text = err.message.text(lang)
        assert served.filename in text and str(status) in text and "127.0.0.1" in text
        assert not any(w in text.lower() for w in CONNECTION_WORDS), text
    assert "mirror" in err.message.text("en") and "미러" in err.message.text("ko")


def test_another_status_keeps_its_own_kind(tmp_path):
    with LoopbackIndex() as idx:
        served = idx.add_wheels([make_wheel(tmp_path / "w", "gsw-teapot", "1.0")])[0]
        idx.fail(served.filename, 418)
        f = PlannedFile("gsw-teapot", "1.0", served.filename, idx.file_url(served.filename), served.sha256,
                        served.size)
        with pytest.raises(HttpStatusError) as info:
            Downloader(WheelCache(tmp_path / "cache"), backoff_s=(0.05,)).fetch([f])
    assert info.value.kind == "http" and info.value.status == 418


def test_a_file_that_never_started_is_waiting_not_kept_for_resume(tmp_path, silent):
    """The 404 stops the run while the other file's server has sent nothing: that file is
    "waiting" (nothing of it is on disk), not "cancelled" (which the window words "kept for Resume")."""
    snaps: list[DownloadProgress] = []
    with LoopbackIndex() as idx:
        served = idx.add_wheels([make_wheel(tmp_path / "w", "gsw-gone", "1.0")])[0]
        idx.fail(served.filename, 404)
        gone = PlannedFile("gsw-gone", "1.0", served.filename, idx.file_url(served.filename), served.sha256,
                           served.size)
        name = "gsw_never-1.0-py3-none-any.whl"
        never = PlannedFile("gsw-never", "1.0", name, silent + name, "0" * 64, 1000)
        with pytest.raises(HttpStatusError):
            Downloader(WheelCache(tmp_path / "cache"), parallel=2, progress=snaps.append, timeout=(2.0, 0.5),
                       retries=3, backoff_s=(0.05,)).fetch([gone, never])
    states = {f.filename: (f.state, f.done) for f in snaps[-1].files}
    assert states[gone.filename][0] == "failed"
    assert states[never.filename] == ("waiting", 0), states


def test_a_file_with_bytes_on_disk_is_kept_for_resume(tmp_path):
    gate = threading.Event()
    data = bytes(range(256)) * 2048  # 512 KiB: the gate holds it after the first 64 KiB
    cancel = threading.Event()
    snaps: list[DownloadProgress] = []

    def seen(p: DownloadProgress) -> None:
        snaps.append(p)
        if any(f.done > 0 for f in p.files):
            cancel.set()

    with HostileServer({"gsw_half-1.0-py3-none-any.whl": data}, gate=gate) as srv:
        name = "gsw_half-1.0-py3-none-any.whl"
        f = PlannedFile("gsw-half", "1.0", name, srv.url(name), srv.sha256(name), len(data))
        with pytest.raises(Exception) as info:
            Downloader(WheelCache(tmp_path / "cache"), progress=seen, cancel=cancel, backoff_s=(0.05,)).fetch([f])
        gate.set()
    assert type(info.value).__name__ == "DownloadCancelled"
    last = snaps[-1].files[0]
    assert last.state == "cancelled" and last.done > 0


@pytest.mark.slow  # builds a venv
def test_an_install_whose_mirror_lost_a_file_says_the_file_is_missing(tmp_path):
    root = tmp_path / "김철수 학생"
    root.mkdir()
    wheels = tmp_path / "w"
    with LoopbackIndex() as idx:
        idx.add_wheels([make_wheel(wheels, "gsw-demo-a", "1.0", requires=["gsw-demo-b>=1"]),
                        make_wheel(wheels, "gsw-demo-b", "1.0", seed=1)])
        gone = next(f.filename for f in idx.files.values() if f.project == "gsw-demo-b")
        idx.fail(gone, 404)
        opts = InstallOptions(["gsw-demo-a==1.0"], index_url=idx.simple_url, cache_dir=str(root / "cache"),
                              state_dir=str(root / "state"), download_backoff_s=(0.05, 0.1, 0.2))
        job = InstallJob(new_venv(str(root / "envs" / "venv"), sys.executable), opts, RealHost())
        assert not run_steps(job)
    failure = job.failure
    assert failure is not None and failure.step_id == "download"
    assert failure.failure_kind == FailureKind.MISSING_FILE and failure.host == "127.0.0.1"
    assert job.state is not None and FailureKind.of(job.state.error_kind) == FailureKind.MISSING_FILE
    ko = failure.message.text("ko")
    assert gone in ko and "404" in ko and "연결하지 못" not in ko
    assert job.summary()["error"]["kind"] == "missing-file"
    assert Path(root / "cache").exists()


@pytest.mark.parametrize("installer", ["uv", "pip"])
def test_a_plan_that_reads_a_missing_wheel_says_the_file_is_missing(tmp_path, installer):
    """An index without metadata files: the resolver reads the wheel itself, and the index
    answers 404 for it. The plan (the Environment page's preview) names the file, not the
    connection, and blocks Install."""
    from wizard.app.install import plan_blocks
    from wizard.core.install.environments import find_uv
    from wizard.core.install.plan import PlanError
    from wizard.core.install.runner import preview_plan

    uv = find_uv()
    if installer == "uv" and not uv:
        pytest.skip("uv is not installed (pip install uv)")
    with LoopbackIndex(with_metadata=False) as idx:
        served = idx.add_wheels([make_wheel(tmp_path / "w", "gsw-gone", "1.0")])[0]
        idx.fail(served.filename, 404)
        options = InstallOptions(["gsw-gone==1.0"], idx.simple_url, installer=installer, uv_exe=uv,
                                 uv_cache_dir=str(tmp_path / "uv-cache"))
        target = new_venv(str(tmp_path / "envs" / "v"), sys.executable)
        with pytest.raises(PlanError) as info:
            preview_plan(target, options, RealHost())
    err = info.value
    assert err.kind == "missing-file" and err.failure_kind == FailureKind.MISSING_FILE, err.output
    assert plan_blocks(err) and err.host == "127.0.0.1"
    assert served.filename in err.message.text("ko") and "연결하지 못" not in err.message.text("ko")
