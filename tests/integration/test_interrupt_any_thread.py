"""Ctrl+C works whichever thread the kernel hands it to (the "1 run in 15" of issue 15 item 9).

The kernel may deliver a process's SIGINT to any of its threads. Python's C handler then only sets a
flag, and the main thread raises KeyboardInterrupt the next time it runs bytecode; a main thread
blocked in ``thread.join()`` (or ``future.result()``) without a timeout never does until the work is
done. ``doctor`` waited there for the hung nvidia-smi, hence the 15 s. These tests aim the signal at a worker thread
on purpose (``pthread_kill`` inside, ``tgkill`` from outside), so the rare case happens every time.
"""

from __future__ import annotations

import ctypes
import os
import platform
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.integration.hung_smi import alive, smi_pids

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="thread-directed signals (Linux)")

WAIT = """
import os, signal, sys, threading, time
from wizard.core.base.interrupt import join
started = threading.Event()
done = threading.Event()
worker = {}
def work():
    worker["id"] = threading.get_ident()
    started.set()
    time.sleep(float(sys.argv[2]))
    done.set()
thread = threading.Thread(target=work, daemon=True)
thread.start()
started.wait()
threading.Timer(0.3, signal.pthread_kill, (worker["id"], signal.SIGINT)).start()  # to the worker, not main
try:
    join(thread) if sys.argv[1] == "join" else thread.join()
    print("finished", flush=True)
except KeyboardInterrupt:  # raised at once, or only once the work was done and the wait returned
    print("interrupted after the work" if done.is_set() else "interrupted during the work", flush=True)
os._exit(0)
"""


def _wait(how: str, work_s: float) -> str:
    out = subprocess.run([sys.executable, "-c", WAIT, how, str(work_s)], cwd=REPO, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_the_cause_a_plain_result_does_not_see_a_signal_given_to_a_worker():
    assert _wait("plain", 2.0) == "interrupted after the work"  # the Ctrl+C waited for the work to end


def test_join_in_slices_sees_it_at_once():
    assert _wait("join", 60.0) == "interrupted during the work"


_TGKILL = {"x86_64": 234, "aarch64": 131}.get(platform.machine())


def _tgkill(pid: int, tid: int, sig: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.syscall(_TGKILL, pid, tid, sig) != 0:
        raise OSError(ctypes.get_errno(), "tgkill")


@pytest.mark.skipif(_TGKILL is None, reason="tgkill syscall number unknown for this CPU")
def test_doctor_stops_when_the_ctrl_c_lands_on_a_worker_thread(hung_smi):
    env, pid_file = hung_smi
    proc = subprocess.Popen([sys.executable, "-m", "wizard", "doctor", "--lang", "en"], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8")
    try:
        deadline = time.monotonic() + 120
        while not smi_pids(pid_file) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert smi_pids(pid_file), "the fake nvidia-smi was never started"
        workers = [int(t) for t in os.listdir(f"/proc/{proc.pid}/task") if int(t) != proc.pid]
        assert workers, "doctor has no worker threads to aim at"
        _tgkill(proc.pid, workers[0], signal.SIGINT)
        # The hung nvidia-smi's own timeout is 15 s: if the signal were lost, doctor would still be
        # waiting for it. Polling (not a timed assertion): give it 10 s, then say where it stands.
        try:
            _out, err = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            _out, err = proc.communicate()
            pytest.fail(f"doctor ignored a Ctrl+C delivered to a worker thread; stderr: {err[-2000:]}")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "stopped (Ctrl+C)" in err
    assert not [pid for pid in smi_pids(pid_file) if alive(pid)]
