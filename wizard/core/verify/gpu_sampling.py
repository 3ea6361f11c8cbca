"""GPU clocks, temperature and power sampled from NVML while the benchmark runs.

Why a module of its own: the probe measures in the student's environment, but NVML is read in
the wizard's own process, on a thread beside the probe; the samples are kept with the results so
a throttling laptop explains a low efficiency. The sampler is passed in (a
:class:`wizard.core.machine.nvml.NvmlSampler`, or a recording in tests), so this module needs no
NVML itself.
"""

from __future__ import annotations

import statistics
import threading
from typing import Any, Callable, Iterable


class GpuSampling:
    """Calls ``sampler.sample()`` every ``interval_s`` on a thread until stopped.

    ``sampler`` is a :class:`wizard.core.machine.nvml.NvmlSampler` (or anything with ``open()``,
    ``sample()``, ``close()``). Without NVML (``open()`` False) it records nothing and says why
    in :attr:`error`; the benchmark goes on regardless.
    """

    def __init__(self, sampler: Any, interval_s: float = 0.5) -> None:
        self.sampler = sampler
        self.interval_s = interval_s
        self.samples: list[Any] = []
        self.error: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> "GpuSampling":
        if not self.sampler.open():
            self.error = getattr(self.sampler, "error", None) or "NVML unavailable"
            return self
        self._thread = threading.Thread(target=self._loop, name="bench-nvml", daemon=True)
        self._thread.start()
        return self

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self.samples.extend(self.sampler.sample())
            except RuntimeError as exc:  # the sampler was closed under us
                self.error = str(exc)
                return
            self._stop.wait(self.interval_s)

    def stop(self) -> list[Any]:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        close = getattr(self.sampler, "close", None)
        if close is not None:
            close()
        return self.samples

    def __enter__(self) -> "GpuSampling":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def sample_during(fn: Callable[[], Any], sampler: Any | None, interval_s: float = 0.5) -> tuple[Any, list[Any], str | None]:
    """Run ``fn()`` while sampling NVML: (fn's result, samples, sampling error)."""
    if sampler is None:
        return fn(), [], None
    sampling = GpuSampling(sampler, interval_s).start()
    try:
        result = fn()
    finally:
        samples = sampling.stop()
    return result, samples, sampling.error


def summarise_samples(samples: Iterable[Any]) -> dict[int, dict[str, Any]]:
    """Per GPU index: how hot, how fast the SM clock ran, how much power, over the run."""
    by_gpu: dict[int, list[Any]] = {}
    for s in samples:
        by_gpu.setdefault(int(getattr(s, "index", 0)), []).append(s)
    out: dict[int, dict[str, Any]] = {}
    for index, rows in by_gpu.items():
        def values(attr: str) -> list[float]:
            return [float(v) for v in (getattr(r, attr, None) for r in rows) if isinstance(v, (int, float))]

        temp, clock, power, util = values("temperature_c"), values("clock_sm_mhz"), values("power_w"), \
            values("utilization_gpu")
        out[index] = {
            "samples": len(rows),
            "temperature_max_c": max(temp) if temp else None,
            "clock_sm_min_mhz": min(clock) if clock else None,
            "clock_sm_median_mhz": statistics.median(clock) if clock else None,
            "clock_sm_max_mhz": max(clock) if clock else None,
            "power_max_w": max(power) if power else None,
            "utilization_max": max(util) if util else None,
        }
    return out
