"""A second run starts where the first ended: the environment it installed (and verified) is
offered first instead of a new ``torch-cpu-2``, and the mirror comes back by itself.

Real parts: two wizards one after the other in the same home, a real venv, pip and downloads
from tests/integration/index_server.py, the real history and install-state files.
"""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")
pytestmark = [pytest.mark.gui, pytest.mark.slow]  # real venvs, pip and downloads

from PySide6.QtWidgets import QWizard  # noqa: E402

from tests.gui.install_driver import make_session, open_pages, wait_end, wait_plan  # noqa: E402
from wizard.app import history as app_history  # noqa: E402
from wizard.app import reuse  # noqa: E402
from wizard.ui.main_wizard import SetupWizard  # noqa: E402
from wizard.ui.pages.base import PageId  # noqa: E402
from wizard.ui.pages.environment.common import MODE_EXISTING, MODE_NEW_VENV  # noqa: E402
from wizard.ui.pages.environment_page import register_install_pages  # noqa: E402
from wizard.ui.pages.install_page import STATE_DONE  # noqa: E402


def second_run(qtbot, build, root):
    """The next start: nothing is set for it (no mirror given), the same home."""
    window = SetupWizard(make_session(build))
    qtbot.addWidget(window)
    env_page, install_page = register_install_pages(window)
    env_page.cache_dir = str(root / "cache")
    env_page.state_dir = str(root / "state")
    window.setStartId(PageId.ENVIRONMENT)
    window.show()
    window.restart()
    return window, env_page, install_page


def test_a_rerun_offers_the_last_environment_and_remembers_the_mirror(qtbot, build, index, wheels, root):
    window, env_page, page = open_pages(qtbot, make_session(build), root, index)
    mirror = env_page.settings.mirror
    env_dir = root / "envs" / "torch-cpu"
    env_page.set_mode(MODE_NEW_VENV)
    env_page.venv_path.setText(str(env_dir))
    wait_plan(qtbot, env_page)
    window.button(QWizard.WizardButton.CommitButton).click()
    wait_end(qtbot, page)
    assert page.state == STATE_DONE, page.message
    assert app_history.save_snapshot(window.model.session).ok  # what Finish does
    assert reuse.load_remembered().mirror == mirror
    window.close()

    window2, env2, page2 = second_run(qtbot, build, root)
    assert env2.settings.mirror == mirror and env2.mirror_edit.text() == mirror  # remembered
    assert "mirror from the last run" in env2.what_label.text()
    assert env2.mode() == MODE_EXISTING  # the environment of the last run, first
    assert env2.existing_combo.currentData().path == str(env_dir)
    assert "last run installed" in env2.existing_note.text() and str(env_dir) in env2.existing_note.text()
    wait_plan(qtbot, env2)
    assert env2.plan is not None and env2.plan.already_satisfied and env2.isComplete()
    window2.button(QWizard.WizardButton.CommitButton).click()
    wait_end(qtbot, page2)
    assert page2.state == STATE_DONE, page2.message
    assert page2.job.summary()["downloaded_bytes"] == 0  # nothing fetched again
    assert not (root / "envs" / "torch-cpu-2").exists()


def test_remembered_settings_survive_a_damaged_file(tmp_path):
    assert reuse.load_remembered(tmp_path).empty  # no file: nothing remembered
    (tmp_path / reuse.REMEMBERED_FILE).write_text("{not json", encoding="utf-8")
    assert reuse.load_remembered(tmp_path).empty
    saved = reuse.save_remembered(reuse.Remembered(mirror="https://mirror.example.org/whl", torch="2.13.0",
                                                   variant="cpu"), tmp_path)
    assert saved is not None
    back = reuse.load_remembered(tmp_path)
    assert (back.mirror, back.torch, back.variant) == ("https://mirror.example.org/whl", "2.13.0", "cpu")
