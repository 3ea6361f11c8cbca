"""The class view on a generated class (tests/class_reports.py: 36 students' reports made by the
real report builder, plus the junk of a shared folder): the table, the summary by failure
family with its fix, the skipped files and why, the HTML (escaped, self-contained) and the CSV
(BOM, Hangul, no formulas), the command's exit statuses and messages, and 1.0 reports."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from tests import class_reports as cr
from wizard.app.classroom import ClassViewError, build_table, make_class_view, render
from wizard.cli import main as cli_main
from wizard.core.base.i18n import t
from wizard.core.classroom.render import COLUMNS, cells, render_csv, render_html
from wizard.core.classroom.roster import label_from_name, read_roster
from wizard.core.classroom.table import NOT_VERIFIED, class_table, family_fix, tier_of

FAMILIES = {"cpu-only-torch-installed": 5, "driver-too-old-for-torch-cuda": 4, NOT_VERIFIED: 3,
            "no-kernel-image-sm-incompatible": 3}


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("class") / "reports"
    cr.write_class(out)
    return out


@pytest.fixture(scope="module")
def table(folder):
    return build_table([folder])


def test_every_student_is_a_row_and_the_junk_is_skipped_with_its_reason(table):
    labels = [r.student.label for r in table.rows]
    # the 36 students, the hostile file's report, and the two possible duplicates (kept and flagged:
    # a copy must never push the real report out of the view)
    assert len(labels) == len(cr.CLASS_PLAN) + 1 + 2
    assert labels == sorted(labels, key=str.casefold)
    dups = {r.student.file: r.student.duplicates for r in table.rows if r.student.duplicates}
    assert set(dups) == {"2026000_kim.json", "2026000_kim (1).json", "2026001_lee.json", "2026001_lee-again.json"}
    assert [d.key for d in dups["2026000_kim (1).json"]] == ["class_view.dup.same_content"]  # said once
    assert dict(dups["2026000_kim (1).json"][0].params)["others"] == "2026000_kim.json"
    assert [d.key for d in dups["2026001_lee-again.json"]] == ["class_view.dup.same_machine"]
    reasons = {s.file: s.reason for s in table.roster.skipped}
    for name in ("truncated.json", "doctor.json", "future.json", "wrong-types.json", "empty.json"):
        assert reasons[name].key == "class_view.skip.not_report", name
    assert "facts.gpus[0].vram_bytes" in reasons["wrong-types.json"].text("en")
    assert "2.0" in reasons["future.json"].text("en")
    assert len(reasons) == 5


def test_ready_and_help_are_counted_and_grouped_by_failure_family(table):
    plan = cr.CLASS_PLAN
    assert table.ready == plan.count("ok") + plan.count("no_gpu") + 1 + 2  # + the two flagged copies
    assert table.need_help == len(plan) - plan.count("ok") - plan.count("no_gpu")
    assert {g.family: len(g.labels) for g in table.groups} == FAMILIES
    assert [len(g.labels) for g in table.groups] == sorted((len(g.labels) for g in table.groups), reverse=True)
    cpu = next(g for g in table.groups if g.family == "cpu-only-torch-installed")
    # the fix announced is the wizard's own fix text, in the instructor's language
    assert family_fix(cpu, "ko") == t(cpu.finding.fix_key, "ko") and family_fix(cpu, "en") == t(cpu.finding.fix_key, "en")
    assert "--index-url" in family_fix(cpu, "en")
    assert family_fix(next(g for g in table.groups if g.family == NOT_VERIFIED), "en") == t("class_view.fix.not_verified", "en")
    ready_rows = [r for r in table.rows if r.ready]
    assert all(r.student.facts.verify and r.student.facts.verify.failed == 0 for r in ready_rows)


def test_rows_hold_the_machine_and_the_lessons_needing_colab(table):
    rows = {r.student.label: r for r in table.rows}
    no_gpu = rows["2026025_ko"] if not rows["2026025_ko"].student.facts.gpus else None
    for r in table.rows:
        f = r.student.facts
        if f.gpus:
            assert f.vram_bytes and f.driver and r.tier != "none"
        else:
            no_gpu = no_gpu or r
            assert r.tier == "none"
    assert no_gpu is not None
    # a PC without a GPU needs Colab for the GPU lessons (the one lesson judge said so in the report)
    assert "bert_base_finetune" in no_gpu.colab and "mnist_cnn" not in no_gpu.colab
    text = cells(no_gpu, "en")
    assert text[COLUMNS.index("gpu")] == "no NVIDIA GPU" and "BERT" in text[COLUMNS.index("colab")]
    assert tier_of(8 * 2**30 - 200 * 2**20) == "8-12"  # an "8 GB" card reporting a little less


def test_html_is_escaped_self_contained_and_sortable(table):
    page = render_html(table, "ko", "2026-12-01T10:00")
    assert cr.INJECTION not in page and "<img" not in page and "<script>alert" not in page
    assert "&lt;script&gt;alert(&quot;gpu&quot;)&lt;/script&gt;" in page  # the GPU name, shown as text
    assert "&lt;img src=x onerror=alert(2)&gt;" in page  # the file name as the label
    assert page.count("<script") == 1  # only the page's own sorting script
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)  # no external assets
    assert "<svg" in page and page.count('class="tier"') == 7
    assert 'addEventListener("click"' in page and 'class="sortable"' in page
    # redacted as exported: no student's user name or home folder reaches the page
    for s in cr.plan_class():
        assert f"\\Users\\{s.user}" not in page and f"/home/{s.user}" not in page
        if re.search(r"[가-힣]", s.user):
            assert s.user not in page
    assert "도움 필요" in page and t("class_view.dup.same_content", "ko", others="2026000_kim.json") in page


def test_csv_has_a_bom_hangul_and_no_formulas(table, folder):
    data = render(table, "csv", "ko")
    assert data.startswith(b"\xef\xbb\xbf")
    rows = list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))
    assert rows[0][0] == "학생" and len(rows) == len(table.rows) + 1
    assert all(len(r) == len(COLUMNS) for r in rows)
    hostile = next(r for r in rows if r[0].startswith("<img"))
    assert hostile[COLUMNS.index("gpu")].startswith("<script>")  # CSV holds text; a spreadsheet shows it as text
    table.rows[0].student.label = "=HYPERLINK(\"http://x\")"
    try:
        assert render_csv(table, "en").splitlines()[1].startswith("\"'=HYPERLINK")
    finally:
        table.rows[0].student.label = label_from_name(table.rows[0].student.file)


def test_labels_never_hold_a_path():
    assert label_from_name("C:\\Users\\민지\\Desktop\\report.json") == "report"
    assert label_from_name("/home/민지/kim.json") == "kim"
    assert label_from_name("a\x1b\nb.json") == "a b"
    assert len(label_from_name("x" * 300 + ".json")) == 60


def test_a_1_0_report_is_read_from_its_machines_and_sections(folder, tmp_path):
    doc = json.loads((folder / "2026020_john.json").read_text(encoding="utf-8"))  # driver too old
    doc["schema"] = "gpu-setup-wizard/report@1.0"
    del doc["facts"]
    (tmp_path / "old.json").write_text(json.dumps(doc), encoding="utf-8")
    table = build_table([tmp_path])
    (row,) = table.rows
    assert not row.student.from_facts and not row.ready
    f = row.student.facts
    assert f.driver and f.gpus and f.gpus[0].vram_bytes and f.verify is not None and f.verify.failed >= 1
    assert f.lessons and all(x.verdict in ("gpu", "cpu", "colab", "cloud", "cannot") for x in f.lessons)
    assert "(1.0" in cells(row, "en")[0]


def test_a_report_resaved_by_powershell_or_notepad_still_reads(folder, tmp_path):
    text = (folder / "2026003_choi.json").read_text(encoding="utf-8")
    (tmp_path / "ps.json").write_bytes(b"\xff\xfe" + text.encode("utf-16-le"))  # PowerShell 5's '>'
    (tmp_path / "np.json").write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))  # Notepad's BOM
    roster = read_roster([tmp_path / "ps.json", tmp_path / "np.json"])
    assert [s.label for s in roster.students] == ["ps", "np"]  # the same machine and time: both kept, flagged
    assert [d.key for d in roster.students[1].duplicates] == ["class_view.dup.same_machine"] and not roster.skipped
    assert roster.students[0].facts.gpus[0].name == "NVIDIA GeForce RTX 2070"


def test_a_file_over_the_cap_is_skipped_not_read(folder, tmp_path):
    big = tmp_path / "big.json"
    big.write_bytes((folder / "2026003_choi.json").read_bytes() + b" " * 5000)
    roster = read_roster([big], limit=4096)
    assert not roster.students and roster.skipped[0].reason.key == "report.remote.too_big"


def test_the_command_writes_html_and_csv_and_says_what_is_wrong(folder, tmp_path, capsys):
    out = tmp_path / "class.html"
    assert cli_main(["--lang", "en", "class", str(folder), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "Wrote" in err and "truncated.json: not a wizard report" in err
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert cli_main(["--lang", "ko", "class", str(folder / "2026003_choi.json"), "-o", str(tmp_path / "a.csv")]) == 0
    assert (tmp_path / "a.csv").read_bytes().startswith(b"\xef\xbb\xbf")
    capsys.readouterr()
    assert cli_main(["--lang", "ko", "class", str(folder), "-o", str(tmp_path / "a.txt")]) == 2
    assert "알 수 없는 출력 형식" in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert cli_main(["--lang", "en", "class", str(empty), "-o", str(tmp_path / "b.html")]) == 2
    assert "no student reports found" in capsys.readouterr().err
    assert cli_main(["--lang", "en", "class", str(folder), "-o", str(tmp_path / "no" / "dir" / "c.html")]) == 2
    assert "cannot write" in capsys.readouterr().err
    assert not (tmp_path / "no").exists()


def test_make_class_view_refuses_before_reading(tmp_path):
    with pytest.raises(ClassViewError) as exc:
        make_class_view([tmp_path / "missing"], tmp_path / "x.pdf", "en")
    assert exc.value.message.key == "class_view.cli.bad_extension"
    with pytest.raises(ClassViewError) as exc:
        make_class_view([tmp_path / "missing"], tmp_path / "x.html", "en")
    assert exc.value.message.key == "class_view.cli.no_inputs"
    assert exc.value.skipped[0].reason.key == "class_view.skip.missing"


def test_class_table_of_nothing_is_empty():
    from wizard.core.classroom.roster import Roster

    table = class_table(Roster())
    assert table.rows == [] and table.groups == [] and table.ready == 0
    assert "<svg" in render_html(table, "en", "now")


def test_the_command_runs_where_qt_is_not_installed(folder, tmp_path):
    """The TA's machine may have only the headless wizard: ``class`` imports no Qt (tests/no_qt blocks it)."""
    import os
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(repo / "tests" / "no_qt"), str(repo)]),
           "PYTHONUTF8": "1"}
    out = tmp_path / "반.csv"
    done = subprocess.run([sys.executable, "-m", "wizard", "--lang", "ko", "class", str(folder), "-o", str(out)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, encoding="utf-8", timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "PySide6" not in done.stderr and "저장" in done.stderr
    assert out.read_bytes().startswith(b"\xef\xbb\xbf")
