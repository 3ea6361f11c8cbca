"""The scripted tour (tests/gui/tour.py) as tests: every page, both languages, both sizes, both
machines, under a real X server; then what the screenshots, the layout checker and the exported
report say about the run.

Each tour runs in its own process (one QApplication each, Qt's real xcb plugin), the way a
student starts the program. The no-GPU tours install the real torch 2.13.0 CPU wheel from a
loopback mirror; the wheels are downloaded once for the module.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.xvfb import start_xvfb

pytestmark = [pytest.mark.gui, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]
HANGUL = re.compile(r"[\uac00-\ud7a3]")
TOURS = [(m, lang, size) for m in ("no-gpu", "rtx3060-windows") for lang in ("ko", "en")
         for size in ("1024x700", "1600x1000")]
PAGES_NO_GPU = ["system", "gpu", "recommend", "environment", "install", "verify", "benchmark", "vram", "report"]
PAGES_RECORDED = ["system", "gpu", "recommend", "environment", "verify", "benchmark", "vram", "report"]


@pytest.fixture(scope="module")
def display():
    with start_xvfb("1700x1100x24") as name:
        yield name


@pytest.fixture(scope="module")
def wheels(tmp_path_factory):
    return tmp_path_factory.mktemp("tour wheels")


@pytest.fixture(scope="module")
def tours(display, wheels, tmp_path_factory):
    """Run each tour once (lazily), keyed by (machine, lang, size): (returncode, record, outdir)."""
    out = tmp_path_factory.mktemp("tour")
    done: dict[tuple[str, str, str], tuple[int, dict, Path, str]] = {}

    def run(machine: str, lang: str, size: str):
        key = (machine, lang, size)
        if key not in done:
            env = {**os.environ, "DISPLAY": display, "QT_QPA_PLATFORM": "xcb", "GSW_TOUR_STEP_TIMEOUT": "300"}
            argv = [sys.executable, "-m", "tests.gui.tour", str(out), "--machine", machine, "--lang", lang,
                    "--size", size, "--wheels", str(wheels)]
            if lang == "en":
                argv += ["--vram-gb", "8"]  # the English tours choose a card size; the Korean ones don't
            got = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
            record_file = out / f"{machine}-{lang}-{size}-tour.json"
            record = json.loads(record_file.read_text(encoding="utf-8")) if record_file.exists() else {}
            done[key] = (got.returncode, record, out, (got.stdout + got.stderr)[-4000:])
        return done[key]
    return run


def _distinct_colours(path: Path) -> tuple[int, int, int]:
    from PySide6.QtGui import QImage

    image = QImage(str(path))
    colours = {image.pixel(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)}
    return image.width(), image.height(), len(colours)


@pytest.mark.parametrize("machine,lang,size", TOURS)
def test_the_tour_shows_every_page_readably(tours, machine, lang, size):
    code, record, out, output = tours(machine, lang, size)
    assert code == 0 and record.get("failure") is None, f"{record.get('failure')}\n{output}"
    pages = [p for p in record["pages"] if p != "environment-mirror"]
    assert pages == (PAGES_NO_GPU if machine == "no-gpu" else PAGES_RECORDED)
    width, height = (int(v) for v in size.split("x"))
    for name in record["screenshots"]:
        w, h, colours = _distinct_colours(out / name)
        assert (w, h) == (width, height), name
        assert colours > 20, f"{name} looks blank ({colours} colours)"
    assert record["layout"] == {}, "\n".join(f"{page}: {p}" for page, ps in record["layout"].items() for p in ps)


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_exported_report_says_what_the_tour_did(tours, lang):
    code, record, out, output = tours("no-gpu", lang, "1024x700")
    assert code == 0, output
    md = (out / record["reports"]["md"]).read_text(encoding="utf-8")
    doc = json.loads((out / record["reports"]["json"]).read_text(encoding="utf-8"))
    html = (out / record["reports"]["html"]).read_text(encoding="utf-8")
    assert (out / record["reports"]["pdf"]).read_bytes().startswith(b"%PDF")
    mirror = record["index_url"].rstrip("/")
    # The index actually used (the mirror the student typed), never the default one it did not use.
    install = next(s for s in doc["sections"] if s["id"] == "install")
    install_text = json.dumps(install, ensure_ascii=False)
    assert mirror in install_text
    assert "download.pytorch.org" not in install_text
    assert mirror in md and mirror in html
    # The build actually installed: the verify probe's torch, the 2.13.0 the mirror had.
    assert doc["machines"][0]["torch_version"] == "2.13.0+cpu"
    assert "torch 2.13.0+cpu" in md
    # A VRAM verdict only where the student chose a card size (the English tour typed 8 GB).
    vram = next(s for s in doc["sections"] if s["id"] == "vram")
    if record["vram_gb"] is None:
        assert vram["status"] != "fail", vram
        assert "✗" not in json.dumps(vram, ensure_ascii=False)
    else:
        assert "8" in json.dumps(vram, ensure_ascii=False)
    # No GPU: small lessons on this CPU, the rest elsewhere; the same count in every format.
    judgment = next(s for s in doc["sections"] if s["id"] == "judgment")
    text = json.dumps(judgment, ensure_ascii=False)
    word = "이 CPU에서 실행 가능" if lang == "ko" else "this CPU"
    assert word in text and word in md
    assert md.count(word) >= 2
    # Private by default: the student's home (with a Hangul name) never appears.
    assert "김철수" not in md and "김철수" not in html and "김철수" not in json.dumps(doc, ensure_ascii=False)
    if lang == "en":  # nothing of the Korean catalogue leaks into the English report
        assert not HANGUL.search(md), HANGUL.findall(md)[:20]


def test_the_recorded_rtx3060_report_names_the_card_and_its_build(tours):
    code, record, out, output = tours("rtx3060-windows", "en", "1024x700")
    assert code == 0, output
    md = (out / record["reports"]["md"]).read_text(encoding="utf-8")
    assert "RTX 3060" in md and "2.8.0+cu128" in md
    assert not HANGUL.search(md), HANGUL.findall(md)[:20]
