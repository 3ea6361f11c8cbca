"""Screenshots of the Report page under Xvfb (the real xcb platform, not offscreen) and of the PDF's
first page (poppler's pdftoppm). The PNGs land in artifacts/screenshots/ (ignored by git) so a
person can open them and look."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "artifacts" / "screenshots"

pytestmark = pytest.mark.slow




def _image(path: Path):
    from PySide6.QtGui import QImage

    image = QImage(str(path))
    assert not image.isNull(), path
    return image


def _colours(image, step: int = 13) -> int:
    return len({image.pixel(x, y) for x in range(0, image.width(), step) for y in range(0, image.height(), step)})


@pytest.mark.parametrize("session,lang", [("full", "ko"), ("no-gpu", "en")])
def test_report_page_screenshots(xvfb_display, session, lang):
    env = {**os.environ, "DISPLAY": xvfb_display, "QT_QPA_PLATFORM": "xcb"}
    out = subprocess.run([sys.executable, "-m", "tests.gui.screenshot_report", str(OUT), "--session", session,
                          "--lang", lang], cwd=REPO, env=env, capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr
    paths = [Path(line) for line in out.stdout.split() if line.endswith(".png")]
    prefix = f"report-{session}-{lang}"
    assert [p.name for p in paths] == [f"{prefix}-{n}.png" for n in ("1-preview", "2-checks", "3-history",
                                                                    "4-add-remote")]
    for path in paths[:3]:
        image = _image(path)
        assert image.width() >= 900 and image.height() >= 650, (path.name, image.width(), image.height())
        assert _colours(image) > 20, f"{path.name} is nearly blank"
    dialog = _image(paths[3])
    assert dialog.width() >= 600 and _colours(dialog) > 8


def test_pdf_first_page(tmp_path, qapp):
    """``qapp``: the widget tests in this process need a QApplication, not the QGuiApplication
    render_pdf makes when there is none."""
    if not shutil.which("pdftoppm"):
        pytest.skip("poppler-utils (pdftoppm) is not installed")
    from tests import report_sessions as rs
    from wizard.app.report import build as build_report
    from wizard.core.report.remote import machine_from_text
    from wizard.core.report.render import render_html
    from wizard.report_pdf import render_pdf

    OUT.mkdir(parents=True, exist_ok=True)
    for lang in ("ko", "en"):
        session = rs.full_session(lang)
        session.remotes = [machine_from_text(rs.colab_smi_text(), label="colab.txt")]
        report = build_report(session, lang=lang, now=rs.NOW)
        pdf = render_pdf(render_html(report, for_qt=True), tmp_path / f"report-{lang}.pdf", title=report.title)
        stem = OUT / f"report-pdf-{lang}-page"
        done = subprocess.run(["pdftoppm", "-r", "90", "-f", "1", "-l", "1", "-png", "-singlefile", str(pdf),
                               str(stem)], capture_output=True, timeout=60)
        assert done.returncode == 0, done.stderr
        image = _image(Path(f"{stem}.png"))
        assert abs(image.height() / image.width() - 297 / 210) < 0.01  # an A4 page
        assert _colours(image, 7) > 20, "the first page is nearly blank"
        # text reaches across the page: the left margin is ~15 mm, not a narrow column
        dark = [x for x in range(image.width()) for y in range(0, image.height(), 9)
                if (image.pixel(x, y) & 0xFF) < 100]
        assert min(dark) < image.width() * 0.12 and max(dark) > image.width() * 0.75
