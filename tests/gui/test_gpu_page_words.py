"""The GPU page says what each source found in the student's words, not an internal code
("출처: nvml: no-driver" on a Korean screen)."""

from __future__ import annotations

import pytest

from tests import scenarios
from tests.gui.wizard_driver import go_to, open_wizard
from wizard.ui.pages.base import PageId


@pytest.mark.parametrize("lang, words", [("ko", "드라이버/라이브러리 버전 불일치"), ("en", "version mismatch")])
def test_the_sources_row_says_what_each_source_found(qtbot, history_dir, lang, words):
    window = open_wizard(qtbot, scenarios.linux_driver_mismatch(), lang=lang)
    go_to(window, PageId.GPU)
    row = window.gpu_page.driver_form._rows["doctor.sources"][1].text()
    assert "NVML: " in row and words in row
    assert "version-mismatch" not in row and "nvml:" not in row and ".;" not in row


def test_a_source_that_answered_is_ok_in_korean(qtbot, history_dir):
    window = open_wizard(qtbot, scenarios.windows_rtx3060(), lang="ko")
    go_to(window, PageId.GPU)
    row = window.gpu_page.driver_form._rows["doctor.sources"][1].text()
    assert "NVML: 정상" in row and ": ok" not in row
