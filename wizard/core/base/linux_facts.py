"""CPU and RAM counts read straight from Linux's /proc and /sys, where they are plain files.

Why not psutil here: importing psutil costs 12-15 ms (its platform module, socket, datetime,
named tuples), more than half of what ``doctor --json`` may spend beyond the interpreter's own
start (issue 17), and on Linux the four numbers the wizard needs are two small files away. The
files read are the ones psutil reads, the same way (``MemTotal``/``MemAvailable``; the distinct
``core_cpus_list`` or, on older kernels, ``thread_siblings_list`` of each CPU), and
tests/unit/test_linux_facts.py checks the answers against psutil's on the machine that runs it.
Anything unusual (no ``MemAvailable`` before Linux 3.14, no topology in some containers, an
unreadable file) returns None and :class:`~wizard.core.base.host.RealHost` asks psutil, which
has a fallback for each of those cases; every other system always asks psutil.
"""

from __future__ import annotations

import os
from typing import TypedDict


class MachineResources(TypedDict, total=False):
    """What :meth:`~wizard.core.base.host.Host.resources` counts: logical and physical CPUs (None
    when unknown), and the total and available memory in bytes; a key a host could not read is
    missing."""

    cpu_logical: int | None
    cpu_physical: int | None
    ram_total: int
    ram_available: int

SYS_CPU = "/sys/devices/system/cpu"
MEMINFO = "/proc/meminfo"


def meminfo(path: str = MEMINFO) -> tuple[int, int] | None:
    """(total, available) bytes from /proc/meminfo; None without both lines."""
    found: dict[str, int] = {}
    try:
        with open(path, "rb") as fh:
            for line in fh:
                name, _, rest = line.partition(b":")
                if name in (b"MemTotal", b"MemAvailable"):
                    found[name.decode()] = int(rest.split()[0]) * 1024  # the file counts kB
    except (OSError, ValueError, IndexError):
        return None
    if "MemTotal" not in found or "MemAvailable" not in found:
        return None
    return found["MemTotal"], found["MemAvailable"]


def physical_cores(root: str = SYS_CPU) -> int | None:
    """Distinct cores: one sibling list per core, whichever file name this kernel has."""
    try:
        cpus = [name for name in os.listdir(root) if name.startswith("cpu") and name[3:].isdigit()]
    except OSError:
        return None
    for leaf in ("core_cpus_list", "thread_siblings_list"):
        lists = set()
        for cpu in cpus:
            try:
                with open(os.path.join(root, cpu, "topology", leaf), "rb") as fh:
                    lists.add(fh.read().strip())
            except OSError:
                continue
        if lists:
            return len(lists)
    return None


def resources() -> MachineResources | None:
    """``cpu_logical``, ``cpu_physical``, ``ram_total``, ``ram_available``; None if any is unknown."""
    memory = meminfo()
    cores = physical_cores()
    logical = os.cpu_count()
    if memory is None or cores is None or not logical:
        return None
    return {"cpu_logical": logical, "cpu_physical": cores, "ram_total": memory[0], "ram_available": memory[1]}
