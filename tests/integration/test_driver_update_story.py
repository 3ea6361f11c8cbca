"""The driver-update story end to end, on recorded machines through the real detection:

1. before: driver 566.36 (CUDA 12.7), torch 2.6.0+cu126 working — saved to history;
2. right after the update, before a restart: "Driver/library version mismatch", torch cannot
   start CUDA — the diagnosis says restart, the diff says the new driver waits for a restart;
3. after the restart: driver 581.15 (CUDA 13.0) — the mismatch is resolved, the installed cu126
   build still fits, and a newer build (torch 2.15.0 cu132, which a CUDA 13.0 driver runs by
   CUDA's minor-version compatibility) has become possible.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json

from tests import fake_nvml, scenarios
from tests.recorded_host import RecordedHost
from wizard.app.history import compare_last
from wizard.cli.doctor import explain_text
from wizard.cli.exit_status import ExitStatus
from wizard.cli.parser import add_history_parser
from wizard.core.diagnosis.facts import TorchFacts, gather_env_facts
from wizard.core.diagnosis.rules import diagnose
from wizard.core.history.diff import diff_snapshots
from wizard.core.history.store import BenchHeadline, HistoryStore, build_snapshot
from wizard.core.machine import nvidia_smi
from wizard.core.machine.detect import detect

T0 = dt.datetime(2026, 11, 1, 9, 0, tzinfo=dt.timezone.utc)
UUID = "GPU-5b9a6c1e-3f7d-4e2a-9c41-7d2e8f0a1b23"
CU126_ARCHS = ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"]
MISMATCH_WARNING = ("UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda "
                    "functions before calling NumCudaDevices() that might have already set an error? Error 803: system "
                    "has unsupported display driver / cuda driver combination (Triggered internally at "
                    "/pytorch/c10/cuda/CUDAFunctions.cpp:109.)")


def machine(driver: str, cuda_int: int) -> RecordedHost:
    """The student's Linux desktop (RTX 2080 SUPER) with a working driver."""
    desc = fake_nvml.rtx2080super_windows()
    desc.update(driver_version=driver, cuda_driver_version=cuda_int, nvml_version=driver)
    gpu = desc["gpus"][0]
    gpu.update(driver_model=None, uuid=UUID, processes=[])
    smi = "/usr/bin/nvidia-smi"
    return scenarios.linux_host(
        nvml_module=fake_nvml.FakeNvml(desc), on_path={"nvidia-smi": smi},
        files={**scenarios.linux_host().files, smi: "",
               "/proc/driver/nvidia/version": f"NVRM version: NVIDIA UNIX x86_64 Kernel Module  {driver}  "
                                              "Tue Nov  4 10:00:00 UTC 2026\n"},
        commands={RecordedHost.key_of(nvidia_smi.query_argv(smi)): scenarios.ok(scenarios.smi_csv(desc)),
                  RecordedHost.key_of([smi]): scenarios.ok(scenarios.smi_table_header(desc))})


def mismatch_machine() -> RecordedHost:
    host = scenarios.linux_driver_mismatch()
    host.files["/proc/driver/nvidia/version"] = ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  566.36  "
                                                 "Tue Nov  4 10:00:00 UTC 2026\n")
    return host


def torch_facts(available: bool, messages=()) -> TorchFacts:
    """As the verify probe reports them (its fact sections), mapped through the protocol."""
    sections = {
        "python": {"version": "3.11.9", "bits": 64, "prefix": "/home/student/envs/dl"},
        "env": {},
        "driver": {"cuda_version": None},
        "torch": {"version": "2.6.0+cu126", "cuda": "12.6", "hip": None, "cudnn": 90100},
        "cuda": {"is_available": available, "device_count": 1 if available else 0, "arch_list": CU126_ARCHS,
                 "warnings": [{"category": "UserWarning", "message": m} for m in messages]},
        "devices": [{"index": 0, "name": "NVIDIA GeForce RTX 2080 SUPER", "capability": "7.5"}] if available else [],
    }
    return TorchFacts.from_probe_facts(sections, kernel_ok=available, installer="pip")


def run_once(host: RecordedHost, torch: TorchFacts, minutes: int, bench: float | None = None):
    detection = detect(host, pythons=False, conda=False)
    env = gather_env_facts(host)
    found = diagnose(detection, torch, env)
    snapshot = build_snapshot(detection, findings=found, torch=torch, now=T0 + dt.timedelta(minutes=minutes),
                              benchmark={"matmul/cuda/fp32/4096": BenchHeadline(bench, "TFLOP/s", True, 0.02)}
                              if bench else None)
    return detection, found, snapshot


def test_driver_update_story(tmp_path, capsys):
    store = HistoryStore(tmp_path / "history")

    # 1. before: everything works
    _, found1, s1 = run_once(machine("566.36", 12070), torch_facts(True), 0, bench=10.9)
    assert [f.id for f in found1 if f.severity in ("error", "warning")] == []
    assert (s1.driver_version, s1.cuda_version, s1.gpus[0].uuid) == ("566.36", "12.7", UUID)
    assert store.save(s1).ok

    # 2. the update installed 581.15; the old kernel module still runs
    d2, found2, s2 = run_once(mismatch_machine(), torch_facts(False, [MISMATCH_WARNING]), 60 * 24 * 20)
    by_id = {f.id: f for f in found2}
    mismatch = by_id["nvml-driver-library-version-mismatch"]
    assert mismatch.severity == "error" and mismatch.action.kind == "restart"
    assert "NVML library version: 581.15" in mismatch.evidence and "566.36" in mismatch.evidence
    assert found2[0].id == "nvml-driver-library-version-mismatch"
    assert "torch-cuda-unavailable" not in by_id and "wsl2-gpu-setup" not in by_id  # explained, and not WSL
    assert s2.pending_driver_version == "581.15"
    assert store.save(s2).ok

    # the same error pasted by the student is recognised the same way
    pasted, code = explain_text("$ nvidia-smi\r\nFailed to initialize NVML: Driver/library version mismatch\r\n"
                                "NVML library version: 581.15\r\n>>> import torch\r\n" + MISMATCH_WARNING, "ko")
    assert code == ExitStatus.SUCCESS and [f.id for f in pasted] == ["nvml-driver-library-version-mismatch"]
    assert pasted[0].title("ko") == mismatch.title("ko")

    # 3. after the restart
    d3, found3, s3 = run_once(machine("581.15", 13000), torch_facts(True), 60 * 24 * 20 + 30, bench=11.2)
    assert [f.id for f in found3 if f.severity in ("error", "warning")] == []

    # what changed, step by step
    d12 = diff_snapshots(s1, s2)
    assert [c.key for c in d12.changes] == ["history.diff.driver_status", "history.diff.driver_pending", "history.diff.torch_fit_unknown",
                                            "history.diff.finding_new"]
    d23 = diff_snapshots(s2, s3)
    assert [c.key for c in d23.changes] == ["history.diff.driver_status", "history.diff.driver_started", "history.diff.torch_still_fits",
                                            "history.diff.newer_than_installed", "history.diff.finding_resolved"]
    d13 = diff_snapshots(s1, s3)
    text = d13.lines("en")
    assert text[1:] == [
        "  * Driver 566.36 → 581.15",
        "  + Highest CUDA the driver supports: 12.7 → 13.0",
        "  * The installed torch 2.6.0+cu126 still fits (driver 581.15 and these GPUs).",
        f"  + A newer build is now possible: torch {d13.changes[3].data['torch']} (cu132); before: "
        f"{d13.changes[3].data['was']['torch']} cu126.",
    ], text  # +2.8% matmul is noise, not news
    assert d13.to_json("ko")["changes"][0]["text"] == "드라이버 566.36 → 581.15"

    # doctor --compare-last after the restart: against the saved mismatch run
    out = compare_last(d3, "en", store=store, save=True)
    assert [c.key for c in out.diff.changes][:2] == ["history.diff.driver_status", "history.diff.driver_started"]
    assert out.saved.ok and len(store.entries()) == 3

    # history diff 1 3 on the command line, in JSON
    common = argparse.ArgumentParser(add_help=False)
    parser = argparse.ArgumentParser(prog="gpu-setup-wizard", parents=[common])
    add_history_parser(parser.add_subparsers(dest="command"), common)
    args = parser.parse_args(["history", "diff", "1", "3", "--json", "--dir", str(store.root)])
    assert args.handler(args) == ExitStatus.SUCCESS
    doc = json.loads(capsys.readouterr().out)
    kinds = [c["kind"] for c in doc["changes"]]
    assert kinds[:4] == ["driver", "cuda", "torch_fit", "newer_build"]
    assert doc["changes"][3]["data"]["variant"] == "cu132" and doc["changes"][3]["data"]["installed"] == "2.6.0+cu126"
