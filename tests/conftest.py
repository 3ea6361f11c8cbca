"""Shared test helpers: the reference captures, the language reset, a private home, the markers.

Markers describe what a test needs (tests/unit/test_contracts_markers.py checks them):
``gui`` for every test under tests/gui/ or that uses qtbot/qapp, ``slow`` for every test that
uses the torch venv or the Xvfb display. Modules outside those rules mark themselves
(``pytestmark``).
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from tests.kernel_env import kernel_data_dir, kernel_python  # noqa: F401  (shared fixtures: a Jupyter kernel)

# the reference captures; importing them from here still works, tests/reference.py is their home
from tests.reference import REFERENCE, SMI_DIR, reference_file  # noqa: E402,F401
from tests.torch_env import torch_python  # noqa: F401  (a shared session fixture)
from tests.xvfb import xvfb_display  # noqa: F401  (a shared module fixture)

REPO = Path(__file__).resolve().parents[1]

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# The shipped update address and the package indexes are real places on the internet: a test
# reaches them only through an UpdateConfig (or environment) of its own, pointed at 127.0.0.1.
os.environ.setdefault("GSW_COMPAT_UPDATE_URL", "")
os.environ.setdefault("GSW_INDEX_CHECK", "0")

# A run started in the background by a non-interactive shell (`./scripts/test &`, nohup) inherits
# SIGINT ignored (POSIX), and so would every child the tests start: the tests of what Ctrl+C does
# (tests/integration/test_cli_interrupts.py, test_interrupt_any_thread.py) would then see a
# program that cannot be interrupted. Ctrl+C works in the run, and in its children, as at a prompt.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


GUI_DIR = REPO / "tests" / "gui"
GUI_FIXTURES = frozenset({"qtbot", "qapp"})
SLOW_FIXTURES = frozenset({"torch_python", "xvfb_display"})  # a venv with torch; an X server


def pytest_collection_modifyitems(config, items):
    """gui and slow by where a test lives and which fixtures it uses (its whole closure)."""
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if GUI_DIR in Path(str(item.path)).parents or fixtures & GUI_FIXTURES:
            item.add_marker(pytest.mark.gui)
        if fixtures & SLOW_FIXTURES:
            item.add_marker(pytest.mark.slow)


# Where the real user's pip and uv read their settings (package sources, certificates): kept for
# the tests that install with pip/uv, though HOME and XDG_CONFIG_HOME move.
_TOOL_CONFIGS = (("PIP_CONFIG_FILE", ("pip/pip.conf",), (".pip/pip.conf",)),
                 ("UV_CONFIG_FILE", ("uv/uv.toml",), ()))


def _private_home_environment(home: Path) -> dict[str, str]:
    """HOME, the XDG folders (and their Windows counterparts) inside `home`."""
    real_home = Path.home()
    config_home = Path(os.environ.get("XDG_CONFIG_HOME") or real_home / ".config")
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "XDG_CACHE_HOME": str(home / ".cache"), "XDG_DATA_HOME": str(home / ".local" / "share"),
           "XDG_STATE_HOME": str(home / ".local" / "state")}
    if os.name == "nt":
        env |= {"USERPROFILE": str(home), "APPDATA": str(home / "AppData" / "Roaming"),
                "LOCALAPPDATA": str(home / "AppData" / "Local")}
    for variable, under_config, under_home in _TOOL_CONFIGS:
        if os.environ.get(variable):
            continue
        found = [config_home / p for p in under_config] + [real_home / p for p in under_home]
        existing = [p for p in found if p.is_file()]
        if existing:
            env[variable] = str(existing[0])
    return env


@pytest.fixture(autouse=True, scope="session")
def _private_home(tmp_path_factory):
    """Every test, and every process it starts, sees an empty home of its own.

    A leftover ~/GPU-Setup-Wizard/envs, a uv-managed Python under ~/.local/share or a cache of
    an earlier run must not change what a test sees, and no test writes into the real home.
    Set after collection: a module that looks for an optional tool at import time (a Python 3.8
    under ~/.pyenv) still finds it."""
    home = tmp_path_factory.mktemp("home 김")  # Hangul and a space, as students' homes have
    new = _private_home_environment(home)
    previous = {name: os.environ.get(name) for name in new}
    os.environ.update(new)
    yield home
    for name, value in previous.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


LOOPBACK = "127.0.0.1,localhost"
PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


@pytest.fixture
def student_home(tmp_path, monkeypatch) -> Path:
    """A fresh home of this test's own, named as students' are (Hangul and a space): HOME, the
    XDG folders and the wizard's history (GSW_DATA_DIR) inside it, so nothing an earlier test
    saved (history, install state, caches) is seen; no proxy, so a loopback index is reached
    directly. Processes the test starts inherit it."""
    base = tmp_path / "학생 home"
    base.mkdir()
    for name, sub in (("HOME", ""), ("XDG_CACHE_HOME", ".cache"), ("XDG_STATE_HOME", ".local/state"),
                      ("XDG_DATA_HOME", ".local/share"), ("XDG_CONFIG_HOME", ".config"), ("GSW_DATA_DIR", "gsw")):
        monkeypatch.setenv(name, str(base / sub) if sub else str(base))
    if os.name == "nt":
        monkeypatch.setenv("USERPROFILE", str(base))
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", LOOPBACK)
    monkeypatch.setenv("no_proxy", LOOPBACK)
    return base


@pytest.fixture(autouse=True, scope="session")
def _private_data_dir(tmp_path_factory):
    """History snapshots of test runs go to a temporary folder, never the user's data dir."""
    folder = tmp_path_factory.mktemp("gsw-data")
    previous = os.environ.get("GSW_DATA_DIR")
    os.environ["GSW_DATA_DIR"] = str(folder)
    yield folder
    if previous is None:
        os.environ.pop("GSW_DATA_DIR", None)
    else:
        os.environ["GSW_DATA_DIR"] = previous
