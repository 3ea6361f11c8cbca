"""Issue 27.12: on a 640×480 screen the window shrinks to the screen and the Recommendation page
wraps its text instead of running off the right edge (an interpreter's long path in the Python
list used to widen the page past the window)."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import QSize  # noqa: E402

from tests import scenarios  # noqa: E402
from tests.gui import layout_check  # noqa: E402
from tests.gui.wizard_driver import go_to, open_wizard  # noqa: E402
from wizard.ui.pages.base import PageId  # noqa: E402

SMALL = QSize(640, 480)


def test_the_window_shrinks_to_a_small_screen_and_keeps_its_size_on_a_large_one(qtbot):
    window = open_wizard(qtbot, scenarios.linux_host(), lang="en")
    window.fit_to_screen(QSize(1920, 1080))
    assert window.minimumSize() == QSize(940, 680)
    window.fit_to_screen(SMALL)
    qtbot.wait(20)
    assert window.minimumSize() == SMALL and window.size() == SMALL


@pytest.mark.parametrize("lang", ["ko", "en"])
@pytest.mark.parametrize("machine", ["linux_host", "windows_rtx2080super"])
def test_the_recommendation_page_wraps_at_640_by_480(qtbot, machine, lang):
    window = open_wizard(qtbot, getattr(scenarios, machine)(), lang=lang)
    window.fit_to_screen(SMALL)
    go_to(window, PageId.RECOMMEND)
    page = window.recommend_page
    combo = page.python_combo
    long_path = "/home/student/.pyenv/versions/3.12.1/envs/a-very-long-environment-name/bin/python3.12"
    combo.addItem(f"Python 3.12.1 — {long_path}", "3.12")  # as a pyenv interpreter lists itself
    qtbot.wait(50)
    assert window.size() == SMALL
    found = {}
    for state in ("", "more"):
        if state:
            page.more_button.click()
            qtbot.wait(50)
        problems = layout_check.check_window(window)
        if problems:
            found[state or "first"] = layout_check.describe(problems)
    assert not found, found
    assert page.page_scroll.widget().width() <= page.page_scroll.viewport().width()
