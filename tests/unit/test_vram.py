"""The VRAM estimator: published figures, input handling, invariants, and the course workloads.

Figures quoted here come from public sources named beside each test (the ZeRO paper, the
course's rule, PEFT's LoRA parameter count, Korthikanti et al.'s activation formula); the
full table of reference figures is tested in test_vram_reference.py.
"""

from __future__ import annotations

import json
import math
import re
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wizard.core.base.i18n import catalogue, t
from wizard.core.base.resources import load_json
from wizard.core.vram.accelerate import accelerate_size_string
from wizard.core.vram.catalogue import catalogue_models, find_model, resolve_model
from wizard.core.vram.estimate import SCHEMA, Estimate, estimate
from wizard.core.vram.inputs import (
    MAX_PARAMS,
    MODES,
    OPTIMIZERS,
    ParamCountError,
    UnknownModelError,
    VramInputError,
    parse_param_count,
)
from wizard.core.vram.largest import course_rule_params, largest_model, largest_model_table
from wizard.core.vram.memory import (
    CUDA_CONTEXT_RESERVE_BYTES,
    kv_cache_bytes,
    lora_adapter_params,
    parameter_breakdown,
    training_state_bytes,
    transformer_layer_activation_bytes,
    usable_vram_bytes,
    weights_bytes,
)
from wizard.core.vram.precisions import PRECISIONS
from wizard.core.vram.units import (
    GB,
    GIB,
    ITEM_KEYS,
    MIB,
    format_gib,
    format_params,
    item_label,
    units_explanation,
    vram_from_gpu,
)
from wizard.core.vram.workloads import (
    VERDICT_NEEDS_CLOUD,
    VERDICT_NEEDS_COLAB,
    VERDICT_RUNS_HERE,
    VERDICT_TOO_BIG,
    VERDICTS,
    batch_hint_rows,
    course_tiers,
    judge_workload,
    judge_workloads,
    load_workloads,
    max_batch_that_fits,
    report_headings,
    report_lines,
    targets,
)

HANGUL = re.compile(r"[\uac00-\ud7a3]")


# ------------------------------------------------------------------ parameter counts

@pytest.mark.parametrize("text,expected", [
    ("7B", 7_000_000_000), ("7b", 7_000_000_000), ("350M", 350_000_000), ("1.5e9", 1_500_000_000),
    ("125,000,000", 125_000_000), ("1.3B", 1_300_000_000), (" 70 B ", 70_000_000_000), ("62K", 62_000),
    ("6738415616", 6_738_415_616), ("1_000_000", 1_000_000), ("0.5B", 500_000_000), ("10T", 10**13),
    ("7B params", 7_000_000_000), ("+13B", 13_000_000_000), (".5M", 500_000), ("1,234.5K", 1_234_500),
    (1_500_000, 1_500_000), (1.5e9, 1_500_000_000),
])
def test_parse_param_count_reads_what_people_type(text, expected):
    assert parse_param_count(text) == expected


@pytest.mark.parametrize("text,key", [
    ("7X", "vram.error.param_unreadable"), ("", "vram.error.param_empty"), ("   ", "vram.error.param_empty"),
    ("-7B", "vram.error.param_not_positive"), ("0", "vram.error.param_not_positive"),
    ("0B", "vram.error.param_not_positive"), (-5, "vram.error.param_not_positive"), (0, "vram.error.param_not_positive"),
    ("11T", "vram.error.param_too_large"), ("1e15", "vram.error.param_too_large"),
    ("1e99999999999", "vram.error.param_too_large"), ("0.5", "vram.error.param_fraction"),
    ("1,5B", "vram.error.param_unreadable"), ("seven billion", "vram.error.param_unreadable"),
    ("nan", "vram.error.param_unreadable"), (float("inf"), "vram.error.param_unreadable"),
    ("7BB", "vram.error.param_unreadable"), (True, "vram.error.param_unreadable"),
])
def test_parse_param_count_rejects_bad_input_with_a_translated_message(text, key):
    with pytest.raises(ParamCountError) as info:
        parse_param_count(text)
    err = info.value
    assert isinstance(err, ValueError)
    assert err.key == key
    assert str(err) == t(key, "en", **err.params)
    ko = err.message("ko")
    assert HANGUL.search(ko) and ko != err.message("en")


def test_error_message_is_rendered_in_the_language_asked_for():
    with pytest.raises(ParamCountError) as info:
        parse_param_count("7X")
    ko = info.value.message("ko")
    assert HANGUL.search(ko) and "7X" in ko
    assert not HANGUL.search(str(info.value))  # str() is for logs: English


def test_absurd_size_message_names_the_limit():
    with pytest.raises(ParamCountError) as info:
        parse_param_count("20T")
    assert "10T" in str(info.value) and "20T" in str(info.value)


@given(st.integers(min_value=1, max_value=MAX_PARAMS))
def test_parse_param_count_round_trips_integers(n):
    assert parse_param_count(n) == n
    assert parse_param_count(str(n)) == n
    assert parse_param_count(f"{n:,}") == n


@given(st.integers(min_value=1, max_value=9_999_999), st.sampled_from(["K", "M", "B", "T"]))
def test_parse_param_count_suffixes(n, suffix):
    scale = {"K": 10**3, "M": 10**6, "B": 10**9, "T": 10**12}[suffix]
    if n * scale <= MAX_PARAMS:
        assert parse_param_count(f"{n}{suffix}") == n * scale
    else:
        with pytest.raises(ParamCountError):
            parse_param_count(f"{n}{suffix}")


def test_format_params_and_units():
    assert format_params(6_738_415_616) == "6.74B"
    assert format_params(354_823_168) == "355M"
    assert format_params(11_689_512) == "11.7M"
    assert format_params(62_006) == "62K"
    assert format_params(469_762_048) == "470M" and format_params(100_000_000) == "100M"
    assert format_params(10**10) == "10B" and format_params(120 * 10**9) == "120B" and format_params(999) == "999"
    assert format_gib(2 * GIB) == "2.00 GiB"
    assert parse_param_count(format_params(7_000_000_000)) == 7_000_000_000


def test_units_are_explained_once_in_both_languages():
    for lang in ("en", "ko"):
        text = units_explanation(lang)
        assert "GiB" in text and "GB" in text and "1,073,741,824" in text and "1,000,000,000" in text
    assert HANGUL.search(units_explanation("ko"))


# ------------------------------------------------------------------ published figures

def test_zero_paper_gpt2_15b_needs_24_gb_with_adam_in_mixed_precision():
    """ZeRO (arXiv:1910.02054 §3.1): 1.5B parameters need at least 24 GB; fp16 weights alone 3 GB."""
    est = estimate("1.5B", mode="train", precision="fp16", training_accounting="zero")
    state = est.items["weights"] + est.items["gradients"] + est.items["optimizer"]
    assert math.isclose(state, 24 * GB, rel_tol=0.005)
    assert est.total_bytes >= 24 * GB  # "at least"
    assert math.isclose(estimate("1.5B", precision="fp16").items["weights"], 3 * GB, rel_tol=0.005)
    # the same training counted the Hugging Face way is 18 bytes per parameter
    hf = estimate("1.5B", mode="train", precision="fp16", training_accounting="hf")
    assert math.isclose(hf.items["weights"] + hf.items["gradients"] + hf.items["optimizer"], 27 * GB, rel_tol=0.005)


def test_course_rule_24_gb_is_12b_at_fp16():
    """The course: fp16 ≈ 2 bytes per parameter, so 24 GB ≈ 12B (decimal GB, weights only)."""
    assert math.isclose(course_rule_params(24 * GB, "fp16"), 12 * 10**9, rel_tol=0.005)
    row = largest_model(24 * GB, mode="inference", precision="fp16")
    assert math.isclose(row.course_rule_params, 12 * 10**9, rel_tol=0.005)
    # bench-vram.md §3.4: a "24 GB" card holds 24 GiB ≈ 12.9B fp16 parameters, minus the CUDA context
    card = largest_model(24 * GIB, mode="inference", precision="fp16")
    assert math.isclose(card.course_rule_params, 12.88e9, rel_tol=0.005)
    assert card.params < card.course_rule_params
    assert card.params == (24 * GIB - CUDA_CONTEXT_RESERVE_BYTES) // 2


def test_llama2_7b_kv_cache_at_4096_tokens_is_2_gib():
    spec = find_model("meta-llama/Llama-2-7b-hf")
    assert kv_cache_bytes(spec.architecture, 4096, 1, 2) == 2 * GIB
    assert estimate(spec, precision="fp16", context=4096).items["kv_cache"] == 2 * GIB
    # grouped-query attention: Mistral-7B and Llama-3-8B keep 8 KV heads, 1 GiB at 8192 tokens
    for name in ("mistral-7b", "llama-3-8b"):
        assert estimate(name, precision="fp16", context=8192).items["kv_cache"] == GIB
    # fp32 models keep an fp32 cache; the cache grows linearly with batch
    assert estimate(spec, precision="fp32", context=4096).items["kv_cache"] == 4 * GIB
    assert estimate(spec, precision="fp16", context=4096, batch=3).items["kv_cache"] == 6 * GIB


def test_lora_adapter_count_matches_peft_for_llama2_7b():
    """PEFT, rank 16 on q_proj and v_proj of Llama-2-7B: 8,388,608 trainable parameters."""
    spec = find_model("llama-2-7b")
    assert lora_adapter_params(spec, rank=16, targets="qv") == 8_388_608
    assert lora_adapter_params(spec, rank=8, targets="qv") == 4_194_304
    assert lora_adapter_params(spec, rank=16, targets="all_linear") > 4 * 8_388_608


def test_activation_formula_for_a_bert_layer_is_the_measured_count():
    """Per token at 16-bit: 17 values of hidden size (QKV input, Q, K, V, attention output and its
    copy, two norm inputs, MLP input, 2 × intermediate = 8h) × 2 bytes + 2 one-byte dropout masks =
    36h, the tensors measured in transformers' BERT (tests/vram_measure.py); Korthikanti et al.
    (2022) count 34h (they leave out the attention output's copy). Their 5·a·s² stands for the
    scores without an efficient kernel."""
    arch = find_model("bert-base-uncased").architecture
    s, b, h, a = 128, 8, arch.hidden_size, arch.num_heads
    assert transformer_layer_activation_bytes(arch, s, b) == 36 * s * b * h
    assert abs(36 / 34 - 1) < 0.06
    assert transformer_layer_activation_bytes(arch, s, b, efficient_attention=False) == s * b * h * 36 + 5 * a * s * s * b
    # fp32 values, masks still one byte; no dropout: values only
    assert transformer_layer_activation_bytes(arch, s, b, elem_bytes=4) == (17 * 4 + 2) * s * b * h
    assert transformer_layer_activation_bytes(arch, s, b, dropout=False) == 34 * s * b * h


def test_frozen_base_keeps_a_third_less():
    """LoRA on Q and V with the base frozen: the output projection's, the MLP's and the down
    projection's inputs are not kept (measured with BERT: 49.7 MiB against 72.9 MiB)."""
    arch = find_model("bert-base-uncased").architecture
    full = transformer_layer_activation_bytes(arch, 128, 1, dropout=False)
    lora = transformer_layer_activation_bytes(arch, 128, 1, dropout=False, frozen_base=True)
    every = transformer_layer_activation_bytes(arch, 128, 1, dropout=False, frozen_base=True,
                                               lora_targets="all_linear")
    assert lora == full * 11 // 17 and every == full
    est_full = estimate("bert-base-uncased", mode="train", precision="fp16", batch=4, context=128)
    est_lora = estimate("bert-base-uncased", mode="lora", precision="fp16", batch=4, context=128, lora_targets="qv")
    assert est_lora.items["activations"] < 0.75 * est_full.items["activations"]
    assert est_lora.activations_saved_bytes == est_lora.items["activations"]


def test_training_bytes_per_parameter():
    p = 1000
    assert sum(training_state_bytes(p, "fp32", "adamw")) == 16 * p
    assert sum(training_state_bytes(p, "fp16", "adamw", "hf")) == 18 * p
    assert sum(training_state_bytes(p, "bf16", "adamw", "zero")) == 16 * p
    # HF model_memory_anatomy: 8-bit AdamW 2 bytes, SGD with momentum 4 bytes of optimizer state
    assert training_state_bytes(p, "fp16", "adamw8bit")[2] == 2 * p
    assert training_state_bytes(p, "fp16", "sgd_momentum")[2] == 4 * p
    assert training_state_bytes(p, "fp32", "sgd")[2] == 0


def test_quantised_weights_keep_embeddings_in_16_bit():
    spec = find_model("llama-2-7b")
    vocab = parameter_breakdown(spec.architecture).vocab_params
    assert vocab == 2 * 32000 * 4096
    nf4 = PRECISIONS["nf4"]
    assert math.isclose(nf4.bits_per_weight, 4.127, abs_tol=0.001)  # QLoRA paper: 4 + 0.127 bits
    expected = math.ceil((spec.params - vocab) * nf4.bytes_per_param) + 2 * vocab
    assert weights_bytes(spec.params, "nf4", spec.architecture) == expected
    # int8/int4 as bitsandbytes loads them keep the embeddings and LM head 16-bit too; without an
    # architecture (accelerate's table, the plain rule) every weight costs 1 or 0.5 byte
    assert weights_bytes(spec.params, "int4", spec.architecture) == (spec.params - vocab) // 2 + 2 * vocab
    assert weights_bytes(spec.params, "int8", spec.architecture) == (spec.params - vocab) + 2 * vocab
    assert weights_bytes(spec.params, "int4") == spec.params // 2
    # GGUF averages are uniform
    assert weights_bytes(spec.params, "q4_0") == math.ceil(spec.params * 4.5 / 8)
    # real 4-bit formats are all bigger than 4.0 bits
    for key in ("nf4", "gptq4", "q4_0", "q4_k_m"):
        assert weights_bytes(spec.params, key, spec.architecture) > spec.params // 2


def test_accelerate_size_strings():
    assert accelerate_size_string(433249280) == "413.18 MB"
    assert accelerate_size_string(1732997120) == "1.61 GB"
    assert accelerate_size_string(512) == "512.0 bytes"


# ------------------------------------------------------------------ the estimate

def test_estimate_is_itemised_in_a_fixed_order():
    est = estimate("llama-2-7b", precision="fp16", context=2048)
    assert tuple(est.items) == ITEM_KEYS
    assert est.total_bytes == sum(est.items.values())
    assert est.items["gradients"] == est.items["optimizer"] == 0
    assert est.items["kv_cache"] > 0 and est.items["activations"] > 0 and est.items["overhead"] > 0


def test_training_has_no_kv_cache_and_inference_no_optimizer():
    train = estimate("gpt2", mode="train", precision="fp16", context=256, batch=4)
    assert train.items["kv_cache"] == 0 and train.items["optimizer"] > 0 and train.items["gradients"] > 0
    assert train.trainable_params == train.model.params
    encoder = estimate("bert-base-uncased", precision="fp16", context=128)
    assert encoder.items["kv_cache"] == 0  # an encoder caches nothing


def test_lora_and_qlora_train_only_the_adapters():
    lora = estimate("llama-2-7b", mode="lora", precision="fp16", context=512, gradient_checkpointing=True)
    qlora = estimate("llama-2-7b", mode="qlora", precision="fp16", context=512, gradient_checkpointing=True)
    adapters = 8_388_608
    assert lora.trainable_params == qlora.trainable_params == adapters
    assert lora.items["gradients"] == 4 * adapters and lora.items["optimizer"] == 8 * adapters
    assert qlora.base_precision == "nf4" and lora.base_precision == "fp16"
    assert qlora.items["weights"] < lora.items["weights"] / 3
    full = estimate("llama-2-7b", mode="train", precision="fp16", context=512, gradient_checkpointing=True)
    assert lora.total_bytes < full.total_bytes / 5
    # a 4-bit precision turns LoRA into QLoRA
    assert estimate("llama-2-7b", mode="lora", precision="nf4").mode == "qlora"


def test_gradient_checkpointing_saves_activation_memory():
    kw = dict(mode="train", precision="fp16", context=1024, batch=8)
    assert estimate("gpt2", gradient_checkpointing=True, **kw).items["activations"] < \
        estimate("gpt2", gradient_checkpointing=False, **kw).items["activations"]


def test_image_models_scale_with_area_and_precision():
    a = estimate("resnet50", mode="train", precision="fp32", batch=8, image_size=224)
    b = estimate("resnet50", mode="train", precision="fp32", batch=8, image_size=448)
    c = estimate("resnet50", mode="train", precision="fp16", batch=8, image_size=224)
    assert math.isclose(b.items["activations"], 4 * a.items["activations"], rel_tol=1e-6)
    assert math.isclose(c.items["activations"], a.items["activations"] / 2, rel_tol=1e-6)
    # measured: 82.14 MiB per 224×224 image in fp32 (tests/vram_measure.py; torchsummary's rule
    # said 286.56, 3.5× too much), 8 images
    assert math.isclose(a.items["activations"], 8 * 82.1363 * MIB, rel_tol=1e-4)
    assert a.model.activation_measured and a.activations_saved_bytes == a.items["activations"]
    assert a.context is None and a.image_size == 224


def test_vit_uses_transformer_arithmetic_over_its_patches():
    est = estimate("vit-b-16", mode="train", precision="fp32", batch=2, image_size=224)
    arch = est.model.architecture
    assert est.items["activations"] == arch.num_layers * transformer_layer_activation_bytes(arch, 197, 2, elem_bytes=4)


def test_custom_size_counts_weights_and_says_what_is_missing():
    est = estimate("7B", precision="fp16")
    assert est.model.kind == "custom" and est.items["weights"] == 14 * GB
    keys = [n.key for n in est.notes]
    assert "vram.assume.activations_unknown" in keys and "vram.assume.kv_unknown" in keys
    lora = estimate(350_000_000, mode="lora", precision="fp16")
    assert lora.trainable_params == 3_500_000
    assert "vram.assume.lora_unknown" in [n.key for n in lora.notes]


def test_usable_memory_subtracts_use_and_context_reserve():
    assert usable_vram_bytes(8 * GIB, GIB, GIB // 2) == 8 * GIB - GIB - GIB // 2
    assert usable_vram_bytes(GIB, 0, 2 * GIB) == 0
    est = estimate("gpt2", vram_total_bytes=8 * GIB, vram_used_bytes=512 * MIB)
    assert est.usable_bytes == 8 * GIB - 512 * MIB - CUDA_CONTEXT_RESERVE_BYTES
    assert estimate("gpt2").usable_bytes is None and estimate("gpt2").fits is None


def test_vram_from_detected_gpu():
    from wizard.core.machine.models import GpuInfo

    assert vram_from_gpu(GpuInfo(index=0, memory_total_mib=8192, memory_used_mib=702)) == (8 * GIB, 702 * MIB)
    assert vram_from_gpu(GpuInfo(index=0, memory_total_mib=5912, memory_used_mib=None)) == (5912 * MIB, 0)
    assert vram_from_gpu(GpuInfo(index=0)) == (None, 0)
    assert item_label("kv_cache", "en") == "KV cache" and HANGUL.search(item_label("weights", "ko"))


def test_assumptions_are_translated_sentences():
    est = estimate("llama-2-7b", mode="qlora", precision="nf4", context=512, vram_total_bytes=8 * GIB)
    en = est.assumption_texts("en")
    ko = est.assumption_texts("ko")
    assert len(en) == len(ko) >= 6
    assert all(s and "{" not in s and "vram." not in s for s in en + ko)
    assert all(HANGUL.search(s) for s in ko)


def test_to_json_matches_the_cli_contract():
    judgments = judge_workloads(8 * GIB)
    est = estimate("llama-2-7b", precision="nf4", context=4096, vram_total_bytes=8 * GIB)
    doc = json.loads(json.dumps(est.to_json("ko", workloads=judgments), ensure_ascii=False))
    assert doc["schema"] == f"{SCHEMA}@1.0"
    assert set(doc["items"]) == set(ITEM_KEYS) and all(isinstance(v, int) for v in doc["items"].values())
    assert doc["total_bytes"] == sum(doc["items"].values())
    assert doc["usable_bytes"] == 8 * GIB - CUDA_CONTEXT_RESERVE_BYTES
    assert doc["fits"] is (doc["total_bytes"] <= doc["usable_bytes"])
    assert len(doc["workloads"]) == len(load_workloads())
    w = doc["workloads"][0]
    assert {"id", "title", "verdict", "text", "batch_here", "target", "batch_target", "items"} <= set(w)
    assert w["verdict"] in VERDICTS and HANGUL.search(w["title"])
    assert isinstance(doc["assumptions"], list) and HANGUL.search(doc["units_note"])


@pytest.mark.parametrize("kwargs,key", [
    (dict(model="llama-2-7b", mode="train", precision="int4"), "vram.error.train_needs_float"),
    (dict(model="llama-2-7b", mode="train", precision="nf4"), "vram.error.train_needs_float"),
    (dict(model="gpt2", batch=0), "vram.error.bad_batch"),
    (dict(model="gpt2", batch=2.5), "vram.error.bad_batch"),
    (dict(model="gpt2", context=0), "vram.error.bad_context"),
    (dict(model="resnet50", image_size=4), "vram.error.bad_image_size"),
    (dict(model="gpt2", precision="fp8"), "vram.error.unknown_precision"),
    (dict(model="gpt2", mode="serve"), "vram.error.unknown_mode"),
    (dict(model="gpt2", optimizer="lion"), "vram.error.unknown_optimizer"),
    (dict(model="gpt2", vram_total_bytes=-1), "vram.error.bad_vram"),
    (dict(model="gpt2", vram_total_bytes=GIB, vram_used_bytes=2 * GIB), "vram.error.bad_vram_used"),
    (dict(model="gpt5-ultra"), "vram.error.unknown_model"),
])
def test_bad_settings_raise_translated_errors(kwargs, key):
    model = kwargs.pop("model")
    with pytest.raises(VramInputError) as info:
        estimate(model, **kwargs)
    assert info.value.key == key
    assert HANGUL.search(info.value.message("ko"))


def test_model_lookup():
    assert resolve_model("Llama-2-7B").id == "llama-2-7b"
    assert resolve_model("meta-llama/Llama-2-7b-hf").id == "llama-2-7b"
    assert resolve_model("350M").params == 350_000_000
    with pytest.raises(UnknownModelError):
        find_model("7B")
    with pytest.raises(UnknownModelError):
        resolve_model("llama-9")


# ------------------------------------------------------------------ invariants (hypothesis)

LLM_NAMES = [m.id for m in catalogue_models() if m.kind == "llm"]
ANY_NAMES = [m.id for m in catalogue_models()]


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(ANY_NAMES), mode=st.sampled_from(MODES), precision=st.sampled_from(["fp32", "fp16", "bf16"]),
       batch=st.integers(1, 256), extra=st.integers(1, 64))
def test_estimate_grows_with_batch(name, mode, precision, batch, extra):
    small = estimate(name, mode=mode, precision=precision, batch=batch)
    large = estimate(name, mode=mode, precision=precision, batch=batch + extra)
    for key in ITEM_KEYS:
        assert large.items[key] >= small.items[key]
    assert large.total_bytes >= small.total_bytes


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(LLM_NAMES), mode=st.sampled_from(MODES), context=st.integers(1, 16384),
       extra=st.integers(1, 4096), checkpointing=st.booleans())
def test_estimate_grows_with_context(name, mode, context, extra, checkpointing):
    a = estimate(name, mode=mode, context=context, gradient_checkpointing=checkpointing)
    b = estimate(name, mode=mode, context=context + extra, gradient_checkpointing=checkpointing)
    assert b.total_bytes >= a.total_bytes
    if mode == "inference":
        assert b.items["kv_cache"] > a.items["kv_cache"]


@settings(max_examples=80, deadline=None)
@given(params=st.integers(1, 10**12), extra=st.integers(1, 10**11), mode=st.sampled_from(MODES),
       precision=st.sampled_from(["fp32", "fp16", "bf16"]), optimizer=st.sampled_from(OPTIMIZERS))
def test_estimate_grows_with_params(params, extra, mode, precision, optimizer):
    a = estimate(params, mode=mode, precision=precision, optimizer=optimizer)
    b = estimate(params + extra, mode=mode, precision=precision, optimizer=optimizer)
    assert b.total_bytes >= a.total_bytes and b.items["weights"] >= a.items["weights"]
    if extra >= 2:  # ≥ 1 more byte even at QLoRA's 0.52 B/param; one parameter can hide in rounding up
        assert b.items["weights"] > a.items["weights"]


@settings(max_examples=100, deadline=None)
@given(name=st.sampled_from(ANY_NAMES), precision=st.sampled_from(list(PRECISIONS)),
       batch=st.integers(1, 64), total_mib=st.integers(0, 200_000), used_share=st.floats(0, 1),
       reserve_mib=st.integers(0, 4096))
def test_fits_iff_total_within_usable(name, precision, batch, total_mib, used_share, reserve_mib):
    total = total_mib * MIB
    used = int(total * used_share)
    est = estimate(name, precision=precision, batch=batch, vram_total_bytes=total, vram_used_bytes=used,
                   context_reserve_bytes=reserve_mib * MIB)
    assert est.usable_bytes == max(0, total - used - reserve_mib * MIB)
    assert est.fits == (est.total_bytes <= est.usable_bytes)
    assert est.headroom_bytes == est.usable_bytes - est.total_bytes


@settings(max_examples=40, deadline=None)
@given(gib=st.floats(1, 200), mode=st.sampled_from(MODES))
def test_largest_model_fits_and_one_more_step_does_not(gib, mode):
    total = int(gib * GIB)
    precision = "nf4" if mode == "qlora" else "fp16"
    row = largest_model(total, mode=mode, precision=precision)
    bpp = Fraction(row.bytes_per_param)
    assert row.params * bpp <= row.usable_bytes < (row.params + 1) * bpp
    assert row.course_rule_params >= row.params


def test_largest_model_table_orders_precisions_sensibly():
    rows = {(r.mode, r.precision): r.params for r in largest_model_table(8 * GIB)}
    assert rows[("inference", "int4")] > rows[("inference", "nf4")] > rows[("inference", "int8")] \
        > rows[("inference", "fp16")] > rows[("inference", "fp32")]
    assert rows[("inference", "fp16")] > rows[("qlora", "nf4")] / 4
    assert rows[("train", "fp32")] > rows[("train", "fp16")]  # 16 vs 18 bytes per parameter
    assert all(HANGUL.search(r.text("ko")) for r in largest_model_table(8 * GIB))


# ------------------------------------------------------------------ workloads and judgment

def test_workloads_file_is_consistent():
    doc = load_json("workloads.json")
    assert doc["schema"].startswith("gpu-setup-wizard/workloads@1.")
    ids = [w["id"] for w in doc["workloads"]]
    assert len(ids) == len(set(ids)) >= 10
    for w in load_workloads():
        find_model(w.model)
        assert w.mode in MODES and w.precision in PRECISIONS
        assert 1 <= w.min_batch <= w.max_batch and w.batch_hint[0] <= w.batch_hint[1]
        assert w.title("en") != w.title("ko") and HANGUL.search(w.setup("ko"))
        w.estimate(w.min_batch)  # valid settings
    sizes = [x.vram_bytes for x in targets()]
    assert [x.id for x in targets()] == ["colab_t4", "cloud_a100_40", "cloud_80"]
    assert sizes == sorted(sizes)
    for tier in course_tiers():
        assert set(tier.workloads) <= set(ids)
        assert HANGUL.search(tier.text("ko")) and str(tier.batch_hint[0]) in tier.text("en")
    assert doc["batch_hint_reference_workload"] in ids


def test_course_tiers_lessons_run_on_their_tier():
    """The course's tier table: each tier's lessons run on a card of that size."""
    by_id = {w.id: w for w in load_workloads()}
    for tier in course_tiers():
        for wid in tier.workloads:
            j = judge_workload(by_id[wid], tier.vram_gb * GIB)
            assert j.verdict == VERDICT_RUNS_HERE, (tier.id, wid, j.text())


def test_computed_batches_are_of_the_course_hints_order():
    """Course: 6 GB 16–32, 8 GB 32–64, 12 GB 64–128 for ResNet-34 at 224 px in fp32. The computed
    batch is at least the course's lower bound. Measured, ResNet-34 keeps 30.8 MiB per image
    (tests/vram_measure.py), not torchsummary's 99.4, so the course's hints are conservative: the
    computed batch is up to five times the upper bound (was: at most twice, with the old figure)."""
    rows = batch_hint_rows()
    assert [r.vram_gb for r in rows] == [6, 8, 12]
    for r in rows:
        low, high = r.course_hint
        assert low <= r.computed_batch <= 5 * high, (r.vram_gb, r.computed_batch)
    assert rows[0].computed_batch < rows[1].computed_batch < rows[2].computed_batch
    mine = batch_hint_rows(8 * GIB)[-1]
    assert mine.is_this_gpu and mine.course_hint == (32, 64) and mine.computed_batch == rows[1].computed_batch
    assert batch_hint_rows(10 * GIB)[-1].course_hint is None
    assert HANGUL.search(mine.text("ko"))


@pytest.mark.parametrize("vram_gib", [0, 4, 6, 8, 12, 16, 24, 48, 80])
def test_judgments_are_consistent(vram_gib):
    total = vram_gib * GIB if vram_gib else None
    usable = usable_vram_bytes(total, 0) if total else 0
    for j in judge_workloads(total):
        w = j.workload
        assert j.verdict in VERDICTS
        assert j.batch_here == max_batch_that_fits(w, usable)
        if j.batch_here:
            assert w.estimate(j.batch_here).total_bytes <= usable
        if 0 < j.batch_here < w.max_batch:
            assert w.estimate(j.batch_here + 1).total_bytes > usable
        assert (j.verdict == VERDICT_RUNS_HERE) == (j.batch_here >= w.min_batch)
        if j.verdict in (VERDICT_NEEDS_COLAB, VERDICT_NEEDS_CLOUD):
            assert j.target is not None and j.batch_target >= w.min_batch
            assert (j.verdict == VERDICT_NEEDS_COLAB) == (j.target.id == "colab_t4")
            assert j.estimate.fits and j.estimate.vram_total_bytes == j.target.vram_bytes
        if j.verdict == VERDICT_TOO_BIG:
            assert j.target is None
        for lang in ("en", "ko"):
            assert "{" not in j.text(lang) and "vram." not in j.text(lang)


def test_no_gpu_means_nothing_runs_here():
    assert all(j.verdict != VERDICT_RUNS_HERE and j.batch_here == 0 for j in judge_workloads(None))
    assert all(j.verdict != VERDICT_RUNS_HERE for j in judge_workloads(0))


@settings(max_examples=25, deadline=None)
@given(small=st.integers(0, 100), extra=st.integers(1, 100))
def test_more_vram_never_makes_a_verdict_worse(small, extra):
    rank = {VERDICT_RUNS_HERE: 0, VERDICT_NEEDS_COLAB: 1, VERDICT_NEEDS_CLOUD: 2, VERDICT_TOO_BIG: 3}
    a = judge_workloads(small * GIB)
    b = judge_workloads((small + extra) * GIB)
    for ja, jb in zip(a, b):
        assert rank[jb.verdict] <= rank[ja.verdict]
        assert jb.batch_here >= ja.batch_here


def test_7b_in_16_bit_does_not_fit_an_8_gb_card_but_4_bit_qlora_needs_far_less():
    """13.5 GB of fp16 weights (vram-reference.json) cannot fit 8 GiB; 4-bit weights are 4× smaller."""
    by_id = {j.workload.id: j for j in judge_workloads(8 * GIB)}
    assert by_id["llm7b_infer_fp16"].verdict != VERDICT_RUNS_HERE
    assert by_id["llm7b_infer_fp16"].min_batch_bytes > 13_476_831_232
    assert by_id["llm7b_qlora"].min_batch_bytes < by_id["llm7b_lora"].min_batch_bytes / 2
    assert by_id["llm7b_infer_4bit"].min_batch_bytes < by_id["llm7b_infer_fp16"].min_batch_bytes / 2


def test_too_big_when_nothing_fits(monkeypatch):
    from wizard.core.vram import workloads as vram_workloads

    w = next(w for w in load_workloads() if w.id == "llm7b_infer_fp16")
    monkeypatch.setattr(vram_workloads, "targets", lambda: [vram_workloads.Target("colab_t4", 8192, 8)])
    j = judge_workload(w, 4 * GIB)
    assert j.verdict == VERDICT_TOO_BIG and j.target is None
    assert format_gib(j.min_batch_bytes) in j.text("en")


def test_report_lines_split_here_and_remote():
    judgments = judge_workloads(8 * GIB)
    here, remote = report_lines(judgments, "ko")
    assert len(here) + len(remote) == len(judgments)
    assert len(here) == sum(j.runs_here for j in judgments) and here and remote
    assert report_headings("ko") == ("이 환경으로 가능한 강의", "Colab/클라우드가 필요한 강의")
    assert all(HANGUL.search(line) for line in here + remote)


# ------------------------------------------------------------------ catalogue of messages

def test_every_generated_message_key_exists():
    keys = set(catalogue())
    wanted = [f"vram.item.{k}" for k in ITEM_KEYS] + [f"vram.mode.{m}" for m in MODES]
    wanted += [f"vram.precision.{p}" for p in PRECISIONS] + [f"vram.assume.optimizer.{o}" for o in OPTIMIZERS]
    wanted += [f"vram.target.{x.id}" for x in targets()] + [f"vram.tier.{x.id}" for x in course_tiers()]
    wanted += [f"vram.workload.{w.id}.{part}" for w in load_workloads() for part in ("title", "setup")]
    wanted += ["vram.lora_targets.qv", "vram.lora_targets.all_linear", "vram.units.explanation"]
    missing = [k for k in wanted if k not in keys]
    assert not missing, missing


def test_every_note_an_estimate_can_make_exists():
    seen = set()
    for spec in catalogue_models():
        for mode in MODES:
            for precision in ("fp32", "fp16", "nf4"):
                if mode == "train" and precision == "nf4":
                    continue
                est = estimate(spec, mode=mode, precision=precision, context=10**6 if spec.kind == "llm" else None,
                               gradient_checkpointing=mode != "train", vram_total_bytes=8 * GIB)
                seen |= {n.key for n in est.notes}
    missing = sorted(k for k in seen if k not in catalogue())
    assert not missing, missing
    assert isinstance(est, Estimate)


def test_cifar_style_resnets_are_in_the_catalogue_with_measured_activations():
    """Course notebooks train ResNet-18 with a 3×3 stem and no max-pool on CIFAR-10: 32×32 maps in
    the first stage, measured 4.49 MiB per image against torchvision's 0.44 at 32 px."""
    style = find_model("resnet18-cifar")
    tv = find_model("resnet18-cifar10")
    assert style.params == 11_173_962 and tv.params == 11_181_642
    a = estimate(style, mode="train", precision="fp32", batch=128)
    b = estimate(tv, mode="train", precision="fp32", batch=128)
    assert a.items["activations"] > 8 * b.items["activations"]
    for name in ("resnet34-cifar", "resnet50-cifar"):
        assert find_model(name).activation_measured and find_model(name).image_size == 32


def test_activation_basis_says_measured_or_rule_of_thumb():
    assert estimate("resnet50", mode="train").activation_basis == "measured"
    assert estimate("bert-base-uncased", mode="train").activation_basis == "measured"
    assert estimate("efficientnet-b0", mode="train").activation_basis == "measured"
    assert estimate("vit-b-16", mode="train").activation_basis == "measured"
    assert estimate("llama-3.2-1b", mode="lora").activation_basis == "rule_of_thumb"
    assert estimate("7B").activation_basis == "none"
    doc = estimate("gpt2", mode="train", context=128).to_json("en")
    assert doc["activation_basis"] == "measured"
    for lang in ("ko", "en"):
        assert t("vram.basis.measured", lang) != t("vram.basis.rule_of_thumb", lang)


def test_inference_uses_the_measured_peak_not_half_the_training_figure():
    spec = find_model("resnet18")
    est = estimate(spec, mode="inference", precision="fp32", batch=4)
    assert math.isclose(est.items["activations"], 4 * spec.activation_inference_mib_per_sample_fp32 * MIB, rel_tol=1e-6)
    assert est.items["activations"] < 0.5 * estimate(spec, mode="train", precision="fp32", batch=4).items["activations"]
