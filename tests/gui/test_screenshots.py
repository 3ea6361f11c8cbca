"""Screenshots under Xvfb with the real xcb platform plugin (not offscreen).

The PNGs land in artifacts/screenshots/ (ignored by git) so a person can open them.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.xvfb import start_xvfb

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "artifacts" / "screenshots"
PAGE_RUNS = [("windows-gpu", "ko"), ("no-gpu", "en"), ("mismatch", "ko")]

pytestmark = pytest.mark.slow


def _looks_like_a_window(path: Path) -> None:
    from PySide6.QtGui import QImage

    image = QImage(str(path))
    assert image.width() >= 900 and image.height() >= 650, (image.width(), image.height())
    colours = {image.pixel(x, y) for x in range(0, image.width(), 17) for y in range(0, image.height(), 17)}
    assert len(colours) > 20, f"{path.name} is nearly blank ({len(colours)} colours)"


@pytest.fixture(scope="module")
def page_runs(tmp_path_factory) -> dict[tuple[str, str], tuple[int | None, str, str]]:
    """Each recorded machine's page screenshots, the three runs started at once: (exit status,
    stdout, stderr) by (scenario, lang). A run spends most of its time on the page timers (the
    GPU page's live plot draws for 3 s), so side by side they take little more than one. Each
    has its own X server: grabWindow reads the screen, where the windows must not overlap."""
    logs = tmp_path_factory.mktemp("screenshot runs")
    with contextlib.ExitStack() as stack:
        running = {}
        for scenario, lang in PAGE_RUNS:
            env = {**os.environ, "DISPLAY": stack.enter_context(start_xvfb()), "QT_QPA_PLATFORM": "xcb"}
            out = stack.enter_context((logs / f"{scenario}-{lang}.out").open("w+", encoding="utf-8"))
            err = stack.enter_context((logs / f"{scenario}-{lang}.err").open("w+", encoding="utf-8"))
            proc = subprocess.Popen([sys.executable, "-m", "tests.gui.screenshot", str(OUT), "--scenario", scenario,
                                     "--lang", lang, "--plot-seconds", "3"], cwd=REPO, env=env, stdout=out,
                                    stderr=err, text=True)
            running[(scenario, lang)] = (proc, out, err)
        done = {}
        for key, (proc, out, err) in running.items():
            try:
                proc.wait(timeout=180)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            out.seek(0)
            err.seek(0)
            done[key] = (proc.returncode, out.read(), err.read())
    return done


@pytest.mark.parametrize("scenario,lang", PAGE_RUNS)
def test_pages_screenshot(page_runs, scenario, lang):
    returncode, stdout, stderr = page_runs[(scenario, lang)]
    assert returncode == 0, stderr
    paths = [Path(line) for line in stdout.split() if line.endswith(".png")]
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
