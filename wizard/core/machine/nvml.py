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
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from wizard.core.machine.models import (
    STATUS_DRIVER_NOT_LOADED,
    STATUS_ERROR,
    STATUS_GPU_LOST,
    STATUS_NO_DEVICES,
    STATUS_NO_DRIVER,
    STATUS_NO_PERMISSION,
    STATUS_VERSION_MISMATCH,
    GpuInfo,
    GpuProcess,
    MigDevice,
    SourceResult,
)

log = logging.getLogger(__name__)

SOURCE = "nvml"
CONFLICT_DETAIL = "pynvml-conflict"  # SourceResult.detail when the module is not nvidia-ml-py

MIB = 1024 * 1024

# nvmlInit (and nvmlDeviceGetCount) failures → what the findings layer explains.
# Keyed by the class name that pynvml generates from NVML_ERROR_* ("NVMLError_" + CamelCase).
_INIT_STATUS = {
    "NVMLError_LibraryNotFound": STATUS_NO_DRIVER,
    "NVMLError_DriverNotLoaded": STATUS_DRIVER_NOT_LOADED,
    "NVMLError_LibRmVersionMismatch": STATUS_VERSION_MISMATCH,
    "NVMLError_NoPermission": STATUS_NO_PERMISSION,
    "NVMLError_GpuIsLost": STATUS_GPU_LOST,
}

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

# What the sampler needs (a subset: it is opened where the full query may never run).
_SAMPLER_REQUIRED = (
    "NVMLError",
    "nvmlInit",
    "nvmlShutdown",
    "nvmlDeviceGetCount",
    "nvmlDeviceGetHandleByIndex",
    "nvmlDeviceGetUtilizationRates",
    "nvmlDeviceGetMemoryInfo",
    "nvmlDeviceGetTemperature",
    "nvmlDeviceGetPowerUsage",
    "nvmlDeviceGetClockInfo",
    "NVML_TEMPERATURE_GPU",
    "NVML_CLOCK_SM",
)


# --------------------------------------------------------------------------- helpers


def describe_error(exc: BaseException) -> str:
    """The text kept for the report: ``"NVMLError_LibraryNotFound: NVML Shared Library Not Found"``."""
    return f"{type(exc).__name__}: {exc}"


def _is(exc: BaseException, suffix: str) -> bool:
    """Is ``exc`` the NVMLError subclass ``NVMLError_<suffix>``? By name, so any copy of the
    bindings (and the generated classes' stable names) is recognised."""
    return any(cls.__name__ == f"NVMLError_{suffix}" for cls in type(exc).__mro__)


def classify_init_error(exc: BaseException) -> str:
    """The STATUS_* for an ``nvmlInit`` (or ``nvmlDeviceGetCount``) failure."""
    for cls in type(exc).__mro__:
        status = _INIT_STATUS.get(cls.__name__)
        if status is not None:
            return status
    return STATUS_ERROR


def cuda_version_string(value: int | None) -> str | None:
    """NVML's ``1000*major + 10*minor`` (12080) → ``"12.8"``; 0 or less → None."""
    if value is None or value <= 0:
        return None
    return f"{value // 1000}.{(value % 1000) // 10}"


def _text(value: Any) -> str | None:
    """NVML strings: ``str`` from current bindings, ``bytes`` from old ones; empty → None."""
    if value is None:
        return None
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    value = str(value).strip()
    return value or None


def _mib(value: Any) -> float | None:
    return None if value is None else float(value) / MIB


def _watts(milliwatts: Any) -> float | None:
    return None if milliwatts is None else float(milliwatts) / 1000.0


def _number(value: Any) -> float | None:
    return None if value is None else float(value)


def _constant_name(nvml: Any, names: Iterable[str], value: Any) -> str | None:
    """Which of the module's constants ``names`` equals ``value`` (None when none does)."""
    for name in names:
        if getattr(nvml, name, object()) == value:
            return name
    return None


def _missing(nvml: Any, names: Iterable[str]) -> list[str]:
    return [name for name in names if not hasattr(nvml, name)]


def _module_name(nvml: Any) -> str:
    return getattr(nvml, "__name__", None) or "pynvml"


def _conflict_text(nvml: Any, exc_text: str) -> str:
    hint = check_bindings(nvml)
    return f"{exc_text} ({hint})" if hint else exc_text


def read_memory(nvml: Any, handle: Any) -> tuple[float, float, float, float | None]:
    """(total, used, free, reserved) in MiB; reserved is None from the v1 call.

    v2 (drivers 515+) separates memory the driver reserves from memory in use; v1 counts it
    as used. Falls back to v1 on FunctionNotFound (older driver) and on TypeError (bindings
    whose ``nvmlDeviceGetMemoryInfo`` takes no ``version``). Other NVML errors propagate.
    """
    version = getattr(nvml, "nvmlMemory_v2", None)
    if version is not None:
        try:
            mem = nvml.nvmlDeviceGetMemoryInfo(handle, version=version)
        except TypeError as exc:
            log.debug("nvmlDeviceGetMemoryInfo takes no version (%s); using v1", exc)
        except nvml.NVMLError as exc:
            if not _is(exc, "FunctionNotFound"):
                raise
            log.debug("nvmlDeviceGetMemoryInfo_v2 not in this driver; using v1")
        else:
            return _mib(mem.total), _mib(mem.used), _mib(mem.free), _mib(mem.reserved)
    mem = nvml.nvmlDeviceGetMemoryInfo(handle)
    return _mib(mem.total), _mib(mem.used), _mib(mem.free), None


def _first_available(nvml: Any, names: Iterable[str], *args: Any) -> Any:
    """Call the first of ``names`` that the module has and the driver implements.

    FunctionNotFound (and pynvml's NVMLLibraryMismatchError, which its unversioned wrappers
    raise instead) moves on to the next name; any other NVML error propagates. Raises the
    last such error when none worked.
    """
    mismatch = getattr(nvml, "NVMLLibraryMismatchError", None)
    skip: tuple[type[BaseException], ...] = (mismatch,) if isinstance(mismatch, type) else ()
    last: BaseException | None = None
    tried: set[str] = set()
    for name in names:
        fn = getattr(nvml, name, None)
        if fn is None or name in tried:
            continue
        tried.add(name)
        try:
            return fn(*args)
        except nvml.NVMLError as exc:
            if not _is(exc, "FunctionNotFound"):
                raise
            last = exc
        except skip as exc:
            last = exc
        log.debug("%s: not available (%s); trying an older call", name, last)
    if isinstance(last, nvml.NVMLError):
        raise last
    # Always an NVMLError, so that callers treat it as one more field that is n/a.
    raise nvml.NVMLError(getattr(nvml, "NVML_ERROR_FUNCTION_NOT_FOUND", 13)) from last


# --------------------------------------------------------------------------- the query


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
            if _is(exc, "GpuIsLost"):
                self.lost = exc
            return None

    def set(self, field: str, value: Any) -> None:
        if value is not None:
            setattr(self.info, field, value)
            self.info.sources[field] = SOURCE


def _fill_device(nvml: Any, dev: _Device) -> None:
    h = dev.handle
    n = nvml
    dev.set("name", _text(dev.call("name", n.nvmlDeviceGetName, h)))
    dev.set("uuid", _text(dev.call("uuid", n.nvmlDeviceGetUUID, h)))
    dev.set("serial", _text(dev.call("serial", n.nvmlDeviceGetSerial, h)))
    pci = dev.call("pci", n.nvmlDeviceGetPciInfo, h)
    if pci is not None:
        dev.set("pci_bus_id", _text(getattr(pci, "busId", None)))
    cc = dev.call("compute capability", n.nvmlDeviceGetCudaComputeCapability, h)
    if cc is not None:
        dev.set("compute_capability", f"{cc[0]}.{cc[1]}")
    arch = dev.call("architecture", n.nvmlDeviceGetArchitecture, h)
    if arch is not None:
        name = _constant_name(n, _ARCHITECTURES, arch)
        if name is None:
            log.debug("NVML GPU %s: unknown architecture code %r", dev.info.index, arch)
        dev.set("architecture", _ARCHITECTURES.get(name or ""))
    mem = dev.call("memory", read_memory, n, h)
    if mem is not None:
        for field, value in zip(("memory_total_mib", "memory_used_mib", "memory_free_mib",
                                 "memory_reserved_mib"), mem):
            dev.set(field, value)
    dev.set("temperature_c", _number(dev.call("temperature", n.nvmlDeviceGetTemperature, h,
                                              n.NVML_TEMPERATURE_GPU)))
    dev.set("fan_percent", _number(dev.call("fan", n.nvmlDeviceGetFanSpeed, h)))
    dev.set("power_draw_w", _watts(dev.call("power", n.nvmlDeviceGetPowerUsage, h)))
    dev.set("power_limit_w", _watts(dev.call("power limit", n.nvmlDeviceGetEnforcedPowerLimit, h)))
    util = dev.call("utilization", n.nvmlDeviceGetUtilizationRates, h)
    if util is not None:
        dev.set("utilization_gpu_percent", _number(util.gpu))
        dev.set("utilization_memory_percent", _number(util.memory))
    for field, clock in (("clock_graphics_mhz", n.NVML_CLOCK_GRAPHICS), ("clock_sm_mhz", n.NVML_CLOCK_SM),
                         ("clock_mem_mhz", n.NVML_CLOCK_MEM)):
        dev.set(field, _number(dev.call(field, n.nvmlDeviceGetClockInfo, h, clock)))
    dev.set("clock_sm_max_mhz", _number(dev.call("max sm clock", n.nvmlDeviceGetMaxClockInfo, h,
                                                 n.NVML_CLOCK_SM)))
    pstate = dev.call("pstate", n.nvmlDeviceGetPerformanceState, h)
    if pstate is not None and pstate != _PSTATE_UNKNOWN:
        dev.set("pstate", f"P{pstate}")
    dev.set("pcie_gen_current", dev.call("pcie gen", n.nvmlDeviceGetCurrPcieLinkGeneration, h))
    dev.set("pcie_gen_max", dev.call("pcie max gen", n.nvmlDeviceGetMaxPcieLinkGeneration, h))
    dev.set("pcie_width_current", dev.call("pcie width", n.nvmlDeviceGetCurrPcieLinkWidth, h))
    dev.set("pcie_width_max", dev.call("pcie max width", n.nvmlDeviceGetMaxPcieLinkWidth, h))
    # Windows only; Linux answers NotSupported. _v2 is what the bindings call, v1 for older drivers.
    model = dev.call("driver model", _first_available, n,
                     ("nvmlDeviceGetDriverModel", "nvmlDeviceGetDriverModel_v1"), h)
    if model is not None:
        dev.set("driver_model", _DRIVER_MODELS.get(_constant_name(n, _DRIVER_MODELS, model[0]) or ""))
    mig = dev.call("mig mode", n.nvmlDeviceGetMigMode, h)
    if mig is not None:
        enabled = mig[0] == n.NVML_DEVICE_MIG_ENABLE
        dev.set("mig_mode", "Enabled" if enabled else "Disabled")
        if enabled:
            _fill_mig_devices(n, dev)
    _fill_processes(n, dev)
    dev.set("vbios_version", _text(dev.call("vbios", n.nvmlDeviceGetVbiosVersion, h)))
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
            if not _is(exc, "NotFound"):
                log.debug("NVML GPU %s MIG %s: %s", dev.info.index, i, describe_error(exc))
                if _is(exc, "GpuIsLost"):
                    dev.lost = exc
            continue
        mig = MigDevice(index=i)
        mig.gpu_instance_id = dev.call("mig gi", n.nvmlDeviceGetGpuInstanceId, mh)
        mig.compute_instance_id = dev.call("mig ci", n.nvmlDeviceGetComputeInstanceId, mh)
        mem = dev.call("mig memory", read_memory, n, mh)
        if mem is not None:
            mig.memory_total_mib, mig.memory_used_mib = mem[0], mem[1]
        mig.uuid = _text(dev.call("mig uuid", n.nvmlDeviceGetUUID, mh))
        # A MIG handle's name ends in its profile: "NVIDIA A100-SXM4-80GB MIG 1g.20gb".
        match = _MIG_PROFILE.search(_text(dev.call("mig name", n.nvmlDeviceGetName, mh)) or "")
        mig.profile = match.group(1) if match else None
        found.append(mig)
    dev.info.mig_devices = found
    dev.info.sources["mig_devices"] = SOURCE


def _process_list(n: Any, dev: _Device, kind: str) -> list[Any] | None:
    base = f"nvmlDeviceGet{kind}RunningProcesses"
    return dev.call(f"{kind.lower()} processes", _first_available, n,
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
            memory = _mib(getattr(proc, "usedGpuMemory", None))
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
            proc.name = _text(dev.call("process name", get_name, proc.pid))
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

    result.driver_version = _text(ask("driver version", nvml.nvmlSystemGetDriverVersion))
    cuda = ask("cuda driver version", lambda: _first_available(
        nvml, ("nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion")))
    result.cuda_version = cuda_version_string(cuda)
    result.nvml_version = _text(ask("nvml version", nvml.nvmlSystemGetNVMLVersion))


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
            if _is(exc, "GpuIsLost"):
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
    missing = _missing(nvml, _REQUIRED)
    if missing:
        result.status = STATUS_ERROR
        result.detail = CONFLICT_DETAIL
        names = ", ".join(repr(name) for name in missing)
        result.raw_error = _conflict_text(
            nvml, f"AttributeError: module {_module_name(nvml)!r} has no attribute {names}")
        return result
    try:
        nvml.nvmlInit()
    except nvml.NVMLError as exc:
        result.status = classify_init_error(exc)
        result.raw_error = describe_error(exc)
        return result
    except AttributeError as exc:
        result.status, result.detail = STATUS_ERROR, CONFLICT_DETAIL
        result.raw_error = _conflict_text(nvml, describe_error(exc))
        return result
    try:
        _query_session(nvml, result)
    except AttributeError as exc:
        # A function or struct field this code relies on is missing: not nvidia-ml-py.
        result.status, result.detail = STATUS_ERROR, CONFLICT_DETAIL
        result.raw_error = _conflict_text(nvml, describe_error(exc))
        result.gpus = []
    finally:
        try:
            nvml.nvmlShutdown()
        except nvml.NVMLError as exc:
            # The answers are already in hand; a failed shutdown only leaks a refcount.
            log.warning("nvmlShutdown failed: %s", describe_error(exc))
    return result


# --------------------------------------------------------------------------- bindings check


def check_bindings(nvml_module: Any) -> str | None:
    """Is this ``pynvml`` NVIDIA's nvidia-ml-py? None when it is, else a short diagnostic.

    Two impostors share the module name: the gpuopenanalytics ``pynvml`` package (a package
    whose ``__init__`` star-imports ``pynvml.nvml``, so ``_nvmlGetFunctionPointer`` is not at
    the top level) and the abandoned ``nvidia-ml-py3`` (2017, no ``_v3`` process calls, no
    ``NVML_BRAND_NVIDIA_RTX``). The same test as gpustat's import-time check.
    """
    where = getattr(nvml_module, "__file__", None)
    at = f" (loaded from {where})" if where else ""
    has_pointer = hasattr(nvml_module, "_nvmlGetFunctionPointer")
    modern = hasattr(nvml_module, "nvmlDeviceGetComputeRunningProcesses_v3") or hasattr(
        nvml_module, "NVML_BRAND_NVIDIA_RTX")
    if has_pointer and modern:
        return None
    if not has_pointer and hasattr(nvml_module, "nvml"):
        return (f"'pynvml'{at} is the gpuopenanalytics pynvml package, not NVIDIA's nvidia-ml-py; "
                "uninstall pynvml and install nvidia-ml-py")
    if not has_pointer:
        return f"'pynvml'{at} is not NVIDIA's nvidia-ml-py bindings; install nvidia-ml-py"
    return (f"'pynvml'{at} is an outdated copy of the NVML bindings (nvidia-ml-py3 or an old "
            "nvidia-ml-py); uninstall nvidia-ml-py3 and install the current nvidia-ml-py")


# --------------------------------------------------------------------------- live sampler


@dataclass
class GpuSample:
    """One point of the live plot. None: the GPU does not report it (or did not this time)."""

    index: int
    t: float  # time.monotonic() seconds
    utilization_gpu: float | None = None  # percent
    memory_used_mib: float | None = None
    memory_total_mib: float | None = None
    temperature_c: float | None = None
    power_w: float | None = None
    clock_sm_mhz: float | None = None


class NvmlSampler:
    """The GPU page's once-a-second numbers, from one NVML session held open.

    Cheap on purpose: handles are looked up once in :meth:`open`, and :meth:`sample` asks
    only utilization, memory, temperature, power and SM clock (five calls per GPU). A
    field that answered NotSupported or FunctionNotFound is never asked again (nvitop's
    UNKNOWN_FUNCTIONS idea): it will not start working, and failing calls are not free.
    A GPU that reports GpuIsLost is not asked again either; its samples are all None.

    NVML sessions are reference-counted, so this may stay open while :func:`query_nvml`
    runs. Call it from one worker thread; like every NVML call, :meth:`sample` can block
    on a wedged GPU.
    """

    _PERMANENT = ("NotSupported", "FunctionNotFound")

    def __init__(self, nvml_module: Any, clock: Callable[[], float] = time.monotonic) -> None:
        self.nvml = nvml_module
        self.error: str | None = None
        self._clock = clock
        self._open = False
        self._handles: list[tuple[int, Any]] = []
        self._unsupported: set[tuple[int, str]] = set()
        self._lost: set[int] = set()

    @property
    def is_open(self) -> bool:
        return self._open

    def open(self) -> bool:
        """Start the session and cache the handles. False (and ``self.error``) without NVML."""
        if self._open:
            return True
        nvml = self.nvml
        missing = _missing(nvml, _SAMPLER_REQUIRED)
        if missing:
            self.error = _conflict_text(
                nvml, f"AttributeError: module {_module_name(nvml)!r} has no attribute "
                + ", ".join(repr(m) for m in missing))
            return False
        try:
            nvml.nvmlInit()
        except nvml.NVMLError as exc:
            self.error = describe_error(exc)
            return False
        try:
            count = nvml.nvmlDeviceGetCount()
        except nvml.NVMLError as exc:
            self.error = describe_error(exc)
            self._shutdown()
            return False
        self.error = None
        self._handles = []
        problems = []
        for index in range(count):
            try:
                self._handles.append((index, nvml.nvmlDeviceGetHandleByIndex(index)))
            except nvml.NVMLError as exc:
                problems.append(f"GPU {index}: {describe_error(exc)}")
        if problems:
            self.error = "; ".join(problems)  # the other GPUs are still sampled
        self._open = True
        return True

    def _ask(self, index: int, what: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if (index, what) in self._unsupported or index in self._lost:
            return None
        try:
            return fn(*args, **kwargs)
        except self.nvml.NVMLError as exc:
            if any(_is(exc, name) for name in self._PERMANENT):
                self._unsupported.add((index, what))
            elif _is(exc, "GpuIsLost"):
                self._lost.add(index)
                text = f"GPU {index}: {describe_error(exc)}"
                self.error = text if not self.error else f"{self.error}; {text}"
            return None

    def _memory(self, index: int, handle: Any) -> Any:
        nvml = self.nvml
        version = getattr(nvml, "nvmlMemory_v2", None)
        if version is not None and (index, "memory_v2") not in self._unsupported:
            try:
                mem = self._ask(index, "memory_v2", nvml.nvmlDeviceGetMemoryInfo, handle, version=version)
            except TypeError:  # bindings without the version argument
                self._unsupported.add((index, "memory_v2"))
                mem = None
            if (index, "memory_v2") not in self._unsupported:
                return mem  # v2 answered, or failed only this time
        return self._ask(index, "memory", nvml.nvmlDeviceGetMemoryInfo, handle)

    def sample(self) -> list[GpuSample]:
        """One sample per GPU opened; raises RuntimeError before :meth:`open` succeeded."""
        if not self._open:
            raise RuntimeError("NvmlSampler.sample() called before a successful open()")
        nvml = self.nvml
        samples = []
        for index, handle in self._handles:
            s = GpuSample(index=index, t=self._clock())
            util = self._ask(index, "utilization", nvml.nvmlDeviceGetUtilizationRates, handle)
            if util is not None:
                s.utilization_gpu = _number(util.gpu)
            mem = self._memory(index, handle)
            if mem is not None:
                s.memory_used_mib, s.memory_total_mib = _mib(mem.used), _mib(mem.total)
            s.temperature_c = _number(self._ask(index, "temperature", nvml.nvmlDeviceGetTemperature,
                                                handle, nvml.NVML_TEMPERATURE_GPU))
            s.power_w = _watts(self._ask(index, "power", nvml.nvmlDeviceGetPowerUsage, handle))
            s.clock_sm_mhz = _number(self._ask(index, "clock_sm", nvml.nvmlDeviceGetClockInfo,
                                               handle, nvml.NVML_CLOCK_SM))
            samples.append(s)
        return samples

    def _shutdown(self) -> None:
        try:
            self.nvml.nvmlShutdown()
        except self.nvml.NVMLError as exc:
            log.warning("nvmlShutdown failed: %s", describe_error(exc))

    def close(self) -> None:
        """End the session. Safe to call twice, or after a failed open()."""
        if self._open:
            self._open = False
            self._handles = []
            self._shutdown()

    def __enter__(self) -> "NvmlSampler":
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
