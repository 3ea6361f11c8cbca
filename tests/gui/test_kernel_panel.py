"""The Verify page's "Jupyter / VS Code" dialog, offscreen, on a real venv with the CPU torch wheel.

Registers the environment (the consent question answered yes), lists it flagged as a CPU build
on this recorded Windows PC with an RTX 3060 (and its Hangul path flagged), runs the checklist inside the kernel on a worker thread while the
window keeps processing events, and writes VS Code's setting into a project folder.
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip("pytestqt")
pytestmark = pytest.mark.slow  # a venv, pip, a kernel and a verification run

from tests import scenarios  # noqa: E402
from tests.gui.wizard_driver import go_to, open_wizard  # noqa: E402
from wizard.core.verify.kernel_specs import inspect_python  # noqa: E402
from wizard.ui.pages import kernel_panel  # noqa: E402
from wizard.ui.pages.base import PageId  # noqa: E402


def test_kernel_dialog_registers_lists_verifies_inside_and_writes_vscode(qtbot, kernel_python, kernel_data_dir,
                                                                          tmp_path, monkeypatch):
    asked: list[str] = []
    monkeypatch.setattr(kernel_panel, "ask_consent", lambda parent, title, text, lang: asked.append(text) or True)
    project = tmp_path / "내 프로젝트"
    project.mkdir()
    monkeypatch.setattr(kernel_panel, "choose_folder", lambda parent, lang: str(project))
    had_ipykernel = inspect_python(str(kernel_python)).ipykernel

    window = open_wizard(qtbot, scenarios.windows_rtx3060(), lang="ko")
    window.model.session.target_python = str(kernel_python)
    go_to(window, PageId.VERIFY)
    page = window.verify_page
    assert page.kernel_button.text() == "Jupyter / VS Code…"
    page.kernel_button.click()
    dialog = page.kernel_dialog
    qtbot.waitUntil(lambda: dialog.busy_with is None, timeout=60000)
    assert dialog.windowTitle() == "Jupyter와 VS Code"

    dialog.register_button.click()
    qtbot.waitUntil(lambda: dialog.last_register is not None and dialog.last_register.ok and dialog.busy_with is None,
                    timeout=600000)
    assert len(asked) == (0 if had_ipykernel else 1)
    assert "커널 경로에 한글" in dialog.output.toPlainText()  # said when it was registered, too
    name = dialog.last_register.name
    assert dialog.selected() == name
    row = next(dialog.tree.topLevelItem(i) for i in range(dialog.tree.topLevelItemCount())
               if dialog.tree.topLevelItem(i).text(1).endswith(name))
    assert "확인 필요" in row.text(0)
    flags = [row.child(i).text(0) for i in range(row.childCount())]
    assert any("CPU 빌드" in text for text in flags), flags  # a CPU build on this (recorded) RTX 3060 PC
    assert any("한글" in text for text in flags), flags  # "kernel env 김" on a (recorded) Windows PC

    progress: list[str] = []
    dialog._relay.progress.connect(progress.append)
    dialog.verify_button.click()
    assert dialog.busy_with == "verify" and not dialog.verify_button.isEnabled()
    qtbot.waitUntil(lambda: dialog.busy_with is None, timeout=300000)
    assert any("PyTorch" in line for line in progress), progress  # arrived while the check ran
    report = dialog.report
    assert report is not None and report.check("torch.import").status == "pass"
    assert report.check("cuda.build").status == "fail"  # the RTX 3060 is there; this build cannot use it
    assert f"커널 {name} 안에서" in dialog.status.text()
    assert dialog.model.session.kernel_verify[1] is report  # kept for the report's "Jupyter kernel" section
    from tests.gui import layout_check

    dialog.select(name)  # its problems shown whole under the list
    assert dialog.details.isVisible() and "CPU 빌드" in dialog.details.text()
    assert layout_check.describe(layout_check.check_window(dialog)) == ""  # nothing clipped or cut
    assert "[ OK ] PyTorch 불러오기" in dialog.output.toPlainText()

    dialog.vscode_button.click()
    settings = json.loads((project / ".vscode" / "settings.json").read_text(encoding="utf-8"))
    assert settings == {"python.defaultInterpreterPath": str(kernel_python)}
    assert "VS Code가" in dialog.status.text()

    window.model.set_language("en")
    assert page.kernel_button.text() == "Jupyter / VS Code…"
    assert dialog.register_button.text() == "Register this environment as a kernel"
    dialog.close()
