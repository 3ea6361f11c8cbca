"""Detection findings from constructed detections: one per failure class and situation."""

from __future__ import annotations

import pytest

from tests import scenarios
from tests.recorded_host import RecordedHost
from wizard.core.base.host import CommandResult
from wizard.core.machine.findings import detection_findings
from wizard.core.machine.models import (
    STATUS_OK,
    Detection,
    DisplayAdapter,
    GpuInfo,
    NvidiaInfo,
    SourceResult,
    SystemInfo,
)
from wizard.core.machine.nvidia import detect_nvidia, find_nvidia_smi, merge


def _detection(nv: NvidiaInfo, os_name: str = "linux", adapters=(), arch: str = "x86_64") -> Detection:
    return Detection(system=SystemInfo(os=os_name, arch=arch, display_adapters=list(adapters)), nvidia=nv)


def ids(d: Detection) -> list[str]:
    return [f.id for f in detection_findings(d)]


def test_nvidia_card_without_driver_is_an_error_naming_the_card():
    d = _detection(NvidiaInfo(status="no-driver"),
                   adapters=[DisplayAdapter("nvidia", "NVIDIA GeForce RTX 4060 Laptop GPU", "10de:28e0")])
    (f,) = detection_findings(d)
    assert (f.id, f.severity, f.variant) == ("no-nvidia-driver", "error", None)
    assert "RTX 4060" in f.cause("en")


@pytest.mark.parametrize("vendor,name,needle", [
    ("amd", "AMD Radeon RX 7900 XTX", "ROCm"),
    ("intel", "Intel(R) Arc(TM) A770 Graphics", "XPU"),
])
def test_non_nvidia_gpu_says_what_the_options_are(vendor, name, needle):
    d = _detection(NvidiaInfo(status="no-driver"), adapters=[DisplayAdapter(vendor, name)])
    found = detection_findings(d)
    assert [f.id for f in found] == ["no-nvidia-driver", "non-nvidia-gpu"]
    assert found[0].severity == "info" and name in found[0].cause("en")
    assert needle in found[1].fix("en") and needle in found[1].fix("ko")


@pytest.mark.parametrize("arch,needle", [("arm64", "mps"), ("x86_64", "2.2")])
def test_macos_gets_mps_or_cpu_advice(arch, needle):
    (f,) = detection_findings(_detection(NvidiaInfo(status="no-driver"), "macos",
                                         [DisplayAdapter("apple", "Apple M2")], arch))
    assert f.id == "macos-no-cuda" and needle in f.cause("en")


def test_igpu_next_to_working_nvidia_is_not_news():
    nv = NvidiaInfo(status=STATUS_OK, gpus=[GpuInfo(0, name="RTX 4070")],
                    sources=[SourceResult("nvml"), SourceResult("nvidia-smi csv")])
    assert ids(_detection(nv, adapters=[DisplayAdapter("intel", "Intel UHD 770")])) == []


def test_smi_hang_is_a_timeout_finding():
    smi = "/usr/bin/nvidia-smi"
    host = scenarios.linux_host(on_path={"nvidia-smi": smi}, files={smi: ""},
                                nvml_module=scenarios.fake_nvml.FakeNvml(scenarios.fake_nvml.a100_mig_linux()))
    host.commands[RecordedHost.key_of(scenarios.nvidia_smi.query_argv(smi))] = CommandResult([], None, timed_out=True)
    info = detect_nvidia(host)
    assert info.status == STATUS_OK  # NVML answered
    found = detection_findings(_detection(info))
    assert [(f.id, f.severity) for f in found] == [("nvidia-timeout", "warning")]
    assert "nvidia-smi" in found[0].cause("en")


def test_both_sources_hang():
    nv = merge(SourceResult("nvml", "timeout", raw_error="nvml did not answer"),
               SourceResult("nvidia-smi csv", "timeout", raw_error="nvidia-smi did not answer"))
    (f,) = detection_findings(_detection(nv))
    assert (f.id, f.severity) == ("nvidia-timeout", "error")


def test_most_specific_failure_wins_when_both_fail():
    nv = merge(SourceResult("nvml", "version-mismatch", raw_error="NVMLError_LibRmVersionMismatch"),
               SourceResult("nvidia-smi csv", "error", raw_error="exit 18"))
    assert nv.status == "version-mismatch"


def test_unknown_error_quotes_the_raw_text():
    nv = merge(SourceResult("nvml", "error", raw_error="NVMLError_Unknown: Unknown Error"), None)
    (f,) = detection_findings(_detection(nv))
    assert f.id == "nvidia-error" and "Unknown Error" in f.cause("ko")


def test_wrong_pynvml_package():
    host = scenarios.windows_rtx2080super(nvml_module=scenarios.fake_nvml.gpuopenanalytics_layout())
    info = detect_nvidia(host)
    assert info.status == STATUS_OK
    assert "pynvml-package-conflict" in ids(_detection(info, "windows"))


def test_wsl_finds_the_projected_nvidia_smi():
    wsl_smi = "/usr/lib/wsl/lib/nvidia-smi"
    host = RecordedHost(os_name="linux", files={wsl_smi: ""})
    assert find_nvidia_smi(host) == (wsl_smi, False)


def test_windows_legacy_nvsmi_folder():
    legacy = "C:\\Program Files\\NVIDIA Corporation\\NVSMI\\nvidia-smi.exe"
    host = RecordedHost(os_name="windows", files={legacy: ""},
                        env={"SystemRoot": "C:\\Windows", "ProgramFiles": "C:\\Program Files"})
    assert find_nvidia_smi(host) == (legacy, False)


def test_findings_follow_language_switch():
    f = detection_findings(_detection(NvidiaInfo(status="no-driver"),
                                      adapters=[DisplayAdapter("amd", "Radeon 780M")]))[0]
    assert "NVIDIA" in f.title("en") and "NVIDIA" in f.title("ko") and f.title("en") != f.title("ko")
    assert "Radeon 780M" in f.cause("ko")
