"""The Report page's "Copy Colab cell": the cell the command line prints (``colab-cell``) goes to
the clipboard, in either language, and the page says what to do with it; the cell's result file
goes back through the page's "Add Colab/cloud result…" dialog (recorded probe events here; the
real run of the cell is tests/integration/test_colab_cell.py)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtGui import QGuiApplication  # noqa: E402

from tests.gui.wizard_driver import open_report_page  # noqa: E402
from tests.remote_results import remote_probe_doc  # noqa: E402
from wizard.core.report.colab_cell import colab_cell  # noqa: E402
from wizard.ui.pages.report_page import RemoteDialog  # noqa: E402


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_copy_colab_cell_puts_the_cell_on_the_clipboard(qtbot, history_dir, lang):
    _window, page = open_report_page(qtbot, lang=lang)
    assert page.colab_button.text() == {"ko": "Colab 셀 복사", "en": "Copy Colab cell"}[lang]
    page.colab_button.click()
    assert QGuiApplication.clipboard().text() == colab_cell("colab")
    assert "gpu-setup-result.json" in page.status.text()


def test_the_cells_result_is_added_through_the_dialog(qtbot, tmp_path):
    result = tmp_path / "gpu-setup-result.json"
    result.write_text(json.dumps(remote_probe_doc()), encoding="utf-8")
    dialog = RemoteDialog(lang_of=lambda: "ko")
    qtbot.addWidget(dialog)
    dialog.load_file(str(result))
    dialog.accept()
    assert dialog.machine is not None and dialog.machine.source == "remote-probe"
    assert dialog.machine.kind == "colab" and dialog.machine.torch_version == "2.8.0+cu128"
