"""The class view against a hostile class folder (issue 24, findings 9 and 10; red team 10, 14, 15,
16): one report with a number no GPU has must not take the whole page down; CSV cells that a
spreadsheet would run are neutralised after leading spaces, quotes and newlines too; file names
carrying terminal escape codes are shown escaped; a student cannot push a classmate out of the
view as a "duplicate"; a named pipe in the folder is refused without being opened."""

from __future__ import annotations

import copy
import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import class_reports as cr
from tests.cli_runner import run_cli
from wizard.app.classroom import build_table
from wizard.core.classroom.render import _csv_cell, cells, render_csv, render_html
from wizard.core.classroom.roster import read_roster

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def one_report(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("class") / "reports"
    cr.write_class(folder)
    return json.loads((folder / "2026003_choi.json").read_text(encoding="utf-8"))


def _write(folder: Path, name: str, doc: dict | str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return path


@pytest.mark.parametrize("gpus", [
    [{"name": "g", "vram_bytes": 10**400}],
    [{"name": "g", "vram_bytes": 2**80}],
    [{"name": "g", "vram_bytes": -5}],
    [{"name": "g", "vram_bytes": 8 * 2**30}] * 5000,
])
def test_a_report_with_an_impossible_number_is_skipped_and_the_class_is_shown(one_report, tmp_path, gpus):
    bad = copy.deepcopy(one_report)
    bad["facts"]["gpus"] = gpus
    bad["facts"]["started_at"] = "2026-12-01T10:00:00+09:00"
    _write(tmp_path, "a.json", bad)
    _write(tmp_path, "b.json", one_report)
    table = build_table([tmp_path])
    assert [r.student.file for r in table.rows] == ["b.json"]
    (skipped,) = table.roster.skipped
    assert skipped.file == "a.json" and skipped.reason.key == "class_view.skip.not_report"
    assert "gpus" in skipped.reason.text("en") and skipped.reason.text("ko")
    render_html(table, "en", "now")
    render_csv(table, "ko")


def test_huge_or_nan_numbers_in_a_1_0_report_are_skipped_not_a_crash(one_report, tmp_path):
    for name, mib in (("inf.json", "1e400"), ("nan.json", "NaN"), ("big.json", "1e300")):
        doc = copy.deepcopy(one_report)
        del doc["facts"]
        doc["schema"] = "gpu-setup-wizard/report@1.0"
        text = json.dumps(doc).replace('"memory_total_mib": ', f'"memory_total_mib": {mib}, "_was": ', 1)
        _write(tmp_path, name, text)
    _write(tmp_path, "good.json", one_report)
    table = build_table([tmp_path])
    assert "good.json" in [r.student.file for r in table.rows]
    render_html(table, "en", "now")


@pytest.mark.parametrize("text", ["=1+1", " =1+1", "\n=1+1", "\t=1+1", "\r=1+1", '"=1+1', "' =1+1", "  +1",
                                  " -2+3", "\n\n@SUM(A1)", "ok\n=HYPERLINK(\"x\")", "\x00=1"])
def test_a_formula_cell_is_neutralised_after_leading_blanks_quotes_and_newlines(text):
    out = _csv_cell(text)
    assert out.startswith("'"), repr(out)


def test_plain_cells_are_left_alone():
    assert _csv_cell("NVIDIA GeForce RTX 3060") == "NVIDIA GeForce RTX 3060"
    assert _csv_cell("570.133.07 (CUDA 12.8)") == "570.133.07 (CUDA 12.8)"


def test_formula_values_in_a_report_reach_the_csv_neutralised(one_report, tmp_path):
    doc = copy.deepcopy(one_report)
    doc["facts"]["os"] = " =cmd|'/C calc'!A0"
    doc["facts"]["driver"] = "\n=1+1"
    doc["facts"]["gpus"][0]["name"] = '"@SUM(1)'
    _write(tmp_path, "f.json", doc)
    table = build_table([tmp_path])
    rows = list(csv.reader(io.StringIO(render_csv(table, "en"))))
    for cell in rows[1]:
        assert cell.lstrip(" \t\r\n\"'")[:1] not in ("=", "+", "@") or cell.startswith("'"), cell


def test_terminal_escape_codes_in_a_file_name_are_shown_escaped(tmp_path, one_report):
    folder = tmp_path / "cls"
    _write(folder, "\x1b[31mred\x1b]0;pwned\x07.json", "")  # an empty file: skipped, its name printed
    _write(folder, "\x9b2Jcsi.json", "{}")
    _write(folder, "ok.json", one_report)
    out = run_cli("class", str(folder), "-o", str(tmp_path / "o.html"))
    err = out.stderr
    assert out.returncode == 0, err
    assert "\x1b" not in err and "\x07" not in err and "\x9b" not in err, repr(err)
    assert "\\x1b[31mred" in err


def test_a_copied_report_cannot_push_the_real_one_out_of_the_view(one_report, tmp_path):
    real = copy.deepcopy(one_report)
    _write(tmp_path, "bob.json", real)
    _write(tmp_path, "aaa.json", real)  # a classmate's bytes, copied under a name that sorts first
    faked = copy.deepcopy(real)
    faked["title"] = "another title, the same facts"
    _write(tmp_path, "aab.json", faked)
    table = build_table([tmp_path])
    files = sorted(r.student.file for r in table.rows)
    assert files == ["aaa.json", "aab.json", "bob.json"]  # every file keeps its row
    by_file = {r.student.file: r for r in table.rows}
    for name in files:
        assert by_file[name].student.duplicates, name  # and each is flagged
    label = cells(by_file["bob.json"], "en")[0]
    assert "duplicate" in label and "aaa.json" in label
    assert "duplicate" in cells(by_file["bob.json"], "ko")[0] or "중복" in cells(by_file["bob.json"], "ko")[0]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_named_pipe_in_the_folder_or_named_is_refused_without_waiting(tmp_path, one_report):
    folder = tmp_path / "cls"
    _write(folder, "ok.json", one_report)
    os.mkfifo(folder / "pipe.json")
    code = ("import sys\nfrom wizard.core.classroom.roster import read_roster\n"
            "r = read_roster(sys.argv[1:])\n"
            "print(len(r.students), sorted((s.file, s.reason.text('en')) for s in r.skipped))\n")
    out = subprocess.run([sys.executable, "-c", code, str(folder), str(folder / "pipe.json")], cwd=REPO,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("1 ") and out.stdout.count("regular file") == 2, out.stdout


def test_a_folder_of_too_many_files_is_bounded(tmp_path, one_report, monkeypatch):
    from wizard.core.classroom import roster as R

    monkeypatch.setattr(R, "MAX_REPORTS", 3)
    for i in range(5):
        doc = copy.deepcopy(one_report)
        doc["facts"]["started_at"] = f"2026-12-01T10:0{i}:00+09:00"
        _write(tmp_path, f"s{i}.json", doc)
    roster = read_roster([tmp_path])
    assert len(roster.students) == 3 and len(roster.skipped) == 2
