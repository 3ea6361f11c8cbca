"""Real peak GPU memory of the VRAM catalogue's small models next to the wizard's estimate.

Two steps, because the torch that measures is the student's (a CUDA build, perhaps without the
wizard's dependencies) and the estimate is the wizard's own code:

    # 1. in the wizard's Python: the specs (from tests/vram_measure.py) to measure
    python benchmarks/gpu_check_memory.py specs OUT/specs.json [--only resnet18,gpt2]
    # 2. in the torch Python: measure (cuda: torch.cuda.max_memory_allocated; cpu: see below)
    TORCH_PY benchmarks/gpu_check_memory.py measure OUT/specs.json OUT/measured.json [--device cuda]
    # 3. in the wizard's Python: the table, estimate next to measurement
    python benchmarks/gpu_check_memory.py compare OUT/measured.json OUT/table.md OUT/table.json

What is measured, per model and batch, fp32 weights as the catalogue rows assume:
* inference: ``model.eval()`` under ``torch.no_grad()``, one forward; peak allocated bytes.
* training: one step of forward, backward and AdamW ``step()``; peak allocated bytes (weights,
  gradients, both Adam moments, saved activations, temporaries). The CUDA context itself is not
  in ``max_memory_allocated`` and the estimate's context reserve is left out of the comparison.
On the CPU there is no allocator peak: the CPU path records the weights' bytes and the bytes
autograd saves (tests/vram_measure_worker.saved_bytes), marked ``"method": "cpu-saved-tensors"``,
so the script can be exercised anywhere; only ``cuda`` rows are the real figure.
A model whose library is missing (transformers for BERT/GPT-2) is a row with ``"skipped"``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


# --------------------------------------------------------------------------------------------
# Step 1 and 3: the wizard's side
# --------------------------------------------------------------------------------------------
def write_specs(out: Path, only: set[str]) -> int:
    from tests.vram_measure import CASES

    specs = [dict(c.spec, mode=c.mode) for c in CASES if (not only or c.model in only)]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(specs, indent=1), encoding="utf-8")
    return len(specs)


def _estimate_total(spec: dict[str, Any], batch: int, mode: str, part: str = "total") -> int:
    """The estimate's total bytes (or, with ``part="saved"``, the activations autograd saves)."""
    from wizard.core.vram.estimate import estimate

    kw: dict[str, Any] = {"context": spec["seq"]} if spec.get("seq") else {"image_size": spec["image_size"]}
    if mode == "lora":
        kw.update(lora_rank=spec.get("lora_rank", 8))
    est = estimate(spec["name"], mode=mode, precision="fp32", batch=batch, optimizer="adamw",
                   dropout=spec.get("dropout", True), **kw)
    return int(est.total_bytes if part == "total" else est.activations_saved_bytes)


def compare(measured: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for m in measured:
        for r in m.get("rows", []):
            if r.get("skipped"):
                rows.append({"model": m["name"], "batch": r.get("batch"), "skipped": r["skipped"]})
                continue
            mode = "lora" if m.get("mode") == "lora" else "train"
            row = {"model": m["name"] + (" (LoRA)" if mode == "lora" else ""), "batch": r["batch"],
                   "method": m["method"], "device": m.get("device_name", m["device"])}
            for kind, key, est_mode in (("train", "train_peak_bytes", mode), ("inference", "inference_peak_bytes",
                                                                               "inference")):
                if r.get(key) is None or (kind == "inference" and mode == "lora"):
                    continue
                est = _estimate_total(m["spec"], r["batch"], est_mode)
                row[f"{kind}_measured"] = r[key]
                row[f"{kind}_estimated"] = est
                row[f"{kind}_ratio"] = round(est / r[key], 3) if r[key] else None
            if r.get("saved_bytes") is not None:
                est = _estimate_total(m["spec"], r["batch"], mode, part="saved")
                row.update(saved_measured=r["saved_bytes"], saved_estimated=est,
                           saved_ratio=round(est / r["saved_bytes"], 3) if r["saved_bytes"] else None)
            rows.append(row)
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    mib = 2**20
    out = ["| model | batch | train measured MiB | train estimated MiB | ratio | inference measured MiB | "
           "inference estimated MiB | ratio | saved measured MiB | saved estimated MiB | ratio | method |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "skipped" in r:
            out.append(f"| {r['model']} | {r['batch']} | skipped: {r['skipped']} | | | | | | | | | |")
            continue

        def cell(key: str) -> str:
            v = r.get(key)
            return "" if v is None else (f"{v / mib:.1f}" if isinstance(v, int) else f"{v:.2f}")

        out.append(f"| {r['model']} | {r['batch']} | {cell('train_measured')} | {cell('train_estimated')} | "
                   f"{cell('train_ratio')} | {cell('inference_measured')} | {cell('inference_estimated')} | "
                   f"{cell('inference_ratio')} | {cell('saved_measured')} | {cell('saved_estimated')} | "
                   f"{cell('saved_ratio')} | {r['method']} |")
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------------
# Step 2: the torch side
# --------------------------------------------------------------------------------------------
def measure_all(specs: list[dict[str, Any]], device: str) -> list[dict[str, Any]]:
    import torch

    if device == "cuda" and not torch.cuda.is_available():
        raise SystemExit("measure --device cuda: torch.cuda.is_available() is False")
    out = []
    for spec in specs:
        try:
            out.append(_measure_one(spec, device))
        except ImportError as exc:  # transformers missing in this environment
            out.append({"name": spec["name"], "mode": spec.get("mode"), "spec": spec, "device": device,
                        "method": "-", "rows": [{"batch": b, "skipped": f"{type(exc).__name__}: {exc}"}
                                                for b in spec["batches"]]})
    return out


def _measure_one(spec: dict[str, Any], device: str) -> dict[str, Any]:
    import torch
    from torch import nn

    from tests import vram_measure_worker as worker

    torch.manual_seed(0)
    if spec["kind"] == "cnn":
        model = worker.build_cnn(spec["arch"], spec.get("num_classes", 1000), spec.get("cifar_stem", False))
    else:
        model = worker.build_transformer(spec)
        if not spec.get("dropout", True):
            for module in model.modules():
                if isinstance(module, nn.Dropout):
                    module.p = 0.0
    if spec.get("lora"):
        worker.add_lora(model, tuple(spec["lora_targets"]), spec.get("lora_rank", 8))
    model.to(device)
    rows = [_measure_batch(model, spec, batch, device) for batch in spec["batches"]]
    doc = {"name": spec["name"], "mode": spec.get("mode"), "spec": spec, "device": device, "rows": rows,
           "torch": torch.__version__, "method": "cuda-max-memory-allocated" if device == "cuda" else "cpu-saved-tensors"}
    if device == "cuda":
        doc["device_name"] = torch.cuda.get_device_name(0)
    del model
    if device == "cuda":
        torch.cuda.empty_cache()
    return doc


def _inputs(spec: dict[str, Any], batch: int, device: str):
    import torch
    from torch import nn

    if spec["kind"] == "cnn":
        size, ch = spec["image_size"], spec.get("channels", 3)
        x = torch.randn(batch, ch, size, size, device=device)
        labels = torch.randint(0, 10, (batch,), device=device)
        return {"x": x}, (lambda model: nn.functional.cross_entropy(model(x), labels)), (lambda model: model(x))
    ids = torch.randint(0, spec["config"]["vocab_size"], (batch, spec["seq"]), device=device)
    labels = ids if spec["task"] == "lm" else torch.randint(0, 2, (batch,), device=device)
    return {"input_ids": ids}, (lambda model: model(input_ids=ids, labels=labels).loss), (lambda model: model(input_ids=ids))


def _measure_batch(model, spec: dict[str, Any], batch: int, device: str) -> dict[str, Any]:
    import torch

    from tests import vram_measure_worker as worker

    inputs, loss_of, forward = _inputs(spec, batch, device)
    row: dict[str, Any] = {"batch": batch}
    weights = sum(p.numel() * p.element_size() for p in model.parameters())
    trainable = [p for p in model.parameters() if p.requires_grad]
    if device != "cuda":  # no allocator peak on the CPU: weights + what autograd saves
        row["weights_bytes"] = weights
        row["saved_bytes"] = worker.saved_bytes(model, lambda: loss_of(model))
        row["train_peak_bytes"] = None
        row["inference_peak_bytes"] = None
        return row
    if not spec.get("lora"):  # the same autograd count on the GPU, beside the allocator peaks
        row["saved_bytes"] = worker.saved_bytes(model, lambda: loss_of(model))
        model.zero_grad(set_to_none=True)
    if not spec.get("lora"):
        model.eval()
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        with torch.no_grad():
            out = forward(model)
        torch.cuda.synchronize()
        row["inference_peak_bytes"] = int(torch.cuda.max_memory_allocated())
        del out
        model.train()
    opt = torch.optim.AdamW(trainable, lr=1e-4)
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    loss = loss_of(model)
    loss.backward()
    opt.step()
    torch.cuda.synchronize()
    row["train_peak_bytes"] = int(torch.cuda.max_memory_allocated())
    opt.zero_grad(set_to_none=True)
    del opt, loss
    torch.cuda.empty_cache()
    row["weights_bytes"] = weights
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="step", required=True)
    s = sub.add_parser("specs")
    s.add_argument("out", type=Path)
    s.add_argument("--only", default="")
    m = sub.add_parser("measure")
    m.add_argument("specs", type=Path)
    m.add_argument("out", type=Path)
    m.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    c = sub.add_parser("compare")
    c.add_argument("measured", type=Path)
    c.add_argument("table_md", type=Path)
    c.add_argument("table_json", type=Path)
    args = ap.parse_args(argv)
    if args.step == "specs":
        n = write_specs(args.out, {x.strip() for x in args.only.split(",") if x.strip()})
        print(f"{n} specs -> {args.out}")
    elif args.step == "measure":
        specs = json.loads(args.specs.read_text(encoding="utf-8"))
        doc = measure_all(specs, args.device)
        args.out.write_text(json.dumps(doc, indent=1), encoding="utf-8")
        print(f"{len(doc)} models measured on {args.device} -> {args.out}")
    else:
        rows = compare(json.loads(args.measured.read_text(encoding="utf-8")))
        args.table_json.write_text(json.dumps(rows, indent=1), encoding="utf-8")
        args.table_md.write_text(table(rows), encoding="utf-8")
        print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
