"""Advice besides the install: update or install the driver, change Python, use Colab or a cloud GPU.

Why a module of its own: the advice asks what-if questions of the ranking (what would a new
enough driver unlock, would another Python get a newer build) and turns the answers into
:class:`Advice` with the commands for this OS; the recommendation only lists them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from wizard.core.base.i18n import Message, msg
from wizard.core.recommend.compat_model import CompatDB, Release, sm_name
from wizard.core.recommend.compat_model import version as _v
from wizard.core.recommend.inputs import MachineFacts, Wishes
from wizard.core.recommend.options import build_families, descending, judge, platform_offers, releases_for
from wizard.core.recommend.rules import Evaluation, version_span

_HUGE_DRIVER = "9999.99"  # "a driver new enough for anything", for the what-if of the driver advice


@dataclass
class Advice:
    """Something to do besides installing: update the driver, use Colab, change Python, ..."""

    kind: str  # driver_update | driver_install | python | colab | cloud | gpu_unsupported | ...
    severity: str  # "required" (do this first) | "recommended" | "info"
    message: Message
    detail: Message | None = None
    url: str | None = None
    commands: list[str] = field(default_factory=list)

    def text(self, lang: str | None) -> str:
        parts = [self.message.text(lang)]
        if self.detail is not None:
            parts.append(self.detail.text(lang))
        return " ".join(parts)

    def to_json(self, lang: str | None) -> dict[str, Any]:
        return {"kind": self.kind, "severity": self.severity, "text": self.text(lang), "url": self.url,
                "commands": list(self.commands)}


def _best_cuda(facts: MachineFacts, wishes: Wishes, kb: CompatDB,
               releases: list[tuple[Release, str]]) -> Evaluation | None:
    passed, _ = judge(facts, replace(wishes, variant=None, cpu_only=False), kb, {"cuda"}, releases)
    return passed[0] if passed else None


def _driver_target(facts: MachineFacts, wishes: Wishes, kb: CompatDB, releases: list[tuple[Release, str]],
                   current: Evaluation | None) -> tuple[Evaluation, str] | None:
    """What a new enough driver would unlock beyond ``current``: the newest torch among the better
    options, through the variant of it that needs the lowest driver (cu130 at 580 rather than
    cu132 at 595). Returns that option and the driver it needs; None when nothing better exists.
    """
    hypo = replace(facts, nvidia_without_driver=False, driver_version=_HUGE_DRIVER, cuda_driver="99.9")
    passed, _ = judge(hypo, replace(wishes, variant=None, cpu_only=False), kb, {"cuda"}, releases)
    better = [e for e in passed if _better(e, current)]
    if not better:
        return None
    top = [e for e in better if e.patch == better[0].patch]
    needs = [(_needed_driver(e, facts, kb), e) for e in top]
    need, ev = min(needs, key=lambda pair: _v(pair[0]))
    return ev, need


def _better(a: Evaluation, b: Evaluation | None) -> bool:
    """Is option ``a`` a newer torch, or the same torch with a newer CUDA, than ``b``?"""
    if b is None:
        return True
    return (_v(a.patch), a.variant.sort_key) > (_v(b.patch), b.variant.sort_key)


def _driver_how(facts: MachineFacts, kb: CompatDB, need: str) -> tuple[Message, list[str]]:
    url = kb.advice["driver_download"]["url"]
    branch = need.split(".")[0]
    if facts.is_wsl:
        return msg("recommend.advice.how_wsl", url=url), list(kb.advice["wsl"]["commands"])
    if facts.os == "windows":
        return msg("recommend.advice.how_windows", url=url), []
    if facts.distro_id in (None, "", "ubuntu", "pop", "linuxmint"):
        cmds = [c.format(branch=branch) for c in kb.advice["ubuntu_driver_commands"]["commands"]]
        return msg("recommend.advice.how_linux_ubuntu", url=url, branch=branch), cmds
    return msg("recommend.advice.how_linux", url=url, branch=branch), []


def _any_build_has(kb: CompatDB, facts: MachineFacts, cc: tuple[int, int]) -> bool:
    """Does any CUDA build in the table (any release, this platform) carry code for ``cc``?"""
    for rel in kb.releases:
        for name in rel.variants.get(facts.platform, ()):
            archs = kb.archs_for(name, rel.torch, facts.platform) if kb.variants[name].kind == "cuda" else None
            if archs is not None and (archs.cubin_for(cc) or archs.ptx_for(cc)):
                return True
    return False


def _needed_driver(ev: Evaluation, facts: MachineFacts, kb: CompatDB) -> str:
    """The driver that runs ``ev`` with every feature: its toolkit bar, or what the GPU needs if higher.

    Returned as written in the table ('580.65.06'): Version() would normalise it to '580.65.6'.
    """
    bars = kb.driver_bars(ev.variant.name, facts.driver_os, ev.release.torch)
    assert bars is not None
    need = bars.toolkit
    for cc in facts.ccs():
        arch = kb.gpu_arch(cc)
        gpu_need = kb.driver_for_cuda(arch.min_cuda, facts.driver_os) if arch else None
        if gpu_need and _v(gpu_need) > _v(need):
            need = gpu_need
    return need


def advice_for(facts: MachineFacts, wishes: Wishes, kb: CompatDB, passed: list[Evaluation],
            releases: list[tuple[Release, str]]) -> list[Advice]:
    """Every piece of advice for this machine, given the options that passed (in rank order)."""
    out: list[Advice] = []
    url = kb.advice["driver_download"]["url"]
    best = passed[0] if passed else None
    gpu_candidates = [e for e in passed if e.variant.kind != "cpu"]

    if wishes.torch and not releases:
        out.append(Advice("pin_unknown", "required", msg("recommend.advice.pin_unknown", torch=wishes.torch,
                                                          known=version_span(kb.torch_versions()))))
        return out

    if facts.has_nvidia and not wishes.cpu_only:
        best_cuda = next((e for e in passed if e.variant.kind == "cuda"), None)
        target = _driver_target(facts, wishes, kb, releases, best_cuda)
        if facts.nvidia_without_driver and not facts.driver_version:
            # a first install takes the newest branch the table knows, not the oldest that would do
            newest_bar = max((bars[facts.driver_os] for bars in kb.minor_compat.values()), key=_v)
            need = max(target[1], newest_bar, key=_v) if target else newest_bar
            how, cmds = _driver_how(facts, kb, need)
            out.append(Advice("driver_install", "required", msg("recommend.advice.driver_install"), how, url, cmds))
        elif target is not None and (facts.driver_version or facts.cuda_driver):
            ev, need = target
            how, cmds = _driver_how(facts, kb, need)
            if best_cuda is None:
                severity, key = "required", "recommend.advice.driver_update_required"
            elif _v(ev.patch) > _v(best_cuda.patch):
                severity, key = "recommended", "recommend.advice.driver_update_optional"
            else:  # the same torch, only a newer CUDA: nice to know
                severity, key = "info", "recommend.advice.driver_update_optional"
            out.append(Advice("driver_update", severity, msg(key, need=need, torch=ev.patch, variant=ev.variant.name),
                              how, url, cmds))
        elif target is None and best_cuda is None:
            for cc in [c for c in facts.ccs() if not _any_build_has(kb, facts, c)][:1]:
                out.append(Advice("gpu_unsupported", "info", msg(
                    "recommend.advice.gpu_unsupported", gpu=facts.gpu_label(cc), sm=sm_name(cc))))
        if wishes.torch and not gpu_candidates:
            free = _best_cuda(facts, replace(wishes, torch=None), kb, releases_for(Wishes(), kb))
            if free is not None:
                out.append(Advice("pin_blocks_gpu", "info", msg("recommend.advice.pin_blocks_gpu",
                                                                torch=wishes.torch, alt=free.patch)))

    out += _python_advice(facts, wishes, kb, best, releases)

    if wishes.variant and not any(e.variant.name == wishes.variant for e in passed):
        out.append(Advice("variant_unavailable", "info", msg("recommend.advice.variant_unavailable",
                                                             variant=wishes.variant)))
    if ("amd" in facts.non_nvidia or facts.amd_gfx) and not facts.has_nvidia \
            and not platform_offers(kb, facts.platform, "rocm"):
        out.append(Advice("rocm_linux_only", "info", msg("recommend.advice.rocm_linux_only")))

    if best is None or best.variant.kind != "cuda":
        if best is None:
            out.append(Advice("nothing_runs", "info", msg("recommend.advice.nothing")))
        colab = kb.advice["colab"]
        cloud = kb.advice["cloud"]
        out.append(Advice("colab", "info", msg("recommend.advice.colab", gpu=colab["gpu"])))
        out.append(Advice("cloud", "info", msg("recommend.advice.cloud", low=f"{cloud['usd_per_hour_min']:.2f}",
                                               high=f"{cloud['usd_per_hour_max']:.2f}")))
    return out


def _suggest_python(rel: Release, platform: str, kb: CompatDB) -> str:
    """A Python to suggest for a release: its newest one that an older release also supports.

    A Python only the newest release has wheels for is usually too new for the rest of a course's
    packages; one step back is the safe suggestion.
    """
    pys = sorted(rel.pythons_on(platform), key=_v, reverse=True)
    older = {p for r in kb.releases if r.v < rel.v for p in r.pythons_on(platform)}
    for p in pys:
        if p in older:
            return p
    return pys[0]


def _python_advice(facts: MachineFacts, wishes: Wishes, kb: CompatDB, best: Evaluation | None,
                   releases: list[tuple[Release, str]]) -> list[Advice]:
    """When another Python would get a newer (or any) torch build that passes the other rules."""
    kinds = {best.variant.kind} if best is not None else build_families(facts, wishes, kb) | {"cpu"}
    # newest first, confirmed releases before unconfirmed ones (as the ranking does) unless "newest"
    order = sorted(releases, key=lambda rp: (0 if wishes.newest or rp[0].verified else 1, descending(rp[0].v)))
    for rel, patch in order:
        if best is not None and _v(patch) <= _v(best.patch):
            continue
        pythons = rel.pythons_on(facts.platform)
        if not pythons or facts.python in pythons:
            continue
        use = _suggest_python(rel, facts.platform, kb)
        passed, _ = judge(replace(facts, python=use), wishes, kb, kinds, [(rel, patch)])
        if not passed:
            continue
        if best is None:
            return [Advice("python", "required", msg("recommend.advice.python_required", python=facts.python,
                                                      use=use, torch=patch))]
        return [Advice("python", "recommended", msg("recommend.advice.python", python=facts.python,
                                                     have=best.patch, use=use, torch=patch))]
    return []


# --------------------------------------------------------------------------------------------
# The future: when this GPU stops being covered, and what a card one might buy needs
# --------------------------------------------------------------------------------------------
def covering_variants(kb: CompatDB, rel: Release, platform: str, cc: tuple[int, int]) -> list[str]:
    """The CUDA variants of ``rel`` on ``platform`` with kernels (or PTX) a GPU of ``cc`` runs."""
    out = []
    for name in rel.variants.get(platform, ()):
        info = kb.variant(name)
        if info is None or info.kind != "cuda":
            continue
        archs = kb.archs_for(name, rel.torch, platform)
        if archs is not None and (archs.cubin_for(cc) or archs.ptx_for(cc)):
            out.append(name)
    return out


def _cuda_releases(kb: CompatDB, platform: str) -> list[Release]:
    """Releases with any CUDA build on ``platform``, newest first."""
    return [r for r in kb.releases
            if any(getattr(kb.variant(n), "kind", None) == "cuda" for n in r.variants.get(platform, ()))]


def future_advice(facts: MachineFacts, kb: CompatDB) -> list[Advice]:
    """For each NVIDIA GPU: covered by every current build, covered by fewer builds than before
    (Pascal today: only cu126 still has sm_60 code), or no longer covered (the last release that
    still ships a build for it). Why: a student choosing to keep an old card needs to hear that the
    course's next torch may not run on it, before the course moves."""
    out: list[Advice] = []
    releases = _cuda_releases(kb, facts.platform)
    if not releases:
        return out
    newest = releases[0]
    for cc in facts.ccs():
        gpu, sm = facts.gpu_label(cc), sm_name(cc)
        cov = covering_variants(kb, newest, facts.platform, cc)
        if cov:
            cuda = [n for n in newest.variants[facts.platform] if getattr(kb.variant(n), "kind", None) == "cuda"]
            dropped = [n for n in cuda if n not in cov]
            if dropped:
                out.append(Advice("gpu_future", "info", msg("recommend.future.narrowing", gpu=gpu, sm=sm,
                                  torch=newest.newest_patch, dropped=", ".join(dropped), kept=", ".join(cov))))
            else:
                out.append(Advice("gpu_future", "info", msg("recommend.future.covered", gpu=gpu, sm=sm,
                                                             torch=newest.newest_patch)))
            continue
        last = next((r for r in releases if covering_variants(kb, r, facts.platform, cc)), None)
        if last is None:
            out.append(Advice("gpu_future", "info", msg("recommend.future.never", gpu=gpu, sm=sm)))
            continue
        after = min((r for r in releases if r.v > last.v), key=lambda r: r.v)
        out.append(Advice("gpu_future", "info", msg(
            "recommend.future.ended", gpu=gpu, sm=sm, last=last.newest_patch, after=after.torch,
            variants=", ".join(covering_variants(kb, last, facts.platform, cc)))))
    return out


def card_plan(name: str, cc: tuple[int, int], family: str, facts: MachineFacts, kb: CompatDB) -> Advice:
    """What a card one is thinking of buying needs: the first driver that knows it, and the newest
    release's builds for it with both driver bars on this OS."""
    sm = sm_name(cc)
    releases = _cuda_releases(kb, facts.platform)
    rel = next((r for r in releases if covering_variants(kb, r, facts.platform, cc)), None)
    if rel is None:
        return Advice("gpu_plan", "info", msg("recommend.plan.none", gpu=name, sm=sm))
    builds = []
    for variant in covering_variants(kb, rel, facts.platform, cc):
        bars = kb.driver_bars(variant, facts.driver_os, rel.torch)
        if bars is not None:
            builds.append(msg("recommend.plan.build", variant=variant, minimum=bars.minimum, toolkit=bars.toolkit))
    arch = kb.gpu_arch(cc)
    first_cuda = arch.min_cuda if arch is not None else "?"
    first_driver = kb.driver_for_cuda(first_cuda, facts.driver_os) if arch is not None else None
    return Advice("gpu_plan", "info", msg("recommend.plan.card", gpu=name, sm=sm, family=family, cuda=first_cuda,
                                          first_driver=first_driver or "?", os=facts.driver_os.capitalize(),
                                          torch=rel.newest_patch, builds=_joined(builds)))


def _joined(parts: list[Message]) -> Message | str:
    """Several Messages as one parameter ('a; b; c'), each rendered in the reader's language."""
    if not parts:
        return "-"
    out: Message = parts[0]
    for part in parts[1:]:
        out = msg("recommend.plan.join", a=out, b=part)
    return out


# --------------------------------------------------------------------------------------------
# A card by name (resources/gpus.json)
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CardMatch:
    """The catalogue entry a name means (``entry``), or what to suggest instead."""

    entry: dict[str, Any] | None
    suggestions: tuple[str, ...] = ()
    ambiguous: tuple[str, ...] = ()


def _norm(text: str) -> str:
    low = text.lower()
    for word in ("nvidia", "geforce", "graphics", "gpu"):
        low = low.replace(word, " ")
    return "".join(ch for ch in low if ch.isalnum())


def find_card(name: str) -> CardMatch:
    """Safe matching: only an exact name (case, spaces, 'NVIDIA'/'GeForce' aside) or one of an
    entry's own match names is taken. "RTX 5070 Ti" is never read as "RTX 5070", nor "1080" as
    "1080 Ti": those get a "did you mean" list (close names and names containing the query)."""
    import difflib

    from wizard.core.base.resources import load_json

    gpus = load_json("gpus.json")["gpus"]
    want = _norm(name)
    if not want:
        return CardMatch(None)
    hits = [g for g in gpus if want == _norm(g["name"]) or want in {_norm(n) for n in g.get("match", {}).get("names", [])}]
    exact = [g for g in hits if want == _norm(g["name"])]
    if len(exact) == 1 or len(hits) == 1:
        return CardMatch((exact or hits)[0])
    if len(hits) > 1:
        return CardMatch(None, ambiguous=tuple(g["name"] for g in hits))
    by_norm = {_norm(g["name"]): g["name"] for g in gpus}
    close = difflib.get_close_matches(want, list(by_norm), n=4, cutoff=0.6)
    names = [by_norm[c] for c in close] + [full for key, full in by_norm.items() if want in key]
    return CardMatch(None, suggestions=tuple(dict.fromkeys(names))[:5])
