"""Display adapters from sysfs, lspci, CIM (Windows) and system_profiler (macOS)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.recorded_host import RecordedHost
from wizard.core.base.host import CommandResult, RealHost
from wizard.core.machine.adapters import (
    CIM_COMMAND,
    classify_vendor,
    list_display_adapters,
    parse_cim_video_controllers,
    parse_lspci,
    parse_system_profiler_displays,
    pci_ids_names,
)
from wizard.core.machine.models import DisplayAdapter

RECORDED = Path(__file__).resolve().parents[1] / "data" / "recorded"


def recorded(name: str) -> str:
    """A recorded output, byte for byte (CRLF kept)."""
    return (RECORDED / name).read_bytes().decode("utf-8")


def ok(stdout: str) -> CommandResult:
    return CommandResult([], 0, stdout)


def sysfs_files(devices: dict[str, tuple[str, str, str]]) -> tuple[dict[str, list[str]], dict[str, str]]:
    """sysfs as the kernel shows it: one folder per PCI function with class/vendor/device."""
    dirs = {"/sys/bus/pci/devices": sorted(devices)}
    files = {}
    for slot, (cls, vendor, device) in devices.items():
        base = f"/sys/bus/pci/devices/{slot}"
        files[f"{base}/class"] = cls + "\n"
        files[f"{base}/vendor"] = vendor + "\n"
        files[f"{base}/device"] = device + "\n"
    return dirs, files


# ----------------------------------------------------------------------------- vendors


@pytest.mark.parametrize("name, pci_vendor, compat, expected", [
    ("NVIDIA GeForce RTX 4060 Laptop GPU", None, "NVIDIA", "nvidia"),
    ("AMD Radeon RX 7800 XT", None, "Advanced Micro Devices, Inc.", "amd"),
    ("Intel(R) Iris(R) Xe Graphics", None, "Intel Corporation", "intel"),
    ("Apple M2", None, None, "apple"),
    ("Microsoft Basic Display Adapter", None, "(Standard display types)", "other"),
    ("VMware SVGA 3D", None, "VMware, Inc.", "other"),
    ("VirtualBox Graphics Adapter (WDDM)", None, "Oracle Corporation", "other"),
    ("llvmpipe (LLVM 15.0.6, 256 bits)", None, None, "other"),
    ("Parsec Virtual Display Adapter", None, "Parsec Cloud, Inc.", "other"),
    (None, None, None, "other"),
    # a PCI vendor id names the hardware even when the driver's name does not
    ("Microsoft Basic Display Adapter", "10de", None, "nvidia"),
    ("Microsoft Basic Display Adapter", "1414", None, "other"),
    (None, "0x1002", None, "amd"),
    (None, "8086", None, "intel"),
    (None, "15ad", None, "other"),
])
def test_classify_vendor(name, pci_vendor, compat, expected):
    assert classify_vendor(name, pci_vendor, compat) == expected


def test_classify_vendor_does_not_match_inside_words():
    # "amd" inside another word, "intel" inside "intelligent": not a vendor
    assert classify_vendor("Camden Display Bridge") == "other"
    assert classify_vendor("Intelligent Display Hub") == "other"


# ----------------------------------------------------------------------------- Windows


def test_cim_list_nvidia_and_intel_laptop():
    adapters = parse_cim_video_controllers(recorded("windows/cim_video_laptop_nvidia_intel.json"))
    assert adapters == [
        DisplayAdapter("nvidia", "NVIDIA GeForce RTX 4060 Laptop GPU", "10de:28e0", "cim"),
        DisplayAdapter("intel", "Intel(R) UHD Graphics", "8086:a788", "cim"),
    ]


def test_cim_single_object_is_one_adapter():
    adapters = parse_cim_video_controllers(recorded("windows/cim_video_single_nvidia.json"))
    assert adapters == [DisplayAdapter("nvidia", "NVIDIA GeForce RTX 4070 SUPER", "10de:2783", "cim")]


def test_cim_korean_basic_display_adapter_on_nvidia_card_is_nvidia():
    """No driver yet: Windows names the card '기본 디스플레이 어댑터', the PCI id says NVIDIA."""
    adapters = parse_cim_video_controllers(recorded("windows/cim_video_no_driver_ko.json"))
    assert [(a.vendor, a.pci_id) for a in adapters] == [("nvidia", "10de:2684"), ("other", None)]
    assert adapters[0].name == "Microsoft 기본 디스플레이 어댑터"
    assert adapters[1].name == "Microsoft Remote Display Adapter"


@pytest.mark.parametrize("text", ["", "   \r\n", "Get-CimInstance : Access denied", "null", "42"])
def test_cim_output_without_adapters(text):
    assert parse_cim_video_controllers(text) == []


def test_cim_output_with_bom():
    text = "\ufeff" + recorded("windows/cim_video_single_nvidia.json")
    assert [a.vendor for a in parse_cim_video_controllers(text)] == ["nvidia"]


def test_windows_host_runs_cim_as_argv_list():
    host = RecordedHost(os_name="windows", commands={
        RecordedHost.key_of(CIM_COMMAND): ok(recorded("windows/cim_video_laptop_nvidia_intel.json"))})
    adapters = list_display_adapters(host)
    assert [a.vendor for a in adapters] == ["nvidia", "intel"]
    assert host.calls == [CIM_COMMAND]
    assert CIM_COMMAND[:3] == ["powershell", "-NoProfile", "-Command"]


def test_windows_host_powershell_failure_gives_no_adapters():
    host = RecordedHost(os_name="windows", commands={
        RecordedHost.key_of(CIM_COMMAND): CommandResult([], None, timed_out=True)})
    assert list_display_adapters(host) == []


# ------------------------------------------------------------------------------- Linux


def test_sysfs_nvidia_and_intel_with_pci_ids_names():
    dirs, files = sysfs_files({
        "0000:00:00.0": ("0x060000", "0x8086", "0x4660"),  # host bridge
        "0000:00:02.0": ("0x030000", "0x8086", "0x4680"),  # UHD 770
        "0000:01:00.0": ("0x030000", "0x10de", "0x2684"),  # RTX 4090
        "0000:01:00.1": ("0x040300", "0x10de", "0x22ba"),  # its HDMI audio: not a display
    })
    files["/usr/share/misc/pci.ids"] = recorded("linux/pci.ids_excerpt")
    host = RecordedHost(os_name="linux", dirs=dirs, files=files)
    adapters = list_display_adapters(host)
    assert adapters == [
        DisplayAdapter("intel", "Intel Corporation AlderLake-S GT1 [UHD Graphics 770]", "8086:4680", "sysfs"),
        DisplayAdapter("nvidia", "NVIDIA Corporation AD102 [GeForce RTX 4090]", "10de:2684", "sysfs"),
    ]
    assert host.calls == []  # no lspci when sysfs answers


def test_sysfs_without_pci_ids_keeps_ids_and_no_names():
    dirs, files = sysfs_files({"0000:01:00.0": ("0x030200", "0x10de", "0x20b0")})
    adapters = list_display_adapters(RecordedHost(os_name="linux", dirs=dirs, files=files))
    assert adapters == [DisplayAdapter("nvidia", None, "10de:20b0", "sysfs")]


def test_sysfs_without_display_devices_is_empty_and_skips_lspci():
    dirs, files = sysfs_files({"0000:00:03.0": ("0x020000", "0x1af4", "0x1041")})
    host = RecordedHost(os_name="linux", dirs=dirs, files=files,
                        commands={"lspci -nn": ok(recorded("linux/lspci-nn_cloud_a100.txt"))})
    assert list_display_adapters(host) == []
    assert host.calls == []


def test_lspci_fallback_when_sysfs_unreadable():
    host = RecordedHost(os_name="linux", commands={"lspci -nn": ok(recorded("linux/lspci-nn_fedora_amd.txt"))})
    adapters = list_display_adapters(host)
    assert [(a.vendor, a.pci_id, a.source) for a in adapters] == [
        ("amd", "1002:744c", "lspci"), ("amd", "1002:164e", "lspci")]
    assert adapters[0].name == ("Advanced Micro Devices, Inc. [AMD/ATI] Navi 31 "
                                "[Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M]")


def test_lspci_cloud_vm_3d_controller_and_emulated_vga():
    adapters = parse_lspci(recorded("linux/lspci-nn_cloud_a100.txt"))
    assert [(a.vendor, a.pci_id) for a in adapters] == [("other", "1013:00b8"), ("nvidia", "10de:20b0")]
    assert adapters[1].name == "NVIDIA Corporation GA100 [A100 SXM4 40GB]"


def test_lspci_wsl2_render_driver_is_other():
    adapters = parse_lspci(recorded("linux/lspci-nn_wsl2.txt"))
    assert [a.vendor for a in adapters] == ["other", "other"]
    assert adapters[0].name == "Microsoft Corporation Basic Render Driver"


def test_no_sysfs_and_no_lspci_is_empty():
    assert list_display_adapters(RecordedHost(os_name="linux")) == []


def test_pci_ids_names_ignores_subsystem_lines_and_class_section():
    text = recorded("linux/pci.ids_excerpt")
    names = pci_ids_names(text, [("10de", "2684"), ("10de", "165b"), ("8086", "9999")])
    assert names == {("10de", "2684"): "NVIDIA Corporation AD102 [GeForce RTX 4090]"}


# ------------------------------------------------------------------------------- macOS


def test_system_profiler_apple_m2():
    adapters = parse_system_profiler_displays(recorded("macos/system_profiler_displays_m2.json"))
    assert adapters == [DisplayAdapter("apple", "Apple M2", None, "system_profiler")]


def test_system_profiler_intel_mac_with_amd():
    adapters = parse_system_profiler_displays(recorded("macos/system_profiler_displays_intel_amd.json"))
    assert adapters == [
        DisplayAdapter("intel", "Intel UHD Graphics 630", "8086:3e9b", "system_profiler"),
        DisplayAdapter("amd", "AMD Radeon Pro 5500M", "1002:7340", "system_profiler"),
    ]


def test_macos_host_runs_system_profiler():
    host = RecordedHost(os_name="macos", commands={
        "system_profiler SPDisplaysDataType -json": ok(recorded("macos/system_profiler_displays_m2.json"))})
    assert [a.vendor for a in list_display_adapters(host)] == ["apple"]
    assert host.calls == [["system_profiler", "SPDisplaysDataType", "-json"]]


# ---------------------------------------------------------------------------- RealHost


def test_real_host_lists_adapters_without_error():
    adapters = list_display_adapters(RealHost())
    assert isinstance(adapters, list)
    for adapter in adapters:
        assert adapter.vendor in ("nvidia", "amd", "intel", "apple", "other")
        assert adapter.source in ("sysfs", "lspci", "cim", "system_profiler")
