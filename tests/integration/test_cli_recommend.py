"""`gpu-setup-wizard recommend`: this machine, the what-if form, and --from-doctor."""

from __future__ import annotations

import json

import pytest

from tests import scenarios
from tests.cli_runner import run_cli
from wizard.core.machine.detect import detect
from wizard.core.machine.doctor import detection_to_json


def test_this_machine_json_contract():
    out = run_cli("recommend", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["schema"] == "gpu-setup-wizard/recommend@1.0"
    best = doc["candidates"][0]
    for key in ("torch", "variant", "index_url", "reasons", "warnings", "commands"):
        assert key in best
    assert set(best["commands"]) == {"pip", "uv", "conda"}
    assert best["index_url"].startswith("https://")
    for r in doc["rejected"]:
        assert {"torch", "variant", "reason"} <= set(r)


def test_a_machine_without_an_nvidia_gpu_gets_the_cpu_build(tmp_path):
    """A recorded machine (Ubuntu 22.04, no NVIDIA card), not whatever machine runs the tests."""
    detection = detect(scenarios.linux_host(), pythons=False, conda=False)
    path = tmp_path / "no gpu doctor.json"
    path.write_text(json.dumps(detection_to_json(detection, "en")), encoding="utf-8")
    out = run_cli("recommend", "--from-doctor", str(path), "--python", "3.11", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["machine"]["gpu_ccs"] == [] and doc["candidates"][0]["variant"] == "cpu"


def test_what_if_rtx5090_old_driver_needs_update():
    out = run_cli("recommend", "--os", "windows", "--arch", "x86_64", "--python", "3.11", "--driver", "566.36",
                  "--gpu-cc", "12.0", "--json")
    doc = json.loads(out.stdout)
    assert out.returncode == 0, out.stderr
    assert any(a["kind"] == "driver_update" and a["severity"] == "required" for a in doc["advice"])
    assert all(c["variant"] == "cpu" for c in doc["candidates"])  # no CUDA build runs sm_120 on this driver


def test_what_if_gtx1060_new_driver_avoids_cu128():
    doc = json.loads(run_cli("recommend", "--os", "linux", "--python", "3.12",
                             "--driver", "580.65.06", "--gpu-cc", "6.1",
                             "--json").stdout)
    best = doc["candidates"][0]
    assert best["variant"] == "cu126"
    assert any(r["variant"] in ("cu128", "cu130") and "sm_61" in r["reason"] for r in doc["rejected"])


def test_course_pin_torch_2_1():
    doc = json.loads(run_cli("recommend", "--os", "windows", "--python", "3.11",
                             "--driver", "566.36", "--gpu-cc", "8.6",
                             "--torch", "2.1", "--json").stdout)
    assert {c["torch"].rsplit(".", 1)[0] for c in doc["candidates"]} == {"2.1"}


def test_from_doctor_round_trip(tmp_path):
    detection = detect(scenarios.windows_rtx2080super(), pythons=False, conda=False)
    path = tmp_path / "학생 doctor.json"
    path.write_text(json.dumps(detection_to_json(detection, "en")), encoding="utf-8")
    out = run_cli("recommend", "--from-doctor", str(path), "--python", "3.11", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["machine"]["gpu_ccs"] == ["7.5"] and doc["machine"]["driver_version"] == "591.86"
    assert doc["candidates"][0]["variant"].startswith("cu")


@pytest.mark.parametrize("stdin,needle", [
    ('{"schema": "gpu-setup-wizard/doctor@2.0"}', "2.0"),
    ('{"schema": "gpu-setup-wizard/vram@1.0"}', "vram"),
    ("not json", "not valid JSON"),
])
def test_from_doctor_rejects_foreign_documents(stdin, needle):
    out = run_cli("recommend", "--from-doctor", "-", stdin=stdin)
    assert out.returncode == 2 and needle in out.stderr and "Traceback" not in out.stderr


def test_bad_what_if_input_is_a_message():
    out = run_cli("recommend", "--os", "linux", "--gpu-cc", "banana")
    assert out.returncode == 2 and "banana" in out.stderr and "Traceback" not in out.stderr


def test_text_in_korean():
    out = run_cli("recommend", "--os", "windows", "--python", "3.11",
                  "--driver", "566.36", "--gpu-cc", "8.6", lang="ko")
    assert out.returncode == 0 and "추천 PyTorch 빌드" in out.stdout and "--index-url" in out.stdout


def _doctor_of_smi_file(tmp_path, name: str, text: str):
    smi = tmp_path / name
    smi.write_text(text, encoding="utf-8")
    out = run_cli("doctor", "--nvidia-smi-file", str(smi), "--json")
    assert out.returncode == 0, out.stderr
    doc = tmp_path / (name + ".doctor.json")
    doc.write_text(out.stdout, encoding="utf-8")
    return doc


def test_a_doctor_of_a_saved_nvidia_smi_file_names_no_os_and_says_to_add_it(tmp_path):
    """`doctor --nvidia-smi-file` cannot know the OS of a Linux table: recommend --from-doctor
    says to add --os (in the student's language), and with --os it answers."""
    from tests.nvidia_smi_texts import TWO_GPU_470

    doc = _doctor_of_smi_file(tmp_path, "linux.txt", TWO_GPU_470)
    refused = run_cli("recommend", "--from-doctor", str(doc), lang="ko")
    assert refused.returncode == 2 and "--os" in refused.stderr and "운영체제" in refused.stderr
    assert "must be windows" not in refused.stderr
    answered = run_cli("recommend", "--from-doctor", str(doc), "--os", "linux", "--json")
    assert answered.returncode == 0, answered.stderr
    assert answered.json["machine"]["os"] == "linux"


def test_a_jetsons_saved_table_is_never_given_a_desktop_build(tmp_path):
    """Only a Jetson's nvidia-smi calls its GPU "Orin (nvgpu)": the recommendation is JetPack's,
    with no driver advice and no x86/server-ARM build from download.pytorch.org."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "data" / "jetson" / "orin_nano_jp62_nvidia_smi.txt").read_text(
        encoding="utf-8")
    doc = _doctor_of_smi_file(tmp_path, "orin.txt", text)
    out = run_cli("recommend", "--from-doctor", str(doc))
    assert out.returncode == 0, out.stderr
    assert "Jetson" in out.stdout and "aarch64" in out.stdout
    assert "download.pytorch.org/whl" not in out.stdout and "apt install nvidia-driver" not in out.stdout


@pytest.mark.parametrize("lang, unread", [("en", "compute capability not in the file"), ("ko", "연산 능력")])
def test_a_saved_q_x_log_names_its_gpus_not_no_gpu(tmp_path, lang, unread):
    """`nvidia-smi -q -x` gives no compute capability: the "For:" line names the A100s it read
    and says so, where it said "GPU: no NVIDIA GPU" beside their driver."""
    from tests.reference import reference_file

    text = reference_file("nvidia-smi", "04-linux-4x-a100-sxm4-535.54.03.q-x.xml").read_text(encoding="utf-8")
    doc = _doctor_of_smi_file(tmp_path, "a100.xml", text)
    out = run_cli("recommend", "--from-doctor", str(doc), "--os", "linux", lang=lang)
    assert out.returncode == 0, out.stderr
    machine = out.stdout.splitlines()[1]
    assert "NVIDIA A100-SXM4-80GB" in machine and unread in machine, machine
    assert "no NVIDIA GPU" not in out.stdout and "NVIDIA GPU 없음" not in out.stdout
