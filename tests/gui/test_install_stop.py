"""Cancel and close while an install runs: the wizard asks first, stops through the engine, closes
only once the job has stopped, and the next run resumes with the same versions and index.

Real parts: the wizard's own Cancel (reject) and window close (closeEvent), real venvs, pip and
downloads from tests/integration/index_server.py; only the question's answer is given by the test
(``ask_yes_no`` is the one function every stop question goes through).
"""

from __future__ import annotations

import subprocess

import pytest

pytest.importorskip("pytestqt")
pytestmark = [pytest.mark.gui, pytest.mark.slow]  # real venvs, pip and downloads

from PySide6.QtWidgets import QWizard  # noqa: E402

from tests.gui.install_driver import WAIT_MS, env_python, make_session, open_pages, wait_end, wait_plan  # noqa: E402
from tests.integration.index_server import LoopbackIndex, make_wheel  # noqa: E402
from wizard.core.install.recovery import STATUS_CANCELLED, STATUS_COMPLETE, StateStore  # noqa: E402
from wizard.ui.pages.base import PageId  # noqa: E402
from wizard.ui.pages.environment.common import MODE_NEW_VENV, MODE_RESUME  # noqa: E402
from wizard.ui.pages.install_page import STATE_CANCELLED, STATE_DONE  # noqa: E402


class Answers:
    """The stop question, answered by the test: records what was asked, says no/yes in turn."""

    def __init__(self, *answers: bool) -> None:
        self.answers = list(answers)
        self.asked: list[tuple[str, str, str, str]] = []

    def __call__(self, _parent, title: str, text: str, yes: str, no: str) -> bool:
        self.asked.append((title, text, yes, no))
        return self.answers.pop(0)


def start_install(qtbot, window, env_page, env_dir) -> None:
    env_page.set_mode(MODE_NEW_VENV)
    env_page.venv_path.setText(str(env_dir))
    wait_plan(qtbot, env_page)
    window.button(QWizard.WizardButton.CommitButton).click()
    assert window.currentId() == PageId.INSTALL


def resume_next_run(qtbot, build, root, idx, env_dir, first_options):
    """A new wizard (the next start): the unfinished install is offered, and resuming it asks
    for exactly the requirements and index of the first run -- whatever today's settings say."""
    window, env_page, page = open_pages(qtbot, make_session(build), root, idx)
    env_page.settings.mirror = ""  # today's settings differ: the resume must not follow them
    env_page._fill_unfinished()
    assert env_page.mode_buttons[MODE_RESUME].isVisibleTo(env_page)
    env_page.set_mode(MODE_RESUME)
    assert env_page.resume_combo.currentData().env_path == str(env_dir)
    wait_plan(qtbot, env_page)
    saved = StateStore(root / "state").load(str(env_dir)).plan
    assert saved and env_page.plan is not None and env_page.plan.to_json()["files"] == saved["files"]
    assert env_page.options().requirements == first_options.requirements
    assert env_page.options().index_url == first_options.index_url
    assert first_options.index_url in env_page.resume_note.text()
    window.button(QWizard.WizardButton.CommitButton).click()
    assert window.currentId() == PageId.INSTALL
    assert page.job.options.requirements == first_options.requirements
    assert page.job.options.index_url == first_options.index_url
    wait_end(qtbot, page)
    assert page.state == STATE_DONE, page.message
    return window, page


def imports_work(env_dir) -> bool:
    out = subprocess.run([str(env_python(env_dir)), "-c", "import torch, torchvision"], capture_output=True,
                         timeout=60)
    return out.returncode == 0


def test_cancel_during_the_download_asks_stops_then_closes_and_the_next_run_resumes(
        qtbot, build, index, wheels, root, monkeypatch, capfd):
    answers = Answers(False, True)  # first "keep installing", then "stop and close"
    monkeypatch.setattr("wizard.ui.pages.install_page.ask_yes_no", answers)
    index.throttle(wheels["torch"].name, 500_000)
    window, env_page, page = open_pages(qtbot, make_session(build), root, index)
    env_dir = root / "envs" / "다운로드 중 취소"
    start_install(qtbot, window, env_page, env_dir)
    first = page.job.options
    qtbot.waitUntil(lambda: page.last_download is not None and page.last_download.fetched_bytes > 300_000,
                    timeout=WAIT_MS)
    window.button(QWizard.WizardButton.CancelButton).click()  # the wizard's Cancel
    assert len(answers.asked) == 1 and window.isVisible() and page.runner.running  # "no": nothing stops
    title, text, yes, _no = answers.asked[0]
    assert "Stop" in title and "download" in text.lower() and "closes" in text
    window.close()  # the window's own close button: asks again
    assert len(answers.asked) == 2
    assert window.isVisible(), "the window must wait for the job to stop"
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=WAIT_MS)  # closes by itself once stopped
    assert not page.runner.running and page.state == STATE_CANCELLED
    state = StateStore(root / "state").load(str(env_dir))
    assert state.status == STATUS_CANCELLED and state.failed_step == "download"
    assert state.index_url == first.index_url and state.requirements == first.requirements
    assert "Resume" in page.message and page.kept_bytes() > 0
    index.throttle(wheels["torch"].name, None)
    _window, _page = resume_next_run(qtbot, build, root, index, env_dir, first)
    assert imports_work(env_dir)
    assert StateStore(root / "state").load(str(env_dir)).status == STATUS_COMPLETE
    assert "Destroyed while process" not in capfd.readouterr().err


def test_close_during_the_install_step_lets_it_finish_and_the_environment_works_or_resumes(
        qtbot, build, root, monkeypatch, capfd, tmp_path_factory):
    answers = Answers(True)
    monkeypatch.setattr("wizard.ui.pages.install_page.ask_yes_no", answers)
    best = build.best
    d = tmp_path_factory.mktemp("slow install wheels")
    slow = [make_wheel(d, "torch", f"{best.torch}+cpu", requires=["typing-extensions>=4"], many_files=4000),
            make_wheel(d, "torchvision", f"{best.torchvision}+cpu", requires=[f"torch=={best.torch}"]),
            make_wheel(d, "typing-extensions", "4.12.2", files={"typing_extensions.py": "X = 1\n"})]
    with LoopbackIndex() as idx:
        idx.add_wheels(slow)
        window, env_page, page = open_pages(qtbot, make_session(build), root, idx)
        env_dir = root / "envs" / "설치 중 닫기"
        start_install(qtbot, window, env_page, env_dir)
        first = page.job.options
        qtbot.waitUntil(lambda: page.runner is not None and page.runner.current is not None
                        and page.runner.current.id == "install", timeout=WAIT_MS)
        window.close()
        assert len(answers.asked) == 1
        _title, text, _yes, _no = answers.asked[0]
        assert "finish" in text and "closes" in text  # the step finishes first, then it stops
        assert page.stopped_in_install_step
        assert window.isVisible() or not page.runner.running
        qtbot.waitUntil(lambda: not window.isVisible(), timeout=WAIT_MS)
        assert not page.runner.running
        state = StateStore(root / "state").load(str(env_dir))
        if state.status == STATUS_COMPLETE:
            assert imports_work(env_dir)
        else:  # reported unfinished, and the next run resumes it with the same versions and index
            assert state.status == STATUS_CANCELLED and state.failed_step in ("install", "verify", "finish")
            assert "install" in state.steps_done  # pip was allowed to finish: the real step is recorded
            assert state.index_url == first.index_url and state.requirements == first.requirements
            resume_next_run(qtbot, build, root, idx, env_dir, first)
            assert imports_work(env_dir)
    assert "Destroyed while process" not in capfd.readouterr().err


def test_stop_now_during_the_install_step_says_it_may_break_and_resume_repairs(qtbot, build, root, monkeypatch,
                                                                                tmp_path_factory):
    answers = Answers(True, True)  # "stop and close", then "stop now" although the installer writes
    monkeypatch.setattr("wizard.ui.pages.install_page.ask_yes_no", answers)
    best = build.best
    d = tmp_path_factory.mktemp("very slow install wheels")
    slow = [make_wheel(d, "torch", f"{best.torch}+cpu", requires=["typing-extensions>=4"], many_files=20000),
            make_wheel(d, "torchvision", f"{best.torchvision}+cpu", requires=[f"torch=={best.torch}"]),
            make_wheel(d, "typing-extensions", "4.12.2", files={"typing_extensions.py": "X = 1\n"})]
    with LoopbackIndex() as idx:
        idx.add_wheels(slow)
        window, env_page, page = open_pages(qtbot, make_session(build), root, idx)
        env_dir = root / "envs" / "강제 중지"
        start_install(qtbot, window, env_page, env_dir)
        first = page.job.options
        qtbot.waitUntil(lambda: page.runner is not None and page.runner.current is not None
                        and page.runner.current.id == "install", timeout=WAIT_MS)
        window.close()
        assert len(answers.asked) == 1 and page.stopped_in_install_step
        if page.runner.running:  # the installer is still writing: the second, explicit way out
            assert page.force_button.isVisible()
            assert page.force_stop()
            _title, text, yes, _no = answers.asked[1]
            assert "half-written" in text and yes == "Stop now"
        qtbot.waitUntil(lambda: not window.isVisible(), timeout=WAIT_MS)
        assert not page.runner.running
        state = StateStore(root / "state").load(str(env_dir))
        if page.job.killed_mid_write:
            assert state.status == STATUS_CANCELLED and state.error_kind == "killed-mid-write"
            assert "half-written" in page.message and "Resume" in page.message
        resume_next_run(qtbot, build, root, idx, env_dir, first)  # installs the packages again
        assert imports_work(env_dir)
