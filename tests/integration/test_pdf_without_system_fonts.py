"""The PDF report on a machine whose fontconfig has no font at all (a minimal Linux image, WSL):
the student's ``gpu-setup-wizard report -o 보고서.pdf`` in a real child process, then poppler
reads the file. Before the wizard shipped its own Hangul font this PDF had no text at all."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fontconfig_env import empty_fontconfig

REPO = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.gui,  # the child draws the PDF with Qt
              pytest.mark.skipif(not (shutil.which("pdftotext") and shutil.which("pdffonts")),
                                 reason="poppler-utils (pdftotext, pdffonts) is not installed")]


def report_pdf(tmp_path: Path, lang: str) -> Path:
    target = tmp_path / "점검 결과 보고서.pdf"
    env = {**os.environ, **empty_fontconfig(tmp_path), "GSW_DATA_DIR": str(tmp_path / "data"),
           "PYTHONPATH": str(REPO), "PYTHONUTF8": "1"}
    env.pop("DISPLAY", None)  # as on a server: the PDF writer needs no display
    env.pop("QT_QPA_PLATFORM", None)
    out = subprocess.run([sys.executable, "-m", "wizard", "--lang", lang, "report", "-o", str(target)], cwd=tmp_path,
                         env=env, capture_output=True, text=True, encoding="utf-8", timeout=180)
    assert out.returncode == 0, out.stderr
    # the child really saw no font: fontconfig lists nothing under the same configuration
    if shutil.which("fc-list"):
        listed = subprocess.run(["fc-list"], env=env, capture_output=True, text=True, timeout=60).stdout
        assert listed.strip() == "", listed
    return target


def test_korean_text_is_selectable_with_only_the_shipped_font(tmp_path):
    path = report_pdf(tmp_path, "ko")
    text = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, timeout=60).stdout.decode("utf-8")
    for phrase in ("GPU/Cloud 환경 점검 결과", "판단", "날짜", "NVIDIA"):
        assert phrase in text, (phrase, text[:400])
    fonts = subprocess.run(["pdffonts", str(path)], capture_output=True, text=True, timeout=60).stdout
    rows = [line.split() for line in fonts.splitlines()[2:] if line.strip()]
    assert rows and all(row[0].startswith(("GSWSansCJKKR", "GSWMono")) for row in rows), fonts
    assert any(row[0] == "GSWMono-Regular" for row in rows), fonts  # the nvidia-smi appendix stays monospaced
    assert all(row[-5] == "yes" and row[-3] == "yes" for row in rows), fonts  # embedded, with a Unicode map


def test_english_pdf_has_its_text_too(tmp_path):
    path = report_pdf(tmp_path, "en")
    text = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, timeout=60).stdout.decode("utf-8")
    assert "GPU/Cloud environment check results" in text
