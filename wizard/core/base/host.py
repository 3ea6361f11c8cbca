"""The one door to the machine: run a command, read a file, read the environment.

Every probe of the machine in ``wizard.core`` goes through a :class:`Host`, in the spirit of
httpie's injectable ``Environment``: the CLI and the GUI pass :class:`RealHost`, tests pass a
recorded host (``tests/recorded_host.py``) filled with real captured outputs, so detection logic
is exercised on Windows, WSL and GPU machines that this build machine is not.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Mapping, Sequence

# what Host.resources() answers (defined beside the Linux reader, which imports nothing of the base)
from wizard.core.base.linux_facts import MachineResources as MachineResources

if TYPE_CHECKING:
    from wizard.core.base.process import ProcessResult

    CommandResult = ProcessResult
    from wizard.core.base.process import child_env as child_env

DEFAULT_TIMEOUT = 10.0

# ``CommandResult`` (what a child process did: the one result type of
# :mod:`wizard.core.base.process`) and ``child_env`` are that module's, handed out by
# :func:`__getattr__`: the process runner (subprocess, selectors, queue, signal) is imported when
# something runs, not when the window's session makes its RealHost -- a sixth of what the first
# paint spent beyond a bare QWizard's (issue 17).
_FROM_PROCESS = {"CommandResult": "ProcessResult", "child_env": "child_env"}


def __getattr__(name: str) -> Any:
    if name in _FROM_PROCESS:
        from wizard.core.base import process

        return getattr(process, _FROM_PROCESS[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def decode_output(data: bytes) -> str:
    """Decode captured output: UTF-8 first (we force it), else the locale's code page, then
    cp949 (Korean Windows tools that ignore PYTHONUTF8 write it). Never raises."""
    from wizard.core.base.process import decode_bytes, locale_fallbacks

    return decode_bytes(data, locale_fallbacks())


class Host:
    """Interface. ``os_name`` is 'windows', 'linux' or 'macos'."""

    os_name: str = "linux"

    def run(self, argv: Sequence[str], timeout: float = DEFAULT_TIMEOUT,
            env: Mapping[str, str] | None = None) -> CommandResult:
        raise NotImplementedError

    def read_text(self, path: str | os.PathLike[str]) -> str | None:
        """File text, or None when it does not exist or cannot be read."""
        raise NotImplementedError

    def exists(self, path: str | os.PathLike[str]) -> bool:
        raise NotImplementedError

    def listdir(self, path: str | os.PathLike[str]) -> list[str]:
        raise NotImplementedError

    def getenv(self, name: str, default: str | None = None) -> str | None:
        return self.environ.get(name, default)

    @property
    def environ(self) -> Mapping[str, str]:
        raise NotImplementedError

    def which(self, name: str) -> str | None:
        raise NotImplementedError

    def platform_facts(self) -> dict[str, Any]:
        """What the ``platform``/``sys`` modules say (machine, release, version, python)."""
        raise NotImplementedError

    def resources(self) -> MachineResources:
        """CPU/RAM counts (psutil): cpu_logical, cpu_physical, ram_total, ram_available."""
        raise NotImplementedError

    def disk_free(self, path: str | os.PathLike[str]) -> tuple[int, int] | None:
        """(free, total) bytes of the volume holding ``path`` (or its nearest existing parent)."""
        raise NotImplementedError

    def is_admin(self) -> bool:
        raise NotImplementedError

    def home(self) -> str:
        raise NotImplementedError

    def nvml(self) -> ModuleType:
        """The NVML bindings module (``pynvml`` from nvidia-ml-py), or raise ImportError."""
        raise NotImplementedError


def _current_os() -> str:
    if sys.platform.startswith("win"):
        return "windows"
    if sys.platform == "darwin":
        return "macos"
    return "linux"


class RealHost(Host):
    """This machine."""

    def __init__(self) -> None:
        self.os_name = _current_os()

    def run(self, argv: Sequence[str], timeout: float = DEFAULT_TIMEOUT,
            env: Mapping[str, str] | None = None) -> CommandResult:
        """Run through the one process runner: output captured whole, decoded line by line."""
        from wizard.core.base.process import ProcessSpec, child_env, run_process

        return run_process(ProcessSpec([str(a) for a in argv], child_env(extra=env), None, timeout))

    def read_text(self, path: str | os.PathLike[str]) -> str | None:
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                return fh.read()
        except OSError:
            return None

    def exists(self, path: str | os.PathLike[str]) -> bool:
        return os.path.exists(path)

    def listdir(self, path: str | os.PathLike[str]) -> list[str]:
        try:
            return sorted(os.listdir(path))
        except OSError:
            return []

    @property
    def environ(self) -> Mapping[str, str]:
        return os.environ

    def which(self, name: str) -> str | None:
        return shutil.which(name)

    def platform_facts(self) -> dict[str, Any]:
        # Linux and macOS: os.uname() has platform.uname()'s first five fields, in the same order;
        # the platform module (3 ms of doctor's start, issue 17) loads for Windows and macOS only
        if hasattr(os, "uname"):
            system, node, release, version, machine = os.uname()
        else:
            import platform

            u = platform.uname()  # by name: iterating it would also compute the processor field
            system, node, release, version, machine = u.system, u.node, u.release, u.version, u.machine
        facts: dict[str, Any] = {
            "system": system,
            "release": release,
            "version": version,
            "machine": machine,
            "node": node,
            # what platform.python_version() returns: sys.version's first word ("3.13.0rc1")
            "python_version": sys.version.split()[0],
            "python_executable": sys.executable,
            "frozen": bool(getattr(sys, "frozen", False)),
        }
        if self.os_name in ("windows", "macos"):
            import platform  # the version extras below
        if self.os_name == "windows":
            facts["win32_ver"] = list(platform.win32_ver())
            facts["win32_edition"] = platform.win32_edition() if hasattr(platform, "win32_edition") else ""
        if self.os_name == "macos":
            facts["mac_ver"] = platform.mac_ver()[0]
        return facts

    def resources(self) -> MachineResources:
        if self.os_name in ("linux", "wsl"):
            from wizard.core.base import linux_facts

            facts = linux_facts.resources()  # psutil's own files, without its import (issue 17)
            if facts is not None:
                return facts
        import psutil

        vm = psutil.virtual_memory()
        return {
            "cpu_logical": psutil.cpu_count(logical=True),
            "cpu_physical": psutil.cpu_count(logical=False),
            "ram_total": int(vm.total),
            "ram_available": int(vm.available),
        }

    def disk_free(self, path: str | os.PathLike[str]) -> tuple[int, int] | None:
        p = Path(path)
        while not p.exists():
            if p.parent == p:
                return None
            p = p.parent
        try:
            usage = shutil.disk_usage(p)
        except OSError:
            return None
        return int(usage.free), int(usage.total)

    def is_admin(self) -> bool:
        if self.os_name == "windows":
            try:
                import ctypes

                return bool(ctypes.windll.shell32.IsUserAnAdmin())  # type: ignore[attr-defined]
            except (AttributeError, OSError):
                return False
        return hasattr(os, "geteuid") and os.geteuid() == 0

    def home(self) -> str:
        return str(Path.home())

    def nvml(self) -> ModuleType:
        import pynvml  # nvidia-ml-py

        module: ModuleType = pynvml
        return module
