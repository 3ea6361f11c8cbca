"""When the index (a mirror, often) lacks the recommended build: the builds it does have that
fit this machine, so the Environment page offers them one click away.

The recommender says which builds fit (every release of the chosen variant that passes its
rules); :meth:`~wizard.core.recommend.wheel_index.WheelIndex.builds_on_index` says which of
them the index really carries for the target Python. Blocking (network): run on a worker.
"""

from __future__ import annotations

from typing import Any

MAX_OFFERED = 4


def builds_on_index(facts: Any, current: Any, python: str, settings: Any, *,
                    cache_dir: str | None = None) -> list[Any]:
    """Up to ``MAX_OFFERED`` candidates other than ``current`` that fit ``facts`` and that the
    index ``settings`` point at has for CPython ``python`` (each build's own variant folder of a
    mirror): the same variant first, newest first."""
    from dataclasses import replace

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
    found = WheelIndex(cache_dir).builds_on_index(others, lambda c: install_source(c, settings.mirror)[1], tags)
    return found[:MAX_OFFERED]


__all__ = ["MAX_OFFERED", "builds_on_index"]
