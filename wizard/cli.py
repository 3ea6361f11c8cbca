"""``gpu-setup-wizard``: the wizard window, or the same engine headless.

Without a command it opens the Qt wizard (imported only then, so the headless commands work
on a server without a display and never load Qt). Commands:

- ``doctor``: detect this machine (or read a saved nvidia-smi output) and explain it.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence

from wizard import __version__
from wizard.core.i18n import LANGUAGES, detect_lang, set_language, t

EXIT_OK = 0
EXIT_BAD_INPUT = 2


def _prescan_lang(argv: Sequence[str]) -> str:
    """Pick the language before argparse builds its (translated) help."""
    for i, arg in enumerate(argv):
        if arg == "--lang" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--lang="):
            return arg.split("=", 1)[1]
    return detect_lang()


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--lang", choices=LANGUAGES, help=t("cli.lang.help"))
    parser = argparse.ArgumentParser(prog="gpu-setup-wizard", description=t("cli.description"),
                                     parents=[common])
    parser.add_argument("--version", action="version", version=f"gpu-setup-wizard {__version__}")
    parser.add_argument("--smoke-test", action="store_true", help=t("cli.smoke.help"))
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    doctor = sub.add_parser("doctor", parents=[common], help=t("cli.doctor.help"),
                            description=t("cli.doctor.help"))
    doctor.add_argument("--json", action="store_true", help=t("cli.json.help"))
    doctor.add_argument("--nvidia-smi-file", metavar="FILE", help=t("cli.smi_file.help"))
    doctor.add_argument("--include-private", action="store_true", help=t("cli.private.help"))
    doctor.set_defaults(handler=cmd_doctor)
    return parser


def _read_input(path: str) -> str:
    if path == "-":
        data = sys.stdin.buffer.read()
    else:
        with open(path, "rb") as fh:
            data = fh.read()
    from wizard.core.host import decode_output

    return decode_output(data)


def _error(message: str) -> int:
    print(f"gpu-setup-wizard: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def cmd_doctor(args: argparse.Namespace) -> int:
    from wizard.core.detect import UnreadableInput, detect, detection_from_smi_text
    from wizard.core.doctor import detection_to_json, format_text
    from wizard.core.host import RealHost
    from wizard.core.i18n import language
    from wizard.core.privacy import redactor_for

    host = RealHost()
    if args.nvidia_smi_file:
        try:
            text = _read_input(args.nvidia_smi_file)
        except OSError as exc:
            return _error(t("cli.error.cannot_read", path=args.nvidia_smi_file, error=exc.strerror or exc))
        if not text.strip():
            return _error(t("cli.error.empty"))
        try:
            detection = detection_from_smi_text(text)
        except UnreadableInput as exc:
            return _error(t("cli.error.unrecognised_smi", reason=str(exc)))
    else:
        detection = detect(host)
    redactor = None
    if not args.include_private:
        redactor = redactor_for(host.home(), host.environ, host.platform_facts().get("node"))
    if args.json:
        doc = detection_to_json(detection, language(), redactor)
        print(json.dumps(doc, ensure_ascii=False, indent=2))
    else:
        text = format_text(detection, language())
        print(redactor.redact_text(text) if redactor else text)
    return EXIT_OK


def run_gui(smoke_test: bool) -> int:
    try:
        from wizard.ui.app import run
    except ImportError as exc:  # Qt missing or its system libraries absent
        return _error(t("cli.error.no_gui", error=exc))
    return run(smoke_test=smoke_test)


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    set_language(_prescan_lang(args_list))
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")
    parser = build_parser()
    args = parser.parse_args(args_list)
    if args.lang:
        set_language(args.lang)
    handler = getattr(args, "handler", None)
    if handler is None:
        return run_gui(args.smoke_test)
    return handler(args)


if __name__ == "__main__":
    sys.exit(main())
