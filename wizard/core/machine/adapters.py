"""Every graphics adapter the OS can see, NVIDIA or not.

Why this exists next to NVML/nvidia-smi: when the NVIDIA driver is missing, NVML and
nvidia-smi see nothing, but the OS still lists the card (on Windows as "Microsoft Basic
Display Adapter" with an NVIDIA PCI id). That difference is what tells "no NVIDIA GPU" from
"an NVIDIA GPU without a driver". Laptops also show the integrated Intel/AMD GPU here.

Sources: Linux sysfs (``/sys/bus/pci/devices/*/class`` 0x03xxxx) with names from pci.ids,
else ``lspci -nn``; Windows CIM (``Win32_VideoController``) through PowerShell; macOS
``system_profiler SPDisplaysDataType -json``.

Vendor rule: a PCI vendor id, when known, decides (it names the hardware even when the
driver does not); only without one does the name decide.
"""

from __future__ import annotations

import json
import re
from typing import Any

from wizard.core.base.host import Host
from wizard.core.machine.models import DisplayAdapter

VENDOR_NVIDIA = "nvidia"
VENDOR_AMD = "amd"
VENDOR_INTEL = "intel"
VENDOR_APPLE = "apple"
VENDOR_OTHER = "other"

PCI_VENDORS = {
    "10de": VENDOR_NVIDIA,
    "1002": VENDOR_AMD,  # ATI / AMD Radeon
    "1022": VENDOR_AMD,
    "8086": VENDOR_INTEL,
    "106b": VENDOR_APPLE,
}

SYSFS_PCI = "/sys/bus/pci/devices"
PCI_IDS_FILES = ("/usr/share/hwdata/pci.ids", "/usr/share/misc/pci.ids", "/usr/share/pci.ids")

CIM_COMMAND = [
    "powershell", "-NoProfile", "-Command",
    "Get-CimInstance Win32_VideoController | Select-Object Name,AdapterCompatibility,PNPDeviceID"
    " | ConvertTo-Json",
]
CIM_TIMEOUT = 30.0  # PowerShell's first start on a cold laptop takes seconds
LSPCI_TIMEOUT = 10.0
PROFILER_TIMEOUT = 30.0

# Software and virtual adapters: never a GPU to compute on.
_VIRTUAL_MARKERS = (
    "microsoft basic", "microsoft remote", "basic render", "vmware", "virtualbox", "llvmpipe",
    "softpipe", "parsec", "citrix", "qxl", "virtio", "hyper-v", "cirrus", "bochs", "aspeed",
    "matrox",
)
_NAME_VENDORS = (
    (VENDOR_NVIDIA, ("nvidia", "geforce", "quadro", "tesla")),
    (VENDOR_AMD, ("advanced micro devices", "amd", "radeon", "ati technologies")),
    (VENDOR_INTEL, ("intel",)),
    (VENDOR_APPLE, ("apple",)),
)


def classify_vendor(name: str | None = None, pci_vendor: str | None = None,
                    compatibility: str | None = None) -> str:
    """nvidia / amd / intel / apple / other, from a PCI vendor id, else from the names."""
    if pci_vendor:
        vendor = PCI_VENDORS.get(pci_vendor.lower().removeprefix("0x"))
        return vendor or VENDOR_OTHER
    text = " ".join(t for t in (name, compatibility) if t).lower()
    if not text or any(marker in text for marker in _VIRTUAL_MARKERS):
        return VENDOR_OTHER
    for vendor, words in _NAME_VENDORS:
        if any(re.search(r"\b" + re.escape(word) + r"\b", text) for word in words):
            return vendor
    return VENDOR_OTHER


def list_display_adapters(host: Host) -> list[DisplayAdapter]:
    """All display-class adapters, in the order the OS lists them; [] when none can be read."""
    if host.os_name == "windows":
        res = host.run(CIM_COMMAND, timeout=CIM_TIMEOUT)
        return parse_cim_video_controllers(res.stdout) if res.ok else []
    if host.os_name == "macos":
        res = host.run(["system_profiler", "SPDisplaysDataType", "-json"], timeout=PROFILER_TIMEOUT)
        return parse_system_profiler_displays(res.stdout) if res.ok else []
    adapters = _sysfs_adapters(host)
    if adapters is not None:
        return adapters
    res = host.run(["lspci", "-nn"], timeout=LSPCI_TIMEOUT)
    return parse_lspci(res.stdout) if res.ok else []


# ---------------------------------------------------------------------------- Linux


def _sysfs_adapters(host: Host) -> list[DisplayAdapter] | None:
    """Display-class PCI devices from sysfs; None when sysfs cannot be read at all."""
    slots = host.listdir(SYSFS_PCI)
    if not slots:
        return None
    found: list[tuple[str, str]] = []
    for slot in slots:
        cls = (host.read_text(f"{SYSFS_PCI}/{slot}/class") or "").strip().lower()
        if not cls.startswith("0x03"):
            continue
        vendor = (host.read_text(f"{SYSFS_PCI}/{slot}/vendor") or "").strip().lower().removeprefix("0x")
        device = (host.read_text(f"{SYSFS_PCI}/{slot}/device") or "").strip().lower().removeprefix("0x")
        found.append((vendor, device))
    if not found:
        return []
    ids_text = next((t for t in (host.read_text(p) for p in PCI_IDS_FILES) if t), None)
    names = pci_ids_names(ids_text, found) if ids_text else {}
    adapters = []
    for vendor, device in found:
        pci_id = f"{vendor}:{device}" if vendor and device else None
        adapters.append(DisplayAdapter(vendor=classify_vendor(pci_vendor=vendor or None),
                                       name=names.get((vendor, device)), pci_id=pci_id, source="sysfs"))
    return adapters


def pci_ids_names(text: str, wanted: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """Names for (vendor, device) ids from a pci.ids file, as lspci prints them.

    pci.ids lists ``vvvv  Vendor name`` with its devices below as ``<TAB>dddd  Device name``;
    the result reads "NVIDIA Corporation AD102 [GeForce RTX 4090]".
    """
    want = {(v.lower(), d.lower()) for v, d in wanted}
    vendors = {v for v, _ in want}
    names: dict[tuple[str, str], str] = {}
    vendor_id = vendor_name = None
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        if line.startswith("C "):
            break  # the device-class section at the end of the file
        if not line.startswith("\t"):
            vendor_id, _, vendor_name = line.partition("  ")
            vendor_id = vendor_id.strip().lower()
            continue
        if vendor_id not in vendors or line.startswith("\t\t"):
            continue
        device_id, _, device_name = line[1:].partition("  ")
        key = (vendor_id, device_id.strip().lower())
        if key in want:
            names[key] = f"{(vendor_name or '').strip()} {device_name.strip()}".strip()
    return names


_LSPCI_LINE = re.compile(
    r"^(?P<slot>\S+)\s+(?P<cls>.+?)\s+\[(?P<code>[0-9a-fA-F]{4})\]:\s+(?P<name>.*?)\s+"
    r"\[(?P<ven>[0-9a-fA-F]{4}):(?P<dev>[0-9a-fA-F]{4})\](?:\s+\(rev\s+[0-9a-fA-F]+\))?"
    r"(?:\s+\(prog-if.*\))?\s*$"
)


def parse_lspci(text: str) -> list[DisplayAdapter]:
    """Display-class (03xx) devices from ``lspci -nn`` output."""
    adapters = []
    for line in (text or "").splitlines():
        match = _LSPCI_LINE.match(line.strip())
        if not match or not match.group("code").startswith("03"):
            continue
        vendor, device = match.group("ven").lower(), match.group("dev").lower()
        adapters.append(DisplayAdapter(vendor=classify_vendor(pci_vendor=vendor), name=match.group("name"),
                                       pci_id=f"{vendor}:{device}", source="lspci"))
    return adapters


# -------------------------------------------------------------------------- Windows

_PNP_PCI = re.compile(r"^PCI\\VEN_([0-9A-Fa-f]{4})&DEV_([0-9A-Fa-f]{4})", re.IGNORECASE)


def parse_cim_video_controllers(text: str) -> list[DisplayAdapter]:
    """``Win32_VideoController`` as PowerShell's ConvertTo-Json writes it.

    One adapter comes out as a bare object, several as a list. PNPDeviceID
    ``PCI\\VEN_10DE&DEV_2684&...`` gives pci_id "10de:2684"; software adapters (Remote
    Display, Parsec) have no PCI id.
    """
    data = _loads(text)
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        return []
    adapters = []
    for item in data:
        if not isinstance(item, dict):
            continue
        name = _str(item.get("Name"))
        compat = _str(item.get("AdapterCompatibility"))
        match = _PNP_PCI.match(_str(item.get("PNPDeviceID")) or "")
        pci_vendor = match.group(1).lower() if match else None
        pci_id = f"{match.group(1)}:{match.group(2)}".lower() if match else None
        adapters.append(DisplayAdapter(vendor=classify_vendor(name, pci_vendor, compat), name=name,
                                       pci_id=pci_id, source="cim"))
    return adapters


# ---------------------------------------------------------------------------- macOS


def parse_system_profiler_displays(text: str) -> list[DisplayAdapter]:
    """``system_profiler SPDisplaysDataType -json``: Apple M-series, or Intel/AMD on Intel Macs."""
    data = _loads(text)
    items = data.get("SPDisplaysDataType") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return []
    adapters = []
    for item in items:
        if not isinstance(item, dict):
            continue
        name = _str(item.get("sppci_model")) or _str(item.get("_name"))
        vendor_id = (_str(item.get("spdisplays_vendor-id")) or "").lower().removeprefix("0x") or None
        device_id = (_str(item.get("spdisplays_device-id")) or "").lower().removeprefix("0x") or None
        vendor_text = (_str(item.get("spdisplays_vendor")) or "").lower().replace("sppci_vendor_", "")
        if vendor_id:
            vendor = classify_vendor(pci_vendor=vendor_id)
        else:
            vendor = classify_vendor(f"{vendor_text} {name or ''}")
        pci_id = f"{vendor_id}:{device_id}" if vendor_id and device_id else None
        adapters.append(DisplayAdapter(vendor=vendor, name=name, pci_id=pci_id, source="system_profiler"))
    return adapters


def _loads(text: str) -> Any:
    text = (text or "").strip().lstrip("\ufeff")
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _str(value: Any) -> str | None:
    if value is None:
        return None
    value = str(value).strip()
    return value or None


__all__ = [
    "CIM_COMMAND",
    "PCI_VENDORS",
    "classify_vendor",
    "list_display_adapters",
    "parse_cim_video_controllers",
    "parse_lspci",
    "parse_system_profiler_displays",
    "pci_ids_names",
]
