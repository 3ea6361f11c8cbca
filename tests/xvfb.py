"""One Xvfb per test module, for screenshots and smoke tests with Qt's real xcb plugin."""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import subprocess
import time
from typing import Iterator

import pytest


def _read_display_number(fd: int, proc: subprocess.Popen, deadline: float) -> str | None:
    """The display number Xvfb writes to ``fd`` once it accepts connections ("91\\n"), or None
    when it exits or stays silent until ``deadline``."""
    data = b""
    try:
        while not data.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0 or (proc.poll() is not None and not data):
                return None
            ready, _, _ = select.select([fd], [], [], min(left, 0.5))
            if ready:
                chunk = os.read(fd, 16)
                if not chunk:
                    return None
                data += chunk
    finally:
        os.close(fd)
    return data.strip().decode("ascii") or None


@contextlib.contextmanager
def start_xvfb(screen: str = "1280x900x24") -> Iterator[str]:
    """A private X server with one screen of ``screen`` (WxHxDEPTH); yields its display name.

    Skips the test when Xvfb is missing or does not start."""
    if not shutil.which("Xvfb"):
        pytest.skip("Xvfb is not installed (Debian package xvfb)")
    # Xvfb picks a free display itself and writes its number to our pipe (-displayfd): test
    # processes running side by side (pytest-xdist workers) never race for the same number.
    read_end, write_end = os.pipe()
    proc = subprocess.Popen(["Xvfb", "-displayfd", str(write_end), "-screen", "0", screen, "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, pass_fds=(write_end,))
    os.close(write_end)
    number = _read_display_number(read_end, proc, deadline=time.monotonic() + 20)
    if number is None:
        proc.kill()
        proc.wait(5)
        pytest.skip("Xvfb did not start")
    try:
        yield f":{number}"
    finally:
        proc.terminate()
        proc.wait(5)


@pytest.fixture(scope="module")
def xvfb_display():
    with start_xvfb() as name:
        yield name
