"""A real environment for the kernel tests: a venv that sees the session's CPU torch, without ipykernel.

Why a second venv: registering installs ipykernel into the environment, and the torch venv of
:mod:`tests.torch_env` is shared with every other probe test. This venv gets torch through a
``.pth`` line naming that venv's site-packages (torch is found and imported from there, as from
any folder on ``sys.path``), so it costs seconds, and ipykernel -- from the package registry,
through the wizard's own pip, as a student's consent would install it -- lands here only.

``kernel_data_dir`` gives each test a private JUPYTER_DATA_DIR (and runtime folder) with a
Hangul name: nothing is registered for the real user.
"""

from __future__ import annotations

import os
import subprocess
import venv
from pathlib import Path

import pytest

from tests.torch_env import _python_in


def site_packages(python: Path) -> str:
    out = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         capture_output=True, text=True, timeout=60, check=True)
    return out.stdout.strip()


@pytest.fixture(scope="session")
def kernel_python(torch_python, tmp_path_factory) -> Path:
    """A venv seeing the CPU torch wheel, no ipykernel yet (the first registration asks for it)."""
    env_dir = tmp_path_factory.mktemp("kernel env 김") / "dl-course"
    venv.create(env_dir, with_pip=False, symlinks=os.name != "nt")
    py = _python_in(env_dir)
    Path(site_packages(py), "gsw_torch_env.pth").write_text(site_packages(Path(torch_python)) + "\n",
                                                             encoding="utf-8")
    return py


@pytest.fixture
def kernel_data_dir(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "jupyter 데이터"
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(folder))
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "jupyter-runtime"))
    monkeypatch.setenv("JUPYTER_PATH", "")
    monkeypatch.setenv("JUPYTER_PLATFORM_DIRS", "1")
    return folder


def write_spec(data_dir: Path, name: str, python: str, display: str, env: dict | None = None) -> Path:
    """A kernel spec as ``ipykernel install`` writes it (for kernels of deleted environments)."""
    folder = data_dir / "kernels" / name
    folder.mkdir(parents=True, exist_ok=True)
    spec = {"argv": [python, "-m", "ipykernel_launcher", "-f", "{connection_file}"], "display_name": display,
            "language": "python", "metadata": {"debugger": True}}
    if env:
        spec["env"] = env
    import json

    (folder / "kernel.json").write_text(json.dumps(spec), encoding="utf-8")
    return folder
