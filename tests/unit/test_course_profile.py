"""Course profiles: real TOML files read, checked and refused; the pin, the extras and the lessons
through the app layer on recorded machines (detection runs for real over recorded command output)."""

from __future__ import annotations

import http.server
import json
import sys
import threading
from pathlib import Path

import pytest

from tests import scenarios
from wizard.app import course as app_course
from wizard.app import detect as app_detect
from wizard.app import install as app_install
from wizard.app import recommend as app_recommend
from wizard.app import report as app_report
from wizard.app.session import Session
from wizard.core.base.resources import load_json, resource_path
from wizard.core.course.lessons import CANNOT, COLAB, MEETS
from wizard.core.course.profile import CourseError, allowed_torches, load_course, parse_course
from wizard.core.recommend import compat

DATA = Path(__file__).resolve().parents[1] / "data" / "courses"
EXAMPLE = resource_path("courses", "example-course.toml")


def _session(host, lang="en", course=None):
    s = Session(host=host, lang=lang)
    app_detect.detect_machine(s, conda=False)
    if course:
        app_course.open_course(s, str(DATA / course))
    return s


def test_example_and_good_profiles_parse():
    ex = load_course(str(EXAMPLE))
    assert ex.name and ex.packages == ("transformers", "accelerate", "datasets")
    good = load_course(str(DATA / "good.toml"))
    assert good.name == "강의 NLP 실습" and good.min_vram_gb == 8
    assert [ls.id for ls in good.lessons][:2] == ["mnist_cnn", "bert_base_finetune"]
    assert allowed_torches(good, compat.load().releases) == ["2.13"]


def test_example_lessons_exist_or_say_what_they_need():
    known = {w["id"] for w in load_json("workloads.json")["workloads"]}
    for lesson in load_course(str(EXAMPLE)).lessons:
        assert lesson.id in known or lesson.vram_gb is not None or lesson.model


@pytest.mark.parametrize("name, key", [("malformed.toml", "course.not_toml"), ("not-ours.toml", "course.not_ours"),
                                       ("newer-major.toml", "course.not_ours"),
                                       ("bad-lesson.toml", "course.invalid"), ("bad-pin.toml", "course.invalid")])
def test_malformed_profiles_are_refused_in_one_line_each_language(name, key):
    with pytest.raises(CourseError) as info:
        load_course(str(DATA / name))
    assert info.value.message.key == key
    for lang in ("en", "ko"):
        text = info.value.text(lang)
        assert "\n" not in text and name in text
    assert "강의" in info.value.text("ko")


def test_bad_lesson_names_the_place():
    with pytest.raises(CourseError) as info:
        load_course(str(DATA / "bad-lesson.toml"))
    assert "lessons/0/vram_gb" in info.value.text("en")


def test_over_cap_and_missing_files_are_refused(tmp_path):
    big = tmp_path / "big.toml"
    big.write_text('schema = "gpu-setup-wizard/course@1.0"\n[course]\nname = "x"\n# ' + "a" * 70_000 + "\n")
    with pytest.raises(CourseError) as info:
        load_course(str(big))
    assert info.value.message.key == "course.too_big"
    with pytest.raises(CourseError) as info:
        load_course(str(tmp_path / "nope.toml"))
    assert info.value.message.key == "course.unreadable"
    if Path("/dev/zero").exists():
        with pytest.raises(CourseError) as info:
            load_course("/dev/zero")
        assert info.value.message.key == "course.unreadable"  # a device: refused before reading


def test_schema_file_agrees_with_jsonschema_where_installed():
    jsonschema = pytest.importorskip("jsonschema")
    schema = load_json("courses", "course.schema.json")
    tomllib = pytest.importorskip("tomllib" if sys.version_info >= (3, 11) else "tomli")

    jsonschema.validate(tomllib.loads(EXAMPLE.read_text(encoding="utf-8")), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(tomllib.loads((DATA / "bad-lesson.toml").read_text(encoding="utf-8")), schema)


@pytest.fixture()
def served(tmp_path):
    (tmp_path / "good.toml").write_bytes((DATA / "good.toml").read_bytes())
    (tmp_path / "big.toml").write_bytes(b"# " + b"a" * 200_000)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a, **k):
            super().__init__(*a, directory=str(tmp_path), **k)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_profile_from_an_address(served):
    assert load_course(served + "/good.toml").name == "강의 NLP 실습"
    with pytest.raises(CourseError) as info:
        load_course(served + "/big.toml")
    assert info.value.message.key == "course.too_big"
    with pytest.raises(CourseError) as info:
        load_course(served + "/missing.toml")
    assert info.value.message.key == "course.unreadable"
    with pytest.raises(CourseError) as info:
        load_course("http://example.com/course.toml")
    assert info.value.message.key == "course.not_https"


def test_recommendation_honours_the_pin():
    s = _session(scenarios.windows_rtx3060(), course="good.toml")
    choice = app_recommend.recommend_for(s)
    assert choice.recommendation.best.torch.startswith("2.13.")
    assert choice.recommendation.best.kind == "cuda"
    notes = app_course.pin_notes(s, choice.recommendation)
    assert any("2.13" in n and "recommending" in n for n in notes)
    # without the course the same machine gets a newer torch: the pin made the difference
    plain = _session(scenarios.windows_rtx3060())
    assert not app_recommend.recommend_for(plain).recommendation.best.torch.startswith("2.13.")


def test_pin_this_machine_cannot_run_is_explained(tmp_path):
    p = tmp_path / "ancient.toml"
    p.write_text('schema = "gpu-setup-wizard/course@1.0"\n[course]\nname = "Ancient"\ntorch = "==2.0.*"\n'
                 'python = "3.12"\n', encoding="utf-8")
    s = _session(scenarios.windows_rtx3060(), lang="ko")
    app_course.open_course(s, str(p))
    rec = app_recommend.recommend_for(s).recommendation
    assert not app_course.pinned_ok(s, rec)
    notes = app_course.pin_notes(s, rec)
    assert any("실행할 수 없습니다" in n and "3.12" in n for n in notes)


def test_range_prefers_a_build_that_uses_the_gpu():
    """A range with an old driver: the newest torch allowed would be CPU-only; an older one in the range runs."""
    from wizard.core.recommend.inputs import MachineFacts, Wishes
    from wizard.core.recommend.recommender import recommend

    s = Session(lang="en")
    app_course.open_course(s, str(EXAMPLE))  # torch >= 2.5
    facts = MachineFacts(os="linux", arch="x86_64", python="3.12", driver_version="535.104", cuda_driver="12.2",
                         gpu_ccs=["8.6"], gpu_names=["RTX 3060"])
    wishes = app_course.course_wishes(s, Wishes(), facts, recommend(facts, Wishes()).best)
    best = recommend(facts, wishes).best
    assert best.kind == "cuda" and app_course.pinned_ok(s, recommend(facts, wishes))


def test_install_request_gets_the_extras_and_pypi_after_the_torch_index_or_the_mirror():
    s = _session(scenarios.windows_rtx3060(), course="good.toml")
    cand = app_recommend.recommend_for(s).recommendation.best
    options = app_install.install_options(cand, app_install.InstallSettings())
    torch_index = options.index_url
    assert torch_index and torch_index.startswith("https://download.pytorch.org/")
    app_course.add_extras(s, options)
    assert options.requirements[-2:] == ["packaging>=20", "surely-not-installed-pkg"]
    assert options.index_url == torch_index and options.extras_index == "https://pypi.org/simple"
    assert app_install.sources_text(options) == f"{torch_index} + PyPI"  # asked in this order
    app_course.add_extras(s, options)  # once only
    assert options.requirements.count("packaging>=20") == 1
    # a mirror the student set is asked first (torch, and the extras when it has them); PyPI after it
    mirrored = app_install.install_options(cand, app_install.InstallSettings(mirror="http://127.0.0.1:9/whl"))
    mirror = mirrored.index_url
    app_course.add_extras(s, mirrored)
    assert mirrored.index_url == mirror and not mirrored.extra_index_urls
    assert mirrored.extras == ["packaging>=20", "surely-not-installed-pkg"]
    assert mirrored.extras_index == "https://pypi.org/simple"
    assert app_install.sources_text(mirrored) == f"{mirror} + PyPI"
    assert "PyPI" not in app_install.sources_text(mirrored, "ko").split(";")[0]
    # a PyPI mirror as the extras' source, and the mirror alone when the student says so
    settings = app_install.InstallSettings(mirror="http://127.0.0.1:9/whl", extras_index="http://127.0.0.1:8/simple")
    via = app_install.options_for(s, cand, settings)
    assert via.index_url == mirror and via.extras_index == "http://127.0.0.1:8/simple"
    assert app_install.sources_text(via) == f"{mirror} + http://127.0.0.1:8/simple"
    alone = app_install.options_for(s, cand, app_install.InstallSettings(mirror="http://127.0.0.1:9/whl",
                                                                         extras_index=mirror))
    assert alone.index_url == mirror and alone.extras_index is None and app_install.sources_text(alone) == mirror


def test_verify_checks_each_extra_in_the_target_interpreter():
    s = Session(lang="en")
    app_course.open_course(s, str(DATA / "good.toml"))
    rows = app_course.check_extras(s, sys.executable)
    assert [r.requirement for r in rows] == ["packaging>=20", "surely-not-installed-pkg"]
    assert rows[0].ok and rows[0].version and rows[0].version != "?"
    assert not rows[1].ok and "ModuleNotFoundError" in rows[1].error
    assert "pip install" in rows[1].text("en", sys.executable)
    gone = app_course.check_extras(s, "/nonexistent/python")
    assert all(not r.ok for r in gone)


def test_report_judges_each_lesson_for_this_machine():
    s = _session(scenarios.windows_rtx3060(), course="good.toml")
    verdicts = {v.lesson.id: v.verdict for v in app_course.judge(s).verdicts}
    assert verdicts == {"mnist_cnn": MEETS, "bert_base_finetune": MEETS, "own-small": MEETS, "own-colab": COLAB,
                        "own-huge": CANNOT, "unknown-without-need": CANNOT}
    no_gpu = _session(scenarios.linux_host(), course="good.toml")
    verdicts = {v.lesson.id: v.verdict for v in app_course.judge(no_gpu).verdicts}
    assert verdicts["own-small"] == COLAB and verdicts["own-huge"] == CANNOT and verdicts["mnist_cnn"] == MEETS
    report = app_report.build(s, lang="ko")
    section = next(sec for sec in report.sections if sec.id == "course")
    assert len(section.tables[0].rows) == 6 and "Colab 사용" in json.dumps(section.tables[0].rows, ensure_ascii=False)
    assert report.facts["course"]["lessons"][3]["verdict"] == COLAB


def test_colab_not_allowed_turns_colab_into_cannot(tmp_path):
    text = (DATA / "good.toml").read_text(encoding="utf-8").replace("allowed = true", "allowed = false")
    s = Session(lang="en")
    s.course = parse_course(text, "x.toml")
    verdicts = {v.lesson.id: v.verdict for v in app_course.judge(s).verdicts}
    assert COLAB not in verdicts.values()


def test_the_verify_pages_diagnosis_step_checks_the_extras_too():
    """The Verify page runs app_verify.diagnose on a worker thread: the course's rows come with it,
    and the report's Course section lists them."""
    from wizard.app import verify as app_verify
    from wizard.core.base.host import RealHost

    s = Session(host=RealHost(), lang="en")
    app_detect.detect_machine(s, pythons=False, conda=False)
    app_course.open_course(s, str(DATA / "good.toml"))
    report = app_verify.new_report(s, sys.executable)
    app_verify.diagnose(s, report)
    assert [c.ok for c in s.course_checks] == [True, False]
    section = next(sec for sec in app_report.build(s).sections if sec.id == "course")
    assert [i.status for i in section.items if i.id.startswith("course.extra.")] == ["pass", "fail"]
