"""One Xvfb per test module, for screenshots and smoke tests with Qt's real xcb plugin."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def xvfb_display():
    if not shutil.which("Xvfb"):
        pytest.skip("Xvfb is not installed (Debian package xvfb)")
    for number in range(91, 160):
        if not Path(f"/tmp/.X{number}-lock").exists() and not Path(f"/tmp/.X11-unix/X{number}").exists():
            break
    proc = subprocess.Popen(["Xvfb", f":{number}", "-screen", "0", "1280x900x24", "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while not Path(f"/tmp/.X11-unix/X{number}").exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.skip("Xvfb did not start")
        time.sleep(0.05)
    yield f":{number}"
    proc.terminate()
    proc.wait(5)
