"""Driving the Environment and Install pages against a real index on 127.0.0.1: the build the
recommender picks, tiny wheels named like it, the index serving them, the student's home
(fixtures: tests/gui/conftest.py takes them from here), and the steps a test takes on the pages
(open them, wait for the plan, commit, wait for the end), with a heartbeat that measures how long
the event loop was blocked."""

from __future__ import annotations

import os
import platform
import sys
import time
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QWizard

from tests.integration.index_server import LoopbackIndex, make_wheel
from wizard.app.session import Session
from wizard.core.base.host import RealHost
from wizard.core.machine.models import CondaInstall, Detection, NvidiaInfo, PythonInterpreter, SystemInfo
from wizard.ui.main_wizard import SetupWizard
from wizard.ui.pages.base import PageId
from wizard.ui.pages.environment.common import MODE_NEW_VENV
from wizard.ui.pages.environment_page import register_install_pages

TORCH_PAYLOAD = 3_000_000
WAIT_MS = 120_000


def env_python(path: Path) -> Path:
    return path / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


# --------------------------------------------------------------------------------------------
# Fixtures
# --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def build():
    """The build the recommender picks for torch 2.13 CPU on this Python, as in the CLI tests."""
    from wizard.core.recommend.inputs import MachineFacts, Wishes
    from wizard.core.recommend.recommender import recommend

    minor = f"{sys.version_info[0]}.{sys.version_info[1]}"
    rec = recommend(MachineFacts("linux", "x86_64", minor), Wishes(torch="2.13.0", variant="cpu"))
    if rec.best is None or sys.platform != "linux":
        pytest.skip("the recommender offers no torch 2.13 CPU build for this Python/OS")
    return rec


@pytest.fixture(scope="module")
def wheels(build, tmp_path_factory):
    best = build.best
    d = tmp_path_factory.mktemp("wheels")
    return {
        "torch": make_wheel(d, "torch", f"{best.torch}+cpu", requires=["typing-extensions>=4"],
                            payload_bytes=TORCH_PAYLOAD, seed=7),
        "torchvision": make_wheel(d, "torchvision", f"{best.torchvision}+cpu", requires=[f"torch=={best.torch}"]),
        "typing": make_wheel(d, "typing-extensions", "4.12.2", files={"typing_extensions.py": "X = 1\n"}),
    }


@pytest.fixture()
def index(wheels):
    with LoopbackIndex() as idx:
        idx.add_wheels(wheels.values())
        yield idx


@pytest.fixture()
def root(student_home, monkeypatch):
    """The student's home (Hangul and a space; tests/conftest.py), where the wizard's cache,
    state, history and remembered settings of this test live.

    HOME too: the default environment folder (<home>/GPU-Setup-Wizard/envs/torch-cpu) is
    numbered past folders that an earlier test left there."""
    monkeypatch.setenv("USERPROFILE", str(student_home))
    monkeypatch.setenv("GSW_CONFIG_DIR", str(student_home / "config home"))  # what a run remembers for the next
    return student_home


def this_python() -> PythonInterpreter:
    return PythonInterpreter(path=sys.executable, version=platform.python_version(), arch="x86_64", bits=64,
                             implementation="CPython", source="current", is_venv=sys.prefix != sys.base_prefix)


def make_session(build, conda: list[CondaInstall] | None = None) -> Session:
    from wizard.core.recommend.choose_python import PythonChoice

    session = Session(host=RealHost(), lang="en")
    py = this_python()
    session.detection = Detection(SystemInfo(os="linux"), NvidiaInfo(), pythons=[py], conda=conda or [])
    session.recommendation = PythonChoice(f"{sys.version_info[0]}.{sys.version_info[1]}", py, build)
    session.candidate = build.best
    return session


def open_pages(qtbot, session: Session, root: Path, index: LoopbackIndex | None, extras_index: str | None = None):
    """The real wizard, starting at the Environment page, with the mirror setting pointing at the
    loopback index (or, without one, at a port nobody listens on: tests never reach the internet);
    ``extras_index``: where a course's extras come from when the mirror lacks them (a loopback
    "PyPI"), set before the first plan is asked."""
    from tests.integration.index_server import free_port

    window = SetupWizard(session)
    qtbot.addWidget(window)
    env_page, install_page = register_install_pages(window)
    env_page.cache_dir = str(root / "cache")
    env_page.state_dir = str(root / "state")
    env_page.settings.mirror = (index.base if index is not None else f"http://127.0.0.1:{free_port()}") + "/whl"
    if extras_index is not None:
        env_page.settings.extras_index = extras_index
    window.setStartId(PageId.ENVIRONMENT)
    window.show()
    window.restart()
    assert window.currentId() == PageId.ENVIRONMENT
    assert env_page.mirror_edit.text() == env_page.settings.mirror  # the setting is shown
    return window, env_page, install_page


def wait_plan(qtbot, page) -> None:
    page.refresh()
    qtbot.waitUntil(lambda: not page.plan_running and page.checks is not None and not page.checks_running,
                    timeout=WAIT_MS)


def choose_new_venv(qtbot, page, path: Path) -> None:
    page.set_mode(MODE_NEW_VENV)
    page.venv_path.setText(str(path))
    wait_plan(qtbot, page)


def commit(window) -> None:
    button = window.button(QWizard.WizardButton.CommitButton)
    assert button.isVisible() and button.isEnabled()
    assert button.text() == "Install"
    button.click()
    assert window.currentId() == PageId.INSTALL


def wait_end(qtbot, page) -> None:
    qtbot.waitUntil(lambda: page.runner is not None and not page.runner.running
                    and page.state not in ("running", "stopping"), timeout=WAIT_MS)


class Heartbeat:
    """A 10 ms QTimer; the longest gap between ticks, per install step (what a student feels as
    a frozen window)."""

    def __init__(self, page) -> None:
        self.page = page
        self.gaps: dict[str, float] = {}
        self.ticks: dict[str, int] = {}
        self.last = time.perf_counter()
        self.timer = QTimer()
        self.timer.setInterval(10)
        self.timer.timeout.connect(self.tick)
        self.timer.start()

    def tick(self) -> None:
        now = time.perf_counter()
        gap, self.last = now - self.last, now
        runner = self.page.runner
        step = runner.current.id if runner is not None and runner.running and runner.current is not None else "-"
        self.gaps[step] = max(self.gaps.get(step, 0.0), gap)
        self.ticks[step] = self.ticks.get(step, 0) + 1

    def stop(self) -> None:
        self.timer.stop()
