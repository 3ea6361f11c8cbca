"""Every verification rule, from recorded probe outputs (tests/data/probe/*.jsonl, see README).

GPU cases: an RTX 3060 with a cu128 wheel (all good), an RTX 5090 with a cu126 wheel (no
sm_120: is_available() True, first kernel fails), a CPU-only wheel on a laptop with an NVIDIA
GPU, a CUDA 13.0 wheel on a driver that supports CUDA 12.4, and a CPU-only wheel on a machine
without an NVIDIA GPU. Variants of these (events edited in the test) cover the other rules.
"""

from __future__ import annotations

import ast
import copy
import json
import re
import string
import sys
from pathlib import Path

import pytest

from wizard.core.base.i18n import catalogue, t
from wizard.core.machine.models import Detection, DisplayAdapter, GpuInfo, NvidiaInfo, SystemInfo
from wizard.core.verify.checklist import SCHEMA, VerifyReport, progress_text
from wizard.core.verify.checks import ORDER, Check, worst
from wizard.core.verify.probe_runner import ProbeOutcome
from wizard.core.verify.rules import arch_coverage, cuda_from_found_version, parse_arch_list

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data" / "probe"
PROBE = REPO / "wizard" / "probe"


def events(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line.strip()]


def report(name: str, detection: Detection | None = None, edit=None) -> VerifyReport:
    evs = events(name)
    if edit is not None:
        evs = copy.deepcopy(evs)
        edit(evs)
    return VerifyReport.from_events(evs, detection=detection, python_exe="python")


def facts_of(evs: list[dict], section: str) -> dict | list:
    for e in evs:
        if e.get("type") == "facts" and e.get("section") == section:
            return e["data"]
    raise KeyError(section)


def detection(gpus=(), cuda="12.8", driver="570.133.07", adapters=(), os_name="linux") -> Detection:
    nv = NvidiaInfo(status="ok" if gpus else "no-driver", driver_version=driver if gpus else None,
                    cuda_version=cuda if gpus else None,
                    gpus=[GpuInfo(index=i, name=n, compute_capability=cc, memory_total_mib=mem)
                          for i, (n, cc, mem) in enumerate(gpus)])
    system = SystemInfo(os=os_name, display_adapters=[DisplayAdapter(vendor=v, name=n) for v, n in adapters])
    return Detection(system=system, nvidia=nv)


def status(r: VerifyReport, cid: str, device: int | None = None) -> str | None:
    c = r.check(cid, device)
    return c.status if c else None


# --------------------------------------------------------------------------- recorded cases
def test_rtx3060_cu128_everything_passes():
    d = detection([("NVIDIA GeForce RTX 3060", "8.6", 12288)])
    r = report("verify_rtx3060_cu128_linux.jsonl", d)
    assert r.status == "pass" and r.ok
    for cid in ("python", "torch.import", "cuda.build", "cuda.driver", "cuda.available", "cuda.device_count",
                "cuda.device", "cuda.arch", "cuda.kernel", "cuda.matmul.fp32", "cuda.matmul.fp16", "cuda.matmul.bf16",
                "cuda.memory", "cuda.amp_step", "cudnn", "nccl", "cpu.matmul", "cpu.train_step", "collect_env"):
        assert status(r, cid) == "pass", (cid, r.check(cid))
    assert status(r, "tensorflow") == "skip"
    arch = r.check("cuda.arch", 0)
    assert arch.evidence["runs"] == "sm_86" and arch.source == "rule"
    v = r.versions
    assert (v["torch"], v["cuda"], v["cudnn"], v["nccl"], v["driver_cuda"]) == ("2.8.0+cu128", "12.8", 91002, "2.27.3", "12.8")
    assert v["driver_cuda_source"] == "detection" and v["driver"] == "570.133.07"
    assert r.devices[0]["name"] == "NVIDIA GeForce RTX 3060"
    assert "PyTorch version: 2.8.0+cu128" in r.collect_env_text


def test_rtx5090_with_cu126_is_the_no_kernel_image_trap():
    r = report("verify_rtx5090_cu126_windows.jsonl")
    # is_available() is True: that is exactly why this check must exist
    assert status(r, "cuda.available") == "pass"
    arch = r.check("cuda.arch", 0)
    assert arch.status == "fail"
    assert arch.cause == "no_kernel_image" and arch.finding == "no-kernel-image-sm-incompatible"
    assert arch.fix == "no_kernel_image_new_gpu"
    assert "cu128" in arch.fix_text("en") and "cu128" in arch.fix_text("ko")
    assert arch.evidence["arch_list"][-1] == "sm_90" and arch.evidence["capability"] == "12.0"
    # the probe's own kernel launch failed with the real error text; the GPU checks after it were skipped
    kernel = r.check("cuda.kernel", 0)
    assert kernel.status == "fail" and kernel.cause == "no_kernel_image"
    assert kernel.detail_text("en").startswith("CUDA error: no kernel image is available")
    assert status(r, "cuda.matmul.fp32", 0) == "skip"
    assert status(r, "nccl") == "skip"  # Windows wheels have no NCCL: not a failure
    assert status(r, "cuda.driver") == "pass"  # 12.6 wheel on a 12.9 driver
    assert not r.ok and r.status == "fail"


def test_rtx5090_arch_rule_needs_no_probe_kernel_check():
    """The rule works from facts alone (an interrupted probe, or one that skipped the kernel)."""
    def drop_kernel(evs):
        evs[:] = [e for e in evs if not (e.get("type") == "check" and e.get("id", "").startswith("cuda."))]
    r = report("verify_rtx5090_cu126_windows.jsonl", edit=drop_kernel)
    assert r.check("cuda.kernel") is None
    assert status(r, "cuda.arch", 0) == "fail"


def test_cpu_only_build_on_a_machine_with_an_nvidia_gpu():
    d = detection([("NVIDIA GeForce RTX 4070 Laptop GPU", "8.9", 8188)], cuda="12.7", driver="566.36",
                  adapters=[("intel", "Intel(R) UHD Graphics"), ("nvidia", "NVIDIA GeForce RTX 4070 Laptop GPU")],
                  os_name="windows")
    r = report("verify_cpu_only_on_gpu_windows.jsonl", d)
    c = r.check("cuda.build")
    assert c.status == "fail" and c.cause == "cpu_only_build" and c.fix == "install_cuda_build"
    assert c.finding == "cpu-only-torch-installed"
    assert c.evidence["nvidia_seen_by"] == "detection"
    assert status(r, "cuda.available") == "skip"
    assert r.check("cuda.arch") is None and r.check("cuda.driver") is None
    assert "RTX 4070" in json.dumps(c.to_json("en"))  # the GPU named in the params
    assert not r.ok


def test_cpu_only_build_gpu_seen_by_the_driver_library_alone():
    """Without detection, the probe's own cuDriverGetVersion (nvcuda.dll found) is the evidence."""
    r = report("verify_cpu_only_on_gpu_windows.jsonl")
    c = r.check("cuda.build")
    assert c.status == "fail" and c.evidence["nvidia_seen_by"] == "driver library"


def test_cpu_only_build_without_any_nvidia_gpu_is_a_pass_with_a_note():
    """The right build for this PC (issue 16.11): a pass, its cause and fix kept as the note."""
    r = report("verify_cpu_only_no_gpu_linux.jsonl", detection([], adapters=[("intel", "Intel Iris Xe")]))
    c = r.check("cuda.build")
    assert c.status == "pass" and c.cause == "cpu_only_no_gpu" and c.fix_text("en")
    assert r.ok and r.status == "pass"
    assert status(r, "cpu.matmul") == "pass" and status(r, "cuda.available") == "skip"


def test_driver_too_old_for_the_wheels_cuda():
    d = detection([("NVIDIA GeForce RTX 3070", "8.6", 8192)], cuda="12.4", driver="550.144.03")
    r = report("verify_driver_too_old_linux.jsonl", d)
    drv = r.check("cuda.driver")
    assert drv.status == "fail" and drv.cause == "driver_too_old" and drv.fix == "update_driver"
    assert drv.finding == "driver-too-old-for-torch-cuda"
    assert drv.evidence == {"wheel_cuda": "13.0", "driver_cuda": "12.4", "driver_cuda_source": "detection"}
    avail = r.check("cuda.available")
    assert avail.status == "fail" and avail.cause == "driver_too_old"
    assert "found version 12040" in json.dumps(avail.evidence)
    # CUDA never started, so the arch check uses detection's compute capability
    arch = r.check("cuda.arch")
    assert arch.status == "pass" and arch.evidence["capability_source"] == "detection" and arch.device is None


def test_driver_too_old_read_from_torchs_warning_when_nothing_else_says():
    def no_driver_facts(evs):
        facts_of(evs, "driver").update({"found": False, "cuda_version": None, "cuda_version_int": None})
    r = report("verify_driver_too_old_linux.jsonl", edit=no_driver_facts)
    drv = r.check("cuda.driver")
    assert drv.status == "fail" and drv.evidence["driver_cuda_source"] == "torch warning"
    assert drv.evidence["driver_cuda"] == "12.4"


def test_driver_one_minor_behind_is_a_warning():
    r = report("verify_rtx3060_cu128_linux.jsonl", detection([("NVIDIA GeForce RTX 3060", "8.6", 12288)], cuda="12.6"))
    c = r.check("cuda.driver")
    assert c.status == "warn" and c.cause == "driver_minor_older"


def test_cuda_build_without_any_driver():
    def no_gpu(evs):
        facts_of(evs, "driver").update({"found": False, "cuda_version": None})
        facts_of(evs, "cuda").update({"is_available": False, "device_count": 0, "warnings": []})
        evs[:] = [e for e in evs if not (e.get("type") == "facts" and e.get("section") == "devices")]
    # machine known to have no NVIDIA GPU (a CUDA wheel on a CPU server): skipped, not failed
    r = report("verify_rtx3060_cu128_linux.jsonl", detection([]), edit=no_gpu)
    assert status(r, "cuda.driver") == "skip" and status(r, "cuda.available") == "skip"
    # detection saw an NVIDIA card on PCI but no driver: install it
    d = detection([], adapters=[("nvidia", "NVIDIA Corporation GA106 [GeForce RTX 3060]")])
    r = report("verify_rtx3060_cu128_linux.jsonl", d, edit=no_gpu)
    c = r.check("cuda.available")
    assert c.status == "fail" and c.cause == "no_driver"
    assert r.check("cuda.driver").fix == "install_driver"


def test_cuda_visible_devices_hides_the_gpu():
    def hide(evs):
        facts_of(evs, "env")["CUDA_VISIBLE_DEVICES"] = ""
        facts_of(evs, "cuda").update({"is_available": False, "device_count": 0, "warnings": []})
        facts_of(evs, "devices").clear()
    r = report("verify_rtx3060_cu128_linux.jsonl", detection([("NVIDIA GeForce RTX 3060", "8.6", 12288)]), edit=hide)
    c = r.check("cuda.available")
    assert c.status == "fail" and c.cause == "visible_devices_hidden"
    assert c.finding == "cuda-visible-devices-hides-gpus"


def test_fewer_gpus_than_detection_saw():
    d = detection([("NVIDIA GeForce RTX 3060", "8.6", 12288), ("NVIDIA GeForce RTX 3060", "8.6", 12288)])

    def one_visible(evs):
        facts_of(evs, "env")["CUDA_VISIBLE_DEVICES"] = "0"
    r = report("verify_rtx3060_cu128_linux.jsonl", d, edit=one_visible)
    c = r.check("cuda.device_count")
    assert c.status == "warn" and c.cause == "visible_devices_hidden"
    assert c.params == {"torch": 1, "detected": 2}
    r = report("verify_rtx3060_cu128_linux.jsonl", d)
    assert r.check("cuda.device_count").cause == "device_count_mismatch"


def test_wsl_style_init_failure():
    def wsl(evs):
        facts_of(evs, "cuda").update({"is_available": False, "device_count": 0, "warnings": [
            {"category": "UserWarning", "message": "CUDA initialization: Unexpected error from cudaGetDeviceCount(). "
             "Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? "
             "Error 2: out of memory"}]})
        facts_of(evs, "devices").clear()
    r = report("verify_rtx3060_cu128_linux.jsonl", edit=wsl)
    assert r.check("cuda.available").cause == "cuda_init_failed"


def test_old_gpu_on_a_new_build():
    """A GTX 1060 (sm_61) with a cu128 build that starts at sm_70: no kernel image, pin cu126."""
    def gtx1060(evs):
        dev = facts_of(evs, "devices")[0]
        dev.update({"name": "NVIDIA GeForce GTX 1060 6GB", "capability": "6.1", "multi_processor_count": 10})
    r = report("verify_rtx3060_cu128_linux.jsonl", edit=gtx1060)
    c = r.check("cuda.arch", 0)
    assert c.status == "fail" and c.fix == "no_kernel_image_old_gpu"


def test_ptx_only_coverage_is_a_warning():
    def blackwell_on_ptx(evs):
        facts_of(evs, "cuda")["arch_list"] = ["sm_80", "sm_86", "sm_90", "compute_90"]
        facts_of(evs, "devices")[0].update({"name": "NVIDIA B200", "capability": "10.0"})
    r = report("verify_rtx3060_cu128_linux.jsonl", edit=blackwell_on_ptx)
    c = r.check("cuda.arch", 0)
    assert c.status == "warn" and c.cause == "arch_ptx_only" and c.evidence["runs"] == "compute_90"


def test_rocm_build_is_checked_by_gfx_name():
    def rocm(evs):
        tv = facts_of(evs, "torch")
        tv.update({"version": "2.8.0+rocm6.4", "cuda": None, "hip": "6.4.43482"})
        facts_of(evs, "cuda")["arch_list"] = ["gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100"]
        facts_of(evs, "devices")[0].update({"backend": "rocm", "name": "AMD Radeon RX 7900 XTX",
                                            "capability": "11.0", "gcn_arch": "gfx1100"})
    r = report("verify_rtx3060_cu128_linux.jsonl", edit=rocm)
    assert r.check("cuda.build").detail == "rocm_build"
    assert status(r, "cuda.arch", 0) == "pass"
    assert r.check("cuda.driver") is None  # the NVIDIA driver rule does not apply to ROCm

    def rocm_unsupported(evs):
        rocm(evs)
        facts_of(evs, "devices")[0]["gcn_arch"] = "gfx1036:sramecc-:xnack-"
    r = report("verify_rtx3060_cu128_linux.jsonl", edit=rocm_unsupported)
    assert r.check("cuda.arch", 0).cause == "rocm_arch_unsupported"


def test_macos_build_is_not_called_cpu_only():
    def mac(evs):
        facts_of(evs, "python").update({"sys_platform": "darwin", "system": "Darwin"})
    r = report("verify_cpu_only_no_gpu_linux.jsonl", edit=mac)
    assert status(r, "cuda.build") == "skip" and r.check("cuda.build").detail == "macos_no_cuda"


def test_32bit_python():
    r = report("verify_cpu_only_no_gpu_linux.jsonl", edit=lambda evs: facts_of(evs, "python").update({"bits": 32}))
    c = r.check("python")
    assert c.status == "fail" and c.cause == "python_32bit"


def test_torch_missing_as_the_probe_reports_it():
    """The probe's real output shape for a venv without torch (see test_probe_real)."""
    evs = [e for e in events("verify_cpu_only_no_gpu_linux.jsonl") if e.get("section") not in ("torch", "cuda", "devices")
           and e.get("id") not in ("torch.import", "cpu.matmul", "cpu.train_step", "collect_env")
           and e.get("type") != "collect_env"]
    evs.insert(7, {"event": "error", "id": "torch-missing", "exception": "ModuleNotFoundError",
                   "message": "No module named 'torch'"})
    evs.insert(8, {"event": "result", "type": "check", "id": "torch.import", "status": "fail", "device": None,
                   "evidence": {"exception": "ModuleNotFoundError", "message": "No module named 'torch'"},
                   "cause": "torch_missing", "fix": "install_torch", "detail": None, "params": {}})
    r = VerifyReport.from_events(evs)
    c = r.check("torch.import")
    assert c.status == "fail" and c.cause == "torch_missing"
    assert c.detail_text("en") == "No module named 'torch'"
    assert r.check("cuda.build") is None and r.check("cuda.available") is None
    assert r.check("probe") is None  # the probe itself worked


# --------------------------------------------------------------------------- the probe run itself
def _outcome(evs, **kw):
    return ProbeOutcome(argv=["python", "-u", "verify.py"], events=evs, **kw)


@pytest.mark.parametrize("kw,cause", [
    ({"error": "not found"}, "probe_not_started"),
    ({"cancelled": True}, "probe_cancelled"),
    ({"timed_out": True}, "probe_timeout"),
    ({"returncode": -9}, "probe_crashed"),
])
def test_probe_outcome_failures(kw, cause):
    evs = events("verify_rtx3060_cu128_linux.jsonl")[:20]  # cut before "done"
    r = VerifyReport.from_outcome(_outcome(evs if "error" not in kw else [], **kw))
    c = r.check("probe")
    assert c.status == "fail" and c.cause == cause
    assert not r.ok
    if evs and "error" not in kw:
        assert status(r, "cuda.arch", 0) == "pass"  # what arrived before the end still counts


def test_probe_on_a_too_old_python():
    out = _outcome([], returncode=1, stderr_tail='  File "verify.py", line 40\n    print(f"{x=}")\nSyntaxError: invalid syntax')
    assert VerifyReport.from_outcome(out).check("probe").cause == "probe_python_too_old"


def test_probe_internal_error_is_reported_but_earlier_checks_stand():
    evs = events("verify_rtx3060_cu128_linux.jsonl")
    evs.insert(-1, {"event": "error", "id": "internal", "exception": "KeyError", "message": "'x'", "traceback": "..."})
    r = VerifyReport.from_outcome(_outcome(evs, returncode=1))
    assert r.check("probe").cause == "probe_internal"
    assert status(r, "cuda.matmul.fp32", 0) == "pass"


def test_a_newer_probe_protocol_is_refused():
    evs = events("verify_rtx3060_cu128_linux.jsonl")
    evs[0] = dict(evs[0], protocol=99)
    r = VerifyReport.from_outcome(_outcome(evs, returncode=0))
    assert r.check("probe").cause == "probe_protocol"


def test_complete_run_has_no_probe_check():
    r = VerifyReport.from_outcome(_outcome(events("verify_rtx3060_cu128_linux.jsonl"), returncode=0))
    assert r.check("probe") is None and r.to_json("en")["complete"]


# --------------------------------------------------------------------------- incremental use (GUI)
def test_feeding_events_one_by_one_fills_the_checklist():
    r = VerifyReport(detection=detection([("NVIDIA GeForce RTX 3060", "8.6", 12288)]))
    changed_ids = []
    sizes = []
    for e in events("verify_rtx3060_cu128_linux.jsonl"):
        changed_ids += [c.id for c in r.feed(e)]
        sizes.append(len(r.checks))
    assert sizes == sorted(sizes) and sizes[0] == 0 and sizes[-1] == len(r.checks)
    assert changed_ids.index("torch.import") < changed_ids.index("cuda.arch") < changed_ids.index("collect_env")
    r.finish(None)
    assert r.ok
    assert progress_text({"step": "import_torch"}, "ko").startswith("PyTorch")
    assert progress_text({"step": "some.new.step"}, "en") == "some.new.step"


# --------------------------------------------------------------------------- output
def test_json_output_contract_in_both_languages():
    d = detection([("NVIDIA GeForce RTX 4070 Laptop GPU", "8.9", 8188)], cuda="12.7")
    r = report("verify_cpu_only_on_gpu_windows.jsonl", d)
    for lang in ("en", "ko"):
        out = r.to_json(lang)
        json.dumps(out)  # serialisable
        assert out["schema"] == SCHEMA == "gpu-setup-wizard/verify@1.0"
        assert out["status"] == "fail" and out["ok"] is False
        for c in out["checks"]:
            assert set(("id", "status", "detail")) <= set(c)
            assert c["status"] in ("pass", "warn", "fail", "skip")
            assert isinstance(c["detail"], str) and c["detail"], c
            assert "{" not in c["detail"] and "{" not in (c["cause"] or "") and "{" not in (c["fix"] or ""), c
            assert not c["title"].startswith("verify."), c
        assert out["versions"]["torch"] == "2.5.1+cpu"
    ko = {c["id"]: c for c in r.to_json("ko")["checks"]}
    assert "CPU 전용" in ko["cuda.build"]["cause"]
    text = r.to_text("ko")
    assert "[FAIL]" in text and "원인:" in text and "해결:" in text
    diag = r.diagnostics("en")
    assert "torch.utils.collect_env" in diag and "PyTorch version: 2.5.1+cpu" in diag


def test_worst_status_order():
    assert worst([]) == "skip"
    assert worst(["skip", "pass"]) == "pass"
    assert worst(["pass", "warn", "skip"]) == "warn"
    assert worst(["warn", "fail", "pass"]) == "fail"


# --------------------------------------------------------------------------- arch lists
@pytest.mark.parametrize("cc,archs,expected", [
    ("8.9", ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"], ("sass", "sm_86")),  # RTX 4090 on sm_86
    ("8.6", ["sm_80"], ("sass", "sm_80")),
    ("8.0", ["sm_86"], ("none", None)),  # SASS runs only on an equal or higher minor
    ("12.0", ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120", "compute_120"], ("sass", "sm_120")),
    ("12.1", ["sm_100", "sm_120"], ("sass", "sm_120")),
    ("12.0", ["sm_50", "sm_60", "sm_61", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"], ("none", None)),
    ("12.0", ["sm_80", "sm_90", "compute_90"], ("ptx", "compute_90")),
    ("9.0", ["sm_90a"], ("sass", "sm_90a")),
    ("10.0", ["sm_90a", "compute_100"], ("ptx", "compute_100")),  # 'a' cubins are exact-arch only
    ("6.1", ["sm_70", "sm_75", "compute_75"], ("none", None)),  # PTX never runs backwards
    ("7.5", [], ("none", None)),
    ("bogus", ["sm_80"], ("unknown", None)),
])
def test_arch_coverage(cc, archs, expected):
    assert arch_coverage(cc, archs) == expected


def test_arch_list_parsing_and_found_version():
    cubins, ptx = parse_arch_list(["sm_120", "sm_90a", "compute_120", "gfx1100", "sm_"])
    assert cubins == [(12, 0, ""), (9, 0, "a")] and ptx == [(12, 0)]
    assert cuda_from_found_version(12080) == "12.8" and cuda_from_found_version(11040) == "11.4"
    assert cuda_from_found_version(13000) == "13.0"


# --------------------------------------------------------------------------- messages and the probe's source
def _message_ids(source: str) -> dict[str, set[str]]:
    """cause/fix/detail message ids written as literals in keyword arguments (incl. conditionals)."""
    found: dict[str, set[str]] = {"cause": set(), "fix": set(), "detail": set()}

    def values(node: ast.AST):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.value
        elif isinstance(node, ast.IfExp):
            yield from values(node.body)
            yield from values(node.orelse)
        elif isinstance(node, ast.BoolOp):
            for v in node.values:
                yield from values(v)

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.keyword) and node.arg in found:
            found[node.arg].update(values(node.value))
    return found


def test_every_message_id_used_by_the_probe_and_the_rules_exists():
    cat = catalogue()
    problems = []
    for path in (PROBE / "verify.py", PROBE / "_models.py", PROBE / "_common.py", REPO / "wizard" / "core" / "verify" / "rules.py",
                 REPO / "wizard" / "core" / "verify" / "checklist.py"):
        for kind, ids in _message_ids(path.read_text(encoding="utf-8")).items():
            for mid in ids:
                if f"verify.{kind}.{mid}" not in cat:
                    problems.append(f"{path.name}: verify.{kind}.{mid}")
    # classify_error's causes are also used as fix ids by the probe's guarded checks
    common = (PROBE / "_common.py").read_text(encoding="utf-8")
    body = common[common.index("def classify_error"):]
    for cause in re.findall(r'return "([a-z_]+)"', body):
        for kind in ("cause", "fix"):
            if f"verify.{kind}.{cause}" not in cat:
                problems.append(f"classify_error: verify.{kind}.{cause}")
    # rules that pass the cause as the fix too
    for cause in ("probe_not_started", "probe_cancelled", "probe_timeout", "probe_protocol", "probe_crashed",
                  "probe_failed", "probe_python_too_old", "probe_internal", "driver_too_old", "no_driver",
                  "visible_devices_hidden", "cuda_init_failed", "cuda_unavailable", "device_count_mismatch"):
        if f"verify.fix.{cause}" not in cat:
            problems.append(f"verify.fix.{cause}")
    assert not problems, problems


def test_causes_and_fixes_have_no_placeholders():
    """The probe emits cause/fix ids without params, so these texts must stand alone."""
    for key, entry in catalogue().items():
        if key.startswith(("verify.cause.", "verify.fix.")):
            for lang in ("en", "ko"):
                fields = [f for _, f, _, _ in string.Formatter().parse(entry[lang]) if f]
                assert not fields, (key, lang, fields)


def test_every_check_id_has_a_title():
    missing = [cid for cid in ORDER if f"verify.check.{cid}.title" not in catalogue()]
    assert not missing
    seen = {e.get("id") for name in DATA.glob("verify_*.jsonl") for e in events(name.name) if e.get("type") == "check"}
    assert seen <= set(ORDER), seen - set(ORDER)


def test_probe_scripts_are_python38_stdlib_and_torch_only():
    allowed = set(sys.stdlib_module_names) | {"torch"} | {p.stem for p in PROBE.glob("_*.py")}  # its own helpers
    for path in sorted(PROBE.glob("*.py")):
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source, feature_version=(3, 8))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            for name in names:
                assert name.split(".")[0] in allowed, f"{path.name} imports {name}"
            assert not isinstance(node, (ast.NamedExpr, ast.Match)), f"{path.name}: syntax newer than 3.8"
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
                assert not isinstance(node.left, ast.Name) or node.left.id not in ("int", "str", "float", "dict"), \
                    f"{path.name}: X | Y type at line {node.lineno}"


def test_probe_avoids_the_course_scripts_mistakes():
    """failure-modes.json: total_mem (the attribute is total_memory) and the deprecated
    torch.cuda.amp API; the one torch.cuda.amp use is the GradScaler fallback for torch < 2.3."""
    for path in sorted(PROBE.glob("*.py")):
        code = "\n".join(line.split("#")[0] for line in path.read_text(encoding="utf-8").splitlines())
        assert not re.search(r"\.total_mem\b", code), path.name
        assert "torch.cuda.amp.autocast" not in code, path.name
        for m in re.finditer(r"torch\.cuda\.amp\.\w+", code):
            line = code[code.rfind("\n", 0, m.start()) + 1:code.find("\n", m.end())]
            assert m.group(0) == "torch.cuda.amp.GradScaler", (path.name, line)
            context = code[max(0, m.start() - 300):m.start()]
            assert 'hasattr(torch.amp, "GradScaler")' in context, (path.name, line)


def test_check_from_event_rejects_malformed_lines():
    assert Check.from_event({"id": "x", "status": "maybe"}) is None
    assert Check.from_event({"status": "pass"}) is None
    c = Check.from_event({"id": "x", "status": "pass", "device": "0", "params": [], "evidence": "text"})
    assert c.device is None and c.params == {} and c.evidence == {}
    assert c.title("en") == "x"  # an unknown id shows as itself, not a crash
    assert t("verify.status.pass", "ko") == "통과"
