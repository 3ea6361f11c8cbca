"""``doctor --json`` says where detection time went, and a second run answers from the cache (issue 17).

Real runs of the command on this machine, with the user cache folder in a temporary place; the
numbers themselves are not judged here (benchmarks/detect.sh measures them), only that every part
is reported and that the cached run describes the same interpreters as the first.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PARTS = {"system", "nvidia", "pythons", "conda", "findings", "total"}


def _doctor(tmp_path: Path) -> dict:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "GSW_DATA_DIR": str(tmp_path / "data"),
           "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-m", "wizard", "doctor", "--json", "--include-private"], cwd=REPO,
                         env=env, capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


def test_timings_per_part_and_the_cached_second_run(tmp_path):
    first = _doctor(tmp_path)
    assert PARTS <= set(first["timings"])
    assert all(isinstance(first["timings"][p], int) and first["timings"][p] >= 0 for p in PARTS)
    cache = tmp_path / "cache" / "gpu-setup-wizard" / "pythons.json"
    assert cache.is_file() and json.loads(cache.read_text())["entries"]
    second = _doctor(tmp_path)
    same = ("path", "version", "arch", "bits", "is_venv", "externally_managed", "error")
    assert [{k: p.get(k) for k in same} for p in second["pythons"]] == \
        [{k: p.get(k) for k in same} for p in first["pythons"]]
    assert not any("/shims/" in p["path"] for p in second["pythons"])  # pyenv shims are not run


WARM_MODULES = """
import contextlib, io, json, sys
from wizard.cli import main
with contextlib.redirect_stdout(io.StringIO()) as out:
    main(["doctor", "--json", "--include-private"])
doc = json.loads(out.getvalue())
print(json.dumps({"loaded": sorted(m for m in sys.modules if m in sys.argv[1:]),
                  "conda": len(doc.get("conda") or []), "nvidia": doc["nvidia"].get("driver_version")}))
"""


def test_a_warm_run_loads_no_process_runner_or_thread_pool(tmp_path):
    """With every interpreter in the cache and nothing else to run (no conda, no nvidia-smi here),
    doctor starts no process, so it must not pay for the process runner, concurrent.futures or
    platform (issue 17: they were a sixth of its start)."""
    _doctor(tmp_path)  # fills the interpreter cache
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "GSW_DATA_DIR": str(tmp_path / "data"),
           "PYTHONPATH": str(REPO)}
    watched = ["subprocess", "wizard.core.base.process", "concurrent.futures", "logging", "platform"]
    out = subprocess.run([sys.executable, "-c", WARM_MODULES, *watched], cwd=REPO, env=env, capture_output=True,
                         text=True, timeout=180)
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    if got["conda"] or got["nvidia"] or shutil.which("nvidia-smi"):
        pytest.skip("this machine has conda or an NVIDIA driver: a warm doctor runs them, as it should")
    assert got["loaded"] == []
