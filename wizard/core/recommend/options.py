"""Which options are worth judging, and the order the ones that pass are offered in.

Why a module of its own: the ranking is a decision a student lives with (which build the
wizard installs by default), and it is used three ways: for the recommendation itself, for the
what-ifs of the advice (a newer driver, another Python), and for the CPU fallback.

Order: the build a wish names first; then GPU builds before the CPU build; then confirmed data
before unconfirmed (unless ``Wishes.newest``); newest torch; driver meeting the toolkit bar;
newest CUDA (or ROCm).
"""

from __future__ import annotations

from packaging.version import Version

from wizard.core.recommend.compat_model import CompatDB, Release
from wizard.core.recommend.compat_model import version as _v
from wizard.core.recommend.inputs import MachineFacts, Wishes
from wizard.core.recommend.rules import Evaluation, evaluate


def build_families(facts: MachineFacts, wishes: Wishes, kb: CompatDB) -> set[str]:
    """The build kinds worth judging here (cuda, rocm, xpu, mps, cpu): the GPU the machine has, or CPU."""
    if wishes.cpu_only:
        fams = {"mps"} if facts.platform == "macos-arm64" else {"cpu"}
    elif facts.has_nvidia:
        fams = {"cuda"}
    elif facts.platform == "macos-arm64":
        fams = {"mps"}
    else:
        fams = {"cpu"}
        if "amd" in facts.non_nvidia or facts.amd_gfx:
            fams.add("rocm")
        if "intel" in facts.non_nvidia:
            fams.add("xpu")
    if wishes.variant and kb.variant(wishes.variant) is not None:
        fams.add(kb.variants[wishes.variant].kind)
    return fams


def platform_offers(kb: CompatDB, platform: str, kind: str) -> bool:
    """Does any release publish a build of ``kind`` for ``platform`` (ROCm on Windows: never)?"""
    return any(kb.variants[v].kind == kind for r in kb.releases for v in r.variants.get(platform, ()))


def _options(facts: MachineFacts, wishes: Wishes, kb: CompatDB, kinds: set[str],
             releases: list[tuple[Release, str]]) -> list[tuple[Release, str, str]]:
    """(release, patch, variant) triples worth judging.

    GPU kinds: every variant of that kind the release publishes anywhere, so a build missing on
    this platform shows up as rejected with the reason. CPU/MPS: the platform's own build, or one
    triple that is rejected because the release has no wheels here at all. A kind this platform
    never gets (ROCm on Windows) is left out and explained by advice instead of one rejection per
    release.
    """
    out: list[tuple[Release, str, str]] = []
    offered = {k for k in kinds if k in ("cpu", "mps") or platform_offers(kb, facts.platform, k)}
    for release, patch in releases:
        here = release.variants.get(facts.platform, ())
        names: set[str] = set()
        for plat_variants in release.variants.values():
            for name in plat_variants:
                kind = kb.variants[name].kind
                if kind in offered and kind in ("cuda", "rocm", "xpu"):
                    names.add(name)
        for name in here:
            if kb.variants[name].kind in offered:
                names.add(name)
        if not here and offered & {"cpu", "mps"}:
            names.add("mps" if "mps" in offered else "cpu")
        if wishes.variant is not None and wishes.variant in kb.variants and kb.variants[wishes.variant].kind in kinds \
                and any(wishes.variant in vs for vs in release.variants.values()):
            names.add(wishes.variant)
        out.extend((release, patch, name) for name in sorted(names))
    return out


def descending(v: Version) -> tuple[int, ...]:
    """A version as a sort key that puts the newest first."""
    return tuple(-x for x in v.release)


def rank_key(ev: Evaluation, wishes: Wishes) -> tuple:
    """Where an option that passed stands in the order of the module docstring."""
    wish = 0 if wishes.variant and ev.variant.name == wishes.variant else 1
    if ev.variant.kind == "cpu":
        family = 1
    else:
        family = 0 if ev.gpu_confirmed else 2
    torch_key = descending(_v(ev.patch))
    variant_key = descending(ev.variant.sort_key[0])
    if wishes.newest:
        return (wish, family, torch_key, variant_key)
    verified = 0 if ev.release.verified and ev.variant.name not in ev.release.unverified else 1
    safe = 1 if ev.driver_bar == "minimum" else 0
    return (wish, family, verified, torch_key, safe, variant_key)


def releases_for(wishes: Wishes, kb: CompatDB) -> list[tuple[Release, str]]:
    """(release, patch) pairs to judge: the pinned one only, else every release at its newest patch."""
    if wishes.torch:
        rel = kb.release(wishes.torch)
        if rel is None:
            return []
        patch = wishes.torch if wishes.torch.count(".") >= 2 else rel.newest_patch
        return [(rel, patch)]
    return [(r, r.newest_patch) for r in kb.releases]


def judge(facts: MachineFacts, wishes: Wishes, kb: CompatDB, kinds: set[str],
           releases: list[tuple[Release, str]]) -> tuple[list[Evaluation], list[Evaluation]]:
    """Evaluate every option of ``kinds``: (passed in rank order, failed)."""
    passed: list[Evaluation] = []
    failed: list[Evaluation] = []
    for rel, patch, name in _options(facts, wishes, kb, kinds, releases):
        ev = evaluate(facts, rel, patch, name, kb)
        (passed if ev.passed else failed).append(ev)
    passed.sort(key=lambda e: rank_key(e, wishes))
    return passed, failed
