"""Bundle use cases: export a finished install's wheels, install a fresh venv from a bundle offline.

``install … --export-bundle DIR`` calls :func:`export_from_job` after the install succeeded (the
wheels come from the wizard's download cache, each re-hashed against the plan);
``install --from-bundle DIR --venv PATH`` and the Environment page's button call
:func:`install_from_bundle`: check every hash, say which machines the bundle serves, make the
venv, and install exactly the bundle's hash-checked files (the manifest's requirements are
checked against the files, never handed to pip: :mod:`wizard.core.install.bundle_checks`).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from wizard.core.base.i18n import Message, msg
from wizard.core.base.lazy import lazy_exports

if TYPE_CHECKING:  # what the faces catch and parse, re-exported: they import nothing else of the engine
    from wizard.core.install.bundle import BundleError as BundleError
    from wizard.core.install.bundle_variants import parse_variants as parse_variants

if TYPE_CHECKING:
    from wizard.core.base.host import Host
    from wizard.core.install.bundle import Manifest
    from wizard.core.install.bundle_variants import VariantFile
    from wizard.core.install.plan import PlannedFile
    from wizard.core.install.runner import InstallJob
    from wizard.core.machine.models import Detection

    # a wheel to copy into the bundle: where the cache holds it, and the file the plan (or a variant) names
    BundleSource = tuple[str | os.PathLike[str], PlannedFile | VariantFile]

__getattr__ = lazy_exports(__name__, {"BundleError": "wizard.core.install.bundle",
                                      "parse_variants": "wizard.core.install.bundle_variants"})

BUNDLE_PIP_TIMEOUT_S = 1800.0
_TAGS_PROBE = ("import json\n"
               "try:\n    from packaging import tags\n"
               "except ImportError:\n    from pip._vendor.packaging import tags\n"
               "print(json.dumps([str(t) for t in tags.sys_tags()]))\n")


def export_from_job(job: InstallJob, dest: str, variants: list[str] | None = None) -> Manifest:
    """The finished ``job``'s wheels (from the download cache) and a manifest, written to ``dest``;
    with ``variants``, the torch-family wheels of each of those builds too (:func:`variant_sets`)."""
    from wizard.core.install.bundle import BundleError, export_bundle

    plan = job.plan
    if plan is None or not plan.files:
        raise BundleError(msg("bundle.nothing", folder=dest))
    pairs: list[BundleSource] = []
    for f in plan.files:
        path = job.cache.verified(f)
        if path is None:
            raise BundleError(msg("bundle.not_cached", file=f.filename))
        pairs.append((path, f))
    from wizard import __version__
    from wizard.core.install.bundle_variants import SHARED_DEPENDENCIES

    requirements = [f.pin for f in plan.files if f.requested] or list(job.options.requirements)
    sets: dict[str, dict[str, list[str]]] = {}
    if variants:
        extra, sets = variant_sets(job, plan.files, requirements, variants)
        pairs += extra
    return export_bundle(dest, pairs, requirements, variants=list(variants or []),
                         python=getattr(job.target, "python_version", "") or "", created_by=f"gpu-setup-wizard {__version__}",
                         variant_sets=sets, variant_dependencies=SHARED_DEPENDENCIES if sets else "")


def variant_sets(job: InstallJob, planned: list[PlannedFile], requirements: list[str],
                 variants: list[str]) -> tuple[list[BundleSource], dict[str, dict[str, list[str]]]]:
    """For each variant: the installed family's versions with that variant's label, from that
    variant's folder of the install's index (a mirror included), downloaded and hash-checked by
    the engine's downloader into the cache. Returns the (path, file) pairs to copy and the
    manifest's per-variant files and requirements; BundleError when one cannot be had."""
    from wizard.core.install.bundle import BundleError
    from wizard.core.install.bundle_variants import VariantError, family_of, local_label, variant_files
    from wizard.core.install.download import Downloader
    from wizard.core.install.download_errors import DownloadError
    from wizard.core.recommend.commands import mirror_index_url
    from wizard.core.recommend.wheel_index import (
        IndexHTTPError,
        IndexPageError,
        IndexUnreachable,
        IndexURLError,
        WheelIndex,
    )

    family = family_of(planned)
    if not family or not job.options.index_url:
        raise BundleError(msg("bundle.variant_no_family"))
    own = local_label(family[0].version)
    index = WheelIndex(proxy=job.options.proxies)  # the proxy the install uses
    pairs: list[BundleSource] = []
    sets: dict[str, dict[str, list[str]]] = {}
    family_names = {f.name for f in family}
    for variant in variants:
        if variant == own:
            files = list(family)
        else:
            url = mirror_index_url(job.options.index_url, variant)
            try:
                files = variant_files(family, variant, lambda project: index.fetch(url, project).files)  # called at once
            except VariantError as exc:
                raise BundleError(exc.message) from exc
            except (IndexUnreachable, IndexHTTPError, IndexPageError, IndexURLError, OSError) as exc:
                raise BundleError(msg("bundle.variant_index", url=url, error=str(exc) or type(exc).__name__)) from exc
            try:
                got = Downloader(job.cache, proxies=job.options.proxies).fetch(files)  # the typed proxy
            except DownloadError as exc:
                raise BundleError(msg("bundle.variant_download", variant=variant, error=str(exc))) from exc
            pairs += [(got.paths[f.filename], f) for f in files]
        pins = {f.name: f.pin for f in files}
        reqs = [pins[r.split("==")[0]] if r.split("==")[0] in family_names else r for r in requirements]
        sets[variant] = {"files": [f.filename for f in files], "requirements": reqs}
    return pairs, sets


def interpreter_tags(host: Host, python_exe: str) -> list[str]:
    """The wheel tags ``python_exe`` accepts (asked of it: its own packaging or pip's)."""
    result = host.run([python_exe, "-c", _TAGS_PROBE], timeout=60)
    try:
        tags = json.loads((result.stdout or "").strip().splitlines()[-1])
    except (ValueError, IndexError):
        return []
    return [str(t) for t in tags] if isinstance(tags, list) else []


@dataclass
class BundleInstall:
    """What an offline install from a bundle did: ok, the messages to show, pip's last lines."""

    ok: bool
    messages: list[Message] = field(default_factory=list)
    env_python: str | None = None
    log: list[str] = field(default_factory=list)
    variant: str | None = None  # the build chosen from a bundle of several


def serves_text(manifest: Manifest) -> Message:
    """Which machines the bundle serves, from its wheels' tags."""
    from wizard.core.install.bundle import platforms_served, pythons_served

    plats = platforms_served(manifest) or ["any"]
    pys = pythons_served(manifest) or ["any"]
    return msg("bundle.serves", files=len(manifest.files), mb=f"{manifest.total_bytes() / 2**20:.1f}",
               platforms=", ".join(plats), pythons=", ".join(pys), reqs=" ".join(manifest.requirements))


def venv_python(path: str) -> str:
    return os.path.join(path, "Scripts", "python.exe") if os.name == "nt" else os.path.join(path, "bin", "python")


def choose_variant_for(manifest: Manifest, detection: Detection | None, requested: str | None = None) -> str | None:
    """Which of the bundle's builds to install: ``requested`` (``--variant``) when the bundle has
    it, else the CPU build without an NVIDIA GPU, else the newest CUDA build this driver runs
    (the recommender's driver bar). None for a bundle of one build. BundleError when none fits."""
    from wizard.core.install.bundle import BundleError
    from wizard.core.install.bundle_variants import VariantError, choose_variant
    from wizard.core.recommend import compat

    sets = manifest.variant_sets
    if not sets:
        return None
    if requested:
        if requested not in sets:
            raise BundleError(msg("bundle.variant_not_in", variant=requested, variants=", ".join(sets)))
        return requested
    nvidia = getattr(detection, "nvidia", None)
    system = getattr(detection, "system", None)
    driver_os = "windows" if system is not None and (system.os == "windows" or system.is_wsl) else "linux"
    torch = next((f.version for f in manifest.files if f.name == "torch"), None)
    try:
        return choose_variant(list(sets), bool(nvidia is not None and nvidia.gpus), getattr(nvidia, "driver_version", None),
                              driver_os, torch, compat.load().driver_bars)
    except VariantError as exc:
        raise BundleError(exc.message) from exc


def install_from_bundle(host: Host, folder: str, venv_path: str, base_python: str | None = None,
                        variant: str | None = None, detection: Detection | None = None) -> BundleInstall:
    """Check the bundle, make ``venv_path`` (``base_python -m venv``; an existing venv is used as
    it is) and install exactly the bundle's hash-checked files (for a bundle of several builds,
    those of the one :func:`choose_variant_for` picks). BundleError (raised
    before anything is made) for a tampered or foreign bundle; a failure later is in the result."""
    from wizard.core.install.bundle import (
        BundleError,
        Manifest,
        check_bundle,
        hashed_requirement_lines,
        offline_install_argv,
        serves,
    )

    checked = check_bundle(folder)
    chosen = choose_variant_for(checked, detection, variant)
    out = BundleInstall(False, [msg("bundle.checked", files=len(checked.files))], variant=chosen)
    manifest = Manifest(checked.files_for(chosen), checked.requirements_for(chosen))
    out.messages.append(serves_text(manifest))
    if chosen is not None:
        out.messages.append(msg("bundle.variant_chosen", variant=chosen, variants=", ".join(checked.variant_sets)))
    base = base_python or sys.executable
    py = venv_python(venv_path)
    exists = os.path.isfile(os.path.join(venv_path, "pyvenv.cfg"))
    # the interpreter the venv is (or will be) made of: a foreign bundle is refused before anything is made
    fits, misfits = serves(manifest, interpreter_tags(host, py if exists else base))
    if not fits:
        raise BundleError(msg("bundle.not_for_this", files=", ".join(misfits[:3])))
    if not exists:
        made = host.run([base, "-m", "venv", venv_path], timeout=300)
        if made.returncode != 0:
            out.messages.append(msg("bundle.venv_failed", path=venv_path, error=(made.stderr or made.error or "")[-300:]))
            return out
    # exactly the bundle's checked files, each by its path and sha256 (pip hashes them again as it
    # reads them); the student's pip.conf may name an index: none is read, and none is asked
    env = {"PIP_NO_INDEX": "1", "PIP_CONFIG_FILE": os.devnull}
    with tempfile.TemporaryDirectory(prefix="gsw-bundle-") as tmp:
        pinned = os.path.join(tmp, "bundle-files.txt")
        with open(pinned, "w", encoding="utf-8") as fh:
            fh.write("".join(line + "\n" for line in hashed_requirement_lines(folder, manifest.files)))
        done = host.run(offline_install_argv(py, pinned), timeout=BUNDLE_PIP_TIMEOUT_S, env=env)
    out.log = ((done.stdout or "") + (done.stderr or "")).splitlines()[-15:]
    if done.returncode != 0:
        out.messages.append(msg("bundle.pip_failed", status=str(done.returncode)))
        return out
    out.ok, out.env_python = True, py
    out.messages.append(msg("bundle.installed", path=venv_path, python=py))
    return out


__all__ = ["BundleInstall", "export_from_job", "install_from_bundle", "interpreter_tags", "serves_text", "venv_python"]
