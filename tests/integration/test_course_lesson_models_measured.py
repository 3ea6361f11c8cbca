"""A course's lesson named by its model, measured for real in an environment with torch and
transformers: ``vram --course`` and Verify's diagnosis step (what the window runs on its worker)
give the lesson the same need that ``vram --measure`` gives the same model and setting."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli_runner import run_cli
from wizard.app import course as app_course
from wizard.app import verify as app_verify
from wizard.app.session import Session
from wizard.core.base.host import RealHost
from wizard.core.course.lessons import COLAB, MEETS, UNMEASURED

pytestmark = pytest.mark.slow

COURSE = str(Path(__file__).resolve().parents[1] / "data" / "courses" / "models.toml")


@pytest.fixture(scope="module")
def gpt2_need(transformers_python) -> int:
    """What ``vram --measure`` says hf:gpt2 needs at the lesson's setting (the CUDA context aside:
    the usable-memory rule takes that off the card, as for every lesson)."""
    res = run_cli("vram", "--measure", "hf:gpt2", "--batch", "8", "--input", "128", "--python",
                  str(transformers_python), "--json")
    assert res.exit_status == 0, res.stderr
    doc = res.json
    assert doc["basis"] == "measured"
    return int(doc["total_bytes"]) - int(doc["cuda_context_bytes"])


def test_vram_course_measures_the_lesson_models(transformers_python, gpt2_need):
    res = run_cli("vram", "--course", COURSE, "--python", str(transformers_python), "--vram-gb", "8", "--json")
    assert res.exit_status == 0, res.stderr
    lessons = {row["id"]: row for row in res.json["lessons"]}
    assert lessons["week3-gpt2"]["need_bytes"] == gpt2_need
    assert lessons["week3-gpt2"]["verdict"] == (MEETS if gpt2_need < 7 * 1024 ** 3 else COLAB)
    # torchvision is not in this environment: said, with the command that adds it, never "cannot"
    assert lessons["week5-resnet"]["verdict"] == UNMEASURED
    assert "pip install torchvision" in lessons["week5-resnet"]["detail"]
    text = run_cli("vram", "--course", COURSE, "--python", str(transformers_python), "--vram-gb", "8", lang="ko")
    assert text.exit_status == 0 and "hf:gpt2을(를) 배치 8로 측정" in text.stdout


def test_vram_course_without_python_says_what_to_add():
    res = run_cli("vram", "--course", COURSE, lang="ko")
    assert res.exit_status == 2 and "--python" in res.stderr and "Traceback" not in res.stderr


def test_verify_measures_the_course_models_in_the_verified_interpreter(transformers_python, gpt2_need):
    s = Session(host=RealHost(), lang="en")
    from wizard.app import detect as app_detect

    app_detect.detect_machine(s, pythons=False, conda=False)
    app_course.open_course(s, COURSE)
    report = app_verify.new_report(s, str(transformers_python))
    app_verify.diagnose(s, report)
    assert s.course_measured["week3-gpt2"].measured and s.course_measured["week3-gpt2"].need_bytes == gpt2_need
    judged = {v.lesson.id: v for v in app_course.judge(s).verdicts}
    assert judged["week3-gpt2"].need_bytes == gpt2_need and judged["week3-gpt2"].verdict != UNMEASURED
