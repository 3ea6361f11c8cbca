"""History snapshots: atomic writes, forgiving reads (truncated, foreign, future schema), a data dir
that cannot be written, and the ``history list|show|diff`` commands."""

from __future__ import annotations

import datetime as dt
import json
import os
import stat

import pytest

from tests import scenarios
from tests.cli_runner import run_cli
from wizard.cli.exit_status import ExitStatus
from wizard.core.diagnosis.facts import TorchFacts
from wizard.core.diagnosis.model import Diagnosis
from wizard.core.diagnosis.rules import diagnose
from wizard.core.history.store import (
    SCHEMA,
    BenchHeadline,
    HistoryStore,
    Snapshot,
    benchmark_headlines,
    build_snapshot,
    default_history_dir,
)
from wizard.core.machine.detect import detect
from wizard.core.machine.models import Detection, GpuInfo, NvidiaInfo, SystemInfo

T0 = dt.datetime(2026, 11, 1, 9, 0, tzinfo=dt.timezone.utc)


def detection(driver="566.36", cuda="12.7", uuid="GPU-5b9a6c1e-3f7d-4e2a-9c41-7d2e8f0a1b23", build="22631") -> Detection:
    gpu = GpuInfo(0, name="NVIDIA GeForce RTX 4070 Laptop GPU", uuid=uuid, pci_bus_id="00000000:01:00.0",
                  compute_capability="8.9", memory_total_mib=8188)
    return Detection(system=SystemInfo(os="windows", os_pretty="Windows 11 Home 23H2", os_build=build, arch="x86_64"),
                     nvidia=NvidiaInfo(status="ok", driver_version=driver, cuda_version=cuda, gpus=[gpu]))


def snap(minutes=0, **kw) -> Snapshot:
    torch = kw.pop("torch", TorchFacts(version="2.6.0+cu126", cuda="12.6", is_available=True, python_version="3.11.9",
                                       env_path="C:\\Users\\김철수\\envs\\dl"))
    return build_snapshot(detection(**kw), torch=torch, findings=[], now=T0 + dt.timedelta(minutes=minutes),
                          benchmark={"matmul/cuda/fp16/4096": BenchHeadline(61.2, "TFLOP/s", True, 0.02)})


def files(root):
    return sorted(p.name for p in root.iterdir())


# ---------------------------------------------------------------------------------------------
# Snapshots
# ---------------------------------------------------------------------------------------------
def test_snapshot_round_trip_keeps_what_a_comparison_needs(tmp_path):
    store = HistoryStore(tmp_path)
    s = snap()
    result = store.save(s)
    assert result.ok and result.error is None
    assert result.path.name == "snapshot-20261101T090000Z.json"
    doc = json.loads(result.path.read_text(encoding="utf-8"))
    assert doc["schema"] == "gpu-setup-wizard/snapshot@1.0"
    assert doc["nvidia"]["gpus"][0]["uuid"] == "GPU-5b9a6c1e-3f7d-4e2a-9c41-7d2e8f0a1b23"
    assert "김철수" in result.path.read_text(encoding="utf-8")  # UTF-8, not escaped
    (entry,) = store.entries()
    assert entry.number == 1 and entry.snapshot == s
    assert store.warnings == []


def test_snapshot_from_a_real_detection_keeps_findings_and_scopes():
    d = detect(scenarios.linux_driver_mismatch(), pythons=False, conda=False)
    torch = TorchFacts(version="2.6.0+cu126", cuda="12.6", python_version="3.11.9")
    found = diagnose(d, torch)
    s = build_snapshot(d, findings=found, torch=torch, now=T0)
    assert s.nvidia_status == "version-mismatch" and s.driver_version is None
    assert s.pending_driver_version == "581.15"
    assert s.finding_ids() == ["nvml-driver-library-version-mismatch"]
    assert s.scopes == ["detection", "torch"]
    assert Snapshot.from_json(json.loads(json.dumps(s.to_json()))) == s


def test_finding_params_survive_for_titles_later():
    d = detection()
    f = Diagnosis("cuda-visible-devices-hides-gpus", "error", {"value": "", "visible": 0, "total": 1}, "x", "none",
                  scope="env")
    s = build_snapshot(d, findings=[f], now=T0)
    back = Snapshot.from_json(json.loads(json.dumps(s.to_json())))
    assert back.findings[0].as_finding().cause("en") == f.cause("en")
    assert back.scopes == ["detection", "env"]


def test_benchmark_headlines_from_probe_measurements():
    lines = [
        {"id": "matmul", "device": "cuda", "dtype": "fp16", "size": 4096, "value": 61.2, "unit": "TFLOP/s",
         "median_s": 0.00225, "iqr_s": 0.00009},
        {"id": "transfer_h2d", "device": "cuda", "value": 12.1, "unit": "GB/s", "median_s": 0.005, "iqr_s": None},
        {"id": "mlp_epoch", "device": "cpu", "value": 3.2, "unit": "s"},
        {"id": "broken", "device": "cuda", "value": None, "unit": "GB/s"},
        {"id": "nan", "device": "cuda", "value": float("nan"), "unit": "GB/s"},
    ]
    out = benchmark_headlines(lines)
    assert set(out) == {"matmul/cuda/fp16/4096", "transfer_h2d/cuda", "mlp_epoch/cpu"}
    assert out["matmul/cuda/fp16/4096"].spread == pytest.approx(0.04)
    assert out["transfer_h2d/cuda"].spread is None and out["mlp_epoch/cpu"].higher_is_better is False
    assert set(benchmark_headlines(lines, wanted=["mlp_epoch/cpu"])) == {"mlp_epoch/cpu"}


# ---------------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------------
def test_saves_never_overwrite_an_existing_file(tmp_path):
    store = HistoryStore(tmp_path)
    squatter = tmp_path / "snapshot-20261101T090000Z.json"
    squatter.write_bytes(b"somebody else's bytes")
    first, second = store.save(snap()), store.save(snap())
    assert first.path.name == "snapshot-20261101T090000Z-2.json"
    assert second.path.name == "snapshot-20261101T090000Z-3.json"
    assert squatter.read_bytes() == b"somebody else's bytes"
    assert [e.path.name for e in store.entries()] == [first.path.name, second.path.name]


def test_write_is_atomic_a_failed_rename_leaves_nothing_behind(tmp_path, monkeypatch):
    store = HistoryStore(tmp_path)
    store.save(snap())
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}

    def failing_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", failing_replace)
    monkeypatch.setattr(os, "link", failing_replace)  # the name is claimed with a hard link, else a replace
    result = store.save(snap(minutes=5))
    assert not result.ok and "No space left on device" in result.error.text("en")
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before  # no temp file, no partial file


def test_a_temp_file_from_a_crash_is_ignored(tmp_path):
    store = HistoryStore(tmp_path)
    store.save(snap())
    (tmp_path / ".tmp-abc123.json").write_text('{"schema": "gpu-setup-wizard/snapsh', encoding="utf-8")
    assert len(store.entries()) == 1 and store.warnings == []


def _write_permission_is_enforced(folder) -> bool:
    probe = folder / "probe"
    try:
        probe.write_text("x")
    except OSError:
        return True
    probe.unlink()
    return False


def test_read_only_data_dir_gives_a_message_and_the_run_goes_on(tmp_path):
    root = tmp_path / "history"
    HistoryStore(root).save(snap())
    root.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        if not _write_permission_is_enforced(root):
            pytest.skip("running as root: file permissions are not enforced (see the parent-is-a-file test)")
        result = HistoryStore(root).save(snap(minutes=1))
        assert not result.ok and result.path is None
        assert str(root) in result.error.text("en") and "저장하지 못했습니다" in result.error.text("ko")
        assert len(HistoryStore(root).entries()) == 1  # reading still works
    finally:
        root.chmod(stat.S_IRWXU)


def test_data_dir_under_a_file_cannot_be_created(tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the data folder should be")
    store = HistoryStore(blocker / "history")
    result = store.save(snap())
    assert not result.ok and str(blocker / "history") in result.error.text("en")
    assert store.entries() == []  # listing a folder that cannot exist is empty, not a crash
    assert blocker.read_text() == "a file where the data folder should be"


def test_data_dir_that_is_a_file_warns_on_listing(tmp_path):
    blocker = tmp_path / "history"
    blocker.write_text("x")
    store = HistoryStore(blocker)
    assert store.entries() == [] and store.warnings and store.warnings[0].key == "history.warn.cannot_read"


# ---------------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------------
def test_truncated_file_is_skipped_with_a_warning_and_left_alone(tmp_path):
    store = HistoryStore(tmp_path)
    good = store.save(snap()).path
    data = store.save(snap(minutes=1)).path
    cut = data.read_bytes()[:120]
    data.write_bytes(cut)
    entries = store.entries()
    assert [e.path for e in entries] == [good]
    (warning,) = store.warnings
    assert warning.key == "history.warn.corrupt" and data.name in warning.text("en")
    assert data.read_bytes() == cut
    store.save(snap(minutes=2))  # a later save does not touch it either
    assert data.read_bytes() == cut


def test_future_schema_is_skipped_not_overwritten(tmp_path):
    store = HistoryStore(tmp_path)
    store.save(snap())
    future = tmp_path / "snapshot-20271231T235959Z.json"
    doc = {**snap(minutes=2).to_json(), "schema": f"{SCHEMA}@2.0", "new_field": [1, 2]}
    future.write_text(json.dumps(doc), encoding="utf-8")
    raw = future.read_bytes()
    entries = store.entries()
    assert len(entries) == 1 and entries[0].snapshot.time.startswith("2026-11-01")
    (warning,) = store.warnings
    assert warning.key == "history.warn.foreign" and "2.0" in warning.text("en")
    assert future.read_bytes() == raw


def test_newer_minor_version_still_reads(tmp_path):
    doc = {**snap().to_json(), "schema": f"{SCHEMA}@1.7", "something_new": {"x": 1}}
    doc["nvidia"]["gpus"][0]["new_gpu_field"] = 3
    (tmp_path / "snapshot-20261101T090000Z.json").write_text(json.dumps(doc), encoding="utf-8")
    store = HistoryStore(tmp_path)
    (entry,) = store.entries()
    assert entry.snapshot.gpus[0].compute_capability == "8.9" and store.warnings == []


@pytest.mark.parametrize("content", [
    b"",
    b"\xff\xfe\x00garbage",
    b"[1, 2, 3]",
    json.dumps({"schema": "gpu-setup-wizard/doctor@1.0", "system": {}}).encode(),
    json.dumps({"schema": "gpu-setup-wizard/snapshot@1.0"}).encode(),  # no time
    json.dumps({"schema": "gpu-setup-wizard/snapshot@1.0", "time": "2026-11-01T09:00:00+00:00",
                "nvidia": {"gpus": ["not an object"]}}).encode(),
])
def test_foreign_or_broken_files_are_skipped(tmp_path, content):
    store = HistoryStore(tmp_path)
    store.save(snap())
    bad = tmp_path / "snapshot-20200101T000000Z.json"
    bad.write_bytes(content)
    assert len(store.entries()) == 1
    assert len(store.warnings) == 1 and bad.name in store.warnings[0].text("ko")
    assert bad.read_bytes() == content


def test_entries_are_in_time_order_and_numbered(tmp_path):
    store = HistoryStore(tmp_path)
    late, early = store.save(snap(minutes=60)), store.save(snap(minutes=0))
    entries = store.entries()
    assert [e.path for e in entries] == [early.path, late.path] and [e.number for e in entries] == [1, 2]
    assert store.get(1).path == early.path and store.get(-1).path == late.path and store.last().path == late.path
    with pytest.raises(IndexError, match="there are 2"):
        store.get(3)
    with pytest.raises(IndexError):
        store.get(0)
    assert HistoryStore(tmp_path / "empty").last() is None


def test_default_dir_is_the_user_data_dir_or_the_override(monkeypatch, tmp_path):
    import platformdirs

    monkeypatch.delenv("GSW_DATA_DIR", raising=False)
    assert default_history_dir() == \
        type(tmp_path)(platformdirs.user_data_dir("gpu-setup-wizard", appauthor=False)) / "history"
    monkeypatch.setenv("GSW_DATA_DIR", str(tmp_path))
    assert default_history_dir() == tmp_path / "history"
    assert HistoryStore().root == tmp_path / "history"


# ---------------------------------------------------------------------------------------------
# gpu-setup-wizard history list|show|diff
# ---------------------------------------------------------------------------------------------
def test_history_commands(tmp_path):
    store = HistoryStore(tmp_path)
    done = run_cli("history", "--dir", str(tmp_path))
    assert done.exit_status == ExitStatus.SUCCESS and "No saved runs yet" in done.stdout
    store.save(snap())
    store.save(snap(minutes=30, driver="581.15", cuda="13.0"))
    (tmp_path / "snapshot-20200101T000000Z.json").write_text("{", encoding="utf-8")

    out = run_cli("history", "list", "--dir", str(tmp_path))
    assert out.exit_status == ExitStatus.SUCCESS
    rows = [ln for ln in out.stdout.splitlines() if ln.strip()[:2] in ("1.", "2.")]
    assert len(rows) == 2 and "566.36" in rows[0] and "581.15" in rows[1] and "2.6.0+cu126" in rows[0]
    assert "snapshot-20200101T000000Z.json" in out.stderr  # the skipped file is named

    shown = run_cli("history", "show", "1", "--dir", str(tmp_path))
    assert shown.exit_status == ExitStatus.SUCCESS
    assert "566.36" in shown.stdout and "NVIDIA GeForce RTX 4070 Laptop GPU" in shown.stdout
    assert "61.2 TFLOP/s" in shown.stdout

    diff = run_cli("history", "diff", "--dir", str(tmp_path))
    assert diff.exit_status == ExitStatus.SUCCESS
    assert "Driver 566.36 → 581.15" in diff.stdout and "12.7 → 13.0" in diff.stdout

    done = run_cli("history", "diff", "2", "1", "--json", "--dir", str(tmp_path))
    assert done.exit_status == ExitStatus.SUCCESS
    doc = done.json
    assert doc["old_number"] == 2 and doc["new_number"] == 1 and doc["significant"] is True
    assert {"kind": "driver", "tone": "neutral"}.items() <= doc["changes"][0].items()

    missing = run_cli("history", "show", "7", "--dir", str(tmp_path))
    assert missing.exit_status == ExitStatus.BAD_INPUT and "there are 2" in missing.stderr
    assert run_cli("history", "diff", "1", "2", "3", "--dir", str(tmp_path)).exit_status == ExitStatus.BAD_INPUT


def test_history_list_json_and_korean(tmp_path):
    HistoryStore(tmp_path).save(snap())
    done = run_cli("history", "list", "--json", "--dir", str(tmp_path))
    assert done.exit_status == ExitStatus.SUCCESS
    doc = done.json
    assert doc["snapshots"][0]["number"] == 1 and doc["snapshots"][0]["nvidia"]["driver_version"] == "566.36"
    korean = run_cli("history", "diff", "--lang", "ko", "--dir", str(tmp_path))
    assert korean.exit_status == ExitStatus.BAD_INPUT and "두 개" in korean.stderr
