"""Report use cases: the report of a session, and its exports, the same in both faces.

The core builder takes explicit inputs (:class:`~wizard.core.report.inputs.ReportInputs`, it may
not import this layer); :func:`report_inputs` fills them from the typed session. The Report page
and ``gpu-setup-wizard report`` both call :func:`build`, so the same session gives the same JSON.
"""

from __future__ import annotations

import datetime as _dt
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from wizard.app.session import Session
from wizard.core.base.i18n import t
from wizard.core.base.lazy import lazy_exports

if TYPE_CHECKING:
    from wizard.core.base.host import Host
    from wizard.core.base.i18n import Message
    from wizard.core.base.privacy import Redactor
    from wizard.core.course.profile import CourseProfile as CourseProfile
    from wizard.core.history.store import HistoryStore
    from wizard.core.report.colab_cell import colab_cell as colab_cell
    from wizard.core.report.document import MachineRecord as MachineRecord
    from wizard.core.report.document import Report as Report
    from wizard.core.report.inputs import ReportInputs
    from wizard.core.report.remote import RemoteInputError as RemoteInputError
    from wizard.core.report.render import Plot as Plot

__getattr__ = lazy_exports(__name__, {
    "colab_cell": "wizard.core.report.colab_cell", "RemoteInputError": "wizard.core.report.remote",
    "Plot": "wizard.core.report.render", "MachineRecord": "wizard.core.report.document",
    "Report": "wizard.core.report.document", "CourseProfile": "wizard.core.course.profile",
})

FORMATS = ("md", "html", "pdf", "json")
SUFFIX = {"md": ".md", "html": ".html", "pdf": ".pdf", "json": ".json"}
SUFFIXES = {".md": "md", ".markdown": "md", ".html": "html", ".htm": "html", ".pdf": "pdf", ".json": "json"}


def report_inputs(session: Session) -> ReportInputs:
    """What the report is built from: the session's host facts (environment, home, node name,
    for Colab detection and redaction) and every step's typed result. The VRAM estimate only
    when the student chose one (``vram_chosen``): the page's untouched default example is not
    something the student asked about, and must not show up as a verdict."""
    from wizard.core.report.inputs import ReportInputs

    host = session.host
    return ReportInputs(
        started_at=session.started_at, lang=session.lang, environ=host.environ, home=host.home(),
        hostname=host.platform_facts().get("node"), detection=session.detection,
        detection_error=session.detection_error, recommendation=session.recommendation,
        candidate=session.candidate, install=session.install, install_plan=_install_plan(session),
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
    return {"requirements": list(options.requirements), "index_url": options.index_url,
            "extras_index": getattr(options, "extras_index", None)}  # a course's extras' own source


def build(session: Session, *, lang: str | None = None, include_private: bool = False,
          remotes: list[MachineRecord] | None = None, redactor: Redactor | None = None,
          now: _dt.datetime | None = None) -> Report:
    """The report of ``session`` in ``lang`` (default: the session's); private details
    (user, home, host name, GPU ids) are hidden unless ``include_private``."""
    from wizard.app.course import add_to_report
    from wizard.core.report.build import build_report

    report = build_report(report_inputs(session), lang=lang or session.lang, include_private=include_private,
                          remotes=remotes, redactor=redactor, now=now)
    return add_to_report(session, report)  # the course profile's lessons, when one is open


def export_json(session: Session, **kwargs: Any) -> str:
    """The report as its JSON document (the schema'd export both faces write)."""
    return render(build(session, **kwargs), "json")


def export_markdown(session: Session, **kwargs: Any) -> str:
    return render(build(session, **kwargs), "md")


# ---- exports: one set of rules for the window's Save and ``report --format`` --------------------
class ExportError(Exception):
    """An export that could not be written: ``text`` is the one line to show, in the user's language."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


def choose_format(fmt: str | None, as_json: bool = False, output: str | os.PathLike[str] | None = None) -> str:
    """The format asked for, else JSON when ``--json``, else the output file's suffix, else Markdown."""
    if fmt:
        return fmt
    if as_json:
        return "json"
    if output:
        return SUFFIXES.get(Path(output).suffix.lower(), "md")
    return "md"


def default_name(fmt: str, now: _dt.datetime | None = None) -> str:
    """The file name a new export gets: ``gpu-setup-report-<date>-<time>.<suffix>``."""
    return f"gpu-setup-report-{(now or _dt.datetime.now()).strftime('%Y%m%d-%H%M')}{SUFFIX[fmt]}"


def render(report: Report, fmt: str, plots: Sequence[Plot] = (), *, for_qt: bool = False) -> str:
    """The report as Markdown, HTML or JSON text (``plots``: PNGs the HTML embeds; ``for_qt``:
    HTML for Qt's rich-text engine, the window's preview and the PDF)."""
    from wizard.core.report.as_json import dumps
    from wizard.core.report.render import render_html, render_markdown

    if fmt == "md":
        return render_markdown(report)
    if fmt == "html":
        return render_html(report, list(plots), for_qt=for_qt)
    if fmt == "json":
        return dumps(report)
    raise ValueError(f"not a text format: {fmt!r}")


def export(report: Report, fmt: str, target: str | os.PathLike[str], lang: str, plots: Sequence[Plot] = ()) -> Path:
    """Write ``report`` as ``fmt`` to ``target``, atomically (a temporary file beside it, then a
    rename: an interrupted export never leaves half a report). Returns the path written; raises
    :class:`ExportError` with the line to show (no Qt for a PDF, a folder that cannot be written).

    A redacted report is written as any file the student makes (a teaching assistant on a shared
    lab account reads it); one with the private details stays readable by its owner only."""
    from wizard.core.base.files import write_atomic

    path = Path(target)
    shared = not report.private_included
    try:
        if fmt == "pdf":
            from wizard.report_pdf import PdfError, render_pdf

            try:
                render_pdf(render(report, "html", plots, for_qt=True), path, title=report.title, shared=shared)
            except PdfError as exc:
                raise ExportError(t("report.cli.no_pdf", lang, error=exc)) from exc
            return path
        return Path(write_atomic(path, render(report, fmt, plots).encode("utf-8"), shared=shared))
    except OSError as exc:
        raise ExportError(t("report.cli.cannot_write", lang, path=path, error=exc.strerror or exc)) from exc


# ---- other machines: Colab and cloud results ---------------------------------------------------
def remote_from_text(text: str, kind: str | None, label: str | None = None) -> MachineRecord:
    """Another machine from a pasted or loaded text (a result JSON, ``doctor --json``, Colab's
    ``!nvidia-smi``). Raises :class:`RemoteInputError`."""
    from wizard.core.report.remote import machine_from_text

    return machine_from_text(text, kind, label)


def load_remotes(args: Sequence[str], lang: str) -> list[MachineRecord]:
    """The machines of ``[colab:|cloud:]FILE`` arguments; raises ValueError with the line to print."""
    from wizard.core.report.remote import RemoteInputError, machine_from_file, split_kind

    machines = []
    for arg in args:
        kind, path = split_kind(arg)
        try:
            machines.append(machine_from_file(path, kind))
        except OSError as exc:
            raise ValueError(t("cli.error.cannot_read", lang, path=path, error=exc.strerror or exc)) from exc
        except RemoteInputError as exc:
            raise ValueError(t("report.cli.bad_remote", lang, path=path, error=exc.text(lang))) from exc
    return machines


def remote_line(machine: MachineRecord, lang: str) -> str:
    """One line naming another machine and what it has, for the list under the preview."""
    from wizard.core.report.text import machine_title, remote_summary

    return f"{machine_title(machine, lang)}: {remote_summary(machine, lang)}"


def add_remote(session: Session, machine: MachineRecord) -> None:
    """Another machine (Colab, a cloud box) for the report's comparison."""
    session.remotes.append(machine)


def remove_last_remote(session: Session) -> bool:
    """Forget the machine added last; False when there was none."""
    if not session.remotes:
        return False
    session.remotes.pop()
    return True


@dataclass
class WindowlessSession:
    """A session with what runs without a window: the detection, the recommendation and what
    changed since the last saved run (nothing is saved). ``recommend_error``: why there is no
    recommendation (facts the recommender cannot take; the report then says "not run");
    ``notices``: the history store's warnings (a file it could not read)."""

    session: Session
    recommend_error: str | None = None
    notices: list[Message] = field(default_factory=list)


def windowless_session(host: Host, lang: str, store: HistoryStore | None = None,
                       course: CourseProfile | None = None) -> WindowlessSession:
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
