"""``kernel install`` and ``kernel list`` against the red team's kernel attacks (issue 24, finding 7):
a real venv with ipykernel from the registry, a private Jupyter data folder holding the student's own
kernels, and the wizard's command line in a child process.

* ``--name .`` deleted every user kernel, ``--name ..`` all of the Jupyter data folder (jupyter_client
  removes ``kernels/<name>`` before it copies): such names are refused before anything runs;
* the student's own ``python3`` kernel was overwritten without a word: it stays unless ``--replace``;
* a kernel with a broken ``kernel.json`` vanished from ``kernel list``: it is listed as broken.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from tests.cli_runner import run_cli
from wizard.core.verify.kernel_install import valid_name

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def ipykernel_python(tmp_path_factory) -> Path:
    """A venv with ipykernel (from the package registry, through uv or pip)."""
    from wizard.core.install.environments import find_uv

    env_dir = tmp_path_factory.mktemp("kernel-names") / "env"
    venv.create(env_dir, with_pip=False)
    py = env_dir / "bin" / "python"
    uv = find_uv()
    argv = [uv, "pip", "install", "-q", "--python", str(py), "ipykernel"] if uv else \
        [sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "ipykernel"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        pytest.skip(f"ipykernel could not be installed: {done.stderr[-500:]}")
    return py


@pytest.fixture
def jupyter(tmp_path) -> tuple[Path, dict]:
    data = tmp_path / "jupyter"
    own = data / "kernels" / "python3"
    own.mkdir(parents=True)
    (own / "kernel.json").write_text(json.dumps({"argv": ["/usr/bin/python3", "-m", "ipykernel_launcher", "-f",
                                                          "{connection_file}"], "display_name": "MY python3",
                                                 "language": "python"}), encoding="utf-8")
    mine = data / "kernels" / "mykernel"
    mine.mkdir()
    (mine / "kernel.json").write_text('{"argv":["python"],"display_name":"mine"}', encoding="utf-8")
    (data / "lab" / "settings").mkdir(parents=True)
    (data / "lab" / "settings" / "overrides.json").write_text("{}", encoding="utf-8")
    env = {**os.environ, "JUPYTER_DATA_DIR": str(data), "JUPYTER_RUNTIME_DIR": str(tmp_path / "rt"),
           "JUPYTER_PATH": "", "JUPYTER_PLATFORM_DIRS": "1", "PYTHONPATH": str(REPO), "GSW_LANG": "en"}
    return data, env


def _tree(data: Path) -> list[str]:
    return sorted(str(p.relative_to(data)) for p in data.rglob("*"))


@pytest.mark.parametrize("name", [".", "..", "../x", "a/b", "-x", ".hidden", "week\n", "x" * 65, ""])
def test_a_name_that_is_a_path_step_is_refused_and_nothing_is_deleted(ipykernel_python, jupyter, name):
    data, env = jupyter
    before = _tree(data)
    out = run_cli("kernel", "install", "--python", str(ipykernel_python), "--name", name, "--yes", env=env)
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert "Traceback" not in out.stderr and _tree(data) == before


def test_valid_names():
    assert all(valid_name(n) for n in ("python3", "gsw-venv-1a2b3c", "dl.course_2", "A1"))
    assert not any(valid_name(n) for n in (".", "..", "...", "a/b", "a\\b", "week\n", " x", "-x", "_x", "x" * 65))


def test_the_students_own_python3_is_never_overwritten_without_replace(ipykernel_python, jupyter):
    data, env = jupyter
    spec = data / "kernels" / "python3" / "kernel.json"
    out = run_cli("kernel", "install", "--python", str(ipykernel_python), "--name", "python3", "--yes", env=env)
    assert out.returncode == 3, (out.stdout, out.stderr)
    assert "/usr/bin/python3" in out.stdout and "--replace" in out.stdout
    assert json.loads(spec.read_text(encoding="utf-8"))["display_name"] == "MY python3"
    out = run_cli("kernel", "install", "--python", str(ipykernel_python),
                  "--name", "python3", "--yes", "--replace", env=env)
    assert out.returncode == 0, (out.stdout, out.stderr)
    assert json.loads(spec.read_text(encoding="utf-8"))["argv"][0] == str(ipykernel_python)
    # registering the same interpreter again is a refresh, not a replacement
    out = run_cli("kernel", "install", "--python", str(ipykernel_python), "--name", "python3", "--yes", env=env)
    assert out.returncode == 0, (out.stdout, out.stderr)
    assert (data / "kernels" / "mykernel" / "kernel.json").exists()


def test_replace_never_deletes_a_kernel_folder_holding_other_files(ipykernel_python, jupyter):
    data, env = jupyter
    (data / "kernels" / "python3" / "notes.txt").write_text("mine", encoding="utf-8")
    out = run_cli("kernel", "install", "--python", str(ipykernel_python),
                  "--name", "python3", "--yes", "--replace", env=env)
    assert out.returncode != 0 and (data / "kernels" / "python3" / "notes.txt").exists()
    assert json.loads((data / "kernels" / "python3" / "kernel.json").read_text())["display_name"] == "MY python3"


def test_a_kernel_with_a_broken_kernel_json_is_listed_as_broken(jupyter):
    data, env = jupyter
    bad = data / "kernels" / "badjson"
    bad.mkdir()
    (bad / "kernel.json").write_text('{"argv": ["python",', encoding="utf-8")
    out = run_cli("kernel", "list", "--json", env=env)
    doc = json.loads(out.stdout)
    kernels = {k["name"]: k for k in doc["kernels"]}
    assert kernels["badjson"]["state"] == "broken" and "JSON" in kernels["badjson"]["broken"]
    assert kernels["mykernel"]["state"] != "broken"
    text = run_cli("kernel", "list", env=env).stdout
    assert "badjson" in text and "broken" in text
