"""One Xvfb per test module, for screenshots and smoke tests with Qt's real xcb plugin."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import time
from pathlib import Path
from typing import Iterator

import pytest


@contextlib.contextmanager
def start_xvfb(screen: str = "1280x900x24") -> Iterator[str]:
    """A private X server with one screen of ``screen`` (WxHxDEPTH); yields its display name.

    Skips the test when Xvfb is missing or does not start."""
    if not shutil.which("Xvfb"):
        pytest.skip("Xvfb is not installed (Debian package xvfb)")
    for number in range(91, 160):
        if not Path(f"/tmp/.X{number}-lock").exists() and not Path(f"/tmp/.X11-unix/X{number}").exists():
            break
    proc = subprocess.Popen(["Xvfb", f":{number}", "-screen", "0", screen, "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while not Path(f"/tmp/.X11-unix/X{number}").exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.skip("Xvfb did not start")
        time.sleep(0.05)
    try:
        yield f":{number}"
    finally:
        proc.terminate()
        proc.wait(5)


@pytest.fixture(scope="module")
def xvfb_display():
    with start_xvfb() as name:
        yield name
