"""``main()``: the language, the streams and the parser, set up once for every command.

The order matters: the language is read from the command line first (``--lang`` may come after
the command) so that argparse's help is built in it; the streams are set up before anything is
printed; then the parsed arguments carry the language to the command, which passes it on to
whatever renders text (there is no process-wide current language).
"""

from __future__ import annotations

import sys
from typing import Sequence

from wizard.cli import window
from wizard.cli.common import setup_streams
from wizard.cli.parser import build_parser, prescan_lang


def _wants_commands(args_list: list[str]) -> bool:
    """A command or ``--help`` was asked for; otherwise the window opens, and the parser need
    not know every command's options."""
    positional = [a for i, a in enumerate(args_list)
                  if not a.startswith("-") and not (i and args_list[i - 1] == "--lang")]
    return bool(positional) or any(a in ("-h", "--help") for a in args_list)


def main(argv: Sequence[str] | None = None, open_window: window.WindowLauncher | None = None) -> int:
    """The ``gpu-setup-wizard`` command (``python -m wizard`` too). Returns the exit status.

    ``open_window`` opens the Qt wizard when no command is given; :mod:`wizard.__main__` passes
    it, so this package never imports the window itself.
    """
    args_list = list(sys.argv[1:] if argv is None else argv)
    lang = prescan_lang(args_list)
    setup_streams()
    parser = build_parser(lang, with_commands=_wants_commands(args_list))
    args = parser.parse_args(args_list)
    args.lang = lang  # a sub-parser's default (None) may have overwritten a --lang given before the command
    handler = getattr(args, "handler", None)
    if handler is None:
        return int(window.run(args, open_window))
    return int(handler(args))
