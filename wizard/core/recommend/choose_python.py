"""Which interpreter to build the PyTorch environment from, when the student has several.

The recommender answers for one Python version; a student's PC often has three. Rather than
guess, every distinct usable version is put through the recommender and the one whose best
build is best wins (the recommender's own order: a GPU build before the CPU build, then the
newer torch); ties go to the interpreter the wizard runs on, then the newer Python.
With no usable Python at all, the answer is the version to install (uv can fetch it).
"""

from __future__ import annotations

from dataclasses import dataclass

from packaging.version import InvalidVersion, Version

from wizard.core.machine.models import Detection, PythonInterpreter
from wizard.core.recommend.inputs import MachineFacts, Wishes
from wizard.core.recommend.recommender import Recommendation, recommend

FALLBACK_PYTHON = "3.12"  # what to install when none is found: supported by every current torch


@dataclass
class PythonChoice:
    version: str  # "3.11"
    interpreter: PythonInterpreter | None  # None: install this version first
    recommendation: Recommendation


def _usable(p: PythonInterpreter) -> bool:
    return p.error is None and p.version is not None and (p.bits in (None, 64)) and \
        (p.implementation in (None, "CPython"))


def _minor(version: str) -> str:
    try:
        v = Version(version)
    except InvalidVersion:
        return version
    return f"{v.major}.{v.minor}"


def _patch(version: str) -> int:
    try:
        return Version(version).micro
    except InvalidVersion:
        return 0


def _score(rec: Recommendation) -> tuple:
    best = rec.best
    if best is None:
        return (9,)
    kind = 1 if best.kind == "cpu" else 0
    return (kind, tuple(-int(x) for x in best.torch.split(".") if x.isdigit()))


def choose_python(detection: Detection, wishes: Wishes | None = None,
                  explicit_version: str | None = None) -> PythonChoice:
    """The interpreter (or version to install) and its recommendation."""
    wishes = wishes or Wishes()
    usable = [p for p in detection.pythons if _usable(p)]
    if explicit_version:
        facts = MachineFacts.from_detection(detection, explicit_version)
        # the version the student (or a course) named: an installed interpreter of it when there is
        # one (the wizard's own first, then the newest patch) -- not "install it with uv"
        same = [p for p in usable if _minor(p.version or "") == _minor(explicit_version)]
        same.sort(key=lambda p: (0 if p.source == "current" else 1, 1 if p.externally_managed else 0,
                                 -_patch(p.version or "")))
        return PythonChoice(_minor(explicit_version), same[0] if same else None, recommend(facts, wishes))
    best: tuple | None = None
    for p in usable:
        try:
            facts = MachineFacts.from_detection(detection, _minor(p.version or ""))
        except ValueError:
            continue  # e.g. Python 2.7: not a version the recommender takes
        rec = recommend(facts, wishes)
        key = (_score(rec), 0 if p.source == "current" else 1, -Version(p.version).minor if p.version else 0,
               1 if p.externally_managed else 0)
        if best is None or key < best[0]:
            best = (key, PythonChoice(_minor(p.version or ""), p, rec))
    if best is not None:
        return best[1]
    fallback = _board_python(detection) or FALLBACK_PYTHON
    facts = MachineFacts.from_detection(detection, fallback)
    return PythonChoice(fallback, None, recommend(facts, wishes))


def _board_python(detection: Detection) -> str | None:
    """On a Jetson, the one Python NVIDIA's wheels for its JetPack are built for."""
    facts = MachineFacts.from_detection(detection, FALLBACK_PYTHON)
    if not facts.is_jetson:
        return None
    from wizard.core.recommend.jetson import board_l4t, wheel_python

    return wheel_python(board_l4t(facts))
