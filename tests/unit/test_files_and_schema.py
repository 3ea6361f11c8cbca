"""The one atomic write and the one schema check every saved or imported JSON goes through."""

from __future__ import annotations

import json
import os

import pytest

from wizard.core.base import files
from wizard.core.base.files import atomic_path, replace_file, write_atomic
from wizard.core.base.schema import SchemaError, check_schema, load_schema_json


# --- write_atomic -----------------------------------------------------------------------------
def test_writes_text_and_bytes_and_replaces_the_old_file(tmp_path):
    target = tmp_path / "보고서 report.md"
    assert write_atomic(target, "첫 번째\n") == target
    assert target.read_text(encoding="utf-8") == "첫 번째\n"
    write_atomic(target, b"second")
    assert target.read_bytes() == b"second"
    assert [p.name for p in tmp_path.iterdir()] == [target.name]  # no temporary file left


def test_mkdir_creates_the_folder(tmp_path):
    target = tmp_path / "a" / "b" / "state.json"
    write_atomic(target, "{}", mkdir=True)
    assert target.read_text() == "{}"


def test_a_failed_rename_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "snapshot.json"
    target.write_text("old", encoding="utf-8")

    def disk_full(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", disk_full)
    with pytest.raises(OSError, match="No space left"):
        write_atomic(target, "new")
    assert target.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["snapshot.json"]


def test_windows_retries_a_rename_a_virus_scanner_blocks(tmp_path, monkeypatch):
    """A scanner holding the new file for a moment: PermissionError a few times, then it works."""
    real_replace = os.replace
    refusals = []

    def held_for_a_moment(src, dst):
        if len(refusals) < 3:
            refusals.append(dst)
            raise PermissionError(13, "The process cannot access the file")
        real_replace(src, dst)

    monkeypatch.setattr(files.sys, "platform", "win32")
    monkeypatch.setattr(files, "REPLACE_RETRY_DELAY_S", 0.0)
    monkeypatch.setattr(os, "replace", held_for_a_moment)
    target = tmp_path / "report.json"
    write_atomic(target, "{}")
    assert target.read_text() == "{}" and len(refusals) == 3


def test_elsewhere_a_permission_error_is_not_retried(tmp_path, monkeypatch):
    calls = []

    def refuse(src, dst):
        calls.append(dst)
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(files.sys, "platform", "linux")
    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(PermissionError):
        replace_file(tmp_path / "a", tmp_path / "b")
    assert len(calls) == 1


def test_atomic_path_for_writers_that_need_a_file_name(tmp_path):
    target = tmp_path / "report.pdf"
    with atomic_path(target, suffix=".pdf") as tmp:
        assert tmp.parent == tmp_path and tmp != target
        tmp.write_bytes(b"%PDF-1.4")
    assert target.read_bytes() == b"%PDF-1.4"
    with pytest.raises(RuntimeError):
        with atomic_path(target) as tmp:
            tmp.write_bytes(b"half")
            raise RuntimeError("the writer failed")
    assert target.read_bytes() == b"%PDF-1.4"
    assert [p.name for p in tmp_path.iterdir()] == ["report.pdf"]


# --- check_schema -------------------------------------------------------------------------------
KIND = "gpu-setup-wizard/report"


@pytest.mark.parametrize("version", ["1.0", "1.7", "1"])
def test_any_minor_of_the_supported_major_is_read(version):
    assert check_schema({"schema": f"{KIND}@{version}"}, KIND, "1.0") == version
    assert check_schema({"schema": f"{KIND}@{version}"}, KIND, 1) == version


@pytest.mark.parametrize("doc,key", [
    ({"schema": f"{KIND}@2.0"}, "common.schema.wrong_major"),
    ({"schema": "gpu-setup-wizard/doctor@1.0"}, "common.schema.wrong_kind"),
    ({"no": "schema"}, "common.schema.not_ours"),
    (["a", "list"], "common.schema.not_ours"),
    ({"schema": 3}, "common.schema.not_ours"),
])
def test_other_documents_are_refused_in_both_languages(doc, key):
    with pytest.raises(SchemaError) as info:
        check_schema(doc, KIND, "1.0")
    err = info.value
    assert err.message.key == key
    en, ko = err.text("en"), err.text("ko")
    assert KIND in en and KIND in ko and en != ko


def test_the_error_class_is_the_callers_own():
    class ReportError(SchemaError):
        pass

    with pytest.raises(ReportError):
        check_schema({"schema": f"{KIND}@9.0"}, KIND, "1.0", ReportError)


def test_load_schema_json():
    doc = {"schema": f"{KIND}@1.2", "x": 1}
    assert load_schema_json(json.dumps(doc), KIND, "1.0") == doc
    with pytest.raises(SchemaError) as info:
        load_schema_json("{not json", KIND, "1.0")
    assert info.value.message.key == "common.schema.not_json"
