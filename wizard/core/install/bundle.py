"""The offline classroom bundle: the verified wheels of one install, a manifest, and the offline install.

Why: a lab or a dorm on slow or metered internet downloads PyTorch once; the bundle goes on a
USB stick or a shared folder, and every other machine installs from it with no network. The
manifest (``bundle.json``) lists every file with its sha256 and size, the requirements the
install used, and the wheels' Python/platform tags, so the wizard can say which machines the
bundle serves before it touches one. Every hash is checked before the offline install starts:
a changed, missing or extra file refuses the whole bundle.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any, Iterable

from wizard.core.base.files import write_atomic
from wizard.core.base.i18n import MessageError, msg
from wizard.core.install.bundle_checks import (
    SCHEMA,
    SCHEMA_VERSION,
    BundleError,
    BundleFile,
    Manifest,
    check_manifest_doc,
    checked_export_requirements,
)
from wizard.core.install.cache import sha256_file

MANIFEST = "bundle.json"


def _discard_part(tmp: Path) -> None:
    """The half-copied ``.part`` goes, through the one deletion rule: only the regular file this
    export wrote, never a link put in its place (that one is refused and left, as the rule says;
    the export's own error is what the student sees)."""
    from wizard.core.base.deletion import DeletionRefused, execute, plan_own_file

    try:
        execute(plan_own_file(str(tmp), (".part",)))
    except DeletionRefused:
        pass  # not the file this export wrote: left where it is


def export_bundle(dest: str | os.PathLike[str], files: Iterable[tuple[str | os.PathLike[str], Any]],
                  requirements: list[str], *, variants: list[str] | None = None, python: str = "",
                  platform: str = "", created_by: str = "",
                  variant_sets: dict[str, dict[str, list[str]]] | None = None, variant_dependencies: str = "") -> Manifest:
    """Copy each (cached path, planned file) into ``dest`` and write the manifest last (a folder
    without ``bundle.json`` is no bundle, so an interrupted export is never taken for one).
    Each copy is hashed again and must equal the plan's sha256."""
    requirements = checked_export_requirements(requirements, variant_sets or {}, str(dest))
    out = Path(dest)
    out.mkdir(parents=True, exist_ok=True)
    written: list[BundleFile] = []
    for src, planned in files:
        target = out / planned.filename
        tmp = target.with_name(target.name + ".part")
        try:  # a full disk or a cancel leaves no half-copied wheel behind
            shutil.copyfile(src, tmp)
            actual = sha256_file(tmp)
            if planned.sha256 and actual != planned.sha256:
                raise BundleError(msg("bundle.copy_changed", file=planned.filename))
            os.replace(tmp, target)
        except BaseException:
            _discard_part(tmp)
            raise
        written.append(BundleFile(planned.filename, actual, target.stat().st_size, getattr(planned, "name", ""),
                                  getattr(planned, "version", "")))
    manifest = Manifest(written, list(requirements), list(variants or []), python, platform, created_by,
                        dict(variant_sets or {}), variant_dependencies)
    write_atomic(out / MANIFEST, json.dumps(manifest.to_json(), ensure_ascii=False, indent=2).encode("utf-8"))
    return manifest


def read_manifest(folder: str | os.PathLike[str]) -> Manifest:
    """The manifest of the bundle at ``folder``; BundleError when there is none, it is not ours,
    or anything in it is of the wrong shape or asks for more than the bundle's own files (see
    :func:`manifest_from_json`). Nothing is made before this returns."""
    from wizard.core.base.schema import SchemaError, load_schema_json
    from wizard.core.base.user_input import read_user_text

    path = Path(folder) / MANIFEST
    try:
        text = read_user_text(path).text
    except OSError as exc:
        error = exc.message if isinstance(exc, MessageError) else (exc.strerror or str(exc))
        raise BundleError(msg("bundle.no_manifest", folder=str(folder), error=error)) from exc
    try:
        doc = load_schema_json(text, SCHEMA, SCHEMA_VERSION)
    except SchemaError as exc:
        raise BundleError(msg("bundle.bad_manifest", folder=str(folder), error=exc.message)) from exc
    except (TypeError, ValueError) as exc:
        raise BundleError(msg("bundle.bad_manifest", folder=str(folder), error=str(exc)[:200])) from exc
    return manifest_from_json(doc, str(folder))


def manifest_from_json(doc: Any, folder: str = "") -> Manifest:
    """``bundle.json``'s document, checked field by field, as a :class:`Manifest`.

    Why so strict: the manifest decides what is installed on every machine the stick reaches.
    ``files`` is a non-empty list of wheels, each named once, with a sha256 and a size;
    ``requirements`` (and each of ``variant_sets``' lists) is a non-empty list of requirements that
    pass the wizard's one rule (:mod:`wizard.core.install.requirements`: no URL, no path, no option)
    and that a listed file provides; ``variant_sets`` maps build names to objects naming listed
    files. Anything else: one BundleError line, before a venv is made."""
    return check_manifest_doc(doc, folder)


def check_bundle(folder: str | os.PathLike[str]) -> Manifest:
    """Every file of the manifest present with its size and sha256, and no wheel the manifest
    does not list (pip would take it with ``--find-links``). BundleError naming the first file
    that differs: the whole bundle is refused."""
    manifest = read_manifest(folder)
    root = Path(folder)
    listed = {f.filename for f in manifest.files}
    for f in manifest.files:
        path = root / f.filename
        if not path.is_file():
            raise BundleError(msg("bundle.missing", file=f.filename))
        if path.stat().st_size != f.size or sha256_file(path) != f.sha256:
            raise BundleError(msg("bundle.tampered", file=f.filename))
    extra = sorted(p.name for p in root.iterdir() if p.suffix in (".whl", ".gz", ".zip") and p.name not in listed)
    if extra:
        raise BundleError(msg("bundle.extra_file", file=extra[0]))
    return manifest


def serves(manifest: Manifest, machine_tags: Iterable[str]) -> tuple[bool, list[str]]:
    """(every wheel installs on a machine with ``machine_tags``, the files that do not)."""
    supported = set(machine_tags)
    misfits = [f.filename for f in manifest.files if f.tags() and not supported.intersection(f.tags())]
    return not misfits, misfits


def platforms_served(manifest: Manifest) -> list[str]:
    """The platform tags of the bundle's platform-specific wheels, for the reader (what machines it
    serves): the ones they all share, else every one they name (``manylinux_2_28_x86_64`` beside
    ``linux_x86_64``); [] when all wheels are pure Python (any machine). :func:`serves` is the test."""
    sets = [{t.split("-")[-1] for t in f.tags()} for f in manifest.files if f.tags()]
    specific = [s for s in sets if "any" not in s]
    if not specific:
        return []
    return sorted(set.intersection(*specific) or set.union(*specific))


def pythons_served(manifest: Manifest) -> list[str]:
    """The interpreter tags (cp312, ...) every interpreter-specific wheel shares."""
    sets = [{t.split("-")[0] for t in f.tags()} for f in manifest.files if f.tags()]
    specific = [s for s in sets if not any(t.startswith("py") for t in s)]
    return sorted(set.intersection(*specific)) if specific else []


def hashed_requirement_lines(folder: str | os.PathLike[str], files: Iterable[BundleFile]) -> list[str]:
    """One pip requirement line per bundle file: ``name @ file:///…/x.whl --hash=sha256:…``.

    Why the files themselves and not the manifest's requirements: the offline install must put
    exactly the bundle's checked files into the venv. Named by their own path and hash, pip
    installs those files and nothing else (under ``--require-hashes`` a dependency no line names
    is an error, not a search), and it hashes each file again as it reads it, so a file swapped
    on the stick after :func:`check_bundle` is refused too."""
    from packaging.utils import parse_wheel_filename

    root = Path(folder).resolve()
    lines = []
    for f in files:
        name = parse_wheel_filename(f.filename)[0]
        lines.append(f"{name} @ {(root / f.filename).as_uri()} --hash=sha256:{f.sha256}")
    return lines


def offline_install_argv(python_exe: str, requirements_file: str) -> list[str]:
    """pip installing the hash-pinned lines of ``requirements_file`` (written by the wizard from
    :func:`hashed_requirement_lines`) with no index, no configuration and no other source."""
    return [python_exe, "-m", "pip", "--isolated", "install", "--no-index", "--require-hashes", "--only-binary", ":all:",
            "--disable-pip-version-check", "--no-input", "-r", requirements_file]


__all__ = ["BundleError", "BundleFile", "MANIFEST", "Manifest", "check_bundle", "export_bundle", "hashed_requirement_lines",
           "manifest_from_json", "offline_install_argv", "platforms_served", "pythons_served", "read_manifest", "serves"]
