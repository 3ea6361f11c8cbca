"""VRAM measured from the model itself: reading the probe's answer, the fallback, and the use case.

The probe's lines here are real: captured from ``wizard/probe/vram_measure.py`` run in a
torch 2.13 CPU venv (``--spec torchvision:mobilenet_v3_large --batch 8``, and a model that reads
a tensor's value, which meta tensors do not have). The probe itself runs for real in
tests/integration/test_vram_measure_probe.py.
"""

from __future__ import annotations

import pytest

from wizard.app import vram as vram_app
from wizard.app.session import Session
from wizard.core.base.host import RealHost
from wizard.core.vram.units import GIB

MOBILENET_B8 = {
    "event": "result", "probe": "vram_measure", "type": "vram_measure", "spec": "torchvision:mobilenet_v3_large",
    "mode": "train", "dtype": "fp32", "optimizer": "adamw", "device": "meta", "input": None, "torch": "2.13.0+cpu",
    "seconds": 21.9,
    "rows": [
        {"batch": 8, "params": 5483032, "trainable_params": 5483032, "lora_adapters": 0, "weights_bytes": 21932128,
         "gradients_bytes": 21932128, "optimizer_bytes": 43864256, "buffers_bytes": 97968,
         "saved_bytes": 353138884, "activations_bytes": 353138884},
        {"batch": 9, "params": 5483032, "trainable_params": 5483032, "lora_adapters": 0, "weights_bytes": 21932128,
         "gradients_bytes": 21932128, "optimizer_bytes": 43864256, "buffers_bytes": 97968,
         "saved_bytes": 397256844, "activations_bytes": 397256844},
    ],
}
META_FAILED = {"event": "error", "probe": "vram_measure", "id": "meta-failed",
               "message": "RuntimeError: Tensor.item() cannot be called on meta tensors", "params": 1234567}


def request(**kw):
    return vram_app.measure_request("torchvision:mobilenet_v3_large", **{"batch": 8, **kw})


def test_the_measured_parts_are_the_probe_counts_and_the_json_names_each():
    from wizard.core.vram.measured import from_events

    m = from_events(request(), [MOBILENET_B8], vram_total=4 * GIB)
    assert m.measured and m.estimate is not None and m.estimate.activation_basis == "meta"
    items = m.estimate.items
    assert items["weights"] == 21932128 and items["optimizer"] == 2 * items["weights"]  # AdamW: 2 fp32 states
    assert items["activations"] == 353138884 and items["kv_cache"] == 0
    assert items["overhead"] == -(-(353138884 + 21932128) // 10)  # the allocator's slack: 10 % of what moves
    doc = m.to_json("en")
    for key in ("weights_bytes", "gradients_bytes", "optimizer_bytes", "activations_bytes", "cuda_context_bytes",
                "allocator_slack_bytes", "total_bytes"):
        assert isinstance(doc[key], int), key
    assert doc["total_bytes"] == sum(doc[k] for k in ("weights_bytes", "gradients_bytes", "optimizer_bytes",
                                                      "activations_bytes", "cuda_context_bytes",
                                                      "allocator_slack_bytes"))
    assert doc["basis"] == "measured" and doc["fits"] is True


def test_the_largest_batch_is_the_last_that_fits():
    from wizard.core.vram.measured import _items_at, from_events

    m = from_events(request(), [MOBILENET_B8], vram_total=4 * GIB)
    usable = m.estimate.usable_bytes
    rows = m.rows
    b = m.largest_batch
    assert b and b > 8
    assert sum(_items_at(rows, b).values()) <= usable < sum(_items_at(rows, b + 1).values())
    # per sample: the difference between the two measured batches
    assert _items_at(rows, 10)["activations"] - _items_at(rows, 9)["activations"] == 397256844 - 353138884


def test_another_card_or_batch_needs_no_new_run():
    from wizard.core.vram.measured import from_events

    m = from_events(request(), [MOBILENET_B8], vram_total=4 * GIB)
    bigger = vram_app.measurement_for(m, vram_app.typed_gpu(16), batch=32)
    assert bigger.request.batch == 32 and bigger.largest_batch > m.largest_batch
    assert bigger.estimate.items["activations"] > 3 * m.estimate.items["activations"]


def test_a_model_that_cannot_run_on_meta_falls_back_to_the_estimate_and_says_why():
    from wizard.core.vram.measured import from_events

    m = from_events(request(), [META_FAILED], vram_total=8 * GIB)
    assert m.basis == "estimate" and not m.measured
    assert "Tensor.item()" in m.reason and "Tensor.item()" in m.headline("en")
    assert "ESTIMATE" in m.headline("en") and "추정" in m.headline("ko")
    assert m.estimate.model.params == 1234567 and m.estimate.items["activations"] == 0
    assert m.largest_batch is None and m.to_json("en")["basis"] == "estimate"


def test_nothing_built_is_no_figure_at_all():
    from wizard.core.vram.measured import from_events

    m = from_events(request(), [{"event": "error", "id": "build-failed", "message": "ModuleNotFoundError: foo"}])
    assert m.estimate is None and m.reason_id == "build-failed"
    assert "foo" in vram_app.measurement_lines(m, None, "en")[-1]


@pytest.mark.parametrize("kw,key", [
    ({"spec": "mobilenet"}, "vram.measure.error.bad_spec"),
    ({"spec": ""}, "vram.measure.error.bad_spec"),
    ({"spec": "hf:bert", "input_shape": "3 by 224"}, "vram.measure.error.bad_input"),
    ({"spec": "hf:bert", "mode": "qlora"}, "vram.error.unknown_mode"),
    ({"spec": "hf:bert", "dtype": "int4"}, "vram.error.unknown_precision"),
    ({"spec": "hf:bert", "optimizer": "lion"}, "vram.error.unknown_optimizer"),
    ({"spec": "hf:bert", "batch": 0}, "vram.error.bad_batch"),
])
def test_bad_requests_are_one_clear_message(kw, key):
    spec = kw.pop("spec")
    with pytest.raises(vram_app.VramInputError) as err:
        vram_app.measure_request(spec, **kw)
    assert err.value.key == key and err.value.message("ko") != err.value.message("en")


def test_request_args_reach_the_probe():
    r = vram_app.measure_request(" hf:t5 ", batch=4, mode="LoRA", dtype="BF16", optimizer="sgd", input_shape="128")
    assert r.probe_args() == ["--spec", "hf:t5", "--batch", "4", "--mode", "lora", "--dtype", "bf16",
                              "--optimizer", "sgd", "--input", "128"]


def test_record_puts_the_measurement_in_the_report_as_the_students_choice():
    from wizard.core.vram.measured import from_events

    session = Session(host=RealHost())
    m = from_events(request(), [MOBILENET_B8])
    vram_app.record_measurement(session, m)
    assert session.vram is m.estimate and session.vram_chosen


def test_a_what_if_card_is_never_called_this_gpu():
    here = vram_app.judge_lessons(vram_app.GpuMemory("RTX 3060", 12 * GIB))
    card = vram_app.judge_lessons(vram_app.typed_gpu(12))
    assert any("this GPU" in j.text("en") for j in here)
    assert not any("this GPU" in j.text("en") for j in card) and any("this card" in j.text("en") for j in card)


def test_no_gpu_text_shows_colabs_t4_for_the_largest_batch():
    from wizard.core.vram.measured import from_events

    m = from_events(request(), [MOBILENET_B8])  # no GPU here
    lines = vram_app.measurement_lines(m, None, "en")
    assert "No NVIDIA GPU here" in lines[0]
    assert any(line.startswith("Largest batch that fits on Colab T4:") for line in lines)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_report_names_a_what_if_card_and_never_fails_the_students_gpu_for_it(lang):
    from tests import report_sessions as rs
    from wizard.app.report import build
    from wizard.core.report.document import FAIL, INFO

    s = rs.detection_only_session(lang)
    t4 = vram_app.colab_t4()
    vram_app.record(s, vram_app.estimate_for("llama-2-7b", precision="fp32", gpu=t4), chosen=True)
    item = build(s, lang=lang).item("vram", "fits")
    assert item.status == INFO and "Colab T4" in item.value
    assert item.value.startswith(("What if", "가정"))
    own = vram_app.GpuMemory("NVIDIA GeForce RTX 3060", 12 * GIB)  # this machine's own card: a plain FAIL
    vram_app.record(s, vram_app.estimate_for("llama-2-7b", precision="fp32", gpu=own), chosen=True)
    item = build(s, lang=lang).item("vram", "fits")
    assert item.status == FAIL and not item.value.startswith(("What if", "가정"))
