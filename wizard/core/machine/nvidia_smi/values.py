"""Small value readers shared by the nvidia-smi parsers (CSV, XML, ``-q`` text, table).

Why a module of its own: every nvidia-smi output spells "no value" differently (``N/A``,
``[N/A]``, ``[Not Supported]``, ``Requested functionality has been deprecated``, ``ERR!``,
``Not available in WDDM driver model``) and puts units on numbers (``8192 MiB``,
``38.92 W``, ``16x``). Reading them in one place keeps the four parsers consistent, and
keeps "not reported" as ``None`` rather than a crash or a made-up zero.

Nothing here raises on any ``str``: a value that cannot be read is ``None``.
"""

from __future__ import annotations

import math
import re
from typing import Any

from wizard.core.machine.models import GpuInfo

# Values that mean "nvidia-smi has no answer" when they are the whole value (compared
# case-insensitively, after stripping). Anything in square brackets is also "no value":
# the CSV output brackets every special value ([N/A], [Not Supported], [Unknown Error],
# [Insufficient Permissions], [GPU is lost], [Requested functionality has been deprecated]).
_NA_VALUES = frozenset({
    "", "n/a", "na", "none", "-", "err!", "unknown", "unknown error", "not supported",
    "not available", "not available in wddm driver model", "insufficient permissions",
    "requested functionality has been deprecated", "gpu is lost", "gpu requires reset",
    "no data", "not found",
})

_NUMBER = re.compile(r"^\s*([-+]?\d+(?:\.\d+)?)")
_MEMORY = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]i?B)?\s*$", re.IGNORECASE)
_MEMORY_FACTOR = {"k": 1 / 1024, "m": 1.0, "g": 1024.0, "t": 1024.0 * 1024.0}
_BUS_ID = re.compile(r"^\s*(?:([0-9A-Fa-f]{1,8}):)?([0-9A-Fa-f]{1,2}):([0-9A-Fa-f]{1,2})\.([0-7])\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def clean(value: Any) -> str | None:
    """The value as a stripped string, or ``None`` when nvidia-smi says it has none."""
    if value is None:
        return None
    text = str(value).strip()
    if text.startswith("[") and text.endswith("]"):
        return None
    if text.lower() in _NA_VALUES:
        return None
    return text


def parse_float(value: Any) -> float | None:
    """The leading number of ``value`` (``"38.92 W"`` → 38.92, ``"16x"`` → 16.0).

    ``None`` for any "no value" marker, for text without a leading number, and for
    numbers too large to be finite.
    """
    text = clean(value)
    if text is None:
        return None
    match = _NUMBER.match(text)
    if not match:
        return None
    number = float(match.group(1))
    return number if math.isfinite(number) else None


def parse_int(value: Any) -> int | None:
    """An integer reading (``"3"`` → 3, ``"16x"`` → 16); ``None`` when not a whole number."""
    number = parse_float(value)
    if number is None or number != int(number):
        return None
    return int(number)


def parse_mib(value: Any) -> float | None:
    """Memory in MiB: ``"8192 MiB"``, ``"8192MiB"``, ``"8192"`` (``nounits``), ``"8 GiB"``.

    nvidia-smi writes MiB everywhere; a bare number is MiB (``--format=...,nounits``).
    Old outputs wrote ``MB`` meaning MiB, so ``MB`` is read as MiB too.
    """
    text = clean(value)
    if text is None:
        return None
    match = _MEMORY.match(text)
    if not match:
        return None
    number = float(match.group(1))
    unit = (match.group(2) or "MiB")[0].lower()
    result = number * _MEMORY_FACTOR[unit]
    return result if math.isfinite(result) else None


def normalise_cc(value: Any) -> str | None:
    """A compute capability as ``"major.minor"``: ``"8.6"``, ``"sm_86"``, ``"86"``, ``(8, 6)``.

    Wheel selection compares these strings, so every source must spell them the same way.
    ``None`` when the value is missing or not a compute capability.
    """
    if isinstance(value, (tuple, list)) and len(value) == 2:
        major, minor = parse_int(value[0]), parse_int(value[1])
        if major is None or minor is None or not (0 < major < 100 and 0 <= minor < 10):
            return None
        return f"{major}.{minor}"
    text = clean(value)
    if text is None:
        return None
    text = text.lower().removeprefix("sm_").removeprefix("compute_").strip()
    match = re.fullmatch(r"(\d{1,2})\.(\d)", text) or re.fullmatch(r"(\d{1,2})(\d)", text)
    if not match:
        return None
    major, minor = int(match.group(1)), int(match.group(2))
    return f"{major}.{minor}" if major > 0 else None


def cuda_version_from_int(value: Any) -> str | None:
    """NVML's CUDA driver version integer (``1000*major + 10*minor``) as ``"12.8"``.

    ``12080`` → ``"12.8"``, ``11040`` → ``"11.4"``; zero, negatives and non-numbers → None.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        number = parse_int(value)
    elif isinstance(value, (int, float)) and math.isfinite(value) and value == int(value):
        number = int(value)
    else:
        return None
    if number is None or number <= 0:
        return None
    return f"{number // 1000}.{(number % 1000) // 10}"


def normalise_bus_id(value: Any) -> str | None:
    """A PCI bus id as NVML spells it: ``"00000000:0C:00.0"`` (8-digit domain, upper case).

    nvidia-smi writes ``00000000:0C:00.0`` today and wrote ``0000:03:00.0`` in old tables;
    merging sources by bus id needs one spelling.
    """
    text = clean(value)
    if text is None:
        return None
    match = _BUS_ID.match(text)
    if not match:
        return None
    domain, bus, device, function = match.groups()
    return f"{int(domain or '0', 16):08X}:{int(bus, 16):02X}:{int(device, 16):02X}.{function}"


def name_is_truncated(name: str | None) -> bool:
    """True when a GPU name was cut short by the default table (``NVIDIA GeForce RTX 2080 ...``)."""
    return bool(name) and name.rstrip().endswith("...")  # type: ignore[union-attr]


def normalise_text(text: str) -> str:
    """What a student pastes, made parseable: no BOM, ``\\n`` line ends, no Markdown fences.

    Tabs are expanded (4 columns, the ``-q`` indent step) so indentation still nests.
    """
    text = text.replace("\ufeff", "").replace("\r\n", "\n").replace("\r", "\n")
    lines = [line.expandtabs(4).rstrip() for line in text.split("\n")]
    return "\n".join(line for line in lines if not _FENCE.match(line))


def put(gpu: GpuInfo, field: str, value: Any, source: str) -> None:
    """Set ``gpu.<field>`` and record its source; ``None`` and empty lists are not set."""
    if value is None or (isinstance(value, list) and not value):
        return
    setattr(gpu, field, value)
    gpu.sources[field] = source


def on_off(value: Any) -> str | None:
    """The table's ``On``/``Off`` as the ``Enabled``/``Disabled`` that CSV and XML write."""
    text = clean(value)
    if text is None:
        return None
    return {"on": "Enabled", "off": "Disabled"}.get(text.lower(), text)
