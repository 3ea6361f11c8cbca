"""A redacted PDF report is readable by others, as any file the student makes (the other formats:
tests/unit/test_report_export_mode.py)."""

from __future__ import annotations

import os
import stat

import pytest

from tests import report_sessions as rs
from wizard.app.report import build, export


@pytest.mark.skipif(os.name == "nt", reason="Windows files have no mode bits to check")
def test_a_redacted_pdf_is_readable_by_others(qapp, tmp_path):
    old = os.umask(0o022)
    try:
        pdf = export(build(rs.full_session("ko"), now=rs.NOW), "pdf", tmp_path / "보고서.pdf", "ko")
    finally:
        os.umask(old)
    assert pdf.read_bytes().startswith(b"%PDF") and stat.S_IMODE(os.stat(pdf).st_mode) == 0o644
