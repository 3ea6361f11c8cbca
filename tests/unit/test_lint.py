"""Static checks that catch what a refactoring leaves behind: undefined names, unused imports,
imports of names that moved, import order. Each is shown to fail on a broken file first."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _ruff() -> str:
    exe = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if exe is None:
        pytest.fail("ruff is a test dependency (pyproject's [test] extra) and must be installed")
    return exe


def test_ruff_finds_nothing_in_the_project():
    out = subprocess.run([_ruff(), "check", "--no-cache", "wizard", "tests", "benchmarks", "installers"],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr


def test_ruff_fails_on_an_undefined_name_and_an_unused_import(tmp_path):
    (tmp_path / "pyproject.toml").write_text((REPO / "pyproject.toml").read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "broken.py").write_text("import os\n\n\ndef f():\n    return undefined_name\n", encoding="utf-8")
    out = subprocess.run([_ruff(), "check", "--no-cache", "broken.py"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 1 and "F401" in out.stdout and "F821" in out.stdout, out.stdout


def _check_imports(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tests.tools.check_imports", str(root)], cwd=REPO,
                          capture_output=True, text=True, timeout=300,
                          env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})


def test_every_import_of_a_wizard_name_resolves():
    out = _check_imports(REPO)
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_import_check_sees_a_moved_name_in_a_function(tmp_path):
    """A function-local import of a name that is gone: pyflakes is silent, this check is not."""
    (tmp_path / "wizard").mkdir()
    (tmp_path / "wizard" / "gone_name_probe_module.py").write_text(
        "def f():\n    from wizard.core.base.i18n import no_such_name\n    return no_such_name\n", encoding="utf-8")
    out = _check_imports(tmp_path)
    assert out.returncode == 1 and "wizard.core.base.i18n has no no_such_name" in out.stdout, out.stdout
