"""What changed between two runs, in plain words (Korean or English) and in JSON.

The comparison a student needs after a driver update: the driver and the highest CUDA it
supports, whether the torch installed last time still fits the new driver and GPUs (judged by
the recommender's own rules, :func:`wizard.core.recommend.recommender.rule_failures`, the list behind
:func:`~wizard.core.recommend.recommender.check_candidate`), whether a newer build has become possible,
GPUs added or removed, the OS build, findings that appeared or went away, and benchmark numbers
that moved more than run-to-run noise.

Benchmark noise: a number counts as changed only when it moved by more than
``max(NOISE_FLOOR, spread_old + spread_new)`` of its old value, where a spread is the run's
IQR / median. The 10 % floor is torch.utils.benchmark's own line: its ``Measurement`` warns
about "system fluctuation" when IQR / median exceeds 10 %; GPU boost clocks, laptop power
states and background load move single runs by several percent, so smaller changes between
two runs on different days are not news. The sum of both relative IQRs widens the bar when
either run was itself noisy (their middle halves could otherwise overlap).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from packaging.version import InvalidVersion, Version

from wizard.core.base.i18n import t
from wizard.core.history.store import HistoryStore, Snapshot, build_snapshot
from wizard.core.machine.models import STATUS_OK, Detection

NOISE_FLOOR = 0.10

KIND_DRIVER_STATUS = "driver_status"
KIND_DRIVER = "driver"
KIND_CUDA = "cuda"
KIND_GPU_ADDED = "gpu_added"
KIND_GPU_REMOVED = "gpu_removed"
KIND_OS = "os"
KIND_TORCH = "torch"
KIND_PYTHON = "python"
KIND_ENV = "env"
KIND_TORCH_FIT = "torch_fit"
KIND_NEWER_BUILD = "newer_build"
KIND_FINDING_NEW = "finding_new"
KIND_FINDING_RESOLVED = "finding_resolved"
KIND_BENCHMARK = "benchmark"
# What the first page announces, with "re-run diagnostics": the machine or the environment changed.
SIGNIFICANT = frozenset({KIND_DRIVER_STATUS, KIND_DRIVER, KIND_GPU_ADDED, KIND_GPU_REMOVED, KIND_OS, KIND_TORCH})

TONE_BETTER = "better"
TONE_WORSE = "worse"
TONE_NEUTRAL = "neutral"


class Lazy:
    """A parameter translated when the sentence is shown: a message key, a finding title, or a list."""

    def __init__(self, render: Any, data: Any) -> None:
        self._render = render
        self.data = data

    def text(self, lang: str | None) -> str:
        return self._render(lang)


def _msg(key: str, **params: Any) -> Lazy:
    return Lazy(lambda lang: t(key, lang, **params), {"key": key, "params": params})


@dataclass
class Change:
    """One sentence of the diff. ``data`` is the machine-readable part of the JSON."""

    kind: str
    key: str
    params: dict[str, Any] = field(default_factory=dict)
    tone: str = TONE_NEUTRAL
    data: dict[str, Any] = field(default_factory=dict)

    def _rendered(self, lang: str | None) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, value in self.params.items():
            if isinstance(value, Lazy):
                value = value.text(lang)
            elif isinstance(value, list):
                value = "; ".join(v.text(lang) if isinstance(v, Lazy) else str(v) for v in value)
            out[name] = value
        return out

    def text(self, lang: str | None) -> str:
        return t(self.key, lang, **self._rendered(lang))

    def to_json(self, lang: str | None) -> dict[str, Any]:
        return {"kind": self.kind, "tone": self.tone, "text": self.text(lang), "data": self.data}


@dataclass
class SnapshotDiff:
    old: Snapshot
    new: Snapshot
    changes: list[Change]

    @property
    def significant(self) -> bool:
        return any(c.kind in SIGNIFICANT for c in self.changes)

    def of_kind(self, kind: str) -> list[Change]:
        return [c for c in self.changes if c.kind == kind]

    def lines(self, lang: str | None) -> list[str]:
        head = t("history.diff.heading", lang, old=_short_time(self.old.time), new=_short_time(self.new.time))
        if not self.changes:
            return [head, "  " + t("history.diff.none", lang)]
        marks = {TONE_BETTER: "+", TONE_WORSE: "!", TONE_NEUTRAL: "*"}
        return [head] + [f"  {marks[c.tone]} {c.text(lang)}" for c in self.changes]

    def to_json(self, lang: str | None) -> dict[str, Any]:
        return {"schema": "gpu-setup-wizard/diff@1.0", "old": self.old.time, "new": self.new.time,
                "significant": self.significant, "changes": [c.to_json(lang) for c in self.changes]}


def _short_time(iso: str) -> str:
    return iso.replace("T", " ")[:16]


def _status_text(status: str) -> Lazy:
    key = "history.diff.status.ok" if status == STATUS_OK else f"doctor.nvidia_status.{status}"
    return _msg(key)


def _pct(old: float, new: float) -> str:
    return f"{(new - old) / old * 100:+.0f}%"


def _num(value: float) -> str:
    if abs(value) >= 100:
        return f"{value:.0f}"
    if abs(value) >= 1:
        return f"{value:.2f}".rstrip("0").rstrip(".")
    return f"{value:.3g}"


# ---------------------------------------------------------------------------------------------
# Judging the installed torch against a machine
# ---------------------------------------------------------------------------------------------
@dataclass
class Fit:
    status: str  # "fits" | "fails" | "unknown" | "cpu"
    reasons: list[Lazy] = field(default_factory=list)


def _facts(snap: Snapshot, python: str | None) -> Any:
    from wizard.core.recommend.inputs import MachineFacts

    if not python or snap.os not in ("windows", "linux", "macos") or snap.nvidia_status != STATUS_OK:
        return None
    ccs = [g.compute_capability for g in snap.gpus if g.compute_capability]
    names = [g.name or "" for g in snap.gpus if g.compute_capability]
    try:
        return MachineFacts(os=snap.os, arch=snap.arch or "x86_64", python=python, driver_version=snap.driver_version,
                            cuda_driver=snap.cuda_version, gpu_ccs=ccs, gpu_names=names, is_wsl=snap.is_wsl)
    except ValueError:
        return None


def torch_fit(snap: Snapshot, torch: Any, python: str | None, kb: Any = None) -> Fit:
    """Does ``torch`` (TorchFacts) run on the machine ``snap`` describes? Only the driver and GPU
    rules count: the wheel was installed, so it existed for that Python."""
    from wizard.core.recommend import compat
    from wizard.core.recommend.recommender import rule_failures
    from wizard.core.recommend.rules import RULE_DRIVER, RULE_GPU

    if torch is None or not torch.installed or not torch.version:
        return Fit("unknown")
    variant = torch.variant()
    if variant == "cpu":
        return Fit("cpu")
    facts = _facts(snap, python)
    if facts is None or variant is None:
        return Fit("unknown")
    kb = kb or compat.load()
    version = torch.base_version or ""
    if kb.release(version) is None:
        version = ".".join(version.split(".")[:2])
    if kb.release(version) is None or kb.variant(variant) is None:
        return Fit("unknown")
    failures = [f for f in rule_failures(facts, version, variant, kb) if f.rule in (RULE_DRIVER, RULE_GPU)]
    if not failures:
        return Fit("fits")
    return Fit("fails", [Lazy(f.message.text, {"key": f.message.key, "params": dict(f.message.params)})
                         for f in failures])


def _best(snap: Snapshot, python: str | None, kb: Any) -> Any:
    from wizard.core.recommend.recommender import recommend

    facts = _facts(snap, python)
    if facts is None:
        return None
    rec = recommend(facts, kb=kb)
    return next((c for c in rec.candidates if c.kind == "cuda"), None)


def _better(a: Any, b: Any, kb: Any) -> bool:
    """Is candidate ``a`` a newer torch, or the same torch with a newer build variant, than ``b``?"""
    try:
        va, vb = Version(a.torch), Version(b.torch)
    except InvalidVersion:
        return False
    key_a = kb.variant(a.variant).sort_key if kb.variant(a.variant) else ()
    key_b = kb.variant(b.variant).sort_key if kb.variant(b.variant) else ()
    return (va, key_a) > (vb, key_b)


# ---------------------------------------------------------------------------------------------
# The diff
# ---------------------------------------------------------------------------------------------
def diff_snapshots(old: Snapshot, new: Snapshot, kb: Any = None) -> SnapshotDiff:
    from wizard.core.recommend import compat
    """What differs between two runs, in the order a student reads it: the driver and GPUs, the
    OS, the environment, whether the installed torch still fits, a newer build, findings, speed."""

    kb = kb or compat.load()
    changes = [*_driver_changes(old, new), *_gpu_changes(old, new), *_os_changes(old, new), *_env_changes(old, new)]
    machine_changed = any(c.kind in (KIND_DRIVER, KIND_CUDA, KIND_GPU_ADDED, KIND_GPU_REMOVED, KIND_DRIVER_STATUS)
                          for c in changes)
    if machine_changed:
        changes += _fit_changes(old, new, kb)
    changes += _finding_changes(old, new)
    changes += _bench_changes(old, new)
    return SnapshotDiff(old, new, changes)


def _driver_changes(old: Snapshot, new: Snapshot) -> list[Change]:
    out: list[Change] = []
    if old.nvidia_status != new.nvidia_status:
        worse = new.nvidia_status != STATUS_OK
        out.append(Change(KIND_DRIVER_STATUS, "history.diff.driver_status",
                          {"old": _status_text(old.nvidia_status), "new": _status_text(new.nvidia_status)},
                          TONE_WORSE if worse else TONE_BETTER, {"old": old.nvidia_status, "new": new.nvidia_status}))
    new_driver = new.driver_version or new.pending_driver_version
    if old.driver_version and new_driver and old.driver_version != new_driver:
        pending = new.driver_version is None and new.pending_driver_version is not None
        out.append(Change(KIND_DRIVER, "history.diff.driver_pending" if pending else "history.diff.driver",
                          {"old": old.driver_version, "new": new_driver}, TONE_NEUTRAL,
                          {"old": old.driver_version, "new": new_driver, "pending_restart": pending}))
    elif not old.driver_version and new.driver_version:
        started = old.pending_driver_version == new.driver_version  # the restart after an update
        out.append(Change(KIND_DRIVER, "history.diff.driver_started" if started else "history.diff.driver_installed",
                          {"new": new.driver_version}, TONE_BETTER,
                          {"old": None, "new": new.driver_version, "after_restart": started}))
    if old.cuda_version and new.cuda_version and old.cuda_version != new.cuda_version:
        up = _version_gt(new.cuda_version, old.cuda_version)
        out.append(Change(KIND_CUDA, "history.diff.cuda", {"old": old.cuda_version, "new": new.cuda_version},
                          TONE_BETTER if up else TONE_WORSE, {"old": old.cuda_version, "new": new.cuda_version}))
    return out


def _gpu_changes(old: Snapshot, new: Snapshot) -> list[Change]:
    """GPUs added or removed, only when both runs could see them (a driver that does not answer
    hides them all)."""
    if old.nvidia_status != STATUS_OK or new.nvidia_status != STATUS_OK:
        return []
    out: list[Change] = []
    old_gpus = {g.key(): g for g in old.gpus}
    new_gpus = {g.key(): g for g in new.gpus}
    for kind, key_text, ours, theirs in ((KIND_GPU_ADDED, "history.diff.gpu_added", new_gpus, old_gpus),
                                         (KIND_GPU_REMOVED, "history.diff.gpu_removed", old_gpus, new_gpus)):
        for key, g in ours.items():
            if key not in theirs:
                out.append(Change(kind, key_text, {"name": g.name or key}, TONE_NEUTRAL,
                                  {"name": g.name, "uuid": g.uuid, "compute_capability": g.compute_capability}))
    return out


def _os_changes(old: Snapshot, new: Snapshot) -> list[Change]:
    if (old.os_build and new.os_build and old.os_build != new.os_build) or \
            (old.os_pretty and new.os_pretty and old.os_pretty != new.os_pretty):
        return [Change(KIND_OS, "history.diff.os", {"old": _os_label(old), "new": _os_label(new)}, TONE_NEUTRAL,
                       {"old": {"pretty": old.os_pretty, "build": old.os_build},
                        "new": {"pretty": new.os_pretty, "build": new.os_build}})]
    return []


def _env_changes(old: Snapshot, new: Snapshot) -> list[Change]:
    out: list[Change] = []
    ot, nt = old.torch, new.torch
    if ot is not None and nt is not None and (ot.version, ot.installed) != (nt.version, nt.installed):
        out.append(Change(KIND_TORCH, "history.diff.torch", {"old": ot.version or "-", "new": nt.version or "-"},
                          TONE_NEUTRAL, {"old": ot.version, "new": nt.version}))
    for kind, key, a, b in ((KIND_PYTHON, "history.diff.python", old.python_version, new.python_version),
                            (KIND_ENV, "history.diff.env", old.env_path, new.env_path)):
        if a and b and a != b:
            out.append(Change(kind, key, {"old": a, "new": b}, TONE_NEUTRAL, {"old": a, "new": b}))
    return out


def _fit_changes(old: Snapshot, new: Snapshot, kb: Any) -> list[Change]:
    """After the machine changed: does the installed torch (this run's, else last run's) still
    fit, and is a newer build possible now?"""
    torch = new.torch if new.torch is not None else old.torch
    python = new.python_version or old.python_version or (torch.python_version if torch else None)
    out: list[Change] = []
    if torch is not None and torch.installed and torch.version:
        out += _torch_fit_change(old, new, torch, python, kb)
    if new.nvidia_status == STATUS_OK and python:
        out += _newer_build_change(old, new, torch, python, kb)
    return out


def _torch_fit_change(old: Snapshot, new: Snapshot, torch: Any, python: str | None, kb: Any) -> list[Change]:
    before = torch_fit(old, old.torch or torch, python, kb)
    after = torch_fit(new, torch, python, kb)
    data = {"torch": torch.version, "before": before.status, "after": after.status}
    label = {"torch": torch.version, "driver": new.driver_version or new.pending_driver_version or "?"}
    if after.status == "unknown" and new.nvidia_status != STATUS_OK:
        return [Change(KIND_TORCH_FIT, "history.diff.torch_fit_unknown", label, TONE_NEUTRAL, data)]
    if after.status == "fits":
        key = "history.diff.torch_now_fits" if before.status == "fails" else "history.diff.torch_still_fits"
        return [Change(KIND_TORCH_FIT, key, label, TONE_BETTER if before.status == "fails" else TONE_NEUTRAL, data)]
    if after.status == "fails":
        key = "history.diff.torch_still_fails" if before.status == "fails" else "history.diff.torch_no_longer_fits"
        return [Change(KIND_TORCH_FIT, key, {**label, "reasons": after.reasons}, TONE_WORSE,
                       {**data, "reasons": [r.data for r in after.reasons]})]
    return []


def _newer_build_change(old: Snapshot, new: Snapshot, torch: Any, python: str, kb: Any) -> list[Change]:
    """A newer build than last run's best; else than the installed one."""
    was, now = _best(old, python, kb), _best(new, python, kb)
    installed = torch.version if torch is not None and torch.installed else None
    data = {"torch": now.torch if now else None, "variant": now.variant if now else None,
            "index_url": now.index_url if now else None,
            "was": {"torch": was.torch, "variant": was.variant} if was is not None else None,
            "installed": installed}
    if now is not None and was is not None and _better(now, was, kb):
        return [Change(KIND_NEWER_BUILD, "history.diff.newer_build",
                       {"torch": now.torch, "variant": now.variant, "was": f"{was.torch} {was.variant}"},
                       TONE_BETTER, data)]
    if now is not None and was is None and torch is not None and _newer_than_installed(now, torch):
        return [Change(KIND_NEWER_BUILD, "history.diff.newer_than_installed",
                       {"torch": now.torch, "variant": now.variant, "installed": installed or "-"}, TONE_BETTER, data)]
    return []


def _finding_changes(old: Snapshot, new: Snapshot) -> list[Change]:
    """New findings, and resolved ones (a scope counts only if the new run examined it)."""
    out: list[Change] = []
    old_ids = {f.id: f for f in old.findings}
    new_ids = {f.id: f for f in new.findings}
    for fid, f in new_ids.items():
        if fid not in old_ids:
            tone = TONE_WORSE if f.severity in ("error", "warning") else TONE_NEUTRAL
            out.append(Change(KIND_FINDING_NEW, "history.diff.finding_new", {"title": _title(f)}, tone,
                              {"id": fid, "severity": f.severity}))
    for fid, f in old_ids.items():
        if fid not in new_ids and f.scope in new.scopes:
            out.append(Change(KIND_FINDING_RESOLVED, "history.diff.finding_resolved", {"title": _title(f)}, TONE_BETTER,
                              {"id": fid, "severity": f.severity}))
    return out


def _bench_changes(old: Snapshot, new: Snapshot) -> list[Change]:
    """Benchmark headline numbers that moved beyond noise."""
    out: list[Change] = []
    for name in sorted(set(old.benchmark) & set(new.benchmark)):
        a, b = old.benchmark[name], new.benchmark[name]
        if a.value <= 0 or b.value < 0 or a.unit != b.unit:
            continue
        rel = (b.value - a.value) / a.value
        threshold = max(NOISE_FLOOR, (a.spread or 0.0) + (b.spread or 0.0))
        if abs(rel) <= threshold:
            continue
        better = (rel > 0) == a.higher_is_better
        out.append(Change(KIND_BENCHMARK, "history.diff.bench_better" if better else "history.diff.bench_worse",
                          {"name": name, "old": _num(a.value), "new": _num(b.value), "unit": a.unit,
                           "pct": _pct(a.value, b.value)}, TONE_BETTER if better else TONE_WORSE,
                          {"name": name, "old": a.value, "new": b.value, "unit": a.unit, "relative": round(rel, 4),
                           "threshold": round(threshold, 4)}))
    return out


def _newer_than_installed(candidate: Any, torch: Any) -> bool:
    """Is ``candidate`` a newer torch, or the same torch for a newer CUDA, than the installed one?"""
    from wizard.core.diagnosis.facts import variant_to_cuda

    try:
        mine, theirs = Version(torch.base_version or "0"), Version(candidate.torch)
    except InvalidVersion:
        return False
    if theirs != mine:
        return theirs > mine
    have, offer = variant_to_cuda(torch.variant() or ""), variant_to_cuda(candidate.variant)
    return bool(have and offer and Version(offer) > Version(have))


def _title(f: Any) -> Lazy:
    finding = f.as_finding()
    return Lazy(finding.title, {"id": f.id})


def _version_gt(a: str, b: str) -> bool:
    try:
        return Version(a) > Version(b)
    except InvalidVersion:
        return a > b


def _os_label(s: Snapshot) -> str:
    pretty = s.os_pretty or s.os
    return f"{pretty} [{s.os_build}]" if s.os_build else pretty


# ---------------------------------------------------------------------------------------------
# The first page: has the machine changed since the last run?
# ---------------------------------------------------------------------------------------------
def changes_since_last(detection: Detection, store: HistoryStore | None = None,
                       findings: Iterable[Any] | None = None) -> SnapshotDiff | None:
    """The diff against the last saved run when something significant changed (driver, GPU, OS
    build, the environment's torch); None when nothing was saved or nothing significant changed.
    The caller shows it on the first page with a "re-run diagnostics" offer."""
    store = store or HistoryStore()
    last = store.last()
    if last is None:
        return None
    diff = diff_snapshots(last.snapshot, build_snapshot(detection, findings=findings))
    return diff if diff.significant else None


__all__ = [
    "NOISE_FLOOR", "Change", "SnapshotDiff", "Fit", "diff_snapshots", "torch_fit", "changes_since_last",
    "SIGNIFICANT", "TONE_BETTER", "TONE_WORSE", "TONE_NEUTRAL",
]
