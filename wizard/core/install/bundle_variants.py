"""Several builds in one bundle: ``--variants cpu,cu126,cu128`` on ``install … --export-bundle``.

Why only the torch family per variant: the builds differ in torch, torchvision and torchaudio
(``2.13.0+cpu`` against ``2.13.0+cu126``, each from its own index folder); their dependencies
(typing-extensions, numpy, ...) are the ones the exported install resolved, shared by every
variant. The manifest says so (``variant_dependencies``), so nobody mistakes a variant's list for
a full resolution of its own. Each family wheel is taken from the variant's folder on the same
index (a mirror included) and must carry a sha256 there, which the engine's downloader checks.

On the receiving machine :func:`choose_variant` picks the build: the CPU one without an NVIDIA
GPU, else the newest CUDA build the driver can start (the recommender's minor-compatibility bar).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence
from urllib.parse import urlsplit

from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename
from packaging.version import InvalidVersion, Version

from wizard.core.base.i18n import MessageError, msg
from wizard.core.install.family import FAMILY

SHARED_DEPENDENCIES = "shared"  # the manifest's ``variant_dependencies``: one set for all variants


class VariantError(MessageError, ValueError):
    """A variant that cannot be bundled or installed from the bundle; the message says why."""


@dataclass(frozen=True)
class VariantFile:
    """A torch-family wheel of one variant, as the downloader wants it (FileLike)."""

    name: str
    version: str
    filename: str
    url: str
    sha256: str | None
    size: int | None = None
    requested: bool = True

    @property
    def pin(self) -> str:
        return f"{self.name}=={self.version}"


def parse_variants(text: str | None) -> list[str]:
    """``"cpu, cu126,cu128"`` → ``["cpu", "cu126", "cu128"]`` (order kept, duplicates dropped)."""
    out: list[str] = []
    for part in (text or "").split(","):
        name = part.strip().lower()
        if name and name not in out:
            out.append(name)
    return out


def local_label(version: str) -> str | None:
    try:
        return Version(version).local
    except InvalidVersion:
        return None


def family_of(files: Iterable[Any]) -> list[Any]:
    """The planned torch-family files (torch, torchvision, torchaudio) of an install."""
    return [f for f in files if canonicalize_name(f.name) in FAMILY]


def _sha256_of(url: str) -> str | None:
    frag = urlsplit(url).fragment
    return frag.split("=", 1)[1] if frag.startswith("sha256=") else None


def pick_file(index_files: Sequence[Any], planned: Any, variant: str) -> VariantFile:
    """The wheel of ``planned``'s project and public version with ``variant``'s label, for the
    same Python/platform tags as the installed wheel; VariantError when the folder has none or
    gives no sha256 (a file the bundle could not check is not bundled)."""
    want = Version(planned.version).public
    try:
        wanted_tags = set(parse_wheel_filename(planned.filename)[3])
    except InvalidWheelFilename:
        wanted_tags = set()
    for f in index_files:
        try:
            name, ver, _build, tags = parse_wheel_filename(f.filename)
        except InvalidWheelFilename:
            continue
        if name != canonicalize_name(planned.name) or ver.public != want or ver.local != variant:
            continue
        if wanted_tags and not (tags & wanted_tags):
            continue
        sha = _sha256_of(f.url)
        if not sha:
            raise VariantError(msg("bundle.variant_no_hash", file=f.filename, variant=variant))
        return VariantFile(planned.name, str(ver), f.filename, f.url.split("#", 1)[0], sha)
    raise VariantError(msg("bundle.variant_missing", project=planned.name, version=f"{want}+{variant}",
                           variant=variant))


def variant_files(family: Sequence[Any], variant: str, files_on_index: Callable[[str], Sequence[Any]]) -> list[VariantFile]:
    """The family wheels of ``variant``: ``files_on_index(project)`` lists the variant folder's files."""
    return [pick_file(files_on_index(f.name), f, variant) for f in family]


def _cuda_of(variant: str) -> tuple[int, ...] | None:
    if not variant.startswith("cu") or not variant[2:].isdigit():
        return None
    digits = variant[2:]
    return (int(digits[:-1]), int(digits[-1])) if len(digits) >= 2 else None


def choose_variant(variants: Sequence[str], has_nvidia: bool, driver_version: str | None, driver_os: str,
                   torch: str | None, bars_of: Callable[[str, str, str | None], Any]) -> str:
    """CPU without an NVIDIA GPU; else the newest CUDA variant whose minor-compatibility driver
    bar (``bars_of(variant, driver_os, torch).minimum``) this driver meets; VariantError when none fits."""
    if not has_nvidia or not driver_version:
        if "cpu" in variants:
            return "cpu"
        raise VariantError(msg("bundle.variant_no_cpu", variants=", ".join(variants)))
    try:
        driver = Version(driver_version)
    except InvalidVersion:
        driver = None
    cuda = sorted((v for v in variants if _cuda_of(v) is not None), key=lambda v: _cuda_of(v) or (), reverse=True)
    for v in cuda:
        bars = bars_of(v, driver_os, torch)
        if bars is not None and driver is not None and driver >= Version(bars.minimum):
            return v
    if "cpu" in variants:
        return "cpu"
    raise VariantError(msg("bundle.variant_none_runs", driver=driver_version, variants=", ".join(variants)))


__all__ = ["SHARED_DEPENDENCIES", "VariantError", "VariantFile", "choose_variant", "family_of", "local_label",
           "parse_variants", "pick_file", "variant_files"]
