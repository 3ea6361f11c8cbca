"""A stand-in for the ``pynvml`` module (nvidia-ml-py), built from a description of GPUs.

Why a fake and not mocks: the machines that run the tests have no NVIDIA GPU, yet
``wizard.core.machine.nvml`` must be exercised against a Windows WDDM GeForce, a MIG server and a
driver older than the bindings. The fake raises the REAL exception classes of the installed
``pynvml`` (``pynvml.NVMLError(code)`` gives ``NVMLError_NotSupported`` and so on) and returns
the real ctypes structures, so the code under test meets the bindings' actual error model
and value types. Each function needs the same NVML C symbol as the real binding does
(``nvmlDeviceGetMemoryInfo(h, version=nvmlMemory_v2)`` needs ``nvmlDeviceGetMemoryInfo_v2``),
so listing a symbol in ``missing_functions`` behaves like a driver older than the bindings:
FunctionNotFound.

Description (a dict; the module-level functions below return realistic ones):

``driver_version``, ``cuda_driver_version`` (int, 1000*major + 10*minor), ``nvml_version``,
``missing_functions`` (NVML C symbols the driver lacks), ``errors`` (system key → error) and
``gpus``: a list of dicts with the keys read by the functions below (``name``, ``uuid``,
``serial``, ``pci_bus_id``, ``compute_capability`` (major, minor), ``architecture``
("TURING" for NVML_DEVICE_ARCH_TURING), ``memory_mib`` {total, reserved, used, free},
``temperature_c``, ``fan_percent``, ``power_mw``, ``power_limit_mw``, ``utilization``
{gpu, memory}, ``clocks_mhz`` / ``max_clocks_mhz`` {graphics, sm, mem}, ``pstate``,
``pcie`` {gen_current, gen_max, width_current, width_max}, ``driver_model`` ("WDDM", "WDDM"),
``mig_mode`` (current, pending), ``max_mig_device_count``, ``mig_devices`` [{slot,
gpu_instance_id, compute_instance_id, memory_mib, uuid, name}], ``processes`` [{pid, name,
type "C"|"G"|"C+G", used_memory_mib}], ``vbios``, ``display_active`` (bool)).
A key that is absent or None answers NotSupported, as nvidia-smi's ``[N/A]``.
``errors`` maps a key (or ``compute_processes`` / ``graphics_processes``) to an error
("NO_PERMISSION", "GPU_IS_LOST", or an NVML_ERROR_* number); ``handle_error`` makes
``nvmlDeviceGetHandleByIndex`` fail for that GPU.
"""

from __future__ import annotations

import copy
import types
from typing import Any, Iterable

import pynvml

_NOT_MIG = 0xFFFFFFFF  # gpuInstanceId / computeInstanceId outside MIG
MIB = 1024 * 1024

# What a module-like copy of the bindings carries besides functions.
_COPIED_PREFIXES = ("NVML_", "NVMLError", "nvmlMemory_v")


def nvml_error(code: int | str) -> pynvml.NVMLError:
    """``"NOT_SUPPORTED"`` or ``3`` → the real ``NVMLError_NotSupported`` instance."""
    value = getattr(pynvml, f"NVML_ERROR_{code}") if isinstance(code, str) else code
    return pynvml.NVMLError(value)


class _Handle:
    """Stands in for ``c_nvmlDevice_t``: which GPU (and MIG slot) it names."""

    def __init__(self, gpu: int, desc: dict[str, Any], mig: int | None = None) -> None:
        self.gpu = gpu
        self.desc = desc
        self.mig = mig

    def __repr__(self) -> str:
        return f"<fake handle gpu={self.gpu} mig={self.mig}>"


class FakeNvml(types.ModuleType):
    """A module object that answers like ``pynvml`` on the described machine.

    ``calls`` records every NVML function called, as (name, gpu index or None), so a test
    can count what a caller asked for. ``refcount`` is the open session count (nvmlInit
    minus nvmlShutdown), as the real library keeps it.
    """

    def __init__(self, description: dict[str, Any] | None = None, *, init_error: int | str | None = None,
                 count_error: int | str | None = None, missing_functions: Iterable[str] = (),
                 absent_attributes: Iterable[str] = ()) -> None:
        super().__init__("pynvml")
        desc = copy.deepcopy(description or {"gpus": []})
        absent = set(absent_attributes)
        for name in dir(pynvml):
            if name.startswith(_COPIED_PREFIXES) and name not in absent:
                setattr(self, name, getattr(pynvml, name))
        if "NVMLLibraryMismatchError" not in absent:
            self.NVMLLibraryMismatchError = pynvml.NVMLLibraryMismatchError
        self._absent = absent
        self.desc = desc
        self.gpus: list[dict[str, Any]] = desc.get("gpus", [])
        self.init_error = init_error
        self.count_error = count_error
        self.missing_functions = set(desc.get("missing_functions", ())) | set(missing_functions)
        self.calls: list[tuple[str, int | None]] = []
        self.refcount = 0

    def __getattribute__(self, name: str) -> Any:
        # Hide bindings that the imitated package does not have (hasattr() says False).
        if not name.startswith("__") and name in object.__getattribute__(self, "__dict__").get("_absent", ()):
            raise AttributeError(f"module 'pynvml' has no attribute {name!r}")
        return super().__getattribute__(name)

    # ------------------------------------------------------------------ plumbing

    def calls_to(self, name: str, gpu: int | None = None) -> int:
        return sum(1 for n, g in self.calls if n == name and (gpu is None or g == gpu))

    def _enter(self, name: str, symbol: str, handle: _Handle | None = None) -> None:
        """What every real binding does first: find the C symbol in an initialised library."""
        self.calls.append((name, handle.gpu if handle is not None else None))
        if self.refcount <= 0:
            raise nvml_error("UNINITIALIZED")
        if symbol in self.missing_functions:
            raise nvml_error("FUNCTION_NOT_FOUND")

    def _read(self, name: str, symbol: str, handle: _Handle, key: str, error_key: str | None = None) -> Any:
        self._enter(name, symbol, handle)
        error = handle.desc.get("errors", {}).get(error_key or key)
        if error is not None:
            raise nvml_error(error)
        value = handle.desc.get(key)
        if value is None:
            raise nvml_error("NOT_SUPPORTED")
        return value

    def _system(self, name: str, symbol: str, key: str) -> Any:
        self._enter(name, symbol)
        error = self.desc.get("errors", {}).get(key)
        if error is not None:
            raise nvml_error(error)
        value = self.desc.get(key)
        if value is None:
            raise nvml_error("NOT_SUPPORTED")
        return value

    def _nvmlGetFunctionPointer(self, name: str) -> Any:
        if self.refcount <= 0:
            raise nvml_error("UNINITIALIZED")
        if name in self.missing_functions:
            raise nvml_error("FUNCTION_NOT_FOUND")
        return getattr(self, name)

    # ------------------------------------------------------------------ session

    def nvmlInit(self) -> None:
        self.calls.append(("nvmlInit", None))
        if self.init_error is not None:
            raise nvml_error(self.init_error)
        self.refcount += 1

    def nvmlShutdown(self) -> None:
        self._enter("nvmlShutdown", "nvmlShutdown")
        self.refcount -= 1

    # ------------------------------------------------------------------ system

    def nvmlSystemGetDriverVersion(self) -> str:
        return self._system("nvmlSystemGetDriverVersion", "nvmlSystemGetDriverVersion", "driver_version")

    def nvmlSystemGetCudaDriverVersion(self) -> int:
        return self._system("nvmlSystemGetCudaDriverVersion", "nvmlSystemGetCudaDriverVersion",
                            "cuda_driver_version")

    def nvmlSystemGetCudaDriverVersion_v2(self) -> int:
        return self._system("nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion_v2",
                            "cuda_driver_version")

    def nvmlSystemGetNVMLVersion(self) -> str:
        return self._system("nvmlSystemGetNVMLVersion", "nvmlSystemGetNVMLVersion", "nvml_version")

    def nvmlSystemGetProcessName(self, pid: int) -> str:
        self._enter("nvmlSystemGetProcessName", "nvmlSystemGetProcessName")
        for gpu in self.gpus:
            for proc in gpu.get("processes") or ():
                if proc["pid"] == pid and proc.get("name"):
                    return proc["name"]
        raise nvml_error("NOT_FOUND")

    def nvmlDeviceGetCount(self) -> int:
        self._enter("nvmlDeviceGetCount", "nvmlDeviceGetCount_v2")
        if self.count_error is not None:
            raise nvml_error(self.count_error)
        return len(self.gpus)

    def nvmlDeviceGetHandleByIndex(self, index: int) -> _Handle:
        self._enter("nvmlDeviceGetHandleByIndex", "nvmlDeviceGetHandleByIndex_v2")
        if not 0 <= index < len(self.gpus):
            raise nvml_error("INVALID_ARGUMENT")
        desc = self.gpus[index]
        if desc.get("handle_error") is not None:
            raise nvml_error(desc["handle_error"])
        return _Handle(index, desc)

    # ------------------------------------------------------------------ identity

    def nvmlDeviceGetName(self, handle: _Handle) -> str:
        return self._read("nvmlDeviceGetName", "nvmlDeviceGetName", handle, "name")

    def nvmlDeviceGetUUID(self, handle: _Handle) -> str:
        return self._read("nvmlDeviceGetUUID", "nvmlDeviceGetUUID", handle, "uuid")

    def nvmlDeviceGetSerial(self, handle: _Handle) -> str:
        return self._read("nvmlDeviceGetSerial", "nvmlDeviceGetSerial", handle, "serial")

    def nvmlDeviceGetPciInfo(self, handle: _Handle) -> Any:
        bus_id = self._read("nvmlDeviceGetPciInfo", "nvmlDeviceGetPciInfo_v3", handle, "pci_bus_id")
        info = pynvml.nvmlPciInfo_t()
        info.busId = bus_id  # the structure encodes str; reading decodes it again
        info.busIdLegacy = bus_id
        return info

    def nvmlDeviceGetCudaComputeCapability(self, handle: _Handle) -> tuple[int, int]:
        major, minor = self._read("nvmlDeviceGetCudaComputeCapability", "nvmlDeviceGetCudaComputeCapability",
                                  handle, "compute_capability")
        return (major, minor)

    def nvmlDeviceGetArchitecture(self, handle: _Handle) -> int:
        arch = self._read("nvmlDeviceGetArchitecture", "nvmlDeviceGetArchitecture", handle, "architecture")
        return arch if isinstance(arch, int) else getattr(pynvml, f"NVML_DEVICE_ARCH_{arch}")

    def nvmlDeviceGetVbiosVersion(self, handle: _Handle) -> str:
        return self._read("nvmlDeviceGetVbiosVersion", "nvmlDeviceGetVbiosVersion", handle, "vbios")

    def nvmlDeviceGetDisplayActive(self, handle: _Handle) -> int:
        active = self._read("nvmlDeviceGetDisplayActive", "nvmlDeviceGetDisplayActive", handle, "display_active")
        return pynvml.NVML_FEATURE_ENABLED if active else pynvml.NVML_FEATURE_DISABLED

    # ------------------------------------------------------------------ memory, sensors, clocks

    def nvmlDeviceGetMemoryInfo(self, handle: _Handle, version: int | None = None) -> Any:
        symbol = "nvmlDeviceGetMemoryInfo_v2" if version else "nvmlDeviceGetMemoryInfo"
        mem = self._read("nvmlDeviceGetMemoryInfo", symbol, handle, "memory_mib")
        total, used, free = (int(mem[k] * MIB) for k in ("total", "used", "free"))
        reserved = int(mem.get("reserved", 0) * MIB)
        if not version:
            # v1 counts the driver's reserved memory as used.
            return pynvml.c_nvmlMemory_t(total=total, free=free, used=used + reserved)
        if version != pynvml.nvmlMemory_v2:
            raise nvml_error("ARGUMENT_VERSION_MISMATCH")
        return pynvml.c_nvmlMemory_v2_t(version=version, total=total, reserved=reserved, free=free, used=used)

    def nvmlDeviceGetTemperature(self, handle: _Handle, sensor: int) -> int:
        if sensor != pynvml.NVML_TEMPERATURE_GPU:
            self._enter("nvmlDeviceGetTemperature", "nvmlDeviceGetTemperature", handle)
            raise nvml_error("INVALID_ARGUMENT")
        return self._read("nvmlDeviceGetTemperature", "nvmlDeviceGetTemperature", handle, "temperature_c")

    def nvmlDeviceGetFanSpeed(self, handle: _Handle) -> int:
        return self._read("nvmlDeviceGetFanSpeed", "nvmlDeviceGetFanSpeed", handle, "fan_percent")

    def nvmlDeviceGetPowerUsage(self, handle: _Handle) -> int:
        return self._read("nvmlDeviceGetPowerUsage", "nvmlDeviceGetPowerUsage", handle, "power_mw")

    def nvmlDeviceGetEnforcedPowerLimit(self, handle: _Handle) -> int:
        return self._read("nvmlDeviceGetEnforcedPowerLimit", "nvmlDeviceGetEnforcedPowerLimit", handle,
                          "power_limit_mw")

    def nvmlDeviceGetUtilizationRates(self, handle: _Handle) -> Any:
        util = self._read("nvmlDeviceGetUtilizationRates", "nvmlDeviceGetUtilizationRates", handle, "utilization")
        return pynvml.c_nvmlUtilization_t(gpu=util["gpu"], memory=util["memory"])

    _CLOCKS = {pynvml.NVML_CLOCK_GRAPHICS: "graphics", pynvml.NVML_CLOCK_SM: "sm", pynvml.NVML_CLOCK_MEM: "mem"}

    def _clock(self, name: str, handle: _Handle, key: str, clock: int) -> int:
        clocks = self._read(name, name, handle, key)
        value = clocks.get(self._CLOCKS.get(clock, ""))
        if value is None:
            raise nvml_error("NOT_SUPPORTED")
        return value

    def nvmlDeviceGetClockInfo(self, handle: _Handle, type: int) -> int:  # noqa: A002 - pynvml's name
        return self._clock("nvmlDeviceGetClockInfo", handle, "clocks_mhz", type)

    def nvmlDeviceGetMaxClockInfo(self, handle: _Handle, type: int) -> int:  # noqa: A002
        return self._clock("nvmlDeviceGetMaxClockInfo", handle, "max_clocks_mhz", type)

    def nvmlDeviceGetPerformanceState(self, handle: _Handle) -> int:
        return self._read("nvmlDeviceGetPerformanceState", "nvmlDeviceGetPerformanceState", handle, "pstate")

    def _pcie(self, name: str, handle: _Handle, part: str) -> int:
        pcie = self._read(name, name, handle, "pcie")
        if pcie.get(part) is None:
            raise nvml_error("NOT_SUPPORTED")
        return pcie[part]

    def nvmlDeviceGetCurrPcieLinkGeneration(self, handle: _Handle) -> int:
        return self._pcie("nvmlDeviceGetCurrPcieLinkGeneration", handle, "gen_current")

    def nvmlDeviceGetMaxPcieLinkGeneration(self, handle: _Handle) -> int:
        return self._pcie("nvmlDeviceGetMaxPcieLinkGeneration", handle, "gen_max")

    def nvmlDeviceGetCurrPcieLinkWidth(self, handle: _Handle) -> int:
        return self._pcie("nvmlDeviceGetCurrPcieLinkWidth", handle, "width_current")

    def nvmlDeviceGetMaxPcieLinkWidth(self, handle: _Handle) -> int:
        return self._pcie("nvmlDeviceGetMaxPcieLinkWidth", handle, "width_max")

    # ------------------------------------------------------------------ driver model (Windows)

    _DRIVER_MODELS = {"WDDM": pynvml.NVML_DRIVER_WDDM, "TCC": pynvml.NVML_DRIVER_WDM, "MCDM": pynvml.NVML_DRIVER_MCDM}

    def _driver_model(self, name: str, symbol: str, handle: _Handle) -> list[int]:
        current, pending = self._read(name, symbol, handle, "driver_model")
        return [self._DRIVER_MODELS[current], self._DRIVER_MODELS[pending]]

    def nvmlDeviceGetDriverModel_v1(self, handle: _Handle) -> list[int]:
        return self._driver_model("nvmlDeviceGetDriverModel_v1", "nvmlDeviceGetDriverModel", handle)

    def nvmlDeviceGetDriverModel_v2(self, handle: _Handle) -> list[int]:
        return self._driver_model("nvmlDeviceGetDriverModel_v2", "nvmlDeviceGetDriverModel_v2", handle)

    def nvmlDeviceGetDriverModel(self, handle: _Handle) -> list[int]:
        return self.nvmlDeviceGetDriverModel_v2(handle)  # as the real bindings do

    # ------------------------------------------------------------------ MIG

    def nvmlDeviceGetMigMode(self, handle: _Handle) -> list[int]:
        current, pending = self._read("nvmlDeviceGetMigMode", "nvmlDeviceGetMigMode", handle, "mig_mode")
        return [current, pending]

    def nvmlDeviceGetMaxMigDeviceCount(self, handle: _Handle) -> int:
        return self._read("nvmlDeviceGetMaxMigDeviceCount", "nvmlDeviceGetMaxMigDeviceCount", handle,
                          "max_mig_device_count")

    def nvmlDeviceGetMigDeviceHandleByIndex(self, handle: _Handle, index: int) -> _Handle:
        self._enter("nvmlDeviceGetMigDeviceHandleByIndex", "nvmlDeviceGetMigDeviceHandleByIndex", handle)
        error = handle.desc.get("errors", {}).get("mig_devices")
        if error is not None:
            raise nvml_error(error)
        for mig in handle.desc.get("mig_devices") or ():
            if mig["slot"] == index:
                return _Handle(handle.gpu, mig, mig=index)
        raise nvml_error("NOT_FOUND")

    def nvmlDeviceGetGpuInstanceId(self, handle: _Handle) -> int:
        return self._read("nvmlDeviceGetGpuInstanceId", "nvmlDeviceGetGpuInstanceId", handle, "gpu_instance_id")

    def nvmlDeviceGetComputeInstanceId(self, handle: _Handle) -> int:
        return self._read("nvmlDeviceGetComputeInstanceId", "nvmlDeviceGetComputeInstanceId", handle,
                          "compute_instance_id")

    # ------------------------------------------------------------------ processes

    def _processes(self, name: str, symbol: str, handle: _Handle, kind: str) -> list[Any]:
        self._enter(name, symbol, handle)
        error = handle.desc.get("errors", {}).get(f"{'compute' if kind == 'C' else 'graphics'}_processes")
        if error is not None:
            raise nvml_error(error)
        out = []
        for proc in handle.desc.get("processes") or ():
            if kind in proc["type"].split("+"):
                memory = proc.get("used_memory_mib")
                out.append(pynvml.nvmlFriendlyObject({
                    "pid": proc["pid"],
                    # the bindings turn NVML_VALUE_NOT_AVAILABLE (WDDM) into None
                    "usedGpuMemory": None if memory is None else int(memory * MIB),
                    "gpuInstanceId": proc.get("gpu_instance_id", _NOT_MIG),
                    "computeInstanceId": proc.get("compute_instance_id", _NOT_MIG),
                }))
        return out

    def nvmlDeviceGetComputeRunningProcesses_v3(self, handle: _Handle) -> list[Any]:
        return self._processes("nvmlDeviceGetComputeRunningProcesses_v3",
                               "nvmlDeviceGetComputeRunningProcesses_v3", handle, "C")

    def nvmlDeviceGetComputeRunningProcesses_v2(self, handle: _Handle) -> list[Any]:
        return self._processes("nvmlDeviceGetComputeRunningProcesses_v2",
                               "nvmlDeviceGetComputeRunningProcesses_v2", handle, "C")

    def nvmlDeviceGetComputeRunningProcesses(self, handle: _Handle) -> list[Any]:
        # The real unversioned wrapper turns FunctionNotFound into NVMLLibraryMismatchError.
        return pynvml.throwOnVersionMismatch(self.nvmlDeviceGetComputeRunningProcesses_v3)(handle)

    def nvmlDeviceGetGraphicsRunningProcesses_v3(self, handle: _Handle) -> list[Any]:
        return self._processes("nvmlDeviceGetGraphicsRunningProcesses_v3",
                               "nvmlDeviceGetGraphicsRunningProcesses_v3", handle, "G")

    def nvmlDeviceGetGraphicsRunningProcesses_v2(self, handle: _Handle) -> list[Any]:
        return self._processes("nvmlDeviceGetGraphicsRunningProcesses_v2",
                               "nvmlDeviceGetGraphicsRunningProcesses_v2", handle, "G")

    def nvmlDeviceGetGraphicsRunningProcesses(self, handle: _Handle) -> list[Any]:
        return pynvml.throwOnVersionMismatch(self.nvmlDeviceGetGraphicsRunningProcesses_v3)(handle)


# ---------------------------------------------------------------------------- impostors


def gpuopenanalytics_layout() -> types.ModuleType:
    """The gpuopenanalytics ``pynvml`` package as ``import pynvml`` sees it: its
    ``__init__`` is ``from .nvml import *``, so underscore names such as
    ``_nvmlGetFunctionPointer`` are not at the top level, and ``pynvml.nvml`` exists."""
    module = types.ModuleType("pynvml")
    module.__file__ = "site-packages/pynvml/__init__.py"
    for name in dir(pynvml):
        if not name.startswith("_"):
            setattr(module, name, getattr(pynvml, name))
    module.nvml = pynvml  # the submodule the star import came from
    return module


# Names nvidia-ml-py3 7.352.0 (2017) does not have: the _v2/_v3 calls, and everything
# added for Volta/Turing/Ampere and later drivers.
NVIDIA_ML_PY3_ABSENT = (
    "NVML_BRAND_NVIDIA_RTX",
    "nvmlMemory_v2",
    "nvmlDeviceGetComputeRunningProcesses_v2",
    "nvmlDeviceGetComputeRunningProcesses_v3",
    "nvmlDeviceGetGraphicsRunningProcesses_v2",
    "nvmlDeviceGetGraphicsRunningProcesses_v3",
    "nvmlDeviceGetCudaComputeCapability",
    "nvmlDeviceGetArchitecture",
    "nvmlDeviceGetMigMode",
    "nvmlDeviceGetMaxMigDeviceCount",
    "nvmlDeviceGetMigDeviceHandleByIndex",
    "nvmlDeviceGetGpuInstanceId",
    "nvmlDeviceGetComputeInstanceId",
    "nvmlDeviceGetDriverModel_v2",
    "nvmlSystemGetCudaDriverVersion_v2",
)


def nvidia_ml_py3_layout(description: dict[str, Any] | None = None) -> FakeNvml:
    """The abandoned ``nvidia-ml-py3`` package: a single ``pynvml.py`` too old for this code."""
    return FakeNvml(description, absent_attributes=NVIDIA_ML_PY3_ABSENT)


# ---------------------------------------------------------------------------- real machines
#
# Values transcribed from the captured nvidia-smi outputs in the shared reference folder
# (nvidia-smi/README.md there names each source repository, path and commit; both are MIT).
# tests/unit/test_nvml.py checks these descriptions against those captures when the folder
# is present. Values that no capture holds are marked "assumed".

_MASKED_UUID = "GPU-00000000-0000-0000-0000-000000000000"  # the capture masks UUIDs


_WINDOWS_APPS = "C:\\Windows\\SystemApps\\"
_FFMPEG = ("C:\\Users\\utku\\AppData\\Local\\Microsoft\\WinGet\\Packages\\"
           "Gyan.FFmpeg_Microsoft.Winget.Source_8wekyb3d8bbwe\\ffmpeg-8.1.1-full_build\\bin\\ffmpeg.exe")

# (pid, C / C+G from the table, name from the query-compute-apps CSV)
_RTX2080SUPER_PROCESSES = [
    (2056, "C+G", "C:\\Windows\\System32\\dwm.exe"),
    (4680, "C+G", "C:\\Program Files\\NVIDIA Corporation\\NVIDIA GeForce Experience\\NVIDIA Share.exe"),
    (12332, "C+G", "C:\\Windows\\explorer.exe"),
    (12444, "C+G", _WINDOWS_APPS + "MicrosoftWindows.Client.CBS_cw5n1h2txyewy\\TextInputHost.exe"),
    (14160, "C+G", _WINDOWS_APPS + "MicrosoftWindows.Client.CBS_cw5n1h2txyewy\\SearchHost.exe"),
    (14184, "C+G", _WINDOWS_APPS + "Microsoft.Windows.StartMenuExperienceHost_cw5n1h2txyewy\\"
                                   "StartMenuExperienceHost.exe"),
    (15076, "C+G", _WINDOWS_APPS + "ShellExperienceHost_cw5n1h2txyewy\\ShellExperienceHost.exe"),
    (16280, "C+G", "C:\\Program Files\\Controller Companion\\ControllerCompanion.exe"),
    (20372, "C+G", "C:\\Program Files\\NZXT CAM\\NZXT CAM.exe"),
    (24804, "C+G", "C:\\Windows\\ImmersiveControlPanel\\SystemSettings.exe"),
    (25704, "C", _FFMPEG),
    (26660, "C", _FFMPEG),
]


def rtx2080super_windows() -> dict[str, Any]:
    """Windows 11, GeForce RTX 2080 SUPER, WDDM, driver 591.86 / CUDA 13.1, under load.

    Source: 01-windows-wddm-geforce-rtx2080super-591.86.capture.txt, sections
    ``capabilities :: version``, ``load :: nvidia-smi (default table)``, ``load :: query-gpu``
    and ``load :: query-compute-apps`` (process names from the CSV; C / C+G from the table).
    """
    # WDDM: no per-process memory (the bindings return None for usedGpuMemory)
    processes = [{"pid": pid, "name": name, "type": kind, "used_memory_mib": None}
                 for pid, kind, name in _RTX2080SUPER_PROCESSES]
    return {
        "driver_version": "591.86",
        "cuda_driver_version": 13010,
        "nvml_version": "591.86",  # `nvidia-smi --version`: "NVML version : 591.86"
        "gpus": [{
            "name": "NVIDIA GeForce RTX 2080 SUPER",
            "uuid": _MASKED_UUID,
            "serial": None,  # [N/A] on GeForce
            "pci_bus_id": "00000000:0C:00.0",
            "compute_capability": (7, 5),
            "architecture": "TURING",
            "memory_mib": {"total": 8192, "reserved": 205, "used": 1296, "free": 6692},
            "temperature_c": 45,
            "fan_percent": 38,
            "power_mw": 97430,
            "power_limit_mw": 250000,
            "utilization": {"gpu": 7, "memory": 3},
            "clocks_mhz": {"graphics": 2055, "sm": 2055, "mem": 7500},
            "max_clocks_mhz": {"graphics": 2145, "sm": 2145, "mem": 7751},
            "pstate": 2,
            "pcie": {"gen_current": 3, "gen_max": 3, "width_current": 16, "width_max": 16},
            "driver_model": ("WDDM", "WDDM"),
            "mig_mode": None,  # N/A on GeForce
            "processes": processes,
            "vbios": "90.04.7a.40.73",
            "display_active": False,
        }],
    }


def _a100_mig(slot: int, gpu_instance_id: int) -> dict[str, Any]:
    return {
        "slot": slot,
        "gpu_instance_id": gpu_instance_id,
        "compute_instance_id": 0,
        "memory_mib": {"total": 19968, "reserved": 0, "used": 12, "free": 19955},
        # Not in the capture (assumed): MIG UUIDs, masked like the other captures; the profile
        # name follows from 14 SMs and 19968 MiB on an A100 80GB (1g.20gb).
        "uuid": f"MIG-00000000-0000-0000-0000-00000000000{slot}",
        "name": "NVIDIA A100-SXM4-80GB MIG 1g.20gb",
    }


def a100_mig_linux() -> dict[str, Any]:
    """Linux server, A100-SXM4-80GB with MIG enabled, driver 535.54.03 / CUDA 12.2.

    Source: 04-linux-4x-a100-sxm4-535.54.03.q-x.xml (``attached_gpus`` is 4, but the file
    keeps the first ``<gpu>`` only, so one GPU is described). Compute capability 8.0 is the
    A100's (the v12 XML has no compute_cap). NVML 12 + driver is assumed for the NVML version.
    """
    return {
        "driver_version": "535.54.03",
        "cuda_driver_version": 12020,
        "nvml_version": "12.535.54.03",  # assumed: not in the capture
        "gpus": [{
            "name": "NVIDIA A100-SXM4-80GB",
            "uuid": "GPU-513536b6-7d19-9063-b049-1e69664bb298",
            "serial": "1650522003820",
            "pci_bus_id": "00000000:01:00.0",
            "compute_capability": (8, 0),
            "architecture": "AMPERE",
            "memory_mib": {"total": 81920, "reserved": 869, "used": 50, "free": 80999},
            "temperature_c": 27,
            "fan_percent": None,  # N/A: passively cooled
            "power_mw": 67030,
            "power_limit_mw": 500000,
            "utilization": None,  # N/A while MIG is enabled
            "clocks_mhz": {"graphics": 1275, "sm": 1275, "mem": 1593},
            "max_clocks_mhz": {"graphics": 1410, "sm": 1410, "mem": 1593},
            "pstate": 0,
            "pcie": {"gen_current": 4, "gen_max": 4, "width_current": 16, "width_max": 16},
            "driver_model": None,  # Windows only
            "mig_mode": (pynvml.NVML_DEVICE_MIG_ENABLE, pynvml.NVML_DEVICE_MIG_ENABLE),
            "max_mig_device_count": 7,  # an A100 has 7 MIG slots; the 4 in the file are filled
            "mig_devices": [_a100_mig(0, 3), _a100_mig(1, 4), _a100_mig(2, 5), _a100_mig(3, 6)],
            "processes": [],
            "vbios": "92.00.36.00.02",
            "display_active": False,
        }],
    }


def gtx1660ti_418() -> dict[str, Any]:
    """Linux, GTX 1660 Ti on driver 418.43 / CUDA 10.1 (2019), older than the board:
    it calls it "Graphics Device", and lacks every NVML call added since.

    Source: 07-old-driver-418.43-gtx1660ti.q-x.xml. Compute capability 7.5 is TU116's.
    """
    return {
        "driver_version": "418.43",
        "cuda_driver_version": 10010,
        "nvml_version": "10.418.43",  # assumed: not in the capture
        # Symbols this driver predates: memory v2 (R515), _v3 processes (R510), _v2
        # processes, architecture and MIG (R450), the driver model _v2.
        "missing_functions": [
            "nvmlDeviceGetMemoryInfo_v2",
            "nvmlDeviceGetComputeRunningProcesses_v3",
            "nvmlDeviceGetGraphicsRunningProcesses_v3",
            "nvmlDeviceGetComputeRunningProcesses_v2",
            "nvmlDeviceGetGraphicsRunningProcesses_v2",
            "nvmlDeviceGetArchitecture",
            "nvmlDeviceGetMigMode",
            "nvmlDeviceGetMaxMigDeviceCount",
            "nvmlDeviceGetMigDeviceHandleByIndex",
            "nvmlDeviceGetDriverModel_v2",
        ],
        "gpus": [{
            "name": "Graphics Device",
            "uuid": "GPU-304a277d-3545-63b8-3a36-dfde3c992989",
            "serial": None,
            "pci_bus_id": "00000000:43:00.0",
            "compute_capability": (7, 5),
            "architecture": "TURING",  # never reached: the symbol is missing
            "memory_mib": {"total": 5912, "used": 0, "free": 5912},  # no reserved before v2
            "temperature_c": 40,
            "fan_percent": 0,
            "power_mw": 8930,
            "power_limit_mw": 130000,
            "utilization": {"gpu": 0, "memory": 1},
            "clocks_mhz": {"graphics": 300, "sm": 300, "mem": 405},
            "max_clocks_mhz": {"graphics": 2145, "sm": 2145, "mem": 4001},
            "pstate": 8,
            "pcie": {"gen_current": 1, "gen_max": 3, "width_current": 16, "width_max": 16},
            "driver_model": None,
            "processes": [],
            "vbios": "90.16.25.00.4C",
            "display_active": False,
        }],
    }
