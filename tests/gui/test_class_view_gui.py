"""The Report page's "Open class view…": a folder of students' reports → an HTML page written
beside it and opened, off the GUI thread; a folder without reports says so in the window's language."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtWidgets import QMessageBox  # noqa: E402

from tests import class_reports as cr  # noqa: E402
from tests import report_sessions as rs  # noqa: E402
from wizard.core.base.i18n import t  # noqa: E402
from wizard.ui.main_wizard import SetupWizard  # noqa: E402
from wizard.ui.pages.base import PageId  # noqa: E402
from wizard.ui.pages.report_page import register_report_page  # noqa: E402

pytestmark = pytest.mark.gui


@pytest.fixture
def page(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("GSW_DATA_DIR", str(tmp_path / "data"))
    window = SetupWizard(rs.full_session("ko"))
    qtbot.addWidget(window)
    report_page = register_report_page(window)
    window.setStartId(PageId.REPORT)
    window.show()
    qtbot.waitUntil(lambda: window.currentId() == PageId.REPORT and report_page.report is not None, timeout=10000)
    return report_page


def test_the_button_writes_the_class_page_and_opens_it(qtbot, page, tmp_path):
    reports = tmp_path / "반 보고서"
    cr.write_class(reports, count=5, extras=False)
    button = page.class_button
    assert button.text() == t("class_view.ui.button", "ko") and button.isVisible()
    opened = []
    button.choose_folder = lambda: str(reports)
    button.url_opener = lambda url: opened.append(url.toLocalFile()) or True
    with qtbot.waitSignal(button.finished, timeout=30000) as done:
        button.click()
    written = tmp_path / "반 보고서-class-view.html"
    assert done.args == [str(written)] and opened == [str(written)]
    html = written.read_text(encoding="utf-8")
    assert "수업 현황: 학생 보고서 5개" in html and html.count("<tr class=") == 5
    assert button.isEnabled()


def test_a_folder_without_reports_says_so(qtbot, page, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    button = page.class_button
    button.choose_folder = lambda: str(empty)
    button.url_opener = lambda url: pytest.fail("nothing to open")
    with qtbot.waitSignal(button.finished, timeout=30000) as done:
        button.click()
    assert done.args == [""]
    assert button.last_error and "학생 보고서를 찾지 못했습니다" in button.last_error
    box = page.findChild(QMessageBox, "classViewFailed")
    assert box is not None and box.isVisible()
    box.close()


def test_cancelling_the_folder_dialog_does_nothing(qtbot, page):
    button = page.class_button
    button.choose_folder = lambda: ""
    button.click()
    assert button.isEnabled() and button.last_page is None and button.last_error is None


def test_the_button_follows_the_language(qtbot, page):
    assert page.class_button.text() == "수업 현황 열기…"
    page.model.set_language("en")
    qtbot.waitUntil(lambda: page.class_button.text() == "Open class view…", timeout=5000)
    assert "folder of students' JSON reports" in page.class_button.toolTip()
