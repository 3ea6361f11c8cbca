"""GPU spec sheets (resources/gpus.json): the peak a measured number is compared with.

Why a module of its own: "85% of what the card can do" needs the right row and the right
column. The row is found by the name torch or NVML reports, normalised, with the memory size to
tell apart cards that share a name; the column depends on what was measured (:data:`PEAK_FIELD`:
fp16 matmuls against the FP32-accumulate tensor peak, a device copy against memory bandwidth).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from wizard.core.base.resources import load_json

# Which spec column is the peak for a measurement (gpus.json field names).
PEAK_FIELD = {
    ("matmul", "fp32"): "fp32_tflops",
    ("matmul_dtype", "fp32"): "fp32_tflops",
    ("course_matmul", "fp32"): "fp32_tflops",
    ("matmul_dtype", "tf32"): "tf32_tensor_tflops_dense",
    ("matmul_dtype", "fp16"): "fp16_tensor_tflops_dense_fp32_accumulate",
    ("matmul_dtype", "bf16"): "bf16_tensor_tflops_dense_fp32_accumulate",
    ("copy_d2d", "fp32"): "mem_bandwidth_gbs",
}


@dataclass(frozen=True)
class GpuSpec:
    name: str
    architecture: str | None
    compute_capability: str | None
    values: dict[str, Any]
    sources: tuple[str, ...]
    unverified: tuple[str, ...]

    def peak(self, field_name: str) -> float | None:
        """A peak in the table's unit (TFLOP/s or GB/s), None when the table has none."""
        value = self.values.get(field_name)
        return float(value) if isinstance(value, (int, float)) else None


_DROP_WORDS = {"nvidia", "geforce", "tesla", "quadro"}


def normalise_gpu_name(name: str) -> str:
    """'NVIDIA GeForce RTX 3060 Laptop GPU' → 'rtx 3060 laptop'; 'NVIDIA A100-SXM4-40GB' →
    'a100 sxm4 40gb'; '(R)'/'(TM)' marks and a trailing 'GPU' dropped."""
    text = re.sub(r"\((?:r|tm)\)", " ", name.lower())
    text = re.sub(r"[-_/,()]", " ", text)
    words = [w for w in text.split() if w not in _DROP_WORDS]
    if words and words[-1] == "gpu":
        words.pop()
    return " ".join(words)


@lru_cache(maxsize=1)
def _spec_table() -> tuple[tuple[GpuSpec, tuple[str, ...], tuple[float, float] | None], ...]:
    rows = []
    for entry in load_json("gpus.json")["gpus"]:
        match = entry.get("match") or {}
        mem = match.get("memory_gib")
        spec = GpuSpec(name=entry["name"], architecture=entry.get("architecture"),
                       compute_capability=entry.get("compute_capability"),
                       values={k: v for k, v in entry.items() if k not in ("match", "sources", "verified",
                                                                         "unverified", "notes")},
                       sources=tuple(entry.get("sources") or ()), unverified=tuple(entry.get("unverified") or ()))
        rows.append((spec, tuple(match.get("names") or ()), (float(mem[0]), float(mem[1])) if mem else None))
    return tuple(rows)


def find_gpu_spec(name: str | None, memory_gib: float | None = None) -> GpuSpec | None:
    """The spec sheet of the GPU called ``name`` (as torch or NVML report it), or None.

    Exact match of the normalised name only: an "RTX 4080 SUPER" must not borrow the RTX 4080's
    peak, nor a laptop part its desktop namesake's. Where one name covers cards with different
    hardware (RTX 3060 12 GB / 8 GB), ``memory_gib`` picks the one; unknown memory takes the
    table's entry.
    """
    if not name:
        return None
    key = normalise_gpu_name(name)
    for spec, names, mem in _spec_table():
        if key in names:
            if mem is not None and memory_gib is not None and not (mem[0] <= memory_gib <= mem[1]):
                continue
            return spec
    return None
