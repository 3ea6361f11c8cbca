"""The catalogue is complete: both languages, same placeholders, every used key exists."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from wizard.core.base import i18n
from wizard.core.base.i18n import catalogue, detect_lang, normalise_lang, t

REPO = Path(__file__).resolve().parents[2]


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_every_key_has_both_languages_with_same_placeholders():
    problems = []
    for key, entry in catalogue().items():
        if set(entry) != {"en", "ko"}:
            problems.append(f"{key}: languages {sorted(entry)}")
            continue
        if not entry["en"].strip() or not entry["ko"].strip():
            problems.append(f"{key}: empty text")
        if _fields(entry["en"]) != _fields(entry["ko"]):
            problems.append(f"{key}: placeholders {_fields(entry['en'])} vs {_fields(entry['ko'])}")
    assert not problems, "\n".join(problems)


def test_korean_text_is_korean():
    """A Korean entry that is a copy of the English one is a missing translation."""
    same = [k for k, e in catalogue().items()
            if e["ko"] == e["en"] and re.search(r"[A-Za-z]{4,}\s+[A-Za-z]{4,}", e["en"])]
    assert not same, same


def test_every_literal_key_used_in_source_exists():
    used = set()
    # literal keys only: t("a.b") or msg("a.b"); prefixes joined at run time end in "."
    pattern = re.compile(r"""\b(?:t|msg)\(\s*["']([a-z][a-z0-9_\-]*(?:\.[a-z0-9_\-]+)+)["']""")
    for path in (REPO / "wizard").rglob("*.py"):
        used |= set(pattern.findall(path.read_text(encoding="utf-8")))
    missing = sorted(k for k in used if k not in catalogue())
    assert not missing, missing


def test_finding_messages_complete():
    """Each finding id used in findings.py has a title, cause and fix."""
    src = (REPO / "wizard" / "core" / "machine" / "findings.py").read_text(encoding="utf-8")
    ids = set(re.findall(r'Finding\(\s*"([a-z0-9\-]+)"', src))
    assert ids, "no finding ids found in findings.py"
    for fid in ids:
        for part in ("title", "cause", "fix"):
            key = f"finding.{fid}.{part}"
            has_variants = any(k.startswith(key + ".") for k in catalogue())
            assert key in catalogue() or (part == "fix" and has_variants), key


@pytest.mark.parametrize("value,expected", [
    ("ko_KR.UTF-8", "ko"), ("Korean_Korea.949", "ko"), ("ko", "ko"),
    ("en_US.UTF-8", "en"), ("de_DE", "en"), (None, "en"), ("", "en"),
])
def test_normalise_lang(value, expected):
    assert normalise_lang(value) == expected


def test_detect_lang_from_injected_environment():
    assert detect_lang({"LANG": "ko_KR.UTF-8"}) == "ko"
    assert detect_lang({"LANG": "C.UTF-8", "LC_ALL": "C"}) == "en"
    assert detect_lang({"GSW_LANG": "en", "LANG": "ko_KR.UTF-8"}) == "en"
    assert detect_lang({}) == "en"


def test_t_formats_and_switches_language():
    i18n.set_language("ko")
    assert t("page.gpu.rescan") == "다시 검사"
    assert t("page.gpu.rescan", "en") == "Rescan"
    assert "3.2" in t("doctor.duration", seconds="3.2")
    i18n.set_language("en")
    assert t("page.gpu.rescan") == "Rescan"


def test_unknown_key_is_visible_not_a_crash():
    assert t("no.such.key") == "no.such.key"


def test_duplicate_key_across_files_is_an_error(tmp_path, monkeypatch):
    folder = tmp_path / "i18n"
    folder.mkdir()
    (folder / "a.json").write_text('{"x": {"en": "a", "ko": "가"}}', encoding="utf-8")
    (folder / "b.json").write_text('{"x": {"en": "b", "ko": "나"}}', encoding="utf-8")
    monkeypatch.setattr(i18n, "resource_path", lambda *parts: tmp_path.joinpath(*parts))
    i18n.catalogue.cache_clear()
    try:
        with pytest.raises(i18n.CatalogueError):
            i18n.catalogue()
    finally:
        monkeypatch.undo()
        i18n.catalogue.cache_clear()


def test_message_families_built_at_run_time_are_complete():
    """Keys composed in code ("step." + page, "doctor.nvidia_status." + status, ...) all exist."""
    from wizard.core.machine import models

    statuses = [getattr(models, n) for n in dir(models) if n.startswith("STATUS_")]
    keys = [f"doctor.nvidia_status.{s}" for s in statuses if s != models.STATUS_OK]
    keys += [f"severity.{s}" for s in ("error", "warning", "info")]
    keys += [f"step.{p}" for p in ("system", "gpu", "recommend", "environment", "install", "verify",
                                     "benchmark", "vram", "report")]
    missing = [k for k in keys if k not in catalogue()]
    assert not missing, missing
