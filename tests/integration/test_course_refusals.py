"""``install --course`` with a direct-URL package (red-team finding 8): refused in one line before
anything is resolved or made; a named pipe given to ``--course`` does not hang the command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_runner import run_cli
from tests.integration.index_server import make_wheel

REPO = Path(__file__).resolve().parents[2]


def _env(root: Path) -> dict[str, str]:
    """Cache and install state inside ``root``, the built-in table, an index nobody answers."""
    return {"XDG_CACHE_HOME": str(root / "cache"), "XDG_STATE_HOME": str(root / "state"), "GSW_COMPAT_UPDATE": "0",
            "PIP_INDEX_URL": "http://127.0.0.1:9/simple"}


def test_install_refuses_a_course_package_with_a_file_url(tmp_path):
    evil = make_wheel(tmp_path / "elsewhere", "gsw-evil", "6.6")
    course = tmp_path / "c.toml"
    course.write_text('schema = "gpu-setup-wizard/course@1.0"\n[course]\nname = "Lab"\n'
                      f'packages = ["gsw-evil @ {evil.as_uri()}"]\n', encoding="utf-8")
    venv = tmp_path / "v"
    out = run_cli("install", "--venv", str(venv), "--python", sys.executable, "--course", str(course),
                  "--plan-only", env=_env(tmp_path))
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert "gsw-evil" in out.stderr and not venv.exists()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_recommend_with_a_named_pipe_course_ends_in_one_line(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    # a real process with a timeout: a reader that opened the pipe would wait for a writer forever
    out = subprocess.run([sys.executable, "-m", "wizard", "recommend", "--course", str(fifo)], cwd=REPO,
                         capture_output=True, text=True, encoding="utf-8", timeout=120,
                         env={**os.environ, "GSW_LANG": "en", **_env(tmp_path)})
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert "regular file" in out.stderr
