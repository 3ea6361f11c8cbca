"""``gpu-setup-wizard verify --python EXE``: prove that environment's PyTorch works on this GPU.

The checks run in the target interpreter (the probe); progress lines go to stderr. Exit
statuses: SUCCESS; FAILED when a check failed; BAD_INPUT for an interpreter that is not
there; CANCELLED on Ctrl+C.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from wizard.cli.common import error, lang_of, run_probe_command, target_python
from wizard.cli.exit_status import ExitStatus
from wizard.core.base.i18n import t

if TYPE_CHECKING:
    from wizard.app.report import CourseProfile


def run(args: argparse.Namespace) -> int:
    lang = lang_of(args)
    from wizard.cli.course import course_session

    course = course_session(args, lang)  # --course: a row per extra package after the checklist
    if isinstance(course, ExitStatus):
        return course
    python = target_python(args.python)
    if python is None:
        return error(t("verify.cli.no_python", lang, path=args.python))
    return verify_and_print(python, args.json, lang, course.course)


def verify_and_print(python: str, as_json: bool, lang: str, course: CourseProfile | None = None) -> int:
    """The command's body: detect, run the probe, print the checklist (the app layer's use
    cases, as the Verify page's); with a course profile, then a row per extra package."""
    from wizard.app import detect as app_detect
    from wizard.app import verify as app_verify
    from wizard.app.session import Session
    from wizard.app.verify import progress_text
    from wizard.cli.environment import current_host

    session = Session(host=current_host(), lang=lang, course=course)
    app_detect.detect_machine(session, pythons=False, conda=False)
    report = run_probe_command(lambda on_event, cancel: app_verify.run_verify(session, python, on_event=on_event,
                                                                              cancel=cancel),
                               progress_text, as_json, lang)
    if report is None:
        return ExitStatus.CANCELLED
    extras_ok = True
    if course is not None:
        from wizard.cli.course import print_extras

        extras_ok = print_extras(session, python, as_json)
    return ExitStatus.SUCCESS if report.status != "fail" and extras_ok else ExitStatus.FAILED


__all__ = ["run", "verify_and_print"]
