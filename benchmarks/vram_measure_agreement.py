"""Agreement: the VRAM measured on the meta device against real saved-tensor counting on the CPU.

``python benchmarks/vram_measure_agreement.py --python /path/to/python [--batches 1,8]`` where that
Python has torch (torchvision and transformers for those rows). For models that are not in the
wizard's catalogue (two CNNs, a 2-layer LSTM, an encoder-decoder transformer), at each batch, it
runs the measuring probe (wizard/probe/vram_measure.py, ``--device meta``: no real tensor) and the
real count (benchmarks/vram_measure_cpu.py: real tensors on the CPU, counted by the tests' worker),
and prints a table of activation MiB and their ratio; the target is within 10 %. Weights, gradients
and optimizer state are parameter bytes and agree by construction; the table is about activations.

The LSTM is also counted with oneDNN off: torch's CPU LSTM runs oneDNN's fused kernel, which keeps
its own workspace for backward, where the meta device (and the generic kernels) keep the gates of
each step; a CUDA GPU runs cuDNN's kernel with a reserve of its own, which neither row is.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROBE = ROOT / "wizard" / "probe" / "vram_measure.py"
CPU = ROOT / "benchmarks" / "vram_measure_cpu.py"

LSTM_FILE = '''
import torch
from torch import nn


class TwoLayerLSTM(nn.Module):
    """A sentence classifier: embedding, 2-layer LSTM (hidden 512), a linear head on the last step."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10000, 256)
        self.lstm = nn.LSTM(256, 512, num_layers=2, batch_first=True)
        self.fc = nn.Linear(512, 10)

    def forward(self, x):
        out, _ = self.lstm(self.emb(x))
        return self.fc(out[:, -1])


def make(batch):
    return TwoLayerLSTM(), (torch.zeros(batch, 128, dtype=torch.long),)


class Seq2Seq(nn.Module):
    """torch.nn.Transformer (d_model 256, 3+3 layers) between two embeddings, and an LM head."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(8000, 256)
        self.tf = nn.Transformer(256, 4, 3, 3, 1024, dropout=0.0, batch_first=True)
        self.head = nn.Linear(256, 8000)

    def forward(self, src, tgt):
        return self.head(self.tf(self.emb(src), self.emb(tgt)))


def make_transformer(batch):
    return Seq2Seq(), (torch.zeros(batch, 64, dtype=torch.long), torch.zeros(batch, 64, dtype=torch.long))
'''

# (label, SPEC, input shape or None, extra args of the CPU count)
CASES = [
    ("mobilenet_v3_large (torchvision)", "torchvision:mobilenet_v3_large", None, []),
    ("convnext_tiny (torchvision)", "torchvision:convnext_tiny", None, []),
    ("2-layer LSTM, 128 steps", "{file}:make", None, []),
    ("2-layer LSTM, oneDNN off on the CPU", "{file}:make", None, ["--no-mkldnn"]),
    ("nn.Transformer enc-dec, 64 tokens", "{file}:make_transformer", None, []),
    ("t5-small (hf:t5 default config), 128 tok", "hf:t5", "128", []),
]


def _env() -> dict[str, str]:
    return dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TRANSFORMERS_VERBOSITY="error",
                OMP_NUM_THREADS="2", PYTHONUTF8="1")


def meta_rows(python: str, spec: str, batch: int, shape: str | None) -> tuple[dict | None, str, float]:
    argv = [python, "-u", str(PROBE), "--spec", spec, "--batch", str(batch)] + (["--input", shape] if shape else [])
    start = time.monotonic()
    res = subprocess.run(argv, capture_output=True, text=True, timeout=900, env=_env(), check=False)
    took = time.monotonic() - start
    for line in res.stdout.splitlines():
        doc = json.loads(line)
        if doc.get("type") == "vram_measure":
            return doc["rows"][0], "", took
        if doc.get("event") == "error":
            return None, doc.get("message", ""), took
    return None, res.stderr[-300:], took


def cpu_count(python: str, spec: str, batch: int, shape: str | None, extra: list[str],
              cuda: bool = False) -> dict | None:
    argv = [python, str(CPU), spec, str(batch)] + ([shape] if shape else []) + extra + (["--cuda"] if cuda else [])
    res = subprocess.run(argv, capture_output=True, text=True, timeout=1800, env=_env(), check=False)
    if res.returncode != 0:
        print(f"  CPU count failed for {spec} batch {batch}: {res.stderr[-400:]}", file=sys.stderr)
        return None
    return json.loads(res.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", required=True, help="a Python with torch (and torchvision, transformers)")
    ap.add_argument("--batches", default="1,8")
    ap.add_argument("--only", default="", help="comma list of words: run the cases whose label has one")
    ap.add_argument("--cuda", action="store_true",
                    help="count on the GPU (a CUDA torch): its own kernels, and the real step's "
                         "torch.cuda.max_memory_allocated against the measured total")
    ap.add_argument("--json", type=Path, help="also write the rows to this file")
    args = ap.parse_args()
    rows: list[dict] = []
    batches = [int(b) for b in args.batches.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        model_file = Path(tmp) / "student_models.py"
        model_file.write_text(LSTM_FILE, encoding="utf-8")
        where = "GPU" if args.cuda else "CPU"
        head = f"{'model':<42} {'batch':>5} {'meta MiB':>10} {where + ' MiB':>10} {'ratio':>6} {'meta s':>7}"
        if args.cuda:
            head += f" {'meta total':>10} {'peak':>10} {'ratio':>6}"
        print(head)
        worst = 0.0
        for label, spec, shape, extra in CASES:
            if args.only and not any(w in label.lower() for w in args.only.lower().split(",")):
                continue
            if args.cuda and extra:  # the oneDNN-off row is a CPU question
                continue
            from_file = "{file}" in spec
            spec = spec.format(file=model_file)
            for batch in batches:
                meta, why, took = meta_rows(args.python, spec, batch, shape)
                real = cpu_count(args.python, spec, batch, shape, extra, cuda=args.cuda)
                if meta is None or real is None:
                    print(f"{label:<42} {batch:>5} {'-':>10} {'-':>10} {'-':>6} {took:>7.1f}  {why[:80]}")
                    continue
                ratio = meta["activations_bytes"] / real["saved_bytes"]
                if not extra:
                    worst = max(worst, abs(ratio - 1))
                line = (f"{label:<42} {batch:>5} {meta['activations_bytes'] / 2**20:>10.2f} "
                        f"{real['saved_bytes'] / 2**20:>10.2f} {ratio:>6.3f} {took:>7.1f}")
                row = {"model": label, "spec": label if from_file else spec, "batch": batch,
                       "meta_activations_bytes": meta["activations_bytes"], "saved_bytes": real["saved_bytes"],
                       "ratio": round(ratio, 4), "device": real.get("device")}
                if args.cuda and "peak_bytes" in real:
                    total = sum(meta[k] for k in ("weights_bytes", "gradients_bytes", "optimizer_bytes",
                                                  "activations_bytes"))
                    line += (f" {total / 2**20:>10.2f} {real['peak_bytes'] / 2**20:>10.2f} "
                             f"{total / real['peak_bytes']:>6.3f}")
                    row.update(meta_total_bytes=total, peak_bytes=real["peak_bytes"], cudnn=real.get("cudnn"))
                rows.append(row)
                print(line, flush=True)
        print(f"largest difference ({'the GPU' if args.cuda else 'default CPU'} kernels): {worst * 100:.1f} %")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
