"""Report use cases: the report of a session, and its exports, the same in both faces.

The core builder takes explicit inputs (:class:`~wizard.core.report.inputs.ReportInputs`, it may
not import this layer); :func:`report_inputs` fills them from the typed session. The Report page
and ``gpu-setup-wizard report`` both call :func:`build`, so the same session gives the same JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from wizard.app.session import Session


def report_inputs(session: Session) -> Any:
    """What the report is built from: the session's host facts (environment, home, node name,
    for Colab detection and redaction) and every step's typed result. The VRAM estimate only
    when the student chose one (``vram_chosen``): the page's untouched default example is not
    something the student asked about, and must not show up as a verdict."""
    from wizard.core.report.inputs import ReportInputs, install_doc

    host = session.host
    return ReportInputs(
        started_at=session.started_at, lang=session.lang, environ=host.environ, home=host.home(),
        hostname=host.platform_facts().get("node"), detection=session.detection,
        detection_error=session.detection_error, recommendation=session.recommendation,
        candidate=session.candidate, install=install_doc(session.install), install_plan=_install_plan(session),
        verify=session.verify,
        bench=session.bench, vram=session.vram if session.vram_chosen else None, diagnosis=session.diagnosis,
        changes_checked=session.changes_checked, changes=session.changes, remotes=tuple(session.remotes),
        kernel_verify=session.kernel_verify)


def _install_plan(session: Session) -> dict[str, Any] | None:
    """What the install set up on the Environment page will use (its requirements and index,
    a mirror included), so a report made before the install finished names that, not the
    recommendation's default index."""
    request = session.install_request
    options = getattr(request, "options", None)
    if options is None:
        return None
    return {"requirements": list(options.requirements), "index_url": options.index_url}


def build(session: Session, *, lang: str | None = None, include_private: bool = False,
          remotes: list[Any] | None = None, redactor: Any = None, now: Any = None) -> Any:
    """The report of ``session`` in ``lang`` (default: the session's); private details
    (user, home, host name, GPU ids) are hidden unless ``include_private``."""
    from wizard.app.course import add_to_report
    from wizard.core.report.build import build_report

    report = build_report(report_inputs(session), lang=lang or session.lang, include_private=include_private,
                          remotes=remotes, redactor=redactor, now=now)
    return add_to_report(session, report)  # the course profile's lessons, when one is open


def export_json(session: Session, **kwargs: Any) -> str:
    """The report as its JSON document (the schema'd export both faces write)."""
    from wizard.core.report.as_json import dumps

    return dumps(build(session, **kwargs))


def export_markdown(session: Session, **kwargs: Any) -> str:
    from wizard.core.report.render import render_markdown

    return render_markdown(build(session, **kwargs))


def add_remote(session: Session, machine: Any) -> None:
    """Another machine (Colab, a cloud box) for the report's comparison."""
    session.remotes.append(machine)


@dataclass
class WindowlessSession:
    """A session with what runs without a window: the detection, the recommendation and what
    changed since the last saved run (nothing is saved). ``recommend_error``: why there is no
    recommendation (facts the recommender cannot take; the report then says "not run");
    ``notices``: the history store's warnings (a file it could not read)."""

    session: Session
    recommend_error: str | None = None
    notices: list[Any] = field(default_factory=list)


def windowless_session(host: Any, lang: str, store: Any = None, course: Any = None) -> WindowlessSession:
    """Detect, recommend and compare with the last run -- the steps the window's first pages
    do, through the same use cases, for ``gpu-setup-wizard report``."""
    from wizard.app import detect as app_detect
    from wizard.app import history as app_history
    from wizard.app import recommend as app_recommend
    from wizard.core.history.store import HistoryStore

    session = Session(host=host, lang=lang, course=course)  # a course profile: its pin and lessons
    app_detect.detect_machine(session)
    out = WindowlessSession(session)
    try:
        app_recommend.recommend_for(session)
    except ValueError as exc:
        out.recommend_error = str(exc)
    store = store or HistoryStore()
    app_history.compare_with_last(session, store)
    out.notices = list(store.warnings)
    return out
