"""What a first-year student reads on the System, Recommend and Verify pages, and the side list
(issue 16.11, 16.12, 16.16): plain words, proper plurals, notes that are not problems, broken
interpreters folded into one line, ✓ marks that stay after Back, Verify after an install."""

from __future__ import annotations

import os
import sys
import venv

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtWidgets import QLabel, QWizard  # noqa: E402

from tests import scenarios  # noqa: E402
from tests.gui import layout_check  # noqa: E402
from tests.gui.install_driver import choose_new_venv, commit, make_session, open_pages, wait_end  # noqa: E402
from tests.gui.wizard_driver import go_to, open_wizard, show_recorded_verify  # noqa: E402
from wizard.core.machine.models import PythonInterpreter  # noqa: E402
from wizard.ui.pages.base import PageId  # noqa: E402
from wizard.ui.pages.verify_page import summary_text  # noqa: E402


def shown_text(widget) -> str:
    return "\n".join(label.text() for label in widget.findChildren(QLabel) if label.isVisible())


def test_verify_summary_counts_in_proper_plurals():
    assert summary_text({"pass": 5, "warn": 1, "fail": 0, "skip": 2}, "en") == \
        "5 passed, 1 warning, 2 do not apply here."
    assert summary_text({"pass": 1, "warn": 2, "fail": 1, "skip": 1}, "en") == \
        "1 passed, 2 warnings, 1 failed, 1 does not apply here."
    assert summary_text({"pass": 6, "warn": 0, "fail": 0, "skip": 0}, "ko") == "통과 6."


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_verify_checks_are_named_in_plain_words_with_the_code_as_second_line(qtbot, lang):
    window = open_wizard(qtbot, scenarios.linux_host(), lang=lang)
    go_to(window, PageId.VERIFY)
    show_recorded_verify(window)
    tree = window.verify_page.tree
    titles = {tree.topLevelItem(i).text(1): tree.topLevelItem(i).toolTip(1) for i in range(tree.topLevelItemCount())}
    assert not any("torch.cuda.is_available()" in title or "python -m" in title for title in titles)
    tips = "\n".join(titles.values())
    assert "torch.cuda.is_available()" in tips and "python -m torch.utils.collect_env" in tips
    # the CPU build's cause and fix are whole rows, wrapped to the column, not cut with "…"
    cpu_row = next(tree.topLevelItem(i) for i in range(tree.topLevelItemCount())
                 if "CPU" in tree.topLevelItem(i).text(2))
    rows = [cpu_row.child(i) for i in range(cpu_row.childCount())]
    assert len(rows) == 2
    one_line = tree.fontMetrics().height() + 4
    assert all(tree.visualItemRect(row).height() > one_line for row in rows), \
        [tree.visualItemRect(row).height() for row in rows]
    assert "warnings" not in window.verify_page.status.text()  # "1 warning", never "1 warnings"


@pytest.mark.slow  # builds a venv
def test_verify_after_a_successful_install_runs_by_itself(qtbot, tmp_path):
    """The install's summary names the new environment: entering Verify checks it at once."""
    from wizard.app.install import record_install

    env = tmp_path / "새 환경"
    venv.create(env, with_pip=False)
    python = str(env / ("Scripts/python.exe" if os.name == "nt" else "bin/python"))
    window = open_wizard(qtbot, scenarios.linux_host())
    record_install(window.model.session, {"ok": True, "env_python": python, "installed": []})
    go_to(window, PageId.VERIFY)
    page = window.verify_page
    assert page.picker.path() == python
    assert page.probe.running or page.report is not None  # started without a click
    with qtbot.waitSignal(page.probe.finished, timeout=120000):
        pass
    assert window.model.session.verify is not None and window.model.session.verify.python_exe == python
    window.back()
    window.next()  # the same environment again: not checked a second time by itself
    assert not page.probe.running


def test_side_list_keeps_its_marks_after_back(qtbot):
    window = open_wizard(qtbot, scenarios.linux_host())
    go_to(window, PageId.VERIFY)
    window.back()  # Verify → Environment (the install was skipped)
    labels = [label.text() for label in window.steps.labels]
    assert "✓" in labels[PageId.VERIFY] and "▶" in labels[PageId.ENVIRONMENT]
    assert all("✓" in labels[p] for p in (PageId.SYSTEM, PageId.GPU, PageId.RECOMMEND))
    assert "✓" not in labels[PageId.INSTALL] and "–" in labels[PageId.INSTALL]  # skipped, not done
    assert "○" in labels[PageId.REPORT]


def test_system_page_folds_interpreters_that_cannot_run_into_one_line(qtbot):
    window = open_wizard(qtbot, scenarios.linux_host(), lang="ko")
    d = window.model.session.detection
    shims = [PythonInterpreter(path=f"/home/student/.pyenv/shims/python3.{n}", source="path",
                               error="exit code 127: pyenv: version `3.{n}` is not installed") for n in range(5, 12)]
    good = PythonInterpreter(path="/usr/bin/python3", version="3.10.12", arch="x86_64", bits=64, source="path")
    d.pythons = [good, *shims]
    page = window.system_page
    page.fill()
    tree = page.python_tree
    assert tree.topLevelItemCount() == 1 and tree.topLevelItem(0).text(2) == "PATH에 있음"
    assert "7개" in page.broken_label.text() and not page.broken_details.isVisible()
    assert "exit code 127" not in shown_text(page)
    page.broken_button.click()
    assert page.broken_details.isVisible() and "exit code 127" in page.broken_details.text()
    assert "path" not in [tree.topLevelItem(0).text(c) for c in range(tree.columnCount())]


def test_recommend_index_check_says_each_thing_once(qtbot, monkeypatch):
    """Issue 16.16: the offline line appeared twice. With the network unreachable (a dead
    proxy), the check's result has no line twice."""
    from tests.integration.index_server import free_port

    dead = f"http://127.0.0.1:{free_port()}"
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.setenv(name, dead)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    window = open_wizard(qtbot, scenarios.linux_host())
    go_to(window, PageId.RECOMMEND)
    page = window.recommend_page
    page.index_button.click()
    qtbot.waitUntil(lambda: page.index_button.isEnabled(), timeout=60000)
    lines = [line for line in page.index_result.text().splitlines() if line.strip()]
    assert lines and len(lines) == len(set(lines)), lines
    shown = shown_text(page)
    assert all(shown.count(line) == 1 for line in lines), shown


def test_lang_ko_install_help_is_korean():
    """Issue 16.16: `--lang ko install --help` in Korean (also in tests/unit/test_i18n.py)."""
    import subprocess

    out = subprocess.run([sys.executable, "-m", "wizard", "--lang", "ko", "install", "--help"],
                         capture_output=True, text=True, timeout=120, env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert out.returncode == 0, out.stderr
    hangul = sum(1 for ch in out.stdout if "\uac00" <= ch <= "\ud7a3")
    assert hangul > 50 and "show this help message" not in out.stdout, out.stdout


@pytest.mark.slow
def test_after_a_real_install_verify_runs_by_itself_and_back_shows_the_install(qtbot, build, index, root):
    """A real install (pip, loopback index, stand-in wheels): Next goes to Verify, which checks the
    new environment without a click; Back is enabled there and shows the install's summary."""
    window, env_page, install = open_pages(qtbot, make_session(build), root, index)
    window.resize(1024, 700)
    choose_new_venv(qtbot, env_page, root / "envs" / "검증 환경 — 긴 이름의 폴더 하나 더" / "가상 환경")
    commit(window)
    wait_end(qtbot, install)
    assert install.state == "done", install.message
    window.button(QWizard.WizardButton.CommitButton).click()
    assert window.currentId() == PageId.VERIFY
    page = window.verify_page
    assert page.probe.running  # no click: it started by itself
    with qtbot.waitSignal(page.probe.finished, timeout=120000):
        pass
    qtbot.waitUntil(lambda: page.diagnosis_box.isVisible(), timeout=60000)
    qtbot.wait(50)
    problems = layout_check.check_window(window)  # the real checklist, its diagnosis, a long path
    assert not problems, layout_check.describe(problems)
    back = window.button(QWizard.WizardButton.BackButton)
    assert back.isVisible() and back.isEnabled()
    back.click()
    assert window.currentId() == PageId.INSTALL and install.state == "done"
    qtbot.wait(50)
    problems = layout_check.check_window(window)
    assert not problems, layout_check.describe(problems)
    assert not window.button(QWizard.WizardButton.BackButton).isEnabled()  # no way back past the install


def test_vram_estimate_counts_as_chosen_only_after_the_student_changes_something(qtbot):
    """The report shows the VRAM estimate only when the student chose one (session.vram_chosen):
    opening the page, switching language and its own refills do not count; a changed batch does."""
    window = open_wizard(qtbot, scenarios.linux_host())
    go_to(window, PageId.VRAM)
    session = window.model.session
    page = window.vram_page
    assert session.vram is not None and not session.vram_chosen
    window.model.set_language("ko")
    assert not session.vram_chosen
    page.batch_spin.setValue(4)
    assert session.vram_chosen and session.vram.batch == 4


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_cpu_build_on_a_pc_without_nvidia_is_a_pass_with_a_note(qtbot, lang):
    """Issue 16.11: no orange "⚠ 1 warning" over "what is wrong" for the right build."""
    from wizard.core.base.i18n import t
    from wizard.core.machine.models import Finding

    window = open_wizard(qtbot, scenarios.linux_host(), lang=lang)
    go_to(window, PageId.VERIFY)
    show_recorded_verify(window)
    page = window.verify_page
    assert page.report.status == "pass"
    assert "✔" in page.status.text() and "⚠" not in page.status.text()
    tree = page.tree
    notes = [tree.topLevelItem(i).child(j).text(1) for i in range(tree.topLevelItemCount())
             for j in range(tree.topLevelItem(i).childCount())]
    assert notes == [t("verify.page.note", lang), t("verify.page.tip", lang)]
    page._show_diagnosis([Finding("no-nvidia-driver", "info")])
    assert page.diagnosis_box.title() == t("verify.page.notes_box", lang)
    page._show_diagnosis([Finding("cpu-only-torch-installed", "warning")])
    assert page.diagnosis_box.title() == t("verify.page.diagnosis", lang)


def test_the_vram_page_loads_neither_pyqtgraph_nor_numpy():
    """The bar is drawn with QPainter: the VRAM page costs no plotting library's memory."""
    import subprocess
    from pathlib import Path

    code = ("import sys\nfrom PySide6.QtWidgets import QApplication\napp = QApplication([])\n"
            "from tests import scenarios\nfrom wizard.app.session import Session\n"
            "from wizard.ui.main_wizard import SetupWizard\nfrom wizard.ui.pages.base import PageId\n"
            "w = SetupWizard(Session(host=scenarios.linux_host())); w.show(); done = []\n"
            "w.model.detection_finished.connect(lambda d: done.append(1)); w.start()\n"
            "while not done: app.processEvents()\n"
            "while w.currentId() != PageId.VRAM:\n"
            "    w.environment_page.skip_install() if w.currentId() == PageId.ENVIRONMENT else None\n"
            "    w.next()\n"
            "app.processEvents()\nassert w.vram_page.bar.bars\n"
            "print(sorted(m for m in ('numpy', 'pyqtgraph') if m in sys.modules))")
    repo = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", code], cwd=repo, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"
