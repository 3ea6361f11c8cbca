"""The shipped Hangul font: it covers every character the wizard writes, it is small, its licence
travels with it, and a machine whose fontconfig has no font at all still draws Korean with it.

Qt reads the font files (QRawFont), as the window and the PDF writer do; fontTools, which made
them, is not needed here.
"""

from __future__ import annotations

import ast
import functools
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from tests.fontconfig_env import empty_fontconfig  # noqa: E402
from wizard.core.base.i18n import catalogue  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
FONTS = REPO / "wizard" / "resources" / "fonts"
pytestmark = pytest.mark.gui  # QRawFont needs the test's QGuiApplication

HANGUL_FILES = ("GSWSansCJKKR-Regular.otf", "GSWSansCJKKR-Bold.otf")
SYMBOL_FILES = ("GSWSymbols-Regular.ttf", "GSWSymbols-Bold.ttf")
MONO_FILE = "GSWMono-Regular.otf"


def raw(name: str):
    from PySide6.QtGui import QFont, QRawFont

    font = QRawFont(str(FONTS / name), 12.0, QFont.HintingPreference.PreferNoHinting)
    assert font.isValid(), name
    return font


def drawn(text: str) -> set[str]:
    """The characters of ``text`` a font has to draw (not line breaks, tabs or other controls)."""
    return {c for c in text if c.isprintable() and c != " "}


def catalogue_characters() -> dict[str, str]:
    """Each character of the catalogue, with one key that uses it (for the failure message)."""
    where: dict[str, str] = {}
    for key, entry in catalogue().items():
        for text in entry.values():
            for char in drawn(text):
                where.setdefault(char, key)
    return where


@functools.cache
def source_characters() -> dict[str, str]:
    """Each character of the wizard's string constants (✓ ⚠ marks, "언어 / Language"), with its file."""
    where: dict[str, str] = {}
    for path in sorted((REPO / "wizard").rglob("*.py")):
        if "probe" in path.relative_to(REPO / "wizard").parts:
            continue  # printed by the student's Python in a terminal, never drawn by Qt
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                for char in drawn(node.value):
                    where.setdefault(char, str(path.relative_to(REPO)))
    return where


def uncovered(chars: dict[str, str], weight: int) -> list[str]:
    fonts = [raw(HANGUL_FILES[weight]), raw(SYMBOL_FILES[weight])]
    return [f"U+{ord(c):04X} {c!r} ({where})" for c, where in sorted(chars.items())
            if not any(f.supportsCharacter(ord(c)) for f in fonts)]


@pytest.mark.parametrize("weight", [0, 1], ids=["regular", "bold"])
def test_every_catalogue_character_is_in_the_shipped_fonts(qapp, weight):
    missing = uncovered(catalogue_characters(), weight)
    assert not missing, "rebuild with scripts/make_font_subset: " + ", ".join(missing)


@pytest.mark.parametrize("weight", [0, 1], ids=["regular", "bold"])
def test_every_character_of_the_wizards_strings_is_in_the_shipped_fonts(qapp, weight):
    missing = uncovered(source_characters(), weight)
    assert not missing, "rebuild with scripts/make_font_subset: " + ", ".join(missing)


def test_the_check_sees_a_character_the_font_lacks(qapp):
    # a Hanja and an emoji: not in the subset, so the coverage tests above can fail
    assert uncovered({"漢": "test", "🙂": "test", "가": "test"}, 0) == ["U+6F22 '漢' (test)", "U+1F642 '🙂' (test)"]


def test_the_mono_font_is_monospaced_for_ascii_and_box_drawing(qapp):
    font = raw(MONO_FILE)
    assert font.familyName() == "GSW Mono"
    text = "| 0  Tesla T4   Off | ╰── 15360MiB |"
    advances = {round(a.x(), 2) for a in font.advancesForGlyphIndexes(font.glyphIndexesForString(text))}
    assert all(font.supportsCharacter(ord(c)) for c in text) and len(advances - {0.0}) <= 2, advances


def test_the_ks_x_1001_syllables_and_jamo_are_there(qapp):
    syllables = []
    for lead in range(0xB0, 0xC9):
        for trail in range(0xA1, 0xFF):
            try:
                syllables.append(bytes([lead, trail]).decode("euc-kr"))
            except UnicodeDecodeError:
                pass
    assert len(syllables) == 2350
    for name in HANGUL_FILES:
        font = raw(name)
        assert all(font.supportsCharacter(ord(s)) for s in syllables), name
        assert all(font.supportsCharacter(cp) for cp in range(0x3131, 0x318F)), name  # ㄱ … ㆎ
        assert font.familyName() == "GSW Sans CJK KR"


def test_the_fonts_are_small_and_carry_their_licences():
    sizes = {p.name: p.stat().st_size for p in FONTS.iterdir() if p.suffix in (".otf", ".ttf")}
    assert set(sizes) == set(HANGUL_FILES + SYMBOL_FILES + (MONO_FILE,))
    assert sum(sizes.values()) < 1.5 * 1024 * 1024, sizes
    ofl = (FONTS / "OFL.txt").read_text(encoding="utf-8")
    assert "SIL OPEN FONT LICENSE Version 1.1" in ofl and "Adobe" in ofl
    assert "Bitstream" in (FONTS / "LICENSE-DejaVu.txt").read_text(encoding="utf-8")
    readme = (FONTS / "README.md").read_text(encoding="utf-8")
    assert "version 2.004" in readme and "scripts/make_font_subset" in readme


def test_the_package_data_carries_the_fonts():
    import tomllib

    patterns = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"][
        "package-data"]["wizard"]
    for path in FONTS.iterdir():
        rel = path.relative_to(REPO / "wizard")
        assert any(rel.match(p.replace("**/", "")) or rel.match(p) for p in patterns), rel


def test_registered_with_qt_and_a_fallback_after_the_base_family(qapp):
    from PySide6.QtGui import QFont, QFontDatabase

    from wizard.ui.fonts import fallback_font, setup_fonts

    result = setup_fonts(qapp)
    assert result.shipped == ("GSW Sans CJK KR", "GSW Symbols", "GSW Mono") and result.hangul_ok
    assert "GSW Sans CJK KR" in QFontDatabase.families(QFontDatabase.WritingSystem.Korean)
    # this machine has monospace fonts: the shipped one substitutes for none of them
    assert "GSW Mono" not in QFont.substitutes("monospace") and "GSW Mono" not in QFont.substitutes("DejaVu Sans Mono")
    font = fallback_font(QFont("DejaVu Sans", 11), ("GSW Sans CJK KR", "GSW Symbols"))
    assert font.families() == ["DejaVu Sans", "GSW Sans CJK KR", "GSW Symbols"] and font.pointSize() == 11


# A child process: the fontconfig it sees has no font at all (a minimal Linux image). The label
# next to the language menu is laid out as the window lays it out; every glyph must be a real
# one (glyph 0 is .notdef, the empty box), drawn by the shipped family.
CHILD = textwrap.dedent("""
    import json
    from PySide6.QtGui import QFont, QFontInfo, QFontMetricsF, QTextLayout
    from wizard.ui.app import create_app
    from wizard.app.session import Session
    from wizard.ui.pages.system_page import SystemPage
    from wizard.ui.session_model import SessionModel
    from tests import scenarios

    app = create_app(lang="ko")
    from wizard.ui.fonts import setup_fonts
    setup = setup_fonts(app)
    page = SystemPage(SessionModel(Session(host=scenarios.linux_host(), lang="ko")))
    label = page.lang_label
    layout = QTextLayout(label.text(), label.font())
    layout.beginLayout(); layout.createLine(); layout.endLayout()
    runs = [(r.rawFont().familyName(), list(r.glyphIndexes())) for r in layout.glyphRuns()]
    metrics = QFontMetricsF(QFont("monospace"))
    print(json.dumps({"text": label.text(), "fallback_used": setup.fallback_used,
                      "system_hangul": list(setup.system_hangul), "runs": runs,
                      "mono": [QFontInfo(QFont("monospace")).family(),
                               len({metrics.horizontalAdvance(c) for c in "iW|.0-"})]}))
""")


def test_without_any_system_font_the_language_label_draws_hangul(tmp_path):
    env = {**os.environ, **empty_fontconfig(tmp_path), "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-c", CHILD], cwd=REPO, env=env, capture_output=True, text=True,
                         encoding="utf-8", timeout=120)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["system_hangul"] == [] and result["fallback_used"] is True
    assert "언어" in result["text"]
    assert result["runs"] and all(glyphs and 0 not in glyphs for _family, glyphs in result["runs"]), result["runs"]
    assert "GSW Sans CJK KR" in {family for family, _glyphs in result["runs"]}
    assert result["mono"] == ["GSW Mono", 1]  # no monospace font here: the shipped one, every ASCII glyph one width


def test_the_bundle_keeps_the_fonts_and_qts_korean_catalogue():
    import importlib.util

    spec = importlib.util.spec_from_file_location("gsw_bundle_config", REPO / "installers" / "bundle_config.py")
    cfg = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cfg)
    assert cfg.RESOURCES_DEST == "wizard/resources"  # the spec copies wizard/resources whole, fonts/ included
    for name in HANGUL_FILES + SYMBOL_FILES + (MONO_FILE, "OFL.txt"):
        assert cfg.keep_bundle_entry(f"{cfg.RESOURCES_DEST}/fonts/{name}")
    assert cfg.keep_bundle_entry("PySide6/Qt/translations/qtbase_ko.qm")
    assert not cfg.keep_bundle_entry("PySide6/Qt/translations/qtbase_de.qm")
