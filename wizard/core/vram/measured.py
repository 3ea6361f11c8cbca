"""VRAM measured from the model itself: the probe counts it on the ``meta`` device in the target environment.

Why: outside the catalogue, a parameter count is all the estimator knows, so it leaves the
activations out and the total stays flat as the batch grows (0.20× the truth for
mobilenet_v3_large at batch 8). The probe ``wizard/probe/vram_measure.py`` builds the student's
model on meta tensors in the environment where torch and the model's library live, runs one
forward and backward, and counts what autograd saves and what the optimizer keeps, for the batch
asked and the next one. Here: what may be asked (:class:`MeasureRequest`), the probe's answer read
into an :class:`~wizard.core.vram.estimate.Estimate` (so the bar, the text and the report show it
as they show any estimate), the largest batch that fits (activations grow by the measured amount
per sample), and the fallback to the estimate when the model cannot run on meta tensors.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from wizard.core.base.i18n import t
from wizard.core.vram.catalogue import ModelSpec
from wizard.core.vram.estimate import OVERHEAD_FRACTION, SCHEMA, SCHEMA_VERSION, Estimate, Note, estimate
from wizard.core.vram.inputs import MAX_BATCH, VramInputError, check_choice, check_int
from wizard.core.vram.memory import CUDA_CONTEXT_RESERVE_BYTES, OPTIMIZER_BYTES, usable_vram_bytes
from wizard.core.vram.units import ITEM_KEYS, format_gib, format_params, units_explanation

MEASURE_MODES = ("train", "inference", "lora")
MEASURE_DTYPES = ("fp32", "fp16", "bf16")
MEASURE_OPTIMIZERS = ("adamw", "sgd")
PROBE = "vram_measure.py"
TIMEOUT_S = 300
_SHAPE = re.compile(r"^\d+(?:[x,]\d+)*$")
_SPEC_KINDS = ("torchvision:", "timm:", "hf:")


@dataclass(frozen=True)
class MeasureRequest:
    """What to measure: a model SPEC and the setting it trains or runs in (see the probe's docstring)."""

    spec: str
    batch: int = 1
    mode: str = "train"
    dtype: str = "fp32"
    optimizer: str = "adamw"
    input_shape: str | None = None

    def checked(self) -> MeasureRequest:
        """The request with its values normalised, or the :class:`VramInputError` that names the bad one."""
        spec = (self.spec or "").strip()
        if not spec or not (spec.startswith(_SPEC_KINDS) or ".py:" in spec or "/" in spec or "\\" in spec
                            or spec.startswith(".")):
            raise VramInputError("vram.measure.error.bad_spec", spec=self.spec)
        shape = (self.input_shape or "").strip().lower().replace(" ", "") or None
        if shape is not None and not _SHAPE.match(shape):
            raise VramInputError("vram.measure.error.bad_input", value=self.input_shape)
        return MeasureRequest(
            spec=spec, batch=check_int(self.batch, 1, MAX_BATCH, "vram.error.bad_batch"),
            mode=check_choice(self.mode, MEASURE_MODES, "vram.error.unknown_mode"),
            dtype=check_choice(self.dtype, MEASURE_DTYPES, "vram.error.unknown_precision"),
            optimizer=check_choice(self.optimizer, MEASURE_OPTIMIZERS, "vram.error.unknown_optimizer"),
            input_shape=shape)

    def probe_args(self) -> list[str]:
        args = ["--spec", self.spec, "--batch", str(self.batch), "--mode", self.mode, "--dtype", self.dtype,
                "--optimizer", self.optimizer]
        return args + (["--input", self.input_shape] if self.input_shape else [])


@dataclass(frozen=True)
class MeasuredRow:
    """The probe's count at one batch size (bytes)."""

    batch: int
    params: int
    trainable_params: int
    weights_bytes: int
    gradients_bytes: int
    optimizer_bytes: int
    activations_bytes: int

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> MeasuredRow:
        return cls(**{k: int(doc.get(k) or 0) for k in ("batch", "params", "trainable_params", "weights_bytes",
                                                        "gradients_bytes", "optimizer_bytes", "activations_bytes")})


@dataclass
class Measurement:
    """The answer for one request: an :class:`Estimate` to show, and where its figures came from.

    ``basis`` is "measured" (the probe counted the model on meta tensors) or "estimate" (it could
    not: ``reason`` says why in one line, and the figures are the estimator's from the parameter
    count, activations left out). ``largest_batch``: the largest batch whose total fits the GPU
    (None without a GPU to compare with, or when it was not measured), 0 when not even batch 1 fits.
    """

    request: MeasureRequest
    estimate: Estimate | None
    basis: str
    reason: str | None = None
    reason_id: str | None = None
    rows: list[MeasuredRow] = field(default_factory=list)
    seconds: float | None = None
    torch_version: str | None = None
    largest_batch: int | None = None
    events: list[dict[str, Any]] = field(default_factory=list, repr=False)

    @property
    def measured(self) -> bool:
        return self.basis == "measured"

    def items_bytes(self) -> dict[str, int]:
        """The separate figures of ``--json``: each part, the CUDA context, the allocator's slack, the total."""
        est = self.estimate
        if est is None:
            return {}
        items = {f"{k}_bytes": est.items[k] for k in ("weights", "gradients", "optimizer", "activations")}
        items["cuda_context_bytes"] = est.context_reserve_bytes
        items["allocator_slack_bytes"] = est.items["overhead"]
        items["total_bytes"] = est.total_bytes + est.context_reserve_bytes
        return items

    def to_json(self, lang: str | None) -> dict[str, Any]:
        est = self.estimate
        doc: dict[str, Any] = {
            "schema": f"{SCHEMA}@{SCHEMA_VERSION}", "measure": True, "spec": self.request.spec,
            "basis": self.basis, "reason": self.reason, "reason_id": self.reason_id,
            "mode": self.request.mode, "dtype": self.request.dtype, "optimizer": self.request.optimizer,
            "batch": self.request.batch, "input": self.request.input_shape,
            "params": est.model.params if est else None,
            "trainable_params": est.trainable_params if est else None,
            **self.items_bytes(),
            "usable_bytes": est.usable_bytes if est else None, "fits": est.fits if est else None,
            "vram_total_bytes": est.vram_total_bytes if est else None,
            "largest_batch": self.largest_batch, "torch": self.torch_version, "seconds": self.seconds,
            "rows": [r.__dict__ for r in self.rows],
            "assumptions": est.assumption_texts(lang) if est else [],
            "units_note": units_explanation(lang),
        }
        return doc

    def headline(self, lang: str | None) -> str:
        """One line: measured or estimated, and why not measured."""
        if self.measured:
            return t("vram.measure.measured", lang, spec=self.request.spec, seconds=f"{self.seconds or 0:.1f}",
                     torch=self.torch_version or "?")
        if self.estimate is None:
            return t("vram.measure.failed", lang, spec=self.request.spec, reason=self.reason or "")
        return t("vram.measure.fallback", lang, spec=self.request.spec, reason=self.reason or "")


def _spec(request: MeasureRequest, params: int) -> ModelSpec:
    return ModelSpec(id="measured", name=request.spec, params=params, kind="custom", source="meta")


def _items_at(rows: list[MeasuredRow], batch: int) -> dict[str, int]:
    """Weights, gradients, optimizer and activations at ``batch``: the activations on the line
    through the measured batches (the others do not depend on the batch)."""
    first = rows[0]
    slope = (rows[1].activations_bytes - first.activations_bytes) / (rows[1].batch - first.batch) \
        if len(rows) > 1 and rows[1].batch != first.batch else first.activations_bytes / max(first.batch, 1)
    activations = max(0, math.ceil(first.activations_bytes + slope * (batch - first.batch)))
    items = dict.fromkeys(ITEM_KEYS, 0)
    items.update(weights=first.weights_bytes, gradients=first.gradients_bytes, optimizer=first.optimizer_bytes,
                 activations=activations)
    items["overhead"] = math.ceil((items["activations"] + items["gradients"]) * OVERHEAD_FRACTION)
    return items


def largest_batch(rows: list[MeasuredRow], usable_bytes: int) -> int:
    """The largest batch (≤ MAX_BATCH) whose total fits ``usable_bytes``; 0 if not even batch 1."""
    def fits(b: int) -> bool:
        return sum(_items_at(rows, b).values()) <= usable_bytes

    if not fits(1):
        return 0
    lo, hi = 1, MAX_BATCH
    if fits(hi):
        return hi
    while hi - lo > 1:  # fits(lo) and not fits(hi); the total never shrinks as the batch grows
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo


def _notes(request: MeasureRequest, row: MeasuredRow, seconds: float | None, torch: str | None,
           vram_total: int | None, vram_used: int) -> list[Note]:
    notes = [Note("vram.assume.measured_meta", {"spec": request.spec, "params": format_params(row.params),
                                                "batch": request.batch, "torch": torch or "?"})]
    if request.mode == "inference":
        notes.append(Note("vram.assume.measured_inference", {"dtype": request.dtype}))
    else:
        if request.dtype != "fp32":
            notes.append(Note("vram.assume.measured_amp", {"dtype": request.dtype}))
        if request.mode == "lora":
            notes.append(Note("vram.assume.measured_lora", {"adapters": format_params(row.trainable_params)}))
        notes.append(Note(f"vram.assume.optimizer.{'adamw' if request.optimizer == 'adamw' else 'sgd'}"))
        notes.append(Note("vram.assume.measured_saved"))
    notes.append(Note("vram.assume.overhead", {"percent": f"{OVERHEAD_FRACTION * 100:g}"}))
    if vram_total is not None:
        notes.append(Note("vram.assume.usable", {"total": format_gib(vram_total), "used": format_gib(vram_used),
                                                 "reserve": format_gib(CUDA_CONTEXT_RESERVE_BYTES)}))
    return notes


def from_events(request: MeasureRequest, events: list[dict[str, Any]], vram_total: int | None = None,
                vram_used: int = 0, failure: str | None = None) -> Measurement:
    """The measurement the probe's events give, or the estimate with the reason it was not measured.

    ``failure``: why the probe itself did not finish (a timeout, no such interpreter), when it did not.
    """
    result = next((e for e in events if e.get("event") == "result" and e.get("type") == "vram_measure"), None)
    if result is not None and result.get("rows"):
        rows = [MeasuredRow.from_json(r) for r in result["rows"]]
        first = rows[0]
        items = _items_at(rows, request.batch)
        notes = _notes(request, first, result.get("seconds"), result.get("torch"), vram_total, vram_used)
        if request.mode != "inference" and int(result["rows"][0].get("recurrent_layers") or 0):
            notes.insert(1, Note("vram.assume.measured_recurrent"))
        est = Estimate(model=_spec(request, first.params), mode=request.mode, precision=request.dtype,
                       base_precision=request.dtype, batch=request.batch, context=None, image_size=None,
                       items=items, trainable_params=first.trainable_params, notes=notes,
                       vram_total_bytes=vram_total, vram_used_bytes=vram_used,
                       activations_saved_bytes=items["activations"], activation_basis="meta")
        usable = est.usable_bytes
        return Measurement(request, est, "measured", rows=rows, seconds=result.get("seconds"),
                           torch_version=result.get("torch"),
                           largest_batch=None if usable is None else largest_batch(rows, usable), events=events)
    error = next((e for e in events if e.get("event") == "error"), None)
    reason = (error or {}).get("message") or failure or t("vram.measure.no_answer", "en")
    reason_id = (error or {}).get("id") or "probe-failed"
    params = (error or {}).get("params")
    if not params:
        return Measurement(request, None, "none", reason=reason, reason_id=reason_id)
    est = _fallback_estimate(request, int(params), vram_total, vram_used)
    return Measurement(request, est, "estimate", reason=reason, reason_id=reason_id, events=events)


def for_setting(m: Measurement, vram_total: int | None, vram_used: int = 0, batch: int | None = None) -> Measurement:
    """The same measurement against another GPU, or at another batch (activations on the line
    through the measured batches; a fallback estimate is recomputed): no new probe run."""
    request = m.request if batch is None else replace(m.request, batch=batch)
    if not m.events:
        return m
    return from_events(request, m.events, vram_total, vram_used, m.reason)


def _fallback_estimate(request: MeasureRequest, params: int, vram_total: int | None, vram_used: int) -> Estimate:
    """The estimator's figures from the parameter count (activations unknown), as a fallback."""
    mode = "train" if request.mode == "train" else request.mode
    precision = request.dtype if mode == "train" or request.dtype != "fp32" else "fp32"
    optimizer = "adamw" if request.optimizer == "adamw" else "sgd"
    est = estimate(params, mode=mode, precision=precision, batch=request.batch, optimizer=optimizer,
                   vram_total_bytes=vram_total, vram_used_bytes=vram_used)
    est.model = _spec(request, params)
    est.notes.insert(0, Note("vram.assume.measure_fallback"))
    return est


def run_measure(python_exe: str, request: MeasureRequest, vram_total: int | None = None, vram_used: int = 0, *,
                on_event: Callable[[dict], None] | None = None, cancel: Any = None,
                timeout: float = TIMEOUT_S) -> Measurement:
    """Run the probe in ``python_exe`` on this thread and read its answer (never raises for the child's sake)."""
    from wizard.core.verify.probe_runner import run_probe

    outcome = run_probe(python_exe, PROBE, request.probe_args(), timeout=timeout, on_event=on_event, cancel=cancel)
    return from_outcome(request, outcome, vram_total, vram_used)


def from_outcome(request: MeasureRequest, outcome: Any, vram_total: int | None = None,
                 vram_used: int = 0) -> Measurement:
    """A :class:`Measurement` from a finished probe run (a ``ProbeOutcome``)."""
    failure = None
    if outcome.timed_out:
        failure = t("vram.measure.timed_out", "en")
    elif outcome.error:
        failure = str(outcome.error).splitlines()[0]
    elif outcome.returncode not in (0, None) and not outcome.events:
        failure = ((outcome.stderr_tail or "").strip().splitlines()[-1:] or [f"exit {outcome.returncode}"])[0]
    return from_events(request, list(outcome.events), vram_total, vram_used, failure)


__all__ = ["MEASURE_DTYPES", "MEASURE_MODES", "MEASURE_OPTIMIZERS", "MeasureRequest", "MeasuredRow",
           "Measurement", "for_setting", "from_events", "from_outcome", "largest_batch", "run_measure", "usable_vram_bytes",
           "OPTIMIZER_BYTES"]
