"""A machine described by recorded facts: the :class:`~wizard.core.base.host.Host` tests pass.

Test-only (it was ``wizard.core.base.host.RecordedHost``): detection, diagnosis, install and
report tests feed it real captured outputs (nvidia-smi, registry queries, probe JSON lines) so
the logic is exercised on Windows, WSL and GPU machines the test machine is not.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from wizard.core.base.host import DEFAULT_TIMEOUT, CommandResult, Host


@dataclass
class RecordedHost(Host):
    """A machine described by recorded facts.

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


__all__ = ["RecordedHost"]
