"""The command line's shape: one parser, one set of exit statuses, one language per run.

The per-command tests (test_cli_doctor.py and the others) run each command as a student does;
these check what every command shares, in the process (``wizard.cli.main``) and in one real one.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.reference import reference_file
from wizard.cli import main
from wizard.cli.exit_status import ExitStatus
from wizard.cli.parser import build_parser, command_named, prescan_lang
from wizard.core.base.i18n import t

REPO = Path(__file__).resolve().parents[2]
CLI = REPO / "wizard" / "cli"
COMMANDS = {"doctor", "recommend", "verify", "bench", "vram", "install", "report", "colab-cell", "history",
            "class", "storage", "kernel"}


def test_exit_statuses_keep_their_numbers():
    """Scripts and the tests of each command rely on these values."""
    assert {s.name: int(s) for s in ExitStatus} == {"SUCCESS": 0, "FAILED": 1, "BAD_INPUT": 2, "NEEDS_CONFIRM": 3,
                                                    "CANCELLED": 130}
    assert ExitStatus.NOTHING_RECOGNISED == 1


def test_every_command_is_in_the_one_parser():
    sub = next(a for a in build_parser("en")._actions if isinstance(a, argparse._SubParsersAction))
    assert set(sub.choices) == COMMANDS
    window_only = next(a for a in build_parser("en", with_commands=False)._actions
                       if isinstance(a, argparse._SubParsersAction))
    assert not window_only.choices  # opening the window builds no command's options


def _sub_actions(parser: argparse.ArgumentParser) -> dict[str, list[tuple]]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {name: [(tuple(a.option_strings), a.dest, a.default, a.help, str(a.choices)) for a in p._actions]
            for name, p in sub.choices.items()}


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_one_command_alone_parses_exactly_as_in_the_whole_parser(lang):
    """``build_parser(only=NAME)`` (what a command line that names a command gets) builds that
    command's options and no other's, and they are the whole parser's, option for option."""
    whole = _sub_actions(build_parser(lang))
    for name in COMMANDS:
        alone = _sub_actions(build_parser(lang, only=name))
        assert alone == {name: whole[name]}


@pytest.mark.parametrize("argv, expected", [
    (["doctor", "--json"], "doctor"), (["--lang", "ko", "install", "--yes"], "install"),
    (["--lang", "doctor", "verify"], "verify"),  # "doctor" is --lang's value here (argparse rejects it later)
    (["colab-cell"], "colab-cell"), (["doctr"], None), (["--help", "doctor"], None), ([], None),
    (["--smoke-test"], None), (["-h"], None), (["doctor", "-h"], "doctor"),
])
def test_the_command_named_is_the_first_word_that_is_no_option(argv, expected):
    assert command_named(argv) == expected


def test_a_misspelt_command_still_lists_every_command(capsys):
    """An unknown word gets the whole parser, so argparse's message names the real commands."""
    with pytest.raises(SystemExit) as raised:
        main(["doctr", "--lang", "en"])
    assert raised.value.code == 2
    err = capsys.readouterr().err
    assert "doctr" in err and "doctor" in err and "storage" in err


def _calls(path: Path, name: str) -> list[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call)
            and (getattr(n.func, "attr", None) == name or getattr(n.func, "id", None) == name)]


def test_one_argparse_definition_and_one_stream_setup():
    parsers = {p.name: _calls(p, "ArgumentParser") for p in CLI.glob("*.py")}
    assert {name for name, lines in parsers.items() if lines} == {"parser.py"}
    streams = {p.name: _calls(p, "reconfigure") for p in CLI.glob("*.py")}
    assert {name for name, lines in streams.items() if lines} == {"common.py"}


def test_no_bare_exit_numbers():
    """Every command returns an ExitStatus, never a number (``return 2``, ``sys.exit(130)``)."""
    bare = []
    for path in sorted(CLI.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            value = node.value if isinstance(node, ast.Return) else None
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "exit" and node.args:
                value = node.args[0]
            if isinstance(value, ast.Constant) and type(value.value) is int:
                bare.append(f"{path.name}:{node.lineno}")
    assert not bare, bare


@pytest.mark.parametrize("argv,expected", [
    (["--lang", "ko", "doctor"], "ko"), (["doctor", "--lang=ko"], "ko"),
    (["--lang", "ko", "doctor", "--lang", "en"], "en"), (["doctor", "--lang"], "en"),
])
def test_prescan_finds_the_language_anywhere(argv, expected, monkeypatch):
    monkeypatch.setenv("GSW_LANG", "en")
    assert prescan_lang(argv) == expected


def test_lang_before_the_command_reaches_the_command(capsys, monkeypatch):
    """A sub-parser's --lang default (None) must not undo a --lang given before the command."""
    monkeypatch.setenv("GSW_LANG", "en")
    assert main(["--lang", "ko", "vram", "--vram-gb", "8"]) == ExitStatus.SUCCESS
    out = capsys.readouterr().out
    assert out.splitlines()[0] == t("vram.cli.gpu_typed", "ko", total="8.00 GiB")
    assert main(["vram", "--lang", "ko", "--vram-gb", "8"]) == ExitStatus.SUCCESS
    assert capsys.readouterr().out == out


def test_the_language_of_one_run_does_not_leak_into_the_next(capsys, monkeypatch):
    monkeypatch.setenv("GSW_LANG", "en")
    main(["--lang", "ko", "vram", "--vram-gb", "8"])
    capsys.readouterr()
    assert main(["vram", "--vram-gb", "8"]) == ExitStatus.SUCCESS
    assert capsys.readouterr().out.splitlines()[0] == t("vram.cli.gpu_typed", "en", total="8.00 GiB")


def test_bad_input_is_status_2_with_one_line_in_the_chosen_language(capsys, monkeypatch):
    monkeypatch.setenv("GSW_LANG", "en")
    assert main(["--lang", "ko", "vram", "--vram-gb", "0.1"]) == ExitStatus.BAD_INPUT
    err = capsys.readouterr().err
    assert err == f"gpu-setup-wizard: {t('vram.cli.bad_vram_gb', 'ko', value='0.1')}\n"


def test_doctor_from_a_saved_output_in_korean_in_a_real_process():
    path = reference_file("nvidia-smi", "07-old-driver-418.43-gtx1660ti.q-x.xml")
    env = {**os.environ, "GSW_LANG": "en", "PYTHONUTF8": "1"}
    out = subprocess.run([sys.executable, "-m", "wizard", "doctor", "--nvidia-smi-file", str(path), "--json",
                          "--lang", "ko"], cwd=REPO, capture_output=True, text=True, encoding="utf-8", timeout=120,
                         env=env)
    assert out.returncode == ExitStatus.SUCCESS, out.stderr
    doc = json.loads(out.stdout)
    assert doc["nvidia"]["driver_version"] == "418.43"
    assert doc["findings"] and all(re.search(r"[\uac00-\ud7a3]", f["title"]) for f in doc["findings"])
