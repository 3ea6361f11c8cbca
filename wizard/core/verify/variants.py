"""Verify's view of a torch installed as a wheel variant (WheelNext, PEP 817/825).

Why it needs its own check: a variant wheel has no local version -- ``torch.__version__`` says
"2.8.0", not "2.8.0+cu126" -- so the usual way of telling which build is installed fails. The
probe reads the wheel's ``torch-*.dist-info/variant.json`` (its one label and its
``namespace :: feature :: value`` properties) and this rule says what it is next to
``torch.version.cuda``.

The variant resolver's known failures (``resources/variants.json``, each with its source): on a
driver below the lowest variant's ``cuda_version_lower_bound`` it installs the null (CPU) variant
although the ``+cuXXX`` builds from the PyTorch index run there (CUDA minor-version
compatibility: any 12.x build on a driver >= 525); on Windows the NVIDIA provider reads the GPU
through NVML, and where it cannot, the null variant is what comes. Either way the fix is the same:
install the build the Recommendation step names, from the PyTorch index.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Iterable

from wizard.core.base.resources import load_json
from wizard.core.verify.checks import Check

DATA_FILE = "variants.json"
MINOR_COMPAT_MAJOR = 12  # a CUDA 12.x build runs on any driver that supports 12.0 (resources/variants.json)


@lru_cache(maxsize=1)
def variants_data() -> dict[str, Any]:
    doc: dict[str, Any] = load_json(DATA_FILE)
    return doc


def _major(version: str | None) -> int | None:
    try:
        return int(str(version).split(".")[0])
    except ValueError:
        return None


def _version(text: str | None) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in str(text).split("."))
    except ValueError:
        return (0,)


def rule_torch_variant(ctx: Any) -> Iterable[Check]:
    """What variant torch was installed as, and whether it is the resolver's known CPU fallback.
    ``ctx`` is :class:`wizard.core.verify.rules.Context` (not imported: rules.py imports this module)."""
    variant = ctx.torch.get("variant")
    if not ctx.has_torch or not isinstance(variant, dict):
        return
    label = variant.get("label")
    props = [str(p) for p in variant.get("properties") or []]
    cuda = ctx.torch.get("cuda")
    null = not props or label in variants_data()["null_labels"]
    params = {"label": label or "?", "properties": "; ".join(props) if props else "-",
              "cuda": cuda or "None", "installer": variant.get("installer") or "?"}
    evidence = {"label": label, "properties": props, "torch_version_cuda": cuda,
                "installer": variant.get("installer"), "schema": variant.get("schema")}
    driver_cuda, _ = ctx.driver_cuda()
    if not null or not ctx.nvidia_present:
        yield Check("torch.variant", "pass", detail="variant_install", params=params, evidence=evidence, source="rule")
        return
    evidence["driver_cuda"] = driver_cuda
    windows = str(ctx.section("python").get("sys_platform", "")).startswith("win")
    lowest = _version(variants_data()["lowest_cuda_lower_bound"]["value"])
    if windows and (driver_cuda is None or _version(driver_cuda) >= lowest):
        cause = "variant_provider_windows"  # the driver would have taken a CUDA variant: the provider saw nothing
    elif (_major(driver_cuda) or 0) >= MINOR_COMPAT_MAJOR:
        cause = "variant_cpu_fallback"
    else:
        cause = "variant_cpu_no_cuda_variant"
    evidence["known_failure"] = {"variant_cpu_fallback": "cpu_variant_on_capable_driver",
                                 "variant_provider_windows": "provider_cannot_read_gpu_windows"}.get(cause)
    yield Check("torch.variant", "warn", detail="variant_null", params=params, cause=cause,
                fix="variant_use_index", evidence=evidence, source="rule")


def rule_uv_cpu_build(ctx: Any) -> Iterable[Check]:
    """A +cpu torch that uv installed next to an NVIDIA GPU on Windows: uv's --torch-backend=auto
    is known to do that there (resources/variants.json, uv_torch_backend). Said beside the CPU-only
    check, which already gives the fix; this one says where the build came from."""
    tv = ctx.torch
    installer = str(tv.get("dist_installer") or "").lower()
    windows = str(ctx.section("python").get("sys_platform", "")).startswith("win")
    if not ctx.has_torch or ctx.is_cuda_build or ctx.is_rocm_build or installer != "uv" or not windows \
            or not ctx.nvidia_present or isinstance(tv.get("variant"), dict):
        return
    yield Check("torch.resolver", "warn", detail="uv_cpu_build", params={"version": str(tv.get("version") or "?")},
                cause="uv_torch_backend_cpu", fix="variant_use_index",
                evidence={"installer": installer, "version": tv.get("version"), "cuda": tv.get("cuda")}, source="rule")
