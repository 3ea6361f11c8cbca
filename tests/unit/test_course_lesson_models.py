"""A course lesson named by its model (``model = "hf:gpt2"``): read, refused when it names
anything but a library model, judged by what measuring it gave, and measured for real by the
probe in an interpreter (here one without torch: the honest "not measured yet, because …")."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests import scenarios
from wizard.app import course as app_course
from wizard.app import course_models
from wizard.app import detect as app_detect
from wizard.app import report as app_report
from wizard.app.session import Session
from wizard.core.course.lessons import CANNOT, COLAB, MEETS, UNMEASURED, MeasuredNeed
from wizard.core.course.profile import CourseError, load_course, parse_course

DATA = Path(__file__).resolve().parents[1] / "data" / "courses"
GIB = 1024 ** 3


def _session(host, lang="en"):
    s = Session(host=host, lang=lang)
    app_detect.detect_machine(s, conda=False)
    app_course.open_course(s, str(DATA / "models.toml"))
    return s


def test_a_lesson_names_its_model_and_setting():
    course = load_course(str(DATA / "models.toml"))
    gpt2, resnet, vit, mnist = course.lessons
    assert (gpt2.model, gpt2.batch, gpt2.mode, gpt2.dtype, gpt2.input_shape) == ("hf:gpt2", 8, "train", "fp32", "128")
    assert (resnet.model, resnet.batch, resnet.input_shape) == ("torchvision:resnet50", 32, None)
    assert (vit.mode, vit.dtype, vit.vram_gb) == ("inference", "fp16", 6.0)
    assert mnist.model == "" and course.to_json()["lessons"][0]["model"] == "hf:gpt2"
    assert course_models.lessons_to_measure(Session(course=course)) == [gpt2, resnet, vit]


@pytest.mark.parametrize("line", [
    'model = "student.py:make"',  # a file: a course never makes the wizard run code
    'model = "/home/x/model.py:make"',
    'model = "torchvision:../../x"',
    'model = "hf:"',
    'model = "keras:resnet"',
    'model = "hf:gpt2"\nmode = "eval"',
    'model = "hf:gpt2"\ndtype = "fp8"',
    'model = "hf:gpt2"\nbatch = 0',
    'model = "hf:gpt2"\nbatch = "8"',
    'model = "hf:gpt2"\ninput = "3x224x224; rm -rf ~"',
])
def test_a_model_that_is_not_a_library_name_is_refused(line):
    text = f'schema = "gpu-setup-wizard/course@1.0"\n[course]\nname = "x"\n[[lessons]]\nid = "l1"\n{line}\n'
    with pytest.raises(CourseError) as info:
        parse_course(text, "x.toml")
    assert info.value.message.key == "course.invalid"
    assert "lessons" in info.value.text("en")


def test_judged_by_the_measured_need():
    s = _session(scenarios.windows_rtx3060())  # 12 GB
    s.course_measured = {"week3-gpt2": MeasuredNeed(3 * GIB, True), "week5-resnet": MeasuredNeed(int(12.5 * GIB), True),
                         "week6-vit": MeasuredNeed(40 * GIB, False, "meta: an op without a meta kernel")}
    judged = {v.lesson.id: v for v in app_course.judge(s).verdicts}
    assert [judged[i].verdict for i in ("week3-gpt2", "week5-resnet", "week6-vit", "mnist_cnn")] == [
        MEETS, COLAB, CANNOT, MEETS]
    assert judged["week3-gpt2"].need_bytes == 3 * GIB
    assert "measured from hf:gpt2 at batch 8" in judged["week3-gpt2"].detail
    assert "could not be measured; estimated" in judged["week6-vit"].detail  # a fallback says so


def test_not_measured_yet_is_never_cannot_for_want_of_a_figure():
    s = _session(scenarios.windows_rtx3060(), lang="ko")
    judged = {v.lesson.id: v for v in app_course.judge(s).verdicts}
    assert judged["week3-gpt2"].verdict == UNMEASURED and judged["week3-gpt2"].need_bytes is None
    assert "torch" in judged["week3-gpt2"].detail and "측정" in judged["week3-gpt2"].detail
    # the course's own figure stands in until the model is measured, said as such
    assert judged["week6-vit"].verdict == MEETS and judged["week6-vit"].need_bytes == 6 * GIB
    assert "측정 전까지" in judged["week6-vit"].detail
    report = app_report.build(s, lang="en")
    section = next(sec for sec in report.sections if sec.id == "course")
    assert section.tables[0].row_status[0] == "info" and "fail" not in section.tables[0].row_status
    assert report.facts["course"]["lessons"][0]["verdict"] == UNMEASURED


def test_measured_by_the_real_probe_in_an_interpreter_without_torch():
    """The wizard's own interpreter has no torch: the probe runs and says so; every model lesson
    gets the reason, and the report calls them "not measured yet", not "cannot"."""
    s = _session(scenarios.windows_rtx3060())
    measured = course_models.measure_lessons(s, sys.executable)
    assert set(measured) == {"week3-gpt2", "week5-resnet", "week6-vit"}
    assert all(m.need_bytes is None and not m.measured and m.reason for m in measured.values())
    course_models.record_measured(s, measured)
    verdicts = {v.lesson.id: v for v in app_course.judge(s).verdicts}
    assert verdicts["week3-gpt2"].verdict == UNMEASURED
    assert measured["week3-gpt2"].reason in verdicts["week3-gpt2"].detail
    assert verdicts["week6-vit"].verdict == MEETS  # its vram_gb still stands in
