"""History use cases: save this run's snapshot, and what changed since the last saved run."""

from __future__ import annotations

from typing import Any

from wizard.app.session import Session


def compare_with_last(session: Session, store: Any = None) -> Any:
    """What differs from the last saved run (None: nothing saved, or nothing to compare), done
    once per run and recorded in the session. ``store`` defaults to the user's history."""
    from wizard.core.history.diff import changes_since_last

    if session.detection is None:
        return None
    diff = changes_since_last(session.detection, store)
    record_changes(session, diff)
    return diff


def record_changes(session: Session, diff: Any) -> None:
    session.changes = diff
    session.changes_checked = True


def snapshot_of(session: Session) -> Any:
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


def torch_facts_of(session: Session) -> Any:
    """The environment's torch: what Verify's probe saw, else what this run's install put there."""
    from wizard.core.diagnosis.facts import TorchFacts

    verify = session.verify
    if verify is not None and verify.events:
        facts = TorchFacts.from_probe_events(verify.events)
        if facts.version or not facts.installed:
            return facts
    installed = {str(i.get("name", "")).lower(): i.get("version") for i in (session.install or {}).get("installed", [])
                 if isinstance(i, dict)}
    if installed.get("torch"):
        return TorchFacts(version=str(installed["torch"]), env_path=(session.install or {}).get("env_path"))
    return None


def env_path_of(session: Session, torch: Any) -> str | None:
    if torch is not None and torch.env_path:
        return torch.env_path
    install = session.install or {}
    return install.get("env_path") or None


def bench_headlines_of(session: Session) -> dict[str, Any]:
    """The benchmark's numbers, keyed as the history compares them (id/device/dtype/size)."""
    from wizard.core.history.store import benchmark_headlines

    bench = session.bench
    if bench is None or not bench.results:
        return {}
    return benchmark_headlines({"id": r.id, "device": r.device, "dtype": r.dtype, "size": r.size, "value": r.value,
                                "unit": r.unit, "median_s": r.median_s, "iqr_s": r.iqr_s} for r in bench.results)


def save_snapshot(session: Session, store: Any = None) -> Any:
    """Save this run to the history (the next run compares with it); None without a detection."""
    from wizard.core.history.store import HistoryStore

    snapshot = snapshot_of(session)
    if snapshot is None:
        return None
    return (store or HistoryStore()).save(snapshot)
