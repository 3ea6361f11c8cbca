"""doctor --explain, doctor --compare-last and history, as a student runs them (real processes)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def run_cli(*args: str, stdin: str | None = None, data_dir: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "GSW_LANG": "en"}
    if data_dir is not None:
        env["GSW_DATA_DIR"] = str(data_dir)
    return subprocess.run([sys.executable, "-m", "wizard", *args], cwd=REPO, input=stdin, capture_output=True,
                          text=True, encoding="utf-8", timeout=120, env=env)


def test_explain_recognises_a_pasted_traceback():
    text = ("Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n"
            "    x = torch.zeros(1).cuda()\n"
            "AssertionError: Torch not compiled with CUDA enabled\n")
    out = run_cli("doctor", "--explain", "-", "--json", stdin=text)
    assert out.returncode == 0, out.stderr
    ids = [f["id"] for f in json.loads(out.stdout)["findings"]]
    assert "cpu-only-torch-installed" in ids


def test_explain_unrelated_text_says_nothing_recognised():
    out = run_cli("doctor", "--explain", "-", stdin="hello world, my model trains fine\n")
    assert out.returncode == 1 and "Traceback" not in out.stderr


def test_compare_last_saves_and_then_compares(tmp_path):
    first = run_cli("doctor", "--compare-last", data_dir=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "nothing to compare" in first.stdout
    second = run_cli("doctor", "--compare-last", "--json", data_dir=tmp_path)
    assert second.returncode == 0, second.stderr
    assert "changes" in json.loads(second.stdout)
    listing = run_cli("history", "list", data_dir=tmp_path)
    assert listing.returncode == 0 and listing.stdout.count("\n") >= 2
