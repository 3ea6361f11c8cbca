"""VRAM use cases: what fits on a GPU, which lessons need Colab or the cloud, and a model measured.

Both faces call these: the VRAM page (the arithmetic on the GUI thread, a measurement on a
worker) and ``gpu-setup-wizard vram``. Computing is split from recording, as in the other use
cases: :func:`compute` and :func:`measure` return a value and touch no session (a worker thread
may run them); :func:`record` and :func:`record_measurement` put the answer into the session
the report reads. The value types the faces need are re-exported here, so a face imports
``wizard.app.vram`` and never an engine stage.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from wizard.app.session import Session
from wizard.core.base.i18n import t
from wizard.core.vram.catalogue import ModelSpec, catalogue_models
from wizard.core.vram.estimate import SCHEMA, SCHEMA_VERSION, Estimate, Note, estimate
from wizard.core.vram.inputs import MODES, VramInputError, parse_param_count
from wizard.core.vram.measured import (
    MEASURE_DTYPES,
    MEASURE_MODES,
    MEASURE_OPTIMIZERS,
    Measurement,
    MeasureRequest,
    from_outcome,
    run_measure,
)
from wizard.core.vram.memory import CUDA_CONTEXT_RESERVE_BYTES, usable_vram_bytes
from wizard.core.vram.precisions import PRECISIONS
from wizard.core.vram.text import format_estimate, format_largest, format_workloads
from wizard.core.vram.units import GIB, ITEM_KEYS, format_gib, format_params, item_label, units_explanation
from wizard.core.vram.workloads import (
    VERDICT_NEEDS_CLOUD,
    VERDICT_NEEDS_COLAB,
    VERDICT_RUNS_HERE,
    VERDICT_RUNS_ON_CPU,
    VERDICT_TOO_BIG,
    WorkloadJudgment,
    judge_workloads,
    targets,
)

if TYPE_CHECKING:
    from wizard.core.base.host import Host
    from wizard.core.base.process import CancelLike
    from wizard.core.machine.models import Detection
    from wizard.core.verify.probe_runner import ProbeOutcome

MEASURE_PROBE = "vram_measure.py"
MEASURE_TIMEOUT_S = 300  # building a multi-billion-parameter model on meta takes seconds; an import may take more


@dataclass(frozen=True)
class GpuMemory:
    """One GPU's memory as the VRAM views compare with it: total and in-use bytes, its name.
    ``what_if``: a card the student picked or typed, not this machine's own."""

    name: str | None
    total_bytes: int
    used_bytes: int = 0
    what_if: bool = False

    @property
    def usable_bytes(self) -> int:
        return usable_vram_bytes(self.total_bytes, self.used_bytes)


@dataclass
class VramResult:
    """What the VRAM views show for one setting: the estimate (None when no model was asked),
    the lessons judged, and the GPU they were judged for (None: this PC has no NVIDIA GPU)."""

    estimate: Estimate | None
    judgments: list[WorkloadJudgment]
    gpu: GpuMemory | None
    cpu_judged: bool = False  # the small lessons were judged for this PC's CPU and RAM


# ------------------------------------------------------------------------------ the GPU
def detected_gpus(detection: Detection | None) -> list[GpuMemory]:
    """This machine's NVIDIA GPUs with a known memory size, from a detection (none when there is none)."""
    from wizard.core.machine.models import STATUS_OK
    from wizard.core.vram.units import vram_from_gpu

    if detection is None or detection.nvidia.status != STATUS_OK:
        return []
    out = []
    for gpu in detection.nvidia.gpus:
        total, used = vram_from_gpu(gpu)
        if total:
            out.append(GpuMemory(gpu.name or "GPU", total, used))
    return out


def this_machine_gpu(host: Host | None = None) -> GpuMemory | None:
    """This machine's largest NVIDIA GPU (runs nvidia-smi / NVML: off the GUI thread), or None."""
    from wizard.core.base.host import RealHost
    from wizard.core.machine.nvidia import detect_nvidia
    from wizard.core.vram.units import vram_from_gpu

    gpus = [g for g in detect_nvidia(host or RealHost()).gpus if g.memory_total_mib]
    if not gpus:
        return None
    gpu = max(gpus, key=lambda g: g.memory_total_mib or 0)
    total, used = vram_from_gpu(gpu)
    return GpuMemory(gpu.name, total or 0, used)


def ram_total_bytes(host: Host | None = None) -> int | None:
    from wizard.core.base.host import RealHost

    ram = ((host or RealHost()).resources() or {}).get("ram_total")
    return int(ram) if ram else None


def typed_gpu(vram_gb: str | float) -> GpuMemory:
    """A card given by its size in GB (``--vram-gb``, the page's spin box): a what-if card."""
    try:
        gb = float(vram_gb)
    except (TypeError, ValueError):
        gb = -1.0
    if not 1 <= gb <= 4096:
        raise VramInputError("vram.cli.bad_vram_gb", value=vram_gb)
    return GpuMemory(None, int(gb * GIB), 0, what_if=True)


def colab_t4() -> GpuMemory:
    """Colab's free T4, as its nvidia-smi reports it: where a PC without a GPU turns first."""
    t4 = next(x for x in targets() if x.id == "colab_t4")
    return GpuMemory("Colab T4", t4.vram_bytes, 0, what_if=True)


# ------------------------------------------------------------------------------ the estimate
def estimate_for(model: str | int | ModelSpec, *, mode: str = "inference", precision: str = "fp16",
                 batch: int = 1, context: int | None = None, gpu: GpuMemory | None = None,
                 **kw: Any) -> Estimate:
    """The itemised estimate for ``model`` (a catalogue name, a size such as "7B") on ``gpu``."""
    est = estimate(model, mode=mode, precision=precision, batch=batch, context=context,
                   vram_total_bytes=gpu.total_bytes if gpu else None, vram_used_bytes=gpu.used_bytes if gpu else 0,
                   **kw)
    _on_card(est, gpu)
    return est


def _on_card(est: Estimate | None, gpu: GpuMemory | None) -> Estimate | None:
    """The estimate names the card it was compared with, and says when that card is a what-if."""
    if est is not None and gpu is not None:
        est.gpu_name, est.what_if = gpu.name, gpu.what_if
    return est


def _measured_on(m: Measurement, gpu: GpuMemory | None) -> Measurement:
    _on_card(m.estimate, gpu)
    return m


def judge_lessons(gpu: GpuMemory | None, ram_total: int | None = None) -> list[WorkloadJudgment]:
    """The course's lessons for ``gpu`` (None: no GPU), and for this PC's CPU when ``ram_total`` is given."""
    return judge_workloads(gpu.total_bytes if gpu else None, gpu.used_bytes if gpu else 0,
                           ram_total_bytes=ram_total, what_if=bool(gpu and gpu.what_if))


def compute(model: str | None = None, params: str | None = None, *, mode: str = "inference",
            precision: str = "fp16", batch: int = 1, context: int | None = None, gpu: GpuMemory | None = None,
            ram_total: int | None = None) -> VramResult:
    """The estimate (when a model or a size is given) and the lessons, for ``gpu``. Raises
    :class:`VramInputError` for a bad value. Pure arithmetic: safe on any thread."""
    est = None
    if model or params:
        which: str | int = model if model else parse_param_count(params or "")
        est = estimate_for(which, mode=mode, precision=precision, batch=batch, context=context, gpu=gpu)
    judgments = judge_lessons(gpu, ram_total if gpu is None or not gpu.what_if else None)
    return VramResult(est, judgments, gpu, cpu_judged=ram_total is not None and (gpu is None or not gpu.what_if))


def record(session: Session, est: Estimate | None, chosen: bool | None = None) -> None:
    """The estimate the report shows; ``chosen``: the student changed the page's inputs (only then is it reported)."""
    session.vram = est
    if chosen is not None:
        session.vram_chosen = chosen


# ------------------------------------------------------------------------------ a model measured
def measure_request(spec: str, *, batch: int = 1, mode: str = "train", dtype: str = "fp32",
                    optimizer: str = "adamw", input_shape: str | None = None) -> MeasureRequest:
    """A checked request (raises :class:`VramInputError` for a bad value)."""
    return MeasureRequest(spec=spec, batch=batch, mode=mode, dtype=dtype, optimizer=optimizer,
                          input_shape=input_shape).checked()


def measure(python_exe: str, request: MeasureRequest, gpu: GpuMemory | None = None, *,
            on_event: Callable[[dict[str, Any]], None] | None = None, cancel: CancelLike = None) -> Measurement:
    """Run the measuring probe in ``python_exe`` on this thread (a worker's) and read its answer."""
    return _measured_on(run_measure(python_exe, request, gpu.total_bytes if gpu else None,
                                    gpu.used_bytes if gpu else 0, on_event=on_event, cancel=cancel), gpu)


def measurement_from_outcome(request: MeasureRequest, outcome: ProbeOutcome, gpu: GpuMemory | None = None) -> Measurement:
    """The answer of a probe run the window ran itself (``ProbeProcess``)."""
    return _measured_on(from_outcome(request, outcome, gpu.total_bytes if gpu else None,
                                     gpu.used_bytes if gpu else 0), gpu)


def measurement_for(measurement: Measurement, gpu: GpuMemory | None, batch: int | None = None) -> Measurement:
    """The same measurement against another GPU or at another batch, without running the probe again."""
    from wizard.core.vram.measured import for_setting

    return _measured_on(for_setting(measurement, gpu.total_bytes if gpu else None, gpu.used_bytes if gpu else 0,
                                    batch), gpu)


def record_measurement(session: Session, measurement: Measurement) -> None:
    """A measured model is the student's own choice: the report shows it."""
    if measurement.estimate is not None:
        record(session, measurement.estimate, chosen=True)


def largest_batch_on(measurement: Measurement, gpu: GpuMemory) -> int | None:
    """The largest batch of a measured model on another card (Colab's T4 for a PC without a GPU)."""
    from wizard.core.vram.measured import largest_batch

    if not measurement.measured:
        return None
    return largest_batch(measurement.rows, gpu.usable_bytes)


# ------------------------------------------------------------------------------ words
def gpu_line(gpu: GpuMemory | None, lang: str) -> str:
    if gpu is None:
        return t("vram.cli.no_gpu", lang)
    if gpu.what_if:
        return t("vram.cli.gpu_typed", lang, total=format_gib(gpu.total_bytes))
    return t("vram.cli.gpu_from_machine", lang, name=gpu.name or "GPU", total=format_gib(gpu.total_bytes),
             used=format_gib(gpu.used_bytes))


def result_lines(result: VramResult, lang: str) -> list[str]:
    """``vram``'s text: the GPU, the estimate, the lessons, the largest models, the units."""
    lines = [gpu_line(result.gpu, lang)]
    if result.estimate is not None:
        lines += [""] + format_estimate(result.estimate, lang)
    lines += [""] + format_workloads(result.judgments, lang)
    if result.gpu is not None:
        lines += [""] + format_largest(result.gpu.total_bytes, result.gpu.used_bytes, lang)
    lines += ["", units_explanation(lang)]
    return lines


def result_json(result: VramResult, lang: str) -> dict[str, Any]:
    gpu = result.gpu
    if result.estimate is not None:
        return result.estimate.to_json(lang, workloads=result.judgments)
    return {"schema": f"{SCHEMA}@{SCHEMA_VERSION}", "items": None, "total_bytes": None,
            "usable_bytes": gpu.usable_bytes if gpu else None, "fits": None,
            "vram_total_bytes": gpu.total_bytes if gpu else None, "vram_used_bytes": gpu.used_bytes if gpu else 0,
            "units_note": units_explanation(lang), "workloads": [j.to_json(lang) for j in result.judgments]}


def measurement_lines(m: Measurement, gpu: GpuMemory | None, lang: str) -> list[str]:
    """``vram --measure``'s text: measured or not (and why), the parts, what fits and the largest batch."""
    lines = [gpu_line(gpu, lang), "", m.headline(lang)]
    est = m.estimate
    if est is None:
        return lines
    lines += format_estimate(est, lang)
    lines.append("  " + t("vram.measure.with_context", lang, total=format_gib(est.total_bytes + est.context_reserve_bytes),
                          context=format_gib(est.context_reserve_bytes)))
    if m.measured:
        if gpu is not None:
            lines.append(largest_batch_line(m.largest_batch or 0, gpu, m.request.batch, lang))
        else:
            t4 = colab_t4()
            lines.append(largest_batch_line(largest_batch_on(m, t4) or 0, t4, m.request.batch, lang))
    return lines


def largest_batch_line(batch: int, gpu: GpuMemory, asked: int, lang: str) -> str:
    name = gpu.name or format_gib(gpu.total_bytes)
    if batch <= 0:
        return t("vram.measure.largest_none", lang, gpu=name)
    return t("vram.measure.largest", lang, gpu=name, batch=batch, asked=asked)


def plain_notes(est: Estimate, lang: str) -> list[str]:
    """The estimate's assumptions for a first-year student: where the page has a plain-words
    version of a note (its key + ``.plain``: no kernel names, no "KV heads") that one, else the
    note as the report and the CLI print it."""
    from wizard.core.base.i18n import catalogue

    plain = catalogue()
    return [Note(n.key + ".plain", n.params).text(lang) if n.key + ".plain" in plain else n.text(lang) for n in est.notes]


__all__ = [
    "CUDA_CONTEXT_RESERVE_BYTES", "GIB", "ITEM_KEYS", "MEASURE_DTYPES", "MEASURE_MODES", "MEASURE_OPTIMIZERS",
    "MEASURE_PROBE", "MEASURE_TIMEOUT_S", "MODES", "PRECISIONS", "VERDICT_NEEDS_CLOUD", "VERDICT_NEEDS_COLAB", "VERDICT_RUNS_HERE",
    "VERDICT_RUNS_ON_CPU", "VERDICT_TOO_BIG", "Estimate", "GpuMemory", "MeasureRequest", "Measurement",
    "VramInputError", "VramResult", "WorkloadJudgment", "catalogue_models", "colab_t4", "compute", "detected_gpus",
    "estimate_for", "format_gib", "format_params", "gpu_line", "item_label", "judge_lessons", "largest_batch_line",
    "largest_batch_on", "measure", "measure_request", "measurement_for", "measurement_from_outcome", "measurement_lines",
    "parse_param_count", "plain_notes", "ram_total_bytes", "record", "record_measurement", "result_json", "result_lines",
    "this_machine_gpu", "typed_gpu", "units_explanation",
]
