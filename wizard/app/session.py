"""The session: what every step of one run has learned, in typed fields.

Both faces fill the same fields through the use cases of :mod:`wizard.app`; the report and the
history are built from them. A step that has not run leaves its field ``None`` (the report then
says "not run"), so there is no string-keyed bag to misspell.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from wizard.core.base.host import Host, RealHost

if TYPE_CHECKING:  # the models load with the first detection, not at start-up
    from wizard.app.install_request import InstallRequest
    from wizard.core.course.extras import ExtraCheck
    from wizard.core.course.lessons import MeasuredNeed
    from wizard.core.course.profile import CourseProfile
    from wizard.core.diagnosis.model import Diagnosis
    from wizard.core.history.diff import SnapshotDiff
    from wizard.core.install.summary import InstallSummary
    from wizard.core.machine.models import Detection
    from wizard.core.recommend.choose_python import PythonChoice
    from wizard.core.recommend.recommender import Candidate
    from wizard.core.report.document import MachineRecord
    from wizard.core.verify.benchmark import BenchReport
    from wizard.core.verify.checklist import VerifyReport
    from wizard.core.vram.estimate import Estimate


def _now() -> str:
    return _dt.datetime.now().astimezone().isoformat(timespec="seconds")


@dataclass
class Session:
    host: Host = field(default_factory=RealHost)
    lang: str = "en"
    started_at: str = field(default_factory=_now)
    # machine
    detection: Detection | None = None
    detection_error: str | None = None
    changes: SnapshotDiff | None = None  # what differs from the last saved run
    changes_checked: bool = False  # compared once per run, even when there was nothing to compare
    # recommendation: the chosen Python and build, the build the student picked, and why it may not fit
    recommendation: PythonChoice | None = None
    candidate: Candidate | None = None
    override_failures: list[str] = field(default_factory=list)  # why the picked build may not work here
    requested_build: dict[str, str] | None = None  # {"torch", "variant"} from a diagnosis action
    # target environment and install outcome
    install_request: InstallRequest | None = None
    install: InstallSummary | None = None  # the finished install (env_python, installed, ...)
    target_python: str | None = None  # the interpreter Verify and Benchmark check
    # verification, benchmark, VRAM
    verify: VerifyReport | None = None
    kernel_verify: tuple[str, VerifyReport] | None = None  # (kernel display name, its checklist)
    diagnosis: list[Diagnosis] | None = None
    bench: BenchReport | None = None
    bench_plots: list[tuple[str, bytes]] | None = None  # (caption, PNG) the window drew
    vram: Estimate | None = None  # the estimate the VRAM page shows (its untouched default example too)
    vram_chosen: bool = False  # the student changed the VRAM page's inputs: only then is it reported
    # other machines (Colab, cloud) the report compares with
    remotes: list[MachineRecord] = field(default_factory=list)
    # the course profile (--course, "Open course profile…"): its pin, extras and lessons
    course: CourseProfile | None = None
    course_checks: list[ExtraCheck] | None = None  # the extras' import rows
    course_measured: dict[str, MeasuredNeed] = field(default_factory=dict)  # lesson id → its model measured


def set_language(session: Session, lang: str) -> bool:
    """Every later text of this run in ``lang``; False when it was the language already."""
    if lang == session.lang:
        return False
    session.lang = lang
    return True
