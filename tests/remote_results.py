"""A Colab/SSH check's result file as the cell writes it (recorded probe events of an RTX 3060),
for the tests that read one back: the report's remote machine and the Report page's dialog."""

from __future__ import annotations

from tests import report_sessions as rs


def remote_probe_doc(**over) -> dict:
    """The result document, with ``over``'s keys replaced."""
    doc = {"schema": "gpu-setup-wizard/remote-probe@1.0", "kind": "colab", "form": "colab",
           "made_at": "2026-12-01T10:00:00+09:00", "platform": {"colab": True, "system": "Linux", "python": "3.11"},
           "verify": {"events": rs.probe_events("verify_rtx3060_cu128_linux.jsonl"), "returncode": 0},
           "bench": {"events": rs.probe_events("bench_rtx3060_quick_linux.jsonl"), "returncode": 0},
           "nvidia_smi": rs.SMI_TABLE, "nvidia_smi_error": None}
    doc.update(over)
    return doc
