"""The three rules applied to one (torch release, build variant): exists, gpu_arch, driver.

Why a module of its own: this is where "can this machine run that build" is decided, and the
only place; the ranking (:mod:`wizard.core.recommend.options`), the advice and the GUI's
hand-picked override all call :func:`evaluate`. Every failure is kept, not just the first, each
as a :class:`Failure` naming its rule and saying it in words.

1. ``exists``   -- the release publishes that variant for this OS/architecture and Python (and,
   for torch >= 2.12 on macOS, this macOS version).
2. ``gpu_arch`` -- the build contains kernels for every detected NVIDIA GPU (mixed GPUs: all of
   them, i.e. the intersection). A kernel for sm_X.Y runs on sm_X.Z with Z >= Y (sm_89 runs the
   sm_86 code); PTX compiles forward only, from an older arch to a newer one, on first use.
   ROCm: the GPU's gfx target is in the build's list; XPU: an Intel Arc-class GPU.
3. ``driver``   -- the NVIDIA driver can run it. The gate is the *minor-version-compatibility*
   bar; the stronger *toolkit* bar is required for a GPU covered only through PTX and for a GPU
   newer than the driver itself, and otherwise only warned about.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from packaging.version import InvalidVersion, Version

from wizard.core.base.i18n import Message, msg
from wizard.core.recommend.compat_model import ArchList, CompatDB, Release, Variant, sm_name
from wizard.core.recommend.compat_model import version as _v
from wizard.core.recommend.inputs import MachineFacts

RULE_EXISTS = "exists"
RULE_GPU = "gpu_arch"
RULE_DRIVER = "driver"
RULES = (RULE_EXISTS, RULE_GPU, RULE_DRIVER)

PLATFORM_NAMES = {
    "linux-x86_64": "Linux x86_64", "linux-aarch64": "Linux aarch64", "windows-x86_64": "Windows x86_64",
    "windows-arm64": "Windows arm64", "macos-arm64": "macOS arm64", "macos-x86_64": "macOS x86_64",
}


@dataclass(frozen=True)
class Failure:
    rule: str
    message: Message


@dataclass
class Evaluation:
    """The three rules applied to one (release, patch, variant): every failure, not just the first."""

    release: Release
    patch: str
    variant: Variant
    failures: list[Failure] = field(default_factory=list)
    reasons: list[Message] = field(default_factory=list)
    warnings: list[Message] = field(default_factory=list)
    driver_bar: str | None = None
    gpu_confirmed: bool = True  # False: ROCm/XPU build whose GPU support could not be confirmed

    @property
    def passed(self) -> bool:
        return not self.failures

    def first_failure(self) -> Failure:
        return min(self.failures, key=lambda f: RULES.index(f.rule))


def _ver_or_none(text: str | None) -> Version | None:
    """A version from detection's text, or None when it is missing or unreadable."""
    if not text:
        return None
    try:
        return Version(text)
    except InvalidVersion:
        return None


def version_span(versions: Iterable[str]) -> str:
    """'2.0–2.15' for messages."""
    ordered = sorted(versions, key=_v)
    if not ordered:
        return "-"
    return ordered[0] if len(ordered) == 1 else f"{ordered[0]}–{ordered[-1]}"


def evaluate(facts: MachineFacts, release: Release, patch: str, variant_name: str, kb: CompatDB) -> Evaluation:
    """Apply the three rules to one option. Pure: no I/O."""
    variant = kb.variant(variant_name)
    if variant is None:
        raise KeyError(f"unknown variant {variant_name!r}")
    ev = Evaluation(release, patch, variant)
    platform = facts.platform
    pname = PLATFORM_NAMES.get(platform, platform)

    # ---- rule 1: exists ----------------------------------------------------------------------
    plat_variants = release.variants.get(platform)
    if not plat_variants:
        ev.failures.append(Failure(RULE_EXISTS, msg("recommend.reject.no_platform", torch=release.torch, platform=pname)))
    elif variant_name not in plat_variants:
        ev.failures.append(Failure(RULE_EXISTS, msg("recommend.reject.no_variant", torch=release.torch,
                                                    variant=variant_name, platform=pname)))
    pythons = release.pythons_on(platform) or release.python
    if facts.python not in pythons:
        if _v(facts.python) > max(_v(p) for p in pythons):
            ev.failures.append(Failure(RULE_EXISTS, msg("recommend.reject.python_too_new", torch=release.torch,
                                                        python=facts.python, use=max(pythons, key=_v))))
        else:
            ev.failures.append(Failure(RULE_EXISTS, msg("recommend.reject.python_too_old", torch=release.torch,
                                                        python=facts.python, use=min(pythons, key=_v))))
    if facts.os == "macos" and release.macos_min:
        have = _ver_or_none(facts.os_version)
        if have is not None and have < _v(release.macos_min):
            ev.failures.append(Failure(RULE_EXISTS, msg("recommend.reject.macos_too_old", torch=release.torch,
                                                        need=release.macos_min, have=facts.os_version)))
        elif have is None:
            ev.warnings.append(msg("recommend.warn.macos_min", torch=release.torch, need=release.macos_min))
    if not any(f.rule == RULE_EXISTS for f in ev.failures):
        ev.reasons.append(msg("recommend.reason.exists", torch=patch, variant=variant_name,
                              python=facts.python, platform=pname))

    # ---- rule 2: kernels for the GPU(s) --------------------------------------------------------
    needs_ptx: list[tuple[int, int]] = []
    if variant.kind == "cuda":
        needs_ptx = _check_cuda_archs(facts, release, variant, kb, ev)
    elif variant.kind == "rocm":
        _check_rocm(facts, variant, ev)
    elif variant.kind == "xpu":
        _check_xpu(facts, kb, ev)
    elif variant.kind == "mps":
        ev.reasons.append(msg("recommend.reason.mps"))
        ev.warnings.append(msg("recommend.warn.mps_fallback"))
    else:
        ev.reasons.append(msg("recommend.reason.cpu", platform=pname))
        if facts.has_nvidia or "amd" in facts.non_nvidia:
            ev.warnings.append(msg("recommend.warn.cpu_no_gpu"))

    # ---- rule 3: the driver ------------------------------------------------------------------
    if variant.kind == "cuda":
        _check_driver(facts, release, variant, kb, ev, needs_ptx)

    # ---- notes that do not decide --------------------------------------------------------------
    if not release.verified:
        ev.warnings.append(msg("recommend.warn.release_unverified", torch=release.torch))
    elif variant_name in release.unverified:
        ev.warnings.append(msg("recommend.warn.variant_unverified", torch=release.torch, variant=variant_name))
    default = release.pypi_default.get(platform)
    if default and default != variant_name and variant.kind in ("cuda", "cpu", "rocm", "xpu"):
        ev.warnings.append(msg("recommend.warn.pypi_default", default=default, variant=variant_name))
    if release.torchaudio_separate and release.torchaudio.get(patch) is None:
        ev.warnings.append(msg("recommend.warn.torchaudio_separate", version=release.torchaudio_separate))
    return ev


def _check_cuda_archs(facts: MachineFacts, release: Release, variant: Variant, kb: CompatDB,
                      ev: Evaluation) -> list[tuple[int, int]]:
    """Rule 2 for CUDA builds. Returns the GPUs covered only through PTX (they need the toolkit bar)."""
    ccs = facts.ccs()
    if not facts.has_nvidia:
        ev.failures.append(Failure(RULE_GPU, msg("recommend.reject.no_nvidia_gpu", variant=variant.name)))
        return []
    archs = kb.archs_for(variant.name, release.torch, facts.platform)
    if archs is None:
        # the build does not exist for this platform: rule 1 already says so
        return []
    # The unconfirmed lists (Windows builds, mostly) are in doubt only about pre-Turing GPUs
    # (sm_50-sm_70 come and go between builds); for newer GPUs the warning would be noise.
    if archs.unverified and any(cc < (7, 5) for cc in ccs):
        ev.warnings.append(msg("recommend.warn.archs_unverified", variant=variant.name,
                               platform=PLATFORM_NAMES.get(facts.platform, facts.platform)))
    if not ccs or facts.cc_unknown:
        ev.warnings.append(msg("recommend.warn.cc_unknown", archs=archs.describe()))
    ptx_only: list[tuple[int, int]] = []
    for cc in ccs:
        gpu, sm = facts.gpu_label(cc), sm_name(cc)
        cubin = archs.cubin_for(cc)
        if cubin is not None:
            ev.reasons.append(msg("recommend.reason.kernels", gpu=gpu, sm=sm, kernel=sm_name(cubin)))
            continue
        ptx = archs.ptx_for(cc)
        if ptx is not None:
            ptx_only.append(cc)
            ev.reasons.append(msg("recommend.reason.ptx", gpu=gpu, sm=sm, ptx=sm_name(ptx)))
            ev.warnings.append(msg("recommend.warn.ptx_jit", gpu=gpu, sm=sm))
            continue
        ev.failures.append(Failure(RULE_GPU, _arch_failure(gpu, cc, variant.name, release.torch, archs)))
    return ptx_only


def _arch_failure(gpu: str, cc: tuple[int, int], variant: str, torch: str, archs: ArchList) -> Message:
    lowest, highest = archs.cubins[0], archs.cubins[-1]
    if cc < lowest:
        return msg("recommend.reject.gpu_too_old", gpu=gpu, sm=sm_name(cc), variant=variant, torch=torch,
                   lowest=sm_name(lowest))
    if cc > highest:
        return msg("recommend.reject.gpu_too_new", gpu=gpu, sm=sm_name(cc), variant=variant, torch=torch,
                   highest=sm_name(highest))
    return msg("recommend.reject.gpu_missing", gpu=gpu, sm=sm_name(cc), variant=variant, torch=torch,
               archs=archs.describe())


def _check_rocm(facts: MachineFacts, variant: Variant, ev: Evaluation) -> None:
    if "amd" not in facts.non_nvidia and not facts.amd_gfx:
        ev.failures.append(Failure(RULE_GPU, msg("recommend.reject.no_amd_gpu", variant=variant.name)))
        return
    ev.warnings.append(msg("recommend.warn.rocm_setup"))
    if variant.gfx is None or not facts.amd_gfx:
        ev.gpu_confirmed = False
        ev.warnings.append(msg("recommend.warn.rocm_unconfirmed", variant=variant.name))
        return
    missing = [g for g in facts.amd_gfx if g not in variant.gfx]
    if missing:
        ev.failures.append(Failure(RULE_GPU, msg("recommend.reject.gfx_unsupported", gfx=", ".join(missing),
                                                 variant=variant.name, supported=", ".join(variant.gfx))))
    else:
        ev.reasons.append(msg("recommend.reason.rocm", gfx=", ".join(facts.amd_gfx), variant=variant.name))


def _check_xpu(facts: MachineFacts, kb: CompatDB, ev: Evaluation) -> None:
    if "intel" not in facts.non_nvidia:
        ev.failures.append(Failure(RULE_GPU, msg("recommend.reject.no_intel_gpu")))
        return
    ev.warnings.append(msg("recommend.warn.xpu_driver"))
    names = [n for n in facts.other_gpu_names if "intel" in n.lower() or "arc" in n.lower()]
    if not names:
        ev.gpu_confirmed = False
        ev.warnings.append(msg("recommend.warn.xpu_unconfirmed"))
        return
    arc = [n for n in names if any(p.lower() in n.lower() for p in kb.xpu_name_patterns)]
    if arc:
        ev.reasons.append(msg("recommend.reason.xpu", gpu=arc[0]))
    else:
        ev.failures.append(Failure(RULE_GPU, msg("recommend.reject.intel_not_arc", gpu=names[0])))


def _check_driver(facts: MachineFacts, release: Release, variant: Variant, kb: CompatDB, ev: Evaluation,
                  ptx_only: list[tuple[int, int]]) -> None:
    bars = kb.driver_bars(variant.name, facts.driver_os, release.torch)
    assert bars is not None and variant.cuda is not None
    if facts.nvidia_without_driver and not facts.driver_version:
        ev.failures.append(Failure(RULE_DRIVER, msg("recommend.reject.no_driver", variant=variant.name,
                                                    need=bars.toolkit)))
        return
    driver = _ver_or_none(facts.driver_version)
    drv_cuda = facts.cuda_driver or (kb.cuda_for_driver(facts.driver_version, facts.driver_os)
                                     if facts.driver_version else None)
    cuda_v = _ver_or_none(drv_cuda)
    if driver is None and cuda_v is None:
        ev.warnings.append(msg("recommend.warn.driver_unknown", variant=variant.name, need=bars.minimum,
                               toolkit=bars.toolkit))
        return
    shown_driver = facts.driver_version or "?"
    shown_cuda = drv_cuda or "?"
    build_cuda = _v(variant.cuda)

    # (a) the CUDA-major bar (minor-version compatibility)
    major_ok = driver >= _v(bars.minimum) if driver is not None else \
        (cuda_v is not None and cuda_v.major >= build_cuda.major)
    if not major_ok:
        ev.failures.append(Failure(RULE_DRIVER, msg("recommend.reject.driver_major", driver=shown_driver,
                                                    cuda=shown_cuda, variant=variant.name, need=bars.minimum)))
        return
    # (b) the driver must know the GPU itself (an RTX 50 card needs a CUDA 12.8 driver)
    if cuda_v is not None:
        for cc in facts.ccs():
            arch = kb.gpu_arch(cc)
            if arch is not None and cuda_v < _v(arch.min_cuda):
                need = kb.driver_for_cuda(arch.min_cuda, facts.driver_os) or arch.min_cuda
                ev.failures.append(Failure(RULE_DRIVER, msg(
                    "recommend.reject.driver_gpu", driver=shown_driver, cuda=shown_cuda, gpu=facts.gpu_label(cc),
                    sm=sm_name(cc), need_cuda=arch.min_cuda, need=need)))
                return
    # (c) the toolkit bar: required for PTX-only GPUs, otherwise a warning
    if driver is not None:
        safe = driver >= _v(bars.toolkit)
    else:
        safe = cuda_v is not None and (cuda_v.major, cuda_v.minor) >= (build_cuda.major, build_cuda.minor)
    if not safe and ptx_only:
        cc = ptx_only[0]
        ev.failures.append(Failure(RULE_DRIVER, msg(
            "recommend.reject.driver_ptx", driver=shown_driver, cuda=shown_cuda, variant=variant.name,
            gpu=facts.gpu_label(cc), sm=sm_name(cc), need=bars.toolkit)))
        return
    if safe:
        ev.driver_bar = "toolkit"
        ev.reasons.append(msg("recommend.reason.driver_safe", driver=shown_driver, need=bars.toolkit,
                              cuda=variant.cuda))
    else:
        ev.driver_bar = "minimum"
        ev.reasons.append(msg("recommend.reason.driver_minimum", driver=shown_driver, need=bars.minimum,
                              major=build_cuda.major))
        ev.warnings.append(msg("recommend.warn.driver_weak", driver=shown_driver, need=bars.toolkit,
                               cuda=variant.cuda))
