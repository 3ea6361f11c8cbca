"""``--course FILE|URL`` for recommend, install, verify and report: read it once, refuse in one line.

The commands call :func:`course_session_arg` before anything else, so a malformed profile costs
no detection and no download; the profile lives in the session as the window's does.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from wizard.cli.common import error
from wizard.cli.exit_status import ExitStatus
from wizard.core.base.i18n import t

if TYPE_CHECKING:
    from wizard.app.session import Session


def add_course_argument(p: argparse.ArgumentParser, lang: str) -> None:
    p.add_argument("--course", metavar="FILE|URL", help=t("course.cli.help", lang))


def open_course_arg(args: argparse.Namespace, session: Session, lang: str) -> ExitStatus | None:
    """Put ``--course``'s profile in ``session``; BAD_INPUT (after the one-line reason) when refused."""
    source = getattr(args, "course", None)
    if not source:
        return None
    from wizard.app.course import CourseError, open_course

    try:
        open_course(session, source)
    except CourseError as exc:
        return error(exc.text(lang))
    return None


def course_session(args: argparse.Namespace, lang: str) -> Session | ExitStatus:
    """A fresh Session holding ``--course``'s profile, or the exit status of a refusal."""
    from wizard.app.session import Session

    session = Session(lang=lang)
    refused = open_course_arg(args, session, lang)
    return refused if refused is not None else session


def print_extras(session: Session, python: str, as_json: bool) -> bool:
    """Check the course's extras import in ``python`` and print a row per package: stdout
    after the checklist, or stderr under ``--json`` (stdout holds the checklist's one JSON
    document). True when every extra imports."""
    import sys

    from wizard.app.course import check_extras

    checks = check_extras(session, python)
    out = sys.stderr if as_json else sys.stdout
    if checks and session.course is not None:  # (rows come only from a course's extras)
        print(t("course.verify.title", session.lang, name=session.course.name), file=out)
    for check in checks:
        print(("  ✓ " if check.ok else "  ✗ ") + check.text(session.lang, python), file=out)
    return all(c.ok for c in checks)


__all__ = ["add_course_argument", "course_session", "open_course_arg", "print_extras"]
