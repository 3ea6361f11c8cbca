"""The class view reads a learning platform's download: one subfolder per student, each with a
report of the same file name. ("no student reports found in class" was the answer.)"""

from __future__ import annotations

import os
import shutil

from tests import class_reports as cr
from wizard.core.classroom.roster import MAX_DEPTH, read_roster


def _lms_download(tmp_path, count=4):
    flat = tmp_path / "flat"
    files = cr.write_class(flat, count=count, extras=False)
    download = tmp_path / "과제 제출물"
    for n, path in enumerate(files):
        student = download / f"학생{n} 이름_{100 + n}_assignsubmission_file_"
        student.mkdir(parents=True)
        shutil.copy(path, student / "gpu-setup-report.json")
    return download


def test_one_subfolder_per_student_is_one_row_each_named_for_the_folder(tmp_path):
    roster = read_roster([_lms_download(tmp_path)])
    assert [s.label for s in roster.students] == [f"학생{n} 이름" for n in range(4)]
    assert roster.students[0].file == "학생0 이름_100_assignsubmission_file_/gpu-setup-report.json"
    assert roster.skipped == []


def test_a_linked_folder_is_not_followed_and_the_depth_is_bounded(tmp_path):
    download = _lms_download(tmp_path, count=2)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    shutil.copy(next(download.rglob("*.json")), outside / "someone-else.json")
    os.symlink(outside, download / "link")
    deep = download
    for n in range(MAX_DEPTH + 1):
        deep = deep / f"level{n}"
    deep.mkdir(parents=True)
    shutil.copy(next(download.rglob("*.json")), deep / "too-deep.json")
    roster = read_roster([download])
    assert len(roster.students) == 2
    assert not any("someone-else" in s.file or "too-deep" in s.file for s in roster.students)


def test_files_named_directly_keep_their_own_names(tmp_path):
    files = cr.write_class(tmp_path / "flat", count=2, extras=False)
    roster = read_roster(files)
    assert [s.label for s in roster.students] == [p.stem for p in files]


def test_the_class_page_carries_the_shipped_fonts_first(tmp_path):
    """The class view's HTML is opened on the instructor's PC, which may have no Korean font."""
    from wizard.app.classroom import build_table
    from wizard.core.base.resources import resource_path
    from wizard.core.classroom.render import render_html

    page = render_html(build_table([_lms_download(tmp_path, count=2)]), "ko", "2026-12-01T10:00")
    assert "@font-face" in page and 'body{font-family:"GSW Sans CJK KR","GSW Symbols",system-ui' in page
    import base64
    import re

    data = re.search(r'font-family: "GSW Sans CJK KR";[^}]*base64,([A-Za-z0-9+/=]+)', page).group(1)
    assert base64.b64decode(data) == resource_path("fonts", "GSWSansCJKKR-Regular.otf").read_bytes()
