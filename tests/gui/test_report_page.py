"""The Report page, offscreen: the preview is the export, every Save as… format, Copy as Markdown,
Open folder, Add Colab/cloud result…, the privacy switch, and the history list with its diff."""

from __future__ import annotations

import datetime as _dt
import json

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtGui import QGuiApplication  # noqa: E402
from PySide6.QtWidgets import QDialog  # noqa: E402

from tests import report_sessions as rs  # noqa: E402
from tests.gui.wizard_driver import open_report_page  # noqa: E402
from wizard.core.report.as_json import loads  # noqa: E402
from wizard.core.report.remote import machine_from_text  # noqa: E402
from wizard.core.report.render import render_markdown  # noqa: E402
from wizard.ui.main_wizard import SetupWizard  # noqa: E402
from wizard.ui.pages.base import PageId  # noqa: E402
from wizard.ui.pages.report_page import RemoteDialog, ReportPage, register_report_page, sweep_plot_png  # noqa: E402


def test_register_replaces_the_placeholder(qtbot, history_dir):
    window = SetupWizard(rs.full_session("en"))
    qtbot.addWidget(window)
    ids = window.pageIds()
    page = register_report_page(window)
    assert window.pageIds() == ids
    assert window.page(PageId.REPORT) is page and window.report_page is page and isinstance(page, ReportPage)


def test_preview_is_the_report(qtbot, history_dir):
    _window, page = open_report_page(qtbot)
    shown = page.preview.toPlainText()
    for text in ("GPU/Cloud 환경 점검 결과", "벤치마크(Benchmark)", "판단", "NVIDIA GeForce RTX 3060", "16.3배"):
        assert text in shown, text
    assert page.report.title == "GPU/Cloud 환경 점검 결과"
    assert "data:image/png;base64," in page.html  # the benchmark sweep, drawn for the report
    assert rs.HOME not in shown and "~/envs/dl" in shown


def test_save_as_every_format_to_a_hangul_path_with_a_space(qtbot, history_dir, tmp_path):
    _window, page = open_report_page(qtbot)
    assert [a.objectName() for a in page.save_menu.actions()] == ["save_md", "save_html", "save_pdf", "save_json"]
    folder = tmp_path / "내 보고서"
    folder.mkdir()
    for fmt in ("md", "html", "pdf", "json"):
        target = folder / f"점검 결과.{fmt}"
        assert page.save_to(fmt, target), page.status.text()
        assert str(target) in page.status.text()
    assert (folder / "점검 결과.md").read_text(encoding="utf-8") == render_markdown(page.report)
    assert loads((folder / "점검 결과.json").read_text(encoding="utf-8")) == page.report
    html = (folder / "점검 결과.html").read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "data:image/png;base64," in html
    assert (folder / "점검 결과.pdf").read_bytes().startswith(b"%PDF-")
    assert sorted(p.name for p in folder.iterdir()) == sorted(f"점검 결과.{f}" for f in ("md", "html", "pdf", "json"))
    assert page.last_saved == folder / "점검 결과.json"


def test_a_failed_save_says_why(qtbot, history_dir, tmp_path):
    _window, page = open_report_page(qtbot, lang="en")
    assert not page.save_to("md", tmp_path / "no such folder" / "r.md")
    assert "cannot write" in page.status.text()


def test_copy_as_markdown_and_open_folder(qtbot, history_dir, tmp_path, monkeypatch):
    _window, page = open_report_page(qtbot)
    page.copy_button.click()
    assert QGuiApplication.clipboard().text() == render_markdown(page.report)
    opened = []
    page.url_opener = lambda url: opened.append(url) or True  # the file manager's side of openUrl
    page.save_to("md", tmp_path / "r.md")
    page.folder_button.click()
    assert [u.toLocalFile() for u in opened] == [str(tmp_path)]


def test_the_privacy_switch(qtbot, history_dir):
    _window, page = open_report_page(qtbot)
    assert rs.USER not in page.html
    page.private.setChecked(True)
    assert f"{rs.HOME}/envs/dl" in page.preview.toPlainText() and page.report.private_included
    page.private.setChecked(False)
    assert rs.USER not in page.preview.toPlainText()


def test_add_and_remove_a_colab_result(qtbot, history_dir):
    _window, page = open_report_page(qtbot, lang="en")
    assert "no result added" in page.report.item("checklist", "colab").value
    page.add_remote(machine_from_text(rs.colab_smi_text(), label="colab.txt"))
    assert page.report.item("checklist", "colab").value.startswith("yes — Tesla T4")
    assert "Colab · colab.txt" in page.preview.toPlainText()
    assert page.remotes_label.isVisibleTo(page) and "Tesla T4" in page.remotes_label.text()
    page.remove_remote.click()
    assert page.report.item("checklist", "colab").value.startswith("no result added")
    assert not page.remotes_label.isVisibleTo(page)


def test_the_add_dialog(qtbot, tmp_path):
    dialog = RemoteDialog()
    qtbot.addWidget(dialog)
    dialog.text.setPlainText("this is not nvidia-smi")
    dialog.accept()
    assert dialog.result() != QDialog.DialogCode.Accepted and "Neither a report JSON" in dialog.error.text()
    saved = tmp_path / "cloud smi.txt"
    saved.write_bytes(b"\xff\xfe" + rs.colab_smi_text().replace("!nvidia-smi\n", "").encode("utf-16-le"))
    dialog.load_file(str(saved))
    dialog.kind.setCurrentIndex(dialog.kind.findData("cloud"))
    dialog.accept()
    assert dialog.result() == QDialog.DialogCode.Accepted
    assert dialog.machine.kind == "cloud" and dialog.machine.label == "cloud smi.txt"


def test_the_add_dialog_reads_at_most_the_cap_and_says_so(qtbot, tmp_path):
    from wizard.core.base.user_input import MAX_USER_BYTES

    dialog = RemoteDialog()
    qtbot.addWidget(dialog)
    huge = tmp_path / "log.csv"
    huge.write_bytes(b"name, memory.total [MiB]\n" + b"NVIDIA T4, 15360 MiB\n" * (MAX_USER_BYTES // 20 + 10))
    dialog.load_file(str(huge))
    assert len(dialog.text.toPlainText().encode()) <= MAX_USER_BYTES
    assert "log.csv" in dialog.error.text() and "4 MB" in dialog.error.text()


def test_history_list_and_diff(qtbot, history_dir):
    from wizard.core.history.store import HistoryStore, build_snapshot

    session = rs.full_session("en")
    store = HistoryStore()
    older = build_snapshot(session.detection, now=_dt.datetime(2026, 11, 1, 9, 0, tzinfo=_dt.timezone.utc))
    older.driver_version, older.cuda_version = "550.120", "12.4"
    assert store.save(older).ok
    assert store.save(build_snapshot(session.detection,
                                     now=_dt.datetime(2026, 11, 20, 9, 0, tzinfo=_dt.timezone.utc))).ok
    _window, page = open_report_page(qtbot, session, lang="en")
    page.tabs.setCurrentIndex(1)
    assert page.history_list.count() == 2
    assert page.history_list.item(0).text().startswith("#2")  # newest first
    assert "Run #2" in page.diff_view.toPlainText() and "Nothing changed." in page.diff_view.toPlainText()
    page.history_list.setCurrentRow(1)
    diff = page.diff_view.toPlainText()
    assert "#1" in diff and "550.120" in diff and "570.133.07" in diff


def test_history_when_nothing_was_saved(qtbot, history_dir):
    _window, page = open_report_page(qtbot, lang="en")
    page.tabs.setCurrentIndex(1)
    assert page.history_list.count() == 0 and "No runs saved yet" in page.history_note.text()


def test_language_switch_rebuilds_the_report(qtbot, history_dir):
    window, page = open_report_page(qtbot, lang="ko")
    assert "판단" in page.preview.toPlainText()
    window.model.set_language("en")
    assert page.report.lang == "en" and "Judgment" in page.preview.toPlainText()
    assert page.copy_button.text() == "Copy as Markdown"


def test_a_session_where_only_detection_ran(qtbot, history_dir):
    _window, page = open_report_page(qtbot, rs.detection_only_session("en"), lang="en")
    assert page.report.item("benchmark", "cpu_time").status == "not_run"
    assert "data:image/png" not in page.html  # no benchmark, no plot
    doc = json.loads(page.text("json"))
    assert doc["machines"][0]["cpu_s"] is None


def test_sweep_plot():
    from PySide6.QtGui import QImage

    session = rs.full_session("en")
    png = sweep_plot_png(session.bench, "en")
    image = QImage.fromData(png, "PNG")
    assert image.width() == 1280 and image.height() == 600
    assert sweep_plot_png(None, "en") is None
