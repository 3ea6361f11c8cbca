"""``gpu-setup-wizard report``: the filled-in checklist, headless (a lab server, Colab, SSH).

    gpu-setup-wizard report [--format md|html|pdf|json] [-o FILE] [--lang ko|en]
                            [--include private] [--add-remote [colab:|cloud:]FILE]

What runs: detection on this machine, then the two steps that are pure and need nothing from
the student (the recommendation for the interpreter the recommender prefers, and the lessons'
VRAM judgment), and the comparison with the last saved run. Install, verification and benchmark
are the window's steps; their lines say "not run". ``--json`` is ``--format json``: what a
student runs in Colab or on a cloud GPU and brings back with ``--add-remote``.

Without ``-o`` the Markdown, HTML or JSON goes to standard output, a PDF to
``gpu-setup-report-<date>.pdf`` here; with ``-o`` the format can come from the file's suffix.
Files are written atomically (a temporary file beside the target, then a rename), so an
interrupted export never leaves half a report. Exit codes: 0 written; 2 bad input (an
unreadable ``--add-remote`` file, a folder that cannot be written, no Qt for the PDF).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import sys
from pathlib import Path
from typing import Any, Sequence

from wizard.core.base.i18n import LANGUAGES, language, t

EXIT_OK = 0
EXIT_BAD_INPUT = 2
FORMATS = ("md", "html", "pdf", "json")
SUFFIXES = {".md": "md", ".markdown": "md", ".html": "html", ".htm": "html", ".pdf": "pdf", ".json": "json"}


def add_report_parser(subparsers: Any, common: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Add the ``report`` sub-command to ``subparsers`` (``common`` carries ``--lang``)."""
    p = subparsers.add_parser("report", parents=[common], help=t("report.cli.help"),
                              description=t("report.cli.description"))
    p.add_argument("--format", choices=FORMATS, help=t("report.cli.format.help"))
    p.add_argument("--json", action="store_true", help=t("report.cli.json.help"))
    p.add_argument("-o", "--output", metavar="FILE", help=t("report.cli.output.help"))
    p.add_argument("--include", choices=("private",), action="append", default=[],
                   help=t("report.cli.include.help"))
    p.add_argument("--include-private", dest="include", action="append_const", const="private",
                   help=argparse.SUPPRESS)  # the spelling ``doctor`` uses
    p.add_argument("--add-remote", metavar="[colab:|cloud:]FILE", action="append", default=[],
                   help=t("report.cli.add_remote.help"))
    p.set_defaults(handler=cmd_report)
    return p


def _error(message: str) -> int:
    print(f"gpu-setup-wizard: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def choose_format(fmt: str | None, as_json: bool, output: str | None) -> str:
    """--format, else --json, else the output file's suffix, else Markdown."""
    if fmt:
        return fmt
    if as_json:
        return "json"
    if output:
        return SUFFIXES.get(Path(output).suffix.lower(), "md")
    return "md"


def headless_session(host: Any = None, lang: str | None = None) -> Any:
    """A session with what runs without a window: detection, the recommendation, and what
    changed since the last saved run (nothing is saved)."""
    from wizard.core.machine.detect import detect
    from wizard.core.base.host import RealHost
    from wizard.app.session import Session

    host = host or RealHost()
    session = Session(host=host, lang=lang or language())
    session.detection = detect(host)
    from wizard.core.recommend.choose_python import choose_python

    try:
        choice = choose_python(session.detection)
    except ValueError as exc:  # facts the recommender cannot take; the report says "not run"
        print(f"gpu-setup-wizard: {exc}", file=sys.stderr)
    else:
        session.results["recommendation"] = choice
        session.results["candidate"] = choice.recommendation.best
    from wizard.core.history.store import HistoryStore
    from wizard.core.history.diff import changes_since_last

    store = HistoryStore()
    session.results["changes"] = changes_since_last(session.detection, store)
    for notice in store.warnings:
        print(t("history.warning_prefix") + " " + notice.text(), file=sys.stderr)
    return session


def default_pdf_name(now: _dt.datetime | None = None) -> str:
    return f"gpu-setup-report-{(now or _dt.datetime.now()).strftime('%Y%m%d-%H%M')}.pdf"


def load_remotes(args_list: Sequence[str]) -> list[Any]:
    """The machines of ``--add-remote`` arguments; raises ValueError with a message to print."""
    from wizard.core.report.remote import RemoteInputError, machine_from_file, split_kind

    machines = []
    for arg in args_list:
        kind, path = split_kind(arg)
        try:
            machines.append(machine_from_file(path, kind))
        except OSError as exc:
            raise ValueError(t("cli.error.cannot_read", path=path, error=exc.strerror or exc)) from exc
        except RemoteInputError as exc:
            raise ValueError(t("report.cli.bad_remote", path=path, error=exc)) from exc
    return machines


def cmd_report(args: argparse.Namespace) -> int:
    from wizard.core.report.model import build_report, write_atomic
    from wizard.core.report.as_json import dumps
    from wizard.core.report.render import render_html, render_markdown

    lang = language()
    fmt = choose_format(getattr(args, "format", None), getattr(args, "json", False), args.output)
    try:
        remotes = load_remotes(args.add_remote or [])
    except ValueError as exc:
        return _error(str(exc))
    session = headless_session(lang=lang)
    report = build_report(session, lang=lang, include_private="private" in (args.include or []), remotes=remotes)
    if fmt == "pdf":
        from wizard.report_pdf import PdfError, render_pdf

        target = Path(args.output or default_pdf_name())
        try:
            render_pdf(render_html(report, for_qt=True), target, title=report.title)
        except PdfError as exc:
            return _error(t("report.cli.no_pdf", error=exc))
        except OSError as exc:
            return _error(t("report.cli.cannot_write", path=target, error=exc.strerror or exc))
        print(t("report.cli.saved", path=target), file=sys.stderr)
        return EXIT_OK
    text = {"md": render_markdown, "html": render_html, "json": dumps}[fmt](report)
    if not args.output:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return EXIT_OK
    try:
        target = write_atomic(args.output, text.encode("utf-8"))
    except OSError as exc:
        return _error(t("report.cli.cannot_write", path=args.output, error=exc.strerror or exc))
    print(t("report.cli.saved", path=target), file=sys.stderr)
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m wizard.cli_report report ...``: the same command as ``gpu-setup-wizard report``,
    for a wizard whose main parser does not list it."""
    from wizard.cli import _prescan_lang
    from wizard.core.base.i18n import set_language

    args_list = list(sys.argv[1:] if argv is None else argv)
    set_language(_prescan_lang(args_list))
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--lang", choices=LANGUAGES, help=t("cli.lang.help"))
    parser = argparse.ArgumentParser(prog="gpu-setup-wizard", parents=[common])
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    add_report_parser(sub, common)
    args = parser.parse_args(args_list)
    if args.lang:
        set_language(args.lang)
    return args.handler(args)


__all__ = ["add_report_parser", "cmd_report", "headless_session", "choose_format", "load_remotes",
           "default_pdf_name", "main", "EXIT_OK", "EXIT_BAD_INPUT"]

if __name__ == "__main__":
    sys.exit(main())
