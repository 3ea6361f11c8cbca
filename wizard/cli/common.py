"""What every command shares: the streams, the language, error lines, reading an input file.

The language is not global: :func:`wizard.cli.entry.main` decides it once (``--lang``, else the
environment) and stores it on the parsed arguments, and each command passes it on to whatever
renders text. A command called with arguments from another parser (a test's) falls back to the
environment's language.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING, Any, Callable, Protocol, TypeVar

from wizard.cli.exit_status import ExitStatus
from wizard.core.base.i18n import detect_lang, normalise_lang

if TYPE_CHECKING:
    import threading

PROG = "gpu-setup-wizard"


def setup_streams() -> None:
    """The one stream setup of every command, done before anything is printed.

    A Windows console gets UTF-8 (Hangul shows whatever the console's code page, also with
    PYTHONLEGACYWINDOWSSTDIO). A redirected stream keeps the locale's encoding, which is what
    PowerShell and cmd decode a pipe with. And no character ever crashes a run (a Hangul path
    on a cp1252 console): one that cannot be written is replaced, the rest is printed.
    """
    for stream in (sys.stdout, sys.stderr):
        if not hasattr(stream, "reconfigure"):
            continue  # replaced by a test or an embedding host: leave it as it is
        if sys.platform == "win32" and stream.isatty():
            stream.reconfigure(encoding="utf-8", errors="replace")
        else:
            stream.reconfigure(errors="replace")


def lang_of(args: argparse.Namespace) -> str:
    """The language this command prints in ('ko' or 'en')."""
    lang = getattr(args, "lang", None)
    return normalise_lang(lang) if lang else detect_lang()


def say(text: str) -> None:
    """A progress or status line: stderr, so stdout stays clean for ``--json``."""
    print(text, file=sys.stderr, flush=True)


def error(message: str, status: ExitStatus = ExitStatus.BAD_INPUT) -> ExitStatus:
    """Print ``gpu-setup-wizard: message`` on stderr and return ``status`` for the caller to return."""
    print(f"{PROG}: {message}", file=sys.stderr)
    return status


def print_json(doc: Any) -> None:
    """``--json`` output: readable UTF-8 where stdout is UTF-8; elsewhere (a redirected stream on
    Korean Windows is cp949) every non-ASCII character as a JSON escape. Why: JSON is UTF-8 (RFC
    8259), and pure-ASCII JSON is at once UTF-8 and cp949, so ``> out.json`` from cmd, a Python or
    jq reader, and PowerShell 5.1 (which decodes a program's output with the console's code page
    before ``ConvertFrom-Json`` or ``> file``) all read the same values; raw UTF-8 bytes would be
    garbled by PowerShell 5.1, raw cp949 bytes by every UTF-8 reader."""
    encoding = (getattr(sys.stdout, "encoding", None) or "").lower().replace("-", "").replace("_", "")
    print(json.dumps(doc, ensure_ascii=encoding not in ("utf8", "utf8sig"), indent=2))


def read_input(path: str, lang: str | None = None) -> str:
    """FILE, or stdin for '-', decoded as the console or editor that saved it wrote it (UTF-16
    from PowerShell, a UTF-8 BOM, cp949), at most a few MB: a longer input is cut, and a line on
    stderr says so. Raises OSError."""
    from wizard.core.base.user_input import read_user_text

    read = read_user_text(path)
    notice = read.cut_notice("stdin" if path == "-" else os.path.basename(path))
    if notice is not None:
        say(notice.text(lang or detect_lang()))
    return read.text


def target_python(path: str) -> str | None:
    """The interpreter ``--python`` names: a file (``.exe`` optional), or a name on PATH."""
    import shutil

    if os.path.isfile(path) or os.path.isfile(path + ".exe"):
        return path
    return shutil.which(path)


def progress_printer(progress_text: Callable[[dict, str], str], lang: str) -> Callable[[dict], None]:
    """A probe's progress events as one stderr line each, in ``lang``."""

    def on_event(event: dict) -> None:
        if event.get("event") == "progress":
            print("… " + progress_text(event, lang), file=sys.stderr, flush=True)

    return on_event


class ProbeReport(Protocol):
    """What a probe use case answers: a report that prints as JSON or as text."""

    def to_json(self, lang: str) -> dict[str, Any]: ...

    def to_text(self, lang: str) -> str: ...


R = TypeVar("R", bound=ProbeReport)


def run_probe_command(run: Callable[[Callable[[dict], None], threading.Event], R],
                      progress_text: Callable[[dict, str], str], as_json: bool, lang: str) -> R | None:
    """Run a probe use case (``run(on_event, cancel)``) with progress on stderr, and print its
    report as JSON or text. Ctrl+C cancels the probe (its process tree is stopped) and gives
    ``None``; otherwise the report, for the caller to choose the exit status."""
    import threading

    cancel = threading.Event()
    try:
        report = run(progress_printer(progress_text, lang), cancel)
    except KeyboardInterrupt:
        cancel.set()
        return None
    if as_json:
        print_json(report.to_json(lang))
    else:
        print(report.to_text(lang))
    return report


__all__ = ["PROG", "setup_streams", "lang_of", "say", "error", "print_json", "read_input", "target_python",
           "progress_printer", "run_probe_command"]
