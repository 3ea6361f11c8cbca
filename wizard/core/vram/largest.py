"""The largest model a card can hold, per mode and precision (the VRAM page's table).

Why a module of its own: it answers the course's question "24 GB ≈ 12B parameters?" both ways —
the course's rule (total VRAM / bytes per parameter) beside what fits once the CUDA context and
what is already in use are taken off — using exact fractions, since float division can be one off.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from wizard.core.base.i18n import t
from wizard.core.vram.inputs import MODES, OPTIMIZERS, VramInputError, check_choice
from wizard.core.vram.memory import (
    CUDA_CONTEXT_RESERVE_BYTES,
    LORA_UNKNOWN_FRACTION,
    OPTIMIZER_BYTES,
    training_state_bytes,
    usable_vram_bytes,
)
from wizard.core.vram.precisions import FOUR_BIT_PRECISIONS, PRECISIONS, get_precision
from wizard.core.vram.units import fmt_num, format_params


@dataclass(frozen=True)
class LargestModel:
    """The biggest parameter count whose weights (and training state) fit the usable VRAM.

    KV cache and activations come on top; they depend on context and batch. ``course_rule_params``
    is the course's rule for the same card: total VRAM / bytes per parameter, no reserve.
    """

    mode: str
    precision: str
    bytes_per_param: float
    usable_bytes: int
    params: int
    course_rule_params: int

    def text(self, lang: str | None) -> str:
        return t("vram.largest.row", lang, mode=t(f"vram.mode.{self.mode}", lang),
                 precision=t(f"vram.precision.{self.precision}", lang),
                 params=format_params(self.params), bytes=fmt_num(self.bytes_per_param))

    def to_json(self, lang: str | None) -> dict[str, Any]:
        return {"mode": self.mode, "precision": self.precision, "bytes_per_param": self.bytes_per_param,
                "usable_bytes": self.usable_bytes, "params": self.params,
                "course_rule_params": self.course_rule_params, "text": self.text(lang)}


def bytes_per_param_for(mode: str, precision: str, optimizer: str = "adamw",
                        training_accounting: str = "hf") -> float:
    """Bytes per parameter that do not depend on batch or context (weights + training state)."""
    mode = check_choice(mode, MODES, "vram.error.unknown_mode")
    prec = get_precision(precision)
    if mode == "inference":
        return prec.bytes_per_param
    if mode == "train":
        return float(sum(training_state_bytes(1, prec.key, optimizer, training_accounting)))
    adapter = (4 + 4 + OPTIMIZER_BYTES[check_choice(optimizer, OPTIMIZERS, "vram.error.unknown_optimizer")]) \
        * LORA_UNKNOWN_FRACTION
    if mode == "qlora" and prec.key not in FOUR_BIT_PRECISIONS:
        prec = PRECISIONS["nf4"]
    return prec.bytes_per_param + adapter


def largest_model(vram_total_bytes: int, vram_used_bytes: int = 0, *, mode: str = "inference",
                  precision: str = "fp16", optimizer: str = "adamw", training_accounting: str = "hf",
                  context_reserve_bytes: int = CUDA_CONTEXT_RESERVE_BYTES) -> LargestModel:
    """Largest model for this VRAM in ``mode`` at ``precision`` (weights and training state)."""
    if isinstance(vram_total_bytes, bool) or not isinstance(vram_total_bytes, (int, float)) or vram_total_bytes < 0:
        raise VramInputError("vram.error.bad_vram", value=vram_total_bytes)
    bpp = bytes_per_param_for(mode, precision, optimizer, training_accounting)
    usable = usable_vram_bytes(int(vram_total_bytes), vram_used_bytes, context_reserve_bytes)
    exact = Fraction(bpp)  # exact rational: float floor division can be one off
    return LargestModel(mode=check_choice(mode, MODES, "vram.error.unknown_mode"),
                        precision=get_precision(precision).key, bytes_per_param=bpp,
                        usable_bytes=usable, params=math.floor(Fraction(usable) / exact),
                        course_rule_params=math.floor(Fraction(int(vram_total_bytes)) / exact))


def largest_model_table(vram_total_bytes: int, vram_used_bytes: int = 0, *,
                        context_reserve_bytes: int = CUDA_CONTEXT_RESERVE_BYTES) -> list[LargestModel]:
    """Inference at every precision, then full training, LoRA and QLoRA (the page's table)."""
    rows = [largest_model(vram_total_bytes, vram_used_bytes, mode="inference", precision=p,
                          context_reserve_bytes=context_reserve_bytes)
            for p in ("fp32", "fp16", "int8", "q8_0", "q4_k_m", "nf4", "int4")]
    rows += [largest_model(vram_total_bytes, vram_used_bytes, mode="train", precision=p,
                           context_reserve_bytes=context_reserve_bytes) for p in ("fp32", "fp16")]
    rows.append(largest_model(vram_total_bytes, vram_used_bytes, mode="lora", precision="fp16",
                              context_reserve_bytes=context_reserve_bytes))
    rows.append(largest_model(vram_total_bytes, vram_used_bytes, mode="qlora", precision="nf4",
                              context_reserve_bytes=context_reserve_bytes))
    return rows


def course_rule_params(vram_bytes: int, precision: str = "fp16") -> int:
    """The course's rule: VRAM / bytes per parameter ("24 GB ≈ 12B at fp16"), a rough upper bound."""
    return math.floor(Fraction(int(vram_bytes)) / Fraction(get_precision(precision).bytes_per_param))
