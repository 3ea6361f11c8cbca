"""The exit statuses of every ``gpu-setup-wizard`` command, in one place.

A script (a course's setup check, a TA's batch of reports) decides what to do from the exit
status, so each number means one thing in every command. The values are the ones the commands
have always used; the tests check them. Modelled on httpie's ``ExitStatus``.
"""

from __future__ import annotations

from enum import IntEnum


class ExitStatus(IntEnum):
    """What a command's exit status means."""

    SUCCESS = 0
    #: the work was tried and did not succeed (an install step, a failed verification)
    FAILED = 1
    #: ``doctor --explain``: the text was read, but no known failure was recognised in it
    NOTHING_RECOGNISED = 1
    #: the command line or an input file cannot be used (argparse's own usage errors are 2 too)
    BAD_INPUT = 2
    #: ``install`` stopped before a step that needs the student's consent (re-run with ``--yes``)
    NEEDS_CONFIRM = 3
    #: Ctrl+C (128 + SIGINT, what a shell reports for an interrupted program)
    CANCELLED = 130


__all__ = ["ExitStatus"]
