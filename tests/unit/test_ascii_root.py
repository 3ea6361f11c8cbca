"""The ASCII-root rule: on Windows with a non-ASCII (Hangul) home, new environments go under
``<system drive>\\GPU-Setup-Wizard\\envs`` and the wizard says where and why; elsewhere under the home."""

from __future__ import annotations

import pytest

from tests.recorded_host import RecordedHost
from wizard.app.environments import env_root_note
from wizard.app.install import default_venv_path
from wizard.core.base.ascii_root import ascii_env_root, needs_ascii_root
from wizard.core.machine.system import default_env_root

HANGUL_HOME = "C:\\Users\\김학생"


@pytest.mark.parametrize(("os_name", "path", "needs"), [
    ("windows", HANGUL_HOME, True),
    ("windows", "C:\\Users\\José", True),  # any non-ASCII letter, not only Hangul
    ("windows", "C:\\Users\\kim hs", False),  # a space is not the problem this rule is about
    ("linux", "/home/김학생", False),  # Linux and macOS tools take UTF-8 paths
    ("macos", "/Users/김학생", False),
])
def test_needs_ascii_root(os_name, path, needs):
    assert needs_ascii_root(os_name, path) is needs


def test_ascii_env_root_on_the_system_drive():
    assert ascii_env_root("windows", HANGUL_HOME, "C:") == "C:\\GPU-Setup-Wizard\\envs"
    assert ascii_env_root("windows", "D:\\Users\\김학생", "d:") == "D:\\GPU-Setup-Wizard\\envs"
    for odd in (None, "", "C:\\Windows", "가:", "\\\\server\\share"):  # not a drive: C:
        assert ascii_env_root("windows", HANGUL_HOME, odd) == "C:\\GPU-Setup-Wizard\\envs"
    assert ascii_env_root("windows", "C:\\Users\\kim", "C:") is None
    assert ascii_env_root("linux", "/home/김학생", None) is None


def test_default_env_root_and_venv_path_follow_the_rule():
    hangul = RecordedHost(os_name="windows", home_dir=HANGUL_HOME, env={"SystemDrive": "C:"})
    assert default_env_root(hangul) == "C:\\GPU-Setup-Wizard\\envs"
    assert default_venv_path(hangul, None, None) == "C:\\GPU-Setup-Wizard\\envs\\pytorch"
    ascii_home = RecordedHost(os_name="windows", home_dir="C:\\Users\\kim", env={"SystemDrive": "C:"})
    assert default_env_root(ascii_home) == "C:\\Users\\kim\\GPU-Setup-Wizard\\envs"
    linux = RecordedHost(os_name="linux", home_dir="/home/김학생")
    assert default_env_root(linux) == "/home/김학생/GPU-Setup-Wizard/envs"


def test_the_wizard_says_where_and_why():
    note = env_root_note(RecordedHost(os_name="windows", home_dir=HANGUL_HOME, env={"SystemDrive": "C:"}))
    assert note is not None
    for lang in ("ko", "en"):
        text = note.text(lang)
        assert "C:\\GPU-Setup-Wizard\\envs" in text and HANGUL_HOME in text
        assert "torch.compile" in text and "conda" in text
    assert env_root_note(RecordedHost(os_name="windows", home_dir="C:\\Users\\kim")) is None
    assert env_root_note(RecordedHost(os_name="linux", home_dir="/home/김학생")) is None
