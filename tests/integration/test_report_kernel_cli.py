"""``report --kernel NAME``: the checklist run inside a real Jupyter kernel first (real ipykernel,
jupyter_client, a real venv with the CPU torch wheel), and the report's "Jupyter kernel" section.
Slow: a venv, a kernel start and a verification run."""

from __future__ import annotations

import json

import pytest

from tests.cli_runner import run_cli
from wizard.app import kernels as app_kernels
from wizard.app.session import Session

pytestmark = pytest.mark.slow


def test_report_with_a_kernel_runs_the_check_inside_it_and_adds_its_row(kernel_python, kernel_data_dir):
    result = app_kernels.register(Session(lang="en"), str(kernel_python), consent=True)
    assert result.ok, result.to_json()
    run = run_cli("report", "--json", "--kernel", result.name)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    doc = json.loads(run.stdout)
    section = next(s for s in doc["sections"] if s["id"] == "kernel")
    item = section["items"][0]
    assert item["label"] == f"Notebook kernel {result.display_name}"
    assert "runs the CPU build of PyTorch 2.13.0" in item["value"] or "sees the GPU" in item["value"]
    assert item["details"][0].startswith("Checklist inside the kernel: ")
    assert "Verifying inside the Jupyter kernel" in run.stderr


def test_report_with_an_unknown_kernel_is_a_plain_message(kernel_data_dir):
    run = run_cli("report", "--kernel", "no-such-kernel-here")
    assert run.returncode != 0
    assert "Traceback" not in run.stderr
    assert "no-such-kernel-here" in run.stderr
