"""A real PyTorch environment for tests that run probes, built once per test session.

``GSW_TEST_TORCH_PYTHON=/path/to/python`` uses an existing torch interpreter instead (for
example on a GPU machine). The venv's path has Hangul and a space, as students' paths do. One
venv serves the whole run, however many pytest-xdist workers it has (:mod:`tests.once_per_run`).
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from tests.once_per_run import once_per_run

TORCH_SPEC = "torch==2.13.0"  # on the project's machines pip takes a CPU wheel from local disk


def _python_in(env_dir: Path) -> Path:
    return env_dir / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def _run(argv, timeout=300, **kw):
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=timeout, **kw)


@pytest.fixture(scope="session")
def torch_python(tmp_path_factory) -> Path:
    """The venv's interpreter; built once per test run, shared by pytest-xdist's workers."""
    override = os.environ.get("GSW_TEST_TORCH_PYTHON")
    if override:
        return Path(override)
    return once_per_run(tmp_path_factory, "torch env 김", _build_torch_venv)  # Hangul and a space


def _build_torch_venv(base: Path) -> Path:
    env_dir = base / "venv"
    venv.create(env_dir, with_pip=False, symlinks=os.name != "nt")
    py = _python_in(env_dir)
    # This interpreter's pip installs into the new venv (pip --python, pip >= 22.3): no pip inside
    # the venv to bootstrap, and no byte-compiling of torch's thousands of files.
    try:
        res = _run([sys.executable, "-m", "pip", "--python", py, "install", "--no-compile", "-q",
                    "--disable-pip-version-check", TORCH_SPEC], timeout=900)
    except subprocess.TimeoutExpired:
        pytest.skip(f"installing {TORCH_SPEC} took over 15 minutes")
    if res.returncode != 0:
        pytest.skip(f"could not install {TORCH_SPEC} into a test venv: {res.stderr[-600:]}")
    check = _run([py, "-c", "import torch; print(torch.__version__)"], timeout=120)
    if check.returncode != 0:
        pytest.skip(f"{TORCH_SPEC} installed but does not import here: {check.stderr[-600:]}")
    return py
