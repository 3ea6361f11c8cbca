"""The VRAM estimate against what a real torch keeps for one training step (issue 13, item 2).

The catalogue's CNNs (hand-written equivalents of torchvision's ResNets and the tutorials' nets)
and small transformers (BERT, DistilBERT, GPT-2, ViT-B/16 from transformers configs, random weights, offline)
are built on the CPU in a venv with torch 2.13.0; autograd's saved tensors are counted with
``torch.autograd.graph.saved_tensors_hooks`` at two batch sizes (tests/vram_measure.py), and each
must be within ±25 % of the estimate's saved-activation bytes. ``benchmarks/vram_calibration.py``
prints the same rows as a table.
"""

from __future__ import annotations

import pytest

from tests.vram_measure import CNN_CASES, TOLERANCE, TRANSFORMER_CASES, compare, run_worker
from wizard.core.vram.catalogue import find_model

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cnn_results(torch_python):
    return run_worker(torch_python, CNN_CASES)


@pytest.fixture(scope="module")
def transformer_results(transformers_python):
    return run_worker(transformers_python, TRANSFORMER_CASES)


def _assert_within(rows) -> None:
    bad = [(r.label, r.batch, round(r.ratio, 2)) for r in rows if abs(r.ratio - 1) > TOLERANCE]
    assert not bad, f"estimate/measured outside ±{TOLERANCE:.0%}: {bad}"
    bad_inf = [(r.label, r.batch, round(r.inference_ratio, 2)) for r in rows
               if r.inference_ratio is not None and abs(r.inference_ratio - 1) > TOLERANCE]
    assert not bad_inf, f"inference estimate/measured outside ±{TOLERANCE:.0%}: {bad_inf}"


def _assert_measurement_is_linear_in_batch(cases, results) -> None:
    """Saved bytes grow with the batch (a harness that counted nothing, or parameters, would not)."""
    for case, result in zip(cases, results):
        (b1, r1), (b2, r2) = [(r["batch"], r["saved_bytes"]) for r in result["rows"]]
        assert r1 > 0, case.label
        assert abs((r2 / r1) / (b2 / b1) - 1) < 0.05, (case.label, r1, r2)


def test_cnn_activations_within_25_percent(cnn_results):
    _assert_measurement_is_linear_in_batch(CNN_CASES, cnn_results)
    _assert_within(compare(CNN_CASES, cnn_results))


def test_hand_written_cnns_have_the_catalogue_counts(cnn_results):
    """The equivalents are the catalogue's networks: torchvision's published counts for the
    ImageNet ResNets (11,689,512 / 21,797,672 / 25,557,032) and kuangliu/pytorch-cifar's for the
    CIFAR-style ones."""
    for case, result in zip(CNN_CASES, cnn_results):
        assert result["params"] == find_model(case.model).params, case.model
    published = {"resnet18": 11_689_512, "resnet34": 21_797_672, "resnet50": 25_557_032,
                 "resnet18-cifar": 11_173_962}
    got = {c.model: r["params"] for c, r in zip(CNN_CASES, cnn_results)}
    assert {k: got[k] for k in published} == published


def test_cifar_style_resnet_keeps_far_more_than_torchvision_at_32px(cnn_results):
    by_model = {c.model: r for c, r in zip(CNN_CASES, cnn_results)}
    per_image = {m: by_model[m]["rows"][-1]["saved_bytes"] / by_model[m]["rows"][-1]["batch"]
                 for m in ("resnet18-cifar10", "resnet18-cifar")}
    assert per_image["resnet18-cifar"] > 8 * per_image["resnet18-cifar10"]


def test_transformer_activations_within_25_percent(transformer_results):
    _assert_measurement_is_linear_in_batch(TRANSFORMER_CASES, transformer_results)
    _assert_within(compare(TRANSFORMER_CASES, transformer_results))


def test_transformers_have_the_catalogue_counts_with_their_head(transformer_results):
    """BERT/DistilBERT ...ForSequenceClassification, GPT2LMHeadModel, ViTForImageClassification: the catalogue's counts."""
    for case, result in zip(TRANSFORMER_CASES, transformer_results):
        assert result["params"] == find_model(case.model).params, case.model


def test_frozen_base_lora_keeps_less_than_full_fine_tuning(transformer_results):
    full = {c.model: r for c, r in zip(TRANSFORMER_CASES, transformer_results) if c.mode == "train"}
    for case, result in zip(TRANSFORMER_CASES, transformer_results):
        if case.mode != "lora":
            continue
        assert result["lora_adapters"] > 0, case.label
        lora_bytes = result["rows"][0]["saved_bytes"]
        full_bytes = full[case.model]["rows"][0]["saved_bytes"]
        assert lora_bytes < 0.9 * full_bytes, (case.label, lora_bytes, full_bytes)
