"""The PyTorch compatibility knowledge base: ``resources/compat.json`` loaded, checked and queried.

Why data and not code: PyTorch publishes a release every few months, each with a different set of
CUDA variants, Python versions and GPU architectures, and the tools students use today go wrong
precisely because their tables lag (light-the-torch stops at CUDA 12.6). Keeping the facts in one
JSON file, each with its source, lets a reviewer update them without touching the rules in
:mod:`wizard.core.recommend.recommender`, and lets a test prove the file is complete and consistent.

Two driver bars per CUDA variant are kept, because they answer different questions:

* ``minor_compat_driver`` -- the lowest driver of the same CUDA major that can run the build at all
  (NVIDIA "minor version compatibility"; what light-the-torch and ``uv --torch-backend=auto`` use).
  Below it the build cannot start: *rejected*.
* ``toolkit_driver`` -- the driver that shipped with the toolkit the build was made with. Only at
  or above it does everything work, including JIT compilation of the build's PTX. Between the two
  bars the build runs with limitations: *accepted with a warning*, ranked after builds that meet
  the toolkit bar (see :mod:`wizard.core.recommend.recommender`).

Nothing here imports Qt; :class:`CompatDB` is immutable after loading and safe to share.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Mapping

from packaging.version import InvalidVersion, Version

from wizard.core.base.resources import load_json

SCHEMA = "gsw-compat/1"
SUPPORTED_MAJOR = 1
PLATFORMS = ("linux-x86_64", "linux-aarch64", "windows-x86_64", "windows-arm64", "macos-arm64", "macos-x86_64")
KINDS = ("cuda", "rocm", "xpu", "mps", "cpu")


class CompatDataError(ValueError):
    """compat.json is malformed or inconsistent; the message names the offending path."""


# --------------------------------------------------------------------------------------------
# JSON Schema of compat.json (draft 2020-12). The runtime loader does not need a schema library:
# :func:`parse` checks the same structure while building the dataclasses. The schema documents
# the format for people editing the file, and the test suite validates the file against it.
# --------------------------------------------------------------------------------------------
_VERSION_RE = r"^[0-9]+(\.[0-9]+)*$"
_DRIVER_RE = r"^[0-9]{3}(\.[0-9]{1,3}(\.[0-9]{1,3})?)?$"
_SRC = {"type": "array", "minItems": 1, "items": {"type": "string"}}
_PLATFORM_MAP = lambda value: {  # noqa: E731 - a tiny schema helper
    "type": "object", "propertyNames": {"enum": list(PLATFORMS)}, "additionalProperties": value}
_OS_DRIVERS = {"type": "object", "required": ["linux", "windows"], "additionalProperties": False,
               "properties": {"linux": {"type": "string", "pattern": _DRIVER_RE},
                              "windows": {"type": "string", "pattern": _DRIVER_RE}}}

COMPAT_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "GPU Setup Wizard PyTorch compatibility table",
    "type": "object",
    "required": ["schema", "reviewed_on", "sources", "index", "cuda_toolkit_drivers", "minor_version_compat",
                 "variants", "cuda_archs", "gpu_archs", "releases", "xpu_gpu_names", "advice"],
    "properties": {
        "schema": {"type": "string", "pattern": r"^gsw-compat/[0-9]+$"},
        "reviewed_on": {"type": "string", "format": "date", "pattern": r"^\d{4}-\d{2}-\d{2}$"},
        "_doc": {"type": "string"},
        "sources": {"type": "object", "minProperties": 1, "additionalProperties": {"type": "string", "minLength": 10}},
        "index": {"type": "object", "required": ["pytorch", "pypi", "src"],
                  "properties": {"pytorch": {"type": "string", "pattern": r"^https://.*\{variant\}"},
                                 "pypi": {"type": "string", "pattern": r"^https://"}, "src": _SRC}},
        "cuda_toolkit_drivers": {
            "type": "object", "required": ["rows", "src"],
            "properties": {"rows": {"type": "array", "minItems": 1, "items": {
                "type": "object", "required": ["cuda", "linux", "windows"], "additionalProperties": False,
                "properties": {"cuda": {"type": "string", "pattern": _VERSION_RE},
                               "linux": {"type": "string", "pattern": _DRIVER_RE},
                               "windows": {"type": ["string", "null"], "pattern": _DRIVER_RE}}}},
                "src": _SRC}},
        "minor_version_compat": {
            "type": "object", "required": ["majors", "src"],
            "properties": {"majors": {"type": "object", "additionalProperties": _OS_DRIVERS}, "src": _SRC}},
        "variants": {"type": "object", "minProperties": 1, "additionalProperties": {
            "type": "object", "required": ["kind", "src"],
            "properties": {
                "kind": {"enum": list(KINDS)},
                "cuda": {"type": "string", "pattern": r"^[0-9]+\.[0-9]+$"},
                "built_with": {"type": "string"},
                "toolkit_driver": _OS_DRIVERS,
                "minor_compat_driver": _OS_DRIVERS,
                "toolkit_driver_by_torch": {"type": "array", "items": {
                    "type": "object", "required": ["torch", "linux", "windows"],
                    "properties": {"torch": {"type": "string", "pattern": _VERSION_RE},
                                   "linux": {"type": "string", "pattern": _DRIVER_RE},
                                   "windows": {"type": "string", "pattern": _DRIVER_RE}}}},
                "rocm": {"type": "string", "pattern": _VERSION_RE},
                "gfx": {"type": ["array", "null"], "items": {"type": "string", "pattern": r"^gfx[0-9a-f]+$"}},
                "index": {"enum": ["pytorch", "pypi"]},
                "index_by_platform": _PLATFORM_MAP({"enum": ["pytorch", "pypi"]}),
                "assumed": {"type": "object", "additionalProperties": {"type": "string"}},
                "note": {"type": "string"},
                "src": _SRC},
            "allOf": [
                {"if": {"properties": {"kind": {"const": "cuda"}}},
                 "then": {"required": ["cuda", "toolkit_driver", "minor_compat_driver"]}},
                {"if": {"properties": {"kind": {"const": "rocm"}}}, "then": {"required": ["rocm", "gfx"]}},
            ]}},
        "cuda_archs": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["variant", "torch", "archs", "src"], "additionalProperties": False,
            "properties": {
                "variant": {"type": "string"},
                "torch": {"type": "object", "required": ["from", "to"], "additionalProperties": False,
                          "properties": {"from": {"type": "string", "pattern": _VERSION_RE},
                                         "to": {"type": ["string", "null"], "pattern": _VERSION_RE}}},
                "archs": _PLATFORM_MAP({"type": "string", "pattern": r"^[0-9]+\.[0-9]+(\+PTX)?(;[0-9]+\.[0-9]+(\+PTX)?)*$"}),
                "unverified": _PLATFORM_MAP({"type": "string"}),
                "src": _SRC}}},
        "gpu_archs": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["cc", "family", "min_cuda", "max_cuda_exclusive", "src"],
            "properties": {"cc": {"type": "string", "pattern": r"^[0-9]+\.[0-9]+$"}, "family": {"type": "string"},
                           "min_cuda": {"type": "string", "pattern": _VERSION_RE},
                           "max_cuda_exclusive": {"type": ["string", "null"], "pattern": _VERSION_RE},
                           "examples": {"type": "string"}, "src": _SRC}}},
        "releases": {"type": "array", "minItems": 1, "items": {
            "type": "object",
            "required": ["torch", "released", "patches", "python", "python_only_on", "torchvision", "torchaudio",
                         "variants", "pypi_default", "macos_min", "confidence", "src"],
            "properties": {
                "torch": {"type": "string", "pattern": r"^[0-9]+\.[0-9]+$"},
                "released": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"},
                "patches": {"type": "array", "minItems": 1, "items": {"type": "string", "pattern": r"^[0-9]+\.[0-9]+\.[0-9]+$"}},
                "python": {"type": "array", "minItems": 1, "items": {"type": "string", "pattern": r"^3\.[0-9]+$"}},
                "python_only_on": {"type": "object", "additionalProperties": {
                    "type": "array", "items": {"enum": list(PLATFORMS)}}},
                "torchvision": {"type": "object", "additionalProperties": {"type": "string", "pattern": _VERSION_RE}},
                "torchaudio": {"type": "object", "additionalProperties": {"type": ["string", "null"], "pattern": _VERSION_RE}},
                "torchaudio_separate": {"type": "string", "pattern": _VERSION_RE},
                "variants": _PLATFORM_MAP({"type": "array", "minItems": 1, "uniqueItems": True, "items": {"type": "string"}}),
                "pypi_default": _PLATFORM_MAP({"type": "string"}),
                "macos_min": {"type": ["string", "null"], "pattern": _VERSION_RE},
                "confidence": {"enum": ["confirmed", "unverified"]},
                "unverified": {"type": "object", "additionalProperties": {"type": "string"}},
                "notes": {"type": "string"},
                "src": _SRC}}},
        "xpu_gpu_names": {"type": "object", "required": ["patterns", "src"],
                          "properties": {"patterns": {"type": "array", "minItems": 1, "items": {"type": "string"}},
                                         "src": _SRC}},
        "advice": {"type": "object", "required": ["driver_download", "ubuntu_driver_commands", "wsl", "colab", "cloud"],
                   "additionalProperties": {"type": "object", "required": ["src"], "properties": {"src": _SRC}}},
    },
}


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

    def source_texts(self, ids: Iterable[str]) -> list[str]:
        return [self.sources[i] for i in ids if i in self.sources]


# --------------------------------------------------------------------------------------------
# Loading and checking
# --------------------------------------------------------------------------------------------
def _need(obj: Mapping[str, Any], key: str, where: str, kind: type | tuple[type, ...]) -> Any:
    if key not in obj:
        raise CompatDataError(f"{where}: missing '{key}'")
    value = obj[key]
    if not isinstance(value, kind):
        raise CompatDataError(f"{where}.{key}: expected {kind}, got {type(value).__name__}")
    return value


def _src(obj: Mapping[str, Any], where: str, sources: Mapping[str, str]) -> tuple[str, ...]:
    ids = _need(obj, "src", where, list)
    if not ids:
        raise CompatDataError(f"{where}.src: a fact needs at least one source")
    unknown = [i for i in ids if i not in sources]
    if unknown:
        raise CompatDataError(f"{where}.src: unknown source ids {unknown}")
    return tuple(ids)


def parse(data: Mapping[str, Any]) -> CompatDB:
    """Build a :class:`CompatDB` from parsed JSON, checking structure and cross-references.

    Raises :class:`CompatDataError` naming the first problem. An unknown major schema version is
    rejected (a newer wizard's table), per the project's JSON contract.
    """
    schema = _need(data, "schema", "compat", str)
    try:
        major = int(schema.split("/", 1)[1])
    except (IndexError, ValueError) as exc:
        raise CompatDataError(f"compat.schema: not 'gsw-compat/<n>': {schema!r}") from exc
    if not schema.startswith("gsw-compat/") or major != SUPPORTED_MAJOR:
        raise CompatDataError(f"compat.schema {schema!r} is not supported (this version reads gsw-compat/{SUPPORTED_MAJOR})")
    reviewed = _need(data, "reviewed_on", "compat", str)
    sources = _need(data, "sources", "compat", dict)

    index = _need(data, "index", "compat", dict)
    _src(index, "index", sources)
    index_pytorch = _need(index, "pytorch", "index", str)
    if "{variant}" not in index_pytorch:
        raise CompatDataError("index.pytorch must contain {variant}")
    index_pypi = _need(index, "pypi", "index", str)

    tk = _need(data, "cuda_toolkit_drivers", "compat", dict)
    _src(tk, "cuda_toolkit_drivers", sources)
    rows = []
    for i, row in enumerate(_need(tk, "rows", "cuda_toolkit_drivers", list)):
        where = f"cuda_toolkit_drivers.rows[{i}]"
        rows.append((version(_need(row, "cuda", where, str)), _need(row, "linux", where, str),
                     row.get("windows")))
    rows.sort(key=lambda r: r[0])
    for (c1, l1, w1), (c2, l2, w2) in zip(rows, rows[1:]):
        if version(l2) < version(l1) or (w1 and w2 and version(w2) < version(w1)):
            raise CompatDataError(f"cuda_toolkit_drivers: driver for CUDA {c2} is lower than for {c1}")

    mvc = _need(data, "minor_version_compat", "compat", dict)
    _src(mvc, "minor_version_compat", sources)
    minor_compat = {k: dict(v) for k, v in _need(mvc, "majors", "minor_version_compat", dict).items()}

    variants: dict[str, Variant] = {}
    for name, raw in _need(data, "variants", "compat", dict).items():
        where = f"variants.{name}"
        kind = _need(raw, "kind", where, str)
        if kind not in KINDS:
            raise CompatDataError(f"{where}.kind: {kind!r} not one of {KINDS}")
        src = _src(raw, where, sources)
        extra: dict[str, Any] = {}
        if kind == "cuda":
            cuda = _need(raw, "cuda", where, str)
            tkd = _need(raw, "toolkit_driver", where, dict)
            mcd = _need(raw, "minor_compat_driver", where, dict)
            for os_name in ("linux", "windows"):
                if os_name not in tkd or os_name not in mcd:
                    raise CompatDataError(f"{where}: driver bars need 'linux' and 'windows'")
                if version(tkd[os_name]) < version(mcd[os_name]):
                    raise CompatDataError(f"{where}: toolkit driver below the minor-compat driver on {os_name}")
            major_bar = minor_compat.get(str(version(cuda).major))
            if major_bar is None or dict(mcd) != dict(major_bar):
                raise CompatDataError(f"{where}: minor_compat_driver differs from minor_version_compat[{version(cuda).major}]")
            by_torch = {e["torch"]: {"linux": e["linux"], "windows": e["windows"]}
                        for e in raw.get("toolkit_driver_by_torch", [])}
            extra.update(cuda=cuda, built_with=raw.get("built_with"), toolkit_driver=dict(tkd),
                         minor_compat_driver=dict(mcd), toolkit_driver_by_torch=by_torch,
                         assumed=dict(raw.get("assumed", {})))
        elif kind == "rocm":
            gfx = raw.get("gfx", "missing")
            if gfx == "missing":
                raise CompatDataError(f"{where}: a ROCm variant needs 'gfx' (a list, or null when unknown)")
            extra.update(rocm=_need(raw, "rocm", where, str), gfx=None if gfx is None else tuple(gfx))
        variants[name] = Variant(name=name, kind=kind, src=src, index=raw.get("index", "pytorch"),
                                 index_by_platform=dict(raw.get("index_by_platform", {})),
                                 note=raw.get("note"), **extra)

    cuda_archs: list[CudaArchEntry] = []
    for i, raw in enumerate(_need(data, "cuda_archs", "compat", list)):
        where = f"cuda_archs[{i}]"
        _src(raw, where, sources)
        name = _need(raw, "variant", where, str)
        if name not in variants or variants[name].kind != "cuda":
            raise CompatDataError(f"{where}: {name!r} is not a CUDA variant")
        rng = _need(raw, "torch", where, dict)
        unverified = raw.get("unverified", {})
        archs = {p: ArchList.parse(text, unverified.get(p)) for p, text in _need(raw, "archs", where, dict).items()}
        cuda_archs.append(CudaArchEntry(name, version(rng["from"]),
                                        None if rng.get("to") is None else version(rng["to"]), archs))

    gpu_archs: dict[tuple[int, int], GpuArch] = {}
    for i, raw in enumerate(_need(data, "gpu_archs", "compat", list)):
        where = f"gpu_archs[{i}]"
        _src(raw, where, sources)
        cc = parse_cc(_need(raw, "cc", where, str))
        gpu_archs[cc] = GpuArch(cc, raw["family"], raw["min_cuda"], raw.get("max_cuda_exclusive"),
                                raw.get("examples", ""))

    releases: list[Release] = []
    for i, raw in enumerate(_need(data, "releases", "compat", list)):
        torch = _need(raw, "torch", f"releases[{i}]", str)
        where = f"releases[{torch}]"
        src = _src(raw, where, sources)
        patches = tuple(_need(raw, "patches", where, list))
        for p in patches:
            if minor_of(p) != torch:
                raise CompatDataError(f"{where}: patch {p} does not belong to {torch}")
        tv = dict(_need(raw, "torchvision", where, dict))
        ta = dict(_need(raw, "torchaudio", where, dict))
        if set(tv) != set(patches) or set(ta) != set(patches):
            raise CompatDataError(f"{where}: torchvision/torchaudio must name exactly the patches {patches}")
        pythons = tuple(_need(raw, "python", where, list))
        only_on = {k: tuple(v) for k, v in _need(raw, "python_only_on", where, dict).items()}
        if not set(only_on) <= set(pythons):
            raise CompatDataError(f"{where}: python_only_on names a Python not in 'python'")
        plat_variants = {p: tuple(v) for p, v in _need(raw, "variants", where, dict).items()}
        for plat, names in plat_variants.items():
            if plat not in PLATFORMS:
                raise CompatDataError(f"{where}.variants: unknown platform {plat!r}")
            for name in names:
                _check_variant_in_release(name, plat, torch, where, variants, cuda_archs)
        pypi_default = dict(_need(raw, "pypi_default", where, dict))
        for plat, name in pypi_default.items():
            if name not in plat_variants.get(plat, ()):
                raise CompatDataError(f"{where}.pypi_default[{plat}]: {name!r} is not a variant of that platform")
        confidence = _need(raw, "confidence", where, str)
        releases.append(Release(
            torch=torch, released=_need(raw, "released", where, str), patches=patches, python=pythons,
            python_only_on=only_on, torchvision=tv, torchaudio=ta, variants=plat_variants,
            pypi_default=pypi_default, macos_min=raw.get("macos_min"), confidence=confidence, src=src,
            torchaudio_separate=raw.get("torchaudio_separate"), unverified=dict(raw.get("unverified", {})),
            notes=raw.get("notes")))
    releases.sort(key=lambda r: r.v, reverse=True)
    if len({r.torch for r in releases}) != len(releases):
        raise CompatDataError("releases: a torch minor is listed twice")

    xpu = _need(data, "xpu_gpu_names", "compat", dict)
    _src(xpu, "xpu_gpu_names", sources)
    advice = _need(data, "advice", "compat", dict)
    for key, value in advice.items():
        _src(value, f"advice.{key}", sources)

    return CompatDB(schema=schema, reviewed_on=reviewed, sources=dict(sources), index_pytorch=index_pytorch,
                    index_pypi=index_pypi, toolkit_rows=tuple(rows), minor_compat=minor_compat,
                    variants=variants, cuda_archs=tuple(cuda_archs), gpu_archs=gpu_archs,
                    releases=tuple(releases), xpu_name_patterns=tuple(xpu["patterns"]), advice=dict(advice),
                    raw=data)


def _check_variant_in_release(name: str, plat: str, torch: str, where: str, variants: Mapping[str, Variant],
                              cuda_archs: list[CudaArchEntry]) -> None:
    """A variant a release names must be known, and a CUDA one needs an arch list for it."""
    info = variants.get(name)
    if info is None:
        raise CompatDataError(f"{where}.variants[{plat}]: unknown variant {name!r}")
    if info.kind == "cuda":
        if not any(e.variant == name and e.covers(torch) and plat in e.archs for e in cuda_archs):
            raise CompatDataError(f"{where}.variants[{plat}]: no arch list for {name} in torch {torch} on {plat}")
    if info.kind == "rocm" and not plat.startswith("linux-x86_64"):
        raise CompatDataError(f"{where}.variants[{plat}]: ROCm builds exist only for linux-x86_64")
    if info.kind == "mps" and not plat.startswith("macos-arm64"):
        raise CompatDataError(f"{where}.variants[{plat}]: MPS is the macOS arm64 wheel")


def load_file(path: str | Path) -> CompatDB:
    """Load a compat.json from a path (an updated table, or a test's copy)."""
    with open(path, encoding="utf-8") as fh:
        try:
            data = json.load(fh)
        except ValueError as exc:
            raise CompatDataError(f"{path}: not JSON: {exc}") from exc
    return parse(data)


@lru_cache(maxsize=1)
def load() -> CompatDB:
    """The bundled table (resources/compat.json), parsed once per process."""
    return parse(load_json("compat.json"))
