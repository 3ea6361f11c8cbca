"""benchmarks/gpu_check.sh and its memory helper, the parts that run without a GPU.

The script itself is for an NVIDIA machine; here it runs with a fake ``nvidia-smi`` on PATH (a
shell script printing fixed outputs for each format) and a Python without a CUDA torch, which
checks the argument handling, the folder layout, the four nvidia-smi captures, doctor --json and
that the torch steps are recorded as skipped, not passed. The helper's CPU path runs against a
real CPU torch.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "benchmarks" / "gpu_check.sh"
HELPER = REPO / "benchmarks" / "gpu_check_memory.py"

FAKE = r"""#!/bin/sh
case "$*" in
  "-q -x") echo '<?xml version="1.0" ?><nvidia_smi_log><driver_version>580.95.05</driver_version></nvidia_smi_log>' ;;
  "-q") printf 'Driver Version                            : 580.95.05\nCUDA Version                              : 13.0\n' ;;
  --query-gpu=*--format=csv) echo "index, name, driver_version"; echo "0, NVIDIA GeForce RTX 3060, 580.95.05" ;;
  --query-gpu=*) echo "0, NVIDIA GeForce RTX 3060, GPU-fake, 00000000:01:00.0, 580.95.05, 8.6, 12288, 300, 11700" ;;
  "") echo "| NVIDIA-SMI 580.95.05   Driver Version: 580.95.05   CUDA Version: 13.0 |" ;;
  *) echo "fake nvidia-smi: unexpected $*" >&2; exit 9 ;;
esac
"""


def run(*args: str, path_dir: Path | None = None, timeout: int = 300) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if path_dir is not None:
        env["PATH"] = f"{path_dir}{os.pathsep}{env['PATH']}"
    return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, timeout=timeout, env=env,
                          cwd=REPO)


@pytest.mark.parametrize("args, code, words", [
    (["--help"], 0, "nvidia-smi"),
    (["--frobnicate"], 2, "unknown argument"),
    (["--budget", "soon"], 2, "whole seconds"),
    (["--python"], 2, "needs a path"),
])
def test_arguments(args, code, words):
    res = run(*args)
    assert res.returncode == code, res.stderr
    assert words in res.stdout + res.stderr


def test_without_a_gpu_the_captures_are_saved_and_torch_steps_skipped(tmp_path):
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    (fake_bin / "nvidia-smi").write_text(FAKE)
    (fake_bin / "nvidia-smi").chmod(0o755)
    out = tmp_path / "check out 김"
    res = run("--python", sys.executable, "--out", str(out), "--budget", "200", path_dir=fake_bin)
    assert res.returncode == 1, res.stdout + res.stderr  # the torch steps could not run: not a pass
    smi = out / "nvidia-smi"
    assert "Driver Version: 580.95.05" in (smi / "table.txt").read_text()
    assert "CUDA Version" in (smi / "q.txt").read_text()
    assert (smi / "q.xml").read_text().startswith("<?xml")
    assert (smi / "query.csv").read_text().startswith("0, NVIDIA GeForce RTX 3060")
    fields = (smi / "query-fields.txt").read_text().strip().split(",")
    assert fields[:2] == ["index", "name"] and "compute_cap" in fields  # the wizard's own query
    doctor = json.loads((out / "wizard" / "doctor.json").read_text(encoding="utf-8"))
    assert isinstance(doctor, dict) and doctor
    steps = {line.split("\t")[0]: line.split("\t")[1]
             for line in (out / "steps.tsv").read_text().splitlines()[1:]}
    assert steps["nvidia-smi-q-x"] == "ok" and steps["doctor"] == "ok"
    assert steps["verify"] == steps["bench-full"] == steps["vram-measure"] == "skipped"
    readme = (out / "README.md").read_text(encoding="utf-8")
    assert "nvidia-smi/query.csv" in readme and "wizard/bench-full.json" in readme


def test_memory_helper_cpu_path(torch_python, tmp_path):
    specs, measured = tmp_path / "specs.json", tmp_path / "measured.json"
    subprocess.run([sys.executable, str(HELPER), "specs", str(specs), "--only", "mnist-cnn,resnet18-cifar"],
                   check=True, cwd=REPO, capture_output=True, timeout=120)
    res = subprocess.run([str(torch_python), str(HELPER), "measure", str(specs), str(measured), "--device", "cpu"],
                         cwd=REPO, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    cuda = subprocess.run([str(torch_python), str(HELPER), "measure", str(specs), str(tmp_path / "x.json"),
                           "--device", "cuda"], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert cuda.returncode != 0 and "cuda.is_available() is False" in cuda.stderr + cuda.stdout
    res = subprocess.run([sys.executable, str(HELPER), "compare", str(measured), str(tmp_path / "t.md"),
                          str(tmp_path / "t.json")], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    rows = json.loads((tmp_path / "t.json").read_text())
    assert {r["model"] for r in rows} == {"mnist-cnn", "resnet18-cifar"}
    for r in rows:
        assert r["method"] == "cpu-saved-tensors" and r["saved_measured"] > 0 and r["saved_estimated"] > 0
        assert "train_measured" not in r  # the CPU has no allocator peak: none is claimed
    assert "| mnist-cnn |" in (tmp_path / "t.md").read_text()
