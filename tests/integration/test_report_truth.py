"""Report truth: the exported report states what happened in the run, built through the real
application layer (the session the window and the command line fill).

* a mirror install (a real venv, real pip, the loopback index as the mirror) → the report names
  the mirror as the index used, and download.pytorch.org nowhere;
* the VRAM page opened and left untouched → no VRAM verdict (its default example is not a choice);
* a chosen build the Recommend page's picker passes is no warning in the report.

The faces' agreement on the lessons of a CPU-only machine: tests/integration/test_report_truth_faces.py.
"""

from __future__ import annotations

import json
import sys

import pytest

from tests import report_sessions as rs
from tests.integration.index_server import LoopbackIndex, make_wheel
from wizard.app import install as app_install
from wizard.app import recommend as app_recommend
from wizard.app import report as app_report
from wizard.app.session import Session
from wizard.core.base.host import RealHost
from wizard.core.report.render import render_markdown

PINNED = ("2.13.0", "cpu")


# --- a mirror install ---------------------------------------------------------------------------------
@pytest.mark.slow
def test_a_mirror_install_names_the_mirror_not_download_pytorch_org(student_home, tmp_path):
    wheels = tmp_path / "wheels"
    files = [make_wheel(wheels, "torch", f"{PINNED[0]}+cpu", requires=["typing-extensions>=4"]),
             make_wheel(wheels, "torchvision", "0.28.0+cpu", requires=[f"torch=={PINNED[0]}"]),
             make_wheel(wheels, "typing-extensions", "4.12.2", files={"typing_extensions.py": "X = 1\n"})]
    session = Session(host=RealHost(), lang="ko", detection=rs.no_gpu_detection())
    session.requested_build = {"torch": PINNED[0], "variant": PINNED[1]}
    app_recommend.recommend_for(session)
    assert "download.pytorch.org" in session.candidate.index_url  # what the recommendation alone says
    with LoopbackIndex() as index:
        index.add_wheels(files)
        mirror = index.base + "/whl"
        settings = app_install.InstallSettings(mirror=mirror)
        options = app_install.install_options(session.candidate, settings, cache_dir=str(student_home / "wheel cache"),
                                              state_dir=str(student_home / "install state"))
        target = app_install.new_venv_target(str(student_home / "envs" / "미러 환경"), sys.executable)
        session.install_request = app_install.InstallRequest(target, options)
        outcome = app_install.run_install(session, app_install.new_job(session, session.install_request))
    assert outcome.ok, outcome.summary.get("error")
    for lang in ("ko", "en"):
        report = app_report.build(session, lang=lang)
        md, doc = render_markdown(report), json.loads(app_report.export_json(session, lang=lang))
        used = report.item("install", "index")
        assert used.value == mirror + "/cpu"
        assert mirror + "/cpu" in md and "download.pytorch.org" not in md
        assert "download.pytorch.org" not in json.dumps(doc, ensure_ascii=False)
        # the command shown is what was installed, from the mirror; no "use the command below" without one
        blocks = {b.id: b for b in report.section("install").blocks}
        assert set(blocks) == {"command_ran"}
        assert blocks["command_ran"].text == (f"python -m pip install torch=={PINNED[0]} torchvision==0.28.0 "
                                              f"--index-url {mirror}/cpu")
        assert "아래 명령" not in md and "command below" not in md
        assert report.item("install", "installed").status == "pass"


def test_a_build_the_picker_says_passes_is_no_warning_in_the_report():
    """A chosen build other than the recommended one: 'meets every condition' on the picker,
    so no ⚠ in the report; one the rules reject keeps its warnings."""
    session = Session(host=RealHost(), lang="ko", detection=rs.no_gpu_detection())
    app_recommend.recommend_for(session)
    facts = session.recommendation.recommendation.facts
    assert session.candidate.torch != PINNED[0]
    assert app_recommend.build_problems(session, *PINNED) == []  # the picker's "모든 조건을 만족합니다"
    app_recommend.choose_build(session, *PINNED)
    chosen = app_report.build(session).item("install", "chosen")
    assert chosen.status == "info" and chosen.details[0] == "이 선택지는 모든 조건을 만족합니다."
    assert "⚠" not in render_markdown(app_report.build(session)).split("대신 선택한 빌드")[1].split("\n")[0]
    bad = app_recommend.candidate_for(facts, "2.13.0", "cu126")  # a CUDA build on a PC without a GPU
    assert bad is not None
    problems = app_recommend.build_problems(session, "2.13.0", "cu126")
    assert problems
    app_recommend.choose_build(session, "2.13.0", "cu126", bad)
    chosen = app_report.build(session).item("install", "chosen")
    assert chosen.status == "warn" and chosen.details[:len(problems)] == problems


# --- the VRAM page left untouched ---------------------------------------------------------------------
def test_an_estimate_nobody_chose_is_not_reported():
    from wizard.core.vram.estimate import estimate
    from wizard.core.vram.units import GIB

    s = rs.no_gpu_session("ko")
    s.vram = estimate("llama-2-7b", mode="inference", precision="fp16", vram_total_bytes=15 * GIB)
    assert s.vram.fits is False  # what the page's default example shows: a red "does not fit"
    report = app_report.build(s)
    section = report.section("vram")
    assert [i.id for i in section.items] == ["estimate"] and section.items[0].status == "not_run"
    assert all(i.status != "fail" for i in section.items)
    s.vram_chosen = True  # the student set it up: now it is theirs, and reported as it is
    assert app_report.build(s).item("vram", "fits").status == "fail"


def test_an_install_set_up_with_a_mirror_but_not_run_names_the_mirror(student_home):
    """The Environment page set up the install with a mirror and the report is made before it
    ran: the index and command it shows are the mirror's, not the recommendation's default."""
    session = Session(host=RealHost(), lang="en", detection=rs.no_gpu_detection())
    session.requested_build = {"torch": PINNED[0], "variant": PINNED[1]}
    app_recommend.recommend_for(session)
    mirror = "https://mirror.example.ac.kr/pytorch/whl"
    options = app_install.install_options(session.candidate, app_install.InstallSettings(mirror=mirror))
    target = app_install.new_venv_target(str(student_home / "envs" / "later"), sys.executable)
    session.install_request = app_install.InstallRequest(target, options)
    report = app_report.build(session)
    assert report.item("install", "index").value == mirror + "/cpu"
    command = next(b for b in report.section("install").blocks if b.id == "command").text
    assert command.endswith(f"--index-url {mirror}/cpu") and "download.pytorch.org" not in command
    assert report.item("install", "installed").status == "not_run"
