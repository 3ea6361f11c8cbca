"""Which PyTorch build this machine can actually run, and why the others cannot.

The tools students use today look at one thing: light-the-torch and ``uv --torch-backend=auto``
read the driver, so a GTX 1080 with driver 580 gets a cu130 build that has no sm_61 kernels;
torchruntime reads the GPU model, so an old driver with a new GPU gets a build that cannot start.
The recommender checks three rules together -- the build exists for this OS and Python, it has
kernels for every GPU, the driver can run it -- for every (torch release, build variant) pair the
knowledge base (:mod:`wizard.core.recommend.compat`) knows, and returns a
:class:`Recommendation`: the candidates in order, every rejected option with its reason, and
advice.

This module is the entry point (:func:`recommend`, and the GUI's hand-picked override
:func:`check_candidate`); the parts live beside it:

* :mod:`wizard.core.recommend.inputs` -- :class:`MachineFacts` and :class:`Wishes`, what it is asked;
* :mod:`wizard.core.recommend.rules` -- the three rules applied to one option (:func:`evaluate`);
* :mod:`wizard.core.recommend.options` -- which options are judged, and their order;
* :mod:`wizard.core.recommend.advice` -- the driver, Python, Colab and cloud advice.

Every user-visible sentence is a :class:`Message` rendered through
:func:`wizard.core.base.i18n.t`, so the CLI and the GUI show the same words in Korean or English.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from wizard.core.base.i18n import Message, msg
from wizard.core.recommend import compat as compat_mod
from wizard.core.recommend.advice import Advice, advice_for, future_advice
from wizard.core.recommend.commands import InstallCommands, build_commands, mirror_index_url
from wizard.core.recommend.compat_model import CompatDB
from wizard.core.recommend.compat_model import version as _v
from wizard.core.recommend.inputs import MachineFacts, Wishes
from wizard.core.recommend.options import build_families, descending, judge, rank_key, releases_for
from wizard.core.recommend.rules import RULE_DRIVER, RULES, Evaluation, Failure, evaluate, version_span

SCHEMA = "gpu-setup-wizard/recommend@1.0"


@dataclass
class Candidate:
    """One installable build, with why it passed and what to watch out for."""

    torch: str
    torchvision: str | None
    torchaudio: str | None
    variant: str
    kind: str  # cuda | rocm | xpu | mps | cpu
    index_url: str
    python_requires: str
    python: str  # the interpreter version this was checked for
    reasons: list[Message] = field(default_factory=list)
    warnings: list[Message] = field(default_factory=list)
    driver_bar: str | None = None  # "toolkit" | "minimum" | None (not a CUDA build / driver unknown)
    verified: bool = True
    uses_default_index: bool = False  # PyPI without a mirror: no --index-url needed
    torchaudio_separate: str | None = None

    @property
    def local_version(self) -> str:
        """The local version the installed wheel reports ('+cu126'), '' for PyPI wheels."""
        return "" if self.kind == "mps" or self.uses_default_index else f"+{self.variant}"

    def commands(self, env_name: str = "dl", python_exe: str = "python") -> InstallCommands:
        return build_commands(self, python_version=self.python, env_name=env_name, python_exe=python_exe)

    def to_json(self, lang: str | None) -> dict[str, Any]:
        return {
            "torch": self.torch, "torchvision": self.torchvision, "torchaudio": self.torchaudio,
            "variant": self.variant, "kind": self.kind, "index_url": self.index_url,
            "python_requires": self.python_requires, "driver_bar": self.driver_bar, "verified": self.verified,
            "reasons": [m.text(lang) for m in self.reasons], "warnings": [m.text(lang) for m in self.warnings],
            "commands": self.commands().as_text(),
        }


@dataclass
class Rejection:
    """An option that fails; ``rule`` names the first failed rule, ``reason`` says it in words."""

    torch: str
    variant: str
    rule: str
    reason: Message
    other_failures: list[Failure] = field(default_factory=list)

    def to_json(self, lang: str | None) -> dict[str, Any]:
        return {"torch": self.torch, "variant": self.variant, "reason": self.reason.text(lang), "rule": self.rule}


@dataclass
class Recommendation:
    facts: MachineFacts
    wishes: Wishes
    candidates: list[Candidate]
    rejected: list[Rejection]
    advice: list[Advice]
    compat_schema: str
    reviewed_on: str
    data_source: Any = None  # update.DataSource: built-in or updated table, and its date

    @property
    def best(self) -> Candidate | None:
        return self.candidates[0] if self.candidates else None

    @property
    def alternatives(self) -> list[Candidate]:
        return self.candidates[1:]

    @property
    def update_driver_first(self) -> bool:
        return any(a.kind in ("driver_update", "driver_install") and a.severity == "required" for a in self.advice)

    def to_json(self, lang: str | None) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "compat": {"schema": self.compat_schema, "reviewed_on": self.reviewed_on,
                       **({"source": self.data_source.to_json(lang)} if self.data_source is not None else {})},
            "machine": self.facts.to_json(),
            "wishes": asdict(self.wishes),
            "candidates": [c.to_json(lang) for c in self.candidates],
            "rejected": [r.to_json(lang) for r in self.rejected],
            "advice": [a.to_json(lang) for a in self.advice],
        }


def _candidate(ev: Evaluation, facts: MachineFacts, wishes: Wishes, kb: CompatDB) -> Candidate:
    rel, patch, var = ev.release, ev.patch, ev.variant
    default_index = kb.index_url(var.name, facts.platform)
    from_pypi = default_index == kb.index_pypi
    if from_pypi:
        index = wishes.pypi_index_url or default_index
    elif wishes.index_url:
        index = mirror_index_url(wishes.index_url, var.name, kb.variants)
    else:
        index = default_index
    reasons = list(ev.reasons)
    if wishes.torch:
        reasons.insert(0, msg("recommend.reason.pinned", torch=wishes.torch))
    return Candidate(
        torch=patch, torchvision=rel.torchvision.get(patch), torchaudio=rel.torchaudio.get(patch),
        variant=var.name, kind=var.kind, index_url=index, python_requires=rel.python_requires(facts.platform),
        python=facts.python, reasons=reasons, warnings=list(ev.warnings), driver_bar=ev.driver_bar,
        verified=rel.verified and var.name not in rel.unverified,
        uses_default_index=from_pypi and not wishes.pypi_index_url,
        torchaudio_separate=rel.torchaudio_separate if rel.torchaudio.get(patch) is None else None)


def _with_alternatives(failed: list[Evaluation], passed: list[Evaluation]) -> list[Rejection]:
    """Rejections; a driver rejection names the build of the same torch that does run, if any."""
    best_by_torch: dict[tuple[str, str], str] = {}
    for ev in passed:  # already in rank order
        best_by_torch.setdefault((ev.release.torch, ev.variant.kind), ev.variant.name)
    out: list[Rejection] = []
    for ev in failed:
        first = ev.first_failure()
        reason = first.message
        alt = best_by_torch.get((ev.release.torch, ev.variant.kind))
        if first.rule == RULE_DRIVER and alt and reason.key in ("recommend.reject.driver_major",
                                                                  "recommend.reject.driver_ptx"):
            reason = Message.of(reason.key + "_alt", alt=alt, **dict(reason.params))
        out.append(Rejection(ev.patch, ev.variant.name, first.rule, reason,
                             [f for f in ev.failures if f is not first]))
    out.sort(key=lambda r: (descending(_v(r.torch)), r.variant))
    return out


def recommend(facts: MachineFacts, wishes: Wishes | None = None, kb: CompatDB | None = None) -> Recommendation:
    """Candidates in order, every rejected option with its reason, and advice. Pure computation."""
    source = None
    if kb is None:
        from wizard.core.recommend.update import load_active

        kb, source = load_active()
    wishes = wishes or Wishes()
    if facts.is_jetson:  # NVIDIA's JetPack wheels; the board's driver is never touched
        from wizard.core.recommend.jetson import for_jetson

        jetson_candidates, jetson_advice = for_jetson(facts, wishes, kb.advice["colab"]["gpu"])
        return Recommendation(facts, wishes, [Candidate(**kw) for kw in jetson_candidates], [],
                              jetson_advice + _tensorflow_advice(facts, wishes),
                              kb.schema, kb.reviewed_on, source)
    releases = releases_for(wishes, kb)
    kinds = build_families(facts, wishes, kb)
    passed, failed = judge(facts, wishes, kb, kinds, releases)

    gpu_passed = [e for e in passed if e.variant.kind != "cpu"]
    if facts.has_nvidia and not wishes.cpu_only and not gpu_passed and "cpu" not in kinds:
        # nothing runs on the GPU: the CPU build is the fallback, with the reason in the advice
        fallback = {"mps"} if facts.platform == "macos-arm64" else {"cpu"}
        cpu_passed, cpu_failed = judge(facts, wishes, kb, fallback, releases)
        passed += cpu_passed
        failed += cpu_failed
    passed.sort(key=lambda e: rank_key(e, wishes))

    candidates = [_candidate(e, facts, wishes, kb) for e in passed]
    rejected = _with_alternatives(failed, passed)
    advice = advice_for(facts, wishes, kb, passed, releases)
    if facts.has_nvidia and not wishes.cpu_only:
        advice += future_advice(facts, kb)
    advice += _tensorflow_advice(facts, wishes)
    return Recommendation(facts, wishes, candidates, rejected, advice, kb.schema, kb.reviewed_on, source)

def _tensorflow_advice(facts: MachineFacts, wishes: Wishes) -> list[Advice]:
    """How TensorFlow gets this machine's GPU, when the course (or the student) wants TensorFlow."""
    if not wishes.tensorflow:
        return []
    from wizard.core.recommend.commands import join_argv
    from wizard.core.recommend.tensorflow import tensorflow_route

    route = tensorflow_route(facts)
    cmds = [join_argv(["python", "-m", "pip", "install", *route.requirements])] if route.requirements else []
    severity = "recommended" if route.route == "windows-nvidia" else "info"
    return [Advice("tensorflow", severity, route.message, url=route.url, commands=cmds)]


# --------------------------------------------------------------------------------------------
# The GUI's override: judge a build the student picked by hand
# --------------------------------------------------------------------------------------------
def evaluate_option(facts: MachineFacts, torch: str, variant: str, kb: CompatDB | None = None) -> Evaluation | None:
    """The full evaluation of one build (None when the table does not know the torch version)."""
    kb = kb or compat_mod.load()
    rel = kb.release(torch)
    if rel is None or kb.variant(variant) is None:
        return None
    patch = torch if torch.count(".") >= 2 else rel.newest_patch
    return evaluate(facts, rel, patch, variant, kb)


def check_candidate(facts: MachineFacts, torch: str, variant: str, kb: CompatDB | None = None,
                    lang: str | None = None) -> list[str]:
    """Why ``torch``+``variant`` would fail here, by the same rules ([] = it passes).

    The override is warned about, not blocked: the caller shows these sentences and lets the
    student go on.
    """
    kb = kb or compat_mod.load()
    if kb.release(torch) is None:
        return [msg("recommend.reject.unknown_torch", torch=torch, known=version_span(kb.torch_versions())).text(lang)]
    if kb.variant(variant) is None:
        return [msg("recommend.reject.unknown_variant", variant=variant).text(lang)]
    ev = evaluate_option(facts, torch, variant, kb)
    assert ev is not None
    ordered = sorted(ev.failures, key=lambda f: RULES.index(f.rule))
    return [f.message.text(lang) for f in ordered]


def rule_failures(facts: MachineFacts, torch: str, variant: str, kb: CompatDB | None = None) -> list[Failure]:
    """Like :func:`check_candidate`, keeping the rule of each failure (for tests and the GUI)."""
    ev = evaluate_option(facts, torch, variant, kb)
    return [] if ev is None else sorted(ev.failures, key=lambda f: RULES.index(f.rule))


__all__ = [
    "SCHEMA",
    "Candidate",
    "Rejection",
    "Recommendation",
    "recommend",
    "check_candidate",
    "evaluate_option",
    "rule_failures",
]
