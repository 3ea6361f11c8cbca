"""Enter in a field of the Environment page is the field's: it plans again (the index asked
again) and the new plan is shown. It never presses the wizard's default button -- Install, a
commit page -- so a student who presses Enter after typing a mirror sees the new plan first.

Real parts only: pip's dry run against tests/integration/index_server.py; the real wizard's
pages offscreen, keys sent as Qt events.
"""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")
pytestmark = [pytest.mark.gui, pytest.mark.slow]  # real pip resolutions against a loopback index

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QLineEdit, QWizard  # noqa: E402

from tests.gui.install_driver import make_session, open_pages, wait_end, wait_plan  # noqa: E402
from wizard.ui.pages.base import PageId  # noqa: E402
from wizard.ui.pages.environment.common import MODE_NEW_VENV  # noqa: E402


def settle(qtbot, window, env_page, install_page) -> None:
    """Let the debounce, the plan and the checks run (and a queued page change happen); an
    install the key started is let finish, so the failing test ends instead of hanging."""
    qtbot.wait(400)
    qtbot.waitUntil(lambda: window.currentId() != PageId.ENVIRONMENT or not env_page.pending(), timeout=120_000)
    qtbot.wait(200)
    if window.currentId() == PageId.INSTALL:
        wait_end(qtbot, install_page)


def test_enter_after_typing_a_mirror_shows_the_new_plan_instead_of_installing(qtbot, build, index, root):
    window, env_page, page = open_pages(qtbot, make_session(build), root, None)  # a mirror nobody answers
    env_page.set_mode(MODE_NEW_VENV)
    env_page.venv_path.setText(str(root / "envs" / "엔터 키"))
    wait_plan(qtbot, env_page)
    assert env_page.plan_error is not None and not env_page.isComplete()
    env_page.show_settings()
    edit = env_page.mirror_edit
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, index.base + "/whl")
    asked = len(index.log)
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    settle(qtbot, window, env_page, page)
    assert window.currentId() == PageId.ENVIRONMENT, "Enter in the mirror field started the install"
    assert not env_page.go_on
    assert len(index.log) > asked  # the new mirror was asked
    assert env_page.settings.mirror == index.base + "/whl"
    assert env_page.plan_error is None and env_page.plan is not None, env_page.plan_status.text()
    assert env_page.isComplete()  # the new plan is shown and Install waits for a click
    assert window.button(QWizard.WizardButton.CommitButton).isEnabled()


def test_enter_in_every_field_of_the_page_plans_again_and_stays(qtbot, build, index, root):
    window, env_page, page = open_pages(qtbot, make_session(build), root, index)
    env_page.set_mode(MODE_NEW_VENV)
    env_page.venv_path.setText(str(root / "envs" / "모든 칸"))
    wait_plan(qtbot, env_page)
    assert env_page.plan_error is None and env_page.isComplete()
    env_page.show_settings()
    edits = env_page.findChildren(QLineEdit)
    names = {e.objectName() for e in edits}
    assert {"mirrorEdit", "pythonMirrorEdit", "proxyEdit", "venvPath", "condaName"} <= names
    for edit in edits:
        asked = len(index.log)
        qtbot.keyClick(edit, Qt.Key.Key_Enter if edit.objectName() == "proxyEdit" else Qt.Key.Key_Return)
        settle(qtbot, window, env_page, page)
        assert window.currentId() == PageId.ENVIRONMENT, f"Enter in {edit.objectName()} started the install"
        assert not env_page.go_on
        if env_page.mode() == MODE_NEW_VENV:
            assert len(index.log) > asked, f"Enter in {edit.objectName()} did not ask the index again"
            assert env_page.plan_error is None and env_page.isComplete()
    assert window.button(QWizard.WizardButton.CommitButton).isEnabled()  # a click still installs
