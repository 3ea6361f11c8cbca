"""Fixtures of the integration tests (real processes, real servers on 127.0.0.1)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.hung_smi import alive, fake_smi, smi_pids, wizard_env
from tests.once_per_run import once_per_run


@pytest.fixture
def hung_smi(tmp_path):
    """(env with the hanging nvidia-smi first on PATH, its pid file); kills leftovers afterwards."""
    pid_file = tmp_path / "smi-pids"
    fake_smi(tmp_path / "bin", pid_file)
    yield wizard_env(tmp_path, tmp_path / "bin"), pid_file
    for pid in smi_pids(pid_file):  # only what the test itself started, by pid
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


def _site_packages(python: Path) -> str:
    res = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         capture_output=True, text=True, timeout=120, check=True)
    return res.stdout.strip()


@pytest.fixture(scope="session")
def transformers_python(torch_python, tmp_path_factory) -> Path:
    """A venv that sees the session's torch (a .pth line) and has transformers from the registry;
    built once per test run, whatever the number of xdist workers (the VRAM measurements and the
    course's lesson models share it)."""
    check = subprocess.run([str(torch_python), "-c", "import transformers"], capture_output=True, timeout=120)
    if check.returncode == 0:
        return torch_python
    return once_per_run(tmp_path_factory, "transformers env",
                        lambda folder: _build_transformers_venv(folder, Path(torch_python)))


def _build_transformers_venv(folder: Path, torch_python: Path) -> Path:
    env_dir = folder / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True, timeout=120)
    py = env_dir / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    Path(_site_packages(py), "session_torch.pth").write_text(_site_packages(torch_python) + "\n", encoding="utf-8")
    res = subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-compile", "-q",
                          "--disable-pip-version-check", "transformers"], capture_output=True, text=True, timeout=900)
    if res.returncode != 0:
        pytest.skip(f"could not install transformers into a test venv: {res.stderr[-600:]}")
    return py
