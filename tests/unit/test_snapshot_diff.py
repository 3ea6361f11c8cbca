"""What changed between two snapshots: driver, CUDA, GPUs, OS, torch fit, newer builds, findings,
benchmark numbers beyond noise; in Korean, English and JSON; and ``doctor --compare-last``."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest

from wizard.app.history import compare_last
from wizard.core.diagnosis.facts import TorchFacts
from wizard.core.history.diff import NOISE_FLOOR, TONE_BETTER, TONE_WORSE, changes_since_last, diff_snapshots, torch_fit
from wizard.core.history.store import BenchHeadline, FindingSummary, GpuSummary, HistoryStore, Snapshot
from wizard.core.machine.models import Detection, GpuInfo, NvidiaInfo, SystemInfo

UUID = "GPU-5b9a6c1e-3f7d-4e2a-9c41-7d2e8f0a1b23"
CU126 = TorchFacts(version="2.6.0+cu126", cuda="12.6", is_available=True, python_version="3.11.9")
CU130 = TorchFacts(version="2.9.1+cu130", cuda="13.0", is_available=True, python_version="3.11.9")


def snapshot(minute=0, driver="566.36", cuda="12.7", status="ok", gpus=None, torch=CU126, os_build="22631",
             findings=(), scopes=("detection", "torch"), bench=None, **kw) -> Snapshot:
    if gpus is None:
        gpus = [GpuSummary(0, "NVIDIA GeForce RTX 4070 Laptop GPU", UUID, "00000000:01:00.0", "8.9", 8188)]
    return Snapshot(time=(dt.datetime(2026, 11, 1, 9, tzinfo=dt.timezone.utc) + dt.timedelta(minutes=minute))
                    .isoformat(), os="windows", os_pretty="Windows 11 Home 23H2", os_build=os_build, arch="x86_64",
                    nvidia_status=status, driver_version=driver if status == "ok" else None,
                    cuda_version=cuda if status == "ok" else None, gpus=gpus if status == "ok" else [], torch=torch,
                    python_version="3.11.9", findings=list(findings), scopes=list(scopes), benchmark=bench or {}, **kw)


def kinds(diff) -> list[str]:
    return [c.kind for c in diff.changes]


def test_identical_snapshots_have_no_changes():
    diff = diff_snapshots(snapshot(), snapshot(minute=10))
    assert diff.changes == [] and not diff.significant
    assert diff.lines("en")[1].strip() == "Nothing changed."
    assert diff.lines("ko")[1].strip() == "바뀐 것이 없습니다."


def test_driver_update_in_words_and_json():
    diff = diff_snapshots(snapshot(), snapshot(driver="581.15", cuda="13.0"))
    assert kinds(diff) == ["driver", "cuda", "torch_fit", "newer_build"]
    texts = [c.text("en") for c in diff.changes]
    assert texts[0] == "Driver 566.36 → 581.15"
    assert texts[1] == "Highest CUDA the driver supports: 12.7 → 13.0"
    assert texts[2] == "The installed torch 2.6.0+cu126 still fits (driver 581.15 and these GPUs)."
    assert texts[3].startswith("A newer build is now possible: torch ") and "(cu132)" in texts[3]  # 2.15.0: its PyPI default
    assert "cu126" in texts[3]  # what was best before
    assert diff.significant
    doc = diff.to_json("ko")
    assert doc["schema"] == "gpu-setup-wizard/diff@1.0" and doc["significant"] is True
    assert doc["changes"][0] == {"kind": "driver", "tone": "neutral", "text": "드라이버 566.36 → 581.15",
                                 "data": {"old": "566.36", "new": "581.15", "pending_restart": False}}
    assert doc["changes"][3]["data"]["variant"] == "cu132" and doc["changes"][3]["tone"] == TONE_BETTER


def test_driver_downgrade_the_installed_torch_no_longer_fits():
    diff = diff_snapshots(snapshot(driver="581.15", cuda="13.0", torch=CU130), snapshot(torch=CU130))
    (fit,) = diff.of_kind("torch_fit")
    assert fit.key == "history.diff.torch_no_longer_fits" and fit.tone == TONE_WORSE
    assert "566.36" in fit.text("en") and "580" in fit.text("en")  # the recommender's own reason
    assert fit.data["before"] == "fits" and fit.data["after"] == "fails" and fit.data["reasons"]
    assert diff.of_kind("cuda")[0].tone == TONE_WORSE
    back = diff_snapshots(snapshot(torch=CU130), snapshot(driver="581.15", cuda="13.0", torch=CU130))
    assert back.of_kind("torch_fit")[0].key == "history.diff.torch_now_fits"


def test_torch_fit_judges_only_what_can_be_judged():
    assert torch_fit(snapshot(), CU126, "3.11").status == "fits"
    assert torch_fit(snapshot(), TorchFacts(version="2.5.1+cpu"), "3.11").status == "cpu"
    assert torch_fit(snapshot(), TorchFacts(version="1.2.0+cu92", cuda="9.2"), "3.11").status == "unknown"
    assert torch_fit(snapshot(status="version-mismatch"), CU126, "3.11").status == "unknown"
    assert torch_fit(snapshot(), CU126, None).status == "unknown"
    no_sm120 = torch_fit(snapshot(gpus=[GpuSummary(0, "NVIDIA GeForce RTX 5090", None, "0000:01:00.0", "12.0")],
                                  driver="576.02", cuda="12.9"), CU126, "3.11")
    assert no_sm120.status == "fails" and "sm_120" in no_sm120.reasons[0].text("en")


def test_restart_pending_then_running():
    before = snapshot()
    mid = snapshot(status="version-mismatch", pending_driver_version="581.15",
                   findings=[FindingSummary("nvml-driver-library-version-mismatch", "error")])
    after = snapshot(minute=60, driver="581.15", cuda="13.0")
    d1 = diff_snapshots(before, mid)
    assert kinds(d1) == ["driver_status", "driver", "torch_fit", "finding_new"]
    assert d1.changes[1].text("en") == "Driver 566.36 → 581.15 (installed; restart the computer to start it)"
    assert d1.changes[2].key == "history.diff.torch_fit_unknown"
    assert d1.changes[3].text("ko") == "새 문제: 드라이버가 업데이트되었습니다: 컴퓨터를 다시 시작하세요"
    assert "gpu_removed" not in kinds(d1)  # GPUs hidden by the driver are not "removed"
    d2 = diff_snapshots(mid, after)
    assert d2.changes[0].kind == "driver_status" and d2.changes[0].tone == TONE_BETTER
    assert d2.changes[1].text("en") == "Driver 581.15 is running now (after the restart)"
    assert d2.of_kind("finding_resolved")[0].data["id"] == "nvml-driver-library-version-mismatch"
    (newer,) = d2.of_kind("newer_build")
    assert newer.key == "history.diff.newer_than_installed" and "2.6.0+cu126" in newer.text("en")


def test_gpus_added_and_removed_by_identity():
    second = GpuSummary(1, "NVIDIA GeForce RTX 3090", "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", "00000000:02:00.0", "8.6")
    diff = diff_snapshots(snapshot(), snapshot(gpus=[snapshot().gpus[0], second]))
    assert [c.text("en") for c in diff.changes if c.kind.startswith("gpu")] == ["GPU added: NVIDIA GeForce RTX 3090"]
    assert diff.of_kind("torch_fit")[0].key == "history.diff.torch_still_fits"  # sm_86 is in cu126
    swapped = GpuSummary(0, "NVIDIA GeForce RTX 5070", "GPU-99999999-bbbb-cccc-dddd-eeeeeeeeeeee", "00000000:01:00.0", "12.0")
    swap = diff_snapshots(snapshot(), snapshot(gpus=[swapped], driver="576.02", cuda="12.9"))
    assert kinds(swap)[2:4] == ["gpu_added", "gpu_removed"]
    assert swap.of_kind("torch_fit")[0].key == "history.diff.torch_no_longer_fits"  # cu126 has no sm_120 kernels


def test_masked_uuids_fall_back_to_the_bus_id():
    masked = "GPU-00000000-0000-0000-0000-000000000000"
    a = snapshot(gpus=[GpuSummary(0, "NVIDIA GeForce RTX 2080 SUPER", masked, "00000000:0C:00.0", "7.5")])
    b = snapshot(gpus=[GpuSummary(0, "NVIDIA GeForce RTX 2080 SUPER", masked, "00000000:0C:00.0", "7.5")])
    assert diff_snapshots(a, b).changes == []
    moved = snapshot(gpus=[GpuSummary(0, "NVIDIA GeForce RTX 2080 SUPER", masked, "00000000:0D:00.0", "7.5")])
    assert kinds(diff_snapshots(a, moved))[:2] == ["gpu_added", "gpu_removed"]


def test_os_build_python_env_and_torch_changes():
    new_torch = dataclasses.replace(CU126, version="2.7.1+cu128", cuda="12.8")
    diff = diff_snapshots(snapshot(env_path="C:\\envs\\dl"),
                          snapshot(os_build="26100", torch=new_torch, env_path="C:\\envs\\dl2"))
    texts = [c.text("en") for c in diff.changes]
    assert "Operating system: Windows 11 Home 23H2 [22631] → Windows 11 Home 23H2 [26100]" in texts
    assert "PyTorch: 2.6.0+cu126 → 2.7.1+cu128" in texts and "Environment: C:\\envs\\dl → C:\\envs\\dl2" in texts
    assert diff.significant


def test_findings_new_and_resolved_within_examined_scopes():
    old = snapshot(findings=[FindingSummary("cpu-only-torch-installed", "error", None, "torch",
                                            {"torch": "2.5.1+cpu", "gpu": "RTX"}),
                             FindingSummary("nvidia-smi-not-on-path-windows", "info", None, "detection",
                                            {"path": "C:\\Windows\\System32\\nvidia-smi.exe"})])
    doctor_only = snapshot(findings=[], scopes=("detection",))
    diff = diff_snapshots(old, doctor_only)
    # the torch finding was not examined this time: not "resolved"
    assert [c.data["id"] for c in diff.of_kind("finding_resolved")] == ["nvidia-smi-not-on-path-windows"]
    full = diff_snapshots(old, snapshot(findings=[]))
    assert {c.data["id"] for c in full.of_kind("finding_resolved")} == {"cpu-only-torch-installed",
                                                                       "nvidia-smi-not-on-path-windows"}
    assert full.of_kind("finding_resolved")[0].text("en").startswith("Resolved: PyTorch is a CPU-only build")


@pytest.mark.parametrize("old,new,spread,higher,expect", [
    (61.2, 64.0, 0.02, True, None),  # +4.6%: noise
    (61.2, 70.0, 0.02, True, "history.diff.bench_better"),  # +14%
    (61.2, 40.0, 0.02, True, "history.diff.bench_worse"),
    (3.20, 2.50, 0.01, False, "history.diff.bench_better"),  # seconds: lower is better
    (3.20, 3.90, 0.01, False, "history.diff.bench_worse"),
    (61.2, 70.0, 0.08, True, None),  # +14% but both runs had 8% spread: within 16%
])
def test_benchmark_changes_beyond_noise(old, new, spread, higher, expect):
    unit = "TFLOP/s" if higher else "s"
    a = snapshot(bench={"x": BenchHeadline(old, unit, higher, spread)})
    b = snapshot(bench={"x": BenchHeadline(new, unit, higher, spread)})
    changes = diff_snapshots(a, b).of_kind("benchmark")
    if expect is None:
        assert changes == []
    else:
        (c,) = changes
        assert c.key == expect and c.data["threshold"] >= NOISE_FLOOR
        assert f"{old:g}" in c.text("en") or str(old) in c.text("en")


def test_benchmark_in_another_unit_or_missing_is_not_compared():
    a = snapshot(bench={"x": BenchHeadline(10.0, "GB/s"), "y": BenchHeadline(1.0, "s", False)})
    b = snapshot(bench={"x": BenchHeadline(30.0, "GiB/s")})
    assert diff_snapshots(a, b).of_kind("benchmark") == []


# ---------------------------------------------------------------------------------------------
# The first page and doctor --compare-last
# ---------------------------------------------------------------------------------------------
def _detection(driver="566.36", cuda="12.7") -> Detection:
    gpu = GpuInfo(0, name="NVIDIA GeForce RTX 4070 Laptop GPU", uuid=UUID, pci_bus_id="00000000:01:00.0",
                  compute_capability="8.9", memory_total_mib=8188, memory_free_mib=7000)
    return Detection(system=SystemInfo(os="windows", os_pretty="Windows 11 Home 23H2", os_build="22631", arch="x86_64"),
                     nvidia=NvidiaInfo(status="ok", driver_version=driver, cuda_version=cuda, gpus=[gpu]))


def test_changes_since_last_for_the_first_page(tmp_path):
    store = HistoryStore(tmp_path)
    assert changes_since_last(_detection(), store) is None  # nothing saved yet
    store.save(snapshot())
    assert changes_since_last(_detection(), store) is None  # nothing significant
    diff = changes_since_last(_detection("581.15", "13.0"), store)
    assert diff is not None and diff.significant and diff.changes[0].text("en") == "Driver 566.36 → 581.15"
    # the torch installed last time is judged against the new driver
    assert diff.of_kind("torch_fit")[0].key == "history.diff.torch_still_fits"


def test_compare_last(tmp_path):
    store = HistoryStore(tmp_path)
    first = compare_last(_detection(), "en", store=store, save=True)
    assert first.diff is None and "No earlier run" in first.lines[0] and first.saved.ok
    assert first.doc["changes"] == []
    second = compare_last(_detection("581.15", "13.0"), "ko", store=store)
    assert second.saved is None and len(store.entries()) == 1  # not saved unless asked
    assert second.lines[1].strip() == "* 드라이버 566.36 → 581.15"
    assert second.doc["significant"] is True and second.doc["changes"][1]["kind"] == "cuda"


def test_compare_last_with_an_unwritable_store(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    out = compare_last(_detection(), "en", store=HistoryStore(blocker / "history"), save=True)
    assert out.diff is None and out.saved is not None and not out.saved.ok
    assert any("could not be saved" in w for w in out.warnings)
