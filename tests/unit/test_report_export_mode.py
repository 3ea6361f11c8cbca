"""An exported report a teaching assistant must read: a redacted one gets the mode any new file of
the student gets (0o644 with the usual umask), one with the private details stays 0o600."""

from __future__ import annotations

import os
import stat

import pytest

from tests import report_sessions as rs
from wizard.app.report import build, export
from wizard.core.base.files import created_mode, write_atomic

pytestmark = pytest.mark.skipif(os.name == "nt", reason="Windows files have no mode bits to check")


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.mark.parametrize("fmt", ["md", "html", "json"])
def test_a_redacted_export_is_readable_by_others_a_private_one_is_not(tmp_path, fmt):
    old = os.umask(0o022)
    try:
        redacted = export(build(rs.full_session("ko"), now=rs.NOW), fmt, tmp_path / f"공개.{fmt}", "ko")
        private = export(build(rs.full_session("ko"), include_private=True, now=rs.NOW), fmt,
                         tmp_path / f"비공개.{fmt}", "ko")
    finally:
        os.umask(old)
    assert _mode(redacted) == 0o644
    assert _mode(private) == 0o600


def test_the_mode_follows_the_umask_and_a_temporary_file_stays_private(tmp_path):
    old = os.umask(0o027)
    try:
        assert created_mode() == 0o640
        shared = write_atomic(tmp_path / "a.txt", "x", shared=True)
        private = write_atomic(tmp_path / "b.txt", "x")
    finally:
        os.umask(old)
    assert _mode(shared) == 0o640 and _mode(private) == 0o600
