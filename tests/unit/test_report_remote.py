"""Colab and cloud rows: a pasted `!nvidia-smi`, another machine's `report --json` or `doctor
--json` fills the Colab/cloud line and joins the benchmark comparison."""

from __future__ import annotations

import json

import pytest

from tests import report_sessions as rs
from tests.reference import reference_file
from wizard.app.report import build as build_report
from wizard.core.machine.doctor import detection_to_json
from wizard.core.report.as_json import dumps
from wizard.core.report.document import NOT_RUN, PASS
from wizard.core.report.remote import RemoteInputError, guess_smi_kind, machine_from_file, machine_from_text, split_kind
from wizard.core.report.text import fmt_seconds


def test_colab_paste_fills_the_colab_line():
    machine = machine_from_text(rs.colab_smi_text(), label="colab.txt")
    assert machine.kind == "colab" and machine.source == "nvidia-smi"
    assert (machine.driver_version, machine.cuda_version) == ("550.54.15", "12.4")
    assert machine.gpus == [{"name": "Tesla T4", "memory_total_mib": 15360, "compute_capability": None}]
    session = rs.full_session("en")
    session.remotes = [machine]
    report = build_report(session, lang="en", now=rs.NOW)
    colab = report.item("checklist", "colab")
    assert colab.status == PASS and colab.value.startswith("yes — Tesla T4 (15.0 GiB), driver 550.54.15, CUDA 12.4")
    assert report.item("checklist", "cloud").status == NOT_RUN
    table = report.section("benchmark").tables[0]
    assert [row[0] for row in table.rows] == ["This computer", "Colab · colab.txt"]
    assert table.rows[1][4:] == ["not run"] * 3  # a paste has no benchmark: said, not invented
    appendix = report.appendices[-1]
    assert appendix.text.startswith("!nvidia-smi") and "Colab" in appendix.title


def test_kind_from_the_caller_wins_and_a_plain_paste_from_a_server_is_cloud():
    a100 = rs.colab_smi_text().replace("!nvidia-smi\n", "").replace("Tesla T4         ", "NVIDIA A100-SXM4-40GB")
    assert guess_smi_kind(a100) == "cloud"
    assert machine_from_text(a100).kind == "cloud"
    assert machine_from_text(rs.colab_smi_text(), "cloud").kind == "cloud"
    assert split_kind("colab:/tmp/x.json") == ("colab", "/tmp/x.json")
    assert split_kind("CLOUD:out.txt") == ("cloud", "out.txt")
    assert split_kind("C:\\Users\\x.json") == (None, "C:\\Users\\x.json")
    with pytest.raises(ValueError):
        machine_from_text(rs.colab_smi_text(), "laptop")


def _remote_report_json(colab: bool) -> str:
    """What `gpu-setup-wizard report --json` prints on the other machine (here: the full session)."""
    session = rs.full_session("en")
    if colab:
        session.host.env["COLAB_RELEASE_TAG"] = "release-colab_20261120-060000_RC00"
    return dumps(build_report(session, lang="en", now=rs.NOW))


@pytest.mark.parametrize("colab,kind", [(True, "colab"), (False, "cloud")])
def test_report_json_of_another_machine(colab, kind):
    machine = machine_from_text(_remote_report_json(colab), label="remote.json")
    assert machine.kind == kind and machine.source == "report-json" and machine.label == "remote.json"
    medians = {e["device"]: e["median_s"] for e in rs.probe_events("bench_rtx3060_quick_linux.jsonl")
               if e.get("type") == "measurement" and e["id"] == "course_matmul"}
    assert machine.cpu_s == medians["cpu"] and machine.gpu_s == medians["cuda:0"]
    assert machine.raw_nvidia_smi and "Driver Version: 570.133.07" in machine.raw_nvidia_smi
    session = rs.no_gpu_session("en")
    session.remotes = [machine]
    report = build_report(session, lang="en", now=rs.NOW)
    assert report.item("checklist", kind).status == PASS
    rows = report.section("benchmark").tables[0].rows
    assert rows[1][4:6] == [fmt_seconds(medians["cpu"], "en"), fmt_seconds(medians["cuda:0"], "en")]
    assert rows[1][6] == f"{medians['cpu'] / medians['cuda:0']:.3g}×"
    assert rows[0][5] == "n/a"  # this PC ran the benchmark on the CPU only


def test_doctor_json_of_another_machine():
    doc = detection_to_json(rs.rtx3060_detection(), "en")
    machine = machine_from_text(json.dumps(doc), "cloud")
    assert machine.source == "doctor-json" and machine.driver_version == "570.133.07"
    assert machine.gpus[0]["compute_capability"] == "8.6" and machine.cpu_s is None


@pytest.mark.parametrize("text,fragment", [
    ("", "empty"),
    ("hello, this is not nvidia-smi\n", "Neither a report JSON"),
    ("{ broken json", "not valid JSON"),
    ('{"schema": "gpu-setup-wizard/report@9.0"}', "version 9.0"),
    ('{"schema": "something/else@1.0"}', "something/else"),
])
def test_what_is_not_ours_is_refused_with_a_reason(text, fragment):
    with pytest.raises(RemoteInputError) as err:
        machine_from_text(text)
    assert fragment in str(err.value)


def test_a_failure_text_is_a_machine_whose_driver_does_not_answer():
    text = ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest "
            "NVIDIA driver is installed and running.\n")
    machine = machine_from_text(text, "cloud")
    assert machine.nvidia_status == "driver-not-loaded" and machine.gpus == []


def test_files_saved_by_powershell_and_a_korean_console(tmp_path):
    utf16 = tmp_path / "colab 결과.txt"
    utf16.write_bytes(b"\xff\xfe" + rs.colab_smi_text().encode("utf-16-le"))
    assert machine_from_file(utf16).gpus[0]["name"] == "Tesla T4"
    cp949 = tmp_path / "cloud.txt"
    cp949.write_bytes(("# 클라우드 서버\n" + rs.colab_smi_text().replace("!nvidia-smi\n", "")).encode("cp949"))
    machine = machine_from_file(cp949, "cloud")
    assert machine.label == "cloud.txt" and machine.driver_version == "550.54.15"
    with pytest.raises(OSError):
        machine_from_file(tmp_path / "missing.txt")


def test_reference_capture_of_an_a100_server():
    """A real `nvidia-smi -q -x` of a cloud A100 (it lists one <gpu> of its four attached)."""
    path = reference_file("nvidia-smi", "04-linux-4x-a100-sxm4-535.54.03.q-x.xml")
    machine = machine_from_file(path)
    assert machine.kind == "cloud" and machine.driver_version == "535.54.03"
    assert len(machine.gpus) == path.read_text(encoding="utf-8").count("<gpu id=")
    assert machine.gpus[0]["name"] == "NVIDIA A100-SXM4-80GB" and machine.gpus[0]["memory_total_mib"] == 81920
    session = rs.no_gpu_session("en")
    session.remotes = [machine]
    line = build_report(session, lang="en", now=rs.NOW).item("checklist", "cloud")
    assert line.status == PASS and "A100-SXM4-80GB (80.0 GiB)" in line.value
