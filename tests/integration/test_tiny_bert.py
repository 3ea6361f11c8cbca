"""The tiny BERT check, run for real by the verification probe in a real torch environment.

* Without transformers (the shared torch venv): the row is a skip that says how to add it.
* With transformers from the package registry, in a venv that sees the shared torch venv's
  packages through a ``.pth`` file (no second copy of torch): the row passes on the CPU with the
  output shape (2, 16, 128), and nothing is asked of the Hub -- the Hub's address points at a
  closed local port and the Hugging Face home stays empty.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from wizard.core.verify.checklist import run_verify

pytestmark = pytest.mark.slow

SKIP = ("collect_env", "tensorflow")


def _site_packages(py: Path) -> str:
    out = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


@pytest.fixture(scope="module")
def bert_python(torch_python, tmp_path_factory) -> Path:
    env_dir = tmp_path_factory.mktemp("bert env") / "venv"
    venv.create(env_dir, with_pip=False, symlinks=os.name != "nt")
    py = env_dir / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    Path(_site_packages(py), "gsw_test_torch.pth").write_text(_site_packages(torch_python) + "\n", encoding="utf-8")
    try:
        res = subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-compile", "-q",
                              "--disable-pip-version-check", "transformers"],
                             capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        pytest.skip("installing transformers from the registry took over 10 minutes")
    if res.returncode != 0:
        pytest.skip(f"transformers could not be installed from the registry: {res.stderr[-600:]}")
    check = subprocess.run([str(py), "-c", "import torch, transformers; print(transformers.__version__)"],
                           capture_output=True, text=True, timeout=300)
    if check.returncode != 0:
        pytest.skip(f"transformers installed but does not import beside torch here: {check.stderr[-600:]}")
    return py


def _no_hub(monkeypatch, tmp_path) -> Path:
    hf_home = tmp_path / "hf home"
    hf_home.mkdir()
    monkeypatch.setenv("HF_HOME", str(hf_home))
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # the discard port: any request would fail
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    return hf_home


def test_without_transformers_the_row_is_a_skip_with_the_way_to_add_it(torch_python, monkeypatch, tmp_path):
    has = subprocess.run([str(torch_python), "-c", "import importlib.util as u; print(u.find_spec('transformers'))"],
                         capture_output=True, text=True, timeout=60)
    if has.stdout.strip() != "None":
        pytest.skip("the torch environment of this run already has transformers")
    _no_hub(monkeypatch, tmp_path)
    report = run_verify(str(torch_python), skip=SKIP, timeout=600)
    row = report.check("model.tiny_bert")
    assert row is not None and row.status == "skip"
    for lang in ("en", "ko"):
        text = row.detail_text(lang)
        assert "pip install transformers" in text and str(torch_python) in text
    assert row.fix == "add_transformers"
    assert "pip install transformers" in row.fix_text("en")


def test_with_transformers_the_tiny_bert_runs_on_the_cpu_offline(bert_python, monkeypatch, tmp_path):
    hf_home = _no_hub(monkeypatch, tmp_path)
    report = run_verify(str(bert_python), skip=SKIP, timeout=600)
    row = report.check("model.tiny_bert")
    assert row is not None, [c.id for c in report.checks]
    assert row.status == "pass", row.to_json("en")
    ev = row.evidence
    assert ev["shape"] == [2, 16, 128] and ev["device"] == "cpu" and ev["peak_bytes"] is None
    assert ev["hub_offline"] == "1" and ev["finite"] is True
    assert 100_000 < ev["parameters"] < 2_000_000  # BertConfig(128 hidden, 2 layers, 1000 words): ~0.6 M
    assert row.detail == "tiny_bert_cpu"
    assert "2x16x128" in row.detail_text("en") and "CPU" in row.detail_text("en")
    assert "CPU" in row.detail_text("ko")
    assert not any(hf_home.rglob("*")), list(hf_home.rglob("*"))  # nothing fetched, nothing cached
    # the probe's other rows are untouched by the new one
    assert report.check("cpu.matmul").status == "pass"
