"""When the index (a mirror, often) lacks the chosen build: the builds it does have that fit this
machine, offered one click away in the window and listed by ``install --plan-only``.

The recommender says which builds fit (every release of the chosen variant that passes its
rules); :meth:`~wizard.core.recommend.wheel_index.WheelIndex.builds_on_index` says which of them
the index really carries for the target Python. Blocking (network): a worker's, or the command's.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from wizard.app.install import InstallSettings
    from wizard.app.session import Session
    from wizard.core.recommend.inputs import MachineFacts
    from wizard.core.recommend.recommender import Candidate

MAX_OFFERED = 4


def builds_on_index(facts: MachineFacts, current: Candidate | None, python: str, settings: InstallSettings, *,
                    cache_dir: str | None = None) -> list[Candidate]:
    """Up to ``MAX_OFFERED`` candidates other than ``current`` that fit ``facts`` and that the
    index ``settings`` point at has for CPython ``python`` (each build's own variant folder of a
    mirror): the same variant first, newest first."""
    from wizard.app.install import install_source
    from wizard.core.recommend.inputs import Wishes
    from wizard.core.recommend.recommender import recommend
    from wizard.core.recommend.wheel_index import WheelIndex, target_tags

    if current is None:
        return []
    machine = replace(facts, python=python) if python and python != facts.python else facts
    # the same variant first (cpu, cu126 ...), then the other variants of the same kind that fit
    # (a mirror that has cu126 but not cu128): newest first within each
    same = recommend(machine, Wishes(variant=current.variant, newest=True)).candidates
    kin = [c for c in recommend(machine, Wishes(newest=True)).candidates
           if c.kind == current.kind and c.variant != current.variant]
    seen = {(current.torch, current.variant)}
    others = []
    for c in same + kin:
        if (c.torch, c.variant) not in seen:  # (the two lists overlap)
            seen.add((c.torch, c.variant))
            others.append(c)
    if not others:
        return []
    tags = target_tags(python, machine.os, machine.arch)
    found = WheelIndex(cache_dir, proxy=settings.proxy).builds_on_index(others, lambda c: install_source(c, settings.mirror)[1], tags)
    return found[:MAX_OFFERED]


def alternatives_for(session: Session, settings: InstallSettings, python: str | None = None, *,
                     cache_dir: str | None = None) -> list[Candidate]:
    """The builds the index has instead of the session's chosen one, for the session's machine
    and ``python`` (default: the recommendation's)."""
    choice = session.recommendation
    if choice is None or session.candidate is None:
        return []
    facts = choice.recommendation.facts
    return builds_on_index(facts, session.candidate, python or choice.version or facts.python, settings,
                           cache_dir=cache_dir)


__all__ = ["MAX_OFFERED", "alternatives_for", "builds_on_index"]
