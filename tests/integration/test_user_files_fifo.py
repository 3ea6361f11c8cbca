"""A named pipe (FIFO) or a device handed to a reader of a student's file (issue 24, finding 9; red
team 10b): ``open()`` on a pipe waits for a writer that never comes, and the command hung past
Ctrl+C for 36 minutes. Every such reader now refuses anything but a regular file at once, in one
line, without opening it. Real processes, real pipes."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from wizard.core.base.user_files import NotARegularFile, open_user_file
from wizard.core.base.user_input import read_user_text

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture()
def fifo(tmp_path) -> Path:
    path = tmp_path / "pasted.txt"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("command", [("doctor", "--explain"), ("doctor", "--nvidia-smi-file"),
                                     ("report", "--add-remote"), ("recommend", "--from-doctor")])
def test_a_pipe_is_refused_at_once_in_one_line(tmp_path, fifo, command):
    env = {**os.environ, "GSW_LANG": "en", "GSW_DATA_DIR": str(tmp_path / "data")}
    extra = ["-o", str(tmp_path / "r.md")] if command[0] == "report" else []
    began = time.monotonic()
    out = subprocess.run([sys.executable, "-m", "wizard", *command, str(fifo), *extra], cwd=REPO, env=env,
                         capture_output=True, text=True, timeout=60)
    assert time.monotonic() - began < 55
    assert out.returncode != 0, (out.stdout, out.stderr)
    assert "Traceback" not in out.stderr and "regular file" in out.stderr, out.stderr


def test_the_opener_never_waits_on_a_pipe_and_names_what_it_is(fifo):
    began = time.monotonic()
    with pytest.raises(NotARegularFile) as info:
        open_user_file(fifo)
    assert time.monotonic() - began < 5
    assert "named pipe" in info.value.text("en") and info.value.text("ko")
    with pytest.raises(OSError):
        read_user_text(fifo)
    with pytest.raises(NotARegularFile):
        open_user_file(fifo.parent)  # a folder
    if os.path.exists("/dev/zero"):
        with pytest.raises(NotARegularFile):
            read_user_text("/dev/zero")


def test_a_regular_file_still_reads(tmp_path):
    path = tmp_path / "ok.txt"
    path.write_bytes(b"\xef\xbb\xbfhello")
    assert read_user_text(path).text == "hello"
    with open_user_file(path) as fh:
        assert fh.read() == b"\xef\xbb\xbfhello"
