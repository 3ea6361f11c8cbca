"""Dataclasses for what detection finds. Pure data: no I/O, no Qt.

Conventions:
- ``None`` means "n/a": the GPU, OS or driver does not report it. Front ends print it as
  n/a (없음); JSON carries null. Detection never invents a value.
- Memory in MiB (what NVML/nvidia-smi report, 1 MiB = 2**20 bytes), power in watts,
  clocks in MHz, temperature in °C, utilisation in percent.
- ``sources`` records where each value came from ("nvml", "nvidia-smi csv", "nvidia-smi xml",
  "nvidia-smi -q", "nvidia-smi table"), so a teaching assistant can trust the report.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

from wizard.core.base.i18n import Message, has, is_message_json, t


def to_jsonable(obj: Any) -> Any:
    """Dataclasses → dicts, recursively (tuples become lists; a Message takes its stored form)."""
    if isinstance(obj, Message):
        return obj.to_json()
    if hasattr(obj, "__dataclass_fields__"):
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in fields(obj)}
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    return obj


@dataclass
class GpuProcess:
    pid: int | None
    name: str | None = None
    used_memory_mib: float | None = None  # None on WDDM/WSL, where it is not reported
    kind: str | None = None  # "C" compute, "G" graphics, "C+G"


@dataclass
class MigDevice:
    index: int | None
    gpu_instance_id: int | None = None
    compute_instance_id: int | None = None
    memory_total_mib: float | None = None
    memory_used_mib: float | None = None
    uuid: str | None = None
    profile: str | None = None  # e.g. "1g.10gb"


@dataclass
class GpuInfo:
    """One NVIDIA GPU as NVML and/or nvidia-smi describe it."""

    index: int
    name: str | None = None
    uuid: str | None = None
    serial: str | None = None
    pci_bus_id: str | None = None
    compute_capability: str | None = None  # "8.6"
    architecture: str | None = None  # "Ampere"
    memory_total_mib: float | None = None
    memory_used_mib: float | None = None
    memory_free_mib: float | None = None
    memory_reserved_mib: float | None = None
    temperature_c: float | None = None
    fan_percent: float | None = None
    power_draw_w: float | None = None
    power_limit_w: float | None = None
    utilization_gpu_percent: float | None = None
    utilization_memory_percent: float | None = None
    clock_graphics_mhz: float | None = None
    clock_sm_mhz: float | None = None
    clock_mem_mhz: float | None = None
    clock_sm_max_mhz: float | None = None
    pstate: str | None = None
    pcie_gen_current: int | None = None
    pcie_gen_max: int | None = None
    pcie_width_current: int | None = None
    pcie_width_max: int | None = None
    driver_model: str | None = None  # "WDDM" | "TCC" | "MCDM" (Windows only)
    mig_mode: str | None = None  # "Enabled" | "Disabled"
    mig_devices: list[MigDevice] = field(default_factory=list)
    processes: list[GpuProcess] = field(default_factory=list)
    vbios_version: str | None = None
    display_active: str | None = None
    sources: dict[str, str] = field(default_factory=dict)

    @property
    def memory_total_gib(self) -> float | None:
        return None if self.memory_total_mib is None else self.memory_total_mib / 1024

    def pcie_text(self, na: str) -> str:
        """"Gen3 x16 (max Gen4 x16)" for the doctor summary; ``na`` ("n/a") for a link that is
        not known at all, not glued into "Genn/a xn/a" (what a VM or a laptop's dGPU often gives)."""
        def link(gen: int | None, width: int | None) -> str | None:
            if gen is None and width is None:
                return None
            return f"Gen{gen if gen is not None else '?'} x{width if width is not None else '?'}"

        now, best = link(self.pcie_gen_current, self.pcie_width_current), link(self.pcie_gen_max, self.pcie_width_max)
        if best is None:
            return now or na
        return f"{now or na} (max {best})"


# The NVIDIA-side failure classes. Detection sets NvidiaInfo.status to one of these; the
# findings module turns each into words and a fix.
STATUS_OK = "ok"
STATUS_NO_DRIVER = "no-driver"  # no NVML library / no nvidia-smi
STATUS_DRIVER_NOT_LOADED = "driver-not-loaded"  # library present, kernel module not
STATUS_VERSION_MISMATCH = "version-mismatch"  # updated driver, reboot needed
STATUS_NO_PERMISSION = "no-permission"
STATUS_GPU_LOST = "gpu-lost"
STATUS_TIMEOUT = "timeout"  # nvidia-smi or NVML hung
STATUS_NO_DEVICES = "no-devices"  # driver fine, no GPU visible
STATUS_ERROR = "error"  # anything else, with the raw text kept
STATUS_UNRECOGNISED = "unrecognised"  # input text we could not read


@dataclass
class SourceResult:
    """What one source (NVML, or one nvidia-smi output) said, before merging.

    ``status`` is one of the STATUS_* constants; ``raw_error`` keeps the exact text.
    """

    source: str  # "nvml", "nvidia-smi csv", "nvidia-smi xml", "nvidia-smi -q", "nvidia-smi table"
    status: str = STATUS_OK
    driver_version: str | None = None
    cuda_version: str | None = None  # highest CUDA the driver supports, "12.8"
    nvml_version: str | None = None
    smi_version: str | None = None  # the table's "NVIDIA-SMI x" (differs from driver on WSL)
    gpus: list[GpuInfo] = field(default_factory=list)
    raw_error: str | None = None
    detail: str | None = None  # e.g. the parser's reason for "unrecognised"


@dataclass
class Disagreement:
    """NVML and nvidia-smi reported different values for the same thing."""

    field: str
    gpu_index: int | None
    values: dict[str, Any]  # source -> value


@dataclass
class NvidiaInfo:
    """NVML and nvidia-smi merged. ``status`` is the overall outcome (STATUS_*)."""

    status: str = STATUS_NO_DRIVER
    driver_version: str | None = None
    cuda_version: str | None = None
    nvml_version: str | None = None
    smi_version: str | None = None
    smi_path: str | None = None
    smi_on_path: bool | None = None  # False on Windows when only System32/NVSMI has it
    gpus: list[GpuInfo] = field(default_factory=list)
    sources: list[SourceResult] = field(default_factory=list)
    disagreements: list[Disagreement] = field(default_factory=list)
    raw_smi_output: str | None = None  # the default table, kept for the report appendix


@dataclass
class DisplayAdapter:
    """Any graphics adapter the OS lists (NVIDIA, AMD, Intel, Apple, virtual)."""

    vendor: str  # "nvidia" | "amd" | "intel" | "apple" | "other"
    name: str | None = None
    pci_id: str | None = None  # "10de:2684"
    source: str | None = None  # "sysfs", "lspci", "cim", "system_profiler"


@dataclass
class SystemInfo:
    os: str  # "windows" | "linux" | "macos"
    os_pretty: str | None = None  # "Windows 11 Pro 23H2", "Ubuntu 22.04.4 LTS", "macOS 14.5"
    os_version: str | None = None
    os_build: str | None = None  # Windows build number, kernel release on Linux
    distro_id: str | None = None  # os-release ID
    is_wsl: bool = False
    wsl_version: int | None = None
    arch: str | None = None  # "x86_64" | "arm64" | "aarch64"
    cpu_model: str | None = None
    cpu_physical_cores: int | None = None
    cpu_logical_cores: int | None = None
    ram_total_bytes: int | None = None
    ram_available_bytes: int | None = None
    disk_path: str | None = None
    disk_free_bytes: int | None = None
    disk_total_bytes: int | None = None
    locale: str | None = None
    is_admin: bool = False
    hostname: str | None = None
    display_adapters: list[DisplayAdapter] = field(default_factory=list)
    jetson_l4t: str | None = None  # an NVIDIA Jetson's L4T release ("36.4.3"), see machine/jetson.py
    jetson_model: str | None = None  # its device-tree model; "" when a Jetson of unknown model


@dataclass
class PythonInterpreter:
    path: str
    version: str | None = None  # "3.11.7"
    arch: str | None = None  # "x86_64", "AMD64", "arm64"
    bits: int | None = None
    implementation: str | None = None  # "CPython"
    source: str = "path"  # "current" | "py-launcher" | "path" | "common" | "uv" | "conda"
    is_venv: bool = False
    externally_managed: bool = False  # PEP 668 marker: do not install into it
    error: str | None = None  # why it could not be queried


@dataclass
class CondaEnv:
    name: str
    prefix: str
    is_base: bool = False


@dataclass
class CondaInstall:
    exe: str
    version: str | None = None
    base_prefix: str | None = None
    envs: list[CondaEnv] = field(default_factory=list)
    error: str | None = None


@dataclass
class Finding:
    """Something a student should know, with the fix. Text comes from the i18n catalogue.

    ``id`` is stable (failure-modes.json ids where one exists); ``params`` fill the message
    placeholders (a :class:`~wizard.core.base.i18n.Message` value is itself translated, in the
    same language; its stored form from a history file is read back as one); ``evidence`` quotes what
    was seen; ``variant`` selects ``finding.<id>.<variant>.<part>`` messages where they exist
    (one failure mode, several situations: e.g. no driver with or without an NVIDIA card).
    """

    id: str
    severity: str  # "error" | "warning" | "info"
    params: dict[str, Any] = field(default_factory=dict)
    evidence: str | None = None
    variant: str | None = None

    def _params(self, lang: str | None) -> dict[str, Any]:
        out = {}
        for name, value in self.params.items():
            if is_message_json(value):
                value = Message.from_json(value)
            out[name] = value.text(lang) if isinstance(value, Message) else value
        return out

    def _text(self, part: str, lang: str | None) -> str:
        key = f"finding.{self.id}.{part}"
        if self.variant and has(f"finding.{self.id}.{self.variant}.{part}"):
            key = f"finding.{self.id}.{self.variant}.{part}"
        return t(key, lang, **self._params(lang))

    def title(self, lang: str | None) -> str:
        return self._text("title", lang)

    def cause(self, lang: str | None) -> str:
        return self._text("cause", lang)

    def fix(self, lang: str | None) -> str:
        return self._text("fix", lang)

    def to_json(self, lang: str | None) -> dict[str, Any]:
        return {
            "id": self.id,
            "severity": self.severity,
            "variant": self.variant,
            "title": self.title(lang),
            "cause": self.cause(lang),
            "fix": self.fix(lang),
            "evidence": self.evidence,
            "params": to_jsonable(self._params(lang)),
        }


@dataclass
class Detection:
    """Everything the first two pages learn about the machine."""

    system: SystemInfo
    nvidia: NvidiaInfo
    pythons: list[PythonInterpreter] = field(default_factory=list)
    conda: list[CondaInstall] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    duration_s: float | None = None
    timings: dict[str, int] = field(default_factory=dict)  # ms per part of the detection (doctor --json)


__all__ = [name for name in dir() if not name.startswith("_")
           and name not in ("Message", "has", "is_message_json", "t")] + ["asdict"]
