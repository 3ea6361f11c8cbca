"""Is this an NVIDIA Jetson board (Linux for Tegra), and which L4T / JetPack does it run?

Why it matters: a Jetson is an aarch64 Linux machine with an NVIDIA GPU, so without this the
wizard takes it for an ARM server -- it offers download.pytorch.org's server-ARM wheels (which do
not run on the board's integrated GPU) and a desktop driver package, which would replace the
driver the board boots with. Its driver, kernel and CUDA come with the L4T image.

Four signs, read through the :class:`~wizard.core.base.host.Host` (the tests feed real captured
texts; ``resources/jetson.json`` cites them): ``/etc/nv_tegra_release`` (first line
``# R36 (release), REVISION: 4.3, ...``), the ``nvidia-l4t-core`` package's version
(``36.4.4-20250616085344``; containers and some images lack the release file), the device-tree
model (``NVIDIA Jetson Orin Nano Developer Kit``) and ``tegra`` in the kernel release
(``5.15.148-tegra``). Either version source makes it a Jetson with a known L4T; a model naming
Jetson or a tegra kernel alone makes it a Jetson of unknown L4T.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from wizard.core.base.host import Host
from wizard.core.base.resources import load_json

RELEASE_FILE = "/etc/nv_tegra_release"
MODEL_FILE = "/proc/device-tree/model"
CORE_PACKAGE = "nvidia-l4t-core"
DPKG_TIMEOUT = 10.0

_RELEASE = re.compile(r"#\s*R(\d+)\s*\(release\),\s*REVISION:\s*(\d+(?:\.\d+)*)", re.IGNORECASE)
_PACKAGE_VERSION = re.compile(r"^(\d+)\.(\d+)(?:\.(\d+))?")


@dataclass(frozen=True)
class JetsonInfo:
    """What the board says about itself. ``l4t`` is "36.4.3" (None when no version source was
    readable); ``model`` the device-tree model; ``source`` which sign made it a Jetson."""

    l4t: str | None
    model: str | None
    source: str  # "nv_tegra_release" | "nvidia-l4t-core" | "device-tree" | "kernel"

    @property
    def l4t_major(self) -> int | None:
        return int(self.l4t.split(".")[0]) if self.l4t else None


def jetpack_of(l4t: str | None) -> str | None:
    """'36.4.3' -> '6.2' (resources/jetson.json); a release the table lacks is named by its major
    ('36.9.0' -> '6'); None when unknown."""
    if not l4t:
        return None
    table = load_json("jetson.json")["jetpack"]
    if l4t in table["releases"]:
        return str(table["releases"][l4t])
    major = table["majors"].get(l4t.split(".")[0])
    return str(major) if major else None


# Detection findings whose fix is a driver reinstall or an NVML repair: on a Jetson the driver is the
# L4T image's and there is no NVML, so they would only give dangerous advice (jetson_board_findings).
DRIVER_FIX_FINDINGS = frozenset({
    "no-nvidia-driver", "nvidia-error", "nvml-library-not-found", "nvidia-smi-missing", "nvml-crashed",
    "driver-predates-gpu", "nvml-smi-disagree",
})


def jetson_board_findings(findings: list[Any], system: Any) -> list[Any]:
    """On a Jetson (``system.jetson_l4t``/``jetson_model`` set by detection): the driver findings
    step aside for one that says whose driver it is. Elsewhere ``findings`` unchanged."""
    if getattr(system, "jetson_l4t", None) is None and getattr(system, "jetson_model", None) is None:
        return findings
    from wizard.core.machine.models import Finding

    l4t = system.jetson_l4t
    board = Finding("jetson-board", "info", {"model": system.jetson_model or "NVIDIA Jetson", "l4t": l4t or "?",
                                              "jetpack": jetpack_of(l4t) or "?"},
                    f"L4T {l4t or '?'}" + (f", {system.jetson_model}" if system.jetson_model else ""))
    return [board] + [f for f in findings if f.id not in DRIVER_FIX_FINDINGS]


def parse_nv_tegra_release(text: str | None) -> str | None:
    """'# R32 (release), REVISION: 7.6, GCID: ...' -> '32.7.6'; None when the text is not one."""
    if not text:
        return None
    m = _RELEASE.search(text)
    if m is None:
        return None
    parts = [m.group(1), *m.group(2).split(".")]
    while len(parts) < 3:
        parts.append("0")
    return ".".join(str(int(p)) for p in parts[:3])


def parse_l4t_core_version(text: str | None) -> str | None:
    """dpkg's version of nvidia-l4t-core ('36.4.4-20250616085344') -> '36.4.4'."""
    m = _PACKAGE_VERSION.match((text or "").strip())
    if m is None:
        return None
    return f"{int(m.group(1))}.{int(m.group(2))}.{int(m.group(3) or 0)}"


def clean_model(text: str | None) -> str | None:
    """The device-tree model without its trailing NUL ('NVIDIA Jetson AGX Orin Developer Kit')."""
    model = (text or "").replace("\x00", "").strip()
    return model or None


def is_tegra_kernel(release: str | None) -> bool:
    """'4.9.337-tegra', '5.15.148-tegra', '5.15.136-l4t-r36.3-1009.9+g46cdb595bebc'."""
    low = (release or "").lower()
    return "tegra" in low or "-l4t-" in low


def detect_jetson(host: Host, kernel_release: str | None = None) -> JetsonInfo | None:
    """The board's L4T and model, or None when this is not a Jetson (or not Linux on aarch64)."""
    if host.os_name != "linux":
        return None
    facts: dict[str, Any] = host.platform_facts() or {}
    machine = str(facts.get("machine") or "").lower()
    if machine and machine not in ("aarch64", "arm64"):
        return None
    model = clean_model(host.read_text(MODEL_FILE))
    l4t = parse_nv_tegra_release(host.read_text(RELEASE_FILE))
    if l4t is not None:
        return JetsonInfo(l4t, model, "nv_tegra_release")
    res = host.run(["dpkg-query", "--showformat=${Version}", "--show", CORE_PACKAGE], timeout=DPKG_TIMEOUT)
    l4t = parse_l4t_core_version(res.stdout) if res.ok else None
    if l4t is not None:
        return JetsonInfo(l4t, model, CORE_PACKAGE)
    if model and "jetson" in model.lower():
        return JetsonInfo(None, model, "device-tree")
    kernel = kernel_release or str(facts.get("release") or "") or (host.read_text("/proc/sys/kernel/osrelease") or "")
    if is_tegra_kernel(kernel.strip()):
        return JetsonInfo(None, model, "kernel")
    return None
