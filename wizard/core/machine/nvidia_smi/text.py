"""The two human-readable nvidia-smi outputs: the default table and ``nvidia-smi -q``.

The table is what a student pastes into a question, so it must be read from whatever
survives copying: Colab cell output, Markdown fences, a prompt line, collapsed spaces.
It is read cell by cell (split on ``|``), not by column positions, because the column
widths changed between drivers (79 columns up to ~525, 89 since ~530) and pastes lose
alignment. Two limits are kept honest: names in the table are cut to about 20 characters
(``NVIDIA GeForce RTX 2080 ...``); they are kept as shown and flagged, never completed.

``-q`` is an indented ``Key : Value`` tree; it is read into (path, value) pairs so that a
field is found by its section path (``FB Memory Usage`` / ``Total``) whatever the indent
width or the key padding.
"""

from __future__ import annotations

import re
from typing import Callable

from wizard.core.machine.models import STATUS_OK, STATUS_UNRECOGNISED, GpuInfo, GpuProcess, MigDevice, SourceResult
from wizard.core.machine.nvidia_smi.values import (
    clean,
    name_is_truncated,
    normalise_bus_id,
    on_off,
    parse_float,
    parse_int,
    parse_mib,
    put,
)

TABLE_SOURCE = "nvidia-smi table"
Q_SOURCE = "nvidia-smi -q"

# ---------------------------------------------------------------------------------------
# The default table
# ---------------------------------------------------------------------------------------

TABLE_HEADER = re.compile(
    r"NVIDIA-SMI\s+(?P<smi>[\w.\-]+)\s+Driver Version:\s*(?P<driver>[\w.\-]+)"
    r"(?:\s+CUDA Version:\s*(?P<cuda>[\w.\-/]+))?"
)
_MODES = r"On|Off|WDDM|TCC|MCDM|N/A|ERR!"
_GPU_CELL = re.compile(rf"^(?P<index>\d{{1,3}})\s+(?P<name>.*?)\s*(?P<mode>{_MODES})$")
_BUS_CELL = re.compile(r"^(?P<bus>[0-9A-Fa-f]{1,8}:[0-9A-Fa-f]{1,2}:[0-9A-Fa-f]{1,2}\.[0-7])\s+(?P<disp>\S+)$")
# A Jetson's integrated GPU sits on no PCI bus: its row reads "0  Orin (nvgpu)  N/A | N/A  N/A |"
_NO_BUS_CELL = re.compile(r"^N/A\s+(?P<disp>N/A|On|Off)$")
_FAN = re.compile(r"^(?:(\d+)\s*%|N/A|ERR!)$")
_TEMP = re.compile(r"^(?:(-?\d+)\s*C|N/A|ERR!)$")
_POWER = re.compile(r"(?P<draw>\S+)\s*/\s*(?P<cap>\S+)\s*$")
_MEMORY = re.compile(r"^(?P<used>\S+)\s*/\s*(?P<total>\S+)$")
_UTIL = re.compile(r"^(?P<util>\d+\s*%|N/A|ERR!)\s+(?P<compute>.+)$")
_MIG_MODE = re.compile(r"^(Enabled|Disabled|N/A)$")
_PROCESS_TYPES = r"[CGM](?:\+[CGM])*"
_PROCESS = re.compile(
    rf"^(?P<gpu>\d+|N/A)\s+(?:(?P<gi>\d+|N/A)\s+(?P<ci>\d+|N/A)\s+)?(?P<pid>\d+)\s+"
    rf"(?P<kind>{_PROCESS_TYPES})\s+(?P<name>.*?)\s+(?P<mem>\d+\s*MiB|N/A)$"
)
_MIG_ROW = re.compile(r"^(?P<gpu>\d+)\s+(?P<gi>\d+|N/A)\s+(?P<ci>\d+|N/A)\s+(?P<dev>\d+)$")


def _cells(line: str) -> list[str] | None:
    """The cells of a table row (``| a | b |`` → ``["a", "b"]``), or None for other lines."""
    start, end = line.find("|"), line.rfind("|")
    if start < 0 or end <= start:
        return None
    inner = line[start + 1:end]
    if set(inner) <= set("-+=| "):
        return None  # a border
    return [cell.strip() for cell in inner.split("|")]


def _second_line(gpu: GpuInfo, cells: list[str]) -> bool:
    """Fan/Temp/Perf/Power | Memory-Usage | GPU-Util/Compute M. Returns True if it matched."""
    if len(cells) < 3:
        return False
    memory = _MEMORY.match(cells[1])
    if not memory:
        return False
    tokens = cells[0].split()
    power = _POWER.search(cells[0])
    head = cells[0][:power.start()].split() if power else tokens
    for token in head:
        if (m := _FAN.match(token)) and token.endswith("%"):
            put(gpu, "fan_percent", parse_float(m.group(1)), TABLE_SOURCE)
        elif (m := _TEMP.match(token)) and token.endswith("C"):
            put(gpu, "temperature_c", parse_float(m.group(1)), TABLE_SOURCE)
        elif re.fullmatch(r"P\d{1,2}", token):
            put(gpu, "pstate", token, TABLE_SOURCE)
    if power:
        put(gpu, "power_draw_w", parse_float(power.group("draw")), TABLE_SOURCE)
        put(gpu, "power_limit_w", parse_float(power.group("cap")), TABLE_SOURCE)
    put(gpu, "memory_used_mib", parse_mib(memory.group("used")), TABLE_SOURCE)
    put(gpu, "memory_total_mib", parse_mib(memory.group("total")), TABLE_SOURCE)
    util = _UTIL.match(cells[2])
    if util:
        put(gpu, "utilization_gpu_percent", parse_float(util.group("util")), TABLE_SOURCE)
    return True


def _table_block(lines: list[str]) -> tuple[re.Match[str] | None, list[str]]:
    """The first table in ``lines``: its header match and its lines (up to the next header)."""
    for i, line in enumerate(lines):
        header = TABLE_HEADER.search(line)
        if header:
            for j in range(i + 1, len(lines)):
                if TABLE_HEADER.search(lines[j]):
                    return header, lines[i + 1:j]
            return header, lines[i + 1:]
    return None, lines


def parse_table_text(text: str) -> SourceResult:
    """Parse the first default ``nvidia-smi`` table found in (normalised) ``text``."""
    header, lines = _table_block(text.split("\n"))
    result = SourceResult(source=TABLE_SOURCE)
    if header:
        result.smi_version = clean(header.group("smi"))
        result.driver_version = clean(header.group("driver"))
        result.cuda_version = clean(header.group("cuda"))
    by_index: dict[int, GpuInfo] = {}
    current: GpuInfo | None = None
    stage = 0  # 1: GPU row seen, 2: second line seen
    section = "gpus"
    notes: list[str] = []
    for line in lines:
        if "Processes:" in line:
            section, current = "processes", None
            continue
        if "MIG devices:" in line:
            section, current = "mig", None
            continue
        cells = _cells(line)
        if cells is None:
            continue
        if section == "gpus" and len(cells) >= 3:
            gpu_cell = _GPU_CELL.match(cells[0])
            bus_cell = _BUS_CELL.match(cells[1]) or _NO_BUS_CELL.match(cells[1])
            if gpu_cell and bus_cell:
                index = int(gpu_cell.group("index"))
                current = by_index.setdefault(index, GpuInfo(index=index, sources={"index": TABLE_SOURCE}))
                stage = 1
                name = clean(gpu_cell.group("name"))
                put(current, "name", name, TABLE_SOURCE)
                if name_is_truncated(name):
                    notes.append(f"GPU {index} name is truncated in the table: {name!r}")
                mode = gpu_cell.group("mode")
                if mode in ("WDDM", "TCC", "MCDM"):
                    put(current, "driver_model", mode, TABLE_SOURCE)
                if "bus" in bus_cell.groupdict():
                    put(current, "pci_bus_id", normalise_bus_id(bus_cell.group("bus")), TABLE_SOURCE)
                put(current, "display_active", on_off(bus_cell.group("disp")), TABLE_SOURCE)
                continue
            if current is not None and stage == 1 and _second_line(current, cells):
                stage = 2
                continue
            if current is not None and stage == 2 and not cells[0] and not cells[1]:
                if _MIG_MODE.match(cells[2]):
                    put(current, "mig_mode", clean(cells[2]), TABLE_SOURCE)
                stage = 3
        elif section == "processes" and len(cells) == 1:
            match = _PROCESS.match(cells[0])
            gpu_index = parse_int(match.group("gpu")) if match else None
            if match and gpu_index in by_index:
                by_index[gpu_index].processes.append(GpuProcess(
                    pid=parse_int(match.group("pid")), name=clean(match.group("name")),
                    used_memory_mib=parse_mib(match.group("mem")), kind=match.group("kind")))
                by_index[gpu_index].sources["processes"] = TABLE_SOURCE
        elif section == "mig" and len(cells) >= 2:
            match, memory = _MIG_ROW.match(cells[0]), _MEMORY.match(cells[1])
            gpu_index = parse_int(match.group("gpu")) if match else None
            if match and memory and gpu_index in by_index:
                by_index[gpu_index].mig_devices.append(MigDevice(
                    index=parse_int(match.group("dev")), gpu_instance_id=parse_int(match.group("gi")),
                    compute_instance_id=parse_int(match.group("ci")),
                    memory_used_mib=parse_mib(memory.group("used")),
                    memory_total_mib=parse_mib(memory.group("total"))))
                by_index[gpu_index].sources["mig_devices"] = TABLE_SOURCE
    result.gpus = [by_index[i] for i in sorted(by_index)]
    if not header and not result.gpus:
        result.status = STATUS_UNRECOGNISED
        result.detail = "no nvidia-smi table header or GPU row found"
        return result
    if not header:
        notes.append("table header (driver and CUDA version) not found")
    elif not result.gpus:
        notes.append("table header found but no GPU rows")
    result.detail = "; ".join(notes) or None
    return result


# ---------------------------------------------------------------------------------------
# nvidia-smi -q
# ---------------------------------------------------------------------------------------

_Q_BANNER = re.compile(r"=+\s*NVSMI LOG\s*=+")
_Q_KEY_VALUE = re.compile(r"^(?P<key>\S.*?)\s+:(?:\s+(?P<value>.*))?$")
_Q_GPU = re.compile(r"^GPU\s+(?P<bus>[0-9A-Fa-f]{1,8}:[0-9A-Fa-f]{1,2}:[0-9A-Fa-f]{1,2}\.[0-7])$")
_Q_START = re.compile(r"^(Timestamp|Driver Version|CUDA Version|Attached GPUs)\s+:")

Entry = tuple[tuple[str, ...], str | None]  # (lower-case path, value)

# GpuInfo field -> (reader, candidate paths); the first path with a value wins.
_Q_FIELDS: dict[str, tuple[Callable[[str | None], object], tuple[tuple[str, ...], ...]]] = {
    "name": (clean, (("product name",),)),
    "architecture": (clean, (("product architecture",),)),
    "display_active": (clean, (("display active",),)),
    "mig_mode": (clean, (("mig mode", "current"),)),
    "driver_model": (clean, (("driver model", "current"),)),
    "serial": (clean, (("serial number",),)),
    "uuid": (clean, (("gpu uuid",),)),
    "vbios_version": (clean, (("vbios version",),)),
    "pci_bus_id": (normalise_bus_id, (("pci", "bus id"),)),
    "pcie_gen_max": (parse_int, (("pci", "gpu link info", "pcie generation", "max"),)),
    "pcie_gen_current": (parse_int, (("pci", "gpu link info", "pcie generation", "current"),)),
    "pcie_width_max": (parse_int, (("pci", "gpu link info", "link width", "max"),)),
    "pcie_width_current": (parse_int, (("pci", "gpu link info", "link width", "current"),)),
    "fan_percent": (parse_float, (("fan speed",),)),
    "pstate": (clean, (("performance state",),)),
    "memory_total_mib": (parse_mib, (("fb memory usage", "total"),)),
    "memory_reserved_mib": (parse_mib, (("fb memory usage", "reserved"),)),
    "memory_used_mib": (parse_mib, (("fb memory usage", "used"),)),
    "memory_free_mib": (parse_mib, (("fb memory usage", "free"),)),
    "utilization_gpu_percent": (parse_float, (("utilization", "gpu"),)),
    "utilization_memory_percent": (parse_float, (("utilization", "memory"),)),
    "temperature_c": (parse_float, (("temperature", "gpu current temp"),)),
    "power_draw_w": (parse_float, (
        ("gpu power readings", "power draw"), ("gpu power readings", "instantaneous power draw"),
        ("gpu power readings", "average power draw"), ("power readings", "power draw"),
        ("power readings", "instantaneous power draw"), ("power readings", "average power draw"))),
    "power_limit_w": (parse_float, (
        ("gpu power readings", "current power limit"), ("power readings", "current power limit"),
        ("gpu power readings", "power limit"), ("power readings", "power limit"),
        ("power readings", "enforced power limit"))),
    "clock_graphics_mhz": (parse_float, (("clocks", "graphics"),)),
    "clock_sm_mhz": (parse_float, (("clocks", "sm"),)),
    "clock_mem_mhz": (parse_float, (("clocks", "memory"),)),
    "clock_sm_max_mhz": (parse_float, (("max clocks", "sm"),)),
}


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _q_block(lines: list[str]) -> list[str]:
    """The lines of the first ``-q`` log, from its banner (or first top-level key) to its end.

    A paste indented as a whole (a Markdown code block) is dedented to the log's own
    left margin, so ``GPU <bus id>`` headers are top level again.
    """
    start = next((i for i, line in enumerate(lines) if _Q_BANNER.search(line)), None)
    if start is None:
        start = next((i for i, line in enumerate(lines)
                      if _Q_START.match(line.strip()) or _Q_GPU.match(line.strip())), None)
        if start is None:
            return []
    else:
        start += 1
        while start < len(lines) and not lines[start].strip():
            start += 1
    if start >= len(lines):
        return []
    base = _indent(lines[start])
    block: list[str] = []
    for line in lines[start:]:
        stripped = line.strip()
        if not stripped:
            continue
        if _Q_BANNER.search(stripped):
            break  # a second log
        top_level = _indent(line) <= base
        if _indent(line) < base or (top_level and not (_Q_KEY_VALUE.match(stripped) or _Q_GPU.match(stripped))):
            break  # text around the log
        block.append(line[base:])
    return block


def _q_entries(block: list[str]) -> tuple[list[Entry], list[tuple[str, list[Entry]]]]:
    """Split the block into top-level entries and, per ``GPU <bus id>``, that GPU's entries."""
    top: list[Entry] = []
    gpus: list[tuple[str, list[Entry]]] = []
    stack: list[tuple[int, str]] = []
    for line in block:
        indent = _indent(line)
        stripped = line.strip()
        gpu_header = _Q_GPU.match(stripped) if indent == 0 else None
        if gpu_header:
            gpus.append((gpu_header.group("bus"), []))
            stack = []
            continue
        match = _Q_KEY_VALUE.match(stripped)
        key = (match.group("key") if match else stripped).strip().lower()
        while stack and stack[-1][0] >= indent:
            stack.pop()
        path = tuple(name for _, name in stack) + (key,)
        stack.append((indent, key))
        if not match:
            continue  # a section header: only names the path
        entry = (path, match.group("value"))
        (gpus[-1][1] if gpus and indent > 0 else top).append(entry)
    return top, gpus


def _q_lookup(entries: list[Entry], path: tuple[str, ...]) -> str | None:
    for entry_path, value in entries:
        if entry_path == path:
            return value
    return None


def _q_processes(entries: list[Entry]) -> list[GpuProcess]:
    processes: list[GpuProcess] = []
    for path, value in entries:
        if not path or path[0] != "processes" or len(path) < 2:
            continue
        if path[-1] == "process id":
            processes.append(GpuProcess(pid=parse_int(value)))
        elif processes and path[-2:-1] == ("process id",):
            if path[-1] == "type":
                processes[-1].kind = clean(value)
            elif path[-1] == "name":
                processes[-1].name = clean(value)
            elif path[-1] == "used gpu memory":
                processes[-1].used_memory_mib = parse_mib(value)
    return processes


def _q_mig_devices(entries: list[Entry]) -> list[MigDevice]:
    """MIG devices under ``MIG devices``: one per child section (or per ``Index`` key)."""
    devices: list[MigDevice] = []
    owner: tuple[str, ...] | None = None
    for path, value in entries:
        if not path or path[0] != "mig devices" or len(path) < 2:
            continue
        section = path[:2] if len(path) > 2 else None
        key = path[-1]
        if (section is not None and section != owner) or (key == "index" and (not devices or devices[-1].index is not None)):
            devices.append(MigDevice(index=None))
            owner = section
        device = devices[-1] if devices else None
        if device is None:
            continue
        if key == "index":
            device.index = parse_int(value)
        elif key == "gpu instance id":
            device.gpu_instance_id = parse_int(value)
        elif key == "compute instance id":
            device.compute_instance_id = parse_int(value)
        elif path[-2:] == ("fb memory usage", "total"):
            device.memory_total_mib = parse_mib(value)
        elif path[-2:] == ("fb memory usage", "used"):
            device.memory_used_mib = parse_mib(value)
    for position, device in enumerate(devices):
        if device.index is None:
            device.index = position
    return devices


def parse_q_block(text: str) -> SourceResult:
    """Parse the first ``nvidia-smi -q`` log found in (normalised) ``text``."""
    block = _q_block(text.split("\n"))
    top, gpu_sections = _q_entries(block)
    result = SourceResult(source=Q_SOURCE)
    if not gpu_sections and _q_lookup(top, ("driver version",)) is None:
        result.status = STATUS_UNRECOGNISED
        result.detail = "no nvidia-smi -q log found"
        return result
    result.status = STATUS_OK
    result.driver_version = clean(_q_lookup(top, ("driver version",)))
    result.cuda_version = clean(_q_lookup(top, ("cuda version",)))
    for index, (bus, entries) in enumerate(gpu_sections):
        gpu = GpuInfo(index=index, sources={"index": Q_SOURCE})
        put(gpu, "pci_bus_id", normalise_bus_id(bus), Q_SOURCE)
        for field, (reader, paths) in _Q_FIELDS.items():
            for path in paths:
                value = reader(_q_lookup(entries, path))
                if value is not None:
                    put(gpu, field, value, Q_SOURCE)
                    break
        put(gpu, "processes", _q_processes(entries), Q_SOURCE)
        put(gpu, "mig_devices", _q_mig_devices(entries), Q_SOURCE)
        result.gpus.append(gpu)
    attached = parse_int(_q_lookup(top, ("attached gpus",)))
    if attached is not None and attached != len(result.gpus):
        result.detail = f"Attached GPUs says {attached}, the log describes {len(result.gpus)}"
    return result
