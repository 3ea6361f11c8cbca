"""The window and the command line give the same answers (through the one application layer) on the
paths of a student's second pass: the Python a course names, a course's extra with a mirror, a
mirror fixed after it failed, and a learning platform's download of per-student folders.

Real parts only: the real wizard offscreen, the command in this process (tests/cli_runner.py),
pip/uv resolutions against tests/integration/index_server.py on 127.0.0.1.
"""

from __future__ import annotations

import re
import shutil
import sys

import pytest

pytest.importorskip("pytestqt")
pytestmark = [pytest.mark.gui, pytest.mark.slow]  # real resolutions against a loopback index

from tests import class_reports as cr  # noqa: E402
from tests import scenarios  # noqa: E402
from tests.cli_runner import run_cli  # noqa: E402
from tests.gui.install_driver import make_session, open_pages, wait_plan  # noqa: E402
from tests.gui.wizard_driver import go_to, open_wizard  # noqa: E402
from tests.integration.index_server import LoopbackIndex, make_wheel  # noqa: E402
from wizard.ui.pages.base import PageId  # noqa: E402
from wizard.ui.pages.environment.common import MODE_NEW_VENV  # noqa: E402

MINOR = f"{sys.version_info[0]}.{sys.version_info[1]}"
COURSE = 'schema = "gpu-setup-wizard/course@1.0"\n\n[course]\nname = "{name}"\n{line}\n'


def course_file(folder, line: str, name: str = "딥러닝 기초"):
    path = folder / "course.toml"
    path.write_text(COURSE.format(name=name, line=line), encoding="utf-8")
    return path


def cli_plan(root, best, index_url: str, *extra: str):
    return run_cli("install", "--plan-only", "--venv", str(root / "envs" / "명령줄 환경"), "--python", sys.executable,
                   "--torch", best.torch, "--variant", "cpu", "--index-url", index_url, *extra)


# --- 2. the Python a course names: the same interpreter in both faces -------------------------------
def test_the_python_a_course_names_is_the_same_installed_interpreter_in_both_faces(qtbot, tmp_path):
    course = course_file(tmp_path, f'python = "{MINOR}"')
    host = scenarios.this_pc_without_gpu()
    window = open_wizard(qtbot, host)
    assert window.system_page.course_row.open(str(course))
    go_to(window, PageId.RECOMMEND)
    choice = window.recommend_page.choice
    assert choice is not None and choice.version == MINOR and choice.interpreter is not None
    assert choice.interpreter.path in window.recommend_page.choice_sub.text()
    out = run_cli("recommend", "--course", str(course), host=scenarios.this_pc_without_gpu())
    assert out.returncode == 0, out.stderr
    chosen = re.search(rf"Python {re.escape(MINOR)} chosen: (\S+)", out.stdout)
    assert chosen is not None, out.stdout
    assert chosen.group(1) == choice.interpreter.path


# --- 3. a course's extra with a mirror: both name it, both refuse, then both plan it ----------------
# The mirror lacks the course's extra, so both faces ask the extras' source for it: a loopback
# "PyPI" given to both (the window's setting, the command's --extras-index), never pypi.org.
def test_a_course_extra_with_a_mirror_is_refused_then_planned_alike(qtbot, build, wheels, root, tmp_path):
    from wizard.app import course as app_course

    course = course_file(tmp_path, 'packages = ["tiny-course-extra"]')
    with LoopbackIndex() as idx, LoopbackIndex() as pypi:
        idx.add_wheels(wheels.values())
        session = make_session(build)
        app_course.open_course(session, str(course))
        window, env_page, _page = open_pages(qtbot, session, root, idx, extras_index=pypi.simple_url)
        env_page.set_mode(MODE_NEW_VENV)
        env_page.venv_path.setText(str(root / "envs" / "과목 환경"))
        wait_plan(qtbot, env_page)
        assert env_page.plan_error is not None and "tiny-course-extra" in env_page.plan_status.text()
        assert asked(pypi, "tiny-course-extra"), pypi.log  # the extras' source, not pypi.org
        pypi.log.clear()
        out = cli_plan(root, build.best, idx.base + "/whl", "--course", str(course), "--extras-index", pypi.simple_url)
        assert out.returncode != 0 and "tiny-course-extra" in out.stderr + out.stdout, out.stdout + out.stderr
        assert asked(pypi, "tiny-course-extra"), pypi.log
        pypi.add_wheels([make_wheel(tmp_path / "extra", "tiny-course-extra", "1.0.0",
                                    files={"tiny_course_extra.py": "X = 1\n"})])
        env_page.mirror_edit.editingFinished.emit()  # the same addresses, asked again
        wait_plan(qtbot, env_page)
        assert env_page.plan_error is None, env_page.plan_status.text()
        window_files = {f.name for f in env_page.plan.files}
        window_what = env_page.what_label.text()
        out = cli_plan(root, build.best, idx.base + "/whl", "--course", str(course), "--extras-index", pypi.simple_url)
    assert out.returncode == 0, out.stdout + out.stderr
    said = out.stdout + out.stderr  # the plan is said on stderr, as the command's progress
    assert "tiny-course-extra" in window_files and "tiny-course-extra" in said
    assert all(name in said for name in window_files)
    assert pypi.simple_url in window_what and pypi.simple_url in said  # both say where the extra comes from


def asked(index: LoopbackIndex, project: str) -> bool:
    """Whether ``index`` was asked for ``project``'s page."""
    return any(project in str(entry.get("path")) for entry in index.log)


# --- 4. a mirror fixed after it failed: both ask it again ------------------------------------------
def test_a_mirror_fixed_after_it_failed_is_asked_again_by_both_faces(qtbot, build, wheels, root, tmp_path):
    with LoopbackIndex() as idx:
        idx.page_headers = {"Cache-Control": "max-age=600"}  # "keep this answer for ten minutes"
        idx.add_wheels([make_wheel(tmp_path / "old", "torch", "1.0.0+cpu")])
        window, env_page, _page = open_pages(qtbot, make_session(build), root, idx)
        env_page.set_mode(MODE_NEW_VENV)
        env_page.venv_path.setText(str(root / "envs" / "고친 미러"))
        wait_plan(qtbot, env_page)
        assert env_page.plan_error is not None
        broken = cli_plan(root, build.best, idx.base + "/whl")
        assert broken.returncode != 0
        idx.add_wheels(wheels.values())  # the mirror is fixed
        asked = len(idx.log)
        fixed = cli_plan(root, build.best, idx.base + "/whl")
        assert len(idx.log) > asked
        asked = len(idx.log)
        env_page.mirror_edit.editingFinished.emit()  # typed again: the same address
        wait_plan(qtbot, env_page)
        assert len(idx.log) > asked
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert env_page.plan_error is None, env_page.plan_status.text()
    assert build.best.torch in fixed.stdout + fixed.stderr and {f.name for f in env_page.plan.files} >= {"torch", "torchvision"}


# --- 5. a learning platform's download: the same students in both faces ------------------------------
def test_a_folder_of_per_student_subfolders_is_the_same_class_in_both_faces(qtbot, tmp_path, monkeypatch):
    from tests import report_sessions as rs
    from tests.gui.wizard_driver import open_report_page

    flat = cr.write_class(tmp_path / "flat", count=3, extras=False)
    download = tmp_path / "과제 제출물"
    for n, path in enumerate(flat):
        student = download / f"학생{n} 이름_{100 + n}_assignsubmission_file_"
        student.mkdir(parents=True)
        shutil.copy(path, student / "gpu-setup-report.json")
    out = run_cli("class", "--lang", "ko", "-o", str(tmp_path / "명령줄.html"), str(download))
    assert out.returncode == 0, out.stderr
    cli_html = (tmp_path / "명령줄.html").read_text(encoding="utf-8")
    monkeypatch.setenv("GSW_DATA_DIR", str(tmp_path / "data"))
    _window, page = open_report_page(qtbot, rs.full_session("ko"))
    button = page.class_button
    button.choose_folder = lambda: str(download)
    button.url_opener = lambda url: True
    with qtbot.waitSignal(button.finished, timeout=30000) as done:
        button.click()
    assert done.args[0], button.last_error
    window_html = open(done.args[0], encoding="utf-8").read()
    for n in range(3):
        assert f"학생{n} 이름" in cli_html and f"학생{n} 이름" in window_html
    assert cli_html.count("<tr class=") == window_html.count("<tr class=") == 3
