"""The PDF, opened by a real PDF reader (poppler's pdftotext/pdffonts): the Korean text is in the
file, selectable and searchable, with its fonts embedded; the numbers too."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from tests import report_sessions as rs  # noqa: E402
from wizard.app.report import build as build_report  # noqa: E402
from wizard.core.report.remote import machine_from_text  # noqa: E402
from wizard.core.report.render import render_html  # noqa: E402

POPPLER = shutil.which("pdftotext") and shutil.which("pdffonts")
pytestmark = [pytest.mark.gui,  # the PDF is drawn by Qt
              pytest.mark.skipif(not POPPLER, reason="poppler-utils (pdftotext, pdffonts) is not installed")]


@pytest.fixture(autouse=True)
def _qt_application(request):
    """The test process's QApplication, made first: render_pdf would otherwise make a
    QGuiApplication, and the widget tests later in the same process could not run."""
    if request.config.pluginmanager.hasplugin("pytest-qt") or request.config.pluginmanager.hasplugin("qt"):
        request.getfixturevalue("qapp")


def pdf_of(tmp_path: Path, lang: str, name: str = "report.pdf", **kw) -> tuple[Path, object]:
    from wizard.report_pdf import hangul_font_available, render_pdf

    session = rs.full_session(lang)
    session.remotes = [machine_from_text(rs.colab_smi_text(), label="colab.txt")]
    report = build_report(session, lang=lang, now=rs.NOW, **kw)
    path = render_pdf(render_html(report, for_qt=True), tmp_path / name, title=report.title)
    if lang == "ko" and not hangul_font_available():
        pytest.skip("no font that draws Hangul is installed (Debian: fonts-noto-cjk)")
    return path, report


def text_of(path: Path, *args: str) -> str:
    out = subprocess.run(["pdftotext", *args, str(path), "-"], capture_output=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout.decode("utf-8")


def test_korean_text_is_in_the_pdf_and_selectable(tmp_path):
    path, report = pdf_of(tmp_path, "ko", "점검 결과 보고서.pdf")
    assert path.read_bytes().startswith(b"%PDF-")
    text = text_of(path)
    for phrase in ("GPU/Cloud 환경 점검 결과", "벤치마크(Benchmark)", "판단", "이 환경으로 가능한 강의",
                   "Colab/클라우드가 필요한 강의", "nvidia-smi 결과", "Colab 실행 여부", "부록 A"):
        assert phrase in text, phrase
    # numbers and versions are text too (copyable by a teaching assistant)
    layout = text_of(path, "-layout")
    for phrase in ("NVIDIA GeForce RTX 3060 (12.0 GiB, sm_86)", "CUDA 12.8까지 지원", "torch 2.8.0+cu128",
                   "16.3배", "Tesla T4 (15.0 GiB)"):
        assert phrase in layout, phrase
    assert report.item("benchmark", "cpu_time").value.split(" (")[0] in layout


def test_fonts_are_embedded(tmp_path):
    path, _ = pdf_of(tmp_path, "ko")
    out = subprocess.run(["pdffonts", str(path)], capture_output=True, text=True, timeout=60)
    rows = [line.split() for line in out.stdout.splitlines()[2:] if line.strip()]
    assert rows, out.stdout
    for row in rows:  # name type... emb sub uni object-id gen: "emb" is the 5th field from the end
        assert row[-5] == "yes", f"font not embedded: {row[0]}"
        assert row[-3] == "yes", f"font without a Unicode map: {row[0]}"
    assert any("CJK" in row[0] or "Gothic" in row[0] for row in rows), [r[0] for r in rows]


def test_english_pdf_and_page_size(tmp_path):
    path, _ = pdf_of(tmp_path, "en")
    text = text_of(path)
    assert "GPU/Cloud environment check results" in text and "Lessons that need Colab/cloud" in text
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, timeout=60).stdout
    assert "595 x 842 pts (A4)" in info and "GPU/Cloud environment check results" in info


def test_private_data_is_not_in_the_pdf(tmp_path):
    path, _ = pdf_of(tmp_path, "ko")
    text = text_of(path)
    assert rs.USER not in text and rs.HOST not in text and "~/envs/dl" in text
    private, _ = pdf_of(tmp_path, "ko", "private.pdf", include_private=True)
    assert f"{rs.HOME}/envs/dl" in text_of(private)


def test_an_unwritable_folder_leaves_nothing_behind(tmp_path):
    from wizard.report_pdf import render_pdf

    with pytest.raises(OSError):
        render_pdf("<p>x</p>", tmp_path / "missing" / "r.pdf")
    target = tmp_path / "r.pdf"
    render_pdf("<p>가나다</p>", target)
    assert [p.name for p in tmp_path.iterdir()] == ["r.pdf"]  # no temporary file left
