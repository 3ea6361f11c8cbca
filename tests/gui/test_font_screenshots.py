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


def first_page(display: str, tmp_path: Path, name: str, extra_env: dict[str, str] | None = None) -> dict:
    env = {**os.environ, **empty_fontconfig(tmp_path), "DISPLAY": display, "QT_QPA_PLATFORM": "xcb",
           "GSW_DATA_DIR": str(tmp_path / "data"), **(extra_env or {})}
    out = subprocess.run([sys.executable, "-m", "tests.gui.screenshot_fonts", str(OUT), "--lang", "ko", "--name", name],
                         cwd=REPO, env=env, capture_output=True, text=True, encoding="utf-8", timeout=180)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_korean_draws_with_only_the_shipped_font(xvfb_display, tmp_path):
    from PySide6.QtGui import QImage

    result = first_page(xvfb_display, tmp_path, "no-system-fonts")
    assert result["system_hangul"] == [] and result["fallback_used"] is True
    assert result["text"].startswith("언어")
    assert result["notdef"] == 0 and result["swapped_same"] is False, result
    image = QImage(result["png"])
    assert image.width() >= 900 and image.height() >= 650, (image.width(), image.height())


def test_the_check_sees_empty_boxes_without_the_shipped_font(xvfb_display, tmp_path):
    resources = tmp_path / "resources"
    shutil.copytree(REPO / "wizard" / "resources", resources, ignore=shutil.ignore_patterns("fonts"))
    result = first_page(xvfb_display, tmp_path, "no-fonts-at-all", {"GSW_RESOURCES": str(resources)})
    assert result["shipped"] == [] and result["fallback_used"] is False
    assert result["swapped_same"] is True, result  # "언어" and "어언" are the same two boxes
