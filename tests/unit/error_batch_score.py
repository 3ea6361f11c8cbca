"""Score a batch of real error texts (tests/data/errors, index.json 'batch') per family:
recognised (the most severe finding is the family), wrong (another finding), none (no error or
warning finding at all).

Why a script of its own: the discipline for a new batch is to score it with the rules as they are
BEFORE writing rules for it, write that first-try score down (``--record-first-run`` stores each
text's result in index.json as ``first_run``), and report the held-out part (``held_out``: chosen
before any rule was written for the batch) separately from the part the rules were written from.

    python -m tests.unit.error_batch_score students-1 [--record-first-run]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

from wizard.core.base.user_input import decode_user_bytes
from wizard.core.diagnosis.explain import recognise

ERRORS = Path(__file__).resolve().parents[1] / "data" / "errors"
INDEX = ERRORS / "index.json"
NONE = "none"


def top_finding(entry: dict) -> str:
    """The most severe error or warning the explainer gives the text ('none' when it gives none)."""
    text = decode_user_bytes((ERRORS / entry["file"]).read_bytes())
    problems = [f.id for f in recognise(text) if f.severity != "info"]
    return problems[0] if problems else NONE


def verdict(family: str, top: str) -> str:
    if top == family:
        return "recognised"
    return "none" if top == NONE else "wrong"


def score(entries: list[dict]) -> dict[str, dict[str, int]]:
    table: dict[str, dict[str, int]] = defaultdict(lambda: {"recognised": 0, "wrong": 0, "none": 0})
    for e in entries:
        table[e["family"]][verdict(e["family"], top_finding(e))] += 1
    return dict(table)


def render(title: str, table: dict[str, dict[str, int]]) -> str:
    rows = [title, "| family | texts | recognised | wrong | none |", "|---|---|---|---|---|"]
    total = {"recognised": 0, "wrong": 0, "none": 0}
    for family in sorted(table):
        counts = table[family]
        for k in total:
            total[k] += counts[k]
        rows.append(f"| {family} | {sum(counts.values())} | {counts['recognised']} | {counts['wrong']} | "
                     f"{counts['none']} |")
    n = sum(total.values())
    rows.append(f"| all | {n} | {total['recognised']} | {total['wrong']} | {total['none']} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("batch")
    parser.add_argument("--record-first-run", action="store_true",
                        help="store each text's current result as its first_run (only where none is stored)")
    args = parser.parse_args(argv)
    doc = json.loads(INDEX.read_text(encoding="utf-8"))
    entries = [e for e in doc["errors"] if e.get("batch") == args.batch]
    if not entries:
        print(f"no texts in batch {args.batch!r}", file=sys.stderr)
        return 2
    print(render(f"Batch {args.batch}, all texts", score(entries)))
    print()
    print(render("Rules written from (not held out)", score([e for e in entries if not e.get("held_out")])))
    print()
    print(render("Held out", score([e for e in entries if e.get("held_out")])))
    wrong = [(e["file"], e["family"], top_finding(e)) for e in entries]
    wrong = [w for w in wrong if w[2] not in (w[1], NONE)]
    if wrong:
        print("\nWrong findings:")
        for name, family, top in wrong:
            print(f"- {name}: expected {family}, got {top}")
    if args.record_first_run:
        for e in entries:
            e.setdefault("first_run", top_finding(e))
        tmp = INDEX.with_suffix(".tmp")
        tmp.write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        tmp.replace(INDEX)
    return 0


if __name__ == "__main__":
    sys.exit(main())
