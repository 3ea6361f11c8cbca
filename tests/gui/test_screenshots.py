"""Screenshots under Xvfb with the real xcb platform plugin (not offscreen).

The PNGs land in artifacts/screenshots/ (ignored by git) so a person can open them.
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




def _run(display: str, *args: str) -> list[Path]:
    env = {**os.environ, "DISPLAY": display, "QT_QPA_PLATFORM": "xcb"}
    out = subprocess.run([sys.executable, "-m", "tests.gui.screenshot", str(OUT), *args], cwd=REPO, env=env,
                         capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr
    return [Path(line) for line in out.stdout.split() if line.endswith(".png")]


def _looks_like_a_window(path: Path) -> None:
    from PySide6.QtGui import QImage

    image = QImage(str(path))
    assert image.width() >= 900 and image.height() >= 650, (image.width(), image.height())
    colours = {image.pixel(x, y) for x in range(0, image.width(), 17) for y in range(0, image.height(), 17)}
    assert len(colours) > 20, f"{path.name} is nearly blank ({len(colours)} colours)"


@pytest.mark.parametrize("scenario,lang", [("windows-gpu", "ko"), ("no-gpu", "en"), ("mismatch", "ko")])
def test_pages_screenshot(xvfb_display, scenario, lang):
    paths = _run(xvfb_display, "--scenario", scenario, "--lang", lang, "--plot-seconds", "3")
    assert [p.name for p in paths] == [f"{scenario}-{lang}-{n}.png" for n in ("1-system", "2-gpu", "3-recommend", "3-recommend-more",
                                                                       "4-environment", "8-vram")]
    for path in paths:
        _looks_like_a_window(path)


def test_smoke_test_under_real_xcb(xvfb_display):
    env = {**os.environ, "DISPLAY": xvfb_display, "QT_QPA_PLATFORM": "xcb"}
    out = subprocess.run([sys.executable, "-m", "wizard", "--smoke-test"], cwd=REPO, env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "first page painted after" in out.stdout


def test_verify_and_benchmark_screenshots(xvfb_display, torch_python):
    env = {**os.environ, "DISPLAY": xvfb_display, "QT_QPA_PLATFORM": "xcb"}
    out = subprocess.run([sys.executable, "-m", "tests.gui.screenshot_probe", str(OUT), str(torch_python)],
                         cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    paths = [Path(line) for line in out.stdout.split() if line.endswith(".png")]
    assert [p.name for p in paths] == ["probe-ko-6-verify.png", "probe-ko-7-benchmark.png"]
    for path in paths:
        _looks_like_a_window(path)
