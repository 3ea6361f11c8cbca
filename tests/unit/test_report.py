"""The report model: every checklist line filled from what the session measured, in the lesson's
order; missing steps marked "not run", never invented; the verification checklist's pass/fail."""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest

from tests import report_sessions as rs
from wizard.app.report import build as build_report
from wizard.app.report import report_inputs
from wizard.app.session import Session
from wizard.core.base.i18n import t
from wizard.core.install.summary import InstallFailure
from wizard.core.machine.models import DisplayAdapter
from wizard.core.report.document import FAIL, INFO, NOT_RUN, PASS, SECTION_ORDER, SKIP, WARN
from wizard.core.report.render import render_markdown
from wizard.core.report.text import detect_platform_hint, fmt_duration, fmt_seconds

CHECKLIST_IDS = ["date", "local_gpu", "nvidia_smi", "pytorch_cuda", "gpu_memory", "colab", "cloud"]


def build(session, **kw):
    kw.setdefault("now", rs.NOW)
    return build_report(session, **kw)


def course_medians(name: str) -> dict[str, float]:
    return {("cpu" if e["device"] == "cpu" else "gpu"): e["median_s"] for e in rs.probe_events(name)
            if e.get("type") == "measurement" and e["id"] == "course_matmul"}


# --------------------------------------------------------------------------- the lesson's order
def test_sections_follow_the_lesson_then_the_details():
    report = build(rs.full_session("ko"))
    assert [s.id for s in report.sections] == list(SECTION_ORDER)
    assert [i.id for i in report.section("checklist").items] == CHECKLIST_IDS
    assert [i.id for i in report.section("benchmark").items] == ["cpu_time", "gpu_time", "speedup"]
    assert [i.id for i in report.section("judgment").items] == ["runs_here", "needs_remote"]
    assert [a.id for a in report.appendices][:2] == ["collect_env", "nvidia_smi"]


def test_korean_headings_and_labels_are_the_lessons():
    md = render_markdown(build(rs.full_session("ko"), lang="ko"))
    heads = [line for line in md.splitlines() if line.startswith("#")]
    assert heads[:3] == ["# GPU/Cloud 환경 점검 결과", "## 벤치마크(Benchmark)", "## 판단"]
    labels = ["날짜", "로컬 GPU (local GPU)", "nvidia-smi 결과", "PyTorch CUDA", "GPU 메모리 (GPU memory)",
              "Colab 실행 여부", "cloud GPU 사용 여부", "CPU 시간 (CPU time)", "GPU 시간 (GPU time)",
              "속도 향상 (speedup)", "이 환경으로 가능한 강의", "Colab/클라우드가 필요한 강의"]
    positions = [md.index(f"- {label}:") for label in labels]
    assert positions == sorted(positions), "the lesson's lines are out of order"


def test_korean_labels_are_korean_and_keep_the_lessons_term():
    """The lesson's checklist names five lines in English ("local GPU", "GPU memory", "CPU time",
    "GPU time", "speedup"): a Korean screen says them in Korean, with the lesson's term beside
    it so the student finds the line the lesson asks for."""
    from wizard.core.base.i18n import t

    for key, term in [("local_gpu", "local GPU"), ("gpu_memory", "GPU memory"), ("cpu_time", "CPU time"),
                      ("gpu_time", "GPU time"), ("speedup", "speedup")]:
        ko = t(f"report.line.{key}", "ko")
        assert f"({term})" in ko and any("\uac00" <= ch <= "\ud7a3" for ch in ko.split("(")[0]), ko


# --------------------------------------------------------------------------- filled from measurements
def test_every_checklist_line_is_filled_from_the_session():
    s = rs.full_session("en")
    report = build(s, lang="en")
    line = {i.id: i for i in report.section("checklist").items}
    d = s.detection
    assert line["date"].value == "2026-11-29 10:20"  # when the report was made (rs.NOW), not the run's start
    assert d.nvidia.gpus[0].name in line["local_gpu"].value and "12.0 GiB" in line["local_gpu"].value
    assert d.nvidia.driver_version in line["nvidia_smi"].value and d.nvidia.cuda_version in line["nvidia_smi"].value
    versions = s.verify.versions
    assert versions["torch"] in line["pytorch_cuda"].value and "is_available() = True" in line["pytorch_cuda"].value
    mem = s.verify.check("cuda.memory").evidence
    assert f"{mem['total_bytes'] / 2**30:.1f} GiB" in line["gpu_memory"].value
    assert line["colab"].status == NOT_RUN and line["cloud"].status == NOT_RUN


def test_benchmark_lines_are_the_course_matmul_medians():
    report = build(rs.full_session("en"), lang="en")
    medians = course_medians("bench_rtx3060_quick_linux.jsonl")
    bench = {i.id: i for i in report.section("benchmark").items}
    assert bench["cpu_time"].value.startswith(fmt_seconds(medians["cpu"], "en"))
    assert bench["gpu_time"].value.startswith(fmt_seconds(medians["gpu"], "en"))
    factor = medians["cpu"] / medians["gpu"]
    assert bench["speedup"].value == f"{factor:.3g}×"
    local = report.local
    assert (local.cpu_s, local.gpu_s, local.bench_size) == (medians["cpu"], medians["gpu"], 5000)


def test_judgment_lines_come_from_the_vram_workloads():
    from wizard.core.vram.workloads import judge_machine_lessons, report_lines

    s = rs.full_session("en")
    report = build(s, lang="en")
    gpu = s.detection.nvidia.gpus[0]
    lessons = judge_machine_lessons([(gpu.name, int(gpu.memory_total_mib * 2**20), int(gpu.memory_used_mib * 2**20))],
                                    s.detection.system.ram_total_bytes)
    here, remote = report_lines(lessons.judgments, "en")
    items = {i.id: i for i in report.section("judgment").items}
    assert items["runs_here"].details == here and items["needs_remote"].details == remote
    assert here and remote


def test_the_vram_pages_what_if_gpu_is_never_the_basis_of_the_lessons():
    """The VRAM page's choice (a typed-in 8 GiB, a Colab T4 preset) is a what-if: the lessons
    that run *here* are judged for this machine's own GPU, whatever the page shows."""
    from wizard.core.vram.estimate import estimate
    from wizard.core.vram.units import GIB

    s = rs.detection_only_session("en")
    s.vram = estimate("llama-2-7b", mode="inference", precision="fp16", vram_total_bytes=8 * GIB)
    s.vram_chosen = True
    report = build(s, lang="en")
    assert report.section("judgment").paragraphs == ["Judged for NVIDIA GeForce RTX 3060, 12.0 GiB."]


# --------------------------------------------------------------------------- the verification checklist
def test_verification_checklist_all_pass_on_a_working_gpu():
    report = build(rs.full_session("en"), lang="en")
    items = report.section("verify_checklist").items
    assert [i.id for i in items] == ["driver", "cuda", "pytorch", "gpu_tensor", "memory"]
    assert {i.id: i.status for i in items} == dict.fromkeys(["driver", "cuda", "pytorch", "gpu_tensor", "memory"],
                                                            PASS)


def _with_verify(name: str):
    from wizard.core.verify.checklist import VerifyReport

    s = rs.full_session("en")
    s.verify = VerifyReport.from_events(rs.probe_events(name), detection=s.detection, python_exe="python")
    return s


def test_no_kernel_image_fails_the_gpu_tensor_line_with_a_fix():
    report = build(_with_verify("verify_rtx5090_cu126_windows.jsonl"), lang="en")
    line = report.item("verify_checklist", "gpu_tensor")
    assert line.status == FAIL
    assert any(d.startswith("Fix:") for d in line.details)
    assert report.item("verify_checklist", "memory").status == SKIP
    assert any(i.status == FAIL for i in report.section("findings").items)


def test_driver_too_old_fails_cuda_and_the_driver_line():
    report = build(_with_verify("verify_driver_too_old_linux.jsonl"), lang="en")
    assert report.item("verify_checklist", "cuda").status == FAIL
    assert report.item("verify_checklist", "driver").status in (FAIL, WARN)
    assert report.item("checklist", "pytorch_cuda").status == FAIL


def test_cpu_only_build_on_a_gpu_machine_is_a_failure():
    report = build(_with_verify("verify_cpu_only_on_gpu_windows.jsonl"), lang="en")
    assert report.item("verify_checklist", "cuda").status == FAIL
    assert "CPU-only" in report.item("checklist", "pytorch_cuda").value


# --------------------------------------------------------------------------- not run, never invented
def test_nothing_but_detection_ran():
    report = build(rs.detection_only_session("en"), lang="en")
    md = render_markdown(report)
    assert report.item("checklist", "pytorch_cuda").status == NOT_RUN
    for item in report.section("benchmark").items:
        assert item.status == NOT_RUN and item.value.startswith("not run")
    for cid in ("cuda", "pytorch", "gpu_tensor", "memory"):
        assert report.item("verify_checklist", cid).status == NOT_RUN
    assert report.item("verify_checklist", "driver").status == PASS  # detection did run
    for sid in ("verification", "bench_details", "changes"):
        assert report.section(sid).status == NOT_RUN
    assert report.item("install", "recommended").status == NOT_RUN
    assert report.item("install", "installed").status == NOT_RUN
    assert report.appendix("collect_env").text is None and "not run" in report.appendix("collect_env").empty_note
    # the detected GPU's memory is a fact, the torch version would be an invention
    assert "12288 MiB" in report.item("checklist", "gpu_memory").value
    assert "torch 2." not in md and "speedup 1" not in md.lower()
    local = report.local
    assert local.torch_version is None and local.cpu_s is None and local.speedup is None


def test_a_session_where_nothing_ran_at_all():
    s = Session(host=rs._host(), lang="en", started_at=rs.STARTED)
    report = build(s, lang="en")
    for item in report.section("checklist").items:
        if item.id != "date":
            assert item.status == NOT_RUN, item
    assert report.section("judgment").status == NOT_RUN
    assert report.section("system").status == NOT_RUN
    assert report.appendix("nvidia_smi").text is None
    assert render_markdown(report)  # renders without a detection


def test_no_gpu_machine():
    s = rs.no_gpu_session("en")
    report = build(s, lang="en")
    line = {i.id: i for i in report.section("checklist").items}
    assert line["local_gpu"].value.startswith("no NVIDIA GPU") and "Intel Iris Xe" in line["local_gpu"].value
    assert line["nvidia_smi"].status == INFO  # no card: not a failure
    assert line["gpu_memory"].value.startswith("none")
    bench = {i.id: i for i in report.section("benchmark").items}
    assert bench["cpu_time"].value.startswith(fmt_seconds(course_medians("bench_cpu_only_windows.jsonl")["cpu"], "en"))
    assert bench["gpu_time"].status == SKIP and "CPU-only" in bench["gpu_time"].value
    assert bench["speedup"].status == SKIP
    judgment = {i.id: i for i in report.section("judgment").items}
    # the small lessons honestly run on this CPU; every GPU lesson needs Colab or the cloud
    assert [d.split(":")[0] for d in judgment["runs_here"].details] == [
        "MNIST digits with a small CNN (training)", "CIFAR-10 with ResNet-18 (training)"]
    assert all("runs on this CPU" in d for d in judgment["runs_here"].details)
    assert len(judgment["needs_remote"].details) >= 5
    checks = {i.id: i.status for i in report.section("verify_checklist").items}
    assert checks == {"driver": SKIP, "cuda": SKIP, "pytorch": PASS, "gpu_tensor": SKIP, "memory": SKIP}
    # the CPU build is the right one here: a fact, not a warning
    assert line["pytorch_cuda"].status == INFO and "CPU-only build" in line["pytorch_cuda"].value
    assert report.local.gpus == [] and report.local.speedup is None
    assert report.appendix("nvidia_smi").text is None


def test_an_nvidia_card_without_driver_is_a_failure_line():
    s = rs.no_gpu_session("en")
    s.detection.system.display_adapters = [DisplayAdapter("nvidia", "NVIDIA GeForce RTX 4060 Laptop GPU")]
    report = build(s, lang="en")
    assert report.item("checklist", "local_gpu").status == FAIL
    assert "RTX 4060" in report.item("checklist", "local_gpu").value
    assert report.item("verify_checklist", "driver").status == FAIL


@pytest.mark.parametrize("field, value", [("verify", object()), ("bench", 42),
                                          ("verify", {"checks": [{"id": "cuda.available", "status": "pass"}]}),
                                          ("install", {"ok": True})])
def test_a_result_of_another_type_is_refused_never_read_as_passed(field, value):
    """The report reads typed results only: a stray dict or object is the caller's bug, said at once."""
    s = rs.detection_only_session("en")
    setattr(s, field, value)
    with pytest.raises(TypeError, match=field):
        build(s, lang="en")


def test_a_step_that_did_not_run_is_not_run():
    report = build(rs.detection_only_session("en"), lang="en")
    assert report.item("checklist", "pytorch_cuda").status == NOT_RUN
    assert report.item("benchmark", "cpu_time").status == NOT_RUN


# --------------------------------------------------------------------------- install, findings, changes
def test_install_where_and_what():
    report = build(rs.full_session("en"), lang="en")
    assert report.item("install", "where").value == "~/envs/dl (new venv)"
    assert report.item("install", "installed").value == "torch 2.8.0+cu128, torchvision 0.23.0+cu128"
    assert report.item("install", "recommended").value.startswith("torch 2.8.0 (cu128)")
    assert "--index-url https://download.pytorch.org/whl/cu128" in report.section("install").blocks[0].text


def test_a_failed_install_says_so_with_the_message():
    s = rs.full_session("en")
    s.install = replace(s.install, ok=False, status="failed",
                        error=InstallFailure("download", "network", "The download stopped."))
    item = build(s, lang="en").item("install", "installed")
    assert item.status == FAIL and item.details == ["The download stopped."]


def test_detection_findings_with_fixes():
    s = rs.no_gpu_session("en")
    report = build(s, lang="en")
    items = report.section("findings").items
    ids = [i.id for i in items]
    for f in s.detection.findings:
        assert f.id in ids
        item = items[ids.index(f.id)]
        assert item.value == f.cause("en") and item.details == [f"Fix: {f.fix('en')}"]


def test_the_verify_pages_diagnosis_replaces_the_detection_findings():
    from wizard.core.diagnosis.facts import TorchFacts
    from wizard.core.diagnosis.rules import diagnose

    s = _with_verify("verify_rtx5090_cu126_windows.jsonl")
    found = diagnose(s.detection, TorchFacts.from_probe_events(s.verify.events))
    assert found, "the recorded 5090 run should give a diagnosis"
    s.diagnosis = found
    items = build(s, lang="en").section("findings").items
    for f in found:
        item = next(i for i in items if i.id == f.id)
        assert item.value == f.cause("en") and item.details == [f"Fix: {f.fix('en')}"]


def test_changes_since_the_last_run():
    s = rs.full_session("en")
    report = build(s, lang="en")
    texts = [i.value for i in report.section("changes").items]
    assert texts == [c.text("en") for c in s.changes.changes]
    assert any("550.120" in x and "570.133.07" in x for x in texts)
    assert "2026-11-17 21:30" in report.section("changes").paragraphs[0]
    s.changes, s.changes_checked = None, True
    assert build(s, lang="en").section("changes").paragraphs == [t("report.changes.nothing", "en")]


def test_language_follows_the_argument():
    s = rs.full_session("en")
    ko = build(s, lang="ko")
    assert ko.title == "GPU/Cloud 환경 점검 결과" and ko.lang == "ko"
    assert build(s, lang="en").title == "GPU/Cloud environment check results"


# --------------------------------------------------------------------------- small pieces
@pytest.mark.parametrize("seconds,text", [(0.4180602006688963, "0.4181 s"), (1.1982564717016846, "1.198 s"),
                                          (0.0257201646090535, "0.02572 s"), (2.3e-05, "23 µs")])
def test_seconds(seconds, text):
    assert fmt_seconds(seconds, "en") == text


@pytest.mark.parametrize("seconds,text", [(1.1982564717016846, "1.198 s"), (0.0257201646090535, "25.72 ms"),
                                          (0.000106, "106 µs")])
def test_durations(seconds, text):
    assert fmt_duration(seconds, "en") == text


def test_colab_is_recognised_from_its_environment():
    assert detect_platform_hint({"COLAB_RELEASE_TAG": "release-colab_20261120-060000_RC00"}) == "colab"
    assert detect_platform_hint({"HOME": "/root"}) is None
    s = rs.detection_only_session("en")
    s.host.env["COLAB_GPU"] = "1"
    assert build(s, lang="en").local.platform_hint == "colab"


def test_building_does_not_change_the_session():
    s = rs.full_session("en")
    before = copy.deepcopy(s.install)
    build(s, lang="en")
    build(s, lang="en", include_private=True)
    assert s.install == before and s.remotes == []


# ------------------------------------------------------------------- explicit inputs, no session
def test_the_builder_takes_explicit_typed_inputs():
    """The report stage reads a ReportInputs, not the application's session: the same facts give
    the same report either way, and a bare ReportInputs is a report of nothing run."""
    from wizard.core.report.build import build_report as core_build
    from wizard.core.report.document import report_to_dict
    from wizard.core.report.inputs import ReportInputs

    s = rs.full_session("en")
    inputs = report_inputs(s)
    assert isinstance(inputs, ReportInputs) and inputs.changes_checked and inputs.verify is s.verify
    assert report_to_dict(core_build(inputs, lang="en", now=rs.NOW)) == report_to_dict(build(s, lang="en"))
    bare = core_build(ReportInputs(started_at=rs.STARTED, lang="en"), include_private=True, now=rs.NOW)
    assert {sec.id for sec in bare.sections if sec.status == NOT_RUN} >= {"benchmark", "judgment", "system",
                                                                           "changes"}
    assert bare.item("checklist", "date").value == "2026-11-29 10:20"


def test_the_checklist_date_is_when_the_report_is_made_as_its_footer_says():
    """A window left open overnight: the run started on the 29th, the report is made on the 30th."""
    import datetime as _dt

    from wizard.core.report.build import build_report as core_build
    from wizard.core.report.inputs import ReportInputs

    later = rs.NOW + _dt.timedelta(days=1, hours=2)
    report = core_build(ReportInputs(started_at=rs.STARTED, lang="en"), include_private=True, now=later)
    assert report.item("checklist", "date").value == "2026-11-30 12:20"
    assert report.generated_at.startswith("2026-11-30T12:20")


def test_korean_report_says_its_codes_in_korean():
    """No internal code on a Korean report: the environment's kind, the benchmark's suite and a CPU
    build are words ("(new-venv)", "측정 범위: quick" and "(없음 (CPU 전용 빌드))" were shown)."""
    from wizard.core.verify.checklist import VerifyReport

    report = build(rs.full_session("ko"), lang="ko")
    assert report.item("install", "where").value.endswith("(새 venv)")
    assert report.item("bench_details", "suite").value == "빠르게"
    s = rs.no_gpu_session("ko")
    s.install = rs.full_session("ko").install
    s.verify = VerifyReport.from_events(rs.probe_events("verify_cpu_only_no_gpu_linux.jsonl"),
                                        detection=s.detection, python_exe="/envs/dl/bin/python")
    build_line = build(s, lang="ko").item("install", "build").value
    assert build_line.endswith("(CPU 전용 빌드)") and "없음" not in build_line
