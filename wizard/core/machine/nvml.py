"""NVML through NVIDIA's own bindings (nvidia-ml-py, module ``pynvml``): one diagnosis, and
a cheap sampler for the live plot.

Why NVML and not only nvidia-smi: NVML gives exact numbers (bytes, milliwatts, enum values)
with no text to parse, and its error classes say precisely what is wrong with the driver.
The module is passed in rather than imported here so that tests drive this code with a fake
that raises the real ``pynvml`` exception classes, and so that a wrong ``pynvml`` (another
package shadowing nvidia-ml-py) is diagnosed instead of crashing the import.

Error model, as gpustat and nvitop use it:

* ``nvmlInit`` failures are the diagnosis: no library (no driver), driver not loaded,
  library/kernel-module version mismatch (driver updated, reboot pending), no permission,
  GPU lost. They become ``SourceResult.status``; the exact text stays in ``raw_error``.
* Every per-GPU field is asked on its own. NotSupported (fan on a laptop, serial on GeForce,
  per-process memory on WDDM), NoPermission and FunctionNotFound (bindings newer than the
  driver) make that one field ``None`` (shown as n/a) and the query goes on.
* Newer calls fall back to older ones on FunctionNotFound: memory info v2 → v1 (drivers
  before 515), running processes ``_v3`` → ``_v2`` (before 510), CUDA driver version
  ``_v2`` → v1, driver model ``_v2`` → v1.

Hangs: an NVML call can block for a long time on a wedged GPU (fallen off the bus, a driver
stuck in recovery). Nothing here has a timeout: the caller runs :func:`query_nvml` on a
worker thread and gives up after a limit (``wizard.core.machine.nvidia.run_with_timeout``, which
turns a hang into STATUS_TIMEOUT), and the GUI calls :class:`NvmlSampler` off the GUI thread.

Layout: this module is the one-off query; :mod:`wizard.core.machine.nvml_calls` holds the error
model and value conversions, :mod:`wizard.core.machine.nvml_sampler` the live sampler (imported
here too, as the GPU page, the benchmark and the CLI know it by this module).
"""

from __future__ import annotations

import logging
import re
from typing import Any, Callable

from wizard.core.machine.models import (
    STATUS_ERROR,
    STATUS_GPU_LOST,
    STATUS_NO_DEVICES,
    GpuInfo,
    GpuProcess,
    MigDevice,
    SourceResult,
)
from wizard.core.machine.nvml_calls import (
    classify_init_error,
    conflict_text,
    constant_name,
    cuda_version_string,
    describe_error,
    first_available,
    is_nvml_error,
    missing_names,
    module_name,
    nvml_text,
    read_memory,
    to_mib,
    to_number,
    to_watts,
)

__all__ = ["CONFLICT_DETAIL", "SOURCE", "query_nvml"]

log = logging.getLogger(__name__)

SOURCE = "nvml"
CONFLICT_DETAIL = "pynvml-conflict"  # SourceResult.detail when the module is not nvidia-ml-py

# NVML_DEVICE_ARCH_* constant name → the marketing name nvidia-smi prints.
_ARCHITECTURES = {
    "NVML_DEVICE_ARCH_KEPLER": "Kepler",
    "NVML_DEVICE_ARCH_MAXWELL": "Maxwell",
    "NVML_DEVICE_ARCH_PASCAL": "Pascal",
    "NVML_DEVICE_ARCH_VOLTA": "Volta",
    "NVML_DEVICE_ARCH_TURING": "Turing",
    "NVML_DEVICE_ARCH_AMPERE": "Ampere",
    "NVML_DEVICE_ARCH_ADA": "Ada",
    "NVML_DEVICE_ARCH_HOPPER": "Hopper",
    "NVML_DEVICE_ARCH_BLACKWELL": "Blackwell",
    "NVML_DEVICE_ARCH_RUBIN": "Rubin",
}

# NVML_DRIVER_* → the Windows driver model names nvidia-smi prints ("WDM" is TCC).
_DRIVER_MODELS = {
    "NVML_DRIVER_WDDM": "WDDM",
    "NVML_DRIVER_WDM": "TCC",
    "NVML_DRIVER_MCDM": "MCDM",
}

_PSTATE_UNKNOWN = 32  # NVML_PSTATE_UNKNOWN

# Everything query_nvml calls without a fallback. nvidia-ml-py has had all of them since
# 11.450; a module that lacks one is another package shadowing it (pynvml-conflict).
_REQUIRED = (
    "NVMLError",
    "nvmlInit",
    "nvmlShutdown",
    "nvmlSystemGetDriverVersion",
    "nvmlSystemGetCudaDriverVersion",
    "nvmlSystemGetNVMLVersion",
    "nvmlDeviceGetCount",
    "nvmlDeviceGetHandleByIndex",
    "nvmlDeviceGetName",
    "nvmlDeviceGetUUID",
    "nvmlDeviceGetSerial",
    "nvmlDeviceGetPciInfo",
    "nvmlDeviceGetCudaComputeCapability",
    "nvmlDeviceGetArchitecture",
    "nvmlDeviceGetMemoryInfo",
    "nvmlDeviceGetTemperature",
    "nvmlDeviceGetFanSpeed",
    "nvmlDeviceGetPowerUsage",
    "nvmlDeviceGetEnforcedPowerLimit",
    "nvmlDeviceGetUtilizationRates",
    "nvmlDeviceGetClockInfo",
    "nvmlDeviceGetMaxClockInfo",
    "nvmlDeviceGetPerformanceState",
    "nvmlDeviceGetCurrPcieLinkGeneration",
    "nvmlDeviceGetMaxPcieLinkGeneration",
    "nvmlDeviceGetCurrPcieLinkWidth",
    "nvmlDeviceGetMaxPcieLinkWidth",
    "nvmlDeviceGetDriverModel",
    "nvmlDeviceGetMigMode",
    "nvmlDeviceGetMaxMigDeviceCount",
    "nvmlDeviceGetMigDeviceHandleByIndex",
    "nvmlDeviceGetGpuInstanceId",
    "nvmlDeviceGetComputeInstanceId",
    "nvmlDeviceGetComputeRunningProcesses",
    "nvmlDeviceGetGraphicsRunningProcesses",
    "nvmlDeviceGetVbiosVersion",
    "nvmlDeviceGetDisplayActive",
    "NVML_TEMPERATURE_GPU",
    "NVML_CLOCK_GRAPHICS",
    "NVML_CLOCK_SM",
    "NVML_CLOCK_MEM",
    "NVML_DEVICE_MIG_ENABLE",
    "NVML_FEATURE_ENABLED",
)


class _Device:
    """Fills one GpuInfo, one guarded NVML call per field.

    A failed field stays None and its error is logged; GpuIsLost marks the device lost and
    skips the remaining calls (each would fail the same way, or hang).
    """

    def __init__(self, nvml: Any, handle: Any, info: GpuInfo) -> None:
        self.nvml = nvml
        self.handle = handle
        self.info = info
        self.lost: BaseException | None = None

    def call(self, what: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if self.lost is not None:
            return None
        try:
            return fn(*args, **kwargs)
        except self.nvml.NVMLError as exc:
            log.debug("NVML GPU %s %s: %s", self.info.index, what, describe_error(exc))
            if is_nvml_error(exc, "GpuIsLost"):
                self.lost = exc
            return None

    def set(self, field: str, value: Any) -> None:
        if value is not None:
            setattr(self.info, field, value)
            self.info.sources[field] = SOURCE


def _fill_device(nvml: Any, dev: _Device) -> None:
    h = dev.handle
    n = nvml
    dev.set("name", nvml_text(dev.call("name", n.nvmlDeviceGetName, h)))
    dev.set("uuid", nvml_text(dev.call("uuid", n.nvmlDeviceGetUUID, h)))
    dev.set("serial", nvml_text(dev.call("serial", n.nvmlDeviceGetSerial, h)))
    pci = dev.call("pci", n.nvmlDeviceGetPciInfo, h)
    if pci is not None:
        dev.set("pci_bus_id", nvml_text(getattr(pci, "busId", None)))
    cc = dev.call("compute capability", n.nvmlDeviceGetCudaComputeCapability, h)
    if cc is not None:
        dev.set("compute_capability", f"{cc[0]}.{cc[1]}")
    arch = dev.call("architecture", n.nvmlDeviceGetArchitecture, h)
    if arch is not None:
        name = constant_name(n, _ARCHITECTURES, arch)
        if name is None:
            log.debug("NVML GPU %s: unknown architecture code %r", dev.info.index, arch)
        dev.set("architecture", _ARCHITECTURES.get(name or ""))
    mem = dev.call("memory", read_memory, n, h)
    if mem is not None:
        for field, value in zip(("memory_total_mib", "memory_used_mib", "memory_free_mib",
                                 "memory_reserved_mib"), mem):
            dev.set(field, value)
    dev.set("temperature_c", to_number(dev.call("temperature", n.nvmlDeviceGetTemperature, h,
                                              n.NVML_TEMPERATURE_GPU)))
    dev.set("fan_percent", to_number(dev.call("fan", n.nvmlDeviceGetFanSpeed, h)))
    dev.set("power_draw_w", to_watts(dev.call("power", n.nvmlDeviceGetPowerUsage, h)))
    dev.set("power_limit_w", to_watts(dev.call("power limit", n.nvmlDeviceGetEnforcedPowerLimit, h)))
    util = dev.call("utilization", n.nvmlDeviceGetUtilizationRates, h)
    if util is not None:
        dev.set("utilization_gpu_percent", to_number(util.gpu))
        dev.set("utilization_memory_percent", to_number(util.memory))
    for field, clock in (("clock_graphics_mhz", n.NVML_CLOCK_GRAPHICS), ("clock_sm_mhz", n.NVML_CLOCK_SM),
                         ("clock_mem_mhz", n.NVML_CLOCK_MEM)):
        dev.set(field, to_number(dev.call(field, n.nvmlDeviceGetClockInfo, h, clock)))
    dev.set("clock_sm_max_mhz", to_number(dev.call("max sm clock", n.nvmlDeviceGetMaxClockInfo, h,
                                                 n.NVML_CLOCK_SM)))
    pstate = dev.call("pstate", n.nvmlDeviceGetPerformanceState, h)
    if pstate is not None and pstate != _PSTATE_UNKNOWN:
        dev.set("pstate", f"P{pstate}")
    dev.set("pcie_gen_current", dev.call("pcie gen", n.nvmlDeviceGetCurrPcieLinkGeneration, h))
    dev.set("pcie_gen_max", dev.call("pcie max gen", n.nvmlDeviceGetMaxPcieLinkGeneration, h))
    dev.set("pcie_width_current", dev.call("pcie width", n.nvmlDeviceGetCurrPcieLinkWidth, h))
    dev.set("pcie_width_max", dev.call("pcie max width", n.nvmlDeviceGetMaxPcieLinkWidth, h))
    # Windows only; Linux answers NotSupported. _v2 is what the bindings call, v1 for older drivers.
    model = dev.call("driver model", first_available, n,
                     ("nvmlDeviceGetDriverModel", "nvmlDeviceGetDriverModel_v1"), h)
    if model is not None:
        dev.set("driver_model", _DRIVER_MODELS.get(constant_name(n, _DRIVER_MODELS, model[0]) or ""))
    mig = dev.call("mig mode", n.nvmlDeviceGetMigMode, h)
    if mig is not None:
        enabled = mig[0] == n.NVML_DEVICE_MIG_ENABLE
        dev.set("mig_mode", "Enabled" if enabled else "Disabled")
        if enabled:
            _fill_mig_devices(n, dev)
    _fill_processes(n, dev)
    dev.set("vbios_version", nvml_text(dev.call("vbios", n.nvmlDeviceGetVbiosVersion, h)))
    active = dev.call("display active", n.nvmlDeviceGetDisplayActive, h)
    if active is not None:
        dev.set("display_active", "Enabled" if active == n.NVML_FEATURE_ENABLED else "Disabled")


_MIG_PROFILE = re.compile(r"\bMIG\s+(\S+)\s*$")


def _fill_mig_devices(n: Any, dev: _Device) -> None:
    count = dev.call("mig device count", n.nvmlDeviceGetMaxMigDeviceCount, dev.handle)
    if count is None:
        return
    found: list[MigDevice] = []
    for i in range(count):
        if dev.lost is not None:
            break
        try:
            mh = n.nvmlDeviceGetMigDeviceHandleByIndex(dev.handle, i)
        except n.NVMLError as exc:
            # NotFound: no MIG device in this slot (the count is the maximum, not the number).
            if not is_nvml_error(exc, "NotFound"):
                log.debug("NVML GPU %s MIG %s: %s", dev.info.index, i, describe_error(exc))
                if is_nvml_error(exc, "GpuIsLost"):
                    dev.lost = exc
            continue
        mig = MigDevice(index=i)
        mig.gpu_instance_id = dev.call("mig gi", n.nvmlDeviceGetGpuInstanceId, mh)
        mig.compute_instance_id = dev.call("mig ci", n.nvmlDeviceGetComputeInstanceId, mh)
        mem = dev.call("mig memory", read_memory, n, mh)
        if mem is not None:
            mig.memory_total_mib, mig.memory_used_mib = mem[0], mem[1]
        mig.uuid = nvml_text(dev.call("mig uuid", n.nvmlDeviceGetUUID, mh))
        # A MIG handle's name ends in its profile: "NVIDIA A100-SXM4-80GB MIG 1g.20gb".
        match = _MIG_PROFILE.search(nvml_text(dev.call("mig name", n.nvmlDeviceGetName, mh)) or "")
        mig.profile = match.group(1) if match else None
        found.append(mig)
    dev.info.mig_devices = found
    dev.info.sources["mig_devices"] = SOURCE


def _process_list(n: Any, dev: _Device, kind: str) -> list[Any] | None:
    base = f"nvmlDeviceGet{kind}RunningProcesses"
    return dev.call(f"{kind.lower()} processes", first_available, n,
                    (base + "_v3", base + "_v2", base), dev.handle)


def _fill_processes(n: Any, dev: _Device) -> None:
    """Compute and graphics processes merged by pid (kind "C", "G" or "C+G", as nvidia-smi).

    ``usedGpuMemory`` is None where the driver does not count per process (WDDM, WSL).
    When neither list could be read, ``processes`` stays empty and has no source.
    """
    compute = _process_list(n, dev, "Compute")
    graphics = _process_list(n, dev, "Graphics")
    if compute is None and graphics is None:
        return
    merged: dict[int, GpuProcess] = {}
    for kind, procs in (("C", compute or []), ("G", graphics or [])):
        for proc in procs:
            pid = int(proc.pid)
            memory = to_mib(getattr(proc, "usedGpuMemory", None))
            known = merged.get(pid)
            if known is None:
                merged[pid] = GpuProcess(pid=pid, used_memory_mib=memory, kind=kind)
            else:
                if kind not in (known.kind or "").split("+"):
                    known.kind = f"{known.kind}+{kind}" if known.kind else kind
                if known.used_memory_mib is None:
                    known.used_memory_mib = memory
    get_name = getattr(n, "nvmlSystemGetProcessName", None)
    if get_name is not None:
        for proc in merged.values():
            proc.name = nvml_text(dev.call("process name", get_name, proc.pid))
    dev.info.processes = list(merged.values())
    dev.info.sources["processes"] = SOURCE


def _append_error(result: SourceResult, text: str) -> None:
    result.raw_error = text if not result.raw_error else f"{result.raw_error}; {text}"


def _query_system(nvml: Any, result: SourceResult) -> None:
    def ask(what: str, fn: Callable[[], Any]) -> Any:
        try:
            return fn()
        except nvml.NVMLError as exc:
            log.debug("NVML %s: %s", what, describe_error(exc))
            return None

    result.driver_version = nvml_text(ask("driver version", nvml.nvmlSystemGetDriverVersion))
    cuda = ask("cuda driver version", lambda: first_available(
        nvml, ("nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion")))
    result.cuda_version = cuda_version_string(cuda)
    result.nvml_version = nvml_text(ask("nvml version", nvml.nvmlSystemGetNVMLVersion))


def _query_session(nvml: Any, result: SourceResult) -> None:
    """Everything between nvmlInit and nvmlShutdown."""
    _query_system(nvml, result)
    try:
        count = nvml.nvmlDeviceGetCount()
    except nvml.NVMLError as exc:
        result.status = classify_init_error(exc)
        _append_error(result, describe_error(exc))
        return
    if count == 0:
        result.status = STATUS_NO_DEVICES
        return
    for index in range(count):
        info = GpuInfo(index=index, sources={"index": SOURCE})
        result.gpus.append(info)
        try:
            handle = nvml.nvmlDeviceGetHandleByIndex(index)
        except nvml.NVMLError as exc:
            # gpustat's InvalidGPU row: keep the index, keep going with the other GPUs.
            _append_error(result, f"GPU {index}: {describe_error(exc)}")
            if is_nvml_error(exc, "GpuIsLost"):
                result.status = STATUS_GPU_LOST
            continue
        dev = _Device(nvml, handle, info)
        _fill_device(nvml, dev)
        if dev.lost is not None:
            result.status = STATUS_GPU_LOST
            _append_error(result, f"GPU {index}: {describe_error(dev.lost)}")


def query_nvml(nvml_module: Any) -> SourceResult:
    """Ask NVML everything the GPU page shows, in one session (source "nvml").

    Never raises for NVML's own errors: an ``nvmlInit`` failure becomes the status
    (LibraryNotFound → no-driver, DriverNotLoaded, LibRmVersionMismatch, NoPermission,
    GpuIsLost, else error) with ``raw_error`` = ``"<class>: <text>"``; no GPU → no-devices;
    a module that is not nvidia-ml-py → error with detail ``"pynvml-conflict"``.
    Blocks as long as NVML does: run it on a worker thread with a timeout.
    """
    nvml = nvml_module
    result = SourceResult(source=SOURCE)
    missing = missing_names(nvml, _REQUIRED)
    if missing:
        result.status = STATUS_ERROR
        result.detail = CONFLICT_DETAIL
        names = ", ".join(repr(name) for name in missing)
        result.raw_error = conflict_text(
            nvml, f"AttributeError: module {module_name(nvml)!r} has no attribute {names}")
        return result
    try:
        nvml.nvmlInit()
    except nvml.NVMLError as exc:
        result.status = classify_init_error(exc)
        result.raw_error = describe_error(exc)
        return result
    except AttributeError as exc:
        result.status, result.detail = STATUS_ERROR, CONFLICT_DETAIL
        result.raw_error = conflict_text(nvml, describe_error(exc))
        return result
    try:
        _query_session(nvml, result)
    except AttributeError as exc:
        # A function or struct field this code relies on is missing: not nvidia-ml-py.
        result.status, result.detail = STATUS_ERROR, CONFLICT_DETAIL
        result.raw_error = conflict_text(nvml, describe_error(exc))
        result.gpus = []
    finally:
        try:
            nvml.nvmlShutdown()
        except nvml.NVMLError as exc:
            # The answers are already in hand; a failed shutdown only leaks a refcount.
            log.warning("nvmlShutdown failed: %s", describe_error(exc))
    return result
