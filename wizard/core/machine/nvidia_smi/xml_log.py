"""``nvidia-smi -q -x``: the XML log (DTD ``nvsmi_device_v10`` … ``v13``).

Why by tag name and with fallbacks: tags moved between DTD versions (``power_readings``
became ``gpu_power_readings``; ``power_draw`` became ``instant_power_draw`` and
``average_power_draw``; ``power_limit`` became ``current_power_limit``), and a driver
older than the board reports less. Each reader below tries the names in order and leaves
``None`` when none is there.

Safety: the text may come from a student's paste, so it is never handed to a parser that
expands entities. Input that declares an entity (``<!ENTITY``: XXE, "billion laughs") is
refused; the ordinary ``<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">`` parses,
because expat does not fetch external DTDs.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from wizard.core.machine.models import STATUS_OK, STATUS_UNRECOGNISED, GpuInfo, GpuProcess, MigDevice, SourceResult
from wizard.core.machine.nvidia_smi.values import (
    clean,
    normalise_bus_id,
    normalise_cc,
    parse_float,
    parse_int,
    parse_mib,
    put,
)

SOURCE = "nvidia-smi xml"

_START = re.compile(r"<\?xml[^>]*\?>|<!DOCTYPE\s+nvidia_smi_log|<nvidia_smi_log\b")
_END = "</nvidia_smi_log>"
_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")


def _text(node: ET.Element | None, *paths: str) -> str | None:
    """The first of ``paths`` under ``node`` that has a value (``None`` for N/A)."""
    if node is None:
        return None
    for path in paths:
        child = node.find(path)
        if child is not None:
            value = clean(child.text)
            if value is not None:
                return value
    return None


def _slice(text: str) -> str | None:
    """The XML document inside ``text`` (a paste may have a prompt or prose around it)."""
    start = _START.search(text)
    if not start:
        return None
    end = text.find(_END, start.start())
    if end < 0:
        return text[start.start():]  # truncated; the parser says where
    return text[start.start():end + len(_END)]


def _compute_capability(gpu: ET.Element) -> str | None:
    """Compute capability if this XML carries it (most versions do not)."""
    node = gpu.find("cuda_compute_capability")
    if node is not None:
        major, minor = _text(node, "major"), _text(node, "minor")
        if major is not None and minor is not None:
            return normalise_cc((major, minor))
        return normalise_cc(node.text)
    return normalise_cc(_text(gpu, "compute_cap", "compute_capability"))


def _mig_devices(gpu: ET.Element) -> list[MigDevice]:
    devices = []
    for node in gpu.findall("mig_devices/mig_device"):
        devices.append(MigDevice(
            index=parse_int(_text(node, "index")),
            gpu_instance_id=parse_int(_text(node, "gpu_instance_id")),
            compute_instance_id=parse_int(_text(node, "compute_instance_id")),
            memory_total_mib=parse_mib(_text(node, "fb_memory_usage/total")),
            memory_used_mib=parse_mib(_text(node, "fb_memory_usage/used")),
            uuid=_text(node, "uuid", "mig_uuid"),
            profile=_text(node, "profile", "gpu_instance_profile", "profile_name"),
        ))
    return devices


def _processes(gpu: ET.Element) -> list[GpuProcess]:
    processes = []
    for node in gpu.findall("processes/process_info"):
        processes.append(GpuProcess(
            pid=parse_int(_text(node, "pid")),
            name=_text(node, "process_name"),
            used_memory_mib=parse_mib(_text(node, "used_memory")),
            kind=_text(node, "type"),
        ))
    return processes


def _gpu(node: ET.Element, index: int) -> GpuInfo:
    gpu = GpuInfo(index=index)
    gpu.sources["index"] = SOURCE
    power = node.find("gpu_power_readings")
    if power is None:
        power = node.find("power_readings")
    link = node.find("pci/pci_gpu_link_info")
    values = {
        "name": _text(node, "product_name"),
        "uuid": _text(node, "uuid"),
        "serial": _text(node, "serial"),
        "pci_bus_id": normalise_bus_id(node.get("id")) or normalise_bus_id(_text(node, "pci/pci_bus_id")),
        "compute_capability": _compute_capability(node),
        "architecture": _text(node, "product_architecture"),
        "memory_total_mib": parse_mib(_text(node, "fb_memory_usage/total")),
        "memory_used_mib": parse_mib(_text(node, "fb_memory_usage/used")),
        "memory_free_mib": parse_mib(_text(node, "fb_memory_usage/free")),
        "memory_reserved_mib": parse_mib(_text(node, "fb_memory_usage/reserved")),
        "temperature_c": parse_float(_text(node, "temperature/gpu_temp")),
        "fan_percent": parse_float(_text(node, "fan_speed")),
        "power_draw_w": parse_float(_text(power, "power_draw", "instant_power_draw", "average_power_draw")),
        "power_limit_w": parse_float(_text(power, "current_power_limit", "power_limit", "enforced_power_limit")),
        "utilization_gpu_percent": parse_float(_text(node, "utilization/gpu_util")),
        "utilization_memory_percent": parse_float(_text(node, "utilization/memory_util")),
        "clock_graphics_mhz": parse_float(_text(node, "clocks/graphics_clock")),
        "clock_sm_mhz": parse_float(_text(node, "clocks/sm_clock")),
        "clock_mem_mhz": parse_float(_text(node, "clocks/mem_clock")),
        "clock_sm_max_mhz": parse_float(_text(node, "max_clocks/sm_clock")),
        "pstate": _text(node, "performance_state"),
        "pcie_gen_current": parse_int(_text(link, "pcie_gen/current_link_gen")),
        "pcie_gen_max": parse_int(_text(link, "pcie_gen/max_link_gen")),
        "pcie_width_current": parse_int(_text(link, "link_widths/current_link_width")),
        "pcie_width_max": parse_int(_text(link, "link_widths/max_link_width")),
        "driver_model": _text(node, "driver_model/current_dm"),
        "mig_mode": _text(node, "mig_mode/current_mig"),
        "mig_devices": _mig_devices(node),
        "processes": _processes(node),
        "vbios_version": _text(node, "vbios_version"),
        "display_active": _text(node, "display_active"),
    }
    for field, value in values.items():
        put(gpu, field, value, SOURCE)
    return gpu


def parse_xml_document(text: str) -> SourceResult:
    """Parse the ``-q -x`` log found in ``text``; STATUS_UNRECOGNISED with a reason if none."""
    if "<!entity" in text.lower():
        return SourceResult(source=SOURCE, status=STATUS_UNRECOGNISED,
                            detail="XML declares entities; refused for safety")
    document = _slice(text)
    if document is None:
        return SourceResult(source=SOURCE, status=STATUS_UNRECOGNISED,
                            detail="no <nvidia_smi_log> document found")
    # A str carries no encoding; drop the declaration so expat does not second-guess it.
    document = _DECLARATION.sub("", document, count=1)
    try:
        root = ET.fromstring(document)
    except ET.ParseError as exc:
        return SourceResult(source=SOURCE, status=STATUS_UNRECOGNISED,
                            detail=f"XML is incomplete or malformed: {exc}")
    if root.tag != "nvidia_smi_log":
        return SourceResult(source=SOURCE, status=STATUS_UNRECOGNISED,
                            detail=f"XML root is <{root.tag}>, not <nvidia_smi_log>")
    result = SourceResult(source=SOURCE, status=STATUS_OK,
                          driver_version=_text(root, "driver_version"),
                          cuda_version=_text(root, "cuda_version"))
    result.gpus = [_gpu(node, index) for index, node in enumerate(root.findall("gpu"))]
    attached = parse_int(_text(root, "attached_gpus"))
    if attached is not None and attached != len(result.gpus):
        result.detail = f"attached_gpus says {attached}, the log describes {len(result.gpus)}"
    return result
