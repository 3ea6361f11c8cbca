"""The diagnosis names the wheel-variant resolver's CPU fallbacks (rules_variants.py), from the verify
probe's facts of a recorded run with the variant read from the WheelNext index file for torch 2.8.0
(tests/data/variants), in both languages."""

from __future__ import annotations

import json
from pathlib import Path

from tests.finding_texts import assert_renders
from wizard.core.diagnosis.facts import TorchFacts
from wizard.core.diagnosis.rules import DIAGNOSIS_RULES, diagnose, rule_cpu_only_torch
from wizard.core.diagnosis.rules_variants import rule_variant_cpu_fallback
from wizard.core.machine.models import STATUS_OK, Detection, GpuInfo, NvidiaInfo, SystemInfo

REPO = Path(__file__).resolve().parents[2]
PROBE_DATA = REPO / "tests" / "data" / "probe"
INDEX_FILE = REPO / "tests" / "data" / "variants" / "torch-2.8.0-variants.json"


def variant(label: str) -> dict:
    props = json.loads(INDEX_FILE.read_text(encoding="utf-8"))["variants"][label]
    return {"label": label, "installer": "uv",
            "properties": [f"{ns} :: {f} :: {v}" for ns, fs in props.items() for f, vs in fs.items() for v in vs]}


def torch_from_probe(name: str, wheel_variant: dict | None) -> TorchFacts:
    sections = {}
    for line in (PROBE_DATA / name).read_text(encoding="utf-8").splitlines():
        e = json.loads(line) if line.strip() else {}
        if e.get("type") == "facts":
            sections[e["section"]] = e["data"]
    sections["torch"] = dict(sections["torch"], version="2.8.0", cuda=None, variant=wheel_variant)
    return TorchFacts.from_probe_facts(sections)


def machine(os_name: str, driver: str, cuda: str) -> Detection:
    nv = NvidiaInfo(status=STATUS_OK, driver_version=driver, cuda_version=cuda,
                    gpus=[GpuInfo(0, name="NVIDIA GeForce RTX 3060", compute_capability="8.6", memory_total_mib=12288)])
    return Detection(system=SystemInfo(os=os_name, arch="x86_64"), nvidia=nv)


def cpu_finding(detection: Detection, torch: TorchFacts):
    found = diagnose(detection, torch)
    assert_renders(found)
    return next(f for f in found if f.id == "cpu-only-torch-installed")


def test_the_probe_facts_carry_the_variant():
    tf = torch_from_probe("verify_driver_too_old_linux.jsonl", variant("00000000"))
    assert tf.wheel_variant is not None and tf.wheel_variant["label"] == "00000000" and tf.is_cpu_build


def test_the_cpu_variant_on_a_driver_the_cu126_build_runs_on():
    """Linux, driver 550 (CUDA 12.4, below cu126's bound 12.6): the resolver's CPU variant."""
    f = cpu_finding(machine("linux", "550.54.15", "12.4"), torch_from_probe("verify_driver_too_old_linux.jsonl",
                                                                          variant("00000000")))
    assert f.variant == "variant-fallback" and f.severity == "error"
    assert "+cuXXX" in f.cause("en") and "+cuXXX" in f.cause("ko") and "12.4" in f.cause("en")
    assert f.action is not None  # the recommended CUDA build from the PyTorch index


def test_the_cpu_variant_on_windows_where_the_driver_takes_cuda():
    f = cpu_finding(machine("windows", "572.61", "12.8"), torch_from_probe("verify_cpu_only_on_gpu_windows.jsonl",
                                                                         variant("00000000")))
    assert f.variant == "variant-provider-windows"
    assert "NVML" in f.cause("en") and "NVML" in f.cause("ko")


def test_an_ordinary_cpu_build_keeps_the_general_finding():
    f = cpu_finding(machine("linux", "550.54.15", "12.4"), torch_from_probe("verify_driver_too_old_linux.jsonl", None))
    assert f.variant is None


def test_a_cuda_variant_is_not_a_cpu_fallback():
    tf = torch_from_probe("verify_driver_too_old_linux.jsonl", variant("cu126"))
    tf.cuda = "12.6"
    assert not any(f.id == "cpu-only-torch-installed" for f in diagnose(machine("linux", "560.35.03", "12.6"), tf))


def test_the_rule_runs_before_the_general_one():
    assert DIAGNOSIS_RULES.index(rule_variant_cpu_fallback) < DIAGNOSIS_RULES.index(rule_cpu_only_torch)
