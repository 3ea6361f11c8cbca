"""The Environment page's list of interpreters for a new venv: only the Python that "Best match"
picks is "(recommended)"; one the student picked on the Recommendation page reads "(your choice)";
one the build has no wheels for is the app layer's line, the one the command line prints.

Real parts: the recommender of the app layer, the real chooser widget offscreen.
"""

from __future__ import annotations

import sys

import pytest

pytest.importorskip("pytestqt")
pytestmark = pytest.mark.gui

from tests.gui.install_driver import this_python  # noqa: E402
from wizard.app import environments as app_env  # noqa: E402
from wizard.app import install as app_install  # noqa: E402
from wizard.app import recommend as app_recommend  # noqa: E402
from wizard.app.session import Session  # noqa: E402
from wizard.core.base.host import RealHost  # noqa: E402
from wizard.core.base.i18n import t  # noqa: E402
from wizard.core.machine.models import Detection, NvidiaInfo, PythonInterpreter, SystemInfo  # noqa: E402
from wizard.ui.pages.environment.target_chooser import TargetChooser  # noqa: E402


def _other_minor() -> str:
    minor = sys.version_info[1]
    return f"3.{minor + 1 if minor < 13 else minor - 1}"


def _session(lang: str) -> tuple[Session, PythonInterpreter, PythonInterpreter]:
    here = this_python()
    version = _other_minor() + ".1"
    other = PythonInterpreter(path=f"/home/student/.pyenv/versions/{version}/bin/python", version=version,
                              arch="x86_64", bits=64, implementation="CPython", source="pyenv")
    old = PythonInterpreter(path="/usr/bin/python3.7", version="3.7.3", arch="x86_64", bits=64,
                            implementation="CPython", source="path")
    session = Session(host=RealHost(), lang=lang)
    session.detection = Detection(SystemInfo(os="linux"), NvidiaInfo(), pythons=[here, other, old])
    return session, here, other


def _items(chooser: TargetChooser) -> list[str]:
    combo = chooser.python_combo
    return [combo.itemText(i) for i in range(combo.count())]


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_students_python_is_their_choice_and_only_best_match_is_recommended(qtbot, tmp_path, lang):
    session, _here, other = _session(lang)
    best = app_recommend.compute(session).interpreter
    assert best is not None and best.path != other.path  # "Best match" picks another interpreter
    app_recommend.recommend_for(session, explicit_version=_other_minor())  # the student picks the other one
    assert session.recommendation.interpreter is other
    chooser = TargetChooser(lambda: session, lambda: app_install.state_store(str(tmp_path / "state")), lambda: lang)
    qtbot.addWidget(chooser)
    chooser.retranslate()
    items = _items(chooser)
    recommended, chosen = t("environment.python.recommended", lang), t("environment.python.chosen", lang)
    mine = next(i for i in items if other.path in i)
    theirs = next(i for i in items if best.path in i)
    assert chosen in mine and recommended not in mine, items
    assert recommended in theirs and chosen not in theirs, items
    assert sum(recommended in i for i in items) == 1
    assert chooser.python_combo.currentData()[1] == other.path  # the student's choice stays chosen


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_python_the_build_has_no_wheels_for_reads_as_on_the_command_line(qtbot, tmp_path, lang):
    session, _here, _other = _session(lang)
    app_recommend.recommend_for(session)
    chooser = TargetChooser(lambda: session, lambda: app_install.state_store(str(tmp_path / "state")), lambda: lang)
    qtbot.addWidget(chooser)
    chooser.retranslate()
    lines = app_env.unfit_python_lines(session, lang)
    assert any("3.7.3" in line for line in lines)
    items = _items(chooser)
    for line in lines:
        assert line in items, (line, items)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_hangul_windows_home_is_said_under_the_folder_not_only_in_a_tooltip(qtbot, tmp_path, lang):
    """New environments go under C:\\GPU-Setup-Wizard\\envs when the Windows user name is Hangul:
    the page says where and why in the note under the folder (before, a tooltip only)."""
    from tests.recorded_host import RecordedHost

    host = RecordedHost(os_name="windows", home_dir="C:\\Users\\김학생", env={"SystemDrive": "C:"})
    session = Session(host=host, lang=lang)
    session.detection = Detection(SystemInfo(os="windows"), NvidiaInfo(), pythons=[])
    chooser = TargetChooser(lambda: session, lambda: app_install.state_store(str(tmp_path / "state")), lambda: lang)
    qtbot.addWidget(chooser)
    chooser.retranslate()
    chooser.show_notes(None, None, "", "")
    note = chooser.venv_note.text()
    assert "GPU-Setup-Wizard" in note and "김학생" in note, note
    chooser.venv_path.setText("D:\\my envs\\dl")  # a folder the student typed: taken as typed, no note
    chooser.show_notes(None, None, "", "")
    assert "GPU-Setup-Wizard" not in chooser.venv_note.text()
