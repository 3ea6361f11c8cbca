"""The report's "Jupyter kernel" section: the checklist run inside a notebook kernel, recorded.

Built through the app layer from a session, as the Verify page's Jupyter panel leaves it
(``app.kernels.remember_verify``), with VerifyReports made from recorded probe outputs.
"""

from __future__ import annotations

import json

from tests import report_sessions as rs
from wizard.app import kernels as app_kernels
from wizard.app.report import build, export_json, export_markdown
from wizard.core.report.document import FAIL, PASS, SECTION_ORDER
from wizard.core.verify.checklist import VerifyReport


def _session_with_kernel(probe: str, lang: str = "en"):
    s = rs.full_session(lang)
    report = VerifyReport.from_events(rs.probe_events(probe), detection=s.detection, python_exe="python")
    app_kernels.remember_verify(s, "PyTorch 2.x (GPU) – dl-course", report)
    return s, report


def test_a_kernel_that_sees_the_gpu_is_a_passing_row_with_the_counts():
    s, verify = _session_with_kernel("verify_rtx3060_cu128_linux.jsonl")
    report = build(s, lang="en")
    assert [sec.id for sec in report.sections] == [*SECTION_ORDER, "kernel"]
    item = report.item("kernel", "kernel")
    assert item.status == PASS
    assert item.value.startswith("The notebook kernel PyTorch 2.x (GPU) – dl-course sees the GPU")
    counts = verify.counts()
    assert item.details[0] == (f"Checklist inside the kernel: {counts['pass']} passed, {counts['warn']} warnings, "
                               f"{counts['fail']} failed, {counts['skip']} skipped.")
    md = export_markdown(s, lang="en")
    assert "Jupyter kernel" in md and "sees the GPU" in md
    doc = json.loads(export_json(s, lang="en"))
    section = next(sec for sec in doc["sections"] if sec["id"] == "kernel")
    assert section["items"][0]["status"] == PASS


def test_a_kernel_with_the_cpu_build_on_a_gpu_machine_says_so_and_fails():
    s, _ = _session_with_kernel("verify_cpu_only_on_gpu_windows.jsonl", lang="ko")
    report = build(s, lang="ko")
    item = report.item("kernel", "kernel")
    assert item.status == FAIL
    assert "CPU 빌드" in item.value and item.label.startswith("노트북 커널")


def test_no_kernel_result_means_no_kernel_section():
    report = build(rs.full_session("en"), lang="en")
    assert [sec.id for sec in report.sections] == list(SECTION_ORDER)
