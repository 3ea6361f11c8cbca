"""Planning never meets the old-pip trap: a pip older than 23.3 downloads every wheel in a dry run
(2.5 GB for a plan), so the wizard declares ``pip>=23.3`` and refuses to plan with an older pip
of its own. (``uv pip install --dry-run`` was considered instead: it names the versions but not
the URLs, sizes and hashes the downloader needs.)"""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path

import pytest
import tomllib
from packaging.requirements import Requirement
from packaging.version import Version

from wizard.core.install.plan import WIZARD_PIP_MIN, WIZARD_PIP_REQUIREMENT, pip_command, wizard_pip

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"
FLOOR = Version(".".join(map(str, WIZARD_PIP_MIN)))


def _fake_pip(tmp_path: Path, version: str) -> str:
    init = tmp_path / f"pip-{version}" / "__init__.py"
    init.parent.mkdir()
    init.write_text(f'__version__ = "{version}"\n\n\ndef main():\n    pass\n', encoding="utf-8")
    return str(init)


def test_the_floor_is_declared_as_a_dependency():
    """Installing the wizard brings a pip that plans from metadata: it cannot be installed with an old one."""
    with open(PYPROJECT, "rb") as fh:
        deps = [Requirement(d) for d in tomllib.load(fh)["project"]["dependencies"]]
    pips = [r for r in deps if r.name == "pip"]
    assert pips, f"pyproject.toml must declare {WIZARD_PIP_REQUIREMENT!r} (plan.py relies on it)"
    spec = pips[0].specifier
    assert FLOOR in spec and Version("23.2.1") not in spec
    assert Requirement(WIZARD_PIP_REQUIREMENT).specifier == spec


def test_the_wizard_environment_meets_the_floor():
    assert Version(metadata.version("pip")) >= FLOOR


@pytest.mark.parametrize("version", ["23.2.1", "22.3", "9.0.1"])
def test_an_old_wizard_pip_is_never_used_to_plan(tmp_path, version):
    assert wizard_pip(_fake_pip(tmp_path, version)) is None


@pytest.mark.parametrize("version", ["23.3", "24.2", "25.1.1"])
def test_a_current_wizard_pip_drives_the_target(tmp_path, version):
    assert wizard_pip(_fake_pip(tmp_path, version)) == [sys.executable, "-m", "pip"]


def test_this_wizard_plans_with_its_own_pip():
    """With the floor declared, ``auto`` always picks the wizard's pip (``--python`` the target),
    never a target's pip that may be the 23.2.1 Python 3.11 ships in a new venv."""
    assert pip_command("/envs/dl/bin/python", "auto", "3.11") == [sys.executable, "-m", "pip", "--python",
                                                                   "/envs/dl/bin/python"]
