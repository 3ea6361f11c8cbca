"""``gpu-setup-wizard doctor``: detect this machine (or read a saved nvidia-smi output) and explain it.

Two options reach into later stages: ``--explain FILE|-`` recognises a pasted error text
(:func:`cmd_explain`), and ``--compare-last`` compares this run with the last saved one and saves
it (:func:`wizard.app.history.compare_last`), so a student runs it before and after a driver update.

Exit statuses: SUCCESS; BAD_INPUT for an unreadable or empty file; ``--explain`` returns
NOTHING_RECOGNISED when it recognised nothing, so a script can tell.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from wizard.cli.common import error, lang_of, print_json, read_input
from wizard.cli.exit_status import ExitStatus
from wizard.core.base.i18n import t

if TYPE_CHECKING:
    from wizard.app.detect import Detection
    from wizard.app.explain import Diagnosis


def run(args: argparse.Namespace) -> int:
    """``doctor``: detection, as text or ``--json``; private values masked unless asked."""
    from wizard.app import detect as app_detect
    from wizard.app import history as app_history
    from wizard.cli.environment import current_host

    lang = lang_of(args)
    if args.explain:
        return cmd_explain(args.explain, lang, as_json=args.json, python=getattr(args, "python", None))
    host = current_host()
    detection = _read_smi_file(args.nvidia_smi_file, lang) if args.nvidia_smi_file else app_detect.compute(host)
    if isinstance(detection, ExitStatus):
        return detection
    redactor = None if args.include_private else app_detect.redactor(host)
    compared = None
    if args.compare_last and not args.nvidia_smi_file:  # a saved file is another machine: nothing to compare
        compared = app_history.compare_last(detection, lang, save=True)
        for warning in compared.warnings:
            print(warning, file=sys.stderr)
    if args.json:
        doc = app_detect.detection_to_json(detection, lang, redactor)
        if detection.timings:  # ms per part: where a slow detection went (issue 17)
            doc["timings"] = {**detection.timings, "since_start": _since_start_ms()}
        if compared is not None:
            doc["changes"] = redactor.redact(compared.doc) if redactor else compared.doc
        print_json(doc)
    else:
        text = app_detect.format_text(detection, lang)
        if compared is not None:
            text += "\n\n" + "\n".join(compared.lines)
        print(redactor.redact_text(text) if redactor else text)
    return ExitStatus.SUCCESS


def _since_start_ms() -> int | None:
    """Milliseconds since this process started, interpreter start-up and imports included (the OS's
    clock for the process, not psutil's rounded boot time); None where the OS does not say."""
    try:
        with open("/proc/self/stat", encoding="ascii") as fh:
            start_ticks = int(fh.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime", encoding="ascii") as fh:
            uptime = float(fh.read().split()[0])
        import os

        return int(round((uptime - start_ticks / os.sysconf("SC_CLK_TCK")) * 1000))
    except (OSError, ValueError, IndexError, AttributeError):  # not Linux: no /proc
        return None


def _read_smi_file(path: str, lang: str) -> Detection | ExitStatus:
    """The detection a saved nvidia-smi output describes, or the exit status after an error line."""
    from wizard.app import detect as app_detect

    try:
        text = read_input(path, lang)
    except OSError as exc:
        return error(t("cli.error.cannot_read", lang, path=path, error=exc.strerror or exc))
    if not text.strip():
        return error(t("cli.error.empty", lang))
    try:
        return app_detect.from_smi_text(text)
    except app_detect.UnreadableInput as exc:
        return error(t("cli.error.unrecognised_smi", lang, reason=str(exc)))


# ---------------------------------------------------------------------------------------------
# doctor --explain FILE|-
# ---------------------------------------------------------------------------------------------
def read_pasted(path: str, lang: str | None = None) -> str:
    """The text of FILE, or of stdin for '-', decoded as a Windows console or editor saved it
    (UTF-16 from PowerShell, cp949 from a Korean console), at most a few MB. Raises OSError."""
    return read_input(path, lang)


def explain_text(text: str, lang: str | None = None, python: str | None = None) -> tuple[list[Diagnosis], ExitStatus]:
    """The findings a pasted text shows, and the exit status: SUCCESS, NOTHING_RECOGNISED, or
    BAD_INPUT for an empty text. ``python``: an environment to read the machine's side from
    (raises ContextError when it cannot be asked)."""
    from wizard.app.explain import recognise, recognise_in_environment
    from wizard.cli.environment import current_host

    if not (text or "").strip():
        return [], ExitStatus.BAD_INPUT
    findings = recognise_in_environment(text, python, current_host()) if python else recognise(text)
    return findings, ExitStatus.SUCCESS if findings else ExitStatus.NOTHING_RECOGNISED


def format_explain(findings: list[Diagnosis], lang: str) -> str:
    from wizard.app.explain import format_findings

    return format_findings(findings, lang)


def explain_json(findings: list[Diagnosis], lang: str) -> dict[str, Any]:
    from wizard.app.explain import findings_json

    return findings_json(findings, lang)


def cmd_explain(path: str, lang: str, as_json: bool = False, python: str | None = None) -> ExitStatus:
    """All of ``doctor --explain FILE|- [--python ENV]``: read, recognise (with what ENV shows),
    print. Returns the exit status."""
    from wizard.app.explain import ContextError

    try:
        text = read_pasted(path, lang)
    except OSError as exc:
        return error(t("cli.error.cannot_read", lang, path=path, error=exc.strerror or exc))
    try:
        findings, status = explain_text(text, lang, python)
    except ContextError:
        return error(t("diagnosis.explain.python.unusable", lang, path=python))
    if status == ExitStatus.BAD_INPUT:
        return error(t("cli.error.empty", lang))
    if as_json:
        print_json(explain_json(findings, lang))
    else:
        print(format_explain(findings, lang))
    return status


__all__ = ["run", "read_pasted", "explain_text", "format_explain", "explain_json", "cmd_explain"]
