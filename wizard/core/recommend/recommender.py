"""Which PyTorch build this machine can actually run, and why the others cannot.

The tools students use today look at one thing: light-the-torch and ``uv --torch-backend=auto``
read the driver, so a GTX 1080 with driver 580 gets a cu130 build that has no sm_61 kernels;
torchruntime reads the GPU model, so an old driver with a new GPU gets a build that cannot start.
This module checks three rules together, for every (torch release, build variant) pair the
knowledge base (:mod:`wizard.core.recommend.compat`) knows:

1. ``exists``   -- the release publishes that variant for this OS/architecture and Python (and,
   for torch >= 2.12 on macOS, this macOS version).
2. ``gpu_arch`` -- the build contains kernels for every detected NVIDIA GPU (mixed GPUs: all of
   them, i.e. the intersection). A kernel for sm_X.Y runs on sm_X.Z with Z >= Y (sm_89 runs the
   sm_86 code); PTX compiles forward only, from an older arch to a newer one, on first use.
   ROCm: the GPU's gfx target is in the build's list; XPU: an Intel Arc-class GPU.
3. ``driver``   -- the NVIDIA driver can run it. The gate is the *minor-version-compatibility*
   bar (525.60.13 / 528.33 for any 12.x build, R580 for 13.x): below it the build cannot start.
   Two cases need the stronger *toolkit* bar (the driver the build's CUDA shipped with) and are
   rejected below it: a GPU covered only through PTX (an older driver cannot compile newer PTX),
   and a GPU newer than the driver itself (sm_120 needs a driver that knows CUDA 12.8). Passing
   only the weaker bar is allowed with a warning, and such candidates rank after those meeting
   the toolkit bar within the same torch release. On WSL the driver is the Windows driver, so
   the Windows bars apply.

Order: the build a wish names first; then GPU builds before the CPU build; then confirmed data
before unconfirmed (unless ``Wishes.newest``); newest torch; driver meeting the toolkit bar;
newest CUDA (or ROCm). Every user-visible sentence is a :class:`Message` rendered through
:func:`wizard.core.base.i18n.t`, so the CLI and the GUI show the same words in Korean or English.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any, Iterable

from packaging.version import InvalidVersion, Version

from wizard.core.recommend import compat as compat_mod
from wizard.core.recommend.compat import ArchList, CompatDB, Release, Variant, parse_cc, sm_name
from wizard.core.base.i18n import t
from wizard.core.recommend.commands import InstallCommands, build_commands, mirror_index_url

SCHEMA = "gpu-setup-wizard/recommend@1.0"

RULE_EXISTS = "exists"
RULE_GPU = "gpu_arch"
RULE_DRIVER = "driver"
RULES = (RULE_EXISTS, RULE_GPU, RULE_DRIVER)

PLATFORM_NAMES = {
    "linux-x86_64": "Linux x86_64", "linux-aarch64": "Linux aarch64", "windows-x86_64": "Windows x86_64",
    "windows-arm64": "Windows arm64", "macos-arm64": "macOS arm64", "macos-x86_64": "macOS x86_64",
}
_HUGE_DRIVER = "9999.99"  # "a driver new enough for anything", for the what-if of the driver advice


# --------------------------------------------------------------------------------------------
# Text
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Message:
    """A sentence kept as key + parameters, rendered in either language when shown."""

    key: str
    params: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, key: str, **params: Any) -> "Message":
        return cls(key, tuple(sorted((k, str(v)) for k, v in params.items())))

    def text(self, lang: str | None = None) -> str:
        return t(self.key, lang, **dict(self.params))

    def param(self, name: str) -> str | None:
        return dict(self.params).get(name)


def msg(key: str, **params: Any) -> Message:
    """Shorthand; also lets the i18n test find every literal key used here."""
    return Message.of(key, **params)


# --------------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------------
def _norm_arch(os_name: str, arch: str | None) -> str:
    a = (arch or "x86_64").strip().lower()
    if a in ("amd64", "x64", "x86-64", "em64t"):
        a = "x86_64"
    if a in ("arm64", "aarch64", "armv8", "arm64e"):
        a = "arm64" if os_name in ("macos", "windows") else "aarch64"
    return a


def _norm_python(text: str) -> str:
    parts = str(text).strip().split(".")
    if len(parts) < 2 or not parts[0].isdigit():
        raise ValueError(f"not a Python version: {text!r}")
    minor = "".join(ch for ch in parts[1] if ch.isdigit())
    return f"{int(parts[0])}.{int(minor)}"


@dataclass
class MachineFacts:
    """What the recommender needs to know about the machine (from detection, or typed in).

    ``cuda_driver`` is the highest CUDA the driver supports ("12.8", NVML/nvidia-smi). ``gpu_ccs``
    are the NVIDIA GPUs' compute capabilities and ``gpu_names`` their names in the same order.
    ``non_nvidia`` lists other GPU vendors ("amd", "intel", "apple"); ``other_gpu_names`` their
    adapter names (to tell Intel Arc from older Intel graphics) and ``amd_gfx`` AMD gfx targets
    when known. ``nvidia_without_driver``: an NVIDIA adapter is present but no driver answers.
    """

    os: str  # "windows" | "linux" | "macos"
    arch: str  # "x86_64" | "arm64" | "aarch64"
    python: str  # "3.11"
    driver_version: str | None = None
    cuda_driver: str | None = None
    gpu_ccs: list[str] = field(default_factory=list)
    is_wsl: bool = False
    non_nvidia: list[str] = field(default_factory=list)
    gpu_names: list[str] = field(default_factory=list)
    other_gpu_names: list[str] = field(default_factory=list)
    amd_gfx: list[str] = field(default_factory=list)
    nvidia_without_driver: bool = False
    cc_unknown: bool = False  # an NVIDIA GPU whose compute capability could not be read
    distro_id: str | None = None  # os-release ID ("ubuntu"), for the driver commands
    os_version: str | None = None  # macOS version, for torch >= 2.12 (macOS 14+)

    def __post_init__(self) -> None:
        self.os = self.os.strip().lower()
        if self.os not in ("windows", "linux", "macos"):
            raise ValueError(f"os must be windows, linux or macos, not {self.os!r}")
        self.arch = _norm_arch(self.os, self.arch)
        self.python = _norm_python(self.python)
        self.gpu_ccs = [f"{c[0]}.{c[1]}" for c in (parse_cc(x) for x in self.gpu_ccs)]
        self.non_nvidia = sorted({v.strip().lower() for v in self.non_nvidia if v})
        self.amd_gfx = [g.strip().lower() for g in self.amd_gfx if g]

    # --- derived -------------------------------------------------------------------------------
    @property
    def platform(self) -> str:
        return f"{self.os}-{self.arch}"

    @property
    def driver_os(self) -> str:
        """Which driver table applies: on WSL the driver is the Windows one."""
        return "windows" if self.os == "windows" or self.is_wsl else "linux"

    @property
    def has_nvidia(self) -> bool:
        return bool(self.gpu_ccs or self.driver_version or self.cuda_driver or self.nvidia_without_driver
                    or self.gpu_names or self.cc_unknown)

    def ccs(self) -> list[tuple[int, int]]:
        return sorted({parse_cc(c) for c in self.gpu_ccs})

    def gpu_label(self, cc: tuple[int, int]) -> str:
        """The GPU's name for messages ('NVIDIA GeForce GTX 1060'), or 'NVIDIA'."""
        for text, name in zip(self.gpu_ccs, self.gpu_names):
            if parse_cc(text) == cc and name:
                return name
        return "NVIDIA"

    # --- construction --------------------------------------------------------------------------
    @classmethod
    def from_detection(cls, detection: Any, python_version: str) -> "MachineFacts":
        """Facts from :class:`wizard.core.machine.models.Detection` and the chosen interpreter's version."""
        system = detection.system
        nvidia = detection.nvidia
        ccs: list[str] = []
        names: list[str] = []
        cc_unknown = False
        for gpu in nvidia.gpus:
            if gpu.compute_capability:
                ccs.append(gpu.compute_capability)
                names.append(gpu.name or "")
            else:
                cc_unknown = True
        adapters = list(getattr(system, "display_adapters", []) or [])
        others = [a for a in adapters if a.vendor in ("amd", "intel", "apple")]
        nvidia_adapter = any(a.vendor == "nvidia" for a in adapters)
        return cls(
            os=system.os, arch=system.arch or "x86_64", python=python_version,
            driver_version=nvidia.driver_version, cuda_driver=nvidia.cuda_version, gpu_ccs=ccs,
            is_wsl=bool(system.is_wsl), non_nvidia=[a.vendor for a in others], gpu_names=names,
            other_gpu_names=[a.name for a in others if a.name], cc_unknown=cc_unknown,
            nvidia_without_driver=nvidia_adapter and not nvidia.driver_version and not nvidia.gpus,
            distro_id=system.distro_id, os_version=system.os_version if system.os == "macos" else None,
        )

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Wishes:
    """What the student (or the course) asks for. ``torch`` pins '2.1' or '2.1.2'.

    ``newest``: rank purely by newest torch then newest CUDA, ignoring whether the data is
    confirmed and whether the driver meets the toolkit bar. ``index_url``: a mirror of the
    PyTorch indexes (a base such as ``https://mirror/whl``, a template with ``{variant}``, or a
    full variant URL whose last segment is swapped); ``pypi_index_url``: a PyPI mirror for builds
    that come from PyPI (macOS).
    """

    torch: str | None = None
    newest: bool = False
    cpu_only: bool = False
    variant: str | None = None
    index_url: str | None = None
    pypi_index_url: str | None = None


# --------------------------------------------------------------------------------------------
# Outputs
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Failure:
    rule: str
    message: Message


@dataclass
class Candidate:
    """One installable build, with why it passed and what to watch out for."""

    torch: str
    torchvision: str | None
    torchaudio: str | None
    variant: str
    kind: str  # cuda | rocm | xpu | mps | cpu
    index_url: str
    python_requires: str
    python: str  # the interpreter version this was checked for
    reasons: list[Message] = field(default_factory=list)
    warnings: list[Message] = field(default_factory=list)
    driver_bar: str | None = None  # "toolkit" | "minimum" | None (not a CUDA build / driver unknown)
    verified: bool = True
    uses_default_index: bool = False  # PyPI without a mirror: no --index-url needed
    torchaudio_separate: str | None = None

    @property
    def local_version(self) -> str:
        """The local version the installed wheel reports ('+cu126'), '' for PyPI wheels."""
        return "" if self.kind == "mps" or self.uses_default_index else f"+{self.variant}"

    def commands(self, env_name: str = "dl", python_exe: str = "python") -> InstallCommands:
        return build_commands(self, python_version=self.python, env_name=env_name, python_exe=python_exe)

    def to_json(self, lang: str | None = None) -> dict[str, Any]:
        return {
            "torch": self.torch, "torchvision": self.torchvision, "torchaudio": self.torchaudio,
            "variant": self.variant, "kind": self.kind, "index_url": self.index_url,
            "python_requires": self.python_requires, "driver_bar": self.driver_bar, "verified": self.verified,
            "reasons": [m.text(lang) for m in self.reasons], "warnings": [m.text(lang) for m in self.warnings],
            "commands": self.commands().as_text(),
        }


@dataclass
class Rejection:
    """An option that fails; ``rule`` names the first failed rule, ``reason`` says it in words."""

    torch: str
    variant: str
    rule: str
    reason: Message
    other_failures: list[Failure] = field(default_factory=list)

    def to_json(self, lang: str | None = None) -> dict[str, Any]:
        return {"torch": self.torch, "variant": self.variant, "reason": self.reason.text(lang), "rule": self.rule}


@dataclass
class Advice:
    """Something to do besides installing: update the driver, use Colab, change Python, ..."""

    kind: str  # driver_update | driver_install | python | colab | cloud | gpu_unsupported | ...
    severity: str  # "required" (do this first) | "recommended" | "info"
    message: Message
    detail: Message | None = None
    url: str | None = None
    commands: list[str] = field(default_factory=list)

    def text(self, lang: str | None = None) -> str:
        parts = [self.message.text(lang)]
        if self.detail is not None:
            parts.append(self.detail.text(lang))
        return " ".join(parts)

    def to_json(self, lang: str | None = None) -> dict[str, Any]:
        return {"kind": self.kind, "severity": self.severity, "text": self.text(lang), "url": self.url,
                "commands": list(self.commands)}


@dataclass
class Recommendation:
    facts: MachineFacts
    wishes: Wishes
    candidates: list[Candidate]
    rejected: list[Rejection]
    advice: list[Advice]
    compat_schema: str
    reviewed_on: str

    @property
    def best(self) -> Candidate | None:
        return self.candidates[0] if self.candidates else None

    @property
    def alternatives(self) -> list[Candidate]:
        return self.candidates[1:]

    @property
    def update_driver_first(self) -> bool:
        return any(a.kind in ("driver_update", "driver_install") and a.severity == "required" for a in self.advice)

    def to_json(self, lang: str | None = None) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "compat": {"schema": self.compat_schema, "reviewed_on": self.reviewed_on},
            "machine": self.facts.to_json(),
            "wishes": asdict(self.wishes),
            "candidates": [c.to_json(lang) for c in self.candidates],
            "rejected": [r.to_json(lang) for r in self.rejected],
            "advice": [a.to_json(lang) for a in self.advice],
        }


# --------------------------------------------------------------------------------------------
# Evaluating one option
# --------------------------------------------------------------------------------------------
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

    def failed_rules(self) -> set[str]:
        return {f.rule for f in self.failures}


def _v(text: str) -> Version:
    return compat_mod.version(text)


def _ver_or_none(text: str | None) -> Version | None:
    if not text:
        return None
    try:
        return Version(text)
    except InvalidVersion:
        return None


def _span(versions: Iterable[str]) -> str:
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
    major_ok = driver >= _v(bars.minimum) if driver is not None else cuda_v.major >= build_cuda.major
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
        safe = (cuda_v.major, cuda_v.minor) >= (build_cuda.major, build_cuda.minor)
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


# --------------------------------------------------------------------------------------------
# Enumerating and ranking options
# --------------------------------------------------------------------------------------------
_GPU_KINDS = ("cuda", "rocm", "xpu", "mps")


def _families(facts: MachineFacts, wishes: Wishes, kb: CompatDB) -> set[str]:
    if wishes.cpu_only:
        fams = {"mps"} if facts.platform == "macos-arm64" else {"cpu"}
    elif facts.has_nvidia:
        fams = {"cuda"}
    elif facts.platform == "macos-arm64":
        fams = {"mps"}
    else:
        fams = {"cpu"}
        if "amd" in facts.non_nvidia or facts.amd_gfx:
            fams.add("rocm")
        if "intel" in facts.non_nvidia:
            fams.add("xpu")
    if wishes.variant and kb.variant(wishes.variant) is not None:
        fams.add(kb.variants[wishes.variant].kind)
    return fams


def _platform_offers(kb: CompatDB, platform: str, kind: str) -> bool:
    return any(kb.variants[v].kind == kind for r in kb.releases for v in r.variants.get(platform, ()))


def _options(facts: MachineFacts, wishes: Wishes, kb: CompatDB, kinds: set[str],
             releases: list[tuple[Release, str]]) -> list[tuple[Release, str, str]]:
    """(release, patch, variant) triples worth judging.

    GPU kinds: every variant of that kind the release publishes anywhere, so a build missing on
    this platform shows up as rejected with the reason. CPU/MPS: the platform's own build, or one
    triple that is rejected because the release has no wheels here at all. A kind this platform
    never gets (ROCm on Windows) is left out and explained by advice instead of one rejection per
    release.
    """
    out: list[tuple[Release, str, str]] = []
    offered = {k for k in kinds if k in ("cpu", "mps") or _platform_offers(kb, facts.platform, k)}
    for release, patch in releases:
        here = release.variants.get(facts.platform, ())
        names: set[str] = set()
        for plat_variants in release.variants.values():
            for name in plat_variants:
                kind = kb.variants[name].kind
                if kind in offered and kind in ("cuda", "rocm", "xpu"):
                    names.add(name)
        for name in here:
            if kb.variants[name].kind in offered:
                names.add(name)
        if not here and offered & {"cpu", "mps"}:
            names.add("mps" if "mps" in offered else "cpu")
        if wishes.variant in kb.variants and kb.variants[wishes.variant].kind in kinds \
                and any(wishes.variant in vs for vs in release.variants.values()):
            names.add(wishes.variant)
        out.extend((release, patch, name) for name in sorted(names))
    return out


def _neg(v: Version) -> tuple[int, ...]:
    return tuple(-x for x in v.release)


def _rank_key(ev: Evaluation, wishes: Wishes) -> tuple:
    wish = 0 if wishes.variant and ev.variant.name == wishes.variant else 1
    if ev.variant.kind == "cpu":
        family = 1
    else:
        family = 0 if ev.gpu_confirmed else 2
    torch_key = _neg(_v(ev.patch))
    variant_key = _neg(ev.variant.sort_key[0])
    if wishes.newest:
        return (wish, family, torch_key, variant_key)
    verified = 0 if ev.release.verified and ev.variant.name not in ev.release.unverified else 1
    safe = 1 if ev.driver_bar == "minimum" else 0
    return (wish, family, verified, torch_key, safe, variant_key)


def _releases_for(wishes: Wishes, kb: CompatDB) -> list[tuple[Release, str]]:
    if wishes.torch:
        rel = kb.release(wishes.torch)
        if rel is None:
            return []
        patch = wishes.torch if wishes.torch.count(".") >= 2 else rel.newest_patch
        return [(rel, patch)]
    return [(r, r.newest_patch) for r in kb.releases]


def _candidate(ev: Evaluation, facts: MachineFacts, wishes: Wishes, kb: CompatDB) -> Candidate:
    rel, patch, var = ev.release, ev.patch, ev.variant
    default_index = kb.index_url(var.name, facts.platform)
    from_pypi = default_index == kb.index_pypi
    if from_pypi:
        index = wishes.pypi_index_url or default_index
    elif wishes.index_url:
        index = mirror_index_url(wishes.index_url, var.name, kb.variants)
    else:
        index = default_index
    reasons = list(ev.reasons)
    if wishes.torch:
        reasons.insert(0, msg("recommend.reason.pinned", torch=wishes.torch))
    return Candidate(
        torch=patch, torchvision=rel.torchvision.get(patch), torchaudio=rel.torchaudio.get(patch),
        variant=var.name, kind=var.kind, index_url=index, python_requires=rel.python_requires(facts.platform),
        python=facts.python, reasons=reasons, warnings=list(ev.warnings), driver_bar=ev.driver_bar,
        verified=rel.verified and var.name not in rel.unverified,
        uses_default_index=from_pypi and not wishes.pypi_index_url,
        torchaudio_separate=rel.torchaudio_separate if rel.torchaudio.get(patch) is None else None)


def _judge(facts: MachineFacts, wishes: Wishes, kb: CompatDB, kinds: set[str],
           releases: list[tuple[Release, str]]) -> tuple[list[Evaluation], list[Evaluation]]:
    passed: list[Evaluation] = []
    failed: list[Evaluation] = []
    for rel, patch, name in _options(facts, wishes, kb, kinds, releases):
        ev = evaluate(facts, rel, patch, name, kb)
        (passed if ev.passed else failed).append(ev)
    passed.sort(key=lambda e: _rank_key(e, wishes))
    return passed, failed


def _with_alternatives(failed: list[Evaluation], passed: list[Evaluation]) -> list[Rejection]:
    """Rejections; a driver rejection names the build of the same torch that does run, if any."""
    best_by_torch: dict[tuple[str, str], str] = {}
    for ev in passed:  # already in rank order
        best_by_torch.setdefault((ev.release.torch, ev.variant.kind), ev.variant.name)
    out: list[Rejection] = []
    for ev in failed:
        first = ev.first_failure()
        reason = first.message
        alt = best_by_torch.get((ev.release.torch, ev.variant.kind))
        if first.rule == RULE_DRIVER and alt and reason.key in ("recommend.reject.driver_major",
                                                                  "recommend.reject.driver_ptx"):
            reason = Message.of(reason.key + "_alt", alt=alt, **dict(reason.params))
        out.append(Rejection(ev.patch, ev.variant.name, first.rule, reason,
                             [f for f in ev.failures if f is not first]))
    out.sort(key=lambda r: (_neg(_v(r.torch)), r.variant))
    return out


def recommend(facts: MachineFacts, wishes: Wishes | None = None, kb: CompatDB | None = None) -> Recommendation:
    """Candidates in order, every rejected option with its reason, and advice. Pure computation."""
    kb = kb or compat_mod.load()
    wishes = wishes or Wishes()
    releases = _releases_for(wishes, kb)
    kinds = _families(facts, wishes, kb)
    passed, failed = _judge(facts, wishes, kb, kinds, releases)

    gpu_passed = [e for e in passed if e.variant.kind != "cpu"]
    if facts.has_nvidia and not wishes.cpu_only and not gpu_passed and "cpu" not in kinds:
        # nothing runs on the GPU: the CPU build is the fallback, with the reason in the advice
        fallback = {"mps"} if facts.platform == "macos-arm64" else {"cpu"}
        cpu_passed, cpu_failed = _judge(facts, wishes, kb, fallback, releases)
        passed += cpu_passed
        failed += cpu_failed
    passed.sort(key=lambda e: _rank_key(e, wishes))

    candidates = [_candidate(e, facts, wishes, kb) for e in passed]
    rejected = _with_alternatives(failed, passed)
    advice = _advice(facts, wishes, kb, passed, releases)
    return Recommendation(facts, wishes, candidates, rejected, advice, kb.schema, kb.reviewed_on)


# --------------------------------------------------------------------------------------------
# Advice
# --------------------------------------------------------------------------------------------
def _best_cuda(facts: MachineFacts, wishes: Wishes, kb: CompatDB,
               releases: list[tuple[Release, str]]) -> Evaluation | None:
    passed, _ = _judge(facts, replace(wishes, variant=None, cpu_only=False), kb, {"cuda"}, releases)
    return passed[0] if passed else None


def _driver_target(facts: MachineFacts, wishes: Wishes, kb: CompatDB, releases: list[tuple[Release, str]],
                   current: Evaluation | None) -> tuple[Evaluation, str] | None:
    """What a new enough driver would unlock beyond ``current``: the newest torch among the better
    options, through the variant of it that needs the lowest driver (cu130 at 580 rather than
    cu132 at 595). Returns that option and the driver it needs; None when nothing better exists.
    """
    hypo = replace(facts, nvidia_without_driver=False, driver_version=_HUGE_DRIVER, cuda_driver="99.9")
    passed, _ = _judge(hypo, replace(wishes, variant=None, cpu_only=False), kb, {"cuda"}, releases)
    better = [e for e in passed if _better(e, current)]
    if not better:
        return None
    top = [e for e in better if e.patch == better[0].patch]
    needs = [(_needed_driver(e, facts, kb), e) for e in top]
    need, ev = min(needs, key=lambda pair: _v(pair[0]))
    return ev, need


def _better(a: Evaluation, b: Evaluation | None) -> bool:
    """Is option ``a`` a newer torch, or the same torch with a newer CUDA, than ``b``?"""
    if b is None:
        return True
    return (_v(a.patch), a.variant.sort_key) > (_v(b.patch), b.variant.sort_key)


def _driver_how(facts: MachineFacts, kb: CompatDB, need: str) -> tuple[Message, list[str]]:
    url = kb.advice["driver_download"]["url"]
    branch = need.split(".")[0]
    if facts.is_wsl:
        return msg("recommend.advice.how_wsl", url=url), list(kb.advice["wsl"]["commands"])
    if facts.os == "windows":
        return msg("recommend.advice.how_windows", url=url), []
    if facts.distro_id in (None, "", "ubuntu", "pop", "linuxmint"):
        cmds = [c.format(branch=branch) for c in kb.advice["ubuntu_driver_commands"]["commands"]]
        return msg("recommend.advice.how_linux_ubuntu", url=url, branch=branch), cmds
    return msg("recommend.advice.how_linux", url=url, branch=branch), []


def _any_build_has(kb: CompatDB, facts: MachineFacts, cc: tuple[int, int]) -> bool:
    """Does any CUDA build in the table (any release, this platform) carry code for ``cc``?"""
    for rel in kb.releases:
        for name in rel.variants.get(facts.platform, ()):
            archs = kb.archs_for(name, rel.torch, facts.platform) if kb.variants[name].kind == "cuda" else None
            if archs is not None and (archs.cubin_for(cc) or archs.ptx_for(cc)):
                return True
    return False


def _needed_driver(ev: Evaluation, facts: MachineFacts, kb: CompatDB) -> str:
    """The driver that runs ``ev`` with every feature: its toolkit bar, or what the GPU needs if higher.

    Returned as written in the table ('580.65.06'): Version() would normalise it to '580.65.6'.
    """
    bars = kb.driver_bars(ev.variant.name, facts.driver_os, ev.release.torch)
    assert bars is not None
    need = bars.toolkit
    for cc in facts.ccs():
        arch = kb.gpu_arch(cc)
        gpu_need = kb.driver_for_cuda(arch.min_cuda, facts.driver_os) if arch else None
        if gpu_need and _v(gpu_need) > _v(need):
            need = gpu_need
    return need


def _advice(facts: MachineFacts, wishes: Wishes, kb: CompatDB, passed: list[Evaluation],
            releases: list[tuple[Release, str]]) -> list[Advice]:
    out: list[Advice] = []
    url = kb.advice["driver_download"]["url"]
    best = passed[0] if passed else None
    gpu_candidates = [e for e in passed if e.variant.kind != "cpu"]

    if wishes.torch and not releases:
        out.append(Advice("pin_unknown", "required", msg("recommend.advice.pin_unknown", torch=wishes.torch,
                                                          known=_span(kb.torch_versions()))))
        return out

    if facts.has_nvidia and not wishes.cpu_only:
        best_cuda = next((e for e in passed if e.variant.kind == "cuda"), None)
        target = _driver_target(facts, wishes, kb, releases, best_cuda)
        if facts.nvidia_without_driver and not facts.driver_version:
            # a first install takes the newest branch the table knows, not the oldest that would do
            newest_bar = max((bars[facts.driver_os] for bars in kb.minor_compat.values()), key=_v)
            need = max(target[1], newest_bar, key=_v) if target else newest_bar
            how, cmds = _driver_how(facts, kb, need)
            out.append(Advice("driver_install", "required", msg("recommend.advice.driver_install"), how, url, cmds))
        elif target is not None and (facts.driver_version or facts.cuda_driver):
            ev, need = target
            how, cmds = _driver_how(facts, kb, need)
            if best_cuda is None:
                severity, key = "required", "recommend.advice.driver_update_required"
            elif _v(ev.patch) > _v(best_cuda.patch):
                severity, key = "recommended", "recommend.advice.driver_update_optional"
            else:  # the same torch, only a newer CUDA: nice to know
                severity, key = "info", "recommend.advice.driver_update_optional"
            out.append(Advice("driver_update", severity, msg(key, need=need, torch=ev.patch, variant=ev.variant.name),
                              how, url, cmds))
        elif target is None and best_cuda is None:
            for cc in [c for c in facts.ccs() if not _any_build_has(kb, facts, c)][:1]:
                out.append(Advice("gpu_unsupported", "info", msg(
                    "recommend.advice.gpu_unsupported", gpu=facts.gpu_label(cc), sm=sm_name(cc))))
        if wishes.torch and not gpu_candidates:
            free = _best_cuda(facts, replace(wishes, torch=None), kb, _releases_for(Wishes(), kb))
            if free is not None:
                out.append(Advice("pin_blocks_gpu", "info", msg("recommend.advice.pin_blocks_gpu",
                                                                torch=wishes.torch, alt=free.patch)))

    out += _python_advice(facts, wishes, kb, best, releases)

    if wishes.variant and not any(e.variant.name == wishes.variant for e in passed):
        out.append(Advice("variant_unavailable", "info", msg("recommend.advice.variant_unavailable",
                                                             variant=wishes.variant)))
    if ("amd" in facts.non_nvidia or facts.amd_gfx) and not facts.has_nvidia \
            and not _platform_offers(kb, facts.platform, "rocm"):
        out.append(Advice("rocm_linux_only", "info", msg("recommend.advice.rocm_linux_only")))

    if best is None or best.variant.kind != "cuda":
        if best is None:
            out.append(Advice("nothing_runs", "info", msg("recommend.advice.nothing")))
        colab = kb.advice["colab"]
        cloud = kb.advice["cloud"]
        out.append(Advice("colab", "info", msg("recommend.advice.colab", gpu=colab["gpu"])))
        out.append(Advice("cloud", "info", msg("recommend.advice.cloud", low=f"{cloud['usd_per_hour_min']:.2f}",
                                               high=f"{cloud['usd_per_hour_max']:.2f}")))
    return out


def _suggest_python(rel: Release, platform: str, kb: CompatDB) -> str:
    """A Python to suggest for a release: its newest one that an older release also supports.

    A Python only the newest release has wheels for is usually too new for the rest of a course's
    packages; one step back is the safe suggestion.
    """
    pys = sorted(rel.pythons_on(platform), key=_v, reverse=True)
    older = {p for r in kb.releases if r.v < rel.v for p in r.pythons_on(platform)}
    for p in pys:
        if p in older:
            return p
    return pys[0]


def _python_advice(facts: MachineFacts, wishes: Wishes, kb: CompatDB, best: Evaluation | None,
                   releases: list[tuple[Release, str]]) -> list[Advice]:
    """When another Python would get a newer (or any) torch build that passes the other rules."""
    kinds = {best.variant.kind} if best is not None else _families(facts, wishes, kb) | {"cpu"}
    # newest first, confirmed releases before unconfirmed ones (as the ranking does) unless "newest"
    order = sorted(releases, key=lambda rp: (0 if wishes.newest or rp[0].verified else 1, _neg(rp[0].v)))
    for rel, patch in order:
        if best is not None and _v(patch) <= _v(best.patch):
            continue
        pythons = rel.pythons_on(facts.platform)
        if not pythons or facts.python in pythons:
            continue
        use = _suggest_python(rel, facts.platform, kb)
        passed, _ = _judge(replace(facts, python=use), wishes, kb, kinds, [(rel, patch)])
        if not passed:
            continue
        if best is None:
            return [Advice("python", "required", msg("recommend.advice.python_required", python=facts.python,
                                                      use=use, torch=patch))]
        return [Advice("python", "recommended", msg("recommend.advice.python", python=facts.python,
                                                     have=best.patch, use=use, torch=patch))]
    return []


# --------------------------------------------------------------------------------------------
# The GUI's override: judge a build the student picked by hand
# --------------------------------------------------------------------------------------------
def evaluate_option(facts: MachineFacts, torch: str, variant: str, kb: CompatDB | None = None) -> Evaluation | None:
    """The full evaluation of one build (None when the table does not know the torch version)."""
    kb = kb or compat_mod.load()
    rel = kb.release(torch)
    if rel is None or kb.variant(variant) is None:
        return None
    patch = torch if torch.count(".") >= 2 else rel.newest_patch
    return evaluate(facts, rel, patch, variant, kb)


def check_candidate(facts: MachineFacts, torch: str, variant: str, kb: CompatDB | None = None,
                    lang: str | None = None) -> list[str]:
    """Why ``torch``+``variant`` would fail here, by the same rules ([] = it passes).

    The override is warned about, not blocked: the caller shows these sentences and lets the
    student go on.
    """
    kb = kb or compat_mod.load()
    if kb.release(torch) is None:
        return [msg("recommend.reject.unknown_torch", torch=torch, known=_span(kb.torch_versions())).text(lang)]
    if kb.variant(variant) is None:
        return [msg("recommend.reject.unknown_variant", variant=variant).text(lang)]
    ev = evaluate_option(facts, torch, variant, kb)
    assert ev is not None
    ordered = sorted(ev.failures, key=lambda f: RULES.index(f.rule))
    return [f.message.text(lang) for f in ordered]


def rule_failures(facts: MachineFacts, torch: str, variant: str, kb: CompatDB | None = None) -> list[Failure]:
    """Like :func:`check_candidate`, keeping the rule of each failure (for tests and the GUI)."""
    ev = evaluate_option(facts, torch, variant, kb)
    return [] if ev is None else sorted(ev.failures, key=lambda f: RULES.index(f.rule))


__all__ = [
    "SCHEMA", "RULES", "RULE_EXISTS", "RULE_GPU", "RULE_DRIVER", "Message", "MachineFacts", "Wishes",
    "Candidate", "Rejection", "Advice", "Recommendation", "Failure", "Evaluation", "recommend",
    "check_candidate", "evaluate_option", "rule_failures", "evaluate",
]
