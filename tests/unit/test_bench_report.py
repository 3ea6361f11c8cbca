"""BenchReport from recorded bench-probe outputs; the GPU spec table and its lookup; NVML sampling."""

from __future__ import annotations

import ast
import json
import math
import threading
import time
from pathlib import Path

import pytest

from tests.reference import reference_file
from wizard.core.base.i18n import catalogue
from wizard.core.base.resources import load_json
from wizard.core.machine.nvml_sampler import GpuSample
from wizard.core.verify.benchmark import SCHEMA, BenchReport, BenchResult, bench_args, progress_text, result_title
from wizard.core.verify.gpu_sampling import GpuSampling, sample_during, summarise_samples
from wizard.core.verify.gpu_specs import PEAK_FIELD, find_gpu_spec, normalise_gpu_name

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data" / "probe"
REQUIRED = ("id", "device", "dtype", "size", "median_s", "iqr_s", "value", "unit")


def events(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line.strip()]


def raw(name: str, id_: str, device: str, dtype: str | None = None) -> list[dict]:
    return [e for e in events(name) if e.get("type") == "measurement" and e["id"] == id_ and e["device"] == device
            and (dtype is None or e["dtype"] == dtype)]


@pytest.fixture
def rtx3060() -> BenchReport:
    return BenchReport.from_events(events("bench_rtx3060_quick_linux.jsonl"), python_exe="/env/bin/python")


@pytest.fixture
def cpu_only() -> BenchReport:
    return BenchReport.from_events(events("bench_cpu_only_windows.jsonl"))


# --------------------------------------------------------------------------- results and derived numbers
def test_results_keep_the_probe_numbers(rtx3060):
    n_meas = sum(1 for e in events("bench_rtx3060_quick_linux.jsonl") if e.get("type") == "measurement")
    assert len(rtx3060.results) == n_meas and not rtx3060.skipped and rtx3060.completed
    for r in rtx3060.results:
        if r.unit == "GFLOP/s":
            assert math.isclose(r.value, 2 * r.size ** 3 / r.median_s / 1e9, rel_tol=1e-9), r
        assert r.iqr_s >= 0
    assert [n for n, _ in rtx3060.sweep("cpu")] == [256, 512, 1024, 2048]
    assert [n for n, _ in rtx3060.sweep("cuda:0")] == [256, 512, 1024, 2048, 4096]
    assert rtx3060.devices == ["cuda:0", "cpu"]
    assert rtx3060.gpu_name == "NVIDIA GeForce RTX 3060" and rtx3060.threads == 6


def test_course_speedup_is_cpu_time_over_gpu_time(rtx3060):
    (cpu,) = raw("bench_rtx3060_quick_linux.jsonl", "course_matmul", "cpu")
    (gpu,) = raw("bench_rtx3060_quick_linux.jsonl", "course_matmul", "cuda:0")
    s = rtx3060.speedup("course_matmul")
    assert s.size == 5000 and s.target == "cuda:0"
    assert math.isclose(s.factor, cpu["median_s"] / gpu["median_s"])
    line = rtx3060.course_line("en")
    assert line.startswith("5000×5000 matmul: CPU ") and f"speedup {s.factor:.1f}×" in line
    assert "속도 향상" in rtx3060.course_line("ko")


def test_other_speedups(rtx3060):
    mlp = {r.dtype: r for r in rtx3060.find("mlp_train")}
    cpu_mlp = rtx3060.find("mlp_train", "cpu")[0]
    s = rtx3060.speedup("mlp_train")
    assert math.isclose(s.factor, cpu_mlp.median_s / rtx3060.find("mlp_train", "cuda:0", "fp32")[0].median_s)
    amp = rtx3060.speedup("mlp_amp")
    assert math.isclose(amp.factor, mlp["fp32"].median_s / mlp["amp_fp16"].median_s) and amp.factor > 1
    m = rtx3060.speedup("matmul")
    assert m.size == 2048  # largest size both devices ran
    assert math.isclose(m.factor, dict(rtx3060.sweep("cuda:0"))[2048] / dict(rtx3060.sweep("cpu"))[2048])


def test_efficiency_against_the_reference_spec_sheet(rtx3060):
    """Peaks read from the reference research file itself, not from the derived resource."""
    ref = json.loads(reference_file("gpu-specs.json").read_text(encoding="utf-8"))
    spec = next(g for g in ref["gpus"] if g["name"] == "GeForce RTX 3060 12GB")
    effs = {(e.id, e.dtype): e for e in rtx3060.efficiencies()}
    best = {}
    for r in rtx3060.results:
        if r.is_gpu and (r.id, r.dtype) in PEAK_FIELD:
            best[(r.id, r.dtype)] = max(best.get((r.id, r.dtype), 0), r.value)
    column = {"fp32": "fp32_tflops", "tf32": "tf32_tensor_tflops_dense",
              "fp16": "fp16_tensor_tflops_dense_fp32_accumulate", "bf16": "bf16_tensor_tflops_dense_fp32_accumulate"}
    for (id_, dtype), value in best.items():
        if id_ == "copy_d2d":
            expected = 100 * value / spec["mem_bandwidth_gbs"]
        else:
            expected = 100 * value / (spec[column[dtype]] * 1000)
        assert math.isclose(effs[(id_, dtype)].percent, expected, rel_tol=1e-9), (id_, dtype)
    # the tensor-core rows are compared with tensor-core peaks (a unit slip gives 1000x)
    assert 60 < effs[("matmul_dtype", "fp16")].percent < 100
    assert 60 < effs[("matmul_dtype", "tf32")].percent < 100
    assert 60 < effs[("copy_d2d", "fp32")].percent < 100


def test_summary_sentence(rtx3060):
    head = rtx3060.headline()
    assert head["id"] == "course_matmul"
    en = rtx3060.summary("en")
    assert en.startswith("Your GPU runs the 5000×5000 matrix multiply ")
    assert f"{head['speedup']:.1f}× faster than your CPU" in en
    assert f"that is {head['percent']:.0f}% of what the card can do" in en
    ko = rtx3060.summary("ko")
    assert f"{head['speedup']:.1f}배" in ko and f"{head['percent']:.0f}%" in ko


def test_cpu_only_run(cpu_only):
    assert cpu_only.speedups() == [] and cpu_only.efficiencies() == [] and cpu_only.headline() is None
    assert cpu_only.spec() is None
    assert {s.reason for s in cpu_only.skipped} == {"cpu_only_build"}
    en = cpu_only.summary("en")
    (course,) = raw("bench_cpu_only_windows.jsonl", "course_matmul", "cpu")
    assert f"{course['value']:.0f} GFLOP/s" in en and "CPU-only build" in en and en.count(".") >= 2
    assert "CPU 전용" in cpu_only.summary("ko")
    assert cpu_only.course_line("en").endswith("GPU -")
    out = cpu_only.to_json("ko")
    assert out["skipped"][0]["text"].startswith("이 PyTorch는")


def test_gpu_slower_than_cpu():
    evs = events("bench_rtx3060_quick_linux.jsonl")
    for e in evs:
        if e.get("id") == "course_matmul" and e["device"] == "cuda:0":
            e["median_s"] = 1.0  # a GPU stuck at idle clocks, or shared
    r = BenchReport.from_events(evs)
    assert r.speedup("course_matmul").factor < 1
    assert "CPU was" in r.summary("en")


def test_unknown_gpu_has_speedup_but_no_efficiency():
    evs = events("bench_rtx3060_quick_linux.jsonl")
    for e in evs:
        if e.get("section") == "bench":
            e["data"]["gpu"]["name"] = "NVIDIA GeForce RTX 4060 Ti"
    r = BenchReport.from_events(evs)
    assert r.spec() is None and r.efficiencies() == []
    assert "not in the wizard's table" in r.summary("en")


def test_incremental_results(rtx3060):
    r = BenchReport()
    kinds = [type(r.add_event(e)).__name__ for e in events("bench_rtx3060_quick_linux.jsonl")]
    assert kinds.count("BenchResult") == len(rtx3060.results)
    assert r.summary("en") == rtx3060.summary("en")
    assert progress_text({"step": "matmul.cuda:0.4096"}, "ko") == "GPU에서 4096 × 4096 행렬 곱을 재는 중"
    assert progress_text({"step": "matmul.cpu.256", "fraction": 0.25}, "en") == (
        "Timing a 256 × 256 matrix multiply on the CPU — 25%")
    for step in ("matmul.cpu.256", "matmul.cuda:0.fp16", "course.cpu", "copy.cuda:0", "h2d_pinned.cuda:0",
                 "mlp.cpu.fp32", "start", "done", "something.new"):
        for lang in ("ko", "en"):  # plain words, never the probe's own step name
            assert step not in progress_text({"step": step}, lang) and "." not in progress_text({"step": step}, lang)
    assert result_title(r.results[0], "en") == "CUDA start-up time"
    course = BenchResult("course_matmul", "cpu", "fp32", 512, 0.01, 0.0, 27.0, "GFLOP/s")
    assert result_title(course, "ko") == "강의의 행렬 곱, 512×512 (강의는 5000×5000)"  # the size measured
    course.size = 5000
    assert result_title(course, "en") == "The course's 5000×5000 matrix multiply"


def test_json_contract(rtx3060):
    out = rtx3060.to_json("en")
    json.dumps(out)
    assert out["schema"] == SCHEMA == "gpu-setup-wizard/bench@1.0"
    for row in out["results"]:
        assert set(REQUIRED) <= set(row)
        assert isinstance(row["median_s"], float) and isinstance(row["value"], float)
    assert out["gpu_spec"]["name"] == "GeForce RTX 3060 12GB" and out["gpu_spec"]["sources"]
    assert out["summary"] == rtx3060.summary("en")
    assert "course_matmul" in rtx3060.to_text("en")
    with pytest.raises(ValueError):
        bench_args("medium")
    assert bench_args("full", max_size=512) == ["--suite", "full", "--max-size", "512"]


def test_result_from_malformed_event_is_ignored():
    assert BenchResult.from_event({"id": "x", "value": "fast"}) is None
    r = BenchReport.from_events([{"event": "result", "type": "measurement", "id": "x"}])
    assert r.results == [] and r.summary("en") == "No benchmark results yet."


def test_efficiency_above_100_percent_is_kept_raw():
    evs = events("bench_rtx3060_quick_linux.jsonl")
    for e in evs:
        if e.get("id") == "matmul_dtype" and e.get("dtype") == "fp16":
            e["value"] = 30000.0  # a card boosting past its rated clock
    eff = BenchReport.from_events(evs).efficiency("matmul_dtype", "fp16")
    assert eff.percent > 100 and eff.display_percent == 100.0 and eff.good


# --------------------------------------------------------------------------- GPU spec table
@pytest.mark.parametrize("name,memory,expected", [
    ("NVIDIA GeForce RTX 4090", 23.6, "GeForce RTX 4090"),
    ("GeForce RTX 4090", None, "GeForce RTX 4090"),
    ("NVIDIA GeForce RTX 3060 Laptop GPU", 5.8, "GeForce RTX 3060 Laptop"),
    ("NVIDIA GeForce RTX 3060", 11.8, "GeForce RTX 3060 12GB"),
    ("NVIDIA GeForce RTX 3060", 7.8, None),  # the 8 GB RTX 3060 has a narrower bus
    ("NVIDIA GeForce RTX 3060 Ti", 7.8, None),
    ("NVIDIA GeForce RTX 4080 SUPER", 15.7, None),
    ("NVIDIA GeForce RTX 4080", 15.7, "GeForce RTX 4080 (16GB)"),
    ("NVIDIA GeForce RTX 4070 Laptop GPU", 7.8, None),  # laptop parts never borrow desktop peaks
    ("NVIDIA GeForce RTX 2070 with Max-Q Design", 7.8, None),
    ("NVIDIA GeForce GTX 1060 6GB", 5.9, "GeForce GTX 1060 6GB"),
    ("NVIDIA GeForce GTX 1060 3GB", 2.9, None),
    ("NVIDIA A100-SXM4-40GB", 39.4, "NVIDIA A100 40GB SXM"),
    ("NVIDIA A100 80GB PCIe", 79.2, None),
    ("NVIDIA H100 80GB HBM3", 79.1, "NVIDIA H100 SXM"),
    ("NVIDIA H200", 139.8, "NVIDIA H200 SXM"),
    ("NVIDIA H200 NVL", 139.8, None),
    ("Tesla T4", 14.6, "Tesla T4"),
    ("NVIDIA L4", 22.0, "NVIDIA L4"),
    ("NVIDIA A10G", 22.0, None),
    ("NVIDIA GeForce RTX 5090", 31.8, "GeForce RTX 5090"),
    ("", None, None),
])
def test_find_gpu_spec(name, memory, expected):
    spec = find_gpu_spec(name, memory)
    assert (spec.name if spec else None) == expected


def test_normalise_gpu_name():
    assert normalise_gpu_name("NVIDIA GeForce RTX 3060 Laptop GPU") == "rtx 3060 laptop"
    assert normalise_gpu_name("NVIDIA A100-SXM4-40GB") == "a100 sxm4 40gb"
    assert normalise_gpu_name("Quadro(R) RTX 5000") == "rtx 5000"


def test_gpus_json_carries_the_reference_values_and_sources():
    ref = json.loads(reference_file("gpu-specs.json").read_text(encoding="utf-8"))
    ours = {g["name"]: g for g in load_json("gpus.json")["gpus"]}
    assert set(ours) == {g["name"] for g in ref["gpus"]}
    for g in ref["gpus"]:
        mine = ours[g["name"]]
        for key, value in g.items():
            assert mine[key] == value, (g["name"], key)
        assert mine["sources"], g["name"]


def test_every_match_name_is_normalised_and_unique():
    seen = {}
    for g in load_json("gpus.json")["gpus"]:
        for n in g["match"]["names"]:
            assert normalise_gpu_name(n) == n, n
            assert n not in seen, (n, seen.get(n), g["name"])
            seen[n] = g["name"]
        mem = g["match"]["memory_gib"]
        if mem is not None:
            assert mem[0] < g["vram_gb"] * 1.0 <= mem[1] + 0.5, g["name"]


def _bench_probe_reasons() -> tuple[set[str], set[str]]:
    """(SKIP_REASONS as declared, every reason literal the code can pass to skip())."""
    tree = ast.parse((REPO / "wizard" / "probe" / "bench.py").read_text(encoding="utf-8"))
    declared: set[str] = set()
    used: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "SKIP_REASONS" for t in node.targets):
            declared = set(ast.literal_eval(node.value))
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "skip" and len(node.args) >= 4:
            if isinstance(node.args[3], ast.Constant):
                used.add(node.args[3].value)
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "reason" for t in node.targets):
            if isinstance(node.value, ast.Constant):
                used.add(node.value.value)
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple) and len(node.value.elts) == 2:
            if isinstance(node.value.elts[1], ast.Constant):
                used.add(node.value.elts[1].value)
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "plans" for t in node.targets):
            for elt in ast.walk(node.value):
                if isinstance(elt, ast.Tuple) and len(elt.elts) == 4 and isinstance(elt.elts[3], ast.Constant):
                    if elt.elts[3].value is not None:
                        used.add(elt.elts[3].value)
    return declared, used


def test_every_skip_reason_the_probe_can_emit_is_translated():
    declared, used = _bench_probe_reasons()
    assert {"time_budget", "out_of_memory", "cpu_only_build", "tf32_needs_ampere", "bf16_unsupported"} <= used
    assert used <= declared, used - declared
    missing = sorted(r for r in declared if f"bench.skip.{r}" not in catalogue())
    assert not missing, missing
    ids = {"matmul", "matmul_dtype", "course_matmul", "copy_d2d", "h2d_pageable", "h2d_pinned", "d2h_pageable",
           "d2h_pinned", "mlp_train", "cuda_init", "first_matmul"}
    source = (REPO / "wizard" / "probe" / "bench.py").read_text(encoding="utf-8")
    assert all(f'"{i}"' in source for i in ids)
    assert not [i for i in ids if f"bench.result.{i}" not in catalogue()]


def test_every_probe_module_the_probes_import_travels_with_them():
    """The Colab/SSH cell carries the probe files by a list (PROBE_FILES): a module split out of
    bench.py or verify.py that is missing there fails in the cloud with ModuleNotFoundError."""
    from wizard.core.report.colab_cell import PROBE_FILES

    probe = REPO / "wizard" / "probe"
    local = {p.stem for p in probe.glob("*.py")}
    needed = set()
    for script in ("verify.py", "bench.py"):
        needed.add(script)
        for node in ast.walk(ast.parse((probe / script).read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                needed.update(a.name + ".py" for a in node.names if a.name in local)
    assert "_timing.py" in needed and "_common.py" in needed
    assert needed <= set(PROBE_FILES), needed - set(PROBE_FILES)
    assert all((probe / name).is_file() for name in PROBE_FILES)


# --------------------------------------------------------------------------- NVML sampling
class FakeSampler:
    """Stands in for wizard.core.machine.nvml.NvmlSampler (its interface: open/sample/close)."""

    def __init__(self, ok=True):
        self.ok = ok
        self.error = None if ok else "NVML Shared Library Not Found"
        self.opened = self.closed = False
        self.n = 0
        self.three_taken = threading.Event()  # set at the third sample: a test waits on it, not on a clock

    def open(self):
        self.opened = True
        return self.ok

    def sample(self):
        self.n += 1
        if self.n >= 3:
            self.three_taken.set()
        return [GpuSample(index=0, t=time.monotonic(), temperature_c=60.0 + self.n, clock_sm_mhz=1800.0 - self.n,
                          power_w=150.0, utilization_gpu=99.0)]

    def close(self):
        self.closed = True


def test_sampling_while_a_function_runs():
    sampler = FakeSampler()
    # the work lasts until three samples were taken, however slowly a loaded machine schedules the thread
    work = lambda: "done" if sampler.three_taken.wait(60) else "no third sample within 60 s"  # noqa: E731
    result, samples, error = sample_during(work, sampler, interval_s=0.05)
    assert result == "done" and error is None and sampler.closed
    assert len(samples) >= 3
    summary = summarise_samples(samples)[0]
    assert summary["samples"] == len(samples)
    assert summary["temperature_max_c"] == 60.0 + sampler.n
    assert summary["clock_sm_min_mhz"] == 1800.0 - sampler.n and summary["clock_sm_max_mhz"] == 1799.0


def test_sampling_without_nvml_does_not_stop_the_benchmark():
    result, samples, error = sample_during(lambda: 42, FakeSampler(ok=False))
    assert (result, samples, error) == (42, [], "NVML Shared Library Not Found")
    assert sample_during(lambda: 1, None) == (1, [], None)


def test_sampling_stops_even_when_the_function_raises():
    sampler = FakeSampler()
    with pytest.raises(RuntimeError):
        sample_during(lambda: (_ for _ in ()).throw(RuntimeError("boom")), sampler, interval_s=0.01)
    assert sampler.closed
    assert not [t for t in threading.enumerate() if t.name == "bench-nvml"]


def test_gpu_sampling_as_context_manager():
    with GpuSampling(FakeSampler(), interval_s=0.01) as s:
        time.sleep(0.05)
    assert s.samples and s.error is None


def test_noisy_measurements_are_flagged():
    quiet = BenchReport.from_events(events("bench_rtx3060_quick_linux.jsonl"))
    assert not any(r.noisy for r in quiet.results)
    assert "busy" not in quiet.summary("en")
    evs = events("bench_rtx3060_quick_linux.jsonl")
    for e in evs:
        if e.get("type") == "measurement":
            e["iqr_s"] = 0.5 * e["median_s"]
    noisy = BenchReport.from_events(evs)
    assert all(r.noisy for r in noisy.results if r.unit != "s")
    assert noisy.summary("en").startswith(quiet.summary("en")) and "busy" in noisy.summary("en")
    assert noisy.to_json("en")["results"][2]["noisy"] is True
