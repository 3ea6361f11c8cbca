"""doctor --explain, doctor --compare-last and history, as a student runs them (the real command line, in-process)."""

from __future__ import annotations

import json

from tests.cli_runner import run_cli


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
