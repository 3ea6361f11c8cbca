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

import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

from packaging.version import Version

from wizard.core.base.resources import load_json
from wizard.core.recommend.compat_model import (
    KINDS,
    PLATFORMS,
    SUPPORTED_MAJOR,
    ArchList,
    CompatDataError,
    CompatDB,
    CudaArchEntry,
    GpuArch,
    Release,
    Variant,
    minor_of,
    parse_cc,
    version,
)

# --------------------------------------------------------------------------------------------
# Loading and checking: the parser is the validator
# --------------------------------------------------------------------------------------------
# Why no JSON Schema: the checks that matter most are across entries (a release's variant needs
# an arch list, a toolkit bar may not be below the minor-compat bar), which a schema cannot say,
# and a schema library would be one more dependency in the Windows bundle for the rest. So every
# field is checked here, while the dataclasses are built, and each error names its path.
_VERSION_RE = re.compile(r"[0-9]+(\.[0-9]+)*")
_DRIVER_RE = re.compile(r"[0-9]{3}(\.[0-9]{1,3}(\.[0-9]{1,3})?)?")
_DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}")
_ADVICE_KEYS = ("driver_download", "ubuntu_driver_commands", "wsl", "colab", "cloud")
_CONFIDENCE = ("confirmed", "unverified")


def _need(obj: Any, key: str, where: str, kind: type | tuple[type, ...]) -> Any:
    if not isinstance(obj, Mapping):
        raise CompatDataError(f"{where}: expected an object, got {type(obj).__name__}")
    if key not in obj:
        raise CompatDataError(f"{where}: missing '{key}'")
    value = obj[key]
    if not isinstance(value, kind):
        raise CompatDataError(f"{where}.{key}: expected {kind}, got {type(value).__name__}")
    return value


def _text(obj: Any, key: str, where: str, pattern: re.Pattern[str] | None = None, *,
          optional: bool = False) -> str | None:
    """A string field (None allowed when ``optional``), which must match ``pattern`` in full."""
    if optional and (not isinstance(obj, Mapping) or obj.get(key) is None):
        return None
    value = _need(obj, key, where, str)
    if pattern is not None and not pattern.fullmatch(value):
        raise CompatDataError(f"{where}.{key}: {value!r} is not of the form {pattern.pattern}")
    return value


def _src(obj: Mapping[str, Any], where: str, sources: Mapping[str, str]) -> tuple[str, ...]:
    ids = _need(obj, "src", where, list)
    if not ids:
        raise CompatDataError(f"{where}.src: a fact needs at least one source")
    unknown = [i for i in ids if i not in sources]
    if unknown:
        raise CompatDataError(f"{where}.src: unknown source ids {unknown}")
    return tuple(ids)


def _os_drivers(obj: Mapping[str, Any], key: str, where: str) -> dict[str, str]:
    """A ``{"linux": "525.60.13", "windows": "527.41"}`` pair of driver bars."""
    bars = _need(obj, key, where, dict)
    return {os_name: str(_text(bars, os_name, f"{where}.{key}", _DRIVER_RE)) for os_name in ("linux", "windows")}


def _header(data: Mapping[str, Any]) -> tuple[str, str, dict[str, str]]:
    """(schema, reviewed_on, sources); an unknown major schema version is rejected (a newer
    wizard's table), per the project's JSON contract."""
    schema = str(_text(data, "schema", "compat"))
    try:
        major = int(schema.split("/", 1)[1])
    except (IndexError, ValueError) as exc:
        raise CompatDataError(f"compat.schema: not 'gsw-compat/<n>': {schema!r}") from exc
    if not schema.startswith("gsw-compat/") or major != SUPPORTED_MAJOR:
        raise CompatDataError(f"compat.schema {schema!r} is not supported (this version reads gsw-compat/{SUPPORTED_MAJOR})")
    reviewed = str(_text(data, "reviewed_on", "compat", _DATE_RE))
    sources = _need(data, "sources", "compat", dict)
    if not sources:
        raise CompatDataError("compat.sources: no sources")
    for sid, text in sources.items():
        if not isinstance(text, str) or len(text) < 10:
            raise CompatDataError(f"compat.sources.{sid}: a source needs a citation (a URL or a title)")
    return schema, reviewed, dict(sources)


def _index(data: Mapping[str, Any], sources: Mapping[str, str]) -> tuple[str, str]:
    index = _need(data, "index", "compat", dict)
    _src(index, "index", sources)
    pytorch = str(_text(index, "pytorch", "index", re.compile(r"https://.*\{variant\}.*")))
    pypi = str(_text(index, "pypi", "index", re.compile(r"https://.+")))
    return pytorch, pypi


def _toolkit_rows(data: Mapping[str, Any], sources: Mapping[str, str]) -> list[tuple[Version, str, str | None]]:
    tk = _need(data, "cuda_toolkit_drivers", "compat", dict)
    _src(tk, "cuda_toolkit_drivers", sources)
    rows = []
    for i, row in enumerate(_need(tk, "rows", "cuda_toolkit_drivers", list)):
        where = f"cuda_toolkit_drivers.rows[{i}]"
        rows.append((version(str(_text(row, "cuda", where, _VERSION_RE))), str(_text(row, "linux", where, _DRIVER_RE)),
                     _text(row, "windows", where, _DRIVER_RE, optional=True)))
    if not rows:
        raise CompatDataError("cuda_toolkit_drivers.rows: no rows")
    rows.sort(key=lambda r: r[0])
    for (c1, l1, w1), (c2, l2, w2) in zip(rows, rows[1:]):
        if version(l2) < version(l1) or (w1 and w2 and version(w2) < version(w1)):
            raise CompatDataError(f"cuda_toolkit_drivers: driver for CUDA {c2} is lower than for {c1}")
    return rows


def _minor_compat(data: Mapping[str, Any], sources: Mapping[str, str]) -> dict[str, dict[str, str]]:
    mvc = _need(data, "minor_version_compat", "compat", dict)
    _src(mvc, "minor_version_compat", sources)
    majors = _need(mvc, "majors", "minor_version_compat", dict)
    return {k: _os_drivers(majors, k, "minor_version_compat.majors") for k in majors}


def _cuda_fields(raw: Mapping[str, Any], where: str, minor_compat: Mapping[str, Mapping[str, str]]) -> dict[str, Any]:
    """A CUDA variant's toolkit and driver bars, checked against each other and the table."""
    cuda = str(_text(raw, "cuda", where, re.compile(r"[0-9]+\.[0-9]+")))
    tkd = _os_drivers(raw, "toolkit_driver", where)
    mcd = _os_drivers(raw, "minor_compat_driver", where)
    for os_name in ("linux", "windows"):
        if version(tkd[os_name]) < version(mcd[os_name]):
            raise CompatDataError(f"{where}: toolkit driver below the minor-compat driver on {os_name}")
    major_bar = minor_compat.get(str(version(cuda).major))
    if major_bar is None or mcd != dict(major_bar):
        raise CompatDataError(f"{where}: minor_compat_driver differs from minor_version_compat[{version(cuda).major}]")
    by_torch: dict[str, dict[str, str]] = {}
    for i, e in enumerate(raw.get("toolkit_driver_by_torch", [])):
        at = f"{where}.toolkit_driver_by_torch[{i}]"
        by_torch[str(_text(e, "torch", at, _VERSION_RE))] = {
            os_name: str(_text(e, os_name, at, _DRIVER_RE)) for os_name in ("linux", "windows")}
    return dict(cuda=cuda, built_with=raw.get("built_with"), toolkit_driver=tkd, minor_compat_driver=mcd,
                toolkit_driver_by_torch=by_torch, assumed=dict(raw.get("assumed", {})))


def _variant(name: str, raw: Any, sources: Mapping[str, str],
             minor_compat: Mapping[str, Mapping[str, str]]) -> Variant:
    where = f"variants.{name}"
    kind = str(_text(raw, "kind", where))
    if kind not in KINDS:
        raise CompatDataError(f"{where}.kind: {kind!r} not one of {KINDS}")
    src = _src(raw, where, sources)
    extra: dict[str, Any] = {}
    if kind == "cuda":
        extra = _cuda_fields(raw, where, minor_compat)
    elif kind == "rocm":
        gfx = raw.get("gfx", "missing")
        if gfx == "missing":
            raise CompatDataError(f"{where}: a ROCm variant needs 'gfx' (a list, or null when unknown)")
        if gfx is not None and not all(isinstance(g, str) and re.fullmatch(r"gfx[0-9a-f]+", g) for g in gfx):
            raise CompatDataError(f"{where}.gfx: {gfx!r} is not a list of gfx targets")
        extra.update(rocm=_text(raw, "rocm", where, _VERSION_RE), gfx=None if gfx is None else tuple(gfx))
    index = raw.get("index", "pytorch")
    by_platform = dict(raw.get("index_by_platform", {}))
    for plat, value in [("*", index), *by_platform.items()]:
        if value not in ("pytorch", "pypi") or (plat != "*" and plat not in PLATFORMS):
            raise CompatDataError(f"{where}: index {plat}={value!r} must be 'pytorch' or 'pypi' on a known platform")
    return Variant(name=name, kind=kind, src=src, index=index, index_by_platform=by_platform,
                   note=raw.get("note"), **extra)


def _cuda_archs(data: Mapping[str, Any], sources: Mapping[str, str],
                variants: Mapping[str, Variant]) -> list[CudaArchEntry]:
    entries: list[CudaArchEntry] = []
    for i, raw in enumerate(_need(data, "cuda_archs", "compat", list)):
        where = f"cuda_archs[{i}]"
        _src(raw, where, sources)
        name = str(_text(raw, "variant", where))
        if name not in variants or variants[name].kind != "cuda":
            raise CompatDataError(f"{where}: {name!r} is not a CUDA variant")
        rng = _need(raw, "torch", where, dict)
        start = str(_text(rng, "from", f"{where}.torch", _VERSION_RE))
        end = _text(rng, "to", f"{where}.torch", _VERSION_RE, optional=True)
        unverified = raw.get("unverified", {})
        archs: dict[str, ArchList] = {}
        for plat, text in _need(raw, "archs", where, dict).items():
            if plat not in PLATFORMS or not isinstance(text, str):
                raise CompatDataError(f"{where}.archs: {plat!r} is not a known platform with an arch list")
            try:
                archs[plat] = ArchList.parse(text, unverified.get(plat))
            except ValueError as exc:
                raise CompatDataError(f"{where}.archs.{plat}: {exc}") from exc
        entries.append(CudaArchEntry(name, version(start), None if end is None else version(end), archs))
    return entries


def _gpu_archs(data: Mapping[str, Any], sources: Mapping[str, str]) -> dict[tuple[int, int], GpuArch]:
    archs: dict[tuple[int, int], GpuArch] = {}
    for i, raw in enumerate(_need(data, "gpu_archs", "compat", list)):
        where = f"gpu_archs[{i}]"
        _src(raw, where, sources)
        cc = parse_cc(str(_text(raw, "cc", where, re.compile(r"[0-9]+\.[0-9]+"))))
        archs[cc] = GpuArch(cc, str(_text(raw, "family", where)), str(_text(raw, "min_cuda", where, _VERSION_RE)),
                            _text(raw, "max_cuda_exclusive", where, _VERSION_RE, optional=True),
                            raw.get("examples", ""))
    return archs


def _release_versions(raw: Mapping[str, Any], torch: str, where: str) -> tuple[tuple[str, ...], dict, dict]:
    """(patches, torchvision, torchaudio): every patch of the minor, each with its companions."""
    patches = tuple(_need(raw, "patches", where, list))
    for p in patches:
        if not isinstance(p, str) or not re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+", p) or minor_of(p) != torch:
            raise CompatDataError(f"{where}: patch {p!r} does not belong to {torch}")
    tv = dict(_need(raw, "torchvision", where, dict))
    ta = dict(_need(raw, "torchaudio", where, dict))
    if not patches or set(tv) != set(patches) or set(ta) != set(patches):
        raise CompatDataError(f"{where}: torchvision/torchaudio must name exactly the patches {patches}")
    return patches, tv, ta


def _release(i: int, raw: Any, sources: Mapping[str, str], variants: Mapping[str, Variant],
             cuda_archs: list[CudaArchEntry]) -> Release:
    torch = str(_text(raw, "torch", f"releases[{i}]", re.compile(r"[0-9]+\.[0-9]+")))
    where = f"releases[{torch}]"
    src = _src(raw, where, sources)
    patches, tv, ta = _release_versions(raw, torch, where)
    pythons = tuple(_need(raw, "python", where, list))
    if not pythons or not all(isinstance(p, str) and re.fullmatch(r"3\.[0-9]+", p) for p in pythons):
        raise CompatDataError(f"{where}.python: {list(pythons)!r} is not a list of '3.x' versions")
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
    confidence = str(_text(raw, "confidence", where))
    if confidence not in _CONFIDENCE:
        raise CompatDataError(f"{where}.confidence: {confidence!r} not one of {_CONFIDENCE}")
    return Release(
        torch=torch, released=str(_text(raw, "released", where, _DATE_RE)), patches=patches, python=pythons,
        python_only_on=only_on, torchvision=tv, torchaudio=ta, variants=plat_variants, pypi_default=pypi_default,
        macos_min=_text(raw, "macos_min", where, _VERSION_RE, optional=True), confidence=confidence, src=src,
        torchaudio_separate=_text(raw, "torchaudio_separate", where, _VERSION_RE, optional=True),
        unverified=dict(raw.get("unverified", {})), notes=raw.get("notes"))


def _advice(data: Mapping[str, Any], sources: Mapping[str, str]) -> dict[str, Any]:
    advice = _need(data, "advice", "compat", dict)
    missing = [k for k in _ADVICE_KEYS if k not in advice]
    if missing:
        raise CompatDataError(f"advice: missing {missing}")
    for key, value in advice.items():
        _src(_need(advice, key, "advice", dict), f"advice.{key}", sources)
    return dict(advice)


def parse(data: Mapping[str, Any]) -> CompatDB:
    """Build a :class:`CompatDB` from parsed JSON, checking every field and the cross-references.

    Raises :class:`CompatDataError` naming the first problem and where it is, and only that: an
    updated table is data from outside, and a value of a type no check foresaw (a list where a
    variant name goes, ``true`` where an object goes) is one more problem in the data, said as
    such, not a TypeError from deep inside for the caller to guess about.
    """
    try:
        return _parse(data)
    except CompatDataError:
        raise
    except (TypeError, KeyError, AttributeError, ValueError, IndexError) as exc:
        raise CompatDataError(f"compat: a value of the wrong type or shape ({type(exc).__name__}: {exc})") from exc


def _parse(data: Mapping[str, Any]) -> CompatDB:
    if not isinstance(data, Mapping):
        raise CompatDataError(f"compat: expected an object, got {type(data).__name__}")
    schema, reviewed, sources = _header(data)
    index_pytorch, index_pypi = _index(data, sources)
    rows = _toolkit_rows(data, sources)
    minor_compat = _minor_compat(data, sources)
    variants = {name: _variant(name, raw, sources, minor_compat)
                for name, raw in _need(data, "variants", "compat", dict).items()}
    if not variants:
        raise CompatDataError("compat.variants: no variants")
    cuda_archs = _cuda_archs(data, sources, variants)
    releases = [_release(i, raw, sources, variants, cuda_archs)
                for i, raw in enumerate(_need(data, "releases", "compat", list))]
    if not releases:
        raise CompatDataError("compat.releases: no releases")
    releases.sort(key=lambda r: r.v, reverse=True)
    if len({r.torch for r in releases}) != len(releases):
        raise CompatDataError("releases: a torch minor is listed twice")
    xpu = _need(data, "xpu_gpu_names", "compat", dict)
    _src(xpu, "xpu_gpu_names", sources)
    patterns = _need(xpu, "patterns", "xpu_gpu_names", list)
    return CompatDB(schema=schema, reviewed_on=reviewed, sources=sources, index_pytorch=index_pytorch,
                    index_pypi=index_pypi, toolkit_rows=tuple(rows), minor_compat=minor_compat,
                    variants=variants, cuda_archs=tuple(cuda_archs), gpu_archs=_gpu_archs(data, sources),
                    releases=tuple(releases), xpu_name_patterns=tuple(patterns), advice=_advice(data, sources),
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
    """Load a compat.json from a path (an updated table, or a test's copy). Read like every file
    from outside (:mod:`wizard.core.base.user_input`): a capped size and a nesting limit, so a
    deep or endless file is a CompatDataError, not a RecursionError or MemoryError."""
    from wizard.core.base.user_input import MAX_USER_BYTES, loads_user_json, read_bounded

    with open(path, "rb") as fh:
        raw, cut = read_bounded(fh, MAX_USER_BYTES)
    if cut:
        raise CompatDataError(f"{path}: larger than {MAX_USER_BYTES // 2**20} MB, not a compatibility table")
    try:
        data = loads_user_json(raw)
    except ValueError as exc:  # invalid JSON, not UTF-8, or nested too deep (UserInputError)
        raise CompatDataError(f"{path}: not JSON: {exc}") from exc
    return parse(data)


# The loader of the table in use, registered by wizard.core.recommend.update when it is imported
# (the package's __init__ does): update imports this module, never the reverse, so the two stay
# free of an import circle.
_ACTIVE_LOADER: list[Any] = []


def register_active_loader(loader: Any) -> None:
    """``loader()`` → the CompatDB in use (a checked signed update, or the bundled table)."""
    _ACTIVE_LOADER[:] = [loader]
    load.cache_clear()


@lru_cache(maxsize=1)


def load() -> CompatDB:
    """The table in use, parsed once per process: a signed update from the cache when one passes
    every check and is newer than the bundled resources/compat.json, else the bundled one
    (:mod:`wizard.core.recommend.update`; ``GSW_COMPAT_UPDATE=0`` keeps the bundled one)."""
    if _ACTIVE_LOADER:
        return _ACTIVE_LOADER[0]()
    return load_builtin()


def load_builtin() -> CompatDB:
    """The bundled table only (what the refresh command and the tests compare against)."""
    return parse(load_json("compat.json"))


__all__ = ["parse", "load_file", "load", "load_builtin", "register_active_loader"]
