"""Held-out machines (tests/data/machines) through the real detection and recommendation, scored.

Each file there is one machine another person described in public (an nvidia-smi table or
``-q`` log, a ``collect_env`` dump, or the lines of a bug report), with its source address, the
date it was collected and the build it should get, written down before the wizard ever saw it.
This module turns each into a :class:`~tests.recorded_host.RecordedHost` (nvidia-smi answers the
saved text itself; its CSV query and NVML answer what the text says, with the compute capability
NVIDIA publishes for the card, which NVML would report), runs ``recommend --json`` and ``doctor
--json`` through :func:`tests.cli_runner.run_cli`, and scores the answer:

* right build: the first candidate's variant is one the file expects and its torch release lies
  in the file's range;
* wrong build / no answer otherwise;
* dangerous advice, whatever the build: a Jetson offered download.pytorch.org or PyPI wheels or
  told to install a driver package; a Linux driver package inside WSL2; Jetson wheels on a machine that is not a Jetson; a Python the
  recommended wheels do not support; a CUDA build whose driver bar is above the machine's driver.

Run ``python -m tests.unit.machine_batch_score`` for the table.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from tests import scenarios
from tests.recorded_host import RecordedHost
from wizard.core.machine import nvidia_smi

MACHINES = Path(__file__).resolve().parents[1] / "data" / "machines"
OFFLINE = {"GSW_INDEX_CHECK": "0", "GSW_COMPAT_UPDATE_URL": ""}

# The lowest driver each CUDA major's builds run on (NVIDIA's minor-version compatibility table:
# 11.x >= 450.80.02 Linux / 452.39 Windows, 12.x >= 525.60.13 / 528.33, 13.x >= 580).
DRIVER_BARS = {11: {"linux": "450.80.02", "windows": "452.39"},
               12: {"linux": "525.60.13", "windows": "528.33"},
               13: {"linux": "580.65.06", "windows": "580"}}
DRIVER_PACKAGE = re.compile(r"apt(-get)?\s+install\s+\S*nvidia-driver|ubuntu-drivers|cuda-drivers|"
                            r"NVIDIA-Linux-\S+\.run", re.IGNORECASE)


@dataclass
class Machine:
    """One file of tests/data/machines: its header fields and the text below them."""

    name: str
    meta: dict[str, str]
    text: str

    @property
    def os(self) -> str:
        return self.meta["os"]

    @property
    def wsl(self) -> bool:
        return self.meta.get("wsl", "no") == "yes"

    @property
    def arch(self) -> str:
        return self.meta.get("arch", "x86_64")

    @property
    def expected_variants(self) -> list[str]:
        return [v.strip() for v in self.meta["expect-variants"].split(",") if v.strip()]

    @property
    def expected_torch(self) -> tuple[tuple[int, int], tuple[int, int]]:
        low, high = self.meta["expect-torch"].split("-")
        return _minor(low), _minor(high)

    @property
    def jetson(self) -> bool:
        return any(v.startswith("jp") for v in self.expected_variants)


def _minor(version: str) -> tuple[int, int]:
    parts = re.findall(r"\d+", version)
    return int(parts[0]), int(parts[1]) if len(parts) > 1 else 0


def _numbers(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version))


def load(path: Path) -> Machine:
    raw = path.read_bytes().decode("utf-8")
    head, _, body = raw.partition("\n----\n")
    meta = {}
    for line in head.splitlines():
        key, _, value = line.partition(":")
        meta[key.strip()] = value.strip()
    return Machine(path.stem, meta, body)


def machines() -> list[Machine]:
    return [load(p) for p in sorted(MACHINES.glob("*.txt"))]


# ---------------------------------------------------------------------------------------
# The machine as a recorded host
# ---------------------------------------------------------------------------------------

def _gpu_facts(m: Machine) -> tuple[str | None, str | None, list[dict[str, Any]]]:
    """(driver, CUDA, GPUs) as the text says them: nvidia-smi texts through the project's own
    parser, collect_env dumps by their 'GPU n:' and 'Nvidia driver version:' lines, reports by
    the header fields copied from their lines."""
    kind = m.meta["kind"]
    driver = m.meta.get("driver") or None
    cuda = m.meta.get("cuda") or None
    gpus: list[dict[str, Any]] = []
    if kind == "nvidia-smi":
        parsed = nvidia_smi.parse_any(m.text)
        driver = driver or parsed.driver_version
        cuda = cuda or parsed.cuda_version
        for g in parsed.gpus:
            gpus.append({"name": g.name, "pci_bus_id": g.pci_bus_id,
                         "memory_mib": {"total": g.memory_total_mib} if g.memory_total_mib else {}})
        if not gpus:  # a row the table reader skips (a Jetson's "Orin (nvgpu)" has no bus id)
            gpus = [{"name": n.strip()} for n in m.meta.get("gpus", "").split(";") if n.strip()]
    elif kind == "collect_env":
        found = re.search(r"Nvidia driver version:\s*([\d.]+)", m.text)
        driver = driver or (found.group(1) if found else None)
        for name in re.findall(r"GPU \d+: ([^\n]+)", m.text):
            gpus.append({"name": name.strip()})
    else:
        gpus = [{"name": n.strip()} for n in m.meta.get("gpus", "").split(";") if n.strip()]
    ccs = [c.strip() for c in m.meta.get("cc", "").split(",") if c.strip()]
    if gpus and len(ccs) != len(gpus):
        raise ValueError(f"{m.name}: {len(gpus)} GPUs read but {len(ccs)} compute capabilities given")
    for index, (gpu, cc) in enumerate(zip(gpus, ccs)):
        gpu["compute_capability"] = None if cc == "?" else tuple(int(x) for x in cc.split("."))
        gpu.setdefault("pci_bus_id", f"00000000:{index + 1:02X}:00.0")
    return driver, cuda, gpus


def _cuda_int(cuda: str | None) -> int | None:
    if not cuda or not re.match(r"^\d+\.\d+", cuda):
        return None
    major, minor = _minor(cuda)
    return major * 1000 + minor * 10


def _table_header(driver: str, cuda: str | None) -> str:
    line = f"| NVIDIA-SMI {driver:<22}Driver Version: {driver:<15}CUDA Version: {cuda or 'N/A':<9}|"
    rule = "+" + "-" * (len(line) - 2) + "+"
    return "\n".join(["Sun Dec  6 10:00:00 2026", rule, line, rule]) + "\n"


def host_for(m: Machine) -> RecordedHost:
    driver, cuda, gpus = _gpu_facts(m)
    if m.os == "macos":
        host = RecordedHost(
            os_name="macos",
            platform={"system": "Darwin", "release": "", "version": "", "machine": m.arch,
                      "node": "mac", "python_version": "3.12.7", "frozen": True},
            commands={"sw_vers -productVersion": scenarios.ok(m.meta.get("os-version", "") + "\n")},
            env={"HOME": "/Users/student", "USER": "student", "LANG": "en_US.UTF-8"},
            home_dir="/Users/student",
            nvml_module=scenarios.fake_nvml.FakeNvml(init_error="LIBRARY_NOT_FOUND"),
        )
        return host
    desc = {"driver_version": driver, "cuda_driver_version": _cuda_int(cuda), "nvml_version": driver,
            "gpus": gpus}
    table = m.text if m.meta["kind"] == "nvidia-smi" and "Driver Version:" in m.text else None
    table = table or _table_header(driver or "", cuda)
    nvml = scenarios.fake_nvml.FakeNvml(desc)
    if m.os == "windows":
        host = scenarios.windows_rtx2080super()
        host.commands.pop("py -0p", None)  # the Pythons of that machine are not this one's
        smi = scenarios.SYSTEM32_SMI
        host.commands[RecordedHost.key_of(nvidia_smi.query_argv(smi))] = scenarios.ok(scenarios.smi_csv(desc))
        host.commands[RecordedHost.key_of([smi])] = scenarios.ok(table)
        host.nvml_module = nvml
        return host
    smi = "/usr/lib/wsl/lib/nvidia-smi" if m.wsl else "/usr/bin/nvidia-smi"
    files = {"/etc/os-release": scenarios.recorded("linux/os-release_ubuntu2204"), smi: ""}
    if m.wsl:
        files["/proc/version"] = scenarios.recorded("linux/proc_version_wsl2")
    else:
        files["/proc/version"] = scenarios.recorded("linux/proc_version_ubuntu2204")
    if m.arch == "x86_64":
        files["/proc/cpuinfo"] = scenarios.recorded("linux/cpuinfo_desktop_i9_13900k")
    l4t = m.meta.get("l4t")
    if l4t:
        major, _, revision = l4t.partition(".")
        files["/etc/nv_tegra_release"] = f"# R{major} (release), REVISION: {revision}, BOARD: generic, EABI: aarch64\n"
    release = "5.15.153.1-microsoft-standard-WSL2" if m.wsl else "6.8.0-49-generic"
    return scenarios.linux_host(
        platform={"system": "Linux", "release": release, "version": "#1 SMP", "machine": m.arch,
                  "node": "pc", "python_version": "3.12.7", "frozen": True},
        files=files,
        on_path={"nvidia-smi": smi},
        commands={RecordedHost.key_of(nvidia_smi.query_argv(smi)): scenarios.ok(scenarios.smi_csv(desc)),
                  RecordedHost.key_of([smi]): scenarios.ok(table)},
        nvml_module=nvml,
    )


# ---------------------------------------------------------------------------------------
# Running and scoring
# ---------------------------------------------------------------------------------------

@dataclass
class Score:
    machine: Machine
    verdict: str = "no answer"  # "right" | "wrong" | "no answer"
    got: str = "-"
    dangers: list[str] = field(default_factory=list)
    detail: str = ""


def _run(*args: str, host: RecordedHost) -> tuple[int, Any, str]:
    from tests.cli_runner import run_cli

    with tempfile.TemporaryDirectory() as data:
        result = run_cli(*args, "--lang", "en", host=host, env=OFFLINE, data_dir=data)
    try:
        document = json.loads(result.stdout) if result.stdout.strip() else None
    except json.JSONDecodeError:
        document = None
    return result.exit_status, document, result.stderr


def _variant(candidate: dict[str, Any]) -> str:
    url = candidate.get("index_url") or ""
    variant = str(candidate.get("variant") or "")
    if variant.startswith("jp"):
        return variant
    if "download.pytorch.org" in url:
        return variant
    if not url or "pypi.org" in url:
        return "pypi" if variant in ("", "default", "mps", "pypi", "cpu") else variant
    return variant


def _commands_of(document: Any) -> list[str]:
    """Every command and text an answer shows the student (advice, findings, candidates)."""
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("commands", "command", "text", "fix", "steps") and isinstance(value, (str, list)):
                    found.extend([value] if isinstance(value, str) else [str(v) for v in value])
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(document)
    return found


def _driver_dangers(m: Machine, top: dict[str, Any], driver: str | None) -> list[str]:
    variant = str(top.get("variant") or "")
    found = re.match(r"^cu(\d\d)(\d)$", variant) or re.match(r"^cu(\d\d)(\d\d)$", variant)
    if not found or not driver:
        return []
    bar = DRIVER_BARS.get(int(found.group(1)))
    if bar is None:
        return []
    need = bar["windows" if m.os == "windows" or m.wsl else "linux"]
    if _numbers(driver) < _numbers(need):
        return [f"{variant} needs driver >= {need}, the machine has {driver}"]
    return []


def score(m: Machine) -> Score:
    s = Score(m)
    host = host_for(m)
    args = ["recommend", "--json", "--no-update-check"]
    if m.meta.get("python"):
        args += ["--python", m.meta["python"]]
    status, document, stderr = _run(*args, host=host)
    if status != 0 or not isinstance(document, dict):
        s.detail = f"exit {status}: {stderr.strip()[:200]}"
        return s
    _, doctor, _ = _run("doctor", "--json", host=host_for(m))
    candidates = document.get("candidates") or []
    shown = _commands_of(document.get("advice")) + _commands_of(doctor)
    if m.jetson:
        for c in candidates:
            if "download.pytorch.org" in (c.get("index_url") or "") or "pypi.org" in (c.get("index_url") or ""):
                s.dangers.append(f"server-ARM wheel offered on a Jetson ({c.get('index_url')})")
                break
        s.dangers += sorted({f"driver package on a Jetson: {DRIVER_PACKAGE.search(t).group(0)}"  # type: ignore[union-attr]
                             for t in shown if DRIVER_PACKAGE.search(t)})
    if m.wsl:  # WSL2 uses the Windows driver; a Linux driver package inside it breaks the GPU
        s.dangers += sorted({f"Linux driver package inside WSL2: {DRIVER_PACKAGE.search(t).group(0)}"  # type: ignore[union-attr]
                             for t in shown if DRIVER_PACKAGE.search(t)})
    if not candidates:
        s.detail = "; ".join(a.get("text", "")[:120] for a in document.get("advice") or [])
        return s
    top = candidates[0]
    variant = _variant(top)
    torch = str(top.get("torch") or "")
    s.got = f"{variant} torch {torch}"
    if variant.startswith("jp") and not m.jetson:
        s.dangers.append(f"Jetson wheels on a machine that is not a Jetson ({variant})")
    python = document.get("machine", {}).get("python")
    requires = top.get("python_requires")
    if python and requires:
        try:
            if f"{python}.0" not in SpecifierSet(requires):
                s.dangers.append(f"Python {python} outside the wheels' {requires}")
        except InvalidSpecifier:
            pass
    s.dangers += _driver_dangers(m, top, document.get("machine", {}).get("driver_version"))
    low, high = m.expected_torch
    right = variant in m.expected_variants and low <= _minor(torch) <= high
    s.verdict = "right" if right else "wrong"
    return s


def table(scores: list[Score]) -> str:
    rows = [("machine", "expected", "got", "verdict", "dangerous advice")]
    for s in scores:
        m = s.machine
        expected = f"{'/'.join(m.expected_variants)} torch {m.meta['expect-torch']}"
        rows.append((m.name, expected, s.got, s.verdict + (f" ({s.detail[:60]})" if s.detail and s.verdict != "right" else ""),
                     "; ".join(s.dangers) or "-"))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = ["  ".join(r[i].ljust(widths[i]) for i in range(4)) + "  " + r[4] for r in rows]
    right = sum(s.verdict == "right" for s in scores)
    wrong = sum(s.verdict == "wrong" for s in scores)
    none = sum(s.verdict == "no answer" for s in scores)
    dangerous = sum(bool(s.dangers) for s in scores)
    lines.append(f"\n{len(scores)} machines: {right} right build, {wrong} wrong build, {none} no answer; "
                 f"{dangerous} with dangerous advice")
    return "\n".join(lines)


def main() -> int:
    os.environ.update(OFFLINE)
    scores = [score(m) for m in machines()]
    print(table(scores))
    return 0 if all(s.verdict == "right" and not s.dangers for s in scores) else 1


if __name__ == "__main__":
    sys.exit(main())
