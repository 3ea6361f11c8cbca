"""The type checker (mypy, configured in pyproject's [tool.mypy]) finds nothing in wizard/: ordinary
checking everywhere, strict on wizard.core.base and wizard.app. A second test shows the checker
really runs with that configuration: a type error fails it, and the strict flags apply to the
base and the application layer and not elsewhere."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _mypy(cwd: Path, *args: str, cache: Path) -> subprocess.CompletedProcess[str]:
    try:
        import mypy  # noqa: F401
    except ImportError:
        pytest.fail("mypy is a test dependency (pyproject's [test] extra) and must be installed")
    return subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(cache), "--no-error-summary",
                           "--hide-error-context", *args], cwd=cwd, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def mypy_cache(tmp_path_factory) -> Path:
    """One cache for the module's runs: the second reads the standard library's types (most of a
    cold run) from the first's instead of analysing them again. Fresh per test session."""
    return tmp_path_factory.mktemp("mypy-cache")


def test_mypy_finds_nothing_in_wizard(mypy_cache):
    out = _mypy(REPO, cache=mypy_cache)  # the files and flags come from pyproject.toml
    assert out.returncode == 0, out.stdout + out.stderr


def test_a_type_error_fails_and_strict_applies_to_base_and_app_only(tmp_path, mypy_cache):
    (tmp_path / "pyproject.toml").write_text((REPO / "pyproject.toml").read_text(encoding="utf-8"), encoding="utf-8")
    untyped = "def helper(value):\n    return value\n"
    for package in ("wizard/core/base", "wizard/app", "wizard/core/vram"):
        parts = Path(package).parts
        for depth in range(1, len(parts) + 1):  # a package at every level, as in the project
            tmp_path.joinpath(*parts[:depth]).mkdir(exist_ok=True)
            tmp_path.joinpath(*parts[:depth], "__init__.py").touch()
        tmp_path.joinpath(package, "untyped.py").write_text(untyped, encoding="utf-8")
    (tmp_path / "wizard/core/vram/wrong.py").write_text('count: int = "three"\n', encoding="utf-8")
    out = _mypy(tmp_path, cache=mypy_cache)
    lines = out.stdout.splitlines()
    assert out.returncode == 1, out.stdout + out.stderr
    assert any(line.startswith("wizard/core/vram/wrong.py:1:") and "[assignment]" in line for line in lines), lines
    strict = {line.split(":", 1)[0] for line in lines if "[no-untyped-def]" in line}
    assert strict == {"wizard/core/base/untyped.py", "wizard/app/untyped.py"}, lines
