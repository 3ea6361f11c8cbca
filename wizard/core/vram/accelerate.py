"""``accelerate estimate-memory``, reproduced (bench-vram.md §3.1).

Why a module of its own: Hugging Face's tool is the figure students find first; printing its
numbers exactly as it does (1024-based sizes labelled "MB"/"GB", training as the peak of its
phases) lets the page show where its count and ours part ways.
"""

from __future__ import annotations

from dataclasses import dataclass

from wizard.core.vram.catalogue import ModelSpec, resolve_model
from wizard.core.vram.inputs import VramInputError
from wizard.core.vram.memory import parameter_breakdown

ACCELERATE_DIVISORS = {"float32": 1, "float16": 2, "int8": 4, "int4": 8}


@dataclass(frozen=True)
class AccelerateEstimate:
    dtype: str
    total_bytes: float
    largest_layer_bytes: float
    training_bytes: float | None  # None where accelerate prints "N/A" (int8/int4)

    def strings(self) -> dict[str, str]:
        """The three cells as accelerate prints them."""
        return {"total": accelerate_size_string(self.total_bytes),
                "largest_layer": accelerate_size_string(self.largest_layer_bytes),
                "training_using_adam": "N/A" if self.training_bytes is None
                else accelerate_size_string(self.training_bytes)}


def accelerate_size_string(n_bytes: float) -> str:
    """accelerate's ``convert_bytes``: divide by 1024 until < 1024, round to 2, label "MB"/"GB"."""
    size = float(n_bytes)
    for unit in ("bytes", "KB", "MB", "GB", "TB"):
        if size < 1024.0:
            return f"{round(size, 2)} {unit}"
        size /= 1024.0
    return f"{round(size, 2)} PB"


def accelerate_estimate(model: ModelSpec | str, dtype: str, legacy: bool = False) -> AccelerateEstimate:
    """What ``accelerate estimate-memory`` prints for a catalogue model with accelerate data.

    Total = (params + buffers) in fp32 / {1, 2, 4, 8}. Training = the peak of accelerate's
    phases: 4× the fp32 size in float32, 2× in float16, N/A for int8/int4; ``legacy=True`` is
    the older release in the docs (4× the dtype size for every dtype, and the largest layer
    found among leaf modules, so BERT's word embeddings rather than its embeddings block).
    """
    spec = resolve_model(model)
    if spec.accelerate is None or spec.architecture is None:
        raise VramInputError("vram.error.no_accelerate_data", name=spec.name)
    if dtype not in ACCELERATE_DIVISORS:
        raise VramInputError("vram.error.unknown_precision", name=dtype, choices=", ".join(ACCELERATE_DIVISORS))
    acc, arch = spec.accelerate, spec.architecture
    div = ACCELERATE_DIVISORS[dtype]
    fp32_total = acc.automodel_params * 4 + acc.buffer_bytes_fp32
    total = fp32_total / div
    b = parameter_breakdown(arch)
    if arch.family in ("bert", "distilbert") and not legacy:
        embed = b.embeddings * 4 + acc.embeddings_buffer_bytes_fp32
    else:
        embed = arch.vocab_size * arch.hidden_size * 4  # the token embedding, a leaf module
    largest = max(embed, b.per_layer * 4) / div
    if legacy:
        training: float | None = 4 * total
    elif dtype == "float32":
        training = 4 * fp32_total
    elif dtype == "float16":
        training = 2 * fp32_total
    else:
        training = None
    return AccelerateEstimate(dtype=dtype, total_bytes=total, largest_layer_bytes=largest, training_bytes=training)
