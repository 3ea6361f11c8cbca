"""`verify --python` and `bench --python` as a student runs them, on a real torch environment."""

from __future__ import annotations

import json
import os

import pytest

from tests.cli_runner import run_cli

pytestmark = pytest.mark.slow


def test_verify_json_contract_on_a_cpu_build(torch_python):
    out = run_cli("verify", "--python", str(torch_python), "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["schema"] == "gpu-setup-wizard/verify@1.0"
    checks = {c["id"]: c for c in doc["checks"]}
    for c in doc["checks"]:
        assert {"id", "status", "detail"} <= set(c)
        assert c["status"] in ("pass", "warn", "fail", "skip")
    assert checks["torch.import"]["status"] == "pass"
    # a CPU build on a machine without a GPU is the right build: a pass that carries a note
    assert checks["cuda.build"]["status"] == "pass" and checks["cuda.build"].get("cause")
    assert checks["cpu.matmul"]["status"] == "pass"
    assert "…" in out.stderr  # progress went to stderr, stdout stayed JSON


def test_verify_on_an_env_without_torch_fails_with_the_fix(tmp_path):
    import venv

    env = tmp_path / "빈 env"
    venv.create(env, with_pip=False)
    py = env / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    out = run_cli("verify", "--python", str(py), lang="ko")
    assert out.returncode == 1
    assert "Traceback" not in out.stdout + out.stderr and "설치" in out.stdout


def test_bench_quick_json(torch_python):
    out = run_cli("bench", "--python", str(torch_python), "--quick", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["schema"] == "gpu-setup-wizard/bench@1.0"
    cpu = [r for r in doc["results"] if r["device"] == "cpu"]
    assert cpu and all({"id", "device", "dtype", "size", "median_s", "iqr_s", "value", "unit"} <= set(r) for r in cpu)
    assert all(r["value"] > 0 for r in cpu)


def test_missing_python_is_a_clear_error():
    out = run_cli("verify", "--python", "/no/such/python")
    assert out.returncode == 2 and "No Python interpreter" in out.stderr
