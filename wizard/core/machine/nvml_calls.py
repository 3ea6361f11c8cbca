"""How to call NVIDIA's NVML bindings (nvidia-ml-py) and read what they return.

Why a module of its own: the one-off diagnosis (:mod:`wizard.core.machine.nvml`) and the live
sampler (:mod:`wizard.core.machine.nvml_sampler`) share the same error model and value
conversions: NVMLError subclasses recognised by name (so any copy of the bindings works), init
failures mapped to a STATUS_*, strings that may be bytes, milliwatts and bytes converted, newer
calls falling back to older ones on FunctionNotFound, and the check that ``pynvml`` is really
nvidia-ml-py and not a package shadowing it.
"""

from __future__ import annotations

import logging
from typing import Any, Iterable

from wizard.core.machine.models import (
    STATUS_DRIVER_NOT_LOADED,
    STATUS_ERROR,
    STATUS_GPU_LOST,
    STATUS_NO_DRIVER,
    STATUS_NO_PERMISSION,
    STATUS_VERSION_MISMATCH,
)

log = logging.getLogger(__name__)

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


def describe_error(exc: BaseException) -> str:
    """The text kept for the report: ``"NVMLError_LibraryNotFound: NVML Shared Library Not Found"``."""
    return f"{type(exc).__name__}: {exc}"


def is_nvml_error(exc: BaseException, suffix: str) -> bool:
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


def nvml_text(value: Any) -> str | None:
    """NVML strings: ``str`` from current bindings, ``bytes`` from old ones; empty → None."""
    if value is None:
        return None
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    value = str(value).strip()
    return value or None


def to_mib(value: Any) -> float | None:
    """Bytes → MiB, the unit nvidia-smi prints."""
    return None if value is None else float(value) / MIB


def to_watts(milliwatts: Any) -> float | None:
    """NVML's milliwatts → watts."""
    return None if milliwatts is None else float(milliwatts) / 1000.0


def to_number(value: Any) -> float | None:
    """An NVML integer as a float, None kept."""
    return None if value is None else float(value)


def constant_name(nvml: Any, names: Iterable[str], value: Any) -> str | None:
    """Which of the module's constants ``names`` equals ``value`` (None when none does)."""
    for name in names:
        if getattr(nvml, name, object()) == value:
            return name
    return None


def missing_names(nvml: Any, names: Iterable[str]) -> list[str]:
    """The ``names`` the module lacks: any one means it is not nvidia-ml-py."""
    return [name for name in names if not hasattr(nvml, name)]


def module_name(nvml: Any) -> str:
    """The module's name for an error text."""
    return getattr(nvml, "__name__", None) or "pynvml"


def conflict_text(nvml: Any, exc_text: str) -> str:
    """``exc_text`` with the bindings diagnosis appended, when there is one."""
    hint = check_bindings(nvml)
    return f"{exc_text} ({hint})" if hint else exc_text


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


def read_memory(nvml: Any, handle: Any) -> tuple[float | None, float | None, float | None, float | None]:
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
            if not is_nvml_error(exc, "FunctionNotFound"):
                raise
            log.debug("nvmlDeviceGetMemoryInfo_v2 not in this driver; using v1")
        else:
            return to_mib(mem.total), to_mib(mem.used), to_mib(mem.free), to_mib(mem.reserved)
    mem = nvml.nvmlDeviceGetMemoryInfo(handle)
    return to_mib(mem.total), to_mib(mem.used), to_mib(mem.free), None


def first_available(nvml: Any, names: Iterable[str], *args: Any) -> Any:
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
            if not is_nvml_error(exc, "FunctionNotFound"):
                raise
            last = exc
        except skip as exc:
            last = exc
        log.debug("%s: not available (%s); trying an older call", name, last)
    if isinstance(last, nvml.NVMLError):
        raise last
    # Always an NVMLError, so that callers treat it as one more field that is n/a.
    raise nvml.NVMLError(getattr(nvml, "NVML_ERROR_FUNCTION_NOT_FOUND", 13)) from last
