"""Print the VRAM calibration table: saved-activation bytes measured in torch next to the estimate.

Usage (from the repository root)::

    python benchmarks/vram_calibration.py --python PATH/TO/venv/bin/python [--only resnet18,gpt2] [--json OUT]

PATH/TO/venv is a venv with ``torch==2.13.0`` (the CPU build is enough) and ``transformers``
(for the BERT/DistilBERT/GPT-2 rows; built from configs with random weights, offline). The
models, sizes and how bytes are counted are in tests/vram_measure.py and
tests/vram_measure_worker.py. ``--before FILE`` adds a column of earlier ratios (a --json file).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.vram_measure import CASES, compare, format_table, run_worker  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", required=True, help="a Python with torch (and transformers)")
    ap.add_argument("--only", default="", help="comma-separated catalogue ids")
    ap.add_argument("--json", default="", help="write the rows here as JSON")
    ap.add_argument("--before", default="", help="a --json file whose ratios become the 'before' column")
    args = ap.parse_args(argv)
    wanted = {s.strip() for s in args.only.split(",") if s.strip()}
    cases = tuple(c for c in CASES if not wanted or c.model in wanted)
    rows = compare(cases, run_worker(args.python, cases))
    before = None
    if args.before:
        doc = json.loads(Path(args.before).read_text(encoding="utf-8"))
        before = {(r["label"], r["batch"]): r["estimated"] / r["measured"] for r in doc}
    print("\n".join(format_table(rows, before)))
    if args.json:
        Path(args.json).write_text(json.dumps([r.__dict__ for r in rows], indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
