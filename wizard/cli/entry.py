"""``main()``: the language, the streams and the parser, set up once for every command.

The order matters: the language is read from the command line first (``--lang`` may come after
the command) so that argparse's help is built in it; the streams are set up before anything is
printed; then the parsed arguments carry the language to the command, which passes it on to
whatever renders text (there is no process-wide current language).

Two ways a command ends early are handled here, once for every command: Ctrl+C (a command that
does not handle it itself gets one line, exit status 130, and the children it started are
killed, so a hung nvidia-smi is not left behind), and a reader that closed the pipe
(``recommend --json | head``), which is a normal end of the output, not an error to trace back.
"""

from __future__ import annotations

import errno
import os
import sys
from typing import TYPE_CHECKING, Callable, Sequence

from wizard.cli.common import error, setup_streams
from wizard.cli.exit_status import ExitStatus
from wizard.cli.parser import build_parser, command_named, prescan_lang
from wizard.core.base.i18n import t
from wizard.core.base.interrupt import stop_children

if TYPE_CHECKING:  # the window's module (the Qt platform check, ctypes) loads only to open it
    from wizard.cli.environment import Environment
    from wizard.cli.window import WindowLauncher

# What a shell reports for a program ended by SIGPIPE (128 + 13); Python ignores SIGPIPE, so the
# closed pipe arrives as BrokenPipeError instead and is turned into the same status.
BROKEN_PIPE_STATUS = 141


def _wants_commands(args_list: list[str]) -> bool:
    """A command or ``--help`` was asked for; otherwise the window opens, and the parser need
    not know every command's options."""
    positional = [a for i, a in enumerate(args_list)
                  if not a.startswith("-") and not (i and args_list[i - 1] == "--lang")]
    return bool(positional) or any(a in ("-h", "--help") for a in args_list)


def main(argv: Sequence[str] | None = None, open_window: WindowLauncher | None = None,
         env: Environment | None = None) -> int:
    """The ``gpu-setup-wizard`` command (``python -m wizard`` too). Returns the exit status.

    ``open_window`` opens the Qt wizard when no command is given; :mod:`wizard.__main__` passes
    it, so this package never imports the window itself. ``env`` runs the command with other
    streams, variables and working folder than the process's (tests run the command line
    in-process so); None is the real environment.
    """
    if env is not None:
        with env.applied():
            return main(argv, open_window)
    args_list = list(sys.argv[1:] if argv is None else argv)
    lang = prescan_lang(args_list)
    setup_streams()
    parser = build_parser(lang, with_commands=_wants_commands(args_list), only=command_named(args_list))
    args = parser.parse_args(args_list)
    args.lang = lang  # a sub-parser's default (None) may have overwritten a --lang given before the command
    handler = getattr(args, "handler", None)
    if handler is None:
        from wizard.cli import window

        return int(window.run(args, open_window))
    return run_guarded(lambda: int(handler(args)), lang)


def run_guarded(command: Callable[[], int], lang: str) -> int:
    """Run one command; Ctrl+C and a closed output pipe end it with one line (or none), never a
    traceback. The output is flushed here, so a pipe closed early is noticed here too."""
    try:
        status = command()
        sys.stdout.flush()
        return status
    except KeyboardInterrupt:
        stop_children()
        error(t("cli.interrupted", lang))
        return int(ExitStatus.CANCELLED)
    except OSError as exc:
        if not isinstance(exc, BrokenPipeError) and exc.errno != errno.EPIPE:
            raise
        _discard_stdout()
        return BROKEN_PIPE_STATUS


def _discard_stdout() -> None:
    """Point stdout at the null device: what is still buffered must not fail again at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass
