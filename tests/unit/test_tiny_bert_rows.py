"""The tiny BERT row as the checklist reads it, for the cases this machine cannot run (a GPU, a
broken transformers): the texts fill in both languages and the row sits in the checklist order.
The real runs (CPU with transformers, and without it) are in tests/integration/test_tiny_bert.py."""

from __future__ import annotations

from wizard.core.verify.checklist import VerifyReport
from wizard.core.verify.checks import ORDER


def _report(check):
    return VerifyReport.from_events([{"event": "result", "type": "check", "id": "model.tiny_bert", **check}])


def test_a_gpu_run_reports_shape_and_peak_memory():
    row = _report({"status": "pass", "device": 0, "detail": "tiny_bert_gpu",
                   "params": {"shape": "2x16x128", "expected": "2x16x128", "peak_mib": "9.4", "version": "4.57.1",
                              "params_m": "0.63"},
                   "evidence": {"device": "cuda:0", "shape": [2, 16, 128], "peak_bytes": 9_856_000}}).check(
        "model.tiny_bert")
    assert row.title("en") == "Small model (tiny BERT, no download) (GPU 0)"
    assert "2x16x128" in row.detail_text("en") and "9.4 MiB" in row.detail_text("en")
    assert "9.4 MiB" in row.detail_text("ko") and "GPU" in row.detail_text("ko")


def test_a_broken_transformers_fails_with_the_reinstall_line():
    row = _report({"status": "fail", "cause": "transformers_broken", "fix": "transformers_reinstall",
                   "params": {"python": "C:\\envs\\김\\python.exe"},
                   "evidence": {"exception": "ImportError", "message": "cannot import name 'X'"}}).check(
        "model.tiny_bert")
    assert "transformers" in row.cause_text("ko") and "pip install --upgrade transformers" in row.fix_text("en")
    assert row.to_json("ko")["fix"]


def test_a_wrong_shape_says_what_was_expected():
    row = _report({"status": "fail", "detail": "tiny_bert_shape", "cause": "wrong_result", "fix": "reinstall_torch",
                   "params": {"shape": "2x16x64", "expected": "2x16x128"}}).check("model.tiny_bert")
    assert "2x16x64" in row.detail_text("en") and "2x16x128" in row.detail_text("ko")


def test_the_row_sits_after_the_torch_family_and_before_tensorflow():
    assert ORDER.index("torchaudio") < ORDER.index("model.tiny_bert") < ORDER.index("tensorflow") \
        < ORDER.index("tensorflow.route")
