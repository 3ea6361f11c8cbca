"""The program: ``gpu-setup-wizard`` and ``python -m wizard``.

This is the composition root, the one module that knows both faces: the command line
(:mod:`wizard.cli`) parses and runs headless commands, and when no command is given it calls the
launcher below, which opens the Qt window (:mod:`wizard.ui`). Qt is imported only then, so every
headless command runs on a server with no display and without PySide6.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Sequence

from wizard.cli import main as cli_main

if TYPE_CHECKING:
    from wizard.cli.environment import Environment


def open_window(lang: str, smoke_test: bool) -> int:
    """Open the wizard window in ``lang`` and run it until it closes."""
    from wizard.ui.app import run  # Qt loads here, never for a headless command

    return run(smoke_test=smoke_test, lang=lang)


def main(argv: Sequence[str] | None = None, env: Environment | None = None) -> int:
    """Run one command, or the window when none is given; the exit status. ``env``: other
    streams, variables and working folder than the process's (see :mod:`wizard.cli.environment`)."""
    return cli_main(argv, open_window=open_window, env=env)


if __name__ == "__main__":
    sys.exit(main())
