"""Saved-activation bytes measured in a real torch, next to the wizard's estimate.

Used by tests/integration/test_vram_measured.py and benchmarks/vram_calibration.py. The
measuring itself runs in a child Python that has torch (and transformers for the transformer
rows): :mod:`tests.vram_measure_worker`. Here: which models, at which sizes, and the comparison.

Each CASE names a catalogue model and how to build its equivalent: the CNNs by hand (the same
layers as torchvision's / the tutorials'), the transformers from a transformers config with the
catalogue's numbers and random weights (no Hub access). Training rows are fp32 on the CPU and are
compared with the part of ``estimate(mode="train", precision="fp32").items["activations"]`` that
autograd saves (``Estimate.activations_saved_bytes``); LoRA rows freeze the base. The transformers
are measured with dropout off (``dropout=False`` on both sides): torch's CPU dropout keeps an fp32
mask where a GPU keeps a 1-byte one, and the CPU's attention falls back to materialising the scores
when dropout is on; the GPU's masks stay a rule of thumb in the estimate.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wizard.core.vram.estimate import estimate

WORKER = Path(__file__).with_name("vram_measure_worker.py")
TOLERANCE = 0.25  # issue 13: each catalogue CNN and small transformer within ±25 %

_BERT = {"config_class": "BertConfig", "model_class": "BertForSequenceClassification", "task": "classification"}
_DISTIL = {"config_class": "DistilBertConfig", "model_class": "DistilBertForSequenceClassification",
           "task": "classification"}
_VIT = {"config_class": "ViTConfig", "model_class": "ViTForImageClassification", "task": "classification"}
_GPT2 = {"config_class": "GPT2Config", "model_class": "GPT2LMHeadModel", "task": "lm"}
_BERT_BASE_CFG = {"vocab_size": 30522, "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
                  "intermediate_size": 3072, "max_position_embeddings": 512, "type_vocab_size": 2}


@dataclass(frozen=True)
class Case:
    """One catalogue model: how the worker builds it, and the estimate settings it is compared with."""

    model: str  # catalogue id
    spec: dict[str, Any]
    mode: str = "train"  # "train" | "lora"
    lora_rank: int = 8
    lora_targets: str = "qv"

    @property
    def label(self) -> str:
        return self.model + (" (LoRA, frozen base)" if self.mode == "lora" else "")


def _cnn(model: str, arch: str, size: int, batches: tuple[int, int], **kw: Any) -> Case:
    return Case(model, {"name": model, "kind": "cnn", "arch": arch, "image_size": size, "batches": list(batches), **kw})


def _tf(model: str, base: dict, config: dict, seq: int | None, batches: tuple[int, int], **kw: Any) -> Case:
    mode = "lora" if kw.get("lora") else "train"
    spec = {"name": model, "kind": "transformer", **base, "config": config, "seq": seq, "batches": list(batches),
            "dropout": False, **kw}
    return Case(model, spec, mode=mode, lora_rank=kw.get("lora_rank", 8))


CNN_CASES = (
    _cnn("mnist-cnn", "mnist", 28, (8, 16), channels=1),
    _cnn("cifar10-cnn", "cifar_tutorial", 32, (8, 16)),
    _cnn("resnet18", "resnet18", 224, (1, 2)),
    _cnn("resnet18-cifar10", "resnet18", 32, (8, 16), num_classes=10),
    _cnn("resnet18-cifar", "resnet18", 32, (4, 8), num_classes=10, cifar_stem=True),
    _cnn("resnet34", "resnet34", 224, (1, 2)),
    _cnn("resnet34-cifar", "resnet34", 32, (4, 8), num_classes=10, cifar_stem=True),
    _cnn("resnet50", "resnet50", 224, (1, 2)),
    _cnn("resnet50-cifar", "resnet50", 32, (2, 4), num_classes=10, cifar_stem=True),
    _cnn("efficientnet-b0", "efficientnet_b0", 224, (1, 2)),
)

TRANSFORMER_CASES = (
    _tf("bert-tiny", _BERT, {"vocab_size": 30522, "hidden_size": 128, "num_hidden_layers": 2,
                             "num_attention_heads": 2, "intermediate_size": 512, "max_position_embeddings": 512,
                             "type_vocab_size": 2}, 128, (4, 8)),
    _tf("bert-base-uncased", _BERT, _BERT_BASE_CFG, 128, (1, 2)),
    _tf("distilbert-base-uncased", _DISTIL, {"vocab_size": 30522, "dim": 768, "n_layers": 6, "n_heads": 12,
                                             "hidden_dim": 3072, "max_position_embeddings": 512}, 128, (1, 2)),
    _tf("gpt2", _GPT2, {"vocab_size": 50257, "n_embd": 768, "n_layer": 12, "n_head": 12, "n_positions": 1024},
        128, (1, 2)),
    _tf("vit-b-16", _VIT, {"hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
                           "intermediate_size": 3072, "image_size": 224, "patch_size": 16, "num_labels": 1000},
        None, (1, 2), image_size=224),
    _tf("bert-base-uncased", _BERT, _BERT_BASE_CFG, 128, (1, 2), lora=True, lora_rank=8,
        lora_targets=["query", "value"], inference=False),
    _tf("gpt2", _GPT2, {"vocab_size": 50257, "n_embd": 768, "n_layer": 12, "n_head": 12, "n_positions": 1024},
        128, (1, 2), lora=True, lora_rank=8, lora_targets=["c_attn"], inference=False),
)

CASES = CNN_CASES + TRANSFORMER_CASES


def run_worker(python: Path | str, cases: tuple[Case, ...], timeout: int = 1500) -> list[dict[str, Any]]:
    """The worker's measurements for ``cases`` (one child process; transformers offline)."""
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TRANSFORMERS_VERBOSITY="error",
               OMP_NUM_THREADS="2")
    with tempfile.TemporaryDirectory() as tmp:
        spec_file = Path(tmp) / "specs.json"
        spec_file.write_text(json.dumps([c.spec for c in cases]), encoding="utf-8")
        res = subprocess.run([str(python), str(WORKER), str(spec_file)], capture_output=True, text=True,
                             timeout=timeout, env=env, check=False)
    if res.returncode != 0:
        raise RuntimeError(f"measuring failed (exit {res.returncode}): {res.stderr[-2000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


@dataclass(frozen=True)
class Row:
    """One line of the calibration table."""

    label: str
    batch: int
    measured: int
    estimated: int
    measured_inference: int | None = None
    estimated_inference: int | None = None

    @property
    def ratio(self) -> float:
        return self.estimated / self.measured

    @property
    def inference_ratio(self) -> float | None:
        if not self.measured_inference or self.estimated_inference is None:
            return None
        return self.estimated_inference / self.measured_inference


def _estimated(case: Case, batch: int, mode: str) -> int:
    seq = case.spec.get("seq")
    kw: dict[str, Any] = {"context": seq} if seq else {"image_size": case.spec["image_size"]}
    if mode == "lora":
        kw.update(lora_rank=case.lora_rank, lora_targets=case.lora_targets)
    if case.spec.get("dropout") is False:
        kw["dropout"] = False
    return estimate(case.model, mode=mode, precision="fp32", batch=batch, **kw).activations_saved_bytes


def compare(cases: tuple[Case, ...], results: list[dict[str, Any]]) -> list[Row]:
    rows = []
    for case, result in zip(cases, results):
        for r in result["rows"]:
            inf = r.get("inference_peak_bytes")
            rows.append(Row(case.label, r["batch"], r["saved_bytes"], _estimated(case, r["batch"], case.mode),
                            inf, _estimated(case, r["batch"], "inference") if inf else None))
    return rows


def format_table(rows: list[Row], before: dict[tuple[str, int], float] | None = None) -> list[str]:
    """The table as text lines (MiB = 2**20 bytes); ``before`` adds the earlier ratios."""
    head = f"{'model':<38} {'batch':>5} {'measured MiB':>13} {'estimate MiB':>13} {'ratio':>6}"
    head += f" {'before':>6}" if before else ""
    head += f" {'infer. meas.':>12} {'infer. est.':>11} {'ratio':>6}"
    lines = [head]
    for r in rows:
        line = f"{r.label:<38} {r.batch:>5} {r.measured / 2**20:>13.2f} {r.estimated / 2**20:>13.2f} {r.ratio:>6.2f}"
        if before:
            b = before.get((r.label, r.batch))
            line += f" {b:>6.2f}" if b is not None else f" {'':>6}"
        if r.measured_inference:
            line += f" {r.measured_inference / 2**20:>12.2f} {r.estimated_inference / 2**20:>11.2f}"
            line += f" {r.inference_ratio:>6.2f}"
        lines.append(line)
    return lines
