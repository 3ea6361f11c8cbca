"""Verify use cases: prove the target environment works, then diagnose what it showed.

The Verify page feeds the probe's events into :func:`new_report` as they stream (its probe
runs on a worker thread); ``gpu-setup-wizard verify`` calls :func:`run_verify`. Both record the
finished report the same way, so the report reads the same check list.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from wizard.app.session import Session
from wizard.core.base.lazy import lazy_exports

if TYPE_CHECKING:
    from wizard.core.base.process import CancelLike
    from wizard.core.diagnosis.model import Diagnosis
    from wizard.core.verify.checklist import VerifyReport as VerifyReport
    from wizard.core.verify.checklist import progress_text as progress_text
    from wizard.core.verify.probe_runner import ProbeOutcome as ProbeOutcome
    from wizard.core.verify.probe_runner import probe_command as probe_command
    from wizard.core.verify.probe_runner import run_probe as run_probe

__getattr__ = lazy_exports(__name__, {
    "VerifyReport": "wizard.core.verify.checklist", "progress_text": "wizard.core.verify.checklist",
    "ProbeOutcome": "wizard.core.verify.probe_runner", "probe_command": "wizard.core.verify.probe_runner",
    "run_probe": "wizard.core.verify.probe_runner",
})

VERIFY_TIMEOUT_S = 300


def use_python(session: Session, python_exe: str) -> None:
    """The interpreter Verify and Benchmark check next (picked, browsed, or made by a bundle)."""
    session.target_python = python_exe


def new_report(session: Session, python_exe: str) -> VerifyReport:
    """An empty checklist for ``python_exe`` against the session's detection (fed by the page)."""
    from wizard.core.verify.checklist import VerifyReport

    return VerifyReport(detection=session.detection, python_exe=python_exe)


def probe_args() -> list[str]:
    from wizard.core.verify.checklist import verify_args

    return verify_args()


def run_verify(session: Session, python_exe: str, *, on_event: Callable[[dict[str, Any]], None] | None = None,
               cancel: CancelLike = None) -> VerifyReport:
    """Run the verify probe in ``python_exe`` on this thread and record the report."""
    from wizard.core.verify.checklist import run_verify as core_run_verify

    report = core_run_verify(python_exe, session.detection, timeout=VERIFY_TIMEOUT_S, on_event=on_event,
                             cancel=cancel)
    record_verify(session, report)
    return report


def record_verify(session: Session, report: VerifyReport) -> None:
    session.verify = report
    session.target_python = report.python_exe or session.target_python


def diagnose(session: Session, report: VerifyReport) -> list[Diagnosis]:
    """Every failure-mode rule over the detection and this environment's torch facts (runs
    commands: call it off the GUI thread); recorded as the session's diagnosis. With a course
    profile, its extra packages are checked in the same interpreter (``session.course_checks``,
    which the report's Course section lists)."""
    from wizard.core.diagnosis.facts import TorchFacts, gather_env_facts
    from wizard.core.diagnosis.rules import diagnose as core_diagnose

    detection = session.detection
    if detection is None:
        return []
    torch = TorchFacts.from_probe_events(report.events)
    env = gather_env_facts(session.host, is_wsl=detection.system.is_wsl, python_exe=report.python_exe)
    found = core_diagnose(detection, torch, env)
    record_diagnosis(session, found)
    if session.course is not None and report.python_exe:  # the course's extras, on this same worker thread
        from wizard.app.course import check_extras

        check_extras(session, report.python_exe)
        from wizard.app.course_models import lessons_to_measure, measure_lessons, record_measured

        if lessons_to_measure(session):  # lessons named by their model: measured in this interpreter
            record_measured(session, measure_lessons(session, report.python_exe))
    return found


def record_diagnosis(session: Session, found: list[Diagnosis]) -> None:
    session.diagnosis = list(found)


def request_build(session: Session, params: dict[str, str]) -> None:
    """A diagnosis asks for another build: the next recommendation takes it as the wish."""
    session.requested_build = dict(params)
