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
