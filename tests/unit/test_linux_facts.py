"""The /proc and /sys reader gives psutil's answers, and steps aside wherever psutil knows better."""

from __future__ import annotations

import sys
from pathlib import Path

import psutil
import pytest

from wizard.core.base import linux_facts
from wizard.core.base.host import RealHost

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads Linux's /proc and /sys")


@linux_only
def test_the_same_numbers_as_psutil_on_this_machine():
    facts = linux_facts.resources()
    assert facts is not None
    vm = psutil.virtual_memory()
    assert facts["cpu_logical"] == psutil.cpu_count(logical=True)
    assert facts["cpu_physical"] == psutil.cpu_count(logical=False)
    assert facts["ram_total"] == vm.total
    # available memory moves between the two reads; psutil reads the same MemAvailable line
    assert abs(facts["ram_available"] - psutil.virtual_memory().available) < 256 * 2**20


@linux_only
def test_real_host_answers_without_importing_psutil():
    """What doctor pays for: a fresh interpreter asks for the resources and psutil stays unloaded."""
    import subprocess

    code = ("import sys; from wizard.core.base.host import RealHost; r = RealHost().resources(); "
            "print(sorted(r), 'psutil' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[2]).stdout
    assert out.strip() == "['cpu_logical', 'cpu_physical', 'ram_available', 'ram_total'] False"


def test_meminfo_without_available_memory_is_left_to_psutil(tmp_path):
    """Linux before 3.14 has no MemAvailable line; psutil estimates it, so the reader says None."""
    old = tmp_path / "meminfo"
    old.write_text("MemTotal:        8056216 kB\nMemFree:          123456 kB\nBuffers:           1000 kB\n")
    assert linux_facts.meminfo(str(old)) is None
    new = tmp_path / "meminfo2"
    new.write_text("MemTotal:       16303428 kB\nMemFree:         1000000 kB\nMemAvailable:    9000000 kB\n")
    assert linux_facts.meminfo(str(new)) == (16303428 * 1024, 9000000 * 1024)
    assert linux_facts.meminfo(str(tmp_path / "missing")) is None


def _cpu(root: Path, n: int, leaf: str, siblings: str) -> None:
    topo = root / f"cpu{n}" / "topology"
    topo.mkdir(parents=True)
    (topo / leaf).write_text(siblings + "\n")


@pytest.mark.parametrize("leaf", ["core_cpus_list", "thread_siblings_list"])
def test_cores_are_the_distinct_sibling_lists(tmp_path, leaf):
    """Four logical CPUs, two cores with two threads each (a 2-core hyper-threaded laptop)."""
    for n, siblings in enumerate(["0,2", "1,3", "0,2", "1,3"]):
        _cpu(tmp_path, n, leaf, siblings)
    (tmp_path / "cpufreq").mkdir()  # not a CPU
    (tmp_path / "cpuidle").mkdir()
    assert linux_facts.physical_cores(str(tmp_path)) == 2


def test_no_topology_is_left_to_psutil(tmp_path):
    """Some containers show /sys/devices/system/cpu without topology: psutil then reads cpuinfo."""
    for n in range(2):
        (tmp_path / f"cpu{n}").mkdir()
    assert linux_facts.physical_cores(str(tmp_path)) is None
    assert linux_facts.physical_cores(str(tmp_path / "absent")) is None


def test_psutil_answers_where_the_files_do_not(monkeypatch):
    monkeypatch.setattr(linux_facts, "physical_cores", lambda root=linux_facts.SYS_CPU: None)
    facts = RealHost().resources()
    assert facts["cpu_physical"] == psutil.cpu_count(logical=False)
    assert facts["ram_total"] == psutil.virtual_memory().total
