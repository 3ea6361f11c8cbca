"""A fake ``nvidia-smi`` that hangs, as one does when the driver is wedged: it records its pid and
sleeps far longer than any test, so only a kill ends it. For the Ctrl+C tests (the fixture that
puts it first on PATH is ``hung_smi`` in tests/integration/conftest.py)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[2]
HANG_S = 600  # far beyond nvidia-smi's own timeout: only a kill ends it


def fake_smi(folder: Path, pid_file: Path) -> None:
    """Write the hanging ``nvidia-smi`` into ``folder``; each run appends its pid to ``pid_file``."""
    folder.mkdir()
    exe = folder / "nvidia-smi"
    exe.write_text(f"#!{sys.executable}\nimport os, time\n"
                   f"with open({str(pid_file)!r}, 'a') as fh:\n    fh.write(f'{{os.getpid()}}\\n')\n"
                   f"time.sleep({HANG_S})\n", encoding="utf-8")
    exe.chmod(0o755)


def smi_pids(pid_file: Path) -> list[int]:
    """The pids of every fake nvidia-smi started so far."""
    if not pid_file.exists():
        return []
    return [int(line) for line in pid_file.read_text().split() if line.strip()]


def alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def wizard_env(tmp_path: Path, path_first: Path | None = None) -> dict[str, str]:
    """The environment of a ``python -m wizard`` process: this checkout, a private history,
    ``path_first`` first on PATH."""
    path = os.environ.get("PATH", "")
    return {**os.environ, "PYTHONUTF8": "1", "PYTHONPATH": str(REPO), "GSW_DATA_DIR": str(tmp_path / "data"),
            "PATH": f"{path_first}{os.pathsep}{path}" if path_first else path}
