"""Every reader of a student's file, fed what Windows and a fuzzer hand it (real processes, real files).

The attacks of issue 15, items 3, 6, 7 and 8: PowerShell 5's ``nvidia-smi > out.txt`` (UTF-16 LE with a
BOM) and cp949 texts; valid JSON with values of the wrong types; JSON nested 100,000 deep; ``/dev/zero``
and a multi-MB file as input; an ``nvidia-smi --query-gpu … -l 1`` log; twelve history saves at once.
Each must give a result or one clear line on stderr — never a traceback.
"""

from __future__ import annotations

import codecs
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_runner import run_cli
from tests.reference import reference_file

REPO = Path(__file__).resolve().parents[2]
DEV_ZERO = Path("/dev/zero")


def no_traceback(out) -> None:
    assert "Traceback" not in out.stderr and "Error:" not in out.stderr.split("gpu-setup-wizard:")[0], out.stderr


def powershell_bytes(text: str) -> bytes:
    """What Windows PowerShell 5's ``>`` writes: UTF-16 LE with a BOM, CRLF line ends."""
    return codecs.BOM_UTF16_LE + text.replace("\r\n", "\n").replace("\n", "\r\n").encode("utf-16-le")


def doctor_doc(**nvidia: object) -> dict:
    """A minimal ``doctor --json`` document of one GPU; ``nvidia`` overrides its fields."""
    gpu = {"index": 0, "name": "NVIDIA GeForce RTX 3060", "memory_total_mib": 12288.0, "compute_capability": "8.6"}
    doc = {"schema": "gpu-setup-wizard/doctor@1.0",
           "system": {"os": "windows", "os_pretty": "Windows 11", "arch": "x86_64"},
           "nvidia": {"status": "ok", "driver_version": "560.94", "cuda_version": "12.6", "gpus": [gpu]},
           "pythons": [], "conda": [], "findings": []}
    doc["nvidia"].update(nvidia)
    return doc


# --- item 3: one decoder -----------------------------------------------------------------------
@pytest.mark.parametrize("capture", ["04-linux-4x-a100-sxm4-535.54.03.q-x.xml",
                                     "01-windows-wddm-geforce-rtx2080super-591.86.capture.txt"])
def test_doctor_reads_a_powershell_utf16_nvidia_smi_file(tmp_path, capture):
    text = reference_file("nvidia-smi", capture).read_text(encoding="utf-8")
    saved = tmp_path / "out.txt"
    saved.write_bytes(powershell_bytes(text))
    out = run_cli("doctor", "--nvidia-smi-file", str(saved), "--json")
    assert out.returncode == 0, out.stderr
    gpus = json.loads(out.stdout)["nvidia"]["gpus"]
    assert gpus and all(g["name"] and g["name"].startswith(("NVIDIA", "Tesla", "GeForce")) for g in gpus)


def test_recommend_reads_a_powershell_utf16_doctor_json(tmp_path):
    saved = tmp_path / "me.json"
    saved.write_bytes(powershell_bytes(json.dumps(doctor_doc(), indent=2)))
    out = run_cli("recommend", "--from-doctor", str(saved), "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["machine"]["gpu_ccs"] == ["8.6"]


def test_doctor_reads_a_cp949_table_on_any_platform(tmp_path):
    table = reference_file("nvidia-smi", "01-windows-wddm-geforce-rtx2080super-591.86.capture.txt").read_text("utf-8")
    saved = tmp_path / "out.txt"
    saved.write_bytes(("C:\\Users\\김철수> nvidia-smi\n" + table).encode("cp949", "replace"))
    out = run_cli("doctor", "--nvidia-smi-file", str(saved), "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["nvidia"]["gpus"]


# --- item 6: valid JSON, wrong types; deep nesting -----------------------------------------------
WRONG_TYPES = [
    {"gpus": [{"index": 0, "name": 7}]},
    {"status": [1]},
    {"gpus": "RTX 3060"},
    {"driver_version": {"a": 1}},
    {"gpus": [{"index": "zero", "name": "x"}]},
]


@pytest.mark.parametrize("nvidia", WRONG_TYPES, ids=[json.dumps(w)[:40] for w in WRONG_TYPES])
def test_recommend_refuses_wrong_types_in_one_line(tmp_path, nvidia):
    saved = tmp_path / "me.json"
    saved.write_text(json.dumps(doctor_doc(**nvidia)), encoding="utf-8")
    out = run_cli("recommend", "--from-doctor", str(saved))
    assert out.returncode == 2, out.stderr
    no_traceback(out)
    assert len(out.stderr.strip().splitlines()) == 1 and "should be" in out.stderr


def test_add_remote_refuses_a_doctor_json_with_wrong_types(tmp_path):
    saved = tmp_path / "cloud.json"
    saved.write_text(json.dumps(doctor_doc(gpus=[{"index": 0, "name": 7}])), encoding="utf-8")
    out = run_cli("report", "--json", "--add-remote", str(saved), data_dir=tmp_path / "data")
    no_traceback(out)
    assert out.returncode != 0 and "nvidia.gpus[0].name" in out.stderr


def test_add_remote_refuses_a_report_json_with_wrong_types(tmp_path):
    made = run_cli("report", "--json", data_dir=tmp_path / "data")
    assert made.returncode == 0, made.stderr
    doc = json.loads(made.stdout)
    doc["machines"][0]["gpus"] = [{"name": 7, "memory_total_mib": "lots"}]
    saved = tmp_path / "colab.json"
    saved.write_text(json.dumps(doc), encoding="utf-8")
    out = run_cli("report", "--json", "--add-remote", str(saved), data_dir=tmp_path / "data")
    no_traceback(out)
    assert out.returncode != 0 and "machines[0].gpus[0].name" in out.stderr


@pytest.mark.parametrize("command", [("recommend", "--from-doctor"), ("report", "--add-remote")])
def test_deeply_nested_json_is_refused_not_a_recursion_error(tmp_path, command):
    saved = tmp_path / "deep.json"
    saved.write_text('{"schema": "gpu-setup-wizard/doctor@1.0", "nvidia": ' + "[" * 100_000 + "]" * 100_000 + "}",
                     encoding="utf-8")
    out = run_cli(*command, str(saved), data_dir=tmp_path / "data")
    no_traceback(out)
    assert out.returncode != 0 and "nests more than" in out.stderr


# --- item 8: the size cap ------------------------------------------------------------------------
@pytest.mark.skipif(not DEV_ZERO.exists(), reason="no /dev/zero here")
@pytest.mark.parametrize("command", [("doctor", "--nvidia-smi-file"), ("doctor", "--explain"),
                                     ("recommend", "--from-doctor"), ("report", "--add-remote")])
def test_dev_zero_is_read_only_up_to_the_cap(tmp_path, command):
    """A device is not a regular file: refused before a byte is read (issue 24; it was read up to the cap).
    A real process with a timeout: a reader that forgot the cap would read forever."""
    env = {**os.environ, "GSW_LANG": "en", "GSW_DATA_DIR": str(tmp_path / "data")}
    out = subprocess.run([sys.executable, "-m", "wizard", *command, str(DEV_ZERO)], cwd=REPO, capture_output=True,
                         text=True, encoding="utf-8", errors="replace", timeout=60, env=env)
    no_traceback(out)
    assert "MemoryError" not in out.stderr
    assert out.returncode != 0 and "not a regular file" in out.stderr, out.stderr


def test_a_big_csv_is_cut_and_says_so(tmp_path):
    saved = tmp_path / "big.csv"
    with open(saved, "w", encoding="utf-8") as fh:
        fh.write("index, name, uuid, memory.total [MiB]\n")
        for i in range(110_000):  # ~6 MB
            fh.write(f"{i}, NVIDIA A100-SXM4-80GB, GPU-{i:08x}-2222-3333-4444-555555555555, 81920 MiB\n")
    out = run_cli("doctor", "--nvidia-smi-file", str(saved), "--json")
    assert out.returncode == 0, out.stderr
    assert "only its first 4 MB were read" in out.stderr


def test_a_query_gpu_log_is_one_set_of_gpus_sampled_many_times(tmp_path):
    lines = ["timestamp, index, name, uuid, pci.bus_id, driver_version, memory.total [MiB], utilization.gpu [%]"]
    for second in range(3600):
        for gpu in range(2):
            lines.append(f"2026/12/01 10:{second // 60:02d}:{second % 60:02d}.000, {gpu}, NVIDIA GeForce RTX 3090, "
                         f"GPU-0000000{gpu}-1111-2222-3333-444444444444, 00000000:0{gpu + 1}:00.0, 550.54.14, "
                         f"24576 MiB, {second % 100} %")
    saved = tmp_path / "log.csv"
    saved.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = run_cli("doctor", "--nvidia-smi-file", str(saved), "--json")
    assert out.returncode == 0, out.stderr
    gpus = json.loads(out.stdout)["nvidia"]["gpus"]
    assert [g["index"] for g in gpus] == [0, 1]
    assert [g["utilization_gpu_percent"] for g in gpus] == [99.0, 99.0]  # the last sample


# --- item 6 (history) and item 7 -----------------------------------------------------------------
def _snapshot_doc(**changes: object) -> dict:
    doc = {"schema": "gpu-setup-wizard/snapshot@1.0", "time": "2026-11-01T09:00:00+00:00",
           "system": {"os": "linux"}, "nvidia": {"status": "ok", "driver_version": "550.54",
                                                 "gpus": [{"index": 0, "name": "RTX 3060", "uuid": "GPU-1"}]},
           "findings": [{"id": "driver-old", "severity": "warning", "params": {}}]}
    doc.update(changes)
    return doc


@pytest.mark.parametrize("change", [
    {"nvidia": {"status": "ok", "gpus": [{"index": 0, "name": 5}]}},
    {"nvidia": {"status": "ok", "gpus": [{"index": 0, "uuid": 12345}]}},
    {"findings": [{"id": "x", "severity": "error", "params": [1, 2]}]},
], ids=["name=5", "uuid=12345", "params=[1,2]"])
def test_history_skips_a_snapshot_with_wrong_types(tmp_path, change):
    folder = tmp_path / "history"
    folder.mkdir()
    (folder / "snapshot-20261101T080000Z.json").write_text(json.dumps(_snapshot_doc(time="2026-11-01T08:00:00+00:00")))
    (folder / "snapshot-20261101T090000Z.json").write_text(json.dumps(_snapshot_doc(**change)))
    for args in (("history", "list"), ("history", "show", "1"), ("report", "--json")):
        out = run_cli(*args, data_dir=tmp_path)
        no_traceback(out)
        assert out.returncode == 0, (args, out.stderr)
    listed = run_cli("history", "list", data_dir=tmp_path)
    assert "snapshot-20261101T090000Z.json" in listed.stderr  # the skip is said, in one line


def test_a_100000_deep_snapshot_is_skipped(tmp_path):
    folder = tmp_path / "history"
    folder.mkdir()
    (folder / "snapshot-20261101T090000Z.json").write_text("[" * 100_000 + "]" * 100_000)
    for args in (("history", "list"), ("doctor", "--compare-last"), ("report", "--json")):
        out = run_cli(*args, data_dir=tmp_path)
        no_traceback(out)
        assert out.returncode == 0, (args, out.stderr)


SAVER = """
import sys, datetime as dt
from wizard.core.history.store import HistoryStore, Snapshot
print("ready", flush=True)
sys.stdin.readline()  # every process waits here, so the saves start together
result = HistoryStore(sys.argv[1]).save(Snapshot(time="2026-11-01T09:00:00+00:00"))
print("ok" if result.ok else "failed")
"""


def test_twelve_saves_at_once_leave_twelve_snapshots(tmp_path):
    folder = tmp_path / "history"
    procs = [subprocess.Popen([sys.executable, "-c", SAVER, str(folder)], cwd=REPO, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True) for _ in range(12)]
    assert [proc.stdout.readline().strip() for proc in procs] == ["ready"] * 12  # all imported, all waiting
    for proc in procs:  # release them as close together as we can
        proc.stdin.write("go\n")
        proc.stdin.flush()
    results = [proc.communicate(timeout=120)[0].strip() for proc in procs]
    assert results == ["ok"] * 12
    names = sorted(p.name for p in folder.iterdir())
    assert len(names) == 12 and not [n for n in names if n.startswith(".tmp-")], names
    for name in names:
        json.loads((folder / name).read_text(encoding="utf-8"))  # each one complete
