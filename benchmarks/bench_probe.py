"""The benchmark probe itself: how long the quick suite takes, and whether its GFLOP/s are right.

    .venv/bin/python benchmarks/bench_probe.py --torch-python PY [--rounds 3] [--out FILE]
    .venv/bin/python benchmarks/bench_probe.py --torch-python PY --accuracy-only

time -- ``PY wizard/probe/bench.py --suite quick`` from process start to its last line, as the
wizard runs it (torch's import included). Median of --rounds. Target: <= 8 s on this CPU.

accuracy -- the probe's CPU matmul GFLOP/s at each size of the quick sweep against
``torch.utils.benchmark.Timer(...).blocked_autorange()`` with the same thread count (the
Timer's default of one thread would under-report a CPU by its core count), the two timed
alternately in one process so that they see the same machine. Target: within 3 % at every size.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROBE = REPO / "wizard" / "probe" / "bench.py"

# Runs inside PY (stdlib + torch): the probe's own Bench.measure against torch.utils.benchmark.
ACCURACY = r'''
import json, sys
sys.path.insert(0, sys.argv[1])
import torch
import torch.utils.benchmark as tb
import _common as C
import bench as B

class Quiet(object):
    def __getattr__(self, name):
        return lambda *a, **k: None

args = B.parse_args(["--suite", "quick"])
probe = B.Bench(Quiet(), args, torch)
cpu = torch.device("cpu")
threads = torch.get_num_threads()
rows = []
for n in B.SUITES["quick"]["cpu_sweep"]:
    a = torch.randn(n, n); b = torch.randn(n, n); out = torch.empty(n, n)
    flops = 2.0 * n ** 3
    ours, theirs = [], []
    for _ in range(int(sys.argv[2])):
        stats = probe.measure(lambda: torch.matmul(a, b, out=out), cpu)
        ours.append(flops / stats["median_s"] / 1e9)
        timer = tb.Timer("torch.matmul(a, b, out=out)", globals={"torch": torch, "a": a, "b": b, "out": out},
                         num_threads=threads)
        m = timer.blocked_autorange(min_run_time=0.3)
        theirs.append(flops / m.median / 1e9)
    ours.sort(); theirs.sort()
    o, t = ours[len(ours) // 2], theirs[len(theirs) // 2]
    rows.append({"size": n, "probe_gflops": round(o, 2), "torch_benchmark_gflops": round(t, 2),
                 "ratio": round(o / t, 4)})
print(json.dumps({"threads": threads, "torch": torch.__version__, "rows": rows}))
'''


def quick_suite_seconds(python: str) -> tuple[float, dict]:
    start = time.monotonic()
    out = subprocess.run([python, str(PROBE), "--suite", "quick"], capture_output=True, text=True, timeout=600)
    wall = time.monotonic() - start
    events = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    done = [e for e in events if e.get("type") == "done"]
    if out.returncode != 0 or not done:
        raise RuntimeError(f"the probe failed (status {out.returncode}): {out.stderr[-600:]}")
    imports = [e for e in events if e.get("event") == "result" and e.get("type") == "facts"]
    return wall, {"events": len(events), "probe_duration_s": done[-1].get("duration_s"),
                  "results": sum(1 for e in events if e.get("type") == "measurement"),
                  "import_facts": len(imports)}


def accuracy(python: str, repeats: int) -> dict:
    out = subprocess.run([python, "-c", ACCURACY, str(PROBE.parent), str(repeats)], capture_output=True, text=True,
                         timeout=900, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-800:])
    result = json.loads(out.stdout.strip().splitlines()[-1])
    result["worst_deviation_percent"] = round(max(abs(r["ratio"] - 1) for r in result["rows"]) * 100, 2)
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--torch-python", default=os.environ.get("GSW_TEST_TORCH_PYTHON"), required=False)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=3, help="accuracy: alternating repeats per size (median)")
    ap.add_argument("--accuracy-only", action="store_true")
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    if not args.torch_python:
        ap.error("--torch-python (or GSW_TEST_TORCH_PYTHON): an interpreter with torch")
    result: dict = {"python": args.torch_python}
    if not args.accuracy_only:
        times = []
        for _ in range(args.rounds):
            wall, info = quick_suite_seconds(args.torch_python)
            times.append(wall)
            result["last_run"] = info
        result["quick_suite_s"] = [round(x, 2) for x in times]
        result["quick_suite_median_s"] = round(statistics.median(times), 2)
    result["accuracy"] = accuracy(args.torch_python, args.repeats)
    text = json.dumps(result)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
