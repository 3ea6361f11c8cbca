"""Read nvidia-smi: the ``--query-gpu`` CSV, ``-q -x`` XML, ``-q`` text, the default table,
and its failure messages, into :class:`~wizard.core.machine.models.SourceResult` objects.

Why four readers: NVML is the first source, but nvidia-smi is what a student can paste
into the wizard (or a question), what exists when the bindings do not load, and what a
teaching assistant recognises. Each reader records, per GPU field, which output it came
from (``GpuInfo.sources``), so a later merge with NVML can show disagreements.

Every parser takes any ``str`` and returns a SourceResult; unreadable input gives
STATUS_UNRECOGNISED with a short English reason in ``detail`` (for logs and reports, not
for the student's screen). Values nvidia-smi does not report (``[N/A]``, ``[Not
Supported]``, deprecated fields) become ``None``.

The CSV, table and ``-q`` readers live here and in :mod:`wizard.core.machine.nvidia_smi.text`;
the XML reader in :mod:`wizard.core.machine.nvidia_smi.xml_log`; value helpers in
:mod:`wizard.core.machine.nvidia_smi.values`.
"""

from __future__ import annotations

import re
from dataclasses import fields as dataclass_fields
from typing import Callable, Sequence

from wizard.core.machine.models import (
    STATUS_DRIVER_NOT_LOADED,
    STATUS_ERROR,
    STATUS_GPU_LOST,
    STATUS_NO_DEVICES,
    STATUS_NO_DRIVER,
    STATUS_NO_PERMISSION,
    STATUS_OK,
    STATUS_UNRECOGNISED,
    STATUS_VERSION_MISMATCH,
    GpuInfo,
    SourceResult,
)
from wizard.core.machine.nvidia_smi import text as _text
from wizard.core.machine.nvidia_smi.values import (
    clean,
    name_is_truncated,
    normalise_bus_id,
    normalise_cc,
    normalise_text,
    parse_float,
    parse_int,
    parse_mib,
    put,
)

__all__ = [
    "QUERY_FIELDS",
    "FALLBACK_FIELDS",
    "query_argv",
    "xml_argv",
    "q_argv",
    "table_argv",
    "parse_csv",
    "parse_xml",
    "parse_q_text",
    "parse_table",
    "parse_any",
    "classify_failure",
    "detect_format",
    "rejected_query_field",
]

CSV_SOURCE = "nvidia-smi csv"
FAILURE_SOURCE = "nvidia-smi"

# diagnostics.md 3.2: every one exists in the --help-query-gpu of drivers 590/591.
QUERY_FIELDS: tuple[str, ...] = (
    "index", "name", "uuid", "pci.bus_id", "driver_version", "compute_cap",
    "memory.total", "memory.used", "memory.free", "memory.reserved",
    "temperature.gpu", "power.draw", "power.limit", "utilization.gpu", "utilization.memory",
    "clocks.gr", "clocks.sm", "clocks.max.sm", "clocks.mem", "pstate",
    "pcie.link.gen.current", "pcie.link.gen.max", "pcie.link.width.current", "pcie.link.width.max",
    "driver_model.current", "mig.mode.current", "fan.speed", "display_active",
    "vbios_version", "serial",
)
# Drivers older than about 510 reject the whole query when one field is unknown
# ('Field "compute_cap" is not a valid field to query.', exit code 2).
FALLBACK_FIELDS: tuple[str, ...] = tuple(f for f in QUERY_FIELDS if f not in ("compute_cap", "memory.reserved"))


def query_argv(exe: str, fields: Sequence[str] = QUERY_FIELDS) -> list[str]:
    """argv for the CSV query: no header, no units (MiB, W, MHz, % are implied)."""
    return [exe, "--query-gpu=" + ",".join(fields), "--format=csv,noheader,nounits"]


def xml_argv(exe: str) -> list[str]:
    return [exe, "-q", "-x"]


def q_argv(exe: str) -> list[str]:
    return [exe, "-q"]


def table_argv(exe: str) -> list[str]:
    return [exe]


# ---------------------------------------------------------------------------------------
# CSV (--query-gpu)
# ---------------------------------------------------------------------------------------

Reader = Callable[[str | None], object]
# GpuInfo field -> (reader, query fields in order of preference; aliases included).
_CSV_MAP: dict[str, tuple[Reader, tuple[str, ...]]] = {
    "name": (clean, ("name", "gpu_name")),
    "uuid": (clean, ("uuid", "gpu_uuid")),
    "serial": (clean, ("serial", "gpu_serial")),
    "pci_bus_id": (normalise_bus_id, ("pci.bus_id", "gpu_bus_id")),
    "compute_capability": (normalise_cc, ("compute_cap",)),
    "memory_total_mib": (parse_mib, ("memory.total",)),
    "memory_used_mib": (parse_mib, ("memory.used",)),
    "memory_free_mib": (parse_mib, ("memory.free",)),
    "memory_reserved_mib": (parse_mib, ("memory.reserved",)),
    "temperature_c": (parse_float, ("temperature.gpu",)),
    "fan_percent": (parse_float, ("fan.speed",)),
    "power_draw_w": (parse_float, ("power.draw", "power.draw.instant", "power.draw.average")),
    "power_limit_w": (parse_float, ("power.limit", "enforced.power.limit")),
    "utilization_gpu_percent": (parse_float, ("utilization.gpu",)),
    "utilization_memory_percent": (parse_float, ("utilization.memory",)),
    "clock_graphics_mhz": (parse_float, ("clocks.gr", "clocks.current.graphics")),
    "clock_sm_mhz": (parse_float, ("clocks.sm", "clocks.current.sm")),
    "clock_mem_mhz": (parse_float, ("clocks.mem", "clocks.current.memory")),
    "clock_sm_max_mhz": (parse_float, ("clocks.max.sm", "clocks.max_sm")),
    "pstate": (clean, ("pstate",)),
    "pcie_gen_current": (parse_int, ("pcie.link.gen.current", "pcie.link.gen.gpucurrent")),
    "pcie_gen_max": (parse_int, ("pcie.link.gen.max", "pcie.link.gen.gpumax")),
    "pcie_width_current": (parse_int, ("pcie.link.width.current",)),
    "pcie_width_max": (parse_int, ("pcie.link.width.max",)),
    "driver_model": (clean, ("driver_model.current",)),
    "mig_mode": (clean, ("mig.mode.current",)),
    "display_active": (clean, ("display_active",)),
    "vbios_version": (clean, ("vbios_version",)),
}
_GPU_QUERY_NAMES = frozenset(
    {"index", "driver_version"} | {name for _, names in _CSV_MAP.values() for name in names}
) - {"gpu_name", "gpu_uuid", "gpu_serial", "gpu_bus_id"}  # also in per-process queries
_HEADER_CELL = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*(?:\s*\[[^\]]*\])?$")
_UNIT_SUFFIX = re.compile(r"\s*\[[^\]]*\]$")


def _split_csv(line: str) -> list[str]:
    """nvidia-smi writes ``a, b, c`` with no quoting; GPU names and values have no commas."""
    return [cell.strip() for cell in line.split(",")]


def _header_fields(line: str) -> list[str] | None:
    """The field names if ``line`` is a ``--query-gpu`` CSV header, else None."""
    cells = _split_csv(line)
    if len(cells) < 2 or not all(_HEADER_CELL.match(cell) for cell in cells):
        return None
    names = [_UNIT_SUFFIX.sub("", cell).lower() for cell in cells]
    if "pid" in names or len(_GPU_QUERY_NAMES.intersection(names)) < 2:
        return None  # --query-compute-apps, --query-retired-pages, prose
    return names


def _csv_rows(lines: list[str], fields: Sequence[str] | None) -> tuple[list[str], list[list[str]]] | None:
    """(field names, data rows) of the first CSV in ``lines``; None when there is none."""
    for i, line in enumerate(lines):
        header = _header_fields(line)
        if header is None:
            continue
        rows = []
        for row_line in lines[i + 1:]:
            cells = _split_csv(row_line)
            if len(cells) != len(header) or _header_fields(row_line) is not None:
                break
            rows.append(cells)
        return header, rows
    if not fields:
        return None
    names = [f.strip().lower() for f in fields]
    rows = [cells for cells in map(_split_csv, lines) if len(cells) == len(names)]
    return names, rows


def _csv_gpu(names: list[str], cells: list[str], position: int) -> tuple[GpuInfo, str | None]:
    row = dict(zip(names, cells))
    index = parse_int(row.get("index"))
    gpu = GpuInfo(index=position if index is None else index, sources={"index": CSV_SOURCE})
    for field, (reader, candidates) in _CSV_MAP.items():
        for name in candidates:
            value = reader(row.get(name)) if name in row else None
            if value is not None:
                put(gpu, field, value, CSV_SOURCE)
                break
    return gpu, clean(row.get("driver_version"))


def parse_csv(text: str, fields: Sequence[str] | None = None) -> SourceResult:
    """Parse ``--query-gpu`` CSV, with or without header and units.

    ``fields`` names the columns of header-less output (what :func:`query_argv` asked
    for); without it a header line must be present. A header in the text wins.
    """
    lines = normalise_text(text).split("\n")
    found = _csv_rows(lines, fields)
    if found is None or not found[1]:
        reason = "no --query-gpu CSV header found" if found is None else "no CSV row matches the fields"
        return _or_failure(SourceResult(source=CSV_SOURCE, status=STATUS_UNRECOGNISED, detail=reason), text)
    names, rows = found
    result = SourceResult(source=CSV_SOURCE)
    slots: dict[str, int] = {}  # a GPU's identity → its place in result.gpus
    samples = 0
    for position, cells in enumerate(rows):
        gpu, driver = _csv_gpu(names, cells, len(result.gpus))
        key = _csv_identity(gpu, "index" in names)
        if key is not None and key in slots:  # `nvidia-smi --query-gpu … -l 1`: a later sample of that GPU
            result.gpus[slots[key]] = gpu  # the latest sample describes the GPU now
            gpu.index = gpu.index if "index" in names else slots[key]
            samples = max(samples, position // max(len(slots), 1) + 1)
        else:
            if key is not None:
                slots[key] = len(result.gpus)
            result.gpus.append(gpu)
        result.driver_version = result.driver_version or driver
    if samples > 1:
        result.detail = f"a log of {samples} samples of {len(result.gpus)} GPU(s) (nvidia-smi -l); the last is used"
    return result


def _csv_identity(gpu: GpuInfo, has_index: bool) -> str | None:
    """What tells one GPU from another across the samples of a log: UUID, bus id, else its index.
    None when the row carries none of them (each such row counts as its own GPU)."""
    if gpu.uuid:
        return "uuid:" + gpu.uuid
    if gpu.pci_bus_id:
        return "bus:" + gpu.pci_bus_id
    return f"index:{gpu.index}" if has_index else None


# ---------------------------------------------------------------------------------------
# The other formats (implemented in nvidia_smi_xml / nvidia_smi_text)
# ---------------------------------------------------------------------------------------

def parse_xml(text: str) -> SourceResult:
    """Parse ``nvidia-smi -q -x`` (DTD v10–v13). Entity declarations are refused."""
    return _or_failure(_parse_xml_document(normalise_text(text)), text)


def _parse_xml_document(text: str) -> SourceResult:
    """The XML reader, imported when there is XML to read: xml.etree is a tenth of what a
    detection without a GPU loads (issue 17), and only a pasted ``-q -x`` log needs it."""
    from wizard.core.machine.nvidia_smi import xml_log

    return xml_log.parse_xml_document(text)


def parse_q_text(text: str) -> SourceResult:
    """Parse the human ``nvidia-smi -q`` log (the first one, if the text holds several)."""
    return _or_failure(_text.parse_q_block(normalise_text(text)), text)


def parse_table(text: str) -> SourceResult:
    """Parse the default ``nvidia-smi`` table (the first one, if the text holds several).

    Names ending in ``...`` are kept as shown and listed in ``detail``: the table cuts
    them, so they must not be taken for the full name (see :func:`name_is_truncated`).
    """
    return _or_failure(_text.parse_table_text(normalise_text(text)), text)


def _or_failure(result: SourceResult, text: str) -> SourceResult:
    """An unreadable output that is an nvidia-smi error message reports that error."""
    if result.status != STATUS_UNRECOGNISED:
        return result
    failure = classify_failure(text)
    if failure is None:
        return result
    failure.source = result.source
    return failure


# ---------------------------------------------------------------------------------------
# Failures
# ---------------------------------------------------------------------------------------

# (status, line pattern, pattern of lines that continue the message). Checked in this
# order, so the most specific diagnosis wins when several lines are present. Patterns
# are anchored to a line start and case-sensitive (nvidia-smi prints them verbatim), so a
# value such as a process named "Insufficient Permissions" inside a -q log is not taken
# for a failure.
_FAILURES: tuple[tuple[str, re.Pattern[str], re.Pattern[str] | None], ...] = tuple(
    (status, re.compile(pattern), re.compile(follow) if follow else None)
    for status, pattern, follow in (
        (STATUS_VERSION_MISMATCH, r"^Failed to initialize NVML: Driver/library version mismatch",
         r"^NVML library version:"),
        (STATUS_VERSION_MISMATCH, r"NVMLError_LibRmVersionMismatch|RM has detected an NVML/RM version mismatch", None),
        (STATUS_DRIVER_NOT_LOADED, r"^NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver",
         r"^(Make sure that the latest NVIDIA driver|This can also be happening)"),
        (STATUS_DRIVER_NOT_LOADED, r"^Failed to initialize NVML: Driver Not Loaded|NVMLError_DriverNotLoaded", None),
        (STATUS_NO_DRIVER, r"NVML Shared Library Not Found|NVMLError_LibraryNotFound", None),
        (STATUS_NO_DRIVER, r"^NVIDIA-SMI couldn't find libnvidia-ml\.so library", r"^Please"),
        (STATUS_NO_DRIVER, r"libnvidia-ml\.so(\.1)?: cannot open shared object file", None),
        (STATUS_NO_DRIVER, r"^'nvidia-smi(\.exe)?'\s*(is not recognized as an internal or external command"
                           r"|.*내부 또는 외부 명령|não é reconhecido como um comando)",
         r"^(operable program or batch file|배치 파일이 아닙니다|programa operável)"),
        (STATUS_NO_DRIVER, r"^nvidia-smi(\.exe)? : (The term 'nvidia-smi(\.exe)?' is not recognized"
                           r"|'nvidia-smi(\.exe)?' 용어가)", None),
        (STATUS_NO_DRIVER, r"(^|: )nvidia-smi: (command )?not found$|command not found: nvidia-smi$", None),
        (STATUS_GPU_LOST, r"^Unable to determine the device handle for .*: GPU is lost"
                          r"|^(Failed to initialize NVML: )?GPU is lost|NVMLError_GpuIsLost|GPU has fallen off the bus",
         None),
        (STATUS_NO_PERMISSION, r"^(Failed to initialize NVML: )?Insufficient Permissions\s*$"
                               r"|^Unable to determine the device handle for .*: Insufficient Permissions", None),
        (STATUS_NO_DEVICES, r"^No devices were found", None),
        (STATUS_ERROR, r"^Failed to initialize NVML: |^Unable to determine the device handle for ", None),
        (STATUS_ERROR, r"^Field \"[^\"]*\" is not a valid field to query", None),
    )
)
# nvidia-smi's documented exit codes, used only when the text says nothing we know.
_RETURN_CODES = {
    4: STATUS_NO_PERMISSION, 9: STATUS_DRIVER_NOT_LOADED, 12: STATUS_NO_DRIVER,
    15: STATUS_GPU_LOST, 18: STATUS_VERSION_MISMATCH, 127: STATUS_NO_DRIVER, 9009: STATUS_NO_DRIVER,
}
_LINE_PREFIX = re.compile(r"^[>\s]+")
_REJECTED_FIELD = re.compile(r'Field "(?P<field>[^"]*)" is not a valid field to query', re.IGNORECASE)


def classify_failure(text: str, returncode: int | None = None) -> SourceResult | None:
    """The nvidia-smi failure in ``text`` (with its exact line(s) in ``raw_error``), or None.

    ``returncode`` is consulted only when the text holds no known message: 18 is the
    version mismatch, 9 the driver not loaded, and any other non-zero code is an error.
    """
    lines = [_LINE_PREFIX.sub("", line) for line in normalise_text(text).split("\n")]
    for status, pattern, follow in _FAILURES:
        for i, line in enumerate(lines):
            if not pattern.search(line):
                continue
            raw = [line]
            for extra in lines[i + 1:i + 3]:
                if follow is None or not follow.search(extra):
                    break
                raw.append(extra)
            return SourceResult(source=FAILURE_SOURCE, status=status, raw_error="\n".join(raw))
    if returncode is None or returncode == 0:
        return None
    raw_error = text.strip() or None
    return SourceResult(source=FAILURE_SOURCE, status=_RETURN_CODES.get(returncode, STATUS_ERROR),
                        raw_error=raw_error, detail=f"nvidia-smi exited with code {returncode}")


def rejected_query_field(text: str) -> str | None:
    """The field an older driver refused (``Field "compute_cap" is not a valid field…``).

    The caller drops it from the query and asks again, field by field.
    """
    match = _REJECTED_FIELD.search(text)
    return match.group("field") if match else None


# ---------------------------------------------------------------------------------------
# Detection and merging
# ---------------------------------------------------------------------------------------

_Q_SIGNS = re.compile(r"=+\s*NVSMI LOG\s*=+|^\s*Product Name\s+:\s|^\s*GPU UUID\s+:\s", re.MULTILINE)
_VERSION_LINES = {
    "smi_version": re.compile(r"^\s*NVIDIA-SMI version\s*:\s*(\S+)", re.MULTILINE),
    "nvml_version": re.compile(r"^\s*NVML version\s*:\s*(\S+)", re.MULTILINE),
    "driver_version": re.compile(r"^\s*DRIVER version\s*:\s*(\S+)", re.MULTILINE),
}
_PARSERS: dict[str, Callable[[str], SourceResult]] = {
    "xml": _parse_xml_document, "q": _text.parse_q_block,
    "csv": lambda text: parse_csv(text, _headerless_csv(text.split("\n"))), "table": _text.parse_table_text,
}


def _headerless_csv(lines: list[str]) -> Sequence[str] | None:
    """The field list whose width matches header-less rows that start with a GPU index."""
    for field_list in (QUERY_FIELDS, FALLBACK_FIELDS):
        for line in lines:
            cells = _split_csv(line)
            if len(cells) == len(field_list) and cells[0].isdigit():
                return field_list
    return None


def _formats_present(text: str) -> list[str]:
    """The parseable formats in (normalised) ``text``, richest first."""
    found = []
    if "<nvidia_smi_log" in text:
        found.append("xml")
    if _Q_SIGNS.search(text):
        found.append("q")
    lines = text.split("\n")
    if any(_header_fields(line) for line in lines) or _headerless_csv(lines):
        found.append("csv")
    if _text.TABLE_HEADER.search(text) or _text.parse_table_text(text).gpus:
        found.append("table")
    return found


def detect_format(text: str) -> str:
    """"xml", "q", "csv", "table", "failure" or "unrecognised" (the richest format present)."""
    found = _formats_present(normalise_text(text))
    if found:
        return found[0]
    return "failure" if classify_failure(text) is not None else "unrecognised"


def _same_gpu(a: GpuInfo, b: GpuInfo) -> bool:
    if a.pci_bus_id and b.pci_bus_id:
        return a.pci_bus_id == b.pci_bus_id
    if a.uuid and b.uuid:
        return a.uuid == b.uuid
    return a.index == b.index


_MERGED_FIELDS = [f.name for f in dataclass_fields(GpuInfo) if f.name not in ("index", "sources")]


def _fill(target: GpuInfo, other: GpuInfo, other_source: str) -> None:
    """Copy into ``target`` what it lacks from ``other`` (a truncated name counts as lacking)."""
    for name in _MERGED_FIELDS:
        mine, theirs = getattr(target, name), getattr(other, name)
        lacking = mine is None or mine == [] or (name == "name" and name_is_truncated(mine))
        if lacking and theirs is not None and theirs != [] and not (name == "name" and name_is_truncated(theirs) and mine):
            setattr(target, name, theirs)
            target.sources[name] = other.sources.get(name, other_source)


def _merge(results: list[SourceResult]) -> SourceResult:
    """One result from several outputs of the same machine; the first (richest) leads."""
    merged = results[0]
    for other in results[1:]:
        for attr in ("driver_version", "cuda_version", "smi_version", "nvml_version"):
            if getattr(merged, attr) is None:
                setattr(merged, attr, getattr(other, attr))
        for gpu in other.gpus:
            match = next((mine for mine in merged.gpus if _same_gpu(mine, gpu)), None)
            if match is None:
                merged.gpus.append(gpu)
            else:
                _fill(match, gpu, other.source)
    if len(results) > 1:
        notes = [merged.detail] if merged.detail else []
        notes += [f"{r.source}: {r.detail}" for r in results[1:] if r.detail]
        notes.append("merged from " + ", ".join(r.source for r in results))
        merged.detail = "; ".join(notes)
    return merged


def parse_any(text: str) -> SourceResult:
    """Recognise and parse whatever nvidia-smi output ``text`` holds; never raises.

    A paste with several outputs (a capture file, a long forum post) is parsed in each
    format present and merged, richest first (xml > -q > csv > table). A failure message
    anywhere in the text sets the status and ``raw_error``; the parsed GPUs are kept.
    """
    normal = normalise_text(text)
    attempts = [_PARSERS[fmt](normal) for fmt in _formats_present(normal)]
    readable = [r for r in attempts if r.status == STATUS_OK and (r.gpus or r.driver_version)]
    failure = classify_failure(text)
    if not readable:
        if failure is not None:
            return failure
        reasons = "; ".join(f"{r.source}: {r.detail}" for r in attempts if r.detail)
        return SourceResult(source="unknown", status=STATUS_UNRECOGNISED,
                            detail=reasons or "no nvidia-smi output recognised")
    merged = _merge(readable)
    for attr, pattern in _VERSION_LINES.items():  # `nvidia-smi --version`, if pasted too
        match = pattern.search(normal)
        if match and getattr(merged, attr) is None:
            setattr(merged, attr, clean(match.group(1)))
    if failure is not None:
        merged.status, merged.raw_error = failure.status, failure.raw_error
    return merged
