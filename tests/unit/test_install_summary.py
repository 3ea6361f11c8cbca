"""The finished install, typed once: the job's document read into fields, and anything of the
wrong type (a hand-edited or hostile file) read as absent, never as a crash."""

from __future__ import annotations

from tests import report_sessions as rs
from wizard.app.install import record_install
from wizard.app.session import Session
from wizard.core.install.summary import InstalledPackage, InstallSummary


def test_the_job_document_becomes_fields():
    doc = rs.install_summary("/envs/dl", "2.8.0+cu128", "0.23.0+cu128", "https://download.pytorch.org/whl/cu128")
    s = InstallSummary.from_json(doc)
    assert s.ok and s.status == "complete" and s.env_path == "/envs/dl"
    assert s.installed == (InstalledPackage("torch", "2.8.0+cu128"), InstalledPackage("torchvision", "0.23.0+cu128"))
    assert s.version_of("TORCH") == "2.8.0+cu128" and s.version_of("numpy") is None
    assert s.index_url == "https://download.pytorch.org/whl/cu128" and s.error is None


def test_wrong_types_read_as_absent():
    s = InstallSummary.from_json({"ok": "yes", "env_python": 3, "installed": [{"name": None}, "torch", {"name": "x"}],
                                  "error": "boom", "downloaded_bytes": True, "elapsed_s": "1", "imports": []})
    assert s.ok is False and s.env_python is None and s.installed == (InstalledPackage("x", ""),)
    assert s.error is None and s.downloaded_bytes == 0 and s.elapsed_s == 0.0 and dict(s.imports) == {}


def test_recording_an_install_keeps_it_typed_and_sets_the_python_verify_checks():
    session = Session(lang="en")
    typed = record_install(session, {"ok": True, "env_python": "/envs/dl/bin/python", "installed": []})
    assert isinstance(session.install, InstallSummary) and session.install is typed
    assert session.target_python == "/envs/dl/bin/python"
