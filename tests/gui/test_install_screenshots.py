"""Screenshots of the Environment and Install pages under Xvfb (the real xcb plugin).

A real install from a loopback index runs in tests/gui/screenshot_install.py; the PNGs land in
artifacts/screenshots/ (ignored by git) so a person can open them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "artifacts" / "screenshots"

pytestmark = pytest.mark.slow




def _looks_like_a_window(path: Path) -> None:
    from PySide6.QtGui import QImage

    image = QImage(str(path))
    assert image.width() >= 900 and image.height() >= 650, (image.width(), image.height())
    colours = {image.pixel(x, y) for x in range(0, image.width(), 17) for y in range(0, image.height(), 17)}
    assert len(colours) > 20, f"{path.name} is nearly blank ({len(colours)} colours)"


@pytest.mark.parametrize("lang,corrupt", [("ko", False), ("en", True)])
def test_install_pages_screenshot(xvfb_display, lang, corrupt):
    env = {**os.environ, "DISPLAY": xvfb_display, "QT_QPA_PLATFORM": "xcb"}
    args = [sys.executable, "-m", "tests.gui.screenshot_install", str(OUT), "--lang", lang]
    out = subprocess.run(args + (["--corrupt"] if corrupt else []), cwd=REPO, env=env, capture_output=True,
                         text=True, timeout=240)
    assert out.returncode == 0, out.stderr
    paths = [Path(line) for line in out.stdout.split() if line.endswith(".png")]
    end = "5c-install-failed" if corrupt else "5c-install-done"
    assert [p.name for p in paths] == [f"{lang}-{n}.png" for n in ("5a-environment", "5b-install-download", end)]
    for path in paths:
        _looks_like_a_window(path)
