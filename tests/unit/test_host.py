"""RealHost runs real child processes: argv lists, timeouts that kill, UTF-8 and cp949."""

from __future__ import annotations

import sys
import time

import pytest

from tests.recorded_host import RecordedHost
from wizard.core.base.host import CommandResult, RealHost, decode_output


def test_run_captures_output_and_forces_utf8():
    host = RealHost()
    result = host.run([sys.executable, "-c", "import sys; print('김철수 ✓'); print(sys.flags.utf8_mode)"])
    assert result.ok, result
    assert result.stdout.splitlines() == ["김철수 ✓", "1"]


def test_missing_executable_is_not_found_not_a_crash():
    result = RealHost().run(["definitely-not-a-command-gsw"])
    assert result.not_found and result.returncode is None and not result.ok


def test_timeout_kills_the_child_and_its_children():
    code = ("import subprocess, sys, time;"
            "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']);"
            "print('started', flush=True); time.sleep(60)")
    start = time.monotonic()
    result = RealHost().run([sys.executable, "-c", code], timeout=1.5)
    elapsed = time.monotonic() - start
    assert result.timed_out and result.returncode is None
    assert elapsed < 10, elapsed


def test_argument_with_spaces_and_hangul_is_one_argument(tmp_path):
    folder = tmp_path / "내 폴더 with space"
    folder.mkdir()
    result = RealHost().run([sys.executable, "-c", "import sys, os; print(os.path.isdir(sys.argv[1]))", str(folder)])
    assert result.stdout.strip() == "True"


def test_decode_falls_back_to_cp949(monkeypatch):
    raw = "드라이버".encode("cp949")
    monkeypatch.setattr("locale.getpreferredencoding", lambda _=False: "cp949")
    assert decode_output(raw) == "드라이버"
    assert decode_output("드라이버".encode("utf-8")) == "드라이버"


def test_decode_never_raises_on_garbage(monkeypatch):
    monkeypatch.setattr("locale.getpreferredencoding", lambda _=False: "ascii")
    assert isinstance(decode_output(b"\xff\xfe\x00abc\x80"), str)


def test_disk_free_walks_up_to_an_existing_parent(tmp_path):
    free = RealHost().disk_free(tmp_path / "not" / "yet" / "created")
    assert free is not None and free[0] > 0 and free[1] >= free[0]


def test_recorded_host_matches_exact_base_name_and_prefix():
    host = RecordedHost(os_name="windows", commands={
        "nvidia-smi --version": CommandResult([], 0, "v"),
        "py -0p*": CommandResult([], 0, "list"),
    })
    assert host.run([r"C:\Windows\System32\nvidia-smi.exe", "--version"]).stdout == "v"
    assert host.run(["py", "-0p"]).stdout == "list"
    assert host.run(["conda", "info"]).not_found
    assert host.calls[0][0].endswith("nvidia-smi.exe")


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX root check")
def test_is_admin_matches_euid():
    import os

    assert RealHost().is_admin() == (os.geteuid() == 0)
