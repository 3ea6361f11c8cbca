"""PyTorch wheel variants: the probe reads an installed variant's dist-info/variant.json (a real
child interpreter over a real dist-info folder, laid out from the WheelNext index file in
tests/data/variants), Verify says what it is next to torch.version.cuda, and names the variant
resolver's known CPU fallbacks (resources/variants.json, each with its source)."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

from wizard.core.base.resources import load_json
from wizard.core.verify.checklist import VerifyReport

REPO = Path(__file__).resolve().parents[2]
PROBE = REPO / "wizard" / "probe"
PROBE_DATA = REPO / "tests" / "data" / "probe"
INDEX_FILE = REPO / "tests" / "data" / "variants" / "torch-2.8.0-variants.json"


def dist_info_variant(label: str) -> dict:
    """The wheel's own variant.json: the index file with only this label (PEP 825)."""
    doc = json.loads(INDEX_FILE.read_text(encoding="utf-8"))
    doc["variants"] = {label: doc["variants"][label]}
    return doc


def probe_reads(tmp_path: Path, label: str | None, installer: str = "uv") -> dict | None:
    site = tmp_path / "site"
    info = site / "torch-2.8.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: torch\nVersion: 2.8.0\n", encoding="utf-8")
    (info / "INSTALLER").write_text(installer + "\n", encoding="utf-8")
    if label is not None:
        (info / "variant.json").write_text(json.dumps(dist_info_variant(label)), encoding="utf-8")
    code = ("import json, sys; sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[2]); "
            "import _common; print(json.dumps(_common.torch_variant()))")
    out = subprocess.run([sys.executable, "-c", code, str(PROBE), str(site)], capture_output=True, text=True,
                         timeout=60, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_probe_reads_a_cuda_variant(tmp_path):
    v = probe_reads(tmp_path, "cu129")
    assert v is not None and v["label"] == "cu129" and v["installer"] == "uv"
    assert "nvidia :: cuda_version_lower_bound :: 12.9" in v["properties"]
    assert "nvidia :: sm_arch :: 120_real" in v["properties"]


def test_the_probe_reads_the_null_variant(tmp_path):
    v = probe_reads(tmp_path, "00000000")
    assert v is not None and v["label"] == "00000000" and v["properties"] == []


def test_an_ordinary_wheel_is_no_variant(tmp_path):
    assert probe_reads(tmp_path, None, installer="pip") is None


def report(name: str, variant: dict, torch_version: str = "2.8.0", cuda: str | None = None,
           sys_platform: str | None = None, driver_cuda: str | None = None) -> VerifyReport:
    evs = [json.loads(line) for line in (PROBE_DATA / name).read_text(encoding="utf-8").splitlines() if line.strip()]
    evs = copy.deepcopy(evs)
    for e in evs:
        if e.get("type") == "facts" and e.get("section") == "torch":
            e["data"].update({"variant": variant, "version": torch_version, "cuda": cuda})
        if e.get("type") == "facts" and e.get("section") == "python" and sys_platform:
            e["data"]["sys_platform"] = sys_platform
        if e.get("type") == "facts" and e.get("section") == "driver" and driver_cuda:
            e["data"]["cuda_version"] = driver_cuda
    return VerifyReport.from_events(evs, python_exe="python")


def variant_facts(label: str) -> dict:
    props = [f"nvidia :: {f} :: {v}" for f, vs in sorted(dist_info_variant(label)["variants"][label].get("nvidia", {}).items())
             for v in vs]
    return {"label": label, "properties": props, "installer": "uv", "schema": "https://variants-schema.wheelnext.dev/"}


def test_a_cuda_variant_is_named_next_to_torch_version_cuda():
    r = report("verify_rtx3060_cu128_linux.jsonl", variant_facts("cu128"), cuda="12.8")
    c = r.check("torch.variant")
    assert c is not None and c.status == "pass" and c.detail == "variant_install"
    assert c.params["label"] == "cu128" and c.params["cuda"] == "12.8"
    assert "cuda_version_lower_bound :: 12.8" in c.params["properties"]


def test_the_cpu_variant_on_a_driver_the_cu126_build_runs_on():
    """Driver CUDA 12.4 (below cu126's bound 12.6): the resolver's null variant, although
    torch+cu126 runs on any 12.x driver >= 525."""
    r = report("verify_driver_too_old_linux.jsonl", variant_facts("00000000"))
    c = r.check("torch.variant")
    assert (c.status, c.cause, c.fix) == ("warn", "variant_cpu_fallback", "variant_use_index")
    assert c.evidence["known_failure"] == "cpu_variant_on_capable_driver"


def test_the_cpu_variant_on_windows_where_the_driver_takes_cuda():
    r = report("verify_cpu_only_on_gpu_windows.jsonl", variant_facts("00000000"), sys_platform="win32",
               driver_cuda="12.8")
    c = r.check("torch.variant")
    assert (c.status, c.cause) == ("warn", "variant_provider_windows")
    assert c.evidence["known_failure"] == "provider_cannot_read_gpu_windows"


def test_the_cpu_variant_without_a_gpu_is_right():
    r = report("verify_cpu_only_no_gpu_linux.jsonl", variant_facts("00000000"))
    assert r.check("torch.variant").status == "pass"


def test_no_variant_no_check():
    r = report("verify_rtx3060_cu128_linux.jsonl", None, torch_version="2.8.0+cu128", cuda="12.8")  # type: ignore[arg-type]
    assert r.check("torch.variant") is None


def test_the_variant_sentences_read_in_both_languages():
    c = report("verify_driver_too_old_linux.jsonl", variant_facts("00000000")).check("torch.variant")
    en, ko = c.detail_text("en"), c.detail_text("ko")
    assert "00000000" in en and "00000000" in ko and en != ko
    assert "+cuXXX" in c.cause_text("en") and "+cuXXX" in c.cause_text("ko")
    assert "download.pytorch.org" in c.fix_text("en") and "download.pytorch.org" in c.fix_text("ko")


def test_the_data_cites_its_sources():
    doc = load_json("variants.json")
    assert all("https://" in s for s in doc["sources"].values())
    for failure in doc["known_failures"].values():
        assert failure["source"] and set(failure["source"]) <= set(doc["sources"])


def test_uv_torch_backend_cpu_build_on_windows_is_named():
    """The recorded Windows run with a +cpu torch next to an NVIDIA GPU, installed by uv: uv's
    --torch-backend=auto is known to do this (astral-sh/uv#17236)."""
    def run(installer: str | None) -> VerifyReport:
        evs = [json.loads(line) for line in (PROBE_DATA / "verify_cpu_only_on_gpu_windows.jsonl").read_text(
            encoding="utf-8").splitlines() if line.strip()]
        for e in evs:
            if e.get("type") == "facts" and e.get("section") == "torch":
                e["data"]["dist_installer"] = installer
        return VerifyReport.from_events(evs, python_exe="python")

    c = run("uv").check("torch.resolver")
    assert c is not None and (c.status, c.cause, c.fix) == ("warn", "uv_torch_backend_cpu", "variant_use_index")
    assert "--torch-backend=auto" in c.cause_text("en") and "--torch-backend=auto" in c.cause_text("ko")
    assert run("pip").check("torch.resolver") is None


def test_the_probe_reports_who_installed_torch(tmp_path):
    site = tmp_path / "site"
    info = site / "torch-2.9.1+cpu.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: torch\nVersion: 2.9.1+cpu\n", encoding="utf-8")
    (info / "INSTALLER").write_text("uv\n", encoding="utf-8")
    code = ("import json, sys; sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[2]); "
            "import _common; print(json.dumps([_common.torch_installer(), _common.torch_variant()]))")
    out = subprocess.run([sys.executable, "-c", code, str(PROBE), str(site)], capture_output=True, text=True,
                         timeout=60, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == ["uv", None]
