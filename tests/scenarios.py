"""Whole machines for end-to-end detection, GUI tests and screenshots.

Each scenario is a :class:`RecordedHost` assembled from recorded outputs: the hand-written
system outputs in tests/data/recorded (real formats) and the fake NVML descriptions in
tests/fake_nvml.py (values from the real nvidia-smi captures). nvidia-smi's CSV answer is
rendered from the same description, in the exact shape ``--format=csv,noheader,nounits``
prints, so NVML and nvidia-smi agree unless a scenario makes them disagree on purpose.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests import fake_nvml
from tests.recorded_host import RecordedHost
from wizard.core.base.host import CommandResult, RealHost
from wizard.core.machine import nvidia_smi
from wizard.core.machine.adapters import CIM_COMMAND

RECORDED = Path(__file__).resolve().parent / "data" / "recorded"
GIB = 2**30
SYSTEM32_SMI = "C:\\Windows\\System32\\nvidia-smi.exe"

NT_KEY = r"HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion"
CPU_KEY = r"HKLM\HARDWARE\DESCRIPTION\System\CentralProcessor\0"
INTL_KEY = r"HKCU\Control Panel\International"

MISMATCH_TEXT = "Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 581.15\n"


def recorded(name: str) -> str:
    return (RECORDED / name).read_bytes().decode("utf-8")


def ok(stdout: str) -> CommandResult:
    return CommandResult([], 0, stdout)


def _na(value: Any) -> str:
    return "[N/A]" if value is None else str(value)


def smi_csv(description: dict[str, Any], fields=nvidia_smi.QUERY_FIELDS) -> str:
    """What ``nvidia-smi --query-gpu=<fields> --format=csv,noheader,nounits`` prints."""
    rows = []
    for index, g in enumerate(description["gpus"]):
        mem = g.get("memory_mib") or {}
        util = g.get("utilization") or {}
        clocks = g.get("clocks_mhz") or {}
        max_clocks = g.get("max_clocks_mhz") or {}
        pcie = g.get("pcie") or {}
        cc = g.get("compute_capability")
        mig = g.get("mig_mode")
        values = {
            "index": index, "name": g.get("name"), "uuid": g.get("uuid"),
            "pci.bus_id": g.get("pci_bus_id"), "driver_version": description.get("driver_version"),
            "compute_cap": f"{cc[0]}.{cc[1]}" if cc else None,
            "memory.total": mem.get("total"), "memory.used": mem.get("used"),
            "memory.free": mem.get("free"), "memory.reserved": mem.get("reserved"),
            "temperature.gpu": g.get("temperature_c"),
            "power.draw": None if g.get("power_mw") is None else f"{g['power_mw'] / 1000:.2f}",
            "power.limit": None if g.get("power_limit_mw") is None else f"{g['power_limit_mw'] / 1000:.2f}",
            "utilization.gpu": util.get("gpu"), "utilization.memory": util.get("memory"),
            "clocks.gr": clocks.get("graphics"), "clocks.sm": clocks.get("sm"),
            "clocks.max.sm": max_clocks.get("sm"), "clocks.mem": clocks.get("mem"),
            "pstate": None if g.get("pstate") is None else f"P{g['pstate']}",
            "pcie.link.gen.current": pcie.get("gen_current"), "pcie.link.gen.max": pcie.get("gen_max"),
            "pcie.link.width.current": pcie.get("width_current"), "pcie.link.width.max": pcie.get("width_max"),
            "driver_model.current": (g.get("driver_model") or (None,))[0],
            "mig.mode.current": None if mig is None else ("Enabled" if mig[0] else "Disabled"),
            "fan.speed": g.get("fan_percent"),
            "display_active": "Enabled" if g.get("display_active") else "Disabled",
            "vbios_version": g.get("vbios"), "serial": g.get("serial"),
        }
        rows.append(", ".join(_na(values[f]) for f in fields))
    return "\n".join(rows) + "\n"


def smi_table_header(description: dict[str, Any], smi_version: str | None = None) -> str:
    """The first lines of the default table (what query_smi reads the CUDA version from)."""
    cuda = description["cuda_driver_version"]
    driver = description["driver_version"]
    line = (f"| NVIDIA-SMI {smi_version or driver:<22}Driver Version: {driver:<15}"
            f"CUDA Version: {cuda // 1000}.{(cuda % 1000) // 10:<9}|")
    rule = "+" + "-" * (len(line) - 2) + "+"
    return "Sat Nov 29 10:00:00 2026\n" + rule + "\n" + line + "\n" + rule + "\n"


def windows_rtx2080super(**overrides: Any) -> RecordedHost:
    """A Korean student's Windows 11 desktop: RTX 2080 SUPER (WDDM, 591.86), smi only in System32."""
    desc = fake_nvml.rtx2080super_windows()
    host = RecordedHost(
        os_name="windows",
        platform={
            "system": "Windows", "release": "10", "version": "10.0.22631", "machine": "AMD64",
            "node": "DESKTOP-7Q2K9LM", "python_version": "3.12.7", "frozen": True,
            "python_executable": "C:\\Users\\김철수\\AppData\\Local\\Programs\\GPU Setup Wizard\\gpu-setup-wizard.exe",
            "win32_ver": ["10", "10.0.22631", "SP0", "Multiprocessor Free"], "win32_edition": "Professional",
        },
        commands={
            "cmd /c ver": ok(recorded("windows/ver_win11_23h2.txt")),
            RecordedHost.key_of(["reg", "query", NT_KEY, "/v", "DisplayVersion"]):
                ok(recorded("windows/reg_displayversion_23h2.txt")),
            RecordedHost.key_of(["reg", "query", CPU_KEY, "/v", "ProcessorNameString"]):
                ok(recorded("windows/reg_processorname_i7_13700h.txt")),
            RecordedHost.key_of(["reg", "query", INTL_KEY, "/v", "LocaleName"]):
                ok(recorded("windows/reg_localename_ko.txt")),
            RecordedHost.key_of(CIM_COMMAND): ok(recorded("windows/cim_video_single_nvidia.json")),
            "py -0p": ok(recorded("windows/py-0p_launcher311.txt")),
            RecordedHost.key_of(nvidia_smi.query_argv(SYSTEM32_SMI)): ok(smi_csv(desc)),
            RecordedHost.key_of([SYSTEM32_SMI]): ok(smi_table_header(desc)),
        },
        files={SYSTEM32_SMI: ""},
        env={"USERPROFILE": "C:\\Users\\김철수", "USERNAME": "김철수", "SystemRoot": "C:\\Windows",
             "ProgramFiles": "C:\\Program Files", "LOCALAPPDATA": "C:\\Users\\김철수\\AppData\\Local",
             "COMPUTERNAME": "DESKTOP-7Q2K9LM"},
        machine_resources={"cpu_logical": 20, "cpu_physical": 14, "ram_total": 32 * GIB, "ram_available": 21 * GIB},
        disks={"C:\\": (123 * GIB, 476 * GIB)},
        home_dir="C:\\Users\\김철수",
        nvml_module=fake_nvml.FakeNvml(desc),
    )
    for name, value in overrides.items():
        setattr(host, name, value)
    return host


def linux_host(**overrides: Any) -> RecordedHost:
    """Ubuntu 22.04 desktop, no GPU driver and no NVIDIA card; no Python queried."""
    host = RecordedHost(
        os_name="linux",
        platform={"system": "Linux", "release": "6.8.0-49-generic", "version": "#49~22.04.1-Ubuntu",
                  "machine": "x86_64", "node": "lab-pc", "python_version": "3.11.7", "frozen": True},
        files={"/etc/os-release": recorded("linux/os-release_ubuntu2204"),
               "/proc/cpuinfo": recorded("linux/cpuinfo_desktop_i9_13900k"),
               "/proc/version": recorded("linux/proc_version_ubuntu2204")},
        env={"HOME": "/home/student", "USER": "student", "LANG": "ko_KR.UTF-8"},
        machine_resources={"cpu_logical": 32, "cpu_physical": 24, "ram_total": 64 * GIB, "ram_available": 50 * GIB},
        disks={"/": (400 * GIB, 900 * GIB)},
        home_dir="/home/student",
        nvml_module=fake_nvml.FakeNvml(init_error="LIBRARY_NOT_FOUND"),
    )
    for name, value in overrides.items():
        setattr(host, name, value)
    return host


def linux_driver_mismatch() -> RecordedHost:
    """Right after `apt upgrade` replaced the driver: NVML and nvidia-smi both say mismatch."""
    smi = "/usr/bin/nvidia-smi"
    return linux_host(
        nvml_module=fake_nvml.FakeNvml(init_error="LIB_RM_VERSION_MISMATCH"),
        on_path={"nvidia-smi": smi},
        files={**linux_host().files, smi: ""},
        commands={RecordedHost.key_of(nvidia_smi.query_argv(smi)): CommandResult([], 18, MISMATCH_TEXT)},
    )


def linux_a100_mig() -> RecordedHost:
    desc = fake_nvml.a100_mig_linux()
    smi = "/usr/bin/nvidia-smi"
    return linux_host(
        nvml_module=fake_nvml.FakeNvml(desc),
        on_path={"nvidia-smi": smi},
        files={**linux_host().files, smi: ""},
        commands={RecordedHost.key_of(nvidia_smi.query_argv(smi)): ok(smi_csv(desc)),
                  RecordedHost.key_of([smi]): ok(smi_table_header(desc))},
    )


def windows_rtx3060(**overrides: Any) -> RecordedHost:
    """The same Windows 11 desktop with a GeForce RTX 3060 12 GB (Ampere, sm_86) in place of the
    RTX 2080 SUPER: the card most course PCs have. The driver, system and Python outputs are the
    recorded Windows ones; the card's facts (name, compute capability, memory, power limit,
    clocks) are NVIDIA's published specs (reference/gpu-specs.json)."""
    desc = fake_nvml.rtx2080super_windows()
    gpu = desc["gpus"][0]
    gpu.update({
        "name": "NVIDIA GeForce RTX 3060",
        "compute_capability": (8, 6),
        "architecture": "AMPERE",
        "memory_mib": {"total": 12288, "reserved": 253, "used": 1104, "free": 10931},
        "power_limit_mw": 170000,
        "clocks_mhz": {"graphics": 1777, "sm": 1777, "mem": 7500},
        "max_clocks_mhz": {"graphics": 2100, "sm": 2100, "mem": 7501},
        "pcie": {"gen_current": 4, "gen_max": 4, "width_current": 16, "width_max": 16},
    })
    host = windows_rtx2080super()
    host.commands[RecordedHost.key_of(nvidia_smi.query_argv(SYSTEM32_SMI))] = ok(smi_csv(desc))
    host.commands[RecordedHost.key_of([SYSTEM32_SMI])] = ok(smi_table_header(desc))
    host.nvml_module = fake_nvml.FakeNvml(desc)
    for name, value in overrides.items():
        setattr(host, name, value)
    return host


class _ThisPcWithoutGpu(RealHost):
    """This computer, with the NVIDIA parts answered as on a PC that has no card: NVML finds no
    library and there is no nvidia-smi. Everything else (Python, disks, processes) is real."""

    def __init__(self) -> None:
        super().__init__()
        self._nvml = fake_nvml.FakeNvml(init_error="LIBRARY_NOT_FOUND")

    def nvml(self) -> Any:
        return self._nvml

    def which(self, name: str) -> str | None:
        return None if name.lower().startswith("nvidia-smi") else super().which(name)

    def exists(self, path) -> bool:
        return False if "nvidia-smi" in str(path).lower() else super().exists(path)


def this_pc_without_gpu() -> RealHost:
    """The real machine as a student's PC without an NVIDIA card (the same on a GPU developer PC)."""
    return _ThisPcWithoutGpu()
