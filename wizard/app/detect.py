"""Detect use case: what this machine has, recorded in the session once for both faces."""

from __future__ import annotations

from typing import Any

from wizard.app.session import Session


def detect_machine(session: Session, **kwargs: Any) -> Any:
    """Detect with the session's host (``kwargs`` as :func:`wizard.core.machine.detect.detect`
    takes them) and record it; a failure propagates, the caller records it with
    :func:`record_failure` so the report says why the machine part is empty."""
    from wizard.core.machine.detect import detect

    detection = detect(session.host, **kwargs)
    record_detection(session, detection)
    return detection


def record_detection(session: Session, detection: Any) -> None:
    session.detection = detection
    session.detection_error = None


def record_failure(session: Session, text: str) -> None:
    session.detection_error = text
