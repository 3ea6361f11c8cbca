"""Turn what detection saw into findings: plain-language cause and fix for each problem.

A rule is a function ``Detection -> Iterable[Finding]``; :data:`DETECTION_RULES` lists them in
the order a student should read the results. Later diagnosis rules (verification, history)
extend the same list shape. Rules only read the detection; they never probe the machine.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable

from wizard.core.base.i18n import msg
from wizard.core.machine.models import (
    STATUS_DRIVER_NOT_LOADED,
    STATUS_GPU_LOST,
    STATUS_NO_DEVICES,
    STATUS_NO_DRIVER,
    STATUS_NO_PERMISSION,
    STATUS_OK,
    STATUS_TIMEOUT,
    STATUS_VERSION_MISMATCH,
    Detection,
    Finding,
    SourceResult,
)

Rule = Callable[[Detection], Iterable[Finding]]

SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}

_VENDOR_NAMES = {"amd": "AMD", "intel": "Intel", "apple": "Apple", "other": "Other"}


def _evidence(sources: list[SourceResult]) -> str | None:
    lines = [f"{s.source}: {s.raw_error}" for s in sources if s.raw_error]
    return "\n".join(lines) or None


def rule_driver_state(d: Detection) -> Iterable[Finding]:
    """The top-level NVIDIA outcome: the one thing that decides everything after it."""
    nv, system = d.nvidia, d.system
    evidence = _evidence(nv.sources)
    status = nv.status
    if status == STATUS_OK:
        return
    if status == STATUS_NO_DRIVER:
        nvidia_adapters = [a for a in system.display_adapters if a.vendor == "nvidia"]
        if nvidia_adapters:
            name = nvidia_adapters[0].name or nvidia_adapters[0].pci_id or "NVIDIA"
            yield Finding("no-nvidia-driver", "error", {"adapter": name}, evidence)
            return
        if system.os == "macos":
            arm = (system.arch or "").lower() in ("arm64", "aarch64")
            detail_key = "finding.macos-no-cuda.detail." + ("arm" if arm else "intel")
            yield Finding("macos-no-cuda", "info", {"detail": msg(detail_key)}, None)
            return
        others = [a for a in system.display_adapters if a.vendor != "nvidia" and a.name]
        names = ", ".join(a.name for a in others if a.name)
        yield Finding("no-nvidia-driver", "info",
                      {"others": msg("finding.no-nvidia-driver.no-gpu.others", names=names) if names else ""},
                      evidence, variant="no-gpu")
        return
    mapping = {
        STATUS_DRIVER_NOT_LOADED: ("nvidia-smi-cannot-communicate", "error"),
        STATUS_VERSION_MISMATCH: ("nvml-driver-library-version-mismatch", "error"),
        STATUS_NO_PERMISSION: ("nvml-no-permission", "error"),
        STATUS_GPU_LOST: ("gpu-is-lost", "error"),
        STATUS_NO_DEVICES: ("nvidia-no-devices", "error"),
    }
    if status in mapping:
        fid, severity = mapping[status]
        yield Finding(fid, severity, {}, evidence)
    elif status == STATUS_TIMEOUT:
        hung = ", ".join(s.source for s in nv.sources if s.status == STATUS_TIMEOUT) or "nvidia-smi"
        yield Finding("nvidia-timeout", "error", {"source": hung}, evidence)
    elif not any(s.detail == "nvml-crashed" for s in nv.sources):  # that one has its own finding (below)
        error = next((s.raw_error for s in nv.sources if s.raw_error), status)
        yield Finding("nvidia-error", "error", {"error": error}, evidence)


def rule_non_nvidia_adapters(d: Detection) -> Iterable[Finding]:
    """AMD, Intel and Apple GPUs: say there is no CUDA on them, and what the options are."""
    if d.nvidia.status == STATUS_OK and d.nvidia.gpus:
        return  # an iGPU next to a working NVIDIA card is not news
    if d.system.os == "macos":
        return  # the macOS finding says it
    seen: set[str] = set()
    for adapter in d.system.display_adapters:
        if adapter.vendor in ("nvidia", "other") or adapter.vendor in seen:
            continue
        seen.add(adapter.vendor)
        fix = adapter.vendor if adapter.vendor in ("amd", "intel", "apple") else "other"
        yield Finding("non-nvidia-gpu", "info",
                      {"vendor": _VENDOR_NAMES.get(adapter.vendor, adapter.vendor),
                       "name": adapter.name or adapter.vendor}, adapter.pci_id,
                      variant=fix)


def rule_source_health(d: Detection) -> Iterable[Finding]:
    """When the driver works, say which of the two sources did not, and why that matters."""
    nv = d.nvidia
    if nv.status != STATUS_OK:
        return
    by_source = {(s.source.split() or [""])[0]: s for s in nv.sources}  # "" in a fuzzed file: no source
    nvml = by_source.get("nvml")
    smi = by_source.get("nvidia-smi")
    if nvml is not None and nvml.status != STATUS_OK and nvml.detail not in ("pynvml-conflict", "bindings-missing",
                                                                             "nvml-crashed"):
        if nvml.status == STATUS_TIMEOUT:
            yield Finding("nvidia-timeout", "warning", {"source": "NVML"}, nvml.raw_error)
        else:
            yield Finding("nvml-library-not-found", "warning", {"error": nvml.raw_error or nvml.status}, nvml.raw_error)
    if smi is not None and smi.status != STATUS_OK:
        if nv.smi_path is None:
            yield Finding("nvidia-smi-missing", "info", {}, smi.raw_error)
        elif smi.status == STATUS_TIMEOUT:
            yield Finding("nvidia-timeout", "warning", {"source": "nvidia-smi"}, smi.raw_error)
    if d.system.os == "windows" and nv.smi_path and nv.smi_on_path is False:
        yield Finding("nvidia-smi-not-on-path-windows", "info", {"path": nv.smi_path}, None)


def rule_bindings(d: Detection) -> Iterable[Finding]:
    """The wizard's own NVML bindings are wrong or missing (a shadowing 'pynvml' package)."""
    nvml = next((s for s in d.nvidia.sources if s.source == "nvml"), None)
    if nvml is not None and nvml.detail in ("pynvml-conflict", "bindings-missing"):
        yield Finding("pynvml-package-conflict", "warning", {"error": nvml.raw_error or nvml.detail}, nvml.raw_error)


def rule_nvml_crashed(d: Detection) -> Iterable[Finding]:
    """The NVML library crashed the child that loaded it (wizard.core.machine.nvml_guard): a broken
    driver install, diagnosed instead of taking the wizard down. An error when nvidia-smi did not
    stand in either, a warning when it did."""
    nvml = next((s for s in d.nvidia.sources if s.source == "nvml" and s.detail == "nvml-crashed"), None)
    if nvml is not None:
        severity = "warning" if d.nvidia.status == STATUS_OK else "error"
        how = re.search(r"\((\S+), exit status (-?\d+)\)", nvml.raw_error or "")
        params = {"signal": how.group(1), "status": how.group(2)} if how else {"signal": "?", "status": "?"}
        yield Finding("nvml-crashed", severity, params, nvml.raw_error)


def rule_disagreements(d: Detection) -> Iterable[Finding]:
    if not d.nvidia.disagreements:
        return
    parts = []
    for dis in d.nvidia.disagreements:
        where = f"GPU {dis.gpu_index} " if dis.gpu_index is not None else ""
        values = ", ".join(f"{src} {val}" for src, val in dis.values.items())
        parts.append(f"{where}{dis.field}: {values}")
    text = "; ".join(parts)
    yield Finding("nvml-smi-disagree", "warning", {"details": text}, text)


def rule_driver_predates_gpu(d: Detection) -> Iterable[Finding]:
    for gpu in d.nvidia.gpus:
        if (gpu.name or "").strip() == "Graphics Device":
            yield Finding("driver-predates-gpu", "warning", {"driver": d.nvidia.driver_version or "?"},
                          f"GPU {gpu.index}: Graphics Device")
            return


DETECTION_RULES: list[Rule] = [
    rule_driver_state,
    rule_non_nvidia_adapters,
    rule_source_health,
    rule_bindings,
    rule_nvml_crashed,
    rule_disagreements,
    rule_driver_predates_gpu,
]


def detection_findings(d: Detection, rules: list[Rule] | None = None) -> list[Finding]:
    """Every finding the rules raise, most severe first (stable within a severity)."""
    from wizard.core.machine.jetson import jetson_board_findings

    found: list[Finding] = []
    for rule in rules or DETECTION_RULES:
        found.extend(rule(d))
    found = jetson_board_findings(found, d.system)  # a Jetson's driver is its L4T image's: never "reinstall it"
    return sorted(found, key=lambda f: SEVERITY_ORDER.get(f.severity, 9))
