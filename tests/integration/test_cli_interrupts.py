"""Ctrl+C and closed pipes at the command line: one line or none, never a traceback, nothing left running.

Reproduces issue 15 item 9 with real processes: a fake ``nvidia-smi`` that hangs (it records its
pid, then sleeps far longer than any test), the real ``python -m wizard`` started on a PATH that
finds it, and a real SIGINT — what the terminal sends for Ctrl+C. Before the fix ``doctor``
printed a KeyboardInterrupt traceback and waited for nvidia-smi's 15 s timeout, and ``vram`` left
the hung nvidia-smi running after it had exited. The pipe tests hand the command a pipe whose
reader is already gone, which is ``| head`` having read what it wanted.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.integration.hung_smi import alive, smi_pids, wizard_env

REPO = Path(__file__).resolve().parents[2]
STARTUP_DEADLINE_S = 120.0  # how long the wizard may take to get as far as asking nvidia-smi
# A hang guard, not a measurement (timings do not belong in tests): with the fix the wizard
# exits well under a second or two after Ctrl+C. (About one run in fifteen used to wait for
# nvidia-smi's own 15 s timeout: the kernel had handed SIGINT to a worker thread and the main thread
# sat in future.result(); test_interrupt_any_thread.py aims the signal at a worker on purpose.) What
# the test holds to is what the student sees: status 130, one line, no traceback, no nvidia-smi left.
EXIT_BOUND_S = 60.0

pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX signals")


def _interrupt_while_smi_hangs(command: list[str], env: dict[str, str], pid_file: Path) -> tuple[int, str, list[int]]:
    """Start the wizard, wait until nvidia-smi runs, press Ctrl+C; (exit status, stderr, smi pids)."""
    proc = subprocess.Popen([sys.executable, "-m", "wizard", *command, "--lang", "en"], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8")
    try:
        deadline = time.monotonic() + STARTUP_DEADLINE_S
        while not smi_pids(pid_file) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert smi_pids(pid_file), "the fake nvidia-smi was never started"
        proc.send_signal(signal.SIGINT)
        try:
            _out, err = proc.communicate(timeout=EXIT_BOUND_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            _out, err = proc.communicate()
            pytest.fail(f"still running {EXIT_BOUND_S:.0f} s after Ctrl+C; stderr: {err[-2000:]}")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return proc.returncode, err, smi_pids(pid_file)


@pytest.mark.parametrize("command", [["doctor"], ["doctor", "--json"], ["vram"]])
def test_ctrl_c_while_nvidia_smi_hangs(command, hung_smi):
    env, pid_file = hung_smi
    status, err, pids = _interrupt_while_smi_hangs(command, env, pid_file)
    assert status == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert "stopped (Ctrl+C)" in err
    left = [pid for pid in pids if alive(pid)]
    assert not left, f"nvidia-smi left running after the wizard exited: {left}"


@pytest.mark.parametrize("command", [["vram", "--list-models"], ["recommend", "--json"]])
def test_a_closed_pipe_is_a_quiet_end(command, tmp_path):
    read_end, write_end = os.pipe()
    os.close(read_end)  # `| head` has read what it wanted and gone
    try:
        out = subprocess.run([sys.executable, "-m", "wizard", *command, "--lang", "en"], cwd=REPO,
                             env=wizard_env(tmp_path), stdout=write_end, stderr=subprocess.PIPE, text=True,
                             encoding="utf-8", timeout=180)
    finally:
        os.close(write_end)
    assert "Traceback" not in out.stderr and "BrokenPipeError" not in out.stderr, out.stderr
    assert out.returncode == 141, out.stderr
