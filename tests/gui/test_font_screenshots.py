"""The first page in Korean under Xvfb (real xcb plugin) on a machine whose fontconfig has no
font at all: with the shipped font every Korean string draws; without it (resources copied
without fonts/) the same check sees empty boxes, so the check can fail.

The PNGs land in artifacts/screenshots/ (ignored by git) so a person can open them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fontconfig_env import empty_fontconfig

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "artifacts" / "screenshots"

pytestmark = pytest.mark.slow


def first_page(display: str, tmp_path: Path, name: str, extra_env: dict[str, str] | None = None,
               stderr: list[str] | None = None) -> dict:
    env = {**os.environ, **empty_fontconfig(tmp_path), "DISPLAY": display, "QT_QPA_PLATFORM": "xcb",
           "GSW_DATA_DIR": str(tmp_path / "data"), "PYTHONUTF8": "1", **(extra_env or {})}
    out = subprocess.run([sys.executable, "-m", "tests.gui.screenshot_fonts", str(OUT), "--lang", "ko", "--name", name],
                         cwd=REPO, env=env, capture_output=True, text=True, encoding="utf-8", timeout=180)
    assert out.returncode == 0, out.stderr
    if stderr is not None:
        stderr.append(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_korean_draws_with_only_the_shipped_font(xvfb_display, tmp_path):
    from PySide6.QtGui import QImage

    stderr: list[str] = []
    result = first_page(xvfb_display, tmp_path, "no-system-fonts", stderr=stderr)
    assert "No font here draws Hangul" not in stderr[0]
    assert result["system_hangul"] == [] and result["fallback_used"] is True
    assert result["text"].startswith("언어")
    assert result["notdef"] == 0 and result["swapped_same"] is False, result
    image = QImage(result["png"])
    assert image.width() >= 900 and image.height() >= 650, (image.width(), image.height())


def test_the_check_sees_empty_boxes_without_the_shipped_font(xvfb_display, tmp_path):
    resources = tmp_path / "resources"
    shutil.copytree(REPO / "wizard" / "resources", resources, ignore=shutil.ignore_patterns("fonts"))
    stderr: list[str] = []
    result = first_page(xvfb_display, tmp_path, "no-fonts-at-all", {"GSW_RESOURCES": str(resources)}, stderr)
    assert result["shipped"] == [] and result["fallback_used"] is False
    assert result["swapped_same"] is True, result  # "언어" and "어언" are the same two boxes
    # and start-up said so, with the fix, in Korean and in English
    assert "fonts-noto-cjk" in stderr[0] and "한글을 그릴 수 있는 글꼴이 없고" in stderr[0]
    assert "No font here draws Hangul" in stderr[0]
