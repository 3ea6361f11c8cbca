"""`gpu-setup-wizard vram` as a student runs it."""

from __future__ import annotations

import json

import pytest

from tests.cli_runner import run_cli


def test_json_contract_for_a_typed_in_card():
    out = run_cli("vram", "--vram-gb", "8", "--model", "llama-2-7b", "--dtype", "nf4", "--context", "4096", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["schema"] == "gpu-setup-wizard/vram@1.0"
    assert set(doc["items"]) == {"weights", "gradients", "optimizer", "activations", "kv_cache", "overhead"}
    assert doc["total_bytes"] == sum(doc["items"].values())
    assert doc["usable_bytes"] == 7 * 2**30  # 8 GiB − 1 GiB CUDA context reserve
    assert doc["fits"] is (doc["total_bytes"] <= doc["usable_bytes"])
    assert doc["items"]["kv_cache"] == 2 * 2**30  # Llama-2-7B, 4096 tokens, fp16 KV: 2 GiB
    verdicts = {w["id"]: w["verdict"] for w in doc["workloads"]}
    assert len(verdicts) >= 8 and set(verdicts.values()) <= {"runs_here", "needs_colab", "needs_cloud", "too_big"}


def test_custom_size_training_matches_the_zero_paper_bound():
    """ZeRO: 1.5B parameters need ≥ 24 GB to train with Adam in mixed precision (16 B/param)."""
    doc = json.loads(run_cli("vram", "--vram-gb", "80", "--params", "1.5B", "--mode", "train", "--json").stdout)
    assert doc["items"]["weights"] + doc["items"]["gradients"] + doc["items"]["optimizer"] >= 24 * 10**9


@pytest.mark.parametrize("args,needle", [
    (("--params", "7X"), "7X"),
    (("--params=-3B",), "-3B"),
    (("--params", "0"), "0"),
    (("--params", "900T"), "900T"),
    (("--vram-gb", "-8"), "--vram-gb"),
    (("--vram-gb", "eight"), "--vram-gb"),
    (("--model", "no-such-model"), "no-such-model"),
    (("--model", "gpt2", "--batch", "0"), "0"),
])
def test_bad_input_is_a_clear_message(args, needle):
    out = run_cli("vram", *args)
    assert out.returncode == 2, out.stdout
    assert needle in out.stderr and "Traceback" not in out.stderr


def test_korean_text_output():
    out = run_cli("vram", "--vram-gb", "24", "--model", "bert-base-uncased", "--mode", "train", lang="ko")
    assert out.returncode == 0, out.stderr
    assert "합계" in out.stdout and "강의별 판단" in out.stdout and "GiB" in out.stdout


def test_list_models():
    out = run_cli("vram", "--list-models")
    assert out.returncode == 0 and "llama-2-7b" in out.stdout.lower()
