"""Memory units and the small formatting helpers every VRAM view shares.

Why a module of its own: the estimator, the largest-model table, the workload judgments, the
CLI and the page all print bytes the same way, and the GiB-versus-GB confusion (memory cards
report GiB, 2**30 bytes; the course's rule speaks of GB, 10**9 bytes) is explained once, here.
"""

from __future__ import annotations

from typing import Any

from wizard.core.base.i18n import t

MIB = 1 << 20
GIB = 1 << 30
GB = 10**9

ITEM_KEYS = ("weights", "gradients", "optimizer", "activations", "kv_cache", "overhead")


def format_gib(n_bytes: float, digits: int = 2) -> str:
    """Bytes as GiB, the unit memory cards report: ``format_gib(2**31) == '2.00 GiB'``."""
    return f"{n_bytes / GIB:.{digits}f} GiB"


def format_params(n: int) -> str:
    """A parameter count for people: 6738415616 → '6.74B', 354823168 → '355M'."""
    for size, suffix in ((10**12, "T"), (10**9, "B"), (10**6, "M"), (10**3, "K")):
        if n >= size:
            value = n / size
            text = f"{value:.2f}" if value < 10 else f"{value:.1f}" if value < 100 else f"{value:.0f}"
            if "." in text:
                text = text.rstrip("0").rstrip(".")
            return text + suffix
    return str(n)


def units_explanation(lang: str | None) -> str:
    """The GB-versus-GiB explanation, shown once per page or command."""
    return t("vram.units.explanation", lang)


def mib_to_bytes(mib: float) -> int:
    """nvidia-smi/NVML MiB (GpuInfo.memory_total_mib) to bytes."""
    return int(round(mib * MIB))


def vram_from_gpu(gpu: Any) -> tuple[int | None, int]:
    """(total bytes or None, bytes in use) from a detected GpuInfo; n/a values give None / 0."""
    total = getattr(gpu, "memory_total_mib", None)
    used = getattr(gpu, "memory_used_mib", None)
    total_b = mib_to_bytes(total) if total else None
    used_b = mib_to_bytes(used) if used and total_b else 0
    return total_b, min(used_b, total_b or 0)


def item_label(key: str, lang: str | None) -> str:
    """The legend text of an item ("weights" → "Weights" / "가중치")."""
    return t(f"vram.item.{key}", lang)


def fmt_num(x: float) -> str:
    """A number inside a sentence: at most three decimals, no trailing zeros (0.5, 4.127)."""
    return f"{x:.3f}".rstrip("0").rstrip(".")
