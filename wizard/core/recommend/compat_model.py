"""The compatibility table's value types: what :mod:`wizard.core.recommend.compat` builds from
``resources/compat.json`` and the recommender queries (releases, variants, driver bars, the GPU
code in each build). Immutable once built; nothing here reads a file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Mapping

from packaging.version import InvalidVersion, Version

SCHEMA = "gsw-compat/1"
SUPPORTED_MAJOR = 1
PLATFORMS = ("linux-x86_64", "linux-aarch64", "windows-x86_64", "windows-arm64", "macos-arm64", "macos-x86_64")
KINDS = ("cuda", "rocm", "xpu", "mps", "cpu")


class CompatDataError(ValueError):
    """compat.json is malformed or inconsistent; the message names the offending path."""


# --------------------------------------------------------------------------------------------
# Small value types
# --------------------------------------------------------------------------------------------
@lru_cache(maxsize=4096)


def version(text: str) -> Version:
    """A :class:`packaging.version.Version`, with a clear error for data typos (cached: the
    recommender compares the same few dozen version strings thousands of times)."""
    try:
        return Version(str(text))
    except InvalidVersion as exc:
        raise CompatDataError(f"not a version: {text!r}") from exc


def parse_cc(text: str) -> tuple[int, int]:
    """'8.6', 'sm_86', '86', '12.0' → (8, 6) / (12, 0). Raises ValueError for anything else."""
    raw = str(text).strip().lower().removeprefix("sm_").removeprefix("sm")
    if "." in raw:
        major, minor = raw.split(".", 1)
        return int(major), int(minor)
    if raw.isdigit() and len(raw) >= 2:
        return int(raw[:-1]), int(raw[-1])
    raise ValueError(f"not a compute capability: {text!r}")


def sm_name(cc: tuple[int, int]) -> str:
    """(8, 6) → 'sm_86'; (12, 0) → 'sm_120' (the spelling PyTorch's messages use)."""
    return f"sm_{cc[0]}{cc[1]}"


def minor_of(torch_version: str) -> str:
    """'2.1.2' → '2.1'; '2.10' → '2.10'."""
    parts = str(torch_version).split(".")
    return ".".join(parts[:2])


@dataclass(frozen=True)


class ArchList:
    """The GPU code compiled into one build: real kernels (cubins) and PTX (compiled on first use)."""

    cubins: tuple[tuple[int, int], ...]
    ptx: tuple[tuple[int, int], ...]
    unverified: str | None = None

    @classmethod
    def parse(cls, text: str, unverified: str | None = None) -> "ArchList":
        cubins: list[tuple[int, int]] = []
        ptx: list[tuple[int, int]] = []
        for item in text.split(";"):
            item = item.strip()
            if not item:
                continue
            has_ptx = item.endswith("+PTX")
            cc = parse_cc(item.removesuffix("+PTX"))
            cubins.append(cc)
            if has_ptx:
                ptx.append(cc)
        return cls(tuple(sorted(cubins)), tuple(sorted(ptx)), unverified)

    def cubin_for(self, cc: tuple[int, int]) -> tuple[int, int] | None:
        """The kernel a GPU of ``cc`` runs: same major, minor at or below (sm_89 runs sm_86 code)."""
        usable = [c for c in self.cubins if c[0] == cc[0] and c[1] <= cc[1]]
        return max(usable) if usable else None

    def ptx_for(self, cc: tuple[int, int]) -> tuple[int, int] | None:
        """PTX the driver can compile for ``cc``: only forward, from an older or equal arch."""
        usable = [p for p in self.ptx if p <= cc]
        return max(usable) if usable else None

    def describe(self) -> str:
        """'sm_70 … sm_120' style summary for messages."""
        if not self.cubins:
            return "-"
        text = ", ".join(sm_name(c) for c in self.cubins)
        if self.ptx:
            text += " + PTX " + ", ".join(sm_name(p) for p in self.ptx)
        return text


@dataclass(frozen=True)


class DriverBars:
    """Both driver bars of one CUDA build on one OS (see the module docstring)."""

    minimum: str  # minor-version compatibility: below it the build cannot start
    toolkit: str  # the driver the build's toolkit shipped with: full features incl. PTX JIT
    toolkit_assumed: str | None = None  # why the toolkit number is an assumption, if it is


@dataclass(frozen=True)


class Variant:
    name: str
    kind: str  # cuda | rocm | xpu | mps | cpu
    src: tuple[str, ...]
    cuda: str | None = None
    built_with: str | None = None
    toolkit_driver: Mapping[str, str] = field(default_factory=dict)
    minor_compat_driver: Mapping[str, str] = field(default_factory=dict)
    toolkit_driver_by_torch: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    assumed: Mapping[str, str] = field(default_factory=dict)
    rocm: str | None = None
    gfx: tuple[str, ...] | None = None
    index: str = "pytorch"
    index_by_platform: Mapping[str, str] = field(default_factory=dict)
    note: str | None = None

    @property
    def sort_key(self) -> tuple:
        """Higher is newer within a kind: cu130 > cu128, rocm7.2 > rocm6.4."""
        if self.kind == "cuda" and self.cuda:
            return (version(self.cuda),)
        if self.kind == "rocm" and self.rocm:
            return (version(self.rocm),)
        return (Version("0"),)


@dataclass(frozen=True)


class Release:
    torch: str  # the minor, "2.9"
    released: str
    patches: tuple[str, ...]
    python: tuple[str, ...]
    python_only_on: Mapping[str, tuple[str, ...]]
    torchvision: Mapping[str, str]
    torchaudio: Mapping[str, str | None]
    variants: Mapping[str, tuple[str, ...]]
    pypi_default: Mapping[str, str]
    macos_min: str | None
    confidence: str
    src: tuple[str, ...]
    torchaudio_separate: str | None = None
    unverified: Mapping[str, str] = field(default_factory=dict)
    notes: str | None = None

    @property
    def v(self) -> Version:
        return version(self.torch)

    @property
    def newest_patch(self) -> str:
        return max(self.patches, key=version)

    @property
    def verified(self) -> bool:
        return self.confidence == "confirmed"

    def pythons_on(self, platform: str) -> tuple[str, ...]:
        """Python versions with wheels on ``platform`` (python_only_on narrows some)."""
        return tuple(p for p in self.python
                     if p not in self.python_only_on or platform in self.python_only_on[p])

    def python_requires(self, platform: str) -> str:
        """PEP 440 specifier for the Pythons this release has wheels for: '>=3.10,<3.15'."""
        pys = sorted(self.pythons_on(platform), key=version)
        if not pys:
            return ""
        hi = version(pys[-1])
        return f">={pys[0]},<{hi.major}.{hi.minor + 1}"


@dataclass(frozen=True)


class GpuArch:
    cc: tuple[int, int]
    family: str
    min_cuda: str  # the first CUDA toolkit (and so the first driver generation) that knows this GPU
    max_cuda_exclusive: str | None
    examples: str = ""


@dataclass(frozen=True)


class CudaArchEntry:
    variant: str
    torch_from: Version
    torch_to: Version | None
    archs: Mapping[str, ArchList]

    def covers(self, torch_minor: str) -> bool:
        v = version(torch_minor)
        return self.torch_from <= v and (self.torch_to is None or v <= self.torch_to)


# --------------------------------------------------------------------------------------------
# The database
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)


class CompatDB:
    """Queries over compat.json. Build it with :func:`load` (bundled file) or :func:`parse`."""

    schema: str
    reviewed_on: str
    sources: Mapping[str, str]
    index_pytorch: str
    index_pypi: str
    toolkit_rows: tuple[tuple[Version, str, str | None], ...]  # (cuda, linux, windows), ascending
    minor_compat: Mapping[str, Mapping[str, str]]
    variants: Mapping[str, Variant]
    cuda_archs: tuple[CudaArchEntry, ...]
    gpu_archs: Mapping[tuple[int, int], GpuArch]
    releases: tuple[Release, ...]  # newest first
    xpu_name_patterns: tuple[str, ...]
    advice: Mapping[str, Any]
    raw: Mapping[str, Any] = field(repr=False, compare=False, default_factory=dict)

    # --- releases -------------------------------------------------------------------------
    def release(self, torch: str) -> Release | None:
        """The release of a minor or patch ('2.1' or '2.1.2'); None when the table lacks it."""
        wanted = minor_of(torch)
        for rel in self.releases:
            if rel.torch == wanted:
                if torch.count(".") >= 2 and torch not in rel.patches:
                    return None
                return rel
        return None

    def torch_versions(self) -> list[str]:
        return [r.torch for r in self.releases]

    # --- variants ---------------------------------------------------------------------------
    def variant(self, name: str) -> Variant | None:
        return self.variants.get(name)

    def index_url(self, variant: str, platform: str | None = None) -> str:
        """The simple-index URL a variant's wheels come from (PyTorch's or PyPI)."""
        info = self.variants[variant]
        where = info.index_by_platform.get(platform or "", info.index)
        if where == "pypi":
            return self.index_pypi
        return self.index_pytorch.format(variant=variant)

    def archs_for(self, variant: str, torch: str, platform: str) -> ArchList | None:
        """GPU code in ``variant`` wheels of ``torch`` for ``platform`` (None: not in the table)."""
        for entry in self.cuda_archs:
            if entry.variant == variant and entry.covers(minor_of(torch)) and platform in entry.archs:
                return entry.archs[platform]
        return None

    # --- drivers ----------------------------------------------------------------------------
    def driver_bars(self, variant: str, driver_os: str, torch: str | None = None) -> DriverBars | None:
        """Both bars for a CUDA variant; ``driver_os`` is 'linux' or 'windows' (WSL: windows)."""
        info = self.variants.get(variant)
        if info is None or info.kind != "cuda":
            return None
        toolkit = info.toolkit_driver[driver_os]
        if torch is not None and minor_of(torch) in info.toolkit_driver_by_torch:
            toolkit = info.toolkit_driver_by_torch[minor_of(torch)][driver_os]
        return DriverBars(info.minor_compat_driver[driver_os], toolkit,
                          info.assumed.get(f"toolkit_driver.{driver_os}"))

    def cuda_for_driver(self, driver: str, driver_os: str) -> str | None:
        """Highest CUDA 'major.minor' whose toolkit driver is at or below ``driver``.

        Conservative (566.36 → 12.6, while nvidia-smi says 12.7): used only when detection did
        not report the driver's CUDA version. Windows 13.x rows have no number; the R-branch
        (580 for 13.0) stands in for them, as for the bars.
        """
        drv = version(driver)
        best: Version | None = None
        for cuda, linux, windows in self.toolkit_rows:
            bar = linux if driver_os == "linux" else windows
            if bar is None:
                bar = linux.split(".")[0]
            if drv >= version(bar):
                best = cuda
        return None if best is None else f"{best.major}.{best.minor}"

    def driver_for_cuda(self, cuda: str, driver_os: str) -> str | None:
        """The first driver that knows CUDA ``cuda`` ('12.8' → 570.26 Linux / 570.65 Windows)."""
        want = version(cuda).release[:2]
        for row_cuda, linux, windows in self.toolkit_rows:
            if row_cuda.release[:2] == want:
                if driver_os == "linux":
                    return linux
                return windows if windows is not None else linux.split(".")[0]
        return None

    # --- GPUs -------------------------------------------------------------------------------
    def gpu_arch(self, cc: tuple[int, int]) -> GpuArch | None:
        return self.gpu_archs.get(cc)
