"""Qt's own dialogs in the student's language, starting in Documents; "Open folder" that says
where the folder is when no file manager answers. Real widgets offscreen: the real QFileDialog
the Report page opens is looked at while it is open, then cancelled."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import QCoreApplication, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QFileDialog, QLabel, QMessageBox  # noqa: E402

from tests import report_sessions as rs  # noqa: E402
from tests import scenarios  # noqa: E402
from wizard.app.session import Session  # noqa: E402
from wizard.ui.main_wizard import SetupWizard  # noqa: E402
from wizard.ui.pages.base import PageId  # noqa: E402
from wizard.ui.pages.report_page import register_report_page  # noqa: E402
from wizard.ui.translations import follow_language, load_translators, qt_language, set_qt_language  # noqa: E402
from wizard.ui.widgets import file_dialogs  # noqa: E402


@pytest.fixture(autouse=True)
def _english_qt_afterwards(qapp):
    yield
    set_qt_language("en")  # the translator is process-wide: later tests expect Qt's English


@pytest.fixture
def documents_home(student_home, monkeypatch):
    """The student's home with a Documents folder; the process works in another folder."""
    (student_home / "Documents").mkdir(parents=True)
    work = student_home.parent / "started here"
    work.mkdir()
    monkeypatch.chdir(work)
    return student_home


def look_at_next_dialog(qtbot, trigger) -> dict:
    """Run ``trigger`` (which opens a modal QFileDialog), read the dialog while it is open, cancel it."""
    seen: dict = {}

    def inspect() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, QFileDialog):
            QTimer.singleShot(50, inspect)
            return
        look_in = dialog.findChild(QLabel, "lookInLabel")
        seen.update(folder=dialog.directory().absolutePath(), look_in=look_in.text() if look_in else None,
                    buttons=sorted(b.text() for b in dialog.findChild(QDialogButtonBox).buttons()),
                    title=dialog.windowTitle(), selected=dialog.selectedFiles())
        dialog.reject()

    QTimer.singleShot(50, inspect)
    trigger()
    assert seen, "no file dialog opened"
    return seen


def report_page(qtbot, lang: str):
    window = SetupWizard(rs.full_session(lang))
    qtbot.addWidget(window)
    follow_language(window.model)
    page = register_report_page(window)
    window.setStartId(PageId.REPORT)
    window.show()
    qtbot.waitUntil(lambda: window.currentId() == PageId.REPORT and page.report is not None, timeout=10000)
    return window, page


def test_qtbase_ko_is_shipped_and_translates_qt_texts(qapp):
    assert load_translators("ko"), "PySide6's qtbase_ko.qm was not found"
    assert load_translators("en") == []
    assert set_qt_language("ko") and qt_language() == "ko"
    assert QCoreApplication.translate("QFileDialog", "Look in:") == "다음에서 찾기:"
    box = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
    assert sorted(b.text() for b in box.buttons()) == ["저장", "취소"]
    assert set_qt_language("en") and qt_language() == "en"
    assert QCoreApplication.translate("QFileDialog", "Look in:") == "Look in:"


def test_a_missing_catalogue_is_reported_not_raised(qapp, tmp_path):
    assert load_translators("ko", dirs=[tmp_path]) == []


def test_the_language_menu_switches_qt_texts_at_run_time(qtbot):
    window = SetupWizard(Session(host=scenarios.linux_host(), lang="en"))
    qtbot.addWidget(window)
    follow_language(window.model)
    assert qt_language() == "en"
    combo = window.system_page.lang_combo
    combo.setCurrentIndex(combo.findData("ko"))  # what the student's click does
    assert window.model.lang == "ko" and qt_language() == "ko"
    assert QCoreApplication.translate("QPlatformTheme", "Cancel") == "취소"
    combo.setCurrentIndex(combo.findData("en"))
    assert qt_language() == "en" and QCoreApplication.translate("QPlatformTheme", "Cancel") == "Cancel"


def test_documents_folder_or_home(tmp_path, monkeypatch, qapp):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    assert file_dialogs.documents_folder() == home  # no Documents folder: the home folder, never the cwd
    (home / "Documents").mkdir()
    assert file_dialogs.documents_folder() == home / "Documents"
    assert file_dialogs.start_in(None, "r.md") == str(home / "Documents" / "r.md")
    assert file_dialogs.start_in(tmp_path / "gone", "r.md") == str(home / "Documents" / "r.md")


def test_save_dialog_opens_in_documents_and_speaks_korean(qtbot, documents_home):
    _window, page = report_page(qtbot, "ko")
    seen = look_at_next_dialog(qtbot, lambda: page.save_dialog("md"))
    assert Path(seen["folder"]) == documents_home / "Documents"
    assert seen["selected"][0].startswith(str(documents_home / "Documents" / "gpu-setup-report-"))
    assert seen["look_in"] == "찾는 위치(&L):"
    assert "저장" in seen["buttons"] and "취소" in seen["buttons"]


def test_save_dialog_in_english_after_switching(qtbot, documents_home):
    window, page = report_page(qtbot, "ko")
    window.model.set_language("en")
    seen = look_at_next_dialog(qtbot, lambda: page.save_dialog("pdf"))
    assert seen["look_in"] == "&Look in:" and "Save" in seen["buttons"]


def test_remote_file_dialog_opens_in_documents(qtbot, documents_home):
    from wizard.ui.pages.report_page import RemoteDialog

    _window, page = report_page(qtbot, "ko")
    dialog = RemoteDialog(page, page.current_lang)
    qtbot.addWidget(dialog)
    seen = look_at_next_dialog(qtbot, dialog._open_file)
    assert Path(seen["folder"]) == documents_home / "Documents" and seen["look_in"] == "찾는 위치(&L):"


def test_open_folder_without_a_file_manager_says_where_it_is(qtbot, documents_home):
    _window, page = report_page(qtbot, "ko")
    asked = []
    page.url_opener = lambda url: asked.append(url.toLocalFile()) or False  # nothing answered xdg-open
    page.folder_button.click()
    folder = documents_home / "Documents"
    assert asked == [str(folder)]
    box = page.findChild(QMessageBox, "openFolderFailed")
    assert box is not None and box.isVisible()
    assert str(folder) in box.text() and "파일 관리자" in box.text()
    assert [b.text() for b in box.buttons()] == ["확인"]  # Qt's own button, in Korean
    assert str(folder) in page.status.text()
    box.accept()


def test_open_folder_that_opens_shows_no_message(qtbot, documents_home):
    _window, page = report_page(qtbot, "en")
    page.url_opener = lambda url: True
    page.folder_button.click()
    assert page.findChild(QMessageBox, "openFolderFailed") is None


def _qt_texts(qapp, lang: str) -> list[str]:
    """Every text of the Qt-built widgets the wizard shows: the file dialog (save and open), a
    line edit's context menu, message-box buttons."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QAbstractButton, QLineEdit, QTreeView

    set_qt_language(lang)
    texts: list[str] = []
    for mode in (QFileDialog.AcceptMode.AcceptSave, QFileDialog.AcceptMode.AcceptOpen):
        dialog = QFileDialog(None, "t")
        dialog.setOption(QFileDialog.Option.DontUseNativeDialog)
        dialog.setAcceptMode(mode)
        dialog.setNameFilter("Markdown (*.md)")
        dialog.show()
        qapp.processEvents()
        texts += [w.text() for w in dialog.findChildren(QLabel)]
        texts += [b.text() for b in dialog.findChildren(QAbstractButton)] + [b.toolTip() for b in dialog.findChildren(QAbstractButton)]
        for view in dialog.findChildren(QTreeView):
            model = view.model()
            texts += [str(model.headerData(i, Qt.Orientation.Horizontal)) for i in range(model.columnCount())]
        dialog.close()
        dialog.deleteLater()
    edit = QLineEdit()
    menu = edit.createStandardContextMenu()  # kept: the menu dies with a temporary line edit
    texts += [a.text() for a in menu.actions()]
    box = QMessageBox()
    box.setStandardButtons(QMessageBox.StandardButton.Ok | QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No
                           | QMessageBox.StandardButton.Cancel | QMessageBox.StandardButton.Close
                           | QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard)
    texts += [b.text() for b in box.buttons()]
    return texts


def test_no_english_left_in_qts_own_widgets_in_korean(qapp):
    english, korean = _qt_texts(qapp, "en"), _qt_texts(qapp, "ko")
    assert len(english) == len(korean)
    left = sorted({en for en, ko in zip(english, korean) if en == ko and any(c.isalpha() for c in en)})
    assert not left, f"Qt texts without a Korean translation (add them to QT_SUPPLEMENT): {left}"
