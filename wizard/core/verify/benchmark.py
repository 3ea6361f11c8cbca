"""Benchmark: the bench probe's events → results, speedups, efficiency against the spec peak.

The probe (``wizard/probe/bench.py``) measures; this module only interprets: it collects the
``measurement`` and ``skip`` lines into :class:`BenchResult` / :class:`BenchSkip`, finds the
GPU's spec sheet in ``resources/gpus.json`` by the name the device reports, and derives what
a student reads:

* the course's line, "5000×5000 matmul: CPU x s, GPU y s, z× faster" (:meth:`BenchReport.course_line`);
* speedups GPU vs CPU (matmul, the small MLP's training steps) and AMP vs fp32;
* efficiency = measured / spec peak, per dtype (fp32 vs FP32, TF32 vs TF32 tensor, fp16/bf16
  vs the FP32-accumulate tensor peak, since cuBLAS accumulates in FP32; device copy vs memory
  bandwidth). Raw percentages are kept (GeForce cards can boost past their rated clock, so
  >100% happens); the UI clamps for display;
* a one-sentence summary, translated ("your GPU runs this 40× faster than your CPU; that is
  85% of what the card can do").

GPU clocks and temperature while the benchmark runs come from NVML in the wizard's own
process (:mod:`wizard.core.verify.gpu_sampling`, a thread around
:class:`wizard.core.machine.nvml.NvmlSampler`); they are kept with the results so a throttling
laptop explains a low efficiency. The spec sheets are looked up in
:mod:`wizard.core.verify.gpu_specs`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from wizard.core.base.i18n import t
from wizard.core.verify.gpu_sampling import sample_during, summarise_samples
from wizard.core.verify.gpu_specs import PEAK_FIELD, GpuSpec, find_gpu_spec
from wizard.core.verify.probe_runner import CancelLike, Event, ProbeOutcome, run_probe

SCHEMA = "gpu-setup-wizard/bench@1.0"
SUITES = ("quick", "full")

NOISY_IQR = 0.10  # torch.utils.benchmark.Measurement warns above this IQR/median
GOOD_EFFICIENCY = 70.0  # % of dense peak; 80-87% is what the best GEMMs reach (bench-vram.md §4)


# ------------------------------------------------------------------------------------------
# Results
# ------------------------------------------------------------------------------------------
@dataclass
class BenchResult:
    """One measurement. ``value`` in ``unit`` (GFLOP/s, GB/s, steps/s, s); ``median_s`` and
    ``iqr_s`` are seconds per call; ``size`` is N for matmul, bytes for copies, batch for MLP."""

    id: str
    device: str
    dtype: str | None
    size: int | None
    median_s: float
    iqr_s: float
    value: float
    unit: str
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def is_gpu(self) -> bool:
        return self.device != "cpu"

    @property
    def relative_iqr(self) -> float | None:
        return self.iqr_s / self.median_s if self.median_s else None

    @property
    def noisy(self) -> bool:
        """IQR above 10% of the median: torch.utils.benchmark's "system fluctuation" warning."""
        rel = self.relative_iqr
        return rel is not None and rel > NOISY_IQR

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "device": self.device, "dtype": self.dtype, "size": self.size,
                "median_s": self.median_s, "iqr_s": self.iqr_s, "value": self.value, "unit": self.unit,
                "noisy": self.noisy, **{k: v for k, v in self.extra.items() if k in _EXTRA_OUT}}

    @classmethod
    def from_event(cls, e: Event) -> "BenchResult | None":
        try:
            median = float(e["median_s"])
            value = float(e["value"])
        except (KeyError, TypeError, ValueError):
            return None
        size = e.get("size")
        known = {"event", "probe", "seq", "t", "type", "id", "device", "dtype", "size", "median_s", "iqr_s",
                 "value", "unit"}
        return cls(id=str(e.get("id")), device=str(e.get("device") or "cpu"), dtype=e.get("dtype"),
                   size=size if isinstance(size, int) else None, median_s=median,
                   iqr_s=float(e.get("iqr_s") or 0.0), value=value, unit=str(e.get("unit") or ""),
                   extra={k: v for k, v in e.items() if k not in known})


_EXTRA_OUT = ("threads", "size_requested", "iters_per_block", "blocks", "q1_s", "q3_s", "samples_per_s", "batch",
              "bytes", "flops")


@dataclass
class BenchSkip:
    id: str
    device: str
    dtype: str | None
    reason: str
    params: dict[str, Any] = field(default_factory=dict)

    def text(self, lang: str | None) -> str:
        return t(f"bench.skip.{self.reason}", lang, **{k: v for k, v in self.params.items() if v is not None})

    def to_json(self, lang: str | None) -> dict[str, Any]:
        return {"id": self.id, "device": self.device, "dtype": self.dtype, "reason": self.reason,
                "text": self.text(lang), "params": self.params}


@dataclass
class Speedup:
    id: str  # "course_matmul", "matmul", "mlp_train", "mlp_amp"
    factor: float  # baseline time / faster time
    baseline: str  # "cpu", or "cuda:0 fp32" for AMP
    target: str
    size: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "factor": self.factor, "baseline": self.baseline, "target": self.target,
                "size": self.size}


@dataclass
class Efficiency:
    id: str
    dtype: str
    device: str
    size: int | None
    measured: float  # in the result's unit (GFLOP/s or GB/s)
    peak: float  # same unit
    spec_field: str
    percent: float  # raw: may exceed 100 on a card that boosts above its rated clock

    @property
    def display_percent(self) -> float:
        return max(0.0, min(100.0, self.percent))

    @property
    def good(self) -> bool:
        return self.percent >= GOOD_EFFICIENCY

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "dtype": self.dtype, "device": self.device, "size": self.size,
                "measured": self.measured, "peak": self.peak, "spec_field": self.spec_field,
                "percent": self.percent}


# ------------------------------------------------------------------------------------------
# The report
# ------------------------------------------------------------------------------------------
@dataclass
class BenchReport:
    """All results of one benchmark run. Build with :meth:`from_events`, or feed events one by
    one with :meth:`add_event` while the probe runs (results appear as they finish)."""

    events: list[Event] = field(default_factory=list)
    results: list[BenchResult] = field(default_factory=list)
    skipped: list[BenchSkip] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)
    errors: list[Event] = field(default_factory=list)
    outcome: ProbeOutcome | None = None
    samples: list[Any] = field(default_factory=list)
    sampling_error: str | None = None
    python_exe: str | None = None
    wall_s: float | None = None  # the whole run as the wizard saw it, start-up included

    @classmethod
    def from_events(cls, events: Iterable[Event], *, outcome: ProbeOutcome | None = None,
                    samples: Sequence[Any] = (), python_exe: str | None = None) -> "BenchReport":
        report = cls(outcome=outcome, samples=list(samples), python_exe=python_exe)
        for e in events:
            report.add_event(e)
        return report

    def add_event(self, e: Event) -> BenchResult | BenchSkip | None:
        """Take one probe event; returns the new result or skip, if it was one."""
        self.events.append(e)
        kind = e.get("event")
        if kind == "error":
            self.errors.append(e)
            return None
        if kind != "result":
            return None
        rtype = e.get("type")
        if rtype == "measurement":
            r = BenchResult.from_event(e)
            if r is not None:
                self.results.append(r)
            return r
        if rtype == "skip":
            params: dict[str, Any] = e["params"] if isinstance(e.get("params"), dict) else {}
            s = BenchSkip(str(e.get("id")), str(e.get("device") or ""), e.get("dtype"), str(e.get("reason")), params)
            self.skipped.append(s)
            return s
        if rtype == "facts" and isinstance(e.get("section"), str):
            self.facts[e["section"]] = e.get("data")
        return None

    # ---- what ran where ----------------------------------------------------------------
    @property
    def bench_facts(self) -> dict[str, Any]:
        value = self.facts.get("bench")
        return value if isinstance(value, dict) else {}

    @property
    def gpu(self) -> dict[str, Any] | None:
        value = self.bench_facts.get("gpu")
        return value if isinstance(value, dict) else None

    @property
    def gpu_name(self) -> str | None:
        return self.gpu.get("name") if self.gpu else None

    @property
    def threads(self) -> int | None:
        return self.bench_facts.get("threads")

    @property
    def completed(self) -> bool:
        return any(e.get("event") == "result" and e.get("type") == "done" and not e.get("aborted")
                   for e in self.events)

    def spec(self) -> GpuSpec | None:
        gpu = self.gpu
        if not gpu:
            return None
        mem = gpu.get("total_memory")
        return find_gpu_spec(gpu.get("name"), mem / 2**30 if isinstance(mem, (int, float)) else None)

    def find(self, id_: str, device: str | None = None, dtype: str | None = None,
             size: int | None = None) -> list[BenchResult]:
        return [r for r in self.results if r.id == id_ and (device is None or r.device == device)
                and (dtype is None or r.dtype == dtype) and (size is None or r.size == size)]

    def _one(self, id_: str, gpu: bool, dtype: str | None = None) -> BenchResult | None:
        rows = [r for r in self.results if r.id == id_ and r.is_gpu == gpu and (dtype is None or r.dtype == dtype)]
        return rows[-1] if rows else None

    def sweep(self, device: str, dtype: str = "fp32") -> list[tuple[int, float]]:
        """(size, GFLOP/s) points of the matmul sweep on ``device`` ('cpu', 'cuda:0'), by size."""
        pts = {r.size: r.value for r in self.results if r.id == "matmul" and r.device == device
               and r.dtype == dtype and r.size is not None}
        return sorted(pts.items())

    @property
    def devices(self) -> list[str]:
        seen: list[str] = []
        for r in self.results:
            if r.device not in seen:
                seen.append(r.device)
        return seen

    # ---- derived -----------------------------------------------------------------------
    def course(self) -> tuple[BenchResult | None, BenchResult | None]:
        return self._one("course_matmul", False), self._one("course_matmul", True)

    def speedups(self) -> list[Speedup]:
        out: list[Speedup] = []
        cpu, gpu = self.course()
        if cpu and gpu and gpu.median_s > 0:
            out.append(Speedup("course_matmul", cpu.median_s / gpu.median_s, "cpu", gpu.device, cpu.size))
        cpu_pts = dict(self.sweep("cpu"))
        for dev in self.devices:
            if dev == "cpu":
                continue
            common = sorted(set(cpu_pts) & set(dict(self.sweep(dev))))
            if common:
                n = common[-1]
                gpu_val = dict(self.sweep(dev))[n]
                out.append(Speedup("matmul", gpu_val / cpu_pts[n], "cpu", dev, n))
        mlp_cpu = self._one("mlp_train", False, "fp32")
        mlp_gpu = self._one("mlp_train", True, "fp32")
        mlp_amp = self._one("mlp_train", True, "amp_fp16")
        if mlp_cpu and mlp_gpu:
            out.append(Speedup("mlp_train", mlp_cpu.median_s / mlp_gpu.median_s, "cpu", mlp_gpu.device, mlp_gpu.size))
        if mlp_gpu and mlp_amp:
            out.append(Speedup("mlp_amp", mlp_gpu.median_s / mlp_amp.median_s, f"{mlp_gpu.device} fp32",
                               f"{mlp_amp.device} amp_fp16", mlp_amp.size))
        return out

    def speedup(self, id_: str) -> Speedup | None:
        for s in self.speedups():
            if s.id == id_:
                return s
        return None

    def efficiencies(self) -> list[Efficiency]:
        """Best measured value per (id, dtype) on the GPU against the spec peak."""
        spec = self.spec()
        if spec is None:
            return []
        best: dict[tuple[str, str], BenchResult] = {}
        for r in self.results:
            if not r.is_gpu or not r.dtype:
                continue
            key = (r.id, r.dtype)
            if key in PEAK_FIELD and (key not in best or r.value > best[key].value):
                best[key] = r
        out = []
        for (id_, dtype), r in best.items():
            field_name = PEAK_FIELD[(id_, dtype)]
            peak = spec.peak(field_name)
            if peak is None or peak <= 0:
                continue
            if r.unit == "GFLOP/s":
                peak_in_unit = peak * 1000.0  # the table is in TFLOP/s
            elif r.unit == "GB/s":
                peak_in_unit = peak
            else:
                continue
            out.append(Efficiency(id_, dtype, r.device, r.size, r.value, peak_in_unit, field_name,
                                  100.0 * r.value / peak_in_unit))
        return out

    def efficiency(self, id_: str, dtype: str) -> Efficiency | None:
        for e in self.efficiencies():
            if e.id == id_ and e.dtype == dtype:
                return e
        return None

    def headline(self) -> dict[str, Any] | None:
        """The numbers of the summary sentence: speedup of the course matmul (or the largest
        common sweep size) and the GPU's fp32 efficiency on that same problem."""
        s = self.speedup("course_matmul") or self.speedup("matmul")
        if s is None:
            return None
        spec = self.spec()
        percent = None
        gpu_result = self._one("course_matmul", True) if s.id == "course_matmul" else \
            next((r for r in self.find("matmul", s.target, "fp32", s.size)), None)
        peak = spec.peak("fp32_tflops") if spec is not None else None
        if peak and gpu_result is not None:
            percent = 100.0 * gpu_result.value / (peak * 1000.0)
        return {"speedup": s.factor, "percent": percent, "size": s.size, "id": s.id, "device": s.target}

    def summary(self, lang: str | None) -> str:
        """One sentence for the student (two when the measurements were disturbed)."""
        text = self._summary(lang)
        timed = [r for r in self.results if r.unit != "s"]
        if timed and sum(r.noisy for r in timed) * 2 > len(timed):
            text += " " + t("bench.summary.noisy", lang)
        return text

    def _summary(self, lang: str | None) -> str:
        if not self.results:
            if self.errors:
                return t("bench.summary.failed", lang)
            return t("bench.summary.nothing", lang)
        head = self.headline()
        if head is None:
            cpu = self._one("course_matmul", False) or next(iter(self.find("matmul", "cpu")), None)
            if cpu is None:
                return t("bench.summary.nothing", lang)
            text = t("bench.summary.cpu_only", lang, gflops=_fmt(cpu.value), size=cpu.size)
            reason = self._no_gpu_reason()
            if reason:
                text += " " + t("bench.summary.gpu_skipped", lang, reason=t(f"bench.skip.{reason}", lang))
            return text
        speed = head["speedup"]
        if speed < 1.0:
            return t("bench.summary.gpu_slower", lang, factor=_fmt(1.0 / speed), size=head["size"])
        if head["percent"] is None:
            return t("bench.summary.gpu", lang, factor=_fmt(speed), size=head["size"])
        return t("bench.summary.gpu_with_peak", lang, factor=_fmt(speed), percent=f"{head['percent']:.0f}",
                 size=head["size"])

    def _no_gpu_reason(self) -> str | None:
        reason = self.bench_facts.get("no_gpu_reason")
        if isinstance(reason, str):
            return reason
        if any(e.get("id") == "gpu-failed" for e in self.errors):
            return "gpu_failed"
        return None

    def course_line(self, lang: str | None) -> str | None:
        """The course's "N×N matmul, CPU vs GPU, speedup" line, as the course prints it."""
        cpu, gpu = self.course()
        if cpu is None:
            return None
        if gpu is None:
            return t("bench.course.cpu_only", lang, size=cpu.size, cpu_s=_fmt_s(cpu.median_s))
        return t("bench.course.line", lang, size=cpu.size, cpu_s=_fmt_s(cpu.median_s), gpu_s=_fmt_s(gpu.median_s),
                 factor=_fmt(cpu.median_s / gpu.median_s))

    # ---- output ------------------------------------------------------------------------
    def to_json(self, lang: str | None) -> dict[str, Any]:
        spec = self.spec()
        return {
            "schema": SCHEMA,
            "python": self.python_exe,
            "suite": self.bench_facts.get("suite"),
            "complete": self.completed,
            "summary": self.summary(lang),
            "course_line": self.course_line(lang),
            "results": [r.to_json() for r in self.results],
            "skipped": [s.to_json(lang) for s in self.skipped],
            "speedups": [s.to_json() for s in self.speedups()],
            "efficiency": [e.to_json() for e in self.efficiencies()],
            "gpu": self.gpu,
            "gpu_spec": None if spec is None else {"name": spec.name, "sources": list(spec.sources),
                                                   "unverified": list(spec.unverified)},
            "cpu": {"model": self.bench_facts.get("cpu"), "threads": self.threads,
                    "cpu_count": self.bench_facts.get("cpu_count")},
            "torch": (self.bench_facts.get("torch") or {}).get("version"),
            "nvml": {"samples": len(self.samples), "summary": {str(k): v for k, v in
                                                               summarise_samples(self.samples).items()},
                     "error": self.sampling_error},
            "errors": [{k: e.get(k) for k in ("id", "exception", "message", "cause")} for e in self.errors],
            "wall_s": self.wall_s,
            "probe": self.outcome.to_json() if self.outcome is not None else None,
        }

    def to_text(self, lang: str | None) -> str:
        lines = [t("bench.report.heading", lang, python=self.python_exe or "?")]
        for r in self.results:
            dtype = f" {r.dtype}" if r.dtype else ""
            size = f" n={r.size}" if r.size is not None else ""
            lines.append(f"  {r.id:<14} {r.device:<7}{dtype:<9}{size:<12} {_fmt(r.value):>10} {r.unit:<8} "
                         f"(median {_fmt_s(r.median_s)}, IQR {_fmt_s(r.iqr_s)})")
        for s in self.skipped:
            lines.append(f"  {s.id:<14} {s.device:<7} {s.dtype or '':<8} - {s.text(lang)}")
        for e in self.efficiencies():
            lines.append("  " + t("bench.report.efficiency", lang, dtype=e.dtype, id=e.id, percent=f"{e.percent:.0f}"))
        course = self.course_line(lang)
        if course:
            lines.append(course)
        lines.append(self.summary(lang))
        return "\n".join(lines)


def _device_word(device: str, lang: str | None) -> str:
    return t("bench.device.cpu" if device == "cpu" else "bench.device.gpu", lang)


def _dtype_word(dtype: str, lang: str | None) -> str:
    return t("bench.dtype.amp_fp16", lang) if dtype == "amp_fp16" else dtype


def progress_text(event: Event, lang: str | None) -> str:
    """A progress event as a status line in plain words ("Timing a 1024 × 1024 matrix multiply
    on the CPU (40% done)"), never the probe's step name ("matmul.cpu.1024")."""
    step = str(event.get("step") or "")
    parts = step.split(".")
    kind, device = parts[0], parts[1] if len(parts) > 1 else "cpu"
    last = parts[2] if len(parts) > 2 else ""
    where = _device_word(device, lang)
    if kind == "matmul" and last.isdigit():
        text = t("bench.step.matmul_size", lang, size=last, device=where)
    elif kind == "matmul" and last:
        text = t("bench.step.matmul_dtype", lang, dtype=_dtype_word(last, lang), device=where)
    elif kind == "course":
        text = t("bench.step.course", lang, device=where)
    elif kind == "copy":
        text = t("bench.step.copy", lang, device=where)
    elif kind.startswith(("h2d", "d2h")):
        text = t("bench.step.transfer", lang, device=where)
    elif kind == "mlp":
        text = t("bench.step.mlp", lang, device=where, dtype=_dtype_word(last or "fp32", lang))
    elif kind in ("start", "done"):
        text = t(f"bench.step.{kind}", lang)
    else:
        text = t("bench.step.other", lang)
    fraction = event.get("fraction")
    if isinstance(fraction, (int, float)) and 0 < fraction < 1 and kind not in ("start", "done"):
        text = t("bench.step.progress", lang, text=text, percent=f"{fraction * 100:.0f}")
    return text


def result_title(result: BenchResult, lang: str | None) -> str:
    """The result's name for a table or plot legend."""
    if result.id == "course_matmul" and result.size not in (None, 5000):
        return t("bench.result.course_matmul_at", lang, size=result.size)  # name the size measured
    key = f"bench.result.{result.id}"
    return t(key, lang)


def _fmt(value: float) -> str:
    """3 significant figures, no scientific notation for the sizes we show."""
    if value >= 100:
        return f"{value:.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def _fmt_s(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds * 1e6:.0f} µs"


def bench_args(suite: str = "quick", *, max_size: int | None = None, extra: Sequence[str] = ()) -> list[str]:
    if suite not in SUITES:
        raise ValueError(f"unknown suite {suite!r}; expected one of {SUITES}")
    args = ["--suite", suite]
    if max_size:
        args += ["--max-size", str(max_size)]
    return args + list(extra)


def run_bench(python_exe: str, suite: str = "quick", *, nvml_sampler: Any | None = None,
              timeout: float | None = None, on_event: Callable[[Event], None] | None = None,
              cancel: CancelLike = None, extra_args: Sequence[str] = ()) -> BenchReport:
    """Run the benchmark probe in ``python_exe`` (CLI entry point); NVML is sampled while it
    runs when ``nvml_sampler`` (a :class:`wizard.core.machine.nvml.NvmlSampler`) is given."""
    if timeout is None:
        timeout = 240.0 if suite == "quick" else 600.0
    args = bench_args(suite, extra=extra_args)
    start = time.monotonic()
    outcome, samples, error = sample_during(
        lambda: run_probe(python_exe, "bench.py", args, timeout=timeout, on_event=on_event, cancel=cancel),
        nvml_sampler)
    report = BenchReport.from_events(outcome.events, outcome=outcome, samples=samples, python_exe=python_exe)
    report.sampling_error = error
    report.wall_s = time.monotonic() - start
    return report
