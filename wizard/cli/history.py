"""``gpu-setup-wizard history list|show N|diff [A B]``: earlier runs, and what changed between them.

Exit statuses: SUCCESS; BAD_INPUT for a history number that does not exist or too few runs to
compare.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from wizard.app import history as app_history
from wizard.cli.common import error, lang_of, print_json
from wizard.cli.exit_status import ExitStatus
from wizard.core.base.i18n import t

if TYPE_CHECKING:
    from wizard.app.history import HistoryEntry, HistoryStore


def _store(args: argparse.Namespace) -> HistoryStore:
    return app_history.open_store(getattr(args, "dir", None))


def _print_warnings(store: HistoryStore, lang: str) -> None:
    for notice in store.warnings:
        print(t("history.warning_prefix", lang) + " " + notice.text(lang), file=sys.stderr)


def _summary_line(entry: HistoryEntry, lang: str) -> str:
    s = entry.snapshot
    torch = s.torch.version if s.torch and s.torch.version else "-"
    gpus = ", ".join(g.name or "?" for g in s.gpus) or "-"
    return t("history.list.row", lang, number=entry.number, time=s.time.replace("T", " ")[:19],
             driver=s.driver_version or s.pending_driver_version or "-", cuda=s.cuda_version or "-",
             torch=torch, gpus=gpus, findings=len(s.findings))


def run_list(args: argparse.Namespace) -> int:
    """``history`` / ``history list``: one line per saved run."""
    lang = lang_of(args)
    store = _store(args)
    entries = store.entries()
    _print_warnings(store, lang)
    if getattr(args, "json", False):
        print_json({"schema": "gpu-setup-wizard/history@1.0", "dir": str(store.root),
                    "snapshots": [{"number": e.number, "file": e.path.name, **e.snapshot.to_json()} for e in entries],
                    "warnings": [n.text(lang) for n in store.warnings]})
        return ExitStatus.SUCCESS
    if not entries:
        print(t("history.none", lang))
        print(t("history.dir", lang, dir=store.root))
        return ExitStatus.SUCCESS
    print(t("history.dir", lang, dir=store.root))
    for entry in entries:
        print(_summary_line(entry, lang))
    return ExitStatus.SUCCESS


def _get(store: HistoryStore, number: int, lang: str) -> HistoryEntry | None:
    try:
        return store.get(number)
    except app_history.HistoryLookupError as exc:
        _print_warnings(store, lang)
        error(exc.text(lang))
        return None


def run_show(args: argparse.Namespace) -> int:
    """``history show [N]``: one saved run (the last by default)."""
    lang = lang_of(args)
    store = _store(args)
    entry = _get(store, getattr(args, "number", -1), lang)
    if entry is None:
        return ExitStatus.BAD_INPUT
    _print_warnings(store, lang)
    if getattr(args, "json", False):
        print_json({"number": entry.number, "file": entry.path.name, **entry.snapshot.to_json()})
        return ExitStatus.SUCCESS
    print("\n".join(format_snapshot(entry, lang)))
    return ExitStatus.SUCCESS


def format_snapshot(entry: HistoryEntry, lang: str) -> list[str]:
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
        available = s.torch.is_available if s.torch.is_available is not None else na
        out.append(f"  torch: {s.torch.version or na}  cuda {s.torch.cuda or na}  "
                   f"{t('history.show.available', lang)}: {available}")
    if s.env_path or s.python_version:
        out.append(f"  {t('history.show.env', lang)}: {s.env_path or na}  Python {s.python_version or na}")
    if s.findings:
        out.append("  " + t("history.show.findings", lang))
        out += [f"    [{t('diagnosis.severity.' + f.severity, lang)}] {f.as_finding().title(lang)} ({f.id})" for f in s.findings]
    if s.benchmark:
        out.append("  " + t("history.show.benchmark", lang))
        out += [f"    {name}: {b.value:g} {b.unit}" for name, b in sorted(s.benchmark.items())]
    return out


def run_diff(args: argparse.Namespace) -> int:
    """``history diff [A [B]]``: what changed between two runs (the last two by default)."""
    lang = lang_of(args)
    store = _store(args)
    numbers = list(getattr(args, "numbers", []) or [])
    if len(numbers) > 2:
        return error(t("history.diff_args", lang))
    entries = store.entries()
    _print_warnings(store, lang)
    if len(numbers) < 2 and len(entries) < 2 and not (len(numbers) == 1 and entries):
        return error(t("history.need_two", lang, count=len(entries)))
    a_number = numbers[0] if numbers else -2
    b_number = numbers[1] if len(numbers) == 2 else -1
    a, b = _get(store, a_number, lang), _get(store, b_number, lang)
    if a is None or b is None:
        return ExitStatus.BAD_INPUT
    diff = app_history.diff(a.snapshot, b.snapshot)
    if getattr(args, "json", False):
        doc = diff.to_json(lang)
        doc.update({"old_number": a.number, "new_number": b.number})
        print_json(doc)
    else:
        print(t("history.diff.numbers", lang, a=a.number, b=b.number))
        print("\n".join(diff.lines(lang)))
    return ExitStatus.SUCCESS


__all__ = ["run_list", "run_show", "run_diff", "format_snapshot"]
