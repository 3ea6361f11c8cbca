"""The recommender: table-driven cases whose answers were worked out by hand from the data
(resources/compat.json, derived from torch-compat.json / torch-install.md), plus properties.

Every case states its reasoning. Abbreviations: "min bar" = the minor-version-compatibility
driver (12.x: 525.60.13 Linux / 528.33 Windows; 13.x: 580), "toolkit bar" = the driver the
build's CUDA shipped with (cu126 560.35.05 / 561.17, cu128 570.124.06 / 572.61, cu130
580.65.06 / R580, cu132 595.58.03 / R595). Unless a case says otherwise the newest *confirmed*
release is 2.14 (newest patch 2.14.1: cu126, cu130, cu132, xpu); 2.15's list is unverified, so it
ranks after confirmed releases by default.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from packaging.version import Version

from wizard.core.base.i18n import catalogue
from wizard.core.machine.models import Detection, DisplayAdapter, GpuInfo, NvidiaInfo, SystemInfo
from wizard.core.recommend import compat
from wizard.core.recommend.compat_model import parse_cc
from wizard.core.recommend.inputs import MachineFacts, Wishes
from wizard.core.recommend.recommender import check_candidate, recommend, rule_failures
from wizard.core.recommend.rules import RULE_DRIVER, RULE_EXISTS, RULE_GPU, RULES

KB = compat.load()

RTX5090 = "NVIDIA GeForce RTX 5090"


@dataclass
class Case:
    id: str
    facts: MachineFacts
    best: tuple[str, str] | None  # (torch, variant) of the first candidate, None = no candidate
    wishes: Wishes = field(default_factory=Wishes)
    rejected: list[tuple[str, str, str]] = field(default_factory=list)  # (torch, variant, rule)
    absent: list[tuple[str, str]] = field(default_factory=list)  # never a candidate
    present: list[tuple[str, str]] = field(default_factory=list)  # must be a candidate
    advice: list[tuple[str, str]] = field(default_factory=list)  # (kind, severity)
    best_bar: str | None = "any"  # driver_bar of the best candidate, when it matters
    reason_has: list[str] = field(default_factory=list)  # (English) words a rejection must contain


def win(py="3.11", driver=None, cuda=None, ccs=(), **kw):
    return MachineFacts("windows", "x86_64", py, driver, cuda, list(ccs), **kw)


def lin(py="3.11", driver=None, cuda=None, ccs=(), **kw):
    return MachineFacts("linux", "x86_64", py, driver, cuda, list(ccs), **kw)


CASES = [
    # --- the named cases -----------------------------------------------------------------
    Case("rtx5090-driver566",
         # sm_120 is only in cu128 (2.7-2.11), cu129 (2.8), cu130, cu132. cu130/cu132 need R580
         # (13.x min bar) > 566.36 -> driver. cu128 passes the 12.x min bar (528.33), but the RTX 50
         # architecture first appears in CUDA 12.8 (meson ISA table) and a driver reporting CUDA 12.7
         # predates it -> driver as well. cu126 and older have no sm_120 -> gpu_arch. So no CUDA build
         # runs: the CPU build is the fallback (2.14.1: newest confirmed) and a driver update comes
         # first; the cheapest unlock of the newest torch (2.15.0, confirmed from PyPI) is cu130 at 580.
         win(driver="566.36", cuda="12.7", ccs=["12.0"], gpu_names=[RTX5090]), ("2.15.0", "cpu"),
         rejected=[("2.11.0", "cu128", RULE_DRIVER), ("2.7.1", "cu128", RULE_DRIVER),
                   ("2.14.1", "cu126", RULE_GPU), ("2.14.1", "cu130", RULE_DRIVER), ("2.6.0", "cu126", RULE_GPU)],
         advice=[("driver_update", "required"), ("colab", "info"), ("cloud", "info")], best_bar=None,
         reason_has=["566.36", "12.7"]),
    Case("rtx5090-driver576-cu128",
         # 576.57 reports CUDA 12.9: >= 12.8 so it knows sm_120; >= 572.61 = cu128's Windows toolkit
         # bar. cu130/cu132 still need 580. Newest torch with a cu128/cu129 build: 2.11.0 (cu128).
         win(driver="576.57", cuda="12.9", ccs=["12.0"], gpu_names=[RTX5090]), ("2.11.0", "cu128"),
         rejected=[("2.14.1", "cu130", RULE_DRIVER), ("2.14.1", "cu126", RULE_GPU), ("2.12.1", "cu126", RULE_GPU)],
         advice=[("driver_update", "recommended")], best_bar="toolkit"),
    Case("gtx1060-driver580-cu126",
         # sm_61: cu130/cu132 start at sm_75, cu128 (2.8-2.10) at sm_70, cu129 at sm_70. Only cu126
         # (Windows list names 6.1) keeps Pascal; 581.57 >= 561.17 -> toolkit bar. Newest: 2.14.1.
         win(driver="581.57", cuda="13.0", ccs=["6.1"], gpu_names=["NVIDIA GeForce GTX 1060 6GB"]),
         ("2.14.1", "cu126"),
         rejected=[("2.14.1", "cu130", RULE_GPU), ("2.14.1", "cu132", RULE_GPU), ("2.11.0", "cu128", RULE_GPU),
                   ("2.10.0", "cu128", RULE_GPU), ("2.9.1", "cu130", RULE_GPU)],
         best_bar="toolkit", reason_has=["sm_61"]),
    Case("gtx1060-linux-driver580",
         # Linux cu126 lists sm_60, whose cubin runs on sm_61 (same major). Same answer as Windows.
         lin(driver="580.95.05", cuda="13.0", ccs=["6.1"]), ("2.14.1", "cu126"),
         rejected=[("2.8.0", "cu128", RULE_GPU), ("2.8.0", "cu129", RULE_GPU), ("2.15.0", "cu130", RULE_GPU)]),
    Case("kepler-k80-driver470",
         # sm_37 is only in cu117 (2.0) and cu118 (2.0-2.7); R470 reports CUDA 11.4: 470.256.02 >=
         # 450.80.02 (11.x min bar) but < 520.61.05 (cu118 toolkit bar) -> runs, with a warning.
         # Newest torch with cu118: 2.7.1. Python 3.10 fits 2.7 (3.9-3.13).
         lin(py="3.10", driver="470.256.02", cuda="11.4", ccs=["3.7"]), ("2.7.1", "cu118"),
         rejected=[("2.14.1", "cu126", RULE_GPU), ("2.7.1", "cu126", RULE_GPU), ("2.7.1", "cu128", RULE_GPU),
                   ("2.5.1", "cu121", RULE_GPU)],
         best_bar="minimum", reason_has=["sm_37", "sm_50"]),
    Case("kepler-k80-windows",
         # Same on Windows: 475.14 >= 452.39 (11.x Windows min bar), < 522.06 (cu118 toolkit).
         win(driver="475.14", cuda="11.4", ccs=["3.7"]), ("2.7.1", "cu118"), best_bar="minimum"),
    Case("volta-v100-cuda13-driver",
         # sm_70: CUDA 13 builds start at sm_75 -> cu130/cu132 rejected. cu126 keeps sm_70 through
         # 2.14 and 580.95.05 >= 560.35.05. (Linux cu128 2.8-2.10 also has sm_70: a candidate; cu128
         # of 2.11 dropped Volta: rejected.)
         lin(driver="580.95.05", cuda="13.0", ccs=["7.0"]), ("2.14.1", "cu126"),
         rejected=[("2.14.1", "cu130", RULE_GPU), ("2.15.0", "cu132", RULE_GPU), ("2.11.0", "cu128", RULE_GPU)],
         present=[("2.10.0", "cu128")], best_bar="toolkit"),
    Case("volta-windows-conservative",
         # Windows cu128 2.8-2.10 has no confirmed sm_70 (the confirmed 2.7 list is assumed) -> that
         # build is rejected on Windows, unlike Linux. cu126 still wins.
         win(driver="581.57", cuda="13.0", ccs=["7.0"]), ("2.14.1", "cu126"),
         rejected=[("2.10.0", "cu128", RULE_GPU)]),
    Case("windows-no-gpu",
         # No NVIDIA/AMD/Intel GPU: only CPU builds are judged; newest confirmed is 2.15.0. Colab and
         # a cloud GPU are the advice.
         win(), ("2.15.0", "cpu"), advice=[("colab", "info"), ("cloud", "info")], best_bar=None),
    Case("wsl2-driver566",
         # WSL2 on a 4070 Laptop (sm_89 runs the sm_86 cubins). The driver is the WINDOWS 566.36, so
         # the Windows bars apply: cu126 toolkit 561.17 <= 566.36; cu130/cu132 need 580. A newer driver
         # would unlock torch 2.15 (no cu126 there) -> a "recommended" driver advice, WSL-flavoured.
         lin(driver="566.36", cuda="12.7", ccs=["8.9"], is_wsl=True, gpu_names=["NVIDIA GeForce RTX 4070 Laptop GPU"]),
         ("2.14.1", "cu126"), rejected=[("2.14.1", "cu130", RULE_DRIVER), ("2.14.1", "cu132", RULE_DRIVER)],
         advice=[("driver_update", "recommended")], best_bar="toolkit", reason_has=["566.36", "take cu126"]),
    Case("wsl2-uses-windows-bars",
         # 560.94 (Windows numbering, CUDA 12.6): Windows cu126 toolkit bar 561.17 is NOT met (the
         # Linux one, 560.35.05, would be) -> cu126 runs on the min bar only, with a warning.
         lin(driver="560.94", cuda="12.6", ccs=["8.6"], is_wsl=True), ("2.14.1", "cu126"), best_bar="minimum"),
    Case("macos-arm64",
         # Apple Silicon: the default PyPI wheel (CPU + MPS); macOS 14.5 >= 14.0 needed from 2.12.
         MachineFacts("macos", "arm64", "3.12", non_nvidia=["apple"], os_version="14.5"), ("2.15.0", "mps"),
         advice=[("colab", "info")], best_bar=None),
    Case("macos-13-stops-at-2.11",
         # torch >= 2.12 macOS wheels are tagged 14.0+: on macOS 13.6 the newest is 2.11.0.
         MachineFacts("macos", "arm64", "3.12", os_version="13.6"), ("2.11.0", "mps"),
         rejected=[("2.12.1", "mps", RULE_EXISTS), ("2.14.1", "mps", RULE_EXISTS)], reason_has=["macOS 14.0"]),
    Case("intel-mac",
         # macOS x86_64 wheels end with 2.2.2.
         MachineFacts("macos", "x86_64", "3.11"), ("2.2.2", "cpu"),
         rejected=[("2.3.1", "cpu", RULE_EXISTS), ("2.14.1", "cpu", RULE_EXISTS)]),
    Case("linux-aarch64-cpu",
         # aarch64 without a GPU: CPU wheels exist for every release; 2.15.0 newest confirmed.
         MachineFacts("linux", "aarch64", "3.11"), ("2.15.0", "cpu"), best_bar=None),
    Case("linux-aarch64-gh200",
         # GH200 (sm_90) on aarch64: cu130's aarch64 list 8.0;9.0;10.0;11.0;12.0+PTX has sm_90;
         # 580.95.05 >= 580.65.06 -> toolkit bar. cu128 is not built for aarch64 in 2.11. 2.15's cu130
         # is not confirmed (index not read), its cu132 is (PyPI's aarch64 wheel): the newer torch
         # on cu132's minimum bar comes first, 2.14.1 cu130 on the toolkit bar stays a candidate.
         MachineFacts("linux", "aarch64", "3.11", "580.95.05", "13.0", ["9.0"]), ("2.15.0", "cu132"),
         rejected=[("2.11.0", "cu128", RULE_EXISTS)], present=[("2.14.1", "cu130")], best_bar="minimum"),
    Case("python38",
         # 3.8 wheels end with 2.4 (3.8-3.12). 2.4 has cu118/cu121/cu124; 550.54.15 >= 550.54.14
         # (cu124 toolkit) -> cu124. Newer torch needs another Python -> python advice.
         lin(py="3.8", driver="550.54.15", cuda="12.4", ccs=["8.6"]), ("2.4.1", "cu124"),
         rejected=[("2.5.1", "cu124", RULE_EXISTS), ("2.14.1", "cu126", RULE_EXISTS)],
         advice=[("python", "recommended")], best_bar="toolkit", reason_has=["Python 3.8"]),
    Case("python314",
         # 3.14 wheels from 2.9 on. 581.57 >= 580 (Windows R580 bar) -> cu130 safe; cu132 (R595) only
         # the min bar. 2.15's confirmed CUDA build is cu132 (cu130 unconfirmed): the newer torch on
         # the min bar comes first, 2.14.1 cu130 after it. 2.8 has no 3.14 wheels.
         win(py="3.14", driver="581.57", cuda="13.0", ccs=["8.6"]), ("2.15.0", "cu132"),
         rejected=[("2.8.0", "cu128", RULE_EXISTS), ("2.5.1", "cu124", RULE_EXISTS)],
         present=[("2.14.1", "cu132"), ("2.14.1", "cu130")], best_bar="minimum", reason_has=["use 3.13"]),
    Case("python315-only-2.15",
         # Only 2.15 (3.11-3.15, confirmed on PyPI) has 3.15 wheels. Its cu132 is confirmed (PyPI's
         # own wheel), cu130 is not (index not read): cu132 on the min bar first, cu130 after it.
         lin(py="3.15", driver="581.57", cuda="13.0", ccs=["8.6"]), ("2.15.0", "cu132"),
         rejected=[("2.14.1", "cu130", RULE_EXISTS)], present=[("2.15.0", "cu130")]),
    Case("python316-nothing-yet",
         # No release has 3.16 wheels (newest: 2.15 with 3.11-3.15): nothing, not even the CPU build.
         # The advice names a Python an older confirmed release also supports: 2.14.1 with 3.14.
         lin(py="3.16", driver="581.57", cuda="13.0", ccs=["8.6"]), None,
         rejected=[("2.14.1", "cu126", RULE_EXISTS), ("2.14.1", "cpu", RULE_EXISTS)],
         advice=[("python", "required")]),
    Case("mixed-sm61-sm86",
         # Two GPUs: intersection. sm_61 excludes everything but cu126 (and older); sm_86 is in
         # cu126 too -> 2.14.1 cu126. cu130 is rejected because of the sm_61 card.
         lin(driver="581.57", cuda="13.0", ccs=["6.1", "8.6"]), ("2.14.1", "cu126"),
         rejected=[("2.14.1", "cu130", RULE_GPU)], reason_has=["sm_61"]),
    Case("mixed-sm75-sm120",
         # Turing + Blackwell: cu126 lacks sm_120; cu130/cu132 have 7.5 and 12.0. 2.15's confirmed
         # cu132 (min bar: 580.95.05 < 595.58.03) comes before 2.14.1 cu130 (toolkit bar).
         lin(driver="580.95.05", cuda="13.0", ccs=["7.5", "12.0"]), ("2.15.0", "cu132"),
         rejected=[("2.14.1", "cu126", RULE_GPU)]),
    Case("course-pins-2.1",
         # torch 2.1 has cu118 and cu121 (Python 3.8-3.11). cu121 Windows toolkit 531.14 <= 566.36 ->
         # safe; highest CUDA wins -> 2.1.2+cu121, torchvision 0.16.2, torchaudio 2.1.2.
         win(driver="566.36", cuda="12.7", ccs=["8.6"]), ("2.1.2", "cu121"), wishes=Wishes(torch="2.1"),
         present=[("2.1.2", "cu118")], best_bar="toolkit"),
    Case("course-pins-2.1-python312",
         # 2.1 has no 3.12 wheels -> every 2.1 build rejected; the fix is Python 3.11.
         win(py="3.12", driver="566.36", cuda="12.7", ccs=["8.6"]), None, wishes=Wishes(torch="2.1"),
         rejected=[("2.1.2", "cu121", RULE_EXISTS), ("2.1.2", "cu118", RULE_EXISTS)],
         advice=[("python", "required")], reason_has=["use 3.11"]),
    Case("course-pins-exact-2.1.0",
         lin(driver="535.104.05", cuda="12.2", ccs=["8.6"]), ("2.1.0", "cu121"), wishes=Wishes(torch="2.1.0")),
    Case("course-pin-2.1-on-rtx5090",
         # 2.1's builds stop at sm_90: no GPU build for the pin. CPU 2.1.2 works; advise that 2.11.0
         # (cu128, the best for this machine) would use the GPU.
         win(driver="576.57", cuda="12.9", ccs=["12.0"]), ("2.1.2", "cpu"), wishes=Wishes(torch="2.1"),
         rejected=[("2.1.2", "cu121", RULE_GPU)], advice=[("pin_blocks_gpu", "info")], best_bar=None),
    Case("pin-unknown",
         win(driver="581.57", cuda="13.0", ccs=["8.6"]), None, wishes=Wishes(torch="1.13"),
         advice=[("pin_unknown", "required")]),
    Case("cpu-only-wish",
         win(driver="581.57", cuda="13.0", ccs=["8.6"]), ("2.15.0", "cpu"), wishes=Wishes(cpu_only=True),
         best_bar=None),
    Case("variant-wish-cu128",
         # cu128 exists up to 2.11; 580.95.05 runs it; the wish puts it first.
         lin(driver="580.95.05", cuda="13.0", ccs=["8.6"]), ("2.11.0", "cu128"), wishes=Wishes(variant="cu128")),
    Case("default-prefers-confirmed",
         # driver 595.58.03 meets every bar: 2.15.0's highest confirmed CUDA is cu132.
         lin(driver="595.58.03", cuda="13.2", ccs=["8.6"]), ("2.15.0", "cu132"), best_bar="toolkit"),
    Case("newest-wish",
         # "newest": 2.15.0 (unverified list) first, and its newest CUDA, cu132.
         lin(driver="595.58.03", cuda="13.2", ccs=["8.6"]), ("2.15.0", "cu132"), wishes=Wishes(newest=True)),
    Case("weak-bar-ranked-after-toolkit-bar",
         # RTX 5090 on Linux 570.26 (CUDA 12.8): it knows sm_120. 2.11's cu128 was built with 12.8.1
         # (toolkit 570.124.06): min bar only, with a warning. Newest torch still comes first.
         lin(driver="570.26", cuda="12.8", ccs=["12.0"]), ("2.11.0", "cu128"),
         present=[("2.7.1", "cu128")], best_bar="minimum"),
    Case("no-driver-installed",
         # An NVIDIA adapter but no driver: every CUDA build fails the driver rule; CPU fallback;
         # install the driver first (Ubuntu commands).
         lin(nvidia_without_driver=True, distro_id="ubuntu"), ("2.15.0", "cpu"),
         rejected=[("2.14.1", "cu126", RULE_DRIVER)], advice=[("driver_install", "required")], best_bar=None),
    Case("driver-too-old-for-everything",
         # 450.51.06 reports CUDA 11.0: below 450.80.02 (11.x min bar) and the 12.x/13.x bars; an
         # RTX 3060 (sm_86, CUDA 11.1) is not even known to it. CPU fallback; update first. The
         # cheapest unlock of 2.15.0 (no cu126 there) is cu130 at 580 -> nvidia-driver-580 on Ubuntu.
         lin(driver="450.51.06", cuda="11.0", ccs=["8.6"], distro_id="ubuntu"), ("2.15.0", "cpu"),
         rejected=[("2.7.1", "cu118", RULE_DRIVER), ("2.14.1", "cu126", RULE_DRIVER)],
         advice=[("driver_update", "required")], best_bar=None),
    Case("old-driver-pascal",
         # GTX 1080 with R470 (CUDA 11.4): only 11.x builds start; sm_61 runs cu118's sm_60 code ->
         # 2.7.1 cu118 on the min bar. 2.14.1 cu126 would need 560.35.05 -> recommended update.
         lin(driver="470.256.02", cuda="11.4", ccs=["6.1"]), ("2.7.1", "cu118"),
         rejected=[("2.14.1", "cu126", RULE_DRIVER)], advice=[("driver_update", "recommended")],
         best_bar="minimum"),
    Case("cuda-known-driver-unknown",
         # Only the CUDA version (12.4): 12.x builds pass the major check; cu126 > 12.4 -> min bar.
         lin(cuda="12.4", ccs=["8.6"]), ("2.14.1", "cu126"), rejected=[("2.14.1", "cu130", RULE_DRIVER)],
         best_bar="minimum"),
    Case("fermi-unsupported",
         # sm_21: below every list (lowest ever: sm_37) -> no CUDA build; CPU + advice.
         lin(driver="390.157", cuda="9.1", ccs=["2.1"]), ("2.15.0", "cpu"),
         rejected=[("2.0.1", "cu118", RULE_GPU)], advice=[("gpu_unsupported", "info"), ("colab", "info")],
         best_bar=None),
    Case("future-gpu-ptx-only",
         # A hypothetical sm_130 on Linux: no 13.x cubin anywhere, but cu130/cu132 carry 12.0 PTX,
         # which compiles forward. PTX needs the toolkit bar: 580.65.06 meets cu130's, not cu132's
         # (595.58.03) -> cu132 rejected by the driver rule, cu130 taken (with a JIT warning).
         lin(driver="580.65.06", cuda="13.0", ccs=["13.0"]), ("2.14.1", "cu130"),
         rejected=[("2.14.1", "cu132", RULE_DRIVER), ("2.14.1", "cu126", RULE_GPU)], reason_has=["PTX"]),
    Case("amd-rocm-gfx1100",
         # RX 7900 (gfx1100) on Linux: rocm7.2 and rocm7.1 list it; 2.14's rocm7.14 has no list
         # (unconfirmed, ranked after the CPU build). Newest confirmed: 2.13.0 rocm7.2.
         lin(non_nvidia=["amd"], amd_gfx=["gfx1100"]), ("2.13.0", "rocm7.2"), present=[("2.14.1", "rocm7.14")],
         best_bar=None),
    Case("amd-apu-unsupported",
         # A Ryzen iGPU (gfx1036) is in no ROCm list -> ROCm rejected; CPU.
         lin(non_nvidia=["amd"], amd_gfx=["gfx1036"]), ("2.15.0", "cpu"), rejected=[("2.13.0", "rocm7.2", RULE_GPU)],
         best_bar=None),
    Case("amd-on-windows",
         # ROCm exists only for Linux x86_64: CPU and an explanation.
         win(non_nvidia=["amd"]), ("2.15.0", "cpu"), advice=[("rocm_linux_only", "info")], best_bar=None),
    Case("intel-arc",
         # Intel Arc A770 on Windows: xpu since 2.5 -> 2.14.1 xpu.
         win(non_nvidia=["intel"], other_gpu_names=["Intel(R) Arc(TM) A770 Graphics"]), ("2.14.1", "xpu"),
         best_bar=None),
    Case("intel-uhd-not-arc",
         win(non_nvidia=["intel"], other_gpu_names=["Intel(R) UHD Graphics 620"]), ("2.15.0", "cpu"),
         rejected=[("2.14.1", "xpu", RULE_GPU)], best_bar=None),
    Case("windows-arm64",
         # No release publishes Windows arm64 wheels in the table.
         MachineFacts("windows", "arm64", "3.11"), None, rejected=[("2.14.1", "cpu", RULE_EXISTS)],
         advice=[("nothing_runs", "info"), ("colab", "info")]),
]


def _pairs(items):
    return {(c.torch, c.variant) for c in items}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case(case: Case):
    rec = recommend(case.facts, case.wishes)
    best = rec.best
    assert (None if best is None else (best.torch, best.variant)) == case.best
    if best is not None and case.best_bar != "any":
        assert best.driver_bar == case.best_bar
    rejected = {(r.torch, r.variant): r for r in rec.rejected}
    for torch, variant, rule in case.rejected:
        assert (torch, variant) in rejected, f"{torch} {variant} not rejected"
        assert rejected[(torch, variant)].rule == rule, rejected[(torch, variant)].reason.text("en")
    for words in case.reason_has:
        texts = [r.reason.text("en") for r in rec.rejected]
        assert any(words in text for text in texts), (words, texts[:5])
    candidates = _pairs(rec.candidates)
    for pair in case.present:
        assert pair in candidates, pair
    for pair in case.absent:
        assert pair not in candidates, pair
    kinds = {(a.kind, a.severity) for a in rec.advice}
    for expected in case.advice:
        assert expected in kinds, (expected, kinds)


def test_there_are_at_least_30_cases():
    assert len(CASES) >= 30


# ---------------------------------------------------------------------------------------------
# details the cases above do not show
# ---------------------------------------------------------------------------------------------
def test_gtx1060_never_gets_cu128_or_newer_for_torch_2_8_and_later():
    rec = recommend(win(driver="581.57", cuda="13.0", ccs=["6.1"]))
    for c in rec.candidates:
        if Version(c.torch) >= Version("2.8"):
            assert c.variant not in ("cu128", "cu129", "cu130", "cu132"), c


def test_rtx5090_driver566_says_update_for_every_sm120_build():
    rec = recommend(win(driver="566.36", cuda="12.7", ccs=["12.0"], gpu_names=[RTX5090]))
    assert not [c for c in rec.candidates if c.kind == "cuda"]
    assert rec.update_driver_first
    update = next(a for a in rec.advice if a.kind == "driver_update")
    assert update.url == "https://www.nvidia.com/Download/index.aspx"
    assert "580" in update.text("en") and "2.15.0" in update.text("en")
    for r in rec.rejected:
        archs = KB.archs_for(r.variant, r.torch, "windows-x86_64")
        if archs is not None and archs.cubin_for((12, 0)):
            assert r.rule == RULE_DRIVER, r  # every build that has sm_120 fails on the driver


def test_course_pin_companions():
    best = recommend(win(driver="566.36", cuda="12.7", ccs=["8.6"]), Wishes(torch="2.1")).best
    assert (best.torchvision, best.torchaudio) == ("0.16.2", "2.1.2")
    assert best.python_requires == ">=3.8,<3.12"
    assert best.commands().pip == [
        "python -m pip install torch==2.1.2 torchvision==0.16.2 torchaudio==2.1.2 "
        "--index-url https://download.pytorch.org/whl/cu121"]


def test_weak_bar_carries_a_warning_naming_the_toolkit_driver():
    best = recommend(lin(driver="570.26", cuda="12.8", ccs=["12.0"])).best
    warnings = [w.text("en") for w in best.warnings]
    assert any("570.124.06" in w and "minor-version" in w for w in warnings), warnings


def test_ptx_only_gpu_gets_a_jit_warning():
    best = recommend(lin(driver="580.65.06", cuda="13.0", ccs=["13.0"])).best
    assert any(w.key == "recommend.warn.ptx_jit" for w in best.warnings)


def test_wsl_advice_updates_the_windows_driver_only():
    rec = recommend(lin(driver="566.36", cuda="12.7", ccs=["12.0"], is_wsl=True))
    update = next(a for a in rec.advice if a.kind == "driver_update")
    assert update.severity == "required"
    assert "WINDOWS" in update.text("en") and "Never install a Linux NVIDIA driver" in update.text("en")
    assert update.commands == ["wsl --shutdown"]
    assert not any("apt" in c for c in update.commands)


def test_ubuntu_driver_commands():
    rec = recommend(lin(driver="450.51.06", cuda="11.0", ccs=["8.6"], distro_id="ubuntu"))
    update = next(a for a in rec.advice if a.kind == "driver_update")
    # 2.15 has no cu126: its cheapest unlock is cu130 at R580
    assert update.commands == ["sudo ubuntu-drivers install", "sudo apt install nvidia-driver-580"]
    fedora = recommend(lin(driver="450.51.06", cuda="11.0", ccs=["8.6"], distro_id="fedora"))
    assert next(a for a in fedora.advice if a.kind == "driver_update").commands == []


def test_mac_installs_from_pypi_without_index_url():
    best = recommend(MachineFacts("macos", "arm64", "3.12", os_version="15.1")).best
    assert best.index_url == "https://pypi.org/simple" and best.uses_default_index
    assert "--index-url" not in best.commands().pip[0]
    assert best.local_version == ""


def test_mirror_is_honoured_in_candidates_and_commands():
    rec = recommend(lin(driver="581.57", cuda="13.0", ccs=["8.6"]),
                    Wishes(index_url="https://mirror.example.ac.kr/pytorch/whl"))
    for c in rec.candidates:
        assert c.index_url == f"https://mirror.example.ac.kr/pytorch/whl/{c.variant}"
        text = c.commands().as_text()
        assert all(c.index_url in text[tool] for tool in ("pip", "uv", "conda"))


def test_windows_pypi_default_warning():
    best = recommend(win(driver="581.57", cuda="13.0", ccs=["8.6"])).best
    assert any(w.key == "recommend.warn.pypi_default" and w.param("default") == "cpu" for w in best.warnings)


def test_check_candidate_is_the_override_check():
    facts = win(driver="566.36", cuda="12.7", ccs=["12.0"], gpu_names=[RTX5090])
    # cu126 has no sm_120 kernels (GPU rule, listed first), and driver 566.36 (CUDA 12.7) predates
    # the RTX 50 architecture (CUDA 12.8) whatever the build (driver rule)
    problems = check_candidate(facts, "2.6", "cu126")
    assert len(problems) == 2 and "sm_120" in problems[0] and "12.8" in problems[1]
    assert check_candidate(win(driver="581.57", cuda="13.0", ccs=["8.6"]), "2.14.1", "cu126") == []
    several = rule_failures(lin(py="3.8", driver="566.36", cuda="12.7", ccs=["6.1"]), "2.14", "cu130")
    assert [f.rule for f in several] == [RULE_EXISTS, RULE_GPU, RULE_DRIVER]
    assert "1.13" in check_candidate(facts, "1.13", "cu117")[0]
    assert check_candidate(facts, "2.6", "cu126", lang="ko")[0] != problems[0]


def test_to_json_contract():
    rec = recommend(win(driver="566.36", cuda="12.7", ccs=["8.6"]))
    doc = json.loads(json.dumps(rec.to_json("en")))
    assert doc["schema"] == "gpu-setup-wizard/recommend@1.0"
    cand = doc["candidates"][0]
    for key in ("torch", "torchvision", "torchaudio", "variant", "index_url", "python_requires", "reasons",
                "warnings", "commands"):
        assert key in cand, key
    assert set(cand["commands"]) == {"pip", "uv", "conda"}
    assert cand["commands"]["conda"].splitlines()[0] == "conda create -n dl python=3.11 -y"
    assert doc["rejected"] and set(doc["rejected"][0]) == {"torch", "variant", "reason", "rule"}
    assert all(r["rule"] in RULES for r in doc["rejected"])
    ko = rec.to_json("ko")
    assert ko["candidates"][0]["reasons"] != cand["reasons"]


def test_every_message_renders_in_both_languages():
    cat = catalogue()
    for case in CASES:
        rec = recommend(case.facts, case.wishes)
        messages = [m for c in rec.candidates for m in (*c.reasons, *c.warnings)]
        messages += [r.reason for r in rec.rejected]
        messages += [m for a in rec.advice for m in (a.message, a.detail) if m is not None]
        for m in messages:
            assert m.key in cat, m.key
            for lang in ("en", "ko"):
                text = m.text(lang)
                assert "{" not in text and text != m.key, (m.key, lang, text)


def test_from_detection():
    det = Detection(
        system=SystemInfo(os="windows", arch="AMD64", display_adapters=[
            DisplayAdapter("intel", "Intel(R) UHD Graphics 770"), DisplayAdapter("nvidia", "NVIDIA GeForce RTX 3060")]),
        nvidia=NvidiaInfo(status="ok", driver_version="566.36", cuda_version="12.7", gpus=[
            GpuInfo(0, name="NVIDIA GeForce RTX 3060", compute_capability="8.6"),
            GpuInfo(1, name="NVIDIA GeForce GTX 1060 6GB", compute_capability="6.1")]))
    facts = MachineFacts.from_detection(det, "3.11.7")
    assert (facts.os, facts.arch, facts.python, facts.platform) == ("windows", "x86_64", "3.11", "windows-x86_64")
    assert facts.gpu_ccs == ["8.6", "6.1"] and facts.non_nvidia == ["intel"]
    assert facts.gpu_label((6, 1)) == "NVIDIA GeForce GTX 1060 6GB"
    assert not facts.nvidia_without_driver
    # a hybrid laptop: NVIDIA wins over the Intel iGPU, no xpu build is offered
    assert all(c.kind == "cuda" for c in recommend(facts).candidates)

    no_driver = Detection(system=SystemInfo(os="linux", arch="x86_64", distro_id="ubuntu",
                                            display_adapters=[DisplayAdapter("nvidia", "GA106")]),
                          nvidia=NvidiaInfo(status="no-driver"))
    facts = MachineFacts.from_detection(no_driver, "3.12")
    assert facts.nvidia_without_driver and facts.has_nvidia and facts.distro_id == "ubuntu"


# ---------------------------------------------------------------------------------------------
# properties
# ---------------------------------------------------------------------------------------------
def independent_failures(facts: MachineFacts, torch: str, variant: str) -> set[str]:
    """The three rules, re-stated from the issue and the data, independently of recommend.py."""
    rel = KB.release(torch)
    info = KB.variant(variant)
    failed: set[str] = set()
    platform = f"{facts.os}-{facts.arch}"
    pys = [p for p in rel.python if p not in rel.python_only_on or platform in rel.python_only_on[p]]
    old_mac = (facts.os == "macos" and rel.macos_min and facts.os_version
               and Version(facts.os_version) < Version(rel.macos_min))
    if variant not in rel.variants.get(platform, ()) or facts.python not in pys or old_mac:
        failed.add(RULE_EXISTS)
    if info.kind == "rocm":
        # a supported AMD GPU: one must exist, and a known gfx target must be in a known list
        if "amd" not in facts.non_nvidia and not facts.amd_gfx:
            failed.add(RULE_GPU)
        elif info.gfx is not None and facts.amd_gfx and not set(facts.amd_gfx) <= set(info.gfx):
            failed.add(RULE_GPU)
    if info.kind == "xpu":
        # an Intel Arc-class GPU: an Intel adapter whose known name is not Arc-class fails
        intel = [n for n in facts.other_gpu_names if "intel" in n.lower()]
        if "intel" not in facts.non_nvidia or intel and not any(
                p.lower() in n.lower() for n in intel for p in KB.xpu_name_patterns):
            failed.add(RULE_GPU)
    if info.kind != "cuda":
        return failed
    ccs = sorted({parse_cc(c) for c in facts.gpu_ccs})
    archs = KB.archs_for(variant, torch, platform)
    ptx_only = []
    if not facts.has_nvidia:
        failed.add(RULE_GPU)
    elif archs is not None:
        for cc in ccs:
            if not any(a[0] == cc[0] and a[1] <= cc[1] for a in archs.cubins):
                if any(p <= cc for p in archs.ptx):
                    ptx_only.append(cc)
                else:
                    failed.add(RULE_GPU)
    driver_os = "windows" if facts.os == "windows" or facts.is_wsl else "linux"
    bars = KB.driver_bars(variant, driver_os, torch)
    cuda = facts.cuda_driver or (KB.cuda_for_driver(facts.driver_version, driver_os) if facts.driver_version else None)
    if facts.nvidia_without_driver and not facts.driver_version:
        failed.add(RULE_DRIVER)
    elif facts.driver_version:
        drv = Version(facts.driver_version)
        if drv < Version(bars.minimum):
            failed.add(RULE_DRIVER)
        if ptx_only and drv < Version(bars.toolkit):
            failed.add(RULE_DRIVER)
    elif cuda and Version(cuda).major < Version(info.cuda).major:
        failed.add(RULE_DRIVER)
    if cuda:
        for cc in ccs:
            arch = KB.gpu_arch(cc)
            if arch and Version(cuda) < Version(arch.min_cuda):
                failed.add(RULE_DRIVER)
    return failed


DRIVERS = [None, "450.80.02", "470.256.02", "525.60.13", "528.33", "535.104.05", "551.78", "560.35.03",
           "561.17", "566.36", "570.26", "572.61", "576.57", "580.65.06", "581.57", "590.48.01", "595.58.03"]
CCS = ["3.5", "3.7", "5.0", "5.2", "6.0", "6.1", "7.0", "7.5", "8.0", "8.6", "8.9", "9.0", "10.0", "11.0",
       "12.0", "12.1", "13.0"]
PLATFORMS = [("windows", "x86_64"), ("linux", "x86_64"), ("linux", "aarch64"), ("macos", "arm64"),
             ("macos", "x86_64"), ("windows", "arm64")]


@st.composite
def machines(draw):
    os_name, arch = draw(st.sampled_from(PLATFORMS))
    python = f"3.{draw(st.integers(7, 16))}"
    nvidia = os_name != "macos" and draw(st.booleans())
    driver = draw(st.sampled_from(DRIVERS)) if nvidia else None
    is_wsl = os_name == "linux" and arch == "x86_64" and nvidia and draw(st.booleans())
    driver_os = "windows" if os_name == "windows" or is_wsl else "linux"
    cuda = None
    if driver and draw(st.booleans()):
        cuda = KB.cuda_for_driver(driver, driver_os)
    ccs = draw(st.lists(st.sampled_from(CCS), max_size=3)) if nvidia else []
    without_driver = nvidia and driver is None and draw(st.booleans())
    vendors = draw(st.lists(st.sampled_from(["amd", "intel"]), max_size=2, unique=True))
    names = [{"amd": "AMD Radeon RX 7900 XTX", "intel": draw(st.sampled_from(
        ["Intel(R) Arc(TM) A770 Graphics", "Intel(R) UHD Graphics 620"]))}[v] for v in vendors]
    gfx = draw(st.lists(st.sampled_from(["gfx1100", "gfx1036", "gfx90a", "gfx1201"]), max_size=1)) \
        if "amd" in vendors else []
    mac_version = draw(st.sampled_from([None, "13.6", "14.5", "15.1"])) if os_name == "macos" else None
    return MachineFacts(os_name, arch, python, driver, cuda, ccs, is_wsl=is_wsl, non_nvidia=vendors,
                        other_gpu_names=names, amd_gfx=gfx, nvidia_without_driver=without_driver,
                        os_version=mac_version)


@st.composite
def wishes(draw):
    torch = draw(st.sampled_from([None, None, None, "2.1", "2.4.0", "2.7", "2.11", "2.14.1", "1.13"]))
    variant = draw(st.sampled_from([None, None, "cu118", "cu126", "cu130", "cpu", "rocm6.4", "xpu"]))
    return Wishes(torch=torch, newest=draw(st.booleans()), cpu_only=draw(st.booleans()), variant=variant)


MARKERS = {
    RULE_DRIVER: ("driver", "드라이버"),
    RULE_GPU: ("GPU", "GPU"),
    RULE_EXISTS: (("wheels", "build"), ("휠", "빌드")),
}


def _names_rule(rule: str, en: str, ko: str) -> bool:
    marker_en, marker_ko = MARKERS[rule]
    marker_en = (marker_en,) if isinstance(marker_en, str) else marker_en
    marker_ko = (marker_ko,) if isinstance(marker_ko, str) else marker_ko
    return any(m in en for m in marker_en) and any(m in ko for m in marker_ko)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(machines(), wishes())
def test_property_candidates_pass_and_rejections_name_their_rule(facts, wish):
    rec = recommend(facts, wish)
    for c in rec.candidates:
        assert independent_failures(facts, c.torch, c.variant) == set(), (c.torch, c.variant)
        assert check_candidate(facts, c.torch, c.variant) == []
    for r in rec.rejected:
        failed = independent_failures(facts, r.torch, r.variant)
        assert r.rule in RULES
        assert r.rule in failed, (r.torch, r.variant, r.rule, failed)
        assert r.rule == min(failed, key=RULES.index)  # the first failed rule is the one reported
        en, ko = r.reason.text("en"), r.reason.text("ko")
        assert en and ko and en != ko
        assert _names_rule(r.rule, en, ko), (r.rule, en, ko)
    # no option is both accepted and rejected, and none is listed twice
    cand = [(c.torch, c.variant) for c in rec.candidates]
    rej = [(r.torch, r.variant) for r in rec.rejected]
    assert len(set(cand)) == len(cand) and len(set(rej)) == len(rej)
    assert not set(cand) & set(rej)


@settings(max_examples=150, deadline=None)
@given(machines(), st.sampled_from(DRIVERS[1:]), st.sampled_from(DRIVERS[1:]))
def test_property_a_newer_driver_never_removes_a_cuda_build(facts, d1, d2):
    if not facts.gpu_ccs or facts.os == "macos":
        return
    low, high = sorted([d1, d2], key=Version)
    driver_os = "windows" if facts.os == "windows" or facts.is_wsl else "linux"
    base = dict(vars(facts))
    older = MachineFacts(**{**base, "driver_version": low, "cuda_driver": KB.cuda_for_driver(low, driver_os),
                            "nvidia_without_driver": False})
    newer = MachineFacts(**{**base, "driver_version": high, "cuda_driver": KB.cuda_for_driver(high, driver_os),
                            "nvidia_without_driver": False})
    cuda = lambda rec: {(c.torch, c.variant) for c in rec.candidates if c.kind == "cuda"}  # noqa: E731
    assert cuda(recommend(older)) <= cuda(recommend(newer))


@settings(max_examples=150, deadline=None)
@given(machines(), st.lists(st.sampled_from(CCS), min_size=1, max_size=2), st.lists(st.sampled_from(CCS), min_size=1, max_size=2))
def test_property_mixed_gpus_get_the_intersection(facts, a, b):
    if facts.os == "macos":
        return
    base = {**vars(facts), "nvidia_without_driver": False}
    only = lambda ccs: {(c.torch, c.variant) for c in recommend(MachineFacts(**{**base, "gpu_ccs": ccs})).candidates  # noqa: E731
                        if c.kind == "cuda"}
    assert only(a + b) == only(a) & only(b)


# ---------------------------------------------------------------------------------------------
# commands
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("mirror,expected", [
    ("https://m.example/whl", "https://m.example/whl/cu126"),
    ("https://m.example/whl/", "https://m.example/whl/cu126"),
    ("https://m.example/pytorch/{variant}/simple", "https://m.example/pytorch/cu126/simple"),
    ("https://m.example/whl/cu130", "https://m.example/whl/cu126"),  # a full variant URL: swap the variant
    ("https://m.example/whl/rocm6.4", "https://m.example/whl/cu126"),
])
def test_mirror_forms(mirror, expected):
    from wizard.core.recommend.commands import mirror_index_url

    assert mirror_index_url(mirror, "cu126", KB.variants) == expected


def test_commands_argv_and_quoting():
    from wizard.core.recommend.commands import pip_install_argv, quote_arg, uv_install_argv

    best = recommend(lin(driver="581.57", cuda="13.0", ccs=["8.6"]),
                     Wishes(index_url="https://m.example/whl?token=a&b=c")).best
    assert pip_install_argv(best, "/opt/py/bin/python")[:4] == ["/opt/py/bin/python", "-m", "pip", "install"]
    assert uv_install_argv(best, "C:\\envs\\dl\\python.exe")[3:5] == ["--python", "C:\\envs\\dl\\python.exe"]
    # an index URL with & is quoted so cmd, PowerShell and sh do not split it
    assert f'"{best.index_url}"' in best.commands().pip[0]
    assert quote_arg("torch==2.14.1") == "torch==2.14.1"
    assert quote_arg("C:\\Users\\김 철수\\py.exe") == '"C:\\Users\\김 철수\\py.exe"'
