"""TensorFlow: which build uses the GPU on which OS (resources/tensorflow.json, each fact with its
source), the requirement a course's ``tensorflow`` becomes on this machine, the recommendation's
advice, and what Verify says when TensorFlow sees no GPU or will not grow its memory."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from wizard.core.base.resources import load_json
from wizard.core.recommend.inputs import MachineFacts, Wishes
from wizard.core.recommend.recommender import recommend
from wizard.core.recommend.tensorflow import tensorflow_route, wants_tensorflow, with_tensorflow_route
from wizard.core.verify.checklist import VerifyReport

PROBE_DATA = Path(__file__).resolve().parents[1] / "data" / "probe"

LINUX_3060 = MachineFacts("linux", "x86_64", "3.11", "570.133.07", "12.8", ["8.6"])
WINDOWS_3060 = MachineFacts("windows", "x86_64", "3.11", "572.61", "12.8", ["8.6"])
WSL_3060 = MachineFacts("linux", "x86_64", "3.11", "572.61", "12.8", ["8.6"], is_wsl=True)
MAC_M2 = MachineFacts("macos", "arm64", "3.12", non_nvidia=["apple"], os_version="14.5")
ORIN = MachineFacts("linux", "aarch64", "3.10", "540.4.0", "12.6", ["8.7"], jetson_l4t="36.4.3")
NO_GPU = MachineFacts("linux", "x86_64", "3.12")


@pytest.mark.parametrize("facts, route, reqs, gpu", [
    (LINUX_3060, "linux-nvidia", ("tensorflow[and-cuda]",), True),
    (WSL_3060, "wsl-nvidia", ("tensorflow[and-cuda]",), True),
    (WINDOWS_3060, "windows-nvidia", ("tensorflow",), False),
    (MAC_M2, "macos-arm64", ("tensorflow", "tensorflow-metal"), True),
    (ORIN, "jetson", (), True),
    (NO_GPU, "cpu", ("tensorflow",), False),
])
def test_routes(facts, route, reqs, gpu):
    r = tensorflow_route(facts)
    assert (r.route, r.requirements, r.gpu) == (route, reqs, gpu)
    assert r.message.text("en") != r.message.text("ko")


def test_a_courses_tensorflow_becomes_this_machines():
    course = ["transformers", "tensorflow>=2.16"]
    once = with_tensorflow_route(course, LINUX_3060)
    assert once == ["transformers", "tensorflow[and-cuda]>=2.16"]
    # asked twice (the command line adds the extras, then the install job adds them again)
    assert with_tensorflow_route(once + ["tensorflow>=2.16"], LINUX_3060) == once
    assert with_tensorflow_route(["tensorflow"], MAC_M2) == ["tensorflow", "tensorflow-metal"]
    assert with_tensorflow_route(["tensorflow"], WINDOWS_3060) == ["tensorflow"]
    assert with_tensorflow_route(["tensorflow"], ORIN) == ["tensorflow"]  # NVIDIA's page, not PyPI
    # the course's own choice stands
    assert with_tensorflow_route(["tensorflow-cpu", "tensorflow[and-cuda]==2.18.*"], LINUX_3060) == \
        ["tensorflow-cpu", "tensorflow[and-cuda]==2.18.*"]
    assert wants_tensorflow(["transformers", "tensorflow>=2.16"]) and not wants_tensorflow(["transformers"])


def test_the_recommendation_says_windows_needs_wsl2_for_tensorflow():
    rec = recommend(WINDOWS_3060, Wishes(tensorflow=True))
    tf = next(a for a in rec.advice if a.kind == "tensorflow")
    assert tf.severity == "recommended"
    assert "2.10" in tf.text("en") and "WSL2" in tf.text("en") and "WSL2" in tf.text("ko")
    assert all(a.kind != "tensorflow" for a in recommend(WINDOWS_3060).advice)  # not asked: not said


def test_the_recommendation_gives_linux_the_and_cuda_command():
    tf = next(a for a in recommend(LINUX_3060, Wishes(tensorflow=True)).advice if a.kind == "tensorflow")
    assert tf.commands == ['python -m pip install "tensorflow[and-cuda]"']


def test_a_jetson_is_pointed_at_nvidias_tensorflow():
    tf = next(a for a in recommend(ORIN, Wishes(tensorflow=True)).advice if a.kind == "tensorflow")
    assert tf.commands == [] and "docs.nvidia.com" in (tf.url or "")


# ------------------------------------------------------------------------------ Verify


def report_with_tf(tf_evidence: dict, sys_platform: str = "linux", machine: str = "x86_64",
                   name: str = "verify_rtx3060_cu128_linux.jsonl") -> VerifyReport:
    """A recorded probe run whose TensorFlow check is replaced by one with ``tf_evidence``."""
    evs = [json.loads(line) for line in (PROBE_DATA / name).read_text(encoding="utf-8").splitlines() if line.strip()]
    evs = copy.deepcopy(evs)
    for e in evs:
        if e.get("type") == "facts" and e.get("section") == "python":
            e["data"].update({"sys_platform": sys_platform, "machine": machine})
        if e.get("type") == "check" and e.get("id") == "tensorflow":
            e.update({"status": "pass", "detail": "tf_gpus", "evidence": tf_evidence,
                      "params": {"version": tf_evidence.get("version"), "count": len(tf_evidence.get("gpus") or [])}})
    return VerifyReport.from_events(evs, python_exe="python")


def test_a_mac_tensorflow_without_metal_is_told_to_install_it():
    r = report_with_tf({"version": "2.18.0", "gpus": []}, "darwin", "arm64", "verify_cpu_only_no_gpu_linux.jsonl")
    c = r.check("tensorflow.route")
    assert c is not None and (c.status, c.cause, c.fix) == ("warn", "tf_no_gpu_mac", "tf_metal")
    with_metal = report_with_tf({"version": "2.18.0", "gpus": ["/physical_device:GPU:0"]}, "darwin", "arm64",
                                "verify_cpu_only_no_gpu_linux.jsonl")
    assert with_metal.check("tensorflow.route").status == "pass"


def test_memory_growth_is_checked_where_tensorflow_sees_a_gpu():
    gpus = ["/physical_device:GPU:0"]
    ok = report_with_tf({"version": "2.18.0", "gpus": gpus, "memory_growth": True})
    assert ok.check("tensorflow.memory").status == "pass"
    assert ok.check("tensorflow.memory").detail == "tf_memory_growth"
    refused = report_with_tf({"version": "2.18.0", "gpus": gpus, "memory_growth": False,
                              "memory_growth_error": "Physical devices cannot be modified after being initialized"})
    c = refused.check("tensorflow.memory")
    assert (c.status, c.cause, c.fix) == ("warn", "tf_memory_growth_failed", "tf_memory_growth")
    # an older probe that did not report it: no check rather than a guess
    assert report_with_tf({"version": "2.18.0", "gpus": gpus}).check("tensorflow.memory") is None


def test_the_data_cites_a_source_for_every_route():
    doc = load_json("tensorflow.json")
    assert all("https://" in s for s in doc["sources"].values())
    for route in doc["routes"].values():
        assert route["source"] and set(route["source"]) <= set(doc["sources"])


def test_a_course_asking_for_tensorflow_installs_this_machines_tensorflow():
    """Through the application layer both faces use: the course's bare ``tensorflow`` is installed
    as ``tensorflow[and-cuda]`` on Linux with an NVIDIA GPU, and the recommendation says why."""
    from wizard.app.install import InstallSettings, options_for
    from wizard.app.session import Session
    from wizard.core.course.profile import parse_course
    from wizard.core.recommend.choose_python import PythonChoice

    course = parse_course('schema = "gpu-setup-wizard/course@1.0"\n[course]\nname = "TF 101"\n'
                          'packages = ["tensorflow>=2.16"]\n')
    rec = recommend(LINUX_3060, Wishes(tensorflow=True))
    session = Session(recommendation=PythonChoice("3.11", None, rec))
    session.course = course
    assert rec.best is not None
    options = options_for(session, rec.best, InstallSettings())
    assert "tensorflow[and-cuda]>=2.16" in options.requirements and "tensorflow>=2.16" not in options.requirements
    assert any(a.kind == "tensorflow" for a in rec.advice)


def test_the_recommendation_for_a_tensorflow_course_says_how():
    from wizard.app.recommend import compute
    from wizard.app.session import Session
    from wizard.core.course.profile import parse_course
    from wizard.core.machine.models import Detection, GpuInfo, NvidiaInfo, PythonInterpreter, SystemInfo

    det = Detection(SystemInfo(os="windows", arch="x86_64"),
                    NvidiaInfo(status="ok", driver_version="572.61", cuda_version="12.8",
                               gpus=[GpuInfo(0, name="NVIDIA GeForce RTX 3060", compute_capability="8.6")]))
    det.pythons = [PythonInterpreter("C:\\Python311\\python.exe", "3.11.9", "AMD64", 64, "CPython")]
    session = Session(detection=det)
    session.course = parse_course('schema = "gpu-setup-wizard/course@1.0"\n[course]\nname = "TF 101"\n'
                                  'packages = ["tensorflow"]\n')
    tf = next(a for a in compute(session).recommendation.advice if a.kind == "tensorflow")
    assert "WSL2" in tf.text("en") and "WSL2" in tf.text("ko")
