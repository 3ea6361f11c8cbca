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


def save_snapshot(session: Session, store: Any = None) -> Any:
    """Save this run to the history (the next run compares with it); None without a detection."""
    from wizard.core.history.store import HistoryStore, build_snapshot

    if session.detection is None:
        return None
    return (store or HistoryStore()).save(build_snapshot(session.detection))
