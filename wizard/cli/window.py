"""No command: open the wizard window through the launcher the entry point was given.

The command line never imports the window: :mod:`wizard.__main__` (the program's composition
root, which may import both faces) passes :func:`main` an ``open_window`` callable. Run as a
library (``wizard.cli.main([...])`` in tests, Colab, a server), no launcher is given, and asking
for the window says how to open it instead of importing Qt.

Before the launcher runs, :func:`wizard.cli.qt_platform.check` asks whether Qt can open a window
here at all (a display, the platform plugin's system libraries): Qt itself would abort the
process with a raw message. ``GSW_SKIP_QT_CHECK=1`` skips it, for a machine where the check is
wrong and Qt would work.
"""

from __future__ import annotations

import argparse
import os
from typing import Callable

from wizard.cli.common import error, lang_of
from wizard.cli.exit_status import ExitStatus
from wizard.cli.qt_platform import check as check_qt_platform
from wizard.core.base.i18n import t

#: ``open_window(lang, smoke_test) -> exit status``; raises ImportError when Qt cannot load.
WindowLauncher = Callable[[str, bool], int]


def run(args: argparse.Namespace, open_window: WindowLauncher | None) -> int:
    """Run the window until it closes; its exit status, or BAD_INPUT when Qt cannot load."""
    lang = lang_of(args)
    if open_window is None:
        return error(t("cli.error.no_window_launcher", lang), ExitStatus.BAD_INPUT)
    if os.environ.get("GSW_SKIP_QT_CHECK") != "1":
        problem = check_qt_platform()
        if problem is not None:  # Qt would abort with signal 6; say what to do instead
            return error(problem.text(lang), ExitStatus.BAD_INPUT)
    try:
        return open_window(lang, bool(args.smoke_test))
    except ImportError as exc:  # Qt missing or its system libraries absent
        return error(t("cli.error.no_gui", lang, error=exc), ExitStatus.BAD_INPUT)


__all__ = ["WindowLauncher", "run"]
