"""The built wheel in a fresh venv: resources found from site-packages, `doctor --json` runs
without Qt installed at all (the headless engine must not need it), and the console script works.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HEADLESS_DEPS = ["nvidia-ml-py", "requests", "platformdirs", "psutil", "packaging"]

pytestmark = pytest.mark.slow


def _run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, timeout=600, **kw)


@pytest.fixture(scope="module")
def fresh_env(tmp_path_factory):
    base = tmp_path_factory.mktemp("fresh venv 김")  # a Hangul name and a space, as students have
    wheels = base / "wheels"
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(REPO)])
    assert built.returncode == 0, built.stderr
    wheel = next(wheels.glob("gpu_setup_wizard-*.whl"))
    env_dir = base / "env"
    venv.create(env_dir, with_pip=True)
    py = env_dir / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    inst = _run([str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps", str(wheel)])
    assert inst.returncode == 0, inst.stderr
    deps = _run([str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check", *HEADLESS_DEPS])
    if deps.returncode != 0:
        pytest.skip(f"could not install the headless dependencies from the package index: {deps.stderr[-300:]}")
    return py, base


def test_resources_come_from_the_installed_wheel(fresh_env):
    py, base = fresh_env
    out = _run([str(py), "-c", "from wizard.core.base.resources import resources_dir, probe_path; "
                               "print(resources_dir()); print(probe_path('x.py').parent)"], cwd=base)
    assert out.returncode == 0, out.stderr
    res, probe = out.stdout.strip().splitlines()
    assert "site-packages" in res and res.endswith(os.path.join("wizard", "resources"))
    assert Path(res, "i18n", "window.json").is_file()
    assert "site-packages" in probe
    assert str(REPO) not in res


def test_doctor_json_without_qt(fresh_env):
    py, base = fresh_env
    check = _run([str(py), "-c", "import importlib.util as u; print(u.find_spec('PySide6') is None)"], cwd=base)
    assert check.stdout.strip() == "True"  # really no Qt here
    script = py.parent / ("gpu-setup-wizard.exe" if os.name == "nt" else "gpu-setup-wizard")
    out = _run([str(script), "doctor", "--json"], cwd=base, env={**os.environ, "GSW_LANG": "en"})
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["schema"].startswith("gpu-setup-wizard/doctor@1.")
    assert doc["nvidia"]["status"] == "no-driver"
    assert [f["id"] for f in doc["findings"]] == ["no-nvidia-driver"]
    assert "NVIDIA" in doc["findings"][0]["title"]


def test_gui_without_qt_says_how_to_go_on(fresh_env):
    py, base = fresh_env
    out = _run([str(py), "-m", "wizard"], cwd=base, env={**os.environ, "GSW_LANG": "en"})
    assert out.returncode == 2
    assert "cannot open" in out.stderr and "doctor" in out.stderr and "Traceback" not in out.stderr
