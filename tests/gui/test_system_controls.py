"""Issue 27.13: the course and storage buttons are where a student sees them without scrolling
at the window's default size, however long the System page's lists below them grow (a PC with
many interpreters, broken pyenv shims)."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from tests import scenarios  # noqa: E402
from tests.gui.wizard_driver import open_wizard  # noqa: E402


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_course_and_storage_buttons_are_seen_without_scrolling(qtbot, lang):
    window = open_wizard(qtbot, scenarios.linux_host(), lang=lang)
    window.resize(window.minimumSize())
    page = window.system_page
    page.broken_details.setText("\n".join(f"~/.pyenv/shims/python3.{n}: version not installed" for n in range(40)))
    page.broken_details.show()  # as on a PC with many broken shims: the boxes grow past the window
    qtbot.wait(50)
    for button in (page.course_row.button, page.storage_button):
        assert button.isVisible()
        shown = button.visibleRegion().boundingRect()
        assert shown == button.rect(), (button.text(), shown, button.rect())
    assert page.course_row.label.visibleRegion().boundingRect().height() > 0  # which course is open
