"""The torch family comes as one build: same index, matching versions -- checked in the plan.

Why: a torchvision from PyPI next to a CPU torch from download.pytorch.org imports with
``operator torchvision::nms does not exist``; so does a torchvision of another release. pip
with an extra index picks each project where it finds the best version, so such a pair can
be resolved without a word. The plan is refused instead, with a sentence that names both files
and what to do (one index for the whole family), before a byte is downloaded.

Same build means: every family wheel from the same server and index folder (for
download.pytorch.org, the variant folder ``/whl/cpu``, ``/whl/cu126`` ...), the same local
version label where both carry one (``+cpu`` with ``+cpu``; a compiled companion without a label
next to a labelled torch is PyPI's build -- the ``nms`` failure above -- while a pure-Python
``py3-none-any`` one may carry none), and the versions the compatibility
table pairs with that torch (torchvision 0.28.0 for torch 2.13.0). A pairing the table does not
know is not refused.
"""

from __future__ import annotations

from typing import Sequence
from urllib.parse import urlsplit

from packaging.version import InvalidVersion, Version

from wizard.core.base.i18n import msg
from wizard.core.install.plan import PlanError, PlannedFile

FAMILY = ("torch", "torchvision", "torchaudio")
PYTORCH_HOST = "download.pytorch.org"


def index_origin(url: str) -> str:
    """Where a wheel comes from, as far as builds go: the server, and on download.pytorch.org
    the variant folder (``download.pytorch.org/whl/cpu``)."""
    parts = urlsplit(url)
    host = (parts.hostname or "") + (f":{parts.port}" if parts.port else "")
    if parts.hostname == PYTORCH_HOST:
        segs = [s for s in parts.path.split("/") if s]
        if len(segs) >= 3 and segs[0] == "whl":
            return f"{host}/whl/{segs[1]}"
    return host


def _local(version: str) -> str | None:
    try:
        return Version(version).local
    except InvalidVersion:
        return None


def _pure(filename: str) -> bool:
    """A wheel with no compiled code (``py3-none-any``): it carries no build of its own."""
    return filename.endswith("-none-any.whl")


def _public(version: str) -> str:
    try:
        return Version(version).public
    except InvalidVersion:
        return version


def expected_companions(torch_version: str) -> dict[str, str | None]:
    """{"torchvision": "0.28.0", "torchaudio": ...} the table pairs with this torch; {} when unknown."""
    try:
        from wizard.core.recommend.compat import load

        rel = load().release(_public(torch_version))
    except (OSError, ValueError, KeyError):
        return {}
    if rel is None:
        return {}
    public = _public(torch_version)
    out: dict[str, str | None] = {}
    if public in rel.torchvision:
        out["torchvision"] = rel.torchvision[public]
    if rel.torchaudio.get(public):
        out["torchaudio"] = rel.torchaudio[public]
    return out


def family_problem(files: Sequence[PlannedFile]) -> PlanError | None:
    """Why the plan's torch-family files are not one build, or None."""
    family = {f.name: f for f in files if f.name in FAMILY}
    torch = family.get("torch")
    if torch is None or len(family) < 2:
        return None
    origin = index_origin(torch.url)
    expected = expected_companions(torch.version)
    for name, f in family.items():
        if name == "torch":
            continue
        other = index_origin(f.url)
        if other != origin:
            detail = f"torch {torch.version} ← {origin}; {name} {f.version} ← {other}"
            return PlanError("family-mismatch", msg("install.plan.error.family_index", package=name,
                                                    torch_index=origin, other_index=other), detail)
        a, b = _local(torch.version), _local(f.version)
        if (a and b and a != b) or (a and not b and not _pure(f.filename)):
            detail = f"torch {torch.version}, {name} {f.version}"
            return PlanError("family-mismatch", msg("install.plan.error.family_build", package=name,
                                                    torch=torch.version, version=f.version), detail)
        want = expected.get(name)
        if want and _public(f.version) != want:
            detail = f"torch {torch.version} needs {name} {want}, the plan has {f.version}"
            return PlanError("family-mismatch", msg("install.plan.error.family_version", package=name,
                                                    torch=_public(torch.version), want=want,
                                                    version=f.version), detail)
    return None


__all__ = ["FAMILY", "expected_companions", "family_problem", "index_origin"]
