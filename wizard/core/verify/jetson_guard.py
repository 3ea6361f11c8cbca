"""Verify on an NVIDIA Jetson: no fix may send the student to a desktop driver or a desktop build.

Why: the verification's fixes for a CPU-only torch, an old driver or missing kernels name the
PyTorch index's ``+cuXXX`` builds and nvidia.com's drivers. On a Jetson both are wrong -- those
builds do not run on its integrated GPU, and its driver is the L4T image's (resources/jetson.json).
Such fixes become the Jetson one: NVIDIA's wheels for this JetPack, the driver left alone.

A Jetson is known from the detection (``system.jetson_l4t``/``jetson_model``) or, when Verify runs
without one (``verify --python``), from the probe's own platform facts: a ``tegra`` kernel.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from wizard.core.machine.jetson import is_tegra_kernel
from wizard.core.verify.checks import Check

DESKTOP_FIXES = frozenset({
    "install_driver", "update_driver", "driver_too_old", "no_driver", "install_cuda_build", "install_matching_build",
    "no_kernel_image_new_gpu", "no_kernel_image_old_gpu", "variant_use_index",
})
JETSON_FIX = "jetson_wheels"


def on_a_jetson(ctx: Any) -> bool:
    """``ctx`` is :class:`wizard.core.verify.rules.Context`."""
    system = getattr(ctx.detection, "system", None)
    if system is not None and (getattr(system, "jetson_l4t", None) or getattr(system, "jetson_model", None) is not None):
        return True
    python = ctx.section("python")
    return str(python.get("machine", "")).lower() == "aarch64" and is_tegra_kernel(str(python.get("release", "")))


def guard(ctx: Any, checks: list[Check]) -> list[Check]:
    """``checks`` with every desktop fix replaced by the Jetson one on a Jetson; unchanged elsewhere."""
    if not on_a_jetson(ctx):
        return checks
    return [replace(c, fix=JETSON_FIX, evidence={**c.evidence, "desktop_fix": c.fix}) if c.fix in DESKTOP_FIXES else c
            for c in checks]
