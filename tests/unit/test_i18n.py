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


def test_t_formats_in_the_language_it_is_given():
    assert t("gpu.page.rescan", "ko") == "다시 검사"
    assert t("gpu.page.rescan", "en") == "Rescan"
    assert t("gpu.page.rescan", None) == "Rescan"  # no language given: English, never a global
    assert "3.2" in t("doctor.duration", "ko", seconds="3.2")


def test_there_is_no_process_wide_language():
    assert not hasattr(i18n, "set_language") and not hasattr(i18n, "language")
    with pytest.raises(TypeError):
        t("gpu.page.rescan")  # the language is not optional


def test_unknown_key_is_visible_not_a_crash():
    assert t("no.such.key", "ko") == "no.such.key"


def test_duplicate_key_across_files_is_an_error(tmp_path, monkeypatch):
    folder = tmp_path / "i18n"
    folder.mkdir()
    (folder / "a.json").write_text('{"x": {"en": "a", "ko": "가"}}', encoding="utf-8")
    (folder / "b.json").write_text('{"x": {"en": "b", "ko": "나"}}', encoding="utf-8")
    monkeypatch.setattr(i18n, "resource_path", lambda *parts: tmp_path.joinpath(*parts))
    i18n.reload_catalogue()
    try:
        with pytest.raises(i18n.CatalogueError):
            i18n.catalogue()
        i18n.reload_catalogue()
        assert i18n.t("x", "en") == "a"  # the first file answers; the second is not read yet
        with pytest.raises(i18n.CatalogueError):
            i18n.t("y", "en")  # a key neither has: both are read, and b.json's "x" is caught
    finally:
        monkeypatch.undo()
        i18n.reload_catalogue()


def test_messages_are_read_file_by_file_in_start_up_order(tmp_path, monkeypatch):
    """t() reads only the files it needs, the start-up ones first; catalogue() reads them all."""
    folder = tmp_path / "i18n"
    folder.mkdir()
    (folder / "a.json").write_text('{"a.key": {"en": "A", "ko": "에이"}}', encoding="utf-8")
    (folder / "cli.json").write_text('{"cli.key": {"en": "C", "ko": "씨"}}', encoding="utf-8")
    (folder / "z.json").write_text('{"z.key": {"en": "Z", "ko": "제트"}}', encoding="utf-8")
    monkeypatch.setattr(i18n, "resource_path", lambda *parts: tmp_path.joinpath(*parts))
    i18n.reload_catalogue()
    try:
        assert i18n.t("cli.key", "ko") == "씨"
        assert [p.name for p in i18n._store().pending] == ["a.json", "z.json"]
        assert i18n.t("z.key", "en") == "Z"  # z.json, the key's own file, is read first
        assert [p.name for p in i18n._store().pending] == ["a.json"]
        i18n.reload_catalogue()
        assert i18n.has("a.key") and not i18n.has("no.such")
        assert set(i18n.catalogue()) == {"a.key", "cli.key", "z.key"}
    finally:
        monkeypatch.undo()
        i18n.reload_catalogue()


def test_a_key_is_looked_for_in_its_own_file_first_then_in_the_others(tmp_path, monkeypatch):
    """The first page's one history.* key once read 13 of the 22 files (the start-up order up to
    history.json); now its own file is read, and a key that is not where its name says is still
    found in the others."""
    folder = tmp_path / "i18n"
    folder.mkdir()
    (folder / "a.json").write_text('{"a.key": {"en": "A", "ko": "에이"}, "q.key": {"en": "Q", "ko": "큐"}}',
                                   encoding="utf-8")
    (folder / "m.json").write_text('{"m.key": {"en": "M", "ko": "엠"}}', encoding="utf-8")
    (folder / "z.json").write_text('{"z.key": {"en": "Z", "ko": "제트"}}', encoding="utf-8")
    monkeypatch.setattr(i18n, "resource_path", lambda *parts: tmp_path.joinpath(*parts))
    i18n.reload_catalogue()
    try:
        assert i18n.t("m.key", "ko") == "엠"
        assert [p.name for p in i18n._store().pending] == ["a.json", "z.json"]
        assert i18n.t("q.key", "en") == "Q"  # no q.json: the others, in order, until it is found
        assert [p.name for p in i18n._store().pending] == ["z.json"]
    finally:
        monkeypatch.undo()
        i18n.reload_catalogue()


def test_every_key_starts_with_its_files_name():
    """What lets t() read a key's own file first (i18n.own_file)."""
    import json

    folder = REPO / "wizard" / "resources" / "i18n"
    misplaced = {f"{path.name}: {key}" for path in sorted(folder.glob("*.json"))
                 for key in json.loads(path.read_text(encoding="utf-8"))
                 if not key.startswith("_") and i18n.own_file(key) != path.name}
    assert not misplaced


def test_the_catalogue_is_read_safely_from_two_threads():
    """The window's later pages load on a worker thread while the GUI thread renders."""
    import threading

    i18n.reload_catalogue()
    keys = sorted(i18n.catalogue())
    i18n.reload_catalogue()
    results: dict[int, list[str]] = {}

    def read(n: int) -> None:
        results[n] = [i18n.t(k, "en") for k in (keys if n else list(reversed(keys)))]

    threads = [threading.Thread(target=read, args=(n,)) for n in (0, 1)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert results[0] == list(reversed(results[1])) and "" not in results[0]


def test_message_families_built_at_run_time_are_complete():
    """Keys composed in code ("step." + page, "doctor.nvidia_status." + status, ...) all exist."""
    from wizard.core.machine import models

    statuses = [getattr(models, n) for n in dir(models) if n.startswith("STATUS_")]
    keys = [f"doctor.nvidia_status.{s}" for s in statuses if s != models.STATUS_OK]
    keys += [f"diagnosis.severity.{s}" for s in ("error", "warning", "info")]
    keys += [f"window.step.{p}" for p in ("system", "gpu", "recommend", "environment", "install", "verify",
                                     "benchmark", "vram", "report")]
    missing = [k for k in keys if k not in catalogue()]
    assert not missing, missing


# ---------------------------------------------------------------------------------------------
# Message: the one deferred translation
# ---------------------------------------------------------------------------------------------
def test_message_renders_in_the_language_asked_with_nested_messages():
    inner = i18n.msg("common.na")
    outer = i18n.msg("doctor.duration", seconds=inner)
    assert outer.text("ko") == t("doctor.duration", "ko", seconds=t("common.na", "ko"))
    assert outer.text("en") == t("doctor.duration", "en", seconds=t("common.na", "en"))
    assert i18n.Message.from_json(outer.to_json()) == outer  # the stored form (history files) reads back


def test_finding_params_hold_messages_and_their_stored_form():
    """A finding made now (Message) and one read from a history file ({"$t": ...}) say the same."""
    from wizard.core.machine.models import Finding, to_jsonable

    made = Finding("macos-no-cuda", "info", {"detail": i18n.msg("finding.macos-no-cuda.apple")})
    stored = Finding("macos-no-cuda", "info", to_jsonable(made.params))
    assert stored.params["detail"] == {"$t": "finding.macos-no-cuda.apple", "params": {}}
    for lang in ("ko", "en"):
        assert made.title(lang) == stored.title(lang) and made.cause(lang) == stored.cause(lang)
        assert made.to_json(lang) == stored.to_json(lang)
        assert made.to_json(lang)["params"]["detail"] == t("finding.macos-no-cuda.apple", lang)


# ---------------------------------------------------------------------------------------------
# The language is passed, not global: core, app and cli name it wherever they render text
# (test_there_is_no_process_wide_language proves there is nothing else to fall back on)
# ---------------------------------------------------------------------------------------------
def _renders_without_language(node) -> bool:
    import ast

    if not isinstance(node, ast.Call) or node.keywords and not node.args and isinstance(node.func, ast.Attribute):
        return False
    func = node.func
    if isinstance(func, ast.Name) and func.id == "t":
        return len(node.args) < 2
    return isinstance(func, ast.Attribute) and func.attr == "text" and not node.args and not node.keywords


def test_core_and_cli_pass_the_language_where_they_render_text():
    import ast

    found = []
    for folder in ("wizard/core", "wizard/app", "wizard/cli"):
        for path in sorted((REPO / folder).rglob("*.py")):
            rel = path.relative_to(REPO).as_posix()
            found += [f"{rel}:{n.lineno}" for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                      if _renders_without_language(n)]
    assert not found, "t(key) / Message.text() without a language: " + ", ".join(found)


# ---------------------------------------------------------------------------------------------
# The command line's help: every string from the catalogue, in both languages
# ---------------------------------------------------------------------------------------------
HANGUL = re.compile(r"[\uac00-\ud7a3]")


def _parsers(parser):
    """(name, parser) for the parser and every sub-parser under it."""
    import argparse

    out = [(parser.prog, parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                out += _parsers(child)
    return out


def _help_texts(parser):
    import argparse

    texts = [parser.description] if parser.description else []
    for action in parser._actions:
        if action.help and action.help != argparse.SUPPRESS:
            texts.append(action.help)
        if isinstance(action, argparse._SubParsersAction):
            texts += [choice.help for choice in action._choices_actions]
    return texts


def test_every_help_string_exists_in_both_languages():
    from wizard.cli.parser import build_parser

    english = {e["en"] for e in catalogue().values()}
    korean = {e["ko"] for e in catalogue().values()}
    problems = []
    for lang, known in (("en", english), ("ko", korean)):
        for prog, parser in _parsers(build_parser(lang)):
            for text in _help_texts(parser):
                if text not in known:
                    problems.append(f"{lang} {prog}: not from the catalogue: {text!r}")
                elif (lang == "ko") != bool(HANGUL.search(text)):
                    problems.append(f"{lang} {prog}: in the wrong language: {text!r}")
    assert not problems, "\n".join(problems)


COMMANDS = [["doctor"], ["recommend"], ["verify"], ["bench"], ["vram"], ["install"], ["report"], ["colab-cell"],
            ["history"], ["class"], ["storage"], ["kernel"], ["kernel", "install"], ["kernel", "list"],
            ["kernel", "verify"],
            ["history", "list"], ["history", "show"], ["history", "diff"], []]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "(window)")
def test_lang_ko_help_is_korean_for_every_command(command, capsys, monkeypatch):
    from wizard.cli import main
    from wizard.cli.parser import build_parser

    monkeypatch.setenv("COLUMNS", "400")  # one line per option, so each help text is found whole
    with pytest.raises(SystemExit) as exited:
        main(["--lang", "ko", *command, "--help"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    parser = dict(_parsers(build_parser("ko")))[" ".join(["gpu-setup-wizard", *command])]
    assert out.startswith("사용법: ") and "옵션:" in out
    missing = [text for text in _help_texts(parser) if " ".join(text.split()) not in " ".join(out.split())]
    assert not missing, missing
    english = [line for line in out.splitlines() if re.search(r"\b[a-z]{4,} [a-z]{4,} [a-z]{4,}\b", line)
               and not HANGUL.search(line)]
    assert not english, english


def test_lang_ko_install_help_in_a_real_process():
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "wizard", "--lang", "ko", "install", "--help"], cwd=REPO,
                         capture_output=True, text=True, encoding="utf-8", timeout=60,
                         env={**__import__("os").environ, "GSW_LANG": "en", "PYTHONUTF8": "1"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("사용법: gpu-setup-wizard install")
    assert t("install.cli.plan_only.help", "ko") in " ".join(out.stdout.split())
