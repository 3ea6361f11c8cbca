"""``--course`` on recommend, install, verify and report as a student runs it (``python -m
wizard``, in-process): the command line and the app layer (the window's) agree."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.cli_runner import run_cli
from wizard.app import course as app_course
from wizard.app import report as app_report
from wizard.app.session import Session
from wizard.core.base.host import RealHost
from wizard.core.history.store import HistoryStore

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data" / "courses"
GOOD = str(DATA / "good.toml")
pytestmark = pytest.mark.slow
NO_UPDATE = {"GSW_COMPAT_UPDATE": "0"}  # the built-in compatibility table, never a fetched one


@pytest.mark.parametrize("command", [["recommend"], ["report"], ["verify", "--python", sys.executable],
                                     ["install", "--venv", "unused-env", "--plan-only"]])
@pytest.mark.parametrize("lang, word", [("en", "malformed"), ("ko", "잘못되었습니다")])
def test_every_command_refuses_a_malformed_profile_in_one_line(command, lang, word):
    done = run_cli(*command, "--course", str(DATA / "bad-lesson.toml"), "--lang", lang, env=NO_UPDATE, cwd=REPO)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and word in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (REPO / "unused-env").exists()


def test_recommend_takes_the_pin_and_says_so():
    done = run_cli("recommend", "--json", "--course", GOOD, "--os", "windows", "--driver", "591.86",
                   "--gpu-cc", "8.6", env=NO_UPDATE)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["candidates"][0]["torch"].startswith("2.13.") and doc["candidates"][0]["kind"] == "cuda"
    assert doc["wishes"]["torch"] == "2.13"
    assert any("2.13" in n for n in doc["course"]["notes"])
    old = run_cli("recommend", "--course", str(DATA / "old-pin.toml"), "--os", "linux", "--driver", "580.65.06",
                  "--gpu-cc", "12.0", "--lang", "ko", env=NO_UPDATE)
    assert old.returncode == 0, old.stderr
    assert "실행할 수 없습니다" in old.stdout and "sm_120" in old.stdout


def test_install_adds_the_extras_to_the_request(tmp_path):
    done = run_cli("install", "--venv", str(tmp_path / "env"), "--course", GOOD, "--plan-only",
                   "--index-url", "http://127.0.0.1:9/whl", env={**NO_UPDATE, "NO_PROXY": "*"})
    what = [line for line in done.stderr.splitlines() if "torch==2.13" in line]
    assert what and "packaging>=20" in what[0] and "surely-not-installed-pkg" in what[0], done.stderr
    assert any("2.13" in line and "Course" not in line for line in done.stderr.splitlines())


def test_verify_prints_a_row_per_extra_and_fails_on_a_missing_one():
    done = run_cli("verify", "--python", sys.executable, "--course", GOOD, env=NO_UPDATE)
    assert done.returncode == 1
    assert "✓ packaging>=20: imports" in done.stdout
    assert "✗ surely-not-installed-pkg: does not import" in done.stdout


def test_report_course_section_agrees_with_the_app_layer(tmp_path):
    env = {**NO_UPDATE, "GSW_DATA_DIR": str(tmp_path / "data")}
    done = run_cli("report", "--json", "--course", GOOD, env=env)
    assert done.returncode == 0, done.stderr
    cli_course = json.loads(done.stdout)["facts"]["course"]
    session = Session(lang="en")
    app_course.open_course(session, GOOD)  # what the System page's button does
    run = app_report.windowless_session(RealHost(), "en", store=HistoryStore(str(tmp_path / "data2")),
                                        course=session.course)
    window_course = app_report.build(run.session).facts["course"]
    assert cli_course["lessons"] == window_course["lessons"]
    assert cli_course["meets_minimum"] == window_course["meets_minimum"]
    md = run_cli("report", "--course", GOOD, "--lang", "ko", env=env).stdout
    assert "## 강의: 강의 NLP 실습" in md and "| 강의 | 이 컴퓨터 | 근거 |" in md

