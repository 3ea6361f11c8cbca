"""resources/models.json: well-formed, sourced, and internally consistent.

The strongest check: for every model with an architecture, the parameter count recomputed from
its layers, hidden size, heads and vocabulary equals the catalogue's exact count. A typo in any
architecture number (which the KV cache and activation estimates use) breaks that equality.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from wizard.core.base.resources import load_json, resource_path
from wizard.core.vram.catalogue import SWIGLU_FAMILIES, catalogue_models, find_model
from wizard.core.vram.memory import model_parameter_count, parameter_breakdown

REFERENCE = Path(__file__).resolve().parents[2].parent / "shared" / "reference"


@pytest.fixture(scope="module")
def doc():
    return load_json("models.json")


def test_schema_and_shape(doc):
    assert doc["schema"].split("@")[0] == "gpu-setup-wizard/models"
    assert doc["schema"].split("@")[1].split(".")[0] == "1"
    assert isinstance(doc["models"], list) and len(doc["models"]) >= 20
    required = {"id", "name", "kind", "task", "params", "params_exact", "params_source"}
    for m in doc["models"]:
        assert required <= set(m), m["id"]
        assert m["kind"] in {"llm", "encoder", "image"}, m["id"]
        assert m["task"] in {"lm", "classification"}, m["id"]
        assert isinstance(m["params"], int) and m["params"] > 0, m["id"]
        assert isinstance(m["params_exact"], bool), m["id"]
        assert len(m["params_source"]) > 20, m["id"]


def test_approximate_counts_say_so(doc):
    for m in doc["models"]:
        if not m["params_exact"]:
            assert "approximate" in m["params_source"].lower(), m["id"]


def test_ids_names_and_aliases_are_unambiguous(doc):
    seen: dict[str, str] = {}
    for m in doc["models"]:
        for name in [m["id"], m["name"], m.get("hf_id"), *m.get("aliases", [])]:
            if not name:
                continue
            key = re.sub(r"[\s_]+", "-", name.strip().lower())
            assert seen.setdefault(key, m["id"]) == m["id"], f"{name!r} names {seen[key]} and {m['id']}"


def test_every_name_resolves_to_its_model(doc):
    for m in doc["models"]:
        for name in [m["id"], m["name"], m.get("hf_id"), *m.get("aliases", [])]:
            if name:
                assert find_model(name).id == m["id"]
                assert find_model(name.upper()).id == m["id"]


def test_params_recomputed_from_architecture():
    checked = 0
    for spec in catalogue_models():
        recomputed = model_parameter_count(spec)
        if recomputed is None:
            continue
        assert recomputed == spec.params, f"{spec.id}: {recomputed} from the architecture, {spec.params} in the data"
        checked += 1
    assert checked >= 17


def test_architecture_numbers_are_coherent():
    for spec in catalogue_models():
        a = spec.architecture
        if a is None:
            continue
        assert a.num_heads * a.head_dim == a.hidden_size, spec.id
        assert a.num_kv_heads >= 1 and a.num_heads % a.num_kv_heads == 0, spec.id
        assert a.num_layers >= 1 and a.intermediate_size > a.hidden_size, spec.id
        if a.family != "vit":
            assert a.vocab_size > 1000, spec.id
        if spec.default_context is not None and a.max_position_embeddings:
            assert 1 <= spec.default_context <= a.max_position_embeddings, spec.id
        if a.family in SWIGLU_FAMILIES or a.family == "gpt2":
            assert spec.kind == "llm" and spec.task == "lm", spec.id


def test_llms_carry_what_the_kv_cache_needs(doc):
    for m in doc["models"]:
        if m["kind"] != "llm":
            continue
        a = m["architecture"]
        for key in ("num_layers", "num_kv_heads", "head_dim", "hidden_size", "vocab_size", "max_position_embeddings"):
            assert isinstance(a[key], int) and a[key] > 0, (m["id"], key)
        assert m["default_context"] > 0, m["id"]
        assert len(m["architecture_source"]) > 20, m["id"]


def test_image_models_carry_an_activation_figure(doc):
    for m in doc["models"]:
        if m["kind"] != "image":
            continue
        assert m["image_size"] >= 28, m["id"]
        if "architecture" in m:  # ViT: transformer arithmetic instead of a per-image figure
            continue
        assert m["activation_mib_per_sample_fp32"] > 0, m["id"]
        if m.get("activation_measured"):  # tests/vram_measure.py, autograd's saved tensors
            assert "measured" in m["activation_source"] and m["activation_inference_mib_per_sample_fp32"] > 0, m["id"]
            assert m["activation_reference_size"] == m["image_size"], m["id"]
        else:  # the rule of thumb, said as such
            assert m["activation_approximate"] is True, m["id"]
            assert "torchsummary" in m["activation_source"], m["id"]


def test_accelerate_counts_are_the_model_without_lm_head():
    """accelerate's AutoModel drops an untied LM head and keeps everything else."""
    checked = 0
    for spec in catalogue_models():
        if spec.accelerate is None:
            continue
        b = parameter_breakdown(spec.architecture)
        assert spec.accelerate.automodel_params == spec.params - b.head, spec.id
        assert spec.accelerate.buffer_bytes_fp32 >= spec.accelerate.embeddings_buffer_bytes_fp32 >= 0
        checked += 1
    assert checked >= 8


def test_catalogue_covers_the_course_list():
    wanted = ["bert-tiny", "distilbert", "bert-base-uncased", "bert-large-uncased", "gpt2", "gpt2-medium",
              "resnet18", "resnet50", "efficientnet-b0", "vit-b-16", "mnist-cnn", "cifar10-cnn",
              "meta-llama/Llama-2-7b-hf", "meta-llama/Llama-2-13b-hf", "meta-llama/Llama-2-70b-hf",
              "mistralai/Mistral-7B-v0.1", "meta-llama/Meta-Llama-3-8B"]
    for name in wanted:
        find_model(name)
    small_current = [m for m in catalogue_models()
                     if m.kind == "llm" and m.params < 4 * 10**9 and m.architecture.family in SWIGLU_FAMILIES]
    assert len(small_current) >= 3


# An absolute folder path (POSIX "/x/…" not inside a URL or a word, or a Windows user folder):
# data files are shared by every machine and must name none of them.
ABSOLUTE_PATH = re.compile(r"(?<![\w.:/\\])/[A-Za-z_][\w.-]*/|[A-Z]:\\\\Users")


def test_the_path_pattern_sees_home_folders_but_not_urls():
    assert ABSOLUTE_PATH.search('"see /home/kim/envs"') and ABSOLUTE_PATH.search('"C:\\\\Users\\\\kim"')
    assert not ABSOLUTE_PATH.search('"https://huggingface.co/meta-llama/x" and fp16/bf16')


def test_data_files_hold_no_machine_paths():
    for name in ("models.json", "workloads.json", "i18n/vram.json"):
        text = resource_path(*name.split("/")).read_text(encoding="utf-8")
        assert not ABSOLUTE_PATH.search(text), (name, ABSOLUTE_PATH.search(text).group(0))


def test_counts_agree_with_reference_notes():
    path = REFERENCE / "vram-reference.json"
    if not path.exists():
        pytest.skip("../shared/reference/vram-reference.json is absent")
    entries = json.loads(path.read_text(encoding="utf-8"))["entries"]
    by_model: dict[str, set[int]] = {}
    for e in entries:
        if "example" not in e["model"]:
            by_model.setdefault(e["model"], set()).add(int(e["params"]))
    for name, counts in by_model.items():
        spec = find_model(name)
        allowed = {spec.params} | ({spec.accelerate.automodel_params} if spec.accelerate else set())
        assert counts <= allowed, (name, counts, allowed)
