"""`gpu-setup-wizard doctor` as a student runs it: the real command line (in-process), real output, real exit codes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.cli_runner import run_cli
from tests.reference import reference_file


def test_doctor_json_on_this_machine_has_the_contract():
    out = run_cli("doctor", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["schema"].startswith("gpu-setup-wizard/doctor@1.")
    nv = doc["nvidia"]
    assert {"driver_version", "cuda_version", "gpus"} <= set(nv)
    for f in doc["findings"]:
        assert {"id", "severity", "title", "fix"} <= set(f)
    assert doc["system"]["os"] in ("linux", "windows", "macos")
    assert doc["system"]["cpu_logical_cores"] >= 1
    if not nv["gpus"]:  # this build machine: no NVIDIA GPU
        assert "no-nvidia-driver" in [f["id"] for f in doc["findings"]]


def test_doctor_json_hides_home_and_host_unless_asked():
    home = str(Path.home())
    hidden = run_cli("doctor", "--json").stdout
    shown = run_cli("doctor", "--json", "--include-private").stdout
    if home in shown:  # something under home was found (a Python, the env folder)
        assert home + os.sep not in hidden
    assert json.loads(hidden)["system"]["hostname"] == "<host>"
    assert json.loads(shown)["system"]["hostname"] not in (None, "<host>")


def test_doctor_text_in_korean():
    out = run_cli("doctor", "--lang", "ko")
    assert out.returncode == 0, out.stderr
    assert "시스템 점검" in out.stdout and "점검 결과" in out.stdout


@pytest.mark.parametrize("name,driver,cuda,count,first", [
    ("01-windows-wddm-geforce-rtx2080super-591.86.capture.txt", "591.86", "13.1", 1, "NVIDIA GeForce RTX 2080 SUPER"),
    ("04-linux-4x-a100-sxm4-535.54.03.q-x.xml", "535.54.03", "12.2", 1, "NVIDIA A100-SXM4-80GB"),
    ("07-old-driver-418.43-gtx1660ti.q-x.xml", "418.43", "10.1", 1, "Graphics Device"),
])
def test_doctor_reads_saved_nvidia_smi_outputs(name, driver, cuda, count, first):
    path = reference_file("nvidia-smi", name)
    out = run_cli("doctor", "--json", "--nvidia-smi-file", str(path))
    assert out.returncode == 0, out.stderr
    nv = json.loads(out.stdout)["nvidia"]
    assert (nv["driver_version"], nv["cuda_version"], len(nv["gpus"])) == (driver, cuda, count)
    assert nv["gpus"][0]["name"] == first
    assert nv["gpus"][0]["memory_total_mib"] > 0


def test_old_driver_file_is_explained():
    path = reference_file("nvidia-smi", "07-old-driver-418.43-gtx1660ti.q-x.xml")
    doc = json.loads(run_cli("doctor", "--json", "--nvidia-smi-file", str(path)).stdout)
    assert "driver-predates-gpu" in [f["id"] for f in doc["findings"]]


COLAB_TABLE = """\
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  Tesla T4                       Off |   00000000:00:04.0 Off |                    0 |
| N/A   44C    P8              9W /   70W |       0MiB /  15360MiB |      0%      Default |
|                                         |                        |                  N/A |
+-----------------------------------------+------------------------+----------------------+
"""


def test_doctor_reads_a_pasted_table_from_stdin():
    out = run_cli("doctor", "--json", "--nvidia-smi-file", "-", stdin=COLAB_TABLE)
    assert out.returncode == 0, out.stderr
    nv = json.loads(out.stdout)["nvidia"]
    assert (nv["driver_version"], nv["cuda_version"]) == ("550.54.15", "12.4")
    assert nv["gpus"][0]["name"] == "Tesla T4" and nv["gpus"][0]["memory_total_mib"] == 15360


@pytest.mark.parametrize("text,status,finding", [
    ("Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 581.15\n",
     "version-mismatch", "nvml-driver-library-version-mismatch"),
    ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest "
     "NVIDIA driver is installed and running.\n", "driver-not-loaded", "nvidia-smi-cannot-communicate"),
    ("No devices were found\n", "no-devices", "nvidia-no-devices"),
    ("Failed to initialize NVML: Insufficient Permissions\n", "no-permission", "nvml-no-permission"),
    ("Unable to determine the device handle for GPU0000:01:00.0: GPU is lost.  Reboot the system to recover "
     "this GPU\n", "gpu-lost", "gpu-is-lost"),
])
def test_failure_outputs_become_findings(text, status, finding):
    out = run_cli("doctor", "--json", "--nvidia-smi-file", "-", stdin=text)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["nvidia"]["status"] == status
    assert doc["findings"][0]["id"] == finding
    assert doc["findings"][0]["fix"]


@pytest.mark.parametrize("stdin,needle", [
    ("hello, this is not nvidia-smi\n", "does not look like nvidia-smi output"),
    ("", "input is empty"),
    ("\x00\x01garbage\xff", "does not look like nvidia-smi output"),
])
def test_unreadable_input_is_a_clear_error_not_a_traceback(stdin, needle):
    out = run_cli("doctor", "--nvidia-smi-file", "-", stdin=stdin)
    assert out.returncode == 2
    assert needle in out.stderr and "Traceback" not in out.stderr


def test_missing_file_is_a_clear_error_in_korean(tmp_path):
    out = run_cli("doctor", "--nvidia-smi-file", str(tmp_path / "없는 파일.txt"), lang="ko")
    assert out.returncode == 2
    assert "읽을 수 없습니다" in out.stderr and "Traceback" not in out.stderr
