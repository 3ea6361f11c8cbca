"""The one door to the machine: run a command, read a file, read the environment.

Every probe of the machine in ``wizard.core`` goes through a :class:`Host`, in the spirit of
httpie's injectable ``Environment``: the CLI and the GUI pass :class:`RealHost`, tests pass a
:class:`RecordedHost` filled with real captured outputs, so detection logic is exercised on
Windows, WSL and GPU machines that this build machine is not.
"""

from __future__ import annotations

import locale
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

DEFAULT_TIMEOUT = 10.0


@dataclass
class CommandResult:
    """What a child process did. ``returncode`` is None when it never ran or timed out."""

    argv: list[str]
    returncode: int | None
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    error: str | None = None  # e.g. "not found" when the executable does not exist
    duration_s: float = 0.0

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out and self.error is None

    @property
    def not_found(self) -> bool:
        return self.error == "not found"


def decode_output(data: bytes) -> str:
    """Decode child output: UTF-8 first (we force it), else the locale's code page.

    Korean Windows tools that ignore PYTHONUTF8 write cp949; a strict UTF-8 decode of that
    fails, and the locale encoding gets it right. Never raises.
    """
    if not data:
        return ""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    enc = locale.getpreferredencoding(False) or "utf-8"
    try:
        return data.decode(enc)
    except (UnicodeDecodeError, LookupError):
        return data.decode("utf-8", errors="replace")


def child_env(base: Mapping[str, str] | None = None, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """Environment for a child: UTF-8 forced, pip's version check off."""
    env = dict(os.environ if base is None else base)
    env["PYTHONUTF8"] = "1"
    env["PYTHONIOENCODING"] = "utf-8"
    env.setdefault("PIP_DISABLE_PIP_VERSION_CHECK", "1")
    if extra:
        env.update(extra)
    return env


def kill_tree(proc: subprocess.Popen, grace_s: float = 2.0) -> None:
    """Terminate, then kill, then the whole process tree (psutil), within a few seconds."""
    import psutil  # small, and only needed when something must die

    try:
        parent = psutil.Process(proc.pid)
        children = parent.children(recursive=True)
    except psutil.Error:
        children = []
    try:
        proc.terminate()
        proc.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        proc.kill()
    except OSError:
        pass
    for child in children:
        try:
            child.kill()
        except psutil.Error:
            pass
    if os.name != "nt":
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass


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

    def resources(self) -> dict[str, Any]:
        """CPU/RAM counts (psutil): cpu_logical, cpu_physical, ram_total, ram_available."""
        raise NotImplementedError

    def disk_free(self, path: str | os.PathLike[str]) -> tuple[int, int] | None:
        """(free, total) bytes of the volume holding ``path`` (or its nearest existing parent)."""
        raise NotImplementedError

    def is_admin(self) -> bool:
        raise NotImplementedError

    def home(self) -> str:
        raise NotImplementedError

    def nvml(self) -> Any:
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
        args = [str(a) for a in argv]
        start = time.monotonic()
        kwargs: dict[str, Any] = {}
        if os.name == "nt":
            kwargs["creationflags"] = getattr(subprocess, "CREATE_NO_WINDOW", 0)
        else:
            kwargs["start_new_session"] = True  # so a timeout can kill the whole group
        try:
            proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, env=child_env(extra=env), **kwargs)
        except FileNotFoundError:
            return CommandResult(args, None, error="not found", duration_s=time.monotonic() - start)
        except OSError as exc:
            return CommandResult(args, None, error=str(exc), duration_s=time.monotonic() - start)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            kill_tree(proc)
            try:
                out, err = proc.communicate(timeout=2)
            except (subprocess.TimeoutExpired, ValueError):
                out, err = b"", b""
            return CommandResult(args, None, decode_output(out or b""), decode_output(err or b""),
                                 timed_out=True, duration_s=time.monotonic() - start)
        return CommandResult(args, proc.returncode, decode_output(out), decode_output(err),
                             duration_s=time.monotonic() - start)

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
        import platform  # not needed to open the window

        uname = platform.uname()
        facts: dict[str, Any] = {
            "system": uname.system,
            "release": uname.release,
            "version": uname.version,
            "machine": uname.machine,
            "node": uname.node,
            "python_version": platform.python_version(),
            "python_executable": sys.executable,
            "frozen": bool(getattr(sys, "frozen", False)),
        }
        if self.os_name == "windows":
            facts["win32_ver"] = list(platform.win32_ver())
            facts["win32_edition"] = platform.win32_edition() if hasattr(platform, "win32_edition") else ""
        if self.os_name == "macos":
            facts["mac_ver"] = platform.mac_ver()[0]
        return facts

    def resources(self) -> dict[str, Any]:
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

    def nvml(self) -> Any:
        import pynvml  # nvidia-ml-py

        return pynvml


@dataclass
class RecordedHost(Host):
    """A machine described by recorded facts, for tests and for replaying a student's outputs.

    ``commands`` maps a command key to a :class:`CommandResult` (or a callable returning one).
    The key is the argv joined by spaces with the executable reduced to its base name without
    ``.exe`` (``"nvidia-smi --query-gpu=... --format=csv"``); a key may also end in ``*`` to
    match any arguments after that prefix. Unknown commands behave as "not found".
    """

    os_name: str = "linux"
    commands: dict[str, CommandResult | Callable[[list[str]], CommandResult]] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    dirs: dict[str, list[str]] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    on_path: dict[str, str] = field(default_factory=dict)
    platform: dict[str, Any] = field(default_factory=dict)
    machine_resources: dict[str, Any] = field(default_factory=dict)
    disks: dict[str, tuple[int, int]] = field(default_factory=dict)
    admin: bool = False
    home_dir: str = "/home/student"
    nvml_module: Any = None
    calls: list[list[str]] = field(default_factory=list)

    @staticmethod
    def key_of(argv: Sequence[str]) -> str:
        exe = str(argv[0]).replace("\\", "/").rsplit("/", 1)[-1]
        if exe.lower().endswith(".exe"):
            exe = exe[:-4]
        return " ".join([exe, *[str(a) for a in argv[1:]]])

    def run(self, argv: Sequence[str], timeout: float = DEFAULT_TIMEOUT,
            env: Mapping[str, str] | None = None) -> CommandResult:
        args = [str(a) for a in argv]
        self.calls.append(args)
        key = self.key_of(args)
        full = " ".join(args)
        entry = self.commands.get(full) or self.commands.get(key)
        if entry is None:
            for pattern, value in self.commands.items():
                if pattern.endswith("*") and (key.startswith(pattern[:-1]) or full.startswith(pattern[:-1])):
                    entry = value
                    break
        if entry is None:
            return CommandResult(args, None, error="not found")
        result = entry(args) if callable(entry) else entry
        return CommandResult(args, result.returncode, result.stdout, result.stderr,
                             result.timed_out, result.error, result.duration_s)

    def read_text(self, path: str | os.PathLike[str]) -> str | None:
        return self.files.get(str(path))

    def exists(self, path: str | os.PathLike[str]) -> bool:
        p = str(path)
        return p in self.files or p in self.dirs or p in self.on_path.values()

    def listdir(self, path: str | os.PathLike[str]) -> list[str]:
        return list(self.dirs.get(str(path), []))

    @property
    def environ(self) -> Mapping[str, str]:
        return self.env

    def which(self, name: str) -> str | None:
        return self.on_path.get(name)

    def platform_facts(self) -> dict[str, Any]:
        return dict(self.platform)

    def resources(self) -> dict[str, Any]:
        return dict(self.machine_resources)

    def disk_free(self, path: str | os.PathLike[str]) -> tuple[int, int] | None:
        best = None
        for prefix, value in self.disks.items():
            if str(path).startswith(prefix) and (best is None or len(prefix) > len(best[0])):
                best = (prefix, value)
        return best[1] if best else None

    def is_admin(self) -> bool:
        return self.admin

    def home(self) -> str:
        return self.home_dir

    def nvml(self) -> Any:
        if self.nvml_module is None:
            raise ImportError("no NVML bindings recorded for this host")
        return self.nvml_module
