"""NVIDIA detection: NVML and nvidia-smi, each asked on its own, then merged.

Why two sources: NVML is exact and fast but only as good as the bindings and the library
the loader finds; nvidia-smi is what students, courses and forum answers quote, and it is
the only thing that works when the Python bindings are broken or shadowed. Each value keeps
the source it came from, and where the two disagree the disagreement is kept for a finding.

NVML calls can hang on a wedged GPU and nvidia-smi can hang with it, so both run with a
timeout: nvidia-smi through the host's timeout, NVML on a daemon thread that is abandoned
(and reported) when it does not answer in time.
"""

from __future__ import annotations

import threading
from dataclasses import fields, replace
from typing import Any

from wizard.core.base import interrupt
from wizard.core.base.host import Host
from wizard.core.machine import nvml_guard
from wizard.core.machine.models import (
    STATUS_DRIVER_NOT_LOADED,
    STATUS_ERROR,
    STATUS_GPU_LOST,
    STATUS_NO_DEVICES,
    STATUS_NO_DRIVER,
    STATUS_NO_PERMISSION,
    STATUS_OK,
    STATUS_TIMEOUT,
    STATUS_UNRECOGNISED,
    STATUS_VERSION_MISMATCH,
    Disagreement,
    GpuInfo,
    NvidiaInfo,
    SourceResult,
)

SMI_TIMEOUT_S = 15.0
NVML_TIMEOUT_S = 15.0

# When both sources fail, the most specific failure explains the machine best.
_STATUS_PRIORITY = [
    STATUS_VERSION_MISMATCH,
    STATUS_GPU_LOST,
    STATUS_DRIVER_NOT_LOADED,
    STATUS_NO_PERMISSION,
    STATUS_TIMEOUT,
    STATUS_NO_DEVICES,
    STATUS_ERROR,
    STATUS_UNRECOGNISED,
    STATUS_NO_DRIVER,
]

# Fields compared between sources for the "disagree" finding, with a tolerance.
_COMPARED = {"name": None, "compute_capability": None, "memory_total_mib": 2.0, "uuid": None}


def smi_candidates(host: Host) -> list[str]:
    """Where nvidia-smi lives, most trustworthy first.

    Windows DCH drivers put it in System32 (often not on PATH); legacy drivers in NVSMI.
    WSL2 projects the Windows driver's Linux build into /usr/lib/wsl/lib.
    """
    found: list[str] = []
    if host.os_name == "windows":
        root = host.getenv("SystemRoot") or host.getenv("SYSTEMROOT") or r"C:\Windows"
        program_files = host.getenv("ProgramFiles") or host.getenv("PROGRAMFILES") or r"C:\Program Files"
        found += [root + r"\System32\nvidia-smi.exe",
                  program_files + r"\NVIDIA Corporation\NVSMI\nvidia-smi.exe"]
    elif host.os_name == "linux":
        found += ["/usr/bin/nvidia-smi", "/usr/lib/wsl/lib/nvidia-smi"]
    on_path = host.which("nvidia-smi")
    if on_path:
        found.insert(0 if host.os_name != "windows" else len(found), on_path)
    seen: set[str] = set()
    unique = []
    for path in found:
        key = path.lower() if host.os_name == "windows" else path
        if key not in seen:
            seen.add(key)
            unique.append(path)
    return unique


def find_nvidia_smi(host: Host) -> tuple[str | None, bool]:
    """(path of nvidia-smi, whether it is on PATH). macOS never has one."""
    if host.os_name == "macos":
        return None, False
    on_path = host.which("nvidia-smi")
    for path in smi_candidates(host):
        if host.exists(path):
            return path, on_path is not None
    return None, False


def query_smi(host: Host, exe: str) -> tuple[SourceResult, str | None]:
    """Run the CSV query (falling back to old drivers' field set) and the default table.

    Returns the parsed CSV result and the raw default table (for the report appendix).
    """
    from wizard.core.machine import nvidia_smi  # its readers, only where there is an nvidia-smi to read

    result = host.run(nvidia_smi.query_argv(exe), timeout=SMI_TIMEOUT_S)
    if result.ok and "not a valid field" not in result.stdout.lower():
        parsed = nvidia_smi.parse_csv(result.stdout, nvidia_smi.QUERY_FIELDS)
    else:
        text = (result.stdout + "\n" + result.stderr).strip()
        failure = None if result.timed_out else nvidia_smi.classify_failure(text, result.returncode)
        if result.timed_out:
            return SourceResult("nvidia-smi csv", STATUS_TIMEOUT,
                                raw_error=f"nvidia-smi did not answer within {SMI_TIMEOUT_S:.0f} s"), None
        if result.error:
            return SourceResult("nvidia-smi csv", STATUS_NO_DRIVER, raw_error=result.error), None
        if failure is not None:
            return failure, text or None
        # Old drivers reject fields they do not know (compute_cap, memory.reserved).
        retry = host.run(nvidia_smi.query_argv(exe, nvidia_smi.FALLBACK_FIELDS), timeout=SMI_TIMEOUT_S)
        if retry.ok:
            parsed = nvidia_smi.parse_csv(retry.stdout, nvidia_smi.FALLBACK_FIELDS)
        else:
            parsed = SourceResult("nvidia-smi csv", STATUS_ERROR, raw_error=text or retry.stderr.strip() or None)
    table = host.run([exe], timeout=SMI_TIMEOUT_S)
    raw_table = table.stdout if table.ok else None
    if raw_table:
        header = nvidia_smi.parse_table(raw_table)
        # The CSV has no CUDA version column; the table's header has it.
        if parsed.cuda_version is None:
            parsed.cuda_version = header.cuda_version
        parsed.smi_version = header.smi_version
        if parsed.driver_version is None:
            parsed.driver_version = header.driver_version
    return parsed, raw_table


# NVML's one-off query and its timeout live with the crash guard (the child runs the same code);
# they keep their names here for the callers that know them by this module.
run_with_timeout = nvml_guard.run_with_timeout
query_nvml_via_host = nvml_guard.query_in_process


def _gpu_key(gpu: GpuInfo) -> str:
    if gpu.uuid:
        return "uuid:" + gpu.uuid.lower()
    if gpu.pci_bus_id:
        return "pci:" + normalise_bus_id(gpu.pci_bus_id)
    return f"index:{gpu.index}"


def normalise_bus_id(bus_id: str) -> str:
    """'00000000:01:00.0' and '0000:01:00.0' name the same slot."""
    parts = bus_id.strip().lower().split(":")
    if len(parts) == 3:
        parts[0] = parts[0][-4:].rjust(4, "0")
    return ":".join(parts)


def _merge_gpu(primary: GpuInfo, secondary: GpuInfo | None, disagreements: list[Disagreement],
               primary_source: str, secondary_source: str) -> GpuInfo:
    if secondary is None:
        return replace(primary)
    merged = replace(primary, sources=dict(primary.sources))
    for f in fields(GpuInfo):
        if f.name in ("index", "sources"):
            continue
        mine = getattr(primary, f.name)
        theirs = getattr(secondary, f.name)
        if f.name in _COMPARED and mine is not None and theirs is not None:
            tol = _COMPARED[f.name]
            differ = abs(float(mine) - float(theirs)) > tol if tol is not None else str(mine) != str(theirs)
            if f.name == "name" and str(theirs).endswith("..."):
                differ = not str(mine).startswith(str(theirs)[:-3].rstrip())
            if differ:
                disagreements.append(Disagreement(f.name, primary.index,
                                                  {primary_source: mine, secondary_source: theirs}))
        if mine in (None, [], "") and theirs not in (None, [], ""):
            setattr(merged, f.name, theirs)
            merged.sources[f.name] = secondary.sources.get(f.name, secondary_source)
    return merged


def merge(nvml_result: SourceResult | None, smi_result: SourceResult | None) -> NvidiaInfo:
    """Merge what the two sources said into one :class:`NvidiaInfo`.

    NVML wins per field when both answered (it is exact and unformatted); nvidia-smi fills
    what NVML left empty. The overall status is OK when either source saw the GPUs.
    """
    results = [r for r in (nvml_result, smi_result) if r is not None]
    info = NvidiaInfo(sources=results)
    ok = [r for r in results if r.status == STATUS_OK]
    if not ok:
        statuses = {r.status for r in results}
        info.status = next((s for s in _STATUS_PRIORITY if s in statuses), STATUS_NO_DRIVER)
        for r in results:  # a failed source can still know the driver version (mismatch text)
            info.driver_version = info.driver_version or r.driver_version
        return info
    primary, secondary = ok[0], (ok[1] if len(ok) > 1 else None)
    info.status = STATUS_OK
    for attr in ("driver_version", "cuda_version", "nvml_version", "smi_version"):
        a, b = getattr(primary, attr), getattr(secondary, attr) if secondary else None
        setattr(info, attr, a or b)
        if attr in ("driver_version", "cuda_version") and a and b and a != b and secondary is not None:
            info.disagreements.append(Disagreement(attr, None, {primary.source: a, secondary.source: b}))
    others = {_gpu_key(g): g for g in (secondary.gpus if secondary else [])}
    by_index = {g.index: g for g in (secondary.gpus if secondary else [])}
    for gpu in primary.gpus:
        twin = others.get(_gpu_key(gpu)) or by_index.get(gpu.index)
        info.gpus.append(_merge_gpu(gpu, twin, info.disagreements, primary.source,
                                    secondary.source if secondary else ""))
    if secondary and len(secondary.gpus) != len(primary.gpus):
        info.disagreements.append(Disagreement("gpu_count", None, {primary.source: len(primary.gpus),
                                                                     secondary.source: len(secondary.gpus)}))
    return info


def detect_nvidia(host: Host, nvml_timeout_s: float = NVML_TIMEOUT_S) -> NvidiaInfo:
    """Ask NVML and nvidia-smi (in parallel) and merge."""
    if host.os_name == "macos":
        return NvidiaInfo(status=STATUS_NO_DRIVER)
    smi_box: dict[str, Any] = {}
    exe, on_path = find_nvidia_smi(host)

    def smi_job() -> None:
        if exe is None:
            smi_box["result"] = (SourceResult("nvidia-smi csv", STATUS_NO_DRIVER, raw_error="nvidia-smi not found"), None)
        else:
            smi_box["result"] = query_smi(host, exe)

    smi_thread = threading.Thread(target=smi_job, name="detect-nvidia-smi", daemon=True)
    smi_thread.start()
    nvml_result = nvml_guard.query(host, nvml_timeout_s)  # the run's first NVML query happens in a child process
    interrupt.join(smi_thread, SMI_TIMEOUT_S * 2 + 5)
    smi_result, raw_table = smi_box.get("result", (
        SourceResult("nvidia-smi csv", STATUS_TIMEOUT, raw_error="nvidia-smi did not answer"), None))
    info = merge(nvml_result, smi_result)
    info.smi_path = exe
    info.raw_smi_output = raw_table
    info.smi_on_path = on_path if exe else None
    return info
