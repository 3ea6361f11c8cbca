"""wizard.core.machine.nvml against the real pynvml error model (through tests/fake_nvml.py), against
the captured nvidia-smi outputs the fake descriptions come from, and against the real
``pynvml`` module on this machine."""

from __future__ import annotations

import copy
import ctypes
import itertools
import os
import re
import sys
import types
import xml.etree.ElementTree as ET
from pathlib import Path

import pynvml
import pytest

from tests.fake_nvml import (
    FakeNvml,
    a100_mig_linux,
    gpuopenanalytics_layout,
    gtx1660ti_418,
    nvidia_ml_py3_layout,
    nvml_error,
    rtx2080super_windows,
)
from wizard.core.machine import nvml as nv
from wizard.core.machine import nvml_calls, nvml_sampler
from wizard.core.machine.models import (
    STATUS_DRIVER_NOT_LOADED,
    STATUS_ERROR,
    STATUS_GPU_LOST,
    STATUS_NO_DEVICES,
    STATUS_NO_DRIVER,
    STATUS_NO_PERMISSION,
    STATUS_OK,
    STATUS_VERSION_MISMATCH,
    GpuInfo,
)

REFERENCE = Path(__file__).resolve().parents[2].parent / "shared" / "reference"
CAPTURES = REFERENCE / "nvidia-smi"


def _nvml_library_present() -> bool:
    """Can the NVML library be loaded here, the way nvidia-ml-py looks for it?"""
    if sys.platform.startswith("win"):
        names = [os.path.join(os.getenv("WINDIR", "C:/Windows"), "System32/nvml.dll"),
                 os.path.join(os.getenv("ProgramFiles", "C:/Program Files"), "NVIDIA Corporation/NVSMI/nvml.dll")]
    else:
        names = ["libnvidia-ml.so.1"]
    for name in names:
        try:
            ctypes.CDLL(name)
            return True
        except OSError:
            continue
    return False


HAS_NVML_LIBRARY = _nvml_library_present()


def query(description, **kwargs):
    fake = FakeNvml(description, **kwargs)
    return nv.query_nvml(fake), fake


# ---------------------------------------------------------------------------- nvmlInit failures


@pytest.mark.parametrize("code, status, text", [
    ("LIBRARY_NOT_FOUND", STATUS_NO_DRIVER, "NVMLError_LibraryNotFound: NVML Shared Library Not Found"),
    ("DRIVER_NOT_LOADED", STATUS_DRIVER_NOT_LOADED, "NVMLError_DriverNotLoaded: Driver Not Loaded"),
    ("LIB_RM_VERSION_MISMATCH", STATUS_VERSION_MISMATCH,
     "NVMLError_LibRmVersionMismatch: RM has detected an NVML/RM version mismatch."),
    ("NO_PERMISSION", STATUS_NO_PERMISSION, "NVMLError_NoPermission: Insufficient Permissions"),
    ("GPU_IS_LOST", STATUS_GPU_LOST, "NVMLError_GpuIsLost: GPU is lost"),
    ("UNKNOWN", STATUS_ERROR, "NVMLError_Unknown: Unknown Error"),
    ("OPERATING_SYSTEM", STATUS_ERROR,
     "NVMLError_OperatingSystem: The operating system has blocked the request."),
    ("RESET_REQUIRED", STATUS_ERROR, "NVMLError_ResetRequired: GPU requires restart"),
])
def test_init_failure_becomes_status_with_exact_text(code, status, text):
    result, fake = query(rtx2080super_windows(), init_error=code)
    assert result.source == "nvml"
    assert result.status == status
    assert result.raw_error == text
    assert result.gpus == [] and result.driver_version is None
    assert fake.calls == [("nvmlInit", None)]  # nothing asked, nothing to shut down


def test_classify_init_error_uses_the_generated_classes():
    assert nvml_calls.classify_init_error(pynvml.NVMLError_LibraryNotFound()) == STATUS_NO_DRIVER
    assert nvml_calls.classify_init_error(pynvml.NVMLError(pynvml.NVML_ERROR_DRIVER_NOT_LOADED)) == STATUS_DRIVER_NOT_LOADED
    assert nvml_calls.classify_init_error(pynvml.NVMLError(12345)) == STATUS_ERROR  # a code newer than the bindings
    assert nvml_calls.describe_error(pynvml.NVMLError(12345)) == "NVMLError: NVML Error with code 12345"


# ---------------------------------------------------------------------------- whole machines


def _set_fields(gpu: GpuInfo) -> set[str]:
    return {name for name in gpu.__dataclass_fields__
            if name not in ("index", "sources") and getattr(gpu, name) not in (None, [])}


def test_windows_wddm_geforce():
    result, fake = query(rtx2080super_windows())
    assert result.status == STATUS_OK and result.raw_error is None and result.detail is None
    assert (result.driver_version, result.cuda_version, result.nvml_version) == ("591.86", "13.1", "591.86")
    [gpu] = result.gpus
    assert gpu.index == 0
    assert gpu.name == "NVIDIA GeForce RTX 2080 SUPER"
    assert gpu.uuid == "GPU-00000000-0000-0000-0000-000000000000"
    assert gpu.pci_bus_id == "00000000:0C:00.0"
    assert (gpu.compute_capability, gpu.architecture) == ("7.5", "Turing")
    assert (gpu.memory_total_mib, gpu.memory_used_mib, gpu.memory_free_mib, gpu.memory_reserved_mib) == (
        8192, 1296, 6692, 205)
    assert (gpu.temperature_c, gpu.fan_percent) == (45, 38)
    assert gpu.power_draw_w == pytest.approx(97.43) and gpu.power_limit_w == 250
    assert (gpu.utilization_gpu_percent, gpu.utilization_memory_percent) == (7, 3)
    assert (gpu.clock_graphics_mhz, gpu.clock_sm_mhz, gpu.clock_mem_mhz, gpu.clock_sm_max_mhz) == (
        2055, 2055, 7500, 2145)
    assert gpu.pstate == "P2"
    assert (gpu.pcie_gen_current, gpu.pcie_gen_max, gpu.pcie_width_current, gpu.pcie_width_max) == (3, 3, 16, 16)
    assert gpu.driver_model == "WDDM"
    assert gpu.vbios_version == "90.04.7a.40.73" and gpu.display_active == "Disabled"
    # GeForce: no serial, no MIG. None, and no source claimed for them.
    assert gpu.serial is None and gpu.mig_mode is None and gpu.mig_devices == []
    assert "serial" not in gpu.sources and "mig_mode" not in gpu.sources
    # Every value that is set says it came from NVML.
    assert set(gpu.sources) == _set_fields(gpu) | {"index"}
    assert set(gpu.sources.values()) == {"nvml"}
    assert fake.refcount == 0 and fake.calls_to("nvmlShutdown") == 1


def test_wddm_processes_have_no_memory_and_merge_compute_and_graphics():
    result, _ = query(rtx2080super_windows())
    procs = {p.pid: p for p in result.gpus[0].processes}
    assert len(procs) == 12
    assert all(p.used_memory_mib is None for p in procs.values())
    assert procs[2056].kind == "C+G" and procs[2056].name == r"C:\Windows\System32\dwm.exe"
    assert procs[25704].kind == "C" and procs[25704].name.endswith(r"\bin\ffmpeg.exe")
    assert sorted(p.kind for p in procs.values()).count("C+G") == 10
    assert result.gpus[0].sources["processes"] == "nvml"


def test_a100_with_mig_lists_its_mig_devices():
    result, fake = query(a100_mig_linux())
    assert result.status == STATUS_OK
    assert result.cuda_version == "12.2"
    [gpu] = result.gpus
    assert gpu.mig_mode == "Enabled" and gpu.sources["mig_devices"] == "nvml"
    assert [m.index for m in gpu.mig_devices] == [0, 1, 2, 3]
    assert [m.gpu_instance_id for m in gpu.mig_devices] == [3, 4, 5, 6]
    assert {m.compute_instance_id for m in gpu.mig_devices} == {0}
    assert {(m.memory_total_mib, m.memory_used_mib) for m in gpu.mig_devices} == {(19968, 12)}
    assert gpu.mig_devices[2].uuid == "MIG-00000000-0000-0000-0000-000000000002"
    assert {m.profile for m in gpu.mig_devices} == {"1g.20gb"}
    # all 7 slots were asked; the 3 empty ones (NotFound) are not devices
    assert fake.calls_to("nvmlDeviceGetMigDeviceHandleByIndex") == 7
    # N/A on this server: fan, utilization under MIG, driver model (Linux)
    assert gpu.fan_percent is None and gpu.utilization_gpu_percent is None and gpu.driver_model is None
    assert (gpu.memory_total_mib, gpu.memory_reserved_mib) == (81920, 869)
    assert gpu.serial == "1650522003820" and gpu.compute_capability == "8.0" and gpu.architecture == "Ampere"


def test_mig_disabled_asks_for_no_mig_devices():
    desc = a100_mig_linux()
    desc["gpus"][0]["mig_mode"] = (pynvml.NVML_DEVICE_MIG_DISABLE, pynvml.NVML_DEVICE_MIG_DISABLE)
    result, fake = query(desc)
    assert result.gpus[0].mig_mode == "Disabled" and result.gpus[0].mig_devices == []
    assert fake.calls_to("nvmlDeviceGetMaxMigDeviceCount") == 0


def test_old_driver_falls_back_where_newer_calls_are_missing():
    result, fake = query(gtx1660ti_418())
    assert result.status == STATUS_OK and result.raw_error is None
    assert (result.driver_version, result.cuda_version) == ("418.43", "10.1")
    [gpu] = result.gpus
    assert gpu.name == "Graphics Device"
    # memory: v2 FunctionNotFound → v1, which has no "reserved"
    assert (gpu.memory_total_mib, gpu.memory_used_mib, gpu.memory_free_mib) == (5912, 0, 5912)
    assert gpu.memory_reserved_mib is None and "memory_reserved_mib" not in gpu.sources
    assert fake.calls_to("nvmlDeviceGetMemoryInfo") == 2
    # symbols the driver predates: n/a, and the rest is still read
    assert gpu.architecture is None and gpu.mig_mode is None and gpu.driver_model is None
    assert gpu.processes == [] and "processes" not in gpu.sources  # unknown, not "none"
    assert gpu.compute_capability == "7.5" and gpu.pstate == "P8" and gpu.pcie_gen_current == 1
    assert gpu.power_draw_w == pytest.approx(8.93) and gpu.fan_percent == 0


def test_memory_falls_back_to_v1_on_bindings_without_version_argument():
    class OldBindings(FakeNvml):
        def nvmlDeviceGetMemoryInfo(self, handle):  # no version parameter, as before 11.515
            return super().nvmlDeviceGetMemoryInfo(handle)

    result = nv.query_nvml(OldBindings(rtx2080super_windows()))
    gpu = result.gpus[0]
    assert gpu.memory_total_mib == 8192 and gpu.memory_reserved_mib is None
    assert gpu.memory_used_mib == 1296 + 205  # v1 counts reserved as used


def test_processes_fall_back_to_v2_on_drivers_before_510():
    result, fake = query(rtx2080super_windows(), missing_functions=[
        "nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetGraphicsRunningProcesses_v3"])
    assert len(result.gpus[0].processes) == 12
    assert fake.calls_to("nvmlDeviceGetComputeRunningProcesses_v2") == 1


def test_process_memory_and_kinds_are_merged_by_pid():
    desc = a100_mig_linux()
    desc["gpus"][0]["processes"] = [
        {"pid": 100, "name": "python", "type": "C", "used_memory_mib": 512},
        {"pid": 200, "name": None, "type": "G", "used_memory_mib": None},
        {"pid": 300, "name": "Xorg", "type": "C+G", "used_memory_mib": 1024},
    ]
    result, _ = query(desc)
    procs = {p.pid: p for p in result.gpus[0].processes}
    assert (procs[100].kind, procs[100].used_memory_mib, procs[100].name) == ("C", 512, "python")
    assert (procs[200].kind, procs[200].used_memory_mib, procs[200].name) == ("G", None, None)
    assert (procs[300].kind, procs[300].used_memory_mib) == ("C+G", 1024)


def test_process_memory_missing_from_one_list_is_taken_from_the_other():
    class ComputeWithoutMemory(FakeNvml):
        def nvmlDeviceGetComputeRunningProcesses_v3(self, handle):
            procs = super().nvmlDeviceGetComputeRunningProcesses_v3(handle)
            for proc in procs:
                proc.usedGpuMemory = None
            return procs

    desc = a100_mig_linux()
    desc["gpus"][0]["processes"] = [{"pid": 300, "name": "Xorg", "type": "C+G", "used_memory_mib": 64}]
    [proc] = nv.query_nvml(ComputeWithoutMemory(desc)).gpus[0].processes
    assert (proc.kind, proc.used_memory_mib) == ("C+G", 64)


def test_process_permission_error_leaves_processes_unknown():
    desc = a100_mig_linux()
    desc["gpus"][0]["errors"] = {"compute_processes": "NO_PERMISSION", "graphics_processes": "NO_PERMISSION"}
    result, _ = query(desc)
    assert result.status == STATUS_OK
    assert result.gpus[0].processes == [] and "processes" not in result.gpus[0].sources


def test_cuda_driver_version_falls_back_to_v1():
    result, fake = query(a100_mig_linux(), missing_functions=["nvmlSystemGetCudaDriverVersion_v2"])
    assert result.cuda_version == "12.2"
    assert fake.calls_to("nvmlSystemGetCudaDriverVersion") == 1


@pytest.mark.parametrize("value, text", [(12080, "12.8"), (13010, "13.1"), (10010, "10.1"), (12020, "12.2"),
                                         (11000, "11.0"), (0, None), (None, None)])
def test_cuda_version_string(value, text):
    assert nvml_calls.cuda_version_string(value) == text


# ---------------------------------------------------------------------------- one field at a time

# description key → the GpuInfo fields it feeds
FIELD_SOURCES = {
    "name": ["name"],
    "uuid": ["uuid"],
    "pci_bus_id": ["pci_bus_id"],
    "compute_capability": ["compute_capability"],
    "architecture": ["architecture"],
    "memory_mib": ["memory_total_mib", "memory_used_mib", "memory_free_mib", "memory_reserved_mib"],
    "temperature_c": ["temperature_c"],
    "fan_percent": ["fan_percent"],
    "power_mw": ["power_draw_w"],
    "power_limit_mw": ["power_limit_w"],
    "utilization": ["utilization_gpu_percent", "utilization_memory_percent"],
    "clocks_mhz": ["clock_graphics_mhz", "clock_sm_mhz", "clock_mem_mhz"],
    "max_clocks_mhz": ["clock_sm_max_mhz"],
    "pstate": ["pstate"],
    "pcie": ["pcie_gen_current", "pcie_gen_max", "pcie_width_current", "pcie_width_max"],
    "driver_model": ["driver_model"],
    "vbios": ["vbios_version"],
    "display_active": ["display_active"],
}


@pytest.mark.parametrize("error", [None, "NOT_SUPPORTED", "NO_PERMISSION", "UNKNOWN", "FUNCTION_NOT_FOUND"])
@pytest.mark.parametrize("key", sorted(FIELD_SOURCES))
def test_one_failing_field_is_none_and_the_rest_is_filled(key, error):
    full = nv.query_nvml(FakeNvml(rtx2080super_windows())).gpus[0]
    desc = rtx2080super_windows()
    if error is None:
        desc["gpus"][0][key] = None  # NotSupported, as nvidia-smi's [N/A]
    else:
        desc["gpus"][0].setdefault("errors", {})[key] = error
    result, _ = query(desc)
    assert result.status == STATUS_OK and result.raw_error is None
    gpu = result.gpus[0]
    for field in gpu.__dataclass_fields__:
        if field in FIELD_SOURCES[key]:
            assert getattr(gpu, field) is None, field
            assert field not in gpu.sources
        elif field != "sources":
            assert getattr(gpu, field) == getattr(full, field), field


def test_unknown_architecture_code_is_none():
    desc = rtx2080super_windows()
    desc["gpus"][0]["architecture"] = pynvml.NVML_DEVICE_ARCH_UNKNOWN
    assert nv.query_nvml(FakeNvml(desc)).gpus[0].architecture is None


@pytest.mark.parametrize("arch, name", [("KEPLER", "Kepler"), ("MAXWELL", "Maxwell"), ("PASCAL", "Pascal"),
                                        ("VOLTA", "Volta"), ("TURING", "Turing"), ("AMPERE", "Ampere"),
                                        ("ADA", "Ada"), ("HOPPER", "Hopper"), ("BLACKWELL", "Blackwell")])
def test_architecture_names(arch, name):
    desc = rtx2080super_windows()
    desc["gpus"][0]["architecture"] = arch
    assert nv.query_nvml(FakeNvml(desc)).gpus[0].architecture == name


@pytest.mark.parametrize("model", ["WDDM", "TCC", "MCDM"])
def test_driver_models(model):
    desc = rtx2080super_windows()
    desc["gpus"][0]["driver_model"] = (model, model)
    assert nv.query_nvml(FakeNvml(desc)).gpus[0].driver_model == model


def test_driver_model_falls_back_to_v1_on_older_windows_drivers():
    result, fake = query(rtx2080super_windows(), missing_functions=["nvmlDeviceGetDriverModel_v2"])
    assert result.gpus[0].driver_model == "WDDM"
    assert fake.calls_to("nvmlDeviceGetDriverModel_v1") == 1


def test_unknown_pstate_is_none():
    desc = rtx2080super_windows()
    desc["gpus"][0]["pstate"] = pynvml.NVML_PSTATE_UNKNOWN
    assert nv.query_nvml(FakeNvml(desc)).gpus[0].pstate is None


# ---------------------------------------------------------------------------- devices and counts


def _two_a100s():
    desc = a100_mig_linux()
    second = copy.deepcopy(desc["gpus"][0])
    second["uuid"], second["pci_bus_id"] = "GPU-00000000-0000-0000-0000-000000000001", "00000000:41:00.0"
    desc["gpus"].append(second)
    return desc


def test_gpu_lost_on_one_of_two_keeps_the_other():
    desc = _two_a100s()
    desc["gpus"][1]["handle_error"] = "GPU_IS_LOST"
    result, fake = query(desc)
    assert result.status == STATUS_GPU_LOST
    assert result.raw_error == "GPU 1: NVMLError_GpuIsLost: GPU is lost"
    good, lost = result.gpus
    assert good.name == "NVIDIA A100-SXM4-80GB" and len(good.mig_devices) == 4
    assert lost == GpuInfo(index=1, sources={"index": "nvml"})
    assert fake.refcount == 0


def test_unknown_error_on_a_handle_keeps_status_and_the_text():
    desc = _two_a100s()
    desc["gpus"][0]["handle_error"] = "UNKNOWN"
    result, _ = query(desc)
    assert result.status == STATUS_OK
    assert result.raw_error == "GPU 0: NVMLError_Unknown: Unknown Error"
    assert result.gpus[0] == GpuInfo(index=0, sources={"index": "nvml"})
    assert result.gpus[1].uuid == "GPU-00000000-0000-0000-0000-000000000001"


def test_gpu_lost_during_the_query_stops_asking_that_gpu():
    desc = _two_a100s()
    desc["gpus"][0]["errors"] = {"temperature_c": "GPU_IS_LOST"}
    result, fake = query(desc)
    assert result.status == STATUS_GPU_LOST
    assert "GPU 0: NVMLError_GpuIsLost" in result.raw_error
    lost, other = result.gpus
    assert lost.memory_total_mib == 81920  # read before the GPU fell off
    assert lost.temperature_c is None and lost.power_draw_w is None and lost.vbios_version is None
    assert fake.calls_to("nvmlDeviceGetPowerUsage", gpu=0) == 0
    assert other.power_draw_w == pytest.approx(67.03)


def test_no_devices():
    desc = rtx2080super_windows()
    desc["gpus"] = []
    result, fake = query(desc)
    assert result.status == STATUS_NO_DEVICES
    assert result.gpus == [] and result.driver_version == "591.86"  # the driver still answered
    assert fake.refcount == 0


def test_device_count_failure_is_classified():
    result, fake = query(rtx2080super_windows(), count_error="NO_PERMISSION")
    assert result.status == STATUS_NO_PERMISSION
    assert result.raw_error == "NVMLError_NoPermission: Insufficient Permissions"
    assert fake.refcount == 0


def test_failed_shutdown_does_not_spoil_the_answer(caplog):
    class BadShutdown(FakeNvml):
        def nvmlShutdown(self):
            super().nvmlShutdown()
            raise nvml_error("UNKNOWN")

    result = nv.query_nvml(BadShutdown(rtx2080super_windows()))
    assert result.status == STATUS_OK and result.gpus[0].name == "NVIDIA GeForce RTX 2080 SUPER"
    assert "nvmlShutdown failed: NVMLError_Unknown" in caplog.text


# ---------------------------------------------------------------------------- wrong bindings


def test_nvidia_ml_py3_is_a_conflict_without_touching_nvml():
    fake = nvidia_ml_py3_layout(rtx2080super_windows())
    result = nv.query_nvml(fake)
    assert result.status == STATUS_ERROR and result.detail == "pynvml-conflict"
    assert result.raw_error.startswith("AttributeError: module 'pynvml' has no attribute ")
    assert "'nvmlDeviceGetCudaComputeCapability'" in result.raw_error
    assert "outdated" in result.raw_error  # check_bindings' advice comes along
    assert fake.calls == []


def test_attribute_error_inside_the_session_is_a_conflict_and_still_shuts_down():
    class Foreign(FakeNvml):
        def nvmlDeviceGetUtilizationRates(self, handle):
            super().nvmlDeviceGetUtilizationRates(handle)
            return types.SimpleNamespace(percent=7)  # not the bindings' structure

    fake = Foreign(rtx2080super_windows())
    result = nv.query_nvml(fake)
    assert result.status == STATUS_ERROR and result.detail == "pynvml-conflict"
    assert result.raw_error.startswith("AttributeError: ")
    assert result.gpus == []
    assert fake.refcount == 0


def test_check_bindings_accepts_the_installed_nvidia_ml_py():
    assert nvml_calls.check_bindings(pynvml) is None
    assert nvml_calls.check_bindings(FakeNvml()) is None


def test_check_bindings_names_the_gpuopenanalytics_package():
    message = nvml_calls.check_bindings(gpuopenanalytics_layout())
    assert message is not None and "gpuopenanalytics" in message and "nvidia-ml-py" in message
    assert "site-packages/pynvml/__init__.py" in message


def test_check_bindings_names_nvidia_ml_py3():
    message = nvml_calls.check_bindings(nvidia_ml_py3_layout())
    assert message is not None and "nvidia-ml-py3" in message and "outdated" in message


def test_check_bindings_on_an_unrelated_module():
    message = nvml_calls.check_bindings(types.ModuleType("pynvml"))
    assert message is not None and "not NVIDIA's nvidia-ml-py" in message


# ---------------------------------------------------------------------------- the real module


@pytest.mark.skipif(HAS_NVML_LIBRARY, reason="an NVIDIA driver is installed here: LibraryNotFound cannot happen")
def test_real_pynvml_without_a_driver_is_no_driver():
    result = nv.query_nvml(pynvml)
    assert result.status == STATUS_NO_DRIVER
    assert result.raw_error == "NVMLError_LibraryNotFound: NVML Shared Library Not Found"
    assert result.detail is None and result.gpus == []


@pytest.mark.skipif(not HAS_NVML_LIBRARY, reason="no NVIDIA driver (NVML library) on this machine")
def test_real_pynvml_with_a_driver_answers():
    result = nv.query_nvml(pynvml)
    assert result.status in (STATUS_OK, STATUS_NO_DEVICES, STATUS_NO_PERMISSION, STATUS_DRIVER_NOT_LOADED,
                             STATUS_VERSION_MISMATCH), result.raw_error
    if result.status == STATUS_OK:
        assert re.fullmatch(r"\d+\.\d+(\.\d+)?", result.driver_version)
        assert re.fullmatch(r"\d+\.\d", result.cuda_version)
        assert all(g.name and g.memory_total_mib for g in result.gpus)


@pytest.mark.skipif(HAS_NVML_LIBRARY, reason="an NVIDIA driver is installed here")
def test_real_pynvml_sampler_does_not_open_without_a_driver():
    sampler = nvml_sampler.NvmlSampler(pynvml)
    assert sampler.open() is False
    assert sampler.error == "NVMLError_LibraryNotFound: NVML Shared Library Not Found"
    sampler.close()  # harmless after a failed open


# ---------------------------------------------------------------------------- the sampler


def _ticks():
    counter = itertools.count(100)
    return lambda: float(next(counter))


def test_sampler_values_and_cost():
    fake = FakeNvml(rtx2080super_windows())
    sampler = nvml_sampler.NvmlSampler(fake, clock=_ticks())
    assert sampler.open() is True and sampler.error is None
    before = len(fake.calls)
    [s] = sampler.sample()
    assert s == nvml_sampler.GpuSample(index=0, t=100.0, utilization_gpu=7, memory_used_mib=1296, memory_total_mib=8192,
                             temperature_c=45, power_w=pytest.approx(97.43), clock_sm_mhz=2055)
    asked = [name for name, _ in fake.calls[before:]]
    assert len(asked) == 5  # one call per value, handles cached
    assert "nvmlDeviceGetHandleByIndex" not in asked and "nvmlDeviceGetName" not in asked
    assert sampler.sample()[0].t == 101.0
    sampler.close()
    assert fake.refcount == 0


def test_sampler_does_not_ask_again_what_is_not_supported():
    fake = FakeNvml(a100_mig_linux())  # utilization: N/A under MIG
    sampler = nvml_sampler.NvmlSampler(fake)
    assert sampler.open()
    first, second = sampler.sample()[0], sampler.sample()[0]
    assert first.utilization_gpu is None and second.utilization_gpu is None
    assert second.memory_total_mib == 81920 and second.temperature_c == 27
    assert fake.calls_to("nvmlDeviceGetUtilizationRates") == 1
    assert fake.calls_to("nvmlDeviceGetTemperature") == 2
    sampler.close()


def test_sampler_asks_again_after_a_passing_error():
    desc = a100_mig_linux()
    desc["gpus"][0]["errors"] = {"temperature_c": "UNKNOWN"}
    fake = FakeNvml(desc)
    sampler = nvml_sampler.NvmlSampler(fake)
    assert sampler.open()
    sampler.sample()
    desc_gpu = fake.gpus[0]
    desc_gpu["errors"] = {}  # the hiccup is over
    assert sampler.sample()[0].temperature_c == 27
    assert fake.calls_to("nvmlDeviceGetTemperature") == 2


def test_sampler_uses_memory_v1_after_function_not_found():
    fake = FakeNvml(gtx1660ti_418())
    sampler = nvml_sampler.NvmlSampler(fake)
    assert sampler.open()
    first, second = sampler.sample()[0], sampler.sample()[0]
    assert (first.memory_used_mib, first.memory_total_mib) == (0, 5912)
    assert (second.memory_used_mib, second.memory_total_mib) == (0, 5912)
    assert fake.calls_to("nvmlDeviceGetMemoryInfo") == 3  # v2 once (missing), then v1 each time


def test_sampler_stops_asking_a_lost_gpu():
    desc = _two_a100s()
    desc["gpus"][0]["errors"] = {"utilization": "GPU_IS_LOST"}
    fake = FakeNvml(desc)
    sampler = nvml_sampler.NvmlSampler(fake)
    assert sampler.open()
    lost, other = sampler.sample()
    assert lost.memory_total_mib is None and other.memory_total_mib == 81920
    assert "GPU 0: NVMLError_GpuIsLost" in sampler.error
    calls = fake.calls_to("nvmlDeviceGetUtilizationRates", gpu=0)
    sampler.sample()
    assert fake.calls_to("nvmlDeviceGetUtilizationRates", gpu=0) == calls
    sampler.close()


def test_sampler_skips_a_gpu_without_a_handle():
    desc = _two_a100s()
    desc["gpus"][0]["handle_error"] = "GPU_IS_LOST"
    sampler = nvml_sampler.NvmlSampler(FakeNvml(desc))
    assert sampler.open()
    assert [s.index for s in sampler.sample()] == [1]
    assert sampler.error == "GPU 0: NVMLError_GpuIsLost: GPU is lost"


@pytest.mark.parametrize("code, text", [
    ("LIBRARY_NOT_FOUND", "NVMLError_LibraryNotFound: NVML Shared Library Not Found"),
    ("DRIVER_NOT_LOADED", "NVMLError_DriverNotLoaded: Driver Not Loaded"),
])
def test_sampler_open_fails_without_nvml(code, text):
    fake = FakeNvml(rtx2080super_windows(), init_error=code)
    sampler = nvml_sampler.NvmlSampler(fake)
    assert sampler.open() is False and sampler.error == text
    with pytest.raises(RuntimeError):
        sampler.sample()
    sampler.close()
    assert fake.calls_to("nvmlShutdown") == 0


def test_sampler_open_fails_on_count_error_and_shuts_down():
    fake = FakeNvml(rtx2080super_windows(), count_error="NO_PERMISSION")
    sampler = nvml_sampler.NvmlSampler(fake)
    assert sampler.open() is False and "NoPermission" in sampler.error
    assert fake.refcount == 0


def test_sampler_open_fails_on_foreign_bindings():
    sampler = nvml_sampler.NvmlSampler(types.ModuleType("pynvml"))
    assert sampler.open() is False
    assert sampler.error.startswith("AttributeError: module 'pynvml' has no attribute 'NVMLError'")


def test_sampler_as_context_manager_closes_once():
    fake = FakeNvml(rtx2080super_windows())
    with nvml_sampler.NvmlSampler(fake) as sampler:
        assert sampler.is_open and len(sampler.sample()) == 1
    assert not sampler.is_open and fake.refcount == 0
    sampler.close()
    assert fake.calls_to("nvmlShutdown") == 1


# ---------------------------------------------------------------------------- the fake itself


def test_fake_raises_the_real_exception_classes():
    fake = FakeNvml(a100_mig_linux())
    with pytest.raises(pynvml.NVMLError_Uninitialized):
        fake.nvmlDeviceGetCount()
    fake.nvmlInit()
    handle = fake.nvmlDeviceGetHandleByIndex(0)
    with pytest.raises(pynvml.NVMLError_NotSupported):
        fake.nvmlDeviceGetFanSpeed(handle)
    assert isinstance(fake.nvmlDeviceGetMemoryInfo(handle, version=pynvml.nvmlMemory_v2), pynvml.c_nvmlMemory_v2_t)
    fake.nvmlShutdown()
    old = FakeNvml(gtx1660ti_418())
    old.nvmlInit()
    old_handle = old.nvmlDeviceGetHandleByIndex(0)
    with pytest.raises(pynvml.NVMLError_FunctionNotFound):
        old.nvmlDeviceGetMemoryInfo(old_handle, version=pynvml.nvmlMemory_v2)
    # the unversioned wrapper turns FunctionNotFound into the bindings' mismatch error
    with pytest.raises(pynvml.NVMLLibraryMismatchError):
        old.nvmlDeviceGetComputeRunningProcesses(old_handle)


# ---------------------------------------------------------------------------- fidelity to the captures


def _reference(name: str) -> Path:
    path = CAPTURES / name
    if not path.is_file():
        pytest.skip(f"reference capture {name} not present (../shared/reference is absent)")
    return path


def _number(text: str) -> float:
    return float(text.split()[0].rstrip("x"))


def _capture_section(text: str, title: str) -> str:
    """The raw output of one ``# <state> :: <title>`` section of a capture file."""
    marker = re.search(r"^# " + re.escape(title) + r"\n# \$ [^\n]*\n#{80}\n", text, re.M)
    assert marker, title
    rest = text[marker.end():]
    end = re.search(r"^#{80}$", rest, re.M)
    return rest[:end.start()] if end else rest


def _xml_gpu_checks(xml_name: str, description) -> tuple[ET.Element, GpuInfo, object]:
    root = ET.parse(_reference(xml_name)).getroot()
    result = nv.query_nvml(FakeNvml(description))
    gpu_el = root.find("gpu")
    gpu = result.gpus[0]
    assert result.driver_version == root.findtext("driver_version")
    assert result.cuda_version == root.findtext("cuda_version")
    assert gpu.name == gpu_el.findtext("product_name")
    assert gpu.uuid == gpu_el.findtext("uuid")
    assert gpu.pci_bus_id == gpu_el.findtext("pci/pci_bus_id") == gpu_el.get("id")
    assert gpu.vbios_version == gpu_el.findtext("vbios_version")
    assert gpu.display_active == gpu_el.findtext("display_active")
    assert gpu.memory_total_mib == _number(gpu_el.findtext("fb_memory_usage/total"))
    assert gpu.memory_used_mib == _number(gpu_el.findtext("fb_memory_usage/used"))
    assert gpu.memory_free_mib == _number(gpu_el.findtext("fb_memory_usage/free"))
    assert gpu.temperature_c == _number(gpu_el.findtext("temperature/gpu_temp"))
    assert gpu.pstate == gpu_el.findtext("performance_state")
    assert gpu.clock_graphics_mhz == _number(gpu_el.findtext("clocks/graphics_clock"))
    assert gpu.clock_sm_mhz == _number(gpu_el.findtext("clocks/sm_clock"))
    assert gpu.clock_mem_mhz == _number(gpu_el.findtext("clocks/mem_clock"))
    assert gpu.clock_sm_max_mhz == _number(gpu_el.findtext("max_clocks/sm_clock"))
    link = gpu_el.find("pci/pci_gpu_link_info")
    assert gpu.pcie_gen_current == _number(link.findtext("pcie_gen/current_link_gen"))
    assert gpu.pcie_gen_max == _number(link.findtext("pcie_gen/max_link_gen"))
    assert gpu.pcie_width_current == _number(link.findtext("link_widths/current_link_width"))
    assert gpu.pcie_width_max == _number(link.findtext("link_widths/max_link_width"))
    assert (gpu.serial or "N/A") == gpu_el.findtext("serial")
    assert (gpu.fan_percent, gpu_el.findtext("fan_speed")) in [(None, "N/A")] or \
        gpu.fan_percent == _number(gpu_el.findtext("fan_speed"))
    assert len(gpu.processes) == len(gpu_el.findall("processes/process_info"))
    return gpu_el, gpu, result


def test_a100_description_matches_the_capture():
    gpu_el, gpu, _ = _xml_gpu_checks("04-linux-4x-a100-sxm4-535.54.03.q-x.xml", a100_mig_linux())
    assert gpu.architecture == gpu_el.findtext("product_architecture")
    assert gpu.mig_mode == gpu_el.findtext("mig_mode/current_mig")
    assert gpu.memory_reserved_mib == _number(gpu_el.findtext("fb_memory_usage/reserved"))
    assert gpu.power_draw_w == pytest.approx(_number(gpu_el.findtext("gpu_power_readings/power_draw")))
    assert gpu.power_limit_w == _number(gpu_el.findtext("gpu_power_readings/current_power_limit"))
    assert gpu_el.findtext("utilization/gpu_util") == "N/A" and gpu.utilization_gpu_percent is None
    migs = gpu_el.findall("mig_devices/mig_device")
    assert [(m.index, m.gpu_instance_id, m.compute_instance_id, m.memory_total_mib, m.memory_used_mib)
            for m in gpu.mig_devices] == [
        (int(el.findtext("index")), int(el.findtext("gpu_instance_id")), int(el.findtext("compute_instance_id")),
         _number(el.findtext("fb_memory_usage/total")), _number(el.findtext("fb_memory_usage/used")))
        for el in migs]


def test_gtx1660ti_description_matches_the_capture():
    gpu_el, gpu, _ = _xml_gpu_checks("07-old-driver-418.43-gtx1660ti.q-x.xml", gtx1660ti_418())
    assert gpu.power_draw_w == pytest.approx(_number(gpu_el.findtext("power_readings/power_draw")))
    assert gpu.power_limit_w == _number(gpu_el.findtext("power_readings/enforced_power_limit"))
    assert gpu.utilization_gpu_percent == _number(gpu_el.findtext("utilization/gpu_util"))
    assert gpu.utilization_memory_percent == _number(gpu_el.findtext("utilization/memory_util"))
    assert gpu_el.find("fb_memory_usage/reserved") is None and gpu.memory_reserved_mib is None


def test_rtx2080super_description_matches_the_capture():
    text = _reference("01-windows-wddm-geforce-rtx2080super-591.86.capture.txt").read_text(encoding="utf-8")
    version = dict(line.split(":", 1) for line in
                   _capture_section(text, "capabilities :: version").strip().splitlines())
    version = {k.strip(): v.strip() for k, v in version.items()}
    header, row = _capture_section(text, "load :: query-gpu (csv, what the exporter parses)").strip().splitlines()
    csv = {k.split(" [")[0]: v for k, v in zip(header.split(", "), row.split(", "))}
    result = nv.query_nvml(FakeNvml(rtx2080super_windows()))
    gpu = result.gpus[0]
    assert result.driver_version == version["DRIVER version"] == csv["driver_version"]
    assert result.nvml_version == version["NVML version"]
    assert result.cuda_version == version["CUDA Version"]
    assert gpu.name == csv["name"] and gpu.uuid == csv["uuid"] and gpu.pci_bus_id == csv["pci.bus_id"]
    assert gpu.serial is None and csv["serial"] == "[N/A]"
    assert gpu.compute_capability == csv["compute_cap"]
    assert gpu.vbios_version == csv["vbios_version"]
    assert gpu.driver_model == csv["driver_model.current"]
    assert gpu.display_active == csv["display_active"]
    assert gpu.pstate == csv["pstate"]
    assert csv["mig.mode.current"] == "[N/A]" and gpu.mig_mode is None
    pairs = {
        "memory_total_mib": "memory.total", "memory_reserved_mib": "memory.reserved",
        "memory_used_mib": "memory.used", "memory_free_mib": "memory.free",
        "temperature_c": "temperature.gpu", "fan_percent": "fan.speed",
        "power_draw_w": "power.draw", "power_limit_w": "enforced.power.limit",
        "utilization_gpu_percent": "utilization.gpu", "utilization_memory_percent": "utilization.memory",
        "clock_graphics_mhz": "clocks.current.graphics", "clock_sm_mhz": "clocks.current.sm",
        "clock_mem_mhz": "clocks.current.memory", "clock_sm_max_mhz": "clocks.max.sm",
        "pcie_gen_current": "pcie.link.gen.current", "pcie_gen_max": "pcie.link.gen.max",
        "pcie_width_current": "pcie.link.width.current", "pcie_width_max": "pcie.link.width.max",
    }
    for field, column in pairs.items():
        assert getattr(gpu, field) == pytest.approx(_number(csv[column])), field
    apps = _capture_section(text, "load :: query-compute-apps (per-process)").strip().splitlines()[1:]
    seen = {int(cols[5]): cols[6] for cols in (line.split(", ") for line in apps)}
    assert {p.pid: p.name for p in gpu.processes} == seen
    assert all(line.endswith("[N/A]") for line in apps) and all(p.used_memory_mib is None for p in gpu.processes)
