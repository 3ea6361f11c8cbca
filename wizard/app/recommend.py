"""Recommend use cases: which Python and which PyTorch build, chosen once for both faces.

The Recommend page and ``gpu-setup-wizard recommend``/``install``/``report`` call these; a
build the student picks against the rules (an override, or the build a diagnosis asks for)
is checked here too, so its warnings are the same everywhere.
"""

from __future__ import annotations

import sys
from typing import Any

from wizard.app.session import Session


def unknown_machine() -> Any:
    """The Detection of a machine detection could not read: this OS, no GPU (a CPU build and
    advice follow from it)."""
    from wizard.core.machine.models import Detection, NvidiaInfo, SystemInfo

    os_name = "windows" if sys.platform.startswith("win") else "macos" if sys.platform == "darwin" else "linux"
    return Detection(SystemInfo(os=os_name), NvidiaInfo())


def usable_pythons(detection: Any) -> list[Any]:
    """The detected interpreters a new venv can be made from (the same test the recommendation
    uses to choose one), each path once, in detection order."""
    from wizard.core.recommend.choose_python import _usable

    seen: set[str] = set()
    out = []
    for p in (detection.pythons if detection else []):
        if _usable(p) and p.path not in seen:
            seen.add(p.path)
            out.append(p)
    return out


def recommend_for(session: Session, wishes: Any = None, explicit_version: str | None = None) -> Any:
    """Choose the Python and the build for the session's machine and record both.

    A build requested by a diagnosis action (``session.requested_build``) is taken once, with
    the rules' objections recorded in ``override_failures``; a course profile's torch pin
    (``session.course``) is the wish when the student named no torch."""
    from wizard.core.recommend.choose_python import choose_python

    detection = session.detection or unknown_machine()
    if session.course is not None:  # the course's torch pin, unless the student named a torch
        from wizard.app.course import course_python, course_wishes

        explicit_version = explicit_version or course_python(session)
        first = choose_python(detection, wishes, explicit_version).recommendation
        wishes = course_wishes(session, wishes, first.facts, first.best)
    choice = choose_python(detection, wishes, explicit_version)
    session.recommendation = choice
    session.candidate = choice.recommendation.best
    session.override_failures = []
    requested, session.requested_build = session.requested_build, None
    if requested and requested.get("torch") and requested.get("variant"):
        choose_build(session, requested["torch"], requested["variant"])
    return choice


def choose_build(session: Session, torch: str, variant: str, candidate: Any = None) -> Any:
    """The student's pick of ``torch`` + ``variant`` (``candidate`` when the recommender
    offered it): recorded with what the rules say against it. Returns the candidate or None."""
    from wizard.core.recommend.recommender import check_candidate

    if session.recommendation is None:
        return None
    facts = session.recommendation.recommendation.facts
    chosen = candidate if candidate is not None else candidate_for(facts, torch, variant)
    if chosen is None:
        return None
    session.candidate = chosen
    session.override_failures = list(check_candidate(facts, torch, variant, lang=session.lang))
    return chosen


def build_problems(session: Session, torch: str, variant: str) -> list[str]:
    """Why ``torch`` + ``variant`` would fail on the session's machine, by the recommender's own
    rules, in the session's language ([] = it passes); shown before the student picks it."""
    from wizard.core.recommend.recommender import check_candidate

    if session.recommendation is None:
        return []
    return list(check_candidate(session.recommendation.recommendation.facts, torch, variant, lang=session.lang))


def check_data_update(timeout: float = 5.0) -> Any:
    """Look for a newer signed compatibility table (at most once a day; off by the setting,
    ``GSW_COMPAT_UPDATE=0`` or ``GSW_OFFLINE=1``). Blocking: the GUI calls it on a worker thread
    after the first paint, the command line with a short timeout. Returns the UpdateResult."""
    from wizard.core.recommend.update import UpdateConfig, check_for_update

    return check_for_update(UpdateConfig.from_env(timeout=timeout))


def candidate_for(facts: Any, torch: str, variant: str) -> Any:
    """A Candidate for ``torch`` + ``variant`` on ``facts``: the recommender's own when it lists
    it, else one built from the compatibility data (an option the rules rejected)."""
    from wizard.core.recommend import compat
    from wizard.core.recommend.inputs import Wishes
    from wizard.core.recommend.recommender import Candidate, recommend

    rec = recommend(facts, Wishes(torch=torch, variant=variant, newest=True))
    for c in rec.candidates:
        if c.torch == torch and c.variant == variant:
            return c
    kb = compat.load()
    release = kb.release(torch)
    v = kb.variant(variant)
    if release is None or v is None:
        return None
    return Candidate(torch=torch, torchvision=release.torchvision.get(torch),
                     torchaudio=release.torchaudio.get(torch), variant=variant, kind=v.kind,
                     index_url=kb.index_url(variant, rec.facts.platform), python_requires="",
                     python=rec.facts.python, verified=False)
