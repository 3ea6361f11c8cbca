"""A run that reached the report is saved to the history however the window closes, so the next
run (after a driver update) has its baseline; a run closed before the report is not."""

from __future__ import annotations

import pytest

from tests import scenarios
from tests.gui.wizard_driver import go_to, open_wizard
from wizard.app import history as app_history
from wizard.ui.pages.base import PageId


@pytest.mark.parametrize("close", ["cancel", "window_x"])
def test_closing_after_the_report_saves_the_run(qtbot, history_dir, close):
    window = open_wizard(qtbot, scenarios.linux_host())
    go_to(window, PageId.REPORT)
    assert app_history.open_store().entries() == []
    if close == "cancel":
        window.reject()
    else:
        window.close()
    entries = app_history.open_store().entries()
    assert len(entries) == 1
    assert entries[0].snapshot.driver_version == window.model.session.detection.nvidia.driver_version


def test_closing_before_the_report_saves_nothing(qtbot, history_dir):
    window = open_wizard(qtbot, scenarios.linux_host())
    window.reject()
    assert app_history.open_store().entries() == []
