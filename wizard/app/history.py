"""History use cases: save this run's snapshot, and what changed since the last saved run."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from wizard.app.session import Session
from wizard.core.base.i18n import t
from wizard.core.base.lazy import lazy_exports

if TYPE_CHECKING:
    from wizard.core.diagnosis.facts import TorchFacts
    from wizard.core.history.diff import SnapshotDiff as SnapshotDiff
    from wizard.core.history.store import HistoryEntry as HistoryEntry
    from wizard.core.history.store import HistoryLookupError as HistoryLookupError
    from wizard.core.history.store import HistoryStore as HistoryStore
    from wizard.core.history.store import SaveResult, Snapshot
    from wizard.core.machine.models import Detection

__getattr__ = lazy_exports(__name__, {
    "SnapshotDiff": "wizard.core.history.diff", "HistoryLookupError": "wizard.core.history.store",
    "HistoryStore": "wizard.core.history.store", "HistoryEntry": "wizard.core.history.store",
})


def open_store(root: str | os.PathLike[str] | None = None) -> HistoryStore:
    """The history of saved runs (``root``: another folder than the user's)."""
    from wizard.core.history.store import HistoryStore

    return HistoryStore(root)


def compute_changes(detection: Detection, store: HistoryStore | None = None) -> SnapshotDiff | None:
    """What differs between ``detection`` and the last saved run (None: nothing saved, or
    nothing to compare). Reads files only: safe on a worker thread."""
    from wizard.core.history.diff import changes_since_last

    return changes_since_last(detection, store)


def compare_with_last(session: Session, store: HistoryStore | None = None) -> SnapshotDiff | None:
    """What differs from the last saved run (None: nothing saved, or nothing to compare), done
    once per run and recorded in the session. ``store`` defaults to the user's history."""
    if session.detection is None:
        return None
    diff = compute_changes(session.detection, store)
    record_changes(session, diff)
    return diff


def diff(old: Snapshot, new: Snapshot) -> SnapshotDiff:
    """What changed between two saved snapshots."""
    from wizard.core.history.diff import diff_snapshots

    return diff_snapshots(old, new)


@dataclass
class CompareOutcome:
    """A detection against the last saved run: the lines to print (``lines``), the JSON to add
    (``doc``), the diff itself, the save result when asked to save, and the store's warnings."""

    lines: list[str]
    doc: dict[str, Any]
    diff: SnapshotDiff | None = None
    saved: SaveResult | None = None  # when asked to save this run
    warnings: list[str] = field(default_factory=list)


def compare_last(detection: Detection, lang: str, *, store: HistoryStore | None = None,
                 save: bool = False) -> CompareOutcome:
    """This machine (``detection``) against the last saved run, its findings included (what
    ``doctor --compare-last`` shows before and after a driver update). With ``save``, this run is
    saved afterwards, so the next comparison starts from it. Never raises for history problems."""
    from wizard.core.diagnosis.rules import diagnose
    from wizard.core.history.store import build_snapshot

    store = store or open_store()
    current = build_snapshot(detection, findings=diagnose(detection))
    last = store.last()
    warnings = [n.text(lang) for n in store.warnings]
    saved = store.save(current) if save else None
    if saved is not None and not saved.ok and saved.error is not None:
        warnings.append(saved.error.text(lang))
    if last is None:
        lines = [t("history.compare.no_previous", lang, dir=store.root)]
        doc: dict[str, Any] = {"schema": "gpu-setup-wizard/diff@1.0", "old": None, "new": current.time,
                               "significant": False, "changes": []}
        return CompareOutcome(lines, doc, None, saved, warnings)
    found = diff(last.snapshot, current)
    return CompareOutcome(found.lines(lang), found.to_json(lang), found, saved, warnings)


def record_changes(session: Session, diff: SnapshotDiff | None) -> None:
    session.changes = diff
    session.changes_checked = True


def snapshot_of(session: Session) -> Snapshot | None:
    """This run as a history snapshot: the machine, and -- when this run verified, installed or
    benchmarked -- the environment's torch, its folder and Python, and the benchmark's headline
    numbers. (Saving the detection alone made every run read "torch -" and "Nothing changed".)
    None without a detection."""
    from wizard.core.history.store import build_snapshot

    if session.detection is None:
        return None
    torch = torch_facts_of(session)
    return build_snapshot(session.detection, torch=torch, env_path=env_path_of(session, torch),
                          python_version=torch.python_version if torch is not None else None,
                          benchmark=bench_headlines_of(session))


def torch_facts_of(session: Session) -> TorchFacts | None:
    """The environment's torch: what Verify's probe saw, else what this run's install put there."""
    from wizard.core.diagnosis.facts import TorchFacts

    verify = session.verify
    if verify is not None and verify.events:
        facts = TorchFacts.from_probe_events(verify.events)
        if facts.version or not facts.installed:
            return facts
    install = session.install
    torch = install.version_of("torch") if install is not None else None
    if install is not None and torch:
        return TorchFacts(version=torch, env_path=install.env_path)
    return None


def env_path_of(session: Session, torch: TorchFacts | None) -> str | None:
    if torch is not None and torch.env_path:
        return str(torch.env_path)
    return session.install.env_path if session.install is not None else None


def bench_headlines_of(session: Session) -> dict[str, Any]:
    """The benchmark's numbers, keyed as the history compares them (id/device/dtype/size)."""
    from wizard.core.history.store import benchmark_headlines

    bench = session.bench
    if bench is None or not bench.results:
        return {}
    return benchmark_headlines({"id": r.id, "device": r.device, "dtype": r.dtype, "size": r.size, "value": r.value,
                                "unit": r.unit, "median_s": r.median_s, "iqr_s": r.iqr_s} for r in bench.results)


def save_snapshot(session: Session, store: HistoryStore | None = None) -> SaveResult | None:
    """Save this run to the history (the next run compares with it); None without a detection."""
    from wizard.core.history.store import HistoryStore

    snapshot = snapshot_of(session)
    if snapshot is None:
        return None
    return (store or HistoryStore()).save(snapshot)
