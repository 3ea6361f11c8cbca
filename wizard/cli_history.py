"""``gpu-setup-wizard history list|show N|diff [A B]``, and the pieces ``doctor`` uses for
``--explain FILE|-`` (recognise a pasted error text) and ``--compare-last`` (what changed since the
last saved run).

Kept out of :mod:`wizard.cli` so the history commands can grow without touching the main
parser: :func:`add_history_parser` adds the sub-command, and the two doctor helpers return
their findings or changes for the caller to print.

Exit codes: 0 done; 1 ``--explain`` recognised nothing (so a script can tell); 2 bad input
(unreadable or empty file, a history number that does not exist).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from typing import Any

from wizard.core.base.i18n import language, t

EXIT_OK = 0
EXIT_NOTHING_RECOGNISED = 1
EXIT_BAD_INPUT = 2


# ---------------------------------------------------------------------------------------------
# history
# ---------------------------------------------------------------------------------------------
def add_history_parser(subparsers: Any, common: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Add ``history`` with ``list``, ``show [N]`` and ``diff [A [B]]`` to ``subparsers``."""
    history = subparsers.add_parser("history", parents=[common], help=t("history.cli.help"),
                                    description=t("history.cli.help"))
    history.add_argument("--dir", metavar="DIR", help=t("history.cli.dir.help"))
    history.add_argument("--json", action="store_true", help=t("cli.json.help"))
    history.set_defaults(handler=cmd_history_list)
    sub = history.add_subparsers(dest="history_command", metavar="list|show|diff")
    for name, handler, help_key in (("list", cmd_history_list, "history.cli.list.help"),
                                    ("show", cmd_history_show, "history.cli.show.help"),
                                    ("diff", cmd_history_diff, "history.cli.diff.help")):
        p = sub.add_parser(name, parents=[common], help=t(help_key), description=t(help_key))
        p.add_argument("--dir", metavar="DIR", default=argparse.SUPPRESS, help=t("history.cli.dir.help"))
        p.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help=t("cli.json.help"))
        if name == "show":
            p.add_argument("number", nargs="?", type=int, default=-1, metavar="N", help=t("history.cli.number.help"))
        if name == "diff":
            p.add_argument("numbers", nargs="*", type=int, metavar="A B", help=t("history.cli.numbers.help"))
        p.set_defaults(handler=handler)
    return history


def _store(args: argparse.Namespace) -> Any:
    from wizard.core.history.store import HistoryStore

    return HistoryStore(getattr(args, "dir", None))


def _print_warnings(store: Any) -> None:
    for notice in store.warnings:
        print(t("history.warning_prefix") + " " + notice.text(language()), file=sys.stderr)


def _summary_line(entry: Any) -> str:
    s = entry.snapshot
    torch = s.torch.version if s.torch and s.torch.version else "-"
    gpus = ", ".join(g.name or "?" for g in s.gpus) or "-"
    return t("history.list.row", number=entry.number, time=s.time.replace("T", " ")[:19],
             driver=s.driver_version or s.pending_driver_version or "-", cuda=s.cuda_version or "-",
             torch=torch, gpus=gpus, findings=len(s.findings))


def cmd_history_list(args: argparse.Namespace) -> int:
    store = _store(args)
    entries = store.entries()
    _print_warnings(store)
    if getattr(args, "json", False):
        print(json.dumps({"schema": "gpu-setup-wizard/history@1.0", "dir": str(store.root),
                          "snapshots": [{"number": e.number, "file": e.path.name, **e.snapshot.to_json()}
                                        for e in entries],
                          "warnings": [n.text(language()) for n in store.warnings]},
                         ensure_ascii=False, indent=2))
        return EXIT_OK
    if not entries:
        print(t("history.none"))
        print(t("history.dir", dir=store.root))
        return EXIT_OK
    print(t("history.dir", dir=store.root))
    for entry in entries:
        print(_summary_line(entry))
    return EXIT_OK


def _get(store: Any, number: int) -> Any:
    try:
        return store.get(number)
    except IndexError as exc:
        _print_warnings(store)
        print(f"gpu-setup-wizard: {exc}", file=sys.stderr)
        return None


def cmd_history_show(args: argparse.Namespace) -> int:
    store = _store(args)
    entry = _get(store, getattr(args, "number", -1))
    if entry is None:
        return EXIT_BAD_INPUT
    _print_warnings(store)
    if getattr(args, "json", False):
        print(json.dumps({"number": entry.number, "file": entry.path.name, **entry.snapshot.to_json()},
                         ensure_ascii=False, indent=2))
        return EXIT_OK
    print("\n".join(format_snapshot(entry, language())))
    return EXIT_OK


def format_snapshot(entry: Any, lang: str | None = None) -> list[str]:
    s = entry.snapshot
    na = t("common.na", lang)
    out = [t("history.show.heading", lang, number=entry.number, time=s.time),
           f"  {t('history.show.os', lang)}: {s.os_pretty or s.os}" + (f" [{s.os_build}]" if s.os_build else "")
           + (f" (WSL{s.wsl_version or ''})" if s.is_wsl else ""),
           f"  {t('history.show.driver', lang)}: {s.driver_version or s.pending_driver_version or na}"
           f"  ({s.nvidia_status})   {t('history.show.cuda', lang)}: {s.cuda_version or na}"]
    for g in s.gpus:
        out.append(f"  GPU {g.index}: {g.name or na}  cc {g.compute_capability or na}  {g.uuid or ''}".rstrip())
    if s.torch is not None:
        out.append(f"  torch: {s.torch.version or na}  cuda {s.torch.cuda or na}  "
                   f"{t('history.show.available', lang)}: {s.torch.is_available if s.torch.is_available is not None else na}")
    if s.env_path or s.python_version:
        out.append(f"  {t('history.show.env', lang)}: {s.env_path or na}  Python {s.python_version or na}")
    if s.findings:
        out.append("  " + t("history.show.findings", lang))
        out += [f"    [{t('severity.' + f.severity, lang)}] {f.as_finding().title(lang)} ({f.id})" for f in s.findings]
    if s.benchmark:
        out.append("  " + t("history.show.benchmark", lang))
        out += [f"    {name}: {b.value:g} {b.unit}" for name, b in sorted(s.benchmark.items())]
    return out


def cmd_history_diff(args: argparse.Namespace) -> int:
    from wizard.core.history.diff import diff_snapshots

    store = _store(args)
    numbers = list(getattr(args, "numbers", []) or [])
    if len(numbers) > 2:
        print(f"gpu-setup-wizard: {t('history.diff_args')}", file=sys.stderr)
        return EXIT_BAD_INPUT
    entries = store.entries()
    _print_warnings(store)
    if len(numbers) < 2 and len(entries) < 2 and not (len(numbers) == 1 and entries):
        print(f"gpu-setup-wizard: {t('history.need_two', count=len(entries))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    a_number = numbers[0] if numbers else -2
    b_number = numbers[1] if len(numbers) == 2 else -1
    a, b = _get(store, a_number), _get(store, b_number)
    if a is None or b is None:
        return EXIT_BAD_INPUT
    diff = diff_snapshots(a.snapshot, b.snapshot)
    if getattr(args, "json", False):
        doc = diff.to_json(language())
        doc.update({"old_number": a.number, "new_number": b.number})
        print(json.dumps(doc, ensure_ascii=False, indent=2))
    else:
        print(t("history.diff.numbers", a=a.number, b=b.number))
        print("\n".join(diff.lines(language())))
    return EXIT_OK


# ---------------------------------------------------------------------------------------------
# doctor --explain FILE|-
# ---------------------------------------------------------------------------------------------
def read_pasted(path: str) -> str:
    """The text of FILE, or of stdin for '-', decoded as a Windows console or editor saved it
    (UTF-16 from PowerShell, cp949 from a Korean console). Raises OSError."""
    from wizard.core.diagnosis.explain import decode_pasted

    if path == "-":
        return decode_pasted(sys.stdin.buffer.read())
    with open(path, "rb") as fh:
        return decode_pasted(fh.read())


def explain_text(text: str, lang: str | None = None) -> tuple[list[Any], int]:
    """The findings a pasted text shows, and the exit code: 0 recognised, 1 nothing, 2 empty."""
    from wizard.core.diagnosis.explain import recognise

    if not (text or "").strip():
        return [], EXIT_BAD_INPUT
    findings = recognise(text)
    return findings, EXIT_OK if findings else EXIT_NOTHING_RECOGNISED


def format_explain(findings: list[Any], lang: str | None = None) -> str:
    from wizard.core.diagnosis.rules import format_diagnoses

    if not findings:
        return t("explain.nothing", lang)
    return "\n".join([t("explain.heading", lang), ""] + format_diagnoses(findings, lang)).rstrip()


def explain_json(findings: list[Any], lang: str | None = None) -> dict[str, Any]:
    from wizard.core.diagnosis.rules import findings_to_json

    return {"schema": "gpu-setup-wizard/explain@1.0", "findings": findings_to_json(findings, lang)}


def cmd_explain(path: str, lang: str | None = None, as_json: bool = False) -> int:
    """All of ``doctor --explain FILE|-``: read, recognise, print. Returns the exit code."""
    try:
        text = read_pasted(path)
    except OSError as exc:
        print("gpu-setup-wizard: " + t("cli.error.cannot_read", path=path, error=exc.strerror or exc), file=sys.stderr)
        return EXIT_BAD_INPUT
    findings, code = explain_text(text, lang)
    if code == EXIT_BAD_INPUT:
        print("gpu-setup-wizard: " + t("cli.error.empty"), file=sys.stderr)
        return code
    if as_json:
        print(json.dumps(explain_json(findings, lang), ensure_ascii=False, indent=2))
    else:
        print(format_explain(findings, lang))
    return code


# ---------------------------------------------------------------------------------------------
# doctor --compare-last
# ---------------------------------------------------------------------------------------------
@dataclass
class CompareOutcome:
    """What ``--compare-last`` prints (``lines``) or adds to the JSON (``doc``)."""

    lines: list[str]
    doc: dict[str, Any]
    diff: Any = None
    saved: Any = None  # SaveResult when asked to save this run
    warnings: list[str] = field(default_factory=list)


def compare_last(detection: Any, lang: str | None = None, *, store: Any = None, save: bool = False) -> CompareOutcome:
    """This machine (``detection``) against the last saved run. With ``save``, this run is saved
    afterwards (so the next comparison starts from it). Never raises for history problems."""
    from wizard.core.diagnosis.rules import diagnose
    from wizard.core.history.store import HistoryStore, build_snapshot
    from wizard.core.history.diff import diff_snapshots

    store = store or HistoryStore()
    current = build_snapshot(detection, findings=diagnose(detection))
    last = store.last()
    warnings = [n.text(lang) for n in store.warnings]
    saved = store.save(current) if save else None
    if saved is not None and not saved.ok:
        warnings.append(saved.error.text(lang))
    if last is None:
        lines = [t("compare.no_previous", lang, dir=store.root)]
        doc: dict[str, Any] = {"schema": "gpu-setup-wizard/diff@1.0", "old": None, "new": current.time,
                               "significant": False, "changes": []}
        return CompareOutcome(lines, doc, None, saved, warnings)
    diff = diff_snapshots(last.snapshot, current)
    return CompareOutcome(diff.lines(lang), diff.to_json(lang), diff, saved, warnings)


__all__ = [
    "add_history_parser", "cmd_history_list", "cmd_history_show", "cmd_history_diff", "explain_text",
    "format_explain", "explain_json", "cmd_explain", "read_pasted", "compare_last", "CompareOutcome",
    "EXIT_OK", "EXIT_NOTHING_RECOGNISED", "EXIT_BAD_INPUT",
]
