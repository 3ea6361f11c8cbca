"""What the recommender is asked: the machine's facts and the student's wishes.

Why a module of its own: both faces build these two from different places (detection, a
recorded machine, ``recommend --os windows --gpu 8.6`` typed in, a course's pinned version) and
the rules, the ranking and the advice all read them; normalising here (``AMD64`` → ``x86_64``,
"3.11.4" → "3.11", "86" → "8.6") means no rule has to.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from wizard.core.recommend.compat_model import parse_cc


def _norm_arch(os_name: str, arch: str | None) -> str:
    a = (arch or "x86_64").strip().lower()
    if a in ("amd64", "x64", "x86-64", "em64t"):
        a = "x86_64"
    if a in ("arm64", "aarch64", "armv8", "arm64e"):
        a = "arm64" if os_name in ("macos", "windows") else "aarch64"
    return a


def _norm_python(text: str) -> str:
    parts = str(text).strip().split(".")
    if len(parts) < 2 or not parts[0].isdigit():
        raise ValueError(f"not a Python version: {text!r}")
    minor = "".join(ch for ch in parts[1] if ch.isdigit())
    return f"{int(parts[0])}.{int(minor)}"


@dataclass
class MachineFacts:
    """What the recommender needs to know about the machine (from detection, or typed in).

    ``cuda_driver`` is the highest CUDA the driver supports ("12.8", NVML/nvidia-smi). ``gpu_ccs``
    are the NVIDIA GPUs' compute capabilities and ``gpu_names`` their names in the same order.
    ``non_nvidia`` lists other GPU vendors ("amd", "intel", "apple"); ``other_gpu_names`` their
    adapter names (to tell Intel Arc from older Intel graphics) and ``amd_gfx`` AMD gfx targets
    when known. ``nvidia_without_driver``: an NVIDIA adapter is present but no driver answers.
    """

    os: str  # "windows" | "linux" | "macos"
    arch: str  # "x86_64" | "arm64" | "aarch64"
    python: str  # "3.11"
    driver_version: str | None = None
    cuda_driver: str | None = None
    gpu_ccs: list[str] = field(default_factory=list)
    is_wsl: bool = False
    non_nvidia: list[str] = field(default_factory=list)
    gpu_names: list[str] = field(default_factory=list)
    other_gpu_names: list[str] = field(default_factory=list)
    amd_gfx: list[str] = field(default_factory=list)
    nvidia_without_driver: bool = False
    cc_unknown: bool = False  # an NVIDIA GPU whose compute capability could not be read
    cc_unknown_names: list[str] = field(default_factory=list)  # those GPUs' names (nvidia-smi -q gives none)
    distro_id: str | None = None  # os-release ID ("ubuntu"), for the driver commands
    os_version: str | None = None  # macOS version, for torch >= 2.12 (macOS 14+)
    jetson_l4t: str | None = None  # an NVIDIA Jetson's L4T release ("36.4.3"), see recommend/jetson.py
    jetson_model: str | None = None  # its device-tree model ("" when a Jetson of unknown model)

    def __post_init__(self) -> None:
        self.os = self.os.strip().lower()
        if self.os not in ("windows", "linux", "macos"):
            raise ValueError(f"os must be windows, linux or macos, not {self.os!r}")
        self.arch = _norm_arch(self.os, self.arch)
        self.python = _norm_python(self.python)
        self.gpu_ccs = [f"{c[0]}.{c[1]}" for c in (parse_cc(x) for x in self.gpu_ccs)]
        self.non_nvidia = sorted({v.strip().lower() for v in self.non_nvidia if v})
        self.amd_gfx = [g.strip().lower() for g in self.amd_gfx if g]

    # --- derived -------------------------------------------------------------------------------
    @property
    def platform(self) -> str:
        return f"{self.os}-{self.arch}"

    @property
    def driver_os(self) -> str:
        """Which driver table applies: on WSL the driver is the Windows one."""
        return "windows" if self.os == "windows" or self.is_wsl else "linux"

    @property
    def has_nvidia(self) -> bool:
        return bool(self.gpu_ccs or self.driver_version or self.cuda_driver or self.nvidia_without_driver
                    or self.gpu_names or self.cc_unknown)

    @property
    def is_jetson(self) -> bool:
        """An NVIDIA Jetson: detected as one (L4T or model), or typed in as Linux on aarch64 with
        the compute capability only Jetson's integrated GPUs have (5.3 Nano/TX1, 6.2 TX2, 7.2
        Xavier, 8.7 Orin: resources/jetson.json)."""
        if self.jetson_l4t is not None or self.jetson_model is not None:
            return True
        if self.os != "linux" or self.arch != "aarch64" or self.is_wsl:
            return False
        from wizard.core.base.resources import load_json

        integrated = set(load_json("jetson.json")["detection"]["integrated_ccs"])
        return any(cc in integrated for cc in self.gpu_ccs)

    def ccs(self) -> list[tuple[int, int]]:
        return sorted({parse_cc(c) for c in self.gpu_ccs})

    def gpu_label(self, cc: tuple[int, int]) -> str:
        """The GPU's name for messages ('NVIDIA GeForce GTX 1060'), or 'NVIDIA'."""
        for text, name in zip(self.gpu_ccs, self.gpu_names):
            if parse_cc(text) == cc and name:
                return name
        return "NVIDIA"

    # --- construction --------------------------------------------------------------------------
    @classmethod
    def from_detection(cls, detection: Any, python_version: str) -> "MachineFacts":
        """Facts from :class:`wizard.core.machine.models.Detection` and the chosen interpreter's version."""
        system = detection.system
        nvidia = detection.nvidia
        ccs: list[str] = []
        names: list[str] = []
        cc_unknown = False
        unknown_names: list[str] = []
        for gpu in nvidia.gpus:
            if gpu.compute_capability:
                ccs.append(gpu.compute_capability)
                names.append(gpu.name or "")
            else:
                cc_unknown = True
                unknown_names.append(gpu.name or "")
        adapters = list(getattr(system, "display_adapters", []) or [])
        others = [a for a in adapters if a.vendor in ("amd", "intel", "apple")]
        nvidia_adapter = any(a.vendor == "nvidia" for a in adapters)
        return cls(
            os=system.os, arch=system.arch or "x86_64", python=python_version,
            driver_version=nvidia.driver_version, cuda_driver=nvidia.cuda_version, gpu_ccs=ccs,
            is_wsl=bool(system.is_wsl), non_nvidia=[a.vendor for a in others], gpu_names=names,
            other_gpu_names=[a.name for a in others if a.name], cc_unknown=cc_unknown,
            cc_unknown_names=unknown_names,
            nvidia_without_driver=nvidia_adapter and not nvidia.driver_version and not nvidia.gpus,
            distro_id=system.distro_id, os_version=system.os_version if system.os == "macos" else None,
            jetson_l4t=getattr(system, "jetson_l4t", None), jetson_model=getattr(system, "jetson_model", None),
        )

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Wishes:
    """What the student (or the course) asks for. ``torch`` pins '2.1' or '2.1.2'.

    ``newest``: rank purely by newest torch then newest CUDA, ignoring whether the data is
    confirmed and whether the driver meets the toolkit bar. ``index_url``: a mirror of the
    PyTorch indexes (a base such as ``https://mirror/whl``, a template with ``{variant}``, or a
    full variant URL whose last segment is swapped); ``pypi_index_url``: a PyPI mirror for builds
    that come from PyPI (macOS).
    """

    torch: str | None = None
    newest: bool = False
    cpu_only: bool = False
    variant: str | None = None
    index_url: str | None = None
    pypi_index_url: str | None = None
    tensorflow: bool = False  # the course (or the student) wants TensorFlow too: say how it gets the GPU
