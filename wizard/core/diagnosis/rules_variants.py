"""The variant resolver's known failures, as the diagnosis names them.

A torch installed as a wheel variant (WheelNext, PEP 817/825) says so in its dist-info's
variant.json; the verify probe reads it (``TorchFacts.wheel_variant``). Its null variant is the
CPU build, and on a machine with an NVIDIA GPU that is the CPU-only finding -- with the cause the
resolver has (``resources/variants.json``, each with its source): on a driver below the lowest
CUDA variant's bound it falls back to the CPU variant although the ``+cuXXX`` builds run there;
on Windows, where the driver takes a CUDA variant, the NVIDIA provider most likely could not read
the GPU. The fix and the action are the CPU-only finding's: the recommended CUDA build from the
PyTorch index.

rules.py puts the rule before the general CPU-only rule; it gives the same finding id, so the
diagnosis keeps this one (the more specific cause) and drops the general one.
"""

from __future__ import annotations

from typing import Iterable

from wizard.core.diagnosis.model import ACTION_REINSTALL, SCOPE_TORCH, Diagnosis, DiagnosisInput, candidate_action
from wizard.core.machine.models import STATUS_OK

FINDING = "cpu-only-torch-installed"


def _version(text: str | None) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in str(text).split("."))
    except ValueError:
        return (0,)


def rule_variant_cpu_fallback(ctx: DiagnosisInput) -> Iterable[Diagnosis]:
    """The resolver's null (CPU) variant on a machine whose NVIDIA driver runs a CUDA build."""
    from wizard.core.base.resources import load_json

    torch, d = ctx.torch, ctx.detection
    variant = torch.wheel_variant if torch is not None else None
    if torch is None or not isinstance(variant, dict) or not torch.is_cpu_build or not ctx.has_nvidia():
        return
    data = load_json("variants.json")
    if variant.get("properties") and variant.get("label") not in data["null_labels"]:
        return
    driver_cuda = d.nvidia.cuda_version or torch.driver_cuda
    if d.nvidia.status != STATUS_OK or not driver_cuda or _version(driver_cuda)[0] < 12:
        return  # no working driver, or one older than any CUDA 12 build: the general finding says so
    lowest = _version(data["lowest_cuda_lower_bound"]["value"])
    windows = d.system.os == "windows"
    which = "variant-provider-windows" if windows and _version(driver_cuda) >= lowest else "variant-fallback"
    gpu = next((g.name for g in d.nvidia.gpus if g.name), None) or "NVIDIA"
    evidence = (f"torch {torch.version or '?'}, torch.version.cuda = {torch.cuda}\n"
                f"wheel variant {variant.get('label') or '?'} (installed by {variant.get('installer') or '?'}), "
                f"no GPU properties\n{gpu}, driver {d.nvidia.driver_version or '?'} (CUDA {driver_cuda})")
    yield Diagnosis(FINDING, "error", {"torch": torch.version or "?", "gpu": gpu, "label": variant.get("label") or "?",
                                       "driver_cuda": driver_cuda}, evidence, which,
                    action=candidate_action(ACTION_REINSTALL, ctx.best_cuda()), scope=SCOPE_TORCH)

