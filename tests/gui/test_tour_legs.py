"""The tour's legs (tests/gui/tour_legs.py) as tests: the paths of a student's second pass, each in
the real window under a real X server, from its first page: the mirror fixed after it failed, the
Python chosen on the Recommendation page, a course with a mirror, closing after the report, and
the exported HTML on a PC whose only font is DejaVu.

Each leg runs in its own process, as the student starts the program; each takes about 15 s here
(small wheels named like the build, served from 127.0.0.1, installed into a real venv).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.gui.tour_legs import leg_stem
from tests.xvfb import start_xvfb

pytestmark = [pytest.mark.gui, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def display():
    with start_xvfb("1700x1100x24") as name:
        yield name


@pytest.fixture(scope="module")
def legs(display, tmp_path_factory):
    """Run a leg once (lazily): (returncode, record, outdir, output)."""
    out = tmp_path_factory.mktemp("tour legs")
    done: dict[tuple[str, str], tuple[int, dict, Path, str]] = {}

    def run(leg: str, lang: str = "ko"):
        if (leg, lang) not in done:
            env = {**os.environ, "DISPLAY": display, "QT_QPA_PLATFORM": "xcb", "GSW_TOUR_STEP_TIMEOUT": "120"}
            got = subprocess.run([sys.executable, "-m", "tests.gui.tour_legs", str(out), "--leg", leg, "--lang", lang],
                                 cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
            path = out / f"{leg_stem(leg, lang, '1024x700')}-tour.json"
            record = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
            done[(leg, lang)] = (got.returncode, record, out, (got.stdout + got.stderr)[-4000:])
        return done[(leg, lang)]
    return run


def passed(result) -> tuple[dict, Path]:
    code, record, out, output = result
    assert code == 0 and record.get("failure") is None, f"{record.get('failure')}\n{output}"
    for name in record["screenshots"]:
        assert (out / name).stat().st_size > 10_000, f"{name} looks empty"
    return record, out


def test_a_fixed_mirror_is_asked_again_and_a_failed_install_resumes_once_it_is_whole(legs):
    record, _out = passed(legs("mirror-fixed", "ko"))
    facts = record["facts"]
    assert record["pages"] == ["mirror-lacks-the-build", "mirror-fixed", "install-failed", "install-resumed"]
    assert "✖" in facts["broken_status"] and "torch" in facts["broken_status"]
    assert facts["asked_again"] and facts["first_install"] == "failed"
    # the mirror answered 404 for the file its page lists: the file is missing, the server was reached
    assert facts["failure_kind"] == "missing-file" and "연결하지 못" not in facts["failure_text"]
    assert facts["broken_file"] in facts["failure_text"] and "404" in facts["failure_text"]
    assert facts["resume_asked"] and facts["install_state"] == "done"
    assert facts["env_python"] and Path(facts["env_python"]).name.startswith("python")


def test_the_python_chosen_on_the_recommendation_page_is_the_one_the_environment_page_plans(legs):
    record, _out = passed(legs("chosen-python", "en"))
    facts = record["facts"]
    assert facts["chosen"] != facts["best_match"]  # a real choice, not what "best match" gives anyway
    assert facts["chosen"] in facts["recommend_says"] and facts["chosen"] in facts["environment_python"]
    assert "Recommendation page" not in facts["venv_note"]


def test_a_course_with_a_mirror_previews_its_extra_and_where_it_comes_from(legs):
    record, _out = passed(legs("course-mirror", "ko"))
    facts = record["facts"]
    assert "tiny-course-extra" in facts["status_missing"] and "✖" in facts["status_missing"]
    # only what is missing is named, and not as "pick a build this index has"
    assert "torch==" not in facts["status_missing"] and "torchvision" not in facts["status_missing"]
    assert "tiny-course-extra" in facts["what_planned"] and record["index_url"].rsplit("/whl", 1)[0] in facts["what_planned"]
    assert {"torch", "torchvision", "tiny-course-extra"} <= set(facts["planned_files"])
    # the extra came from the course's extras' source, a loopback "PyPI" (never pypi.org), and the
    # preview says so beside the mirror
    assert facts["pypi_asked"] and facts["pypi"].startswith("http://127.0.0.1:")
    assert facts["pypi"] in facts["what_planned"] and facts["extras_field_shown"]


@pytest.mark.parametrize("lang,closed_by", [("ko", "cancel"), ("en", "window-x")])
def test_closing_after_the_report_saves_the_run(legs, lang, closed_by):
    record, out = passed(legs("closed-after-report", lang))
    facts = record["facts"]
    assert facts["closed_by"] == closed_by
    assert facts["history_after"] == facts["history_before"] + 1
    assert (out / record["reports"]["html"]).read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_the_exported_html_draws_hangul_on_a_pc_with_dejavu_alone(legs):
    passed(legs("closed-after-report", "ko"))
    record, _out = passed(legs("html-no-font", "ko"))
    facts = record["facts"]
    assert not [f for f in facts["system_families"] if "CJK" in f or "KR" in f]
    assert facts["hangul"] > 50 and facts["dejavu_misses"] >= facts["hangul"]  # DejaVu alone shows boxes
    assert facts["embedded_misses"] == [] and "GSW Sans CJK KR" in facts["embedded"]
