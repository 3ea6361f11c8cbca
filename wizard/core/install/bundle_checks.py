"""What a ``bundle.json`` may say: its shape, checked field by field, and its requirements held to
the wizard's one rule for what gets installed.

Why a module of its own: the manifest arrives on a shared USB stick or folder, so anybody who can
write there can edit it. Before this check the offline install hashed every listed file and then
handed the manifest's ``requirements`` to pip unparsed -- ``x @ file:///elsewhere.whl``, a plain
path, ``--find-links=DIR``, ``x @ http://…`` and ``-r FILE`` all installed code from outside the
bundle while the wizard said "all files match their sha256". Here a manifest is accepted only
when every list is a list of text, every file a wheel named once, and every requirement passes
:func:`wizard.core.install.requirements.check_requirement` and is provided by a listed file (of
the build it belongs to). The install itself then names the files, not the requirements
(:func:`wizard.core.install.bundle.hashed_requirement_lines`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any, Iterable

from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename

from wizard.core.base.i18n import MessageError, msg

SCHEMA = "gpu-setup-wizard/bundle"
SCHEMA_VERSION = "1.0"


class BundleError(MessageError, ValueError):
    """A bundle the wizard refuses to write or to install from; the message says why."""


@dataclass(frozen=True)
class BundleFile:
    filename: str
    sha256: str
    size: int
    name: str = ""
    version: str = ""

    def tags(self) -> list[str]:
        """The wheel's tags as ``python-abi-platform`` strings (an sdist has none)."""
        from packaging.utils import InvalidWheelFilename, parse_wheel_filename

        try:
            return sorted(str(t) for t in parse_wheel_filename(self.filename)[3])
        except InvalidWheelFilename:
            return []


@dataclass
class Manifest:
    files: list[BundleFile]
    requirements: list[str]
    variants: list[str] = field(default_factory=list)
    python: str = ""
    platform: str = ""
    created_by: str = ""
    # --variants: per build, its torch-family files and requirements; the other files are shared
    # dependencies (``variant_dependencies``: wizard.core.install.bundle_variants.SHARED_DEPENDENCIES)
    variant_sets: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    variant_dependencies: str = ""

    def files_for(self, variant: str | None) -> list[BundleFile]:
        """The files one build installs: its own family wheels and the shared ones."""
        if not variant or variant not in self.variant_sets:
            return list(self.files)
        others = {n for v, s in self.variant_sets.items() if v != variant for n in s.get("files", [])}
        mine = set(self.variant_sets[variant].get("files", []))
        return [f for f in self.files if f.filename in mine or f.filename not in others]

    def requirements_for(self, variant: str | None) -> list[str]:
        if not variant or variant not in self.variant_sets:
            return list(self.requirements)
        return list(self.variant_sets[variant].get("requirements", []))

    def to_json(self) -> dict[str, Any]:
        return {"schema": f"{SCHEMA}@{SCHEMA_VERSION}", "requirements": self.requirements, "variants": self.variants,
                "python": self.python, "platform": self.platform, "created_by": self.created_by,
                "variant_sets": self.variant_sets, "variant_dependencies": self.variant_dependencies,
                "files": [{"filename": f.filename, "sha256": f.sha256, "size": f.size, "name": f.name,
                           "version": f.version, "tags": f.tags()} for f in self.files]}

    def total_bytes(self) -> int:
        return sum(f.size for f in self.files)


# A torch install with its dependencies is ~30 wheels; several builds ~60. A few thousand bounds
# the work a hostile manifest can cause (each file is hashed) far above any real one.
MAX_FILES = 2000
MAX_REQUIREMENTS = 500
MAX_VARIANTS = 50
MAX_FILE_BYTES = 1 << 40
MAX_TEXT = 300
_SHA256 = re.compile(r"[0-9a-f]{64}")
_VARIANT = re.compile(r"[a-z0-9][a-z0-9._-]{0,39}")


def _error(key: str, **params: Any) -> Exception:
    return BundleError(msg(key, **params))


def _bad(folder: str, field: str, kind: str) -> Exception:
    return _error("bundle.bad_field", folder=folder, field=field, kind=msg(f"bundle.kind.{kind}"))


def _text_list(value: Any, folder: str, field: str, *, kind: str = "text_list", nonempty: bool = False,
               most: int = MAX_REQUIREMENTS) -> list[str]:
    if not isinstance(value, list) or len(value) > most or (nonempty and not value) \
            or not all(isinstance(x, str) and len(x) <= MAX_TEXT for x in value):
        raise _bad(folder, field, kind)
    return list(value)


def _text(doc: dict[str, Any], key: str, folder: str) -> str:
    value = doc.get(key, "")
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        raise _bad(folder, key, "text_list")
    return value


def _file(entry: Any, i: int, folder: str) -> Any:
    from wizard.core.install.requirements import shown

    if not isinstance(entry, dict) or not isinstance(entry.get("filename"), str):
        raise _bad(folder, f"files[{i}]", "file_list")
    name = entry["filename"]
    if os.path.basename(name) != name or name in ("", ".", "..") or "\\" in name or not name.isprintable() \
            or len(name) > MAX_TEXT:
        raise _error("bundle.bad_manifest", folder=folder, error=shown(name))
    try:
        parse_wheel_filename(name)
    except InvalidWheelFilename:
        raise _error("bundle.not_a_wheel", folder=folder, file=shown(name)) from None
    sha, size = entry.get("sha256"), entry.get("size")
    if not isinstance(sha, str) or not _SHA256.fullmatch(sha):
        raise _bad(folder, f"files[{i}].sha256", "sha256")
    if not isinstance(size, int) or isinstance(size, bool) or not 0 <= size <= MAX_FILE_BYTES:
        raise _bad(folder, f"files[{i}].size", "size")
    project, version = entry.get("name", ""), entry.get("version", "")
    return BundleFile(name, sha, size, project if isinstance(project, str) else "",
                      version if isinstance(version, str) else "")


def _variant_sets(value: Any, folder: str, listed: set[str]) -> dict[str, dict[str, list[str]]]:
    if value is None:
        return {}
    if not isinstance(value, dict) or len(value) > MAX_VARIANTS:
        raise _bad(folder, "variant_sets", "object")
    sets: dict[str, dict[str, list[str]]] = {}
    for variant, entry in value.items():
        if not isinstance(variant, str) or not _VARIANT.fullmatch(variant):
            raise _bad(folder, "variant_sets", "object")
        if not isinstance(entry, dict):
            raise _bad(folder, f"variant_sets.{variant}", "object")
        files = _text_list(entry.get("files", []), folder, f"variant_sets.{variant}.files", most=MAX_FILES)
        reqs = _text_list(entry.get("requirements"), folder, f"variant_sets.{variant}.requirements",
                          kind="requirements", nonempty=True)
        stray = [x for x in files if x not in listed]
        if stray:
            from wizard.core.install.requirements import shown

            raise _error("bundle.bad_manifest", folder=folder, error=shown(stray[0]))
        sets[variant] = {"files": files, "requirements": reqs}
    return sets


def check_requirements_provided(requirements: Iterable[str], files: Iterable[Any], folder: str) -> None:
    """Each requirement passes the one rule and names a project and version that one of ``files``
    (the bundle's wheels, by their own file names) provides; BundleError for the first that does not."""
    from packaging.version import Version

    from wizard.core.install.requirements import RequirementRefused, check_requirement, shown

    have: dict[str, list[Version]] = {}
    for f in files:
        name, version, _build, _tags = parse_wheel_filename(f.filename)
        have.setdefault(name, []).append(version)
    for text in requirements:
        try:
            req = check_requirement(text).requirement
        except RequirementRefused as exc:
            raise _error("bundle.bad_requirement", folder=folder, reason=exc.message) from exc
        versions = have.get(canonicalize_name(req.name), [])
        if not any(req.specifier.contains(v, prereleases=True) for v in versions):
            raise _error("bundle.requirement_not_listed", folder=folder, requirement=shown(text))


def check_manifest_doc(doc: Any, folder: str = "") -> Any:
    """``bundle.json``'s parsed document → :class:`Manifest`, or the BundleError saying what is
    wrong (see the module's docstring)."""
    if not isinstance(doc, dict):
        raise _bad(folder, "(top)", "object")
    raw = doc.get("files")
    if not isinstance(raw, list) or not raw or len(raw) > MAX_FILES:
        raise _bad(folder, "files", "file_list")
    files = [_file(entry, i, folder) for i, entry in enumerate(raw)]
    seen: set[str] = set()
    for f in files:
        if f.filename in seen:
            raise _error("bundle.duplicate_file", folder=folder, file=f.filename)
        seen.add(f.filename)
    requirements = _text_list(doc.get("requirements"), folder, "requirements", kind="requirements", nonempty=True)
    variants = _text_list(doc.get("variants", []), folder, "variants", most=MAX_VARIANTS)
    sets = _variant_sets(doc.get("variant_sets"), folder, seen)
    manifest = Manifest(files, requirements, variants, _text(doc, "python", folder), _text(doc, "platform", folder),
                        _text(doc, "created_by", folder), sets, _text(doc, "variant_dependencies", folder))
    check_requirements_provided(requirements, files, folder)
    for variant, entry in sets.items():
        check_requirements_provided(entry["requirements"], manifest.files_for(variant), folder)
    return manifest


def checked_export_requirements(requirements: Iterable[str], variant_sets: dict[str, dict[str, list[str]]],
                                folder: str) -> list[str]:
    """The requirements an export writes, held to the same rule a reader will apply (a bundle the
    wizard writes is one it will accept)."""
    from wizard.core.install.requirements import RequirementRefused, checked_requirements

    try:
        out = checked_requirements(requirements)
        for entry in variant_sets.values():
            checked_requirements(entry.get("requirements", []))
    except RequirementRefused as exc:
        raise _error("bundle.bad_requirement", folder=folder, reason=exc.message) from exc
    return out


__all__ = ["BundleError", "BundleFile", "MAX_FILES", "Manifest", "SCHEMA", "SCHEMA_VERSION", "check_manifest_doc", "check_requirements_provided", "checked_export_requirements"]
