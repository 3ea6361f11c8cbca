"""Detection end to end on whole recorded machines: NVML + nvidia-smi merged, findings raised."""

from __future__ import annotations

import pytest

from tests import scenarios
from wizard.core.machine.detect import detect
from wizard.core.machine.models import STATUS_NO_DRIVER, STATUS_OK, STATUS_VERSION_MISMATCH


def _ids(detection):
    return [f.id for f in detection.findings]


def test_windows_geforce_merged_from_both_sources():
    d = detect(scenarios.windows_rtx2080super(), pythons=False, conda=False)
    nv = d.nvidia
    assert nv.status == STATUS_OK
    assert (nv.driver_version, nv.cuda_version) == ("591.86", "13.1")
    assert [s.status for s in nv.sources] == [STATUS_OK, STATUS_OK]
    gpu = nv.gpus[0]
    assert gpu.name == "NVIDIA GeForce RTX 2080 SUPER"
    assert gpu.compute_capability == "7.5"
    assert gpu.memory_total_mib == 8192
    assert gpu.driver_model == "WDDM"
    assert gpu.sources["memory_total_mib"] == "nvml"
    assert not nv.disagreements, nv.disagreements
    assert nv.smi_path == scenarios.SYSTEM32_SMI and nv.smi_on_path is False
    assert d.system.os_pretty.startswith("Windows 11")
    assert _ids(d) == ["nvidia-smi-not-on-path-windows"]


def test_nvml_and_smi_disagreeing_is_a_finding():
    host = scenarios.windows_rtx2080super()
    desc = scenarios.fake_nvml.rtx2080super_windows()
    desc["driver_version"] = "581.15"  # nvidia-smi on disk is newer than the running driver
    host.commands[host.key_of(scenarios.nvidia_smi.query_argv(scenarios.SYSTEM32_SMI))] = \
        scenarios.ok(scenarios.smi_csv(desc))
    host.commands[host.key_of([scenarios.SYSTEM32_SMI])] = scenarios.ok(scenarios.smi_table_header(desc))
    d = detect(host, pythons=False, conda=False)
    assert "nvml-smi-disagree" in _ids(d)
    dis = {x.field: x.values for x in d.nvidia.disagreements}
    assert dis["driver_version"] == {"nvml": "591.86", "nvidia-smi csv": "581.15"}


def test_nvml_broken_smi_still_answers():
    host = scenarios.windows_rtx2080super(nvml_module=scenarios.fake_nvml.FakeNvml(init_error="LIBRARY_NOT_FOUND"))
    d = detect(host, pythons=False, conda=False)
    assert d.nvidia.status == STATUS_OK
    assert d.nvidia.gpus[0].sources["memory_total_mib"] == "nvidia-smi csv"
    assert "nvml-library-not-found" in _ids(d)


def test_driver_library_mismatch_after_update():
    d = detect(scenarios.linux_driver_mismatch(), pythons=False, conda=False)
    assert d.nvidia.status == STATUS_VERSION_MISMATCH
    assert _ids(d)[0] == "nvml-driver-library-version-mismatch"
    assert "Driver/library version mismatch" in (d.findings[0].evidence or "")
    assert "restart" in d.findings[0].fix("en").lower()
    assert "다시 시작" in d.findings[0].fix("ko")


def test_no_gpu_linux_is_a_valid_result():
    d = detect(scenarios.linux_host(), pythons=False, conda=False)
    assert d.nvidia.status == STATUS_NO_DRIVER
    assert _ids(d) == ["no-nvidia-driver"]
    assert d.findings[0].severity == "info" and d.findings[0].variant == "no-gpu"


def test_mig_server():
    d = detect(scenarios.linux_a100_mig(), pythons=False, conda=False)
    gpu = d.nvidia.gpus[0]
    assert gpu.mig_mode == "Enabled" and len(gpu.mig_devices) == 4
    assert d.nvidia.cuda_version == "12.2"
    assert not d.findings


def test_hung_nvml_is_reported_not_frozen():
    import threading

    blocker = threading.Event()

    class HangingNvml(scenarios.fake_nvml.FakeNvml):
        def nvmlInit(self):  # noqa: N802
            blocker.wait(30)

    host = scenarios.windows_rtx2080super(nvml_module=HangingNvml(scenarios.fake_nvml.rtx2080super_windows()))
    from wizard.core.machine.nvidia import detect_nvidia

    try:
        info = detect_nvidia(host, nvml_timeout_s=0.5)
    finally:
        blocker.set()
    assert info.status == STATUS_OK  # nvidia-smi answered
    assert [s.status for s in info.sources][0] == "timeout"


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_every_finding_renders_in_both_languages(lang):
    for host in (scenarios.linux_driver_mismatch(), scenarios.linux_host(), scenarios.windows_rtx2080super()):
        for f in detect(host, pythons=False, conda=False).findings:
            for text in (f.title(lang), f.cause(lang), f.fix(lang)):
                assert text and not text.startswith("finding."), (f.id, text)
