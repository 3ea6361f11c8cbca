"""A wizard whose Python has no jupyter_client: ``kernel list`` reads the kernel folders itself,
``kernel verify`` says plainly what it needs (no traceback). jupyter_client is blocked by a
meta-path finder in a sitecustomize of the test's own, as tests/no_qt blocks Qt -- and Qt is
blocked too (that sitecustomize is imported by this one): the kernel commands are headless."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests import kernel_env

REPO = Path(__file__).resolve().parents[2]

BLOCKER = '''
import runpy
import sys

runpy.run_path(NO_QT)  # tests/no_qt: no PySide6 either

class _NoJupyterClient:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name.split(".", 1)[0] == "jupyter_client":
            raise ModuleNotFoundError("No module named %r (blocked for this test)" % name, name=name)
        return None

sys.meta_path.insert(0, _NoJupyterClient())
'''


def _cli(blocker: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(blocker), str(REPO)]))
    return subprocess.run([sys.executable, "-m", "wizard", *args], capture_output=True, text=True, timeout=120,
                          env=env, cwd=str(REPO))


def test_listing_reads_the_folders_and_verify_says_what_it_needs(kernel_data_dir, tmp_path):
    blocker = tmp_path / "block"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text(BLOCKER.replace("NO_QT", repr(str(REPO / "tests" / "no_qt" / "sitecustomize.py"))),
                                              encoding="utf-8")
    kernel_env.write_spec(kernel_data_dir, "here", sys.executable, "This Python")
    kernel_env.write_spec(kernel_data_dir, "gone", str(tmp_path / "deleted" / "bin" / "python"), "Gone")

    listed = _cli(blocker, "--lang", "en", "kernel", "list", "--json")
    assert listed.returncode == 1, listed.stderr  # "gone" is broken
    kernels = {k["name"]: k for k in json.loads(listed.stdout)["kernels"]}
    assert kernels["here"]["status"] == "pass" and kernels["here"]["interpreter"] == sys.executable
    assert kernels["gone"]["flags"][0]["id"] == "interpreter_missing"

    verify = _cli(blocker, "--lang", "ko", "kernel", "verify", "here")
    assert verify.returncode == 1
    assert "jupyter_client가 필요합니다" in verify.stderr and "Traceback" not in verify.stderr
    probe = subprocess.run([sys.executable, "-c", "import PySide6"], capture_output=True, text=True, timeout=60,
                           env=dict(os.environ, PYTHONPATH=str(blocker)))
    assert probe.returncode != 0 and "Qt is blocked" in probe.stderr  # the blocker really blocks Qt here
