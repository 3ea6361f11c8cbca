"""The Install page's "Change settings" after a failure the settings can fix: back on the
Environment page the mirror/extras settings are open, for a file the mirror lists but does not
serve (HTTP 404: another index is the way out) as for a connection failure.

Real parts: the wizard's pages, a real venv, uv/pip and the loopback index of
tests/integration/index_server.py answering 404 for the torch wheel.
"""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")
pytestmark = [pytest.mark.gui, pytest.mark.slow]  # a real venv and a real install attempt

from tests.gui.install_driver import choose_new_venv, commit, make_session, open_pages, wait_end  # noqa: E402
from tests.integration.index_server import LoopbackIndex  # noqa: E402
from wizard.app.install import FailureKind  # noqa: E402
from wizard.ui.pages.base import PageId  # noqa: E402


def test_change_settings_after_a_missing_file_opens_the_settings(qtbot, build, wheels, root):
    with LoopbackIndex() as idx:
        idx.add_wheels(wheels.values())
        idx.fail(wheels["torch"].name, 404)  # listed, not served: the mirror is being synced
        window, env_page, page = open_pages(qtbot, make_session(build), root, idx)
        choose_new_venv(qtbot, env_page, root / "envs" / "빠진 파일")
        assert not env_page.advanced.isVisibleTo(env_page)
        commit(window)
        wait_end(qtbot, page)
        assert page.state == "failed", page.message
        assert page.job is not None and page.job.failure is not None
        assert page.job.failure.failure_kind == FailureKind.MISSING_FILE
        assert page.change_button.isVisible()
        page.change_button.click()
        assert window.currentId() == PageId.ENVIRONMENT
        assert env_page.advanced.isVisibleTo(env_page)  # the mirror field is where to name another index
