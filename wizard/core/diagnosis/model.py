"""What a diagnosis is: a finding plus the action that fixes it, and what the rules read.

These types sit below both the rules (:mod:`wizard.core.diagnosis.rules`) and the paste explainer
(:mod:`wizard.core.diagnosis.explain`): the rules use the explainer's recognisers, and both make
the same :class:`Diagnosis` and :class:`Action`, so neither imports the other to get them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from packaging.version import InvalidVersion, Version

from wizard.core.base.i18n import catalogue, t
from wizard.core.diagnosis.facts import EnvFacts, TorchFacts
from wizard.core.machine.models import STATUS_NO_DRIVER, STATUS_OK, Detection, Finding

SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}

# Where a finding's facts came from. History compares findings only within scopes that both
# runs examined (a doctor run without torch facts does not "resolve" a torch finding).
SCOPE_DETECTION = "detection"
SCOPE_ENV = "env"
SCOPE_TORCH = "torch"
SCOPES = (SCOPE_DETECTION, SCOPE_ENV, SCOPE_TORCH)

ACTION_REINSTALL = "reinstall_cuda_build"
ACTION_SWITCH = "switch_variant"
ACTION_OPEN_URL = "open_url"
ACTION_RESTART = "restart"
ACTION_KINDS = (ACTION_REINSTALL, ACTION_SWITCH, ACTION_OPEN_URL, ACTION_RESTART)


# ---------------------------------------------------------------------------------------------
# What a diagnosis carries
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)


class Action:
    """Something the wizard can do to fix a finding, after asking. ``params`` are strings."""

    kind: str  # one of ACTION_KINDS
    label_key: str
    confirm_key: str
    params: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, kind: str, label_key: str, confirm_key: str, **params: Any) -> "Action":
        if kind not in ACTION_KINDS:
            raise ValueError(f"unknown action kind {kind!r}")
        return cls(kind, label_key, confirm_key, tuple(sorted((k, str(v)) for k, v in params.items() if v is not None)))

    def param(self, name: str) -> str | None:
        return dict(self.params).get(name)

    def label(self, lang: str | None) -> str:
        """The button text."""
        return t(self.label_key, lang, **dict(self.params))

    def confirm(self, lang: str | None) -> str:
        """The question asked before doing it."""
        return t(self.confirm_key, lang, **dict(self.params))

    def to_json(self, lang: str | None) -> dict[str, Any]:
        return {"kind": self.kind, "label": self.label(lang), "confirm": self.confirm(lang),
                "params": dict(self.params)}


def _driver_url() -> str:
    from wizard.core.recommend import compat

    return str(compat.load().advice["driver_download"]["url"])


def action_for(name: str | None, **params: Any) -> Action | None:
    """The action a name in the pattern data (or a rule) stands for; None for None.

    ``reinstall_cuda_build`` / ``switch_variant`` without ``variant`` are generic: the front end
    fills in its recommendation when the student accepts.
    """
    if name is None:
        return None
    if name == "restart":
        return Action.of(ACTION_RESTART, "diagnosis.action.restart.label", "diagnosis.action.restart.confirm")
    if name == "open_driver_page":
        return Action.of(ACTION_OPEN_URL, "diagnosis.action.open_driver_page.label", "diagnosis.action.open_driver_page.confirm",
                         url=params.get("url") or _driver_url())
    if name in (ACTION_REINSTALL, ACTION_SWITCH):
        if params.get("variant"):
            return Action.of(name, f"diagnosis.action.{name}.label", f"diagnosis.action.{name}.confirm", **params)
        return Action.of(name, f"diagnosis.action.{name}.generic", f"diagnosis.action.{name}.confirm_generic")
    raise ValueError(f"unknown action {name!r}")


@dataclass


class Diagnosis(Finding):
    """A finding with an optional action and the scope of facts it came from."""

    action: Action | None = None
    scope: str = SCOPE_DETECTION

    @classmethod
    def from_finding(cls, f: Finding, action: Action | None = None, scope: str = SCOPE_DETECTION) -> "Diagnosis":
        if isinstance(f, Diagnosis):
            return cls(f.id, f.severity, dict(f.params), f.evidence, f.variant, action or f.action, f.scope)
        return cls(f.id, f.severity, dict(f.params), f.evidence, f.variant, action, scope)

    def steps(self, lang: str | None) -> list[str]:
        """The fix as steps (the messages put one step per line)."""
        return [line.strip() for line in self.fix(lang).split("\n") if line.strip()]

    def to_json(self, lang: str | None) -> dict[str, Any]:
        doc = super().to_json(lang)
        doc["steps"] = self.steps(lang)
        doc["scope"] = self.scope
        doc["action"] = self.action.to_json(lang) if self.action else None
        return doc


def has_messages(fid: str, variant: str | None = None) -> bool:
    """Title, cause and fix exist for this id (and variant, falling back per part)."""
    cat = catalogue()
    for part in ("title", "cause", "fix"):
        base = f"finding.{fid}.{part}"
        var = f"finding.{fid}.{variant}.{part}" if variant else None
        if base not in cat and (var is None or var not in cat):
            return False
    return True


# ---------------------------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------------------------


@dataclass


class DiagnosisInput:
    """Everything the rules may read. ``torch``/``env`` None: that part was not examined."""

    detection: Detection
    torch: TorchFacts | None = None
    env: EnvFacts | None = None
    python_version: str | None = None  # the target environment's; defaults from torch/env facts
    _recommendation: Any = field(default=None, repr=False)
    _recommended: bool = field(default=False, repr=False)

    @property
    def python(self) -> str | None:
        for value in (self.python_version, self.torch.python_version if self.torch else None,
                      self.env.python_version if self.env else None):
            if value:
                return value
        return None

    @property
    def scopes(self) -> list[str]:
        return diagnosis_scopes(self.torch, self.env)

    def has_nvidia(self) -> bool:
        nv = self.detection.nvidia
        return bool(nv.gpus or nv.driver_version or nv.status not in (STATUS_OK, STATUS_NO_DRIVER)
                    or any(a.vendor == "nvidia" for a in self.detection.system.display_adapters))

    def driver_cuda(self) -> str | None:
        """The highest CUDA the driver supports: detection, the environment's libcuda, the table."""
        nv = self.detection.nvidia
        if nv.cuda_version:
            return nv.cuda_version
        if self.torch and self.torch.driver_cuda:
            return self.torch.driver_cuda
        if nv.driver_version:
            from wizard.core.recommend import compat

            os_name = "windows" if self.detection.system.os == "windows" or self.detection.system.is_wsl else "linux"
            return compat.load().cuda_for_driver(nv.driver_version, os_name)
        return None

    def gpu_ccs(self) -> list[tuple[str, str]]:
        """(name, "8.6") for each NVIDIA GPU: detection first, else what torch saw."""
        out = [(g.name or f"GPU {g.index}", g.compute_capability) for g in self.detection.nvidia.gpus
               if g.compute_capability]
        if not out and self.torch:
            names = self.torch.device_names + [""] * len(self.torch.device_ccs)
            out = [(names[i] or f"GPU {i}", cc) for i, cc in enumerate(self.torch.device_ccs)]
        return out

    def recommendation(self) -> Any:
        """The recommender's answer for this machine and Python (None when either is unknown)."""
        if not self._recommended:
            self._recommended = True
            python = self.python
            if python and self.detection.system.os in ("windows", "linux", "macos"):
                from wizard.core.recommend.inputs import MachineFacts
                from wizard.core.recommend.recommender import recommend

                try:
                    self._recommendation = recommend(MachineFacts.from_detection(self.detection, python))
                except (ValueError, KeyError):
                    self._recommendation = None
        return self._recommendation

    def best_cuda(self) -> Any:
        rec = self.recommendation()
        if rec is None:
            return None
        return next((c for c in rec.candidates if c.kind == "cuda"), None)


Rule = Callable[[DiagnosisInput], Iterable[Diagnosis]]


def candidate_action(kind: str, candidate: Any) -> Action:
    if candidate is None:
        return action_for(kind)  # type: ignore[return-value]
    return action_for(kind, torch=candidate.torch, variant=candidate.variant, index_url=candidate.index_url,
                      torchvision=candidate.torchvision)  # type: ignore[return-value]


def driver_vs_build(build: str, driver_cuda: str | None) -> str | None:
    """'error' when the wheel's CUDA major is newer than the driver's, 'warning' for a newer minor
    of the same major (minor-version compatibility usually runs it; PTX JIT may fail), else None.
    Minor-version compatibility began with CUDA 11: before it a newer minor is an 'error' too
    (torch 1.5's cu102 on a 10.0/10.1 driver reports "CUDA available: No")."""
    if not driver_cuda:
        return None
    try:
        need, have = Version(build), Version(driver_cuda)
    except InvalidVersion:
        return None
    if need.major > have.major:
        return "error"
    if need.major == have.major and need.minor > have.minor:
        return "warning" if need.major >= 11 else "error"
    return None


def diagnosis_scopes(torch: TorchFacts | None, env: EnvFacts | None) -> list[str]:
    """Which scopes a diagnosis with these inputs examined (for history)."""
    return [SCOPE_DETECTION] + ([SCOPE_ENV] if env is not None else []) + ([SCOPE_TORCH] if torch is not None else [])


def format_diagnoses(findings: Iterable[Finding], lang: str | None) -> list[str]:
    """Plain-text lines for a terminal: severity, title, cause, evidence, numbered steps, action."""
    out: list[str] = []
    for f in findings:
        out.append(f"[{t('diagnosis.severity.' + f.severity, lang)}] {f.title(lang)}  ({f.id})")
        out.append("    " + f.cause(lang))
        if f.evidence:
            out.append("    " + t("diagnosis.seen", lang))
            out += ["      > " + line for line in f.evidence.splitlines()]
        steps = f.steps(lang) if isinstance(f, Diagnosis) else [f.fix(lang)]
        for i, step in enumerate(steps, 1):
            out.append(f"    {i}. {step}" if len(steps) > 1 else f"    → {step}")
        if isinstance(f, Diagnosis) and f.action is not None:
            out.append("    [" + t("diagnosis.action", lang) + "] " + f.action.label(lang))
        out.append("")
    return out


def findings_to_json(findings: Iterable[Finding], lang: str | None) -> list[dict[str, Any]]:
    return [f.to_json(lang) if isinstance(f, Diagnosis) else Diagnosis.from_finding(f).to_json(lang)
            for f in findings]


__all__ = [
    "Action", "Diagnosis", "DiagnosisInput", "Rule", "action_for", "candidate_action", "has_messages",
    "driver_vs_build", "diagnosis_scopes", "format_diagnoses", "findings_to_json", "SEVERITY_ORDER", "SCOPES",
    "SCOPE_DETECTION", "SCOPE_ENV", "SCOPE_TORCH", "ACTION_KINDS", "ACTION_REINSTALL", "ACTION_SWITCH",
    "ACTION_OPEN_URL", "ACTION_RESTART",
]
