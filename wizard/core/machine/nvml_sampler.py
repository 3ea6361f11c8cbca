"""The GPU page's live plot: a cheap NVML sampler that holds one session open.

Why a module of its own: the sampler runs every second for as long as a page or a benchmark
is shown, so it asks only five things per GPU and remembers what a GPU cannot answer; the full
diagnosis (:func:`wizard.core.machine.nvml.query_nvml`) asks everything once. Both use the
error model of :mod:`wizard.core.machine.nvml_calls`.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any, Callable

from wizard.core.machine.nvml_calls import (
    conflict_text,
    describe_error,
    is_nvml_error,
    missing_names,
    module_name,
    to_mib,
    to_number,
    to_watts,
)

log = logging.getLogger(__name__)

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
        from wizard.core.machine.nvml_guard import ensure_checked

        refused = ensure_checked(nvml)  # a library that crashed the child check is never loaded here
        if refused is not None:
            self.error = refused
            return False
        missing = missing_names(nvml, _SAMPLER_REQUIRED)
        if missing:
            self.error = conflict_text(
                nvml, f"AttributeError: module {module_name(nvml)!r} has no attribute "
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
            if any(is_nvml_error(exc, name) for name in self._PERMANENT):
                self._unsupported.add((index, what))
            elif is_nvml_error(exc, "GpuIsLost"):
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
                s.utilization_gpu = to_number(util.gpu)
            mem = self._memory(index, handle)
            if mem is not None:
                s.memory_used_mib, s.memory_total_mib = to_mib(mem.used), to_mib(mem.total)
            s.temperature_c = to_number(self._ask(index, "temperature", nvml.nvmlDeviceGetTemperature,
                                                handle, nvml.NVML_TEMPERATURE_GPU))
            s.power_w = to_watts(self._ask(index, "power", nvml.nvmlDeviceGetPowerUsage, handle))
            s.clock_sm_mhz = to_number(self._ask(index, "clock_sm", nvml.nvmlDeviceGetClockInfo,
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
