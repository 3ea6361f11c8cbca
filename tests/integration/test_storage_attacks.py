"""``gpu-setup-wizard storage`` against the red team's reproductions (issue 24, findings 4-6), run as a
student runs it: the command line in a child process, a private HOME, real venvs, real uv.

Each attack is the red team's command; each must leave the student's files where they were and say
why in one line (the refusal's own words, in the student's language), and the dry run must list
what the clean then deletes, with the same size.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import venv
from pathlib import Path

import pytest

from wizard.core.install.environments import find_uv

pytestmark = [pytest.mark.slow, pytest.mark.skipif(os.name == "nt", reason="symlinks and POSIX paths")]

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture()
def home(tmp_path):
    h = tmp_path / "home"
    (h / "Documents").mkdir(parents=True)
    (h / "Documents" / "thesis.docx").write_text("mydoc", encoding="utf-8")
    (h / "Documents" / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PIP_", "UV_", "HF_", "XDG_", "GSW_", "HUGGINGFACE", "VIRTUAL_ENV", "CONDA_PREFIX"))}
    env.update({"HOME": str(h), "XDG_CACHE_HOME": str(h / ".cache"), "XDG_STATE_HOME": str(h / ".local/state"),
                "XDG_DATA_HOME": str(h / ".local/share"), "XDG_CONFIG_HOME": str(h / ".config"),
                "PYTHONPATH": str(REPO), "GSW_LANG": "en"})
    return h, env


def _storage(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "wizard", "storage", *args], env=env, capture_output=True,
                          text=True, timeout=300, stdin=subprocess.DEVNULL)


def test_a_symlinked_partial_folder_into_documents(home):
    h, env = home
    cache = h / ".cache" / "gpu-setup-wizard" / "downloads"
    (cache / "files").mkdir(parents=True)
    (cache / "files" / "old-1.0-py3-none-any.whl").write_bytes(b"w" * 1000)
    (cache / "files" / "my notes.txt").write_text("keep", encoding="utf-8")
    (cache / "partial").symlink_to(h / "Documents")
    dry = _storage(env, "--dry-run", "--json")
    assert dry.returncode == 0, dry.stderr
    item = next(i for i in json.loads(dry.stdout)["cleanup"]["items"] if i["kind"] == "wizard_cache")
    assert item["deletes"] == [os.path.join("files", "old-1.0-py3-none-any.whl")] and item["expected_freed"] == 1000
    text = _storage(env, "--dry-run").stdout
    assert "symbolic link" in text and "my notes.txt" in text and "old-1.0-py3-none-any.whl" in text
    done = _storage(env, "--clean", "--yes", "--json")
    assert done.returncode == 0, done.stderr
    item = next(i for i in json.loads(done.stdout)["cleanup"]["items"] if i["kind"] == "wizard_cache")
    assert item["freed"] == 1000 and item["before"] - item["after"] == 1000  # what the dry run said
    assert sorted(os.listdir(h / "Documents")) == ["pyvenv.cfg", "thesis.docx"]
    assert (cache / "files" / "my notes.txt").exists() and not (cache / "files" / "old-1.0-py3-none-any.whl").exists()


def test_a_project_made_with_venv_dot_and_a_home_with_a_stray_pyvenv_cfg(home):
    h, env = home
    project = h / "my project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "main.py").write_text("print(1)\n", encoding="utf-8")
    venv.create(project, with_pip=False)
    out = _storage(env, "--clean", "--yes", "--env", str(project))
    assert "src" in out.stdout and "not part of an environment" in out.stdout, out.stdout
    assert (project / "src" / "main.py").exists() and (project / "pyvenv.cfg").exists()
    (h / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    out = _storage(env, "--dry-run", "--env", str(h), "--lang", "ko")
    assert out.returncode == 0, out.stderr
    assert "홈 폴더" in out.stdout, out.stdout
    out = _storage(env, "--clean", "--yes", "--env", str(h))
    assert (h / "Documents" / "thesis.docx").exists() and (project / "src" / "main.py").exists()


def test_an_environment_a_notebook_kernel_runs_from_is_not_removed(home):
    h, env = home
    target = h / "GPU-Setup-Wizard" / "envs" / "in use"
    venv.create(target, with_pip=False)
    proc = subprocess.Popen([str(target / "bin" / "python"), "-c", "import time; time.sleep(120)"])
    try:
        time.sleep(0.5)
        out = _storage(env, "--clean", "--yes", "--env", str(target))
        assert target.exists() and (target / "pyvenv.cfg").exists()
        assert f"process {proc.pid}" in out.stdout, out.stdout
        activated = {**env, "VIRTUAL_ENV": str(target)}
        out = _storage(activated, "--clean", "--yes", "--env", str(target))
        assert "activated" in out.stdout and target.exists()
    finally:
        proc.kill()
        proc.wait()
    out = _storage(env, "--clean", "--yes", "--env", str(target))
    assert out.returncode == 0 and not target.exists(), out.stdout


@pytest.mark.skipif(find_uv() is None, reason="uv is not installed")
def test_uv_cache_dir_pointing_at_user_data_is_not_handed_to_uv(home, tmp_path):
    h, env = home
    data = tmp_path / "d"
    data.mkdir()
    (data / "experiment.csv").write_text("data\n", encoding="utf-8")
    uv_dir = os.path.dirname(find_uv())
    env = {**env, "UV_CACHE_DIR": str(data), "PATH": uv_dir + os.pathsep + env.get("PATH", "")}
    out = _storage(env, "--clean", "--yes")
    assert (data / "experiment.csv").read_text(encoding="utf-8") == "data\n"
    assert "does not look like uv's cache" in out.stdout, out.stdout
