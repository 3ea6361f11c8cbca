"""One install at a time, and no install left "running" (issue 15, item 5).

Two installs into the same environment and cache used to run side by side: the second crashed
with FileNotFoundError on the partial file the first had just moved, the first fetched the file
twice, and the state said "running" for ever; an OSError in a step (a full disk writing
``verified.json``) was a raw traceback with the same stuck state. These tests run real installs
in real processes (this file is also their driver: ``python -m tests.integration.test_install_lock``)
against a real server on 127.0.0.1 whose downloads wait at a gate the test opens, so "the first
install is surely downloading" is a condition, never a sleep.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

import pytest

from tests.integration.hostile_server import HostileServer
from tests.integration.index_server import make_wheel
from tests.no_proxy import no_proxy_for_loopback  # noqa: F401  (autouse: loopback without a proxy)

REPO = Path(__file__).resolve().parents[2]
WAIT_S = 120.0  # a safety net for conditions that hold within a second or two
NAME = "gsw-lockdemo"


# --------------------------------------------------------------------------------------------
# The driver: what each process runs
# --------------------------------------------------------------------------------------------
def _planned(spec: dict[str, Any]) -> Any:
    from wizard.core.install.plan import PlannedFile

    return PlannedFile(NAME, "1.0", spec["filename"], spec["url"], spec["sha256"], spec["size"])


def _limit_file_size(limit: int) -> None:
    """From here on a write past ``limit`` bytes fails with EFBIG: a real OSError from a real
    write, as a full disk gives ENOSPC (SIGXFSZ ignored, so the write returns the error)."""
    import resource

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def drive_job(spec: dict[str, Any]) -> None:
    """A whole install (venv, download, offline install, verify) with the plan given, so the
    only network traffic is the gated download. Prints the install summary."""
    from wizard.core.base.host import RealHost
    from wizard.core.install.environments import new_venv
    from wizard.core.install.job import STEP_DOWNLOAD, InstallOptions
    from wizard.core.install.plan import InstallPlan
    from wizard.core.install.runner import InstallJob, run_steps

    root = Path(spec["root"])
    target = new_venv(str(root / "env"), sys.executable)
    opts = InstallOptions([f"{NAME}==1.0"], cache_dir=str(root / "cache"), state_dir=str(root / "state"),
                          download_backoff_s=(0.05,), verify_imports=["gsw_lockdemo"])
    job = InstallJob(target, opts, RealHost())
    job.plan = InstallPlan(target.python_exe, list(opts.requirements), None, [_planned(spec)])
    steps = job.steps()
    if spec.get("fsize_limit"):
        for step in steps:
            if step.id == STEP_DOWNLOAD:
                original = step.func

                def limited(ctx: Any, _f: Callable = original) -> None:
                    _limit_file_size(spec["fsize_limit"])
                    _f(ctx)

                step.func = limited
    run_steps(job, steps)
    print(json.dumps(job.summary()), flush=True)


def drive_fetch(spec: dict[str, Any]) -> None:
    """Only the download into a shared cache. Prints WAITING once when it waits for another
    process fetching the same file, then the result."""
    from wizard.core.install.cache import WheelCache
    from wizard.core.install.download import Downloader

    told = []

    def progress(p: Any) -> None:
        if not told and any(f.waiting_for_other for f in p.files):
            told.append(True)
            print("WAITING", flush=True)

    r = Downloader(WheelCache(spec["cache"]), progress=progress, progress_interval_s=0.02).fetch([_planned(spec)])
    print(json.dumps({"downloaded": r.downloaded_bytes, "from_cache": r.from_cache_bytes,
                      "path": str(r.paths[spec["filename"]])}), flush=True)


# --------------------------------------------------------------------------------------------
# Helpers for the tests
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    return make_wheel(tmp_path_factory.mktemp("wheels"), NAME, "1.0", payload_bytes=600_000, seed=5)


def spec_for(server: HostileServer, wheel: Path, **extra: Any) -> dict[str, Any]:
    return {"filename": wheel.name, "url": server.url(wheel.name), "sha256": server.sha256(wheel.name),
            "size": wheel.stat().st_size, **extra}


class Driver:
    """One driver process; its stdout lines arrive on a queue (read by a thread)."""

    def __init__(self, mode: str, spec: dict[str, Any]) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "tests.integration.test_install_lock", mode,
                                      json.dumps(spec)], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, encoding="utf-8")
        self.lines: queue.Queue[str] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def finish(self) -> tuple[int, list[str], str]:
        rc = self.proc.wait(timeout=WAIT_S * 3)
        self._reader.join(timeout=WAIT_S)
        err = self.proc.stderr.read() if self.proc.stderr else ""
        out = []
        while not self.lines.empty():
            out.append(self.lines.get())
        return rc, out, err

    def result(self) -> dict[str, Any]:
        rc, out, err = self.finish()
        assert rc == 0, err
        return json.loads(out[-1])


def wait_until(condition: Callable[[], bool]) -> None:
    """Wait for a condition that the processes make true; the deadline is only a safety net."""
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, "condition never became true"
        time.sleep(0.02)


# --------------------------------------------------------------------------------------------
# The tests
# --------------------------------------------------------------------------------------------
def test_a_second_install_into_the_same_environment_is_told_one_is_running(tmp_path, wheel):
    from wizard.core.install.recovery import STATUS_RUNNING, StateStore

    gate = threading.Event()
    with HostileServer({wheel.name: wheel.read_bytes()}, gate=gate) as server:
        spec = spec_for(server, wheel, root=str(tmp_path))
        first = Driver("job", spec)
        wait_until(lambda: server.get_started.is_set() or first.proc.poll() is not None)
        assert first.proc.poll() is None, first.finish()
        second = Driver("job", spec)
        # the second either refuses at once, or (without the lock) reaches the download too
        wait_until(lambda: second.proc.poll() is not None or server.gets[wheel.name] >= 2)
        assert server.gets[wheel.name] == 1, "the second install ran alongside the first"
        doc = second.result()
        assert not doc["ok"] and doc["error"]["kind"] == "busy"
        text = doc["error"]["message"]
        assert "already running" in text and str(tmp_path / "env") in text and str(first.proc.pid) in text
        # the first one's state is its own: untouched, and still read as running while it runs
        state = StateStore(tmp_path / "state").load(str(tmp_path / "env"))
        assert state is not None and state.status == STATUS_RUNNING
        gate.set()
        done = first.result()
    assert done["ok"] and done["downloaded_bytes"] == wheel.stat().st_size
    assert server.gets[wheel.name] == 1 and server.served[wheel.name] == wheel.stat().st_size


def test_two_installs_sharing_the_cache_fetch_each_file_once(tmp_path, wheel):
    gate = threading.Event()
    with HostileServer({wheel.name: wheel.read_bytes()}, gate=gate) as server:
        spec = spec_for(server, wheel, cache=str(tmp_path / "cache"))
        first = Driver("fetch", spec)
        wait_until(server.get_started.is_set)
        second = Driver("fetch", spec)
        seen: list[str] = []

        def second_waits_or_fetches() -> bool:
            while not second.lines.empty():
                seen.append(second.lines.get())
            return "WAITING" in seen or server.gets[wheel.name] >= 2 or second.proc.poll() is not None

        wait_until(second_waits_or_fetches)
        assert seen == ["WAITING"] and server.gets[wheel.name] == 1
        gate.set()
        a = first.result()
        b = second.result()
    size = wheel.stat().st_size
    assert a["downloaded"] == size and b["downloaded"] == 0 and b["from_cache"] == size
    assert a["path"] == b["path"] and Path(a["path"]).read_bytes() == wheel.read_bytes()
    assert server.gets[wheel.name] == 1 and server.served[wheel.name] == size


def test_a_killed_install_is_read_as_interrupted_and_resumes(tmp_path, wheel):
    from wizard.core.install.recovery import OPTION_RESUME, STATUS_FAILED, StateStore

    gate = threading.Event()
    with HostileServer({wheel.name: wheel.read_bytes()}, gate=gate) as server:
        spec = spec_for(server, wheel, root=str(tmp_path))
        first = Driver("job", spec)
        wait_until(lambda: server.get_started.is_set() or first.proc.poll() is not None)
        first.proc.kill()  # SIGKILL: no handler runs, the state file still says "running"
        first.finish()
        raw = json.loads(next((tmp_path / "state").glob("*.json")).read_text(encoding="utf-8"))
        assert raw["status"] == "running"
        state = StateStore(tmp_path / "state").load(str(tmp_path / "env"))
        assert state.status == STATUS_FAILED and state.error_kind == "interrupted"
        assert OPTION_RESUME in state.options()
        gate.set()
        again = Driver("job", spec).result()
    assert again["ok"]
    assert wheel.stat().st_size <= server.served[wheel.name] <= wheel.stat().st_size + 64 * 1024


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX")
def test_an_oserror_in_a_step_is_a_recorded_resumable_failure(tmp_path, wheel):
    from wizard.core.install.recovery import OPTION_RESUME, STATUS_FAILED, StateStore

    with HostileServer({wheel.name: wheel.read_bytes()}) as server:
        spec = spec_for(server, wheel, root=str(tmp_path), fsize_limit=200_000)
        doc = Driver("job", spec).result()  # rc 0 and a summary: no traceback
        assert not doc["ok"] and doc["error"]["step"] == "download" and doc["error"]["kind"] == "os"
        assert "File too large" in doc["error"]["message"]
        state = StateStore(tmp_path / "state").load(str(tmp_path / "env"))
        assert state.status == STATUS_FAILED and state.failed_step == "download" and state.error_kind == "os"
        assert OPTION_RESUME in state.options()
        spec.pop("fsize_limit")
        assert Driver("job", spec).result()["ok"]  # Resume, the limit gone: it finishes


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_disk_is_named_with_what_to_do():
    from wizard.core.install.runner import os_failure

    with pytest.raises(OSError) as info:
        with open("/dev/full", "wb", buffering=0) as fh:
            fh.write(b"x")  # the kernel's own ENOSPC
    err = os_failure("download", info.value)
    assert err.kind == "disk"
    assert "disk is full" in err.message.text("en") and "디스크" in err.message.text("ko")


def test_an_unwritable_cache_index_costs_a_rehash_not_the_install(tmp_path, wheel):
    from wizard.core.install.cache import WheelCache
    from wizard.core.install.download import Downloader

    cache = WheelCache(tmp_path / "cache")
    cache.ensure()
    (cache.root / "verified.json").mkdir()  # every write of the index now fails with an OSError
    with HostileServer({wheel.name: wheel.read_bytes()}) as server:
        spec = spec_for(server, wheel)
        result = Downloader(cache).fetch([_planned(spec)])
        assert result.paths[wheel.name].read_bytes() == wheel.read_bytes()
        again = Downloader(cache).fetch([_planned(spec)])  # re-hashed, still from the cache
    assert again.downloaded_bytes == 0 and again.from_cache_bytes == wheel.stat().st_size


if __name__ == "__main__":
    {"job": drive_job, "fetch": drive_fetch}[sys.argv[1]](json.loads(sys.argv[2]))
