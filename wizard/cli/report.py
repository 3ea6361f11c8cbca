"""``gpu-setup-wizard report``: the filled-in checklist, headless (a lab server, Colab, SSH).

    gpu-setup-wizard report [--format md|html|pdf|json] [-o FILE] [--lang ko|en]
                            [--include private] [--add-remote [colab:|cloud:]FILE]

What runs: detection on this machine, then the two steps that are pure and need nothing from
the student (the recommendation for the interpreter the recommender prefers, and the lessons'
VRAM judgment), and the comparison with the last saved run. Install, verification and benchmark
are the window's steps; their lines say "not run". ``--json`` is ``--format json``, which
another machine's wizard reads with ``--add-remote``; for Colab or a cloud GPU, where the wizard
is not installed, ``colab-cell`` prints a self-contained cell whose result file
``--add-remote`` reads the same way.

Without ``-o`` the Markdown, HTML or JSON goes to standard output, a PDF to
``gpu-setup-report-<date>.pdf`` here; with ``-o`` the format can come from the file's suffix.
Files are written atomically (a temporary file beside the target, then a rename), so an
interrupted export never leaves half a report. Exit statuses: SUCCESS (written); BAD_INPUT (an
unreadable ``--add-remote`` file, a folder that cannot be written, no Qt for the PDF).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import sys
from typing import TYPE_CHECKING, Sequence

from wizard.cli.common import error, lang_of
from wizard.cli.exit_status import ExitStatus
from wizard.core.base.i18n import t

if TYPE_CHECKING:
    from wizard.app.report import CourseProfile, MachineRecord
    from wizard.app.session import Session
    from wizard.core.base.host import Host


def choose_format(fmt: str | None, as_json: bool, output: str | None) -> str:
    """--format, else --json, else the output file's suffix, else Markdown (the app layer's rule)."""
    from wizard.app.report import choose_format as _choose

    return _choose(fmt, as_json, output)


def headless_session(lang: str, host: Host | None = None, course: CourseProfile | None = None) -> Session:
    """A session with what runs without a window: detection, the recommendation, and what
    changed since the last saved run (nothing is saved) -- the app layer's, as the window's."""
    from wizard.app.report import windowless_session
    from wizard.cli.environment import current_host

    run = windowless_session(host or current_host(), lang, course=course)
    if run.recommend_error is not None:  # the report says "not run"
        print(f"gpu-setup-wizard: {run.recommend_error}", file=sys.stderr)
    for notice in run.notices:
        print(t("history.warning_prefix", lang) + " " + notice.text(lang), file=sys.stderr)
    return run.session


def default_pdf_name(now: _dt.datetime | None = None) -> str:
    from wizard.app.report import default_name

    return default_name("pdf", now)


def load_remotes(args_list: Sequence[str], lang: str) -> list[MachineRecord]:
    """The machines of ``--add-remote`` arguments; raises ValueError with a message to print."""
    from wizard.app.report import load_remotes as _load

    return _load(args_list, lang)


def run(args: argparse.Namespace) -> int:
    """``report``: parse → build the report of this machine's headless session → write it."""
    lang = lang_of(args)
    fmt = choose_format(getattr(args, "format", None), getattr(args, "json", False), args.output)
    from wizard.cli.course import course_session

    course = course_session(args, lang)  # --course: the lessons judged as the course says
    if isinstance(course, ExitStatus):
        return course
    try:
        remotes = load_remotes(args.add_remote or [], lang)
    except ValueError as exc:
        return error(str(exc))
    return build_and_write(fmt, args.output, "private" in (args.include or []), remotes, lang, course.course,
                           kernel=getattr(args, "kernel", None))


def build_and_write(fmt: str, output: str | None, include_private: bool, remotes: list[MachineRecord], lang: str,
                    course: CourseProfile | None = None, kernel: str | None = None) -> int:
    """The command's body: the session, the report, and where it goes (``course``: a course profile;
    ``kernel``: a Jupyter kernel to verify inside first, for the report's "Jupyter kernel" section)."""
    from wizard.app import report as app_report

    session = headless_session(lang, course=course)
    if kernel:
        from wizard.cli.report_kernel import verify_kernel_into

        stopped = verify_kernel_into(session, kernel, lang)
        if stopped is not None:
            return stopped
    report = app_report.build(session, lang=lang, include_private=include_private, remotes=remotes)
    if not output and fmt != "pdf":
        text = app_report.render(report, fmt)
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return ExitStatus.SUCCESS
    try:
        target = app_report.export(report, fmt, output or default_pdf_name(), lang)
    except app_report.ExportError as exc:
        return error(exc.text)
    print(t("report.cli.saved", lang, path=target), file=sys.stderr)
    return ExitStatus.SUCCESS


def run_colab_cell(args: argparse.Namespace) -> int:
    """``colab-cell [--ssh] [--no-bench] [-o FILE]``: the self-contained cell (or SSH script)
    that checks Colab or a cloud GPU with the wizard's own probes; its result JSON is what
    ``report --add-remote`` reads."""
    from wizard.app.report import colab_cell
    from wizard.core.base.files import write_atomic

    lang = lang_of(args)
    text = colab_cell("ssh" if args.ssh else "colab", bench=not args.no_bench)
    if not args.output:
        sys.stdout.write(text)
        return ExitStatus.SUCCESS
    try:
        target = write_atomic(args.output, text.encode("utf-8"))
    except OSError as exc:
        return error(t("report.cli.cannot_write", lang, path=args.output, error=exc.strerror or exc))
    print(t("report.cli.saved", lang, path=target), file=sys.stderr)
    return ExitStatus.SUCCESS


__all__ = ["run", "run_colab_cell", "build_and_write", "headless_session", "choose_format", "load_remotes", "default_pdf_name"]
