"""The Environment page says where a course's extras come from when it is not the build's index:
the "what" line and the plan's status carry the sources sentence in the student's language."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")
pytestmark = pytest.mark.gui

from wizard.app.install import InstallOptions, sources_text  # noqa: E402
from wizard.ui.pages.environment.display import what_text  # noqa: E402

MIRROR = "https://mirror.example.edu/pytorch/whl/cpu"
PYPI_MIRROR = "https://pypi.mirror.example.kr/simple"


def _course_options(source: str) -> InstallOptions:
    from wizard.core.install.extras import arrange

    return arrange(InstallOptions(["torch==2.8.0"], MIRROR), ["transformers>=4.40"], source)


@pytest.mark.parametrize("lang, words", [("en", "the course's transformers: from"),
                                         ("ko", "강의 추가 패키지 transformers")])
def test_the_what_line_says_where_the_course_extras_come_from(lang, words):
    options = _course_options(PYPI_MIRROR)
    for plain in (False, True):
        text = what_text(options, True, lang, plain=plain)
        assert words in text and PYPI_MIRROR in text and MIRROR in text, text
    assert sources_text(options, lang) in what_text(options, True, lang, plain=True)


def test_without_a_source_of_their_own_the_line_names_the_index_alone():
    options = _course_options(MIRROR)  # "the mirror only"
    text = what_text(options, True, "en", plain=True)
    assert text == f"torch==2.8.0 transformers>=4.40 (from {MIRROR})"


# --- the settings field: "Course extras from" -----------------------------------------------------
def _course(tmp_path, packages: str):
    path = tmp_path / "course.toml"
    path.write_text('schema = "gpu-setup-wizard/course@1.0"\n\n[course]\nname = "딥러닝 기초"\n'
                    f"packages = {packages}\n", encoding="utf-8")
    return path


def _asked(index, project: str) -> bool:
    return any(project in str(entry) for entry in index.log)


@pytest.mark.slow  # real resolutions against loopback indexes
def test_the_extras_source_field_is_checked_used_and_plans_again(qtbot, build, wheels, root, tmp_path):
    from tests.gui.install_driver import choose_new_venv, make_session, open_pages, wait_plan
    from tests.integration.index_server import LoopbackIndex, free_port, make_wheel
    from wizard.app import course as app_course

    with LoopbackIndex() as mirror, LoopbackIndex() as pypi:
        mirror.add_wheels(wheels.values())  # the mirror has torch, not the course's extra
        session = make_session(build)
        app_course.open_course(session, str(_course(tmp_path, '["tiny-course-extra"]')))
        dead = f"http://127.0.0.1:{free_port()}/simple"  # no plan reaches the internet
        window, env_page, _page = open_pages(qtbot, session, root, mirror, extras_index=dead)
        panel = env_page.settings_panel
        panel.reveal()
        assert panel.extras_edit.isVisibleTo(env_page) and panel.extras_edit.text() == dead
        assert panel.extras_label.text() == "Course extras from:"
        choose_new_venv(qtbot, env_page, root / "envs" / "강의 환경")
        assert env_page.plan_error is not None
        # no address: said in the student's language, and not used
        panel.extras_edit.setText("pypi.example.kr/simple")
        panel.extras_edit.editingFinished.emit()
        assert panel.extras_problem.isVisibleTo(env_page) and "https://" in panel.extras_problem.text()
        qtbot.waitUntil(lambda: panel.extras_problem.geometry().top() > panel.extras_edit.geometry().top())
        # laid out under its field, inside the settings (not left where the layout never put it)
        assert (panel.extras_edit.geometry().bottom() <= panel.extras_problem.geometry().top()
                <= panel.extras_problem.geometry().bottom() <= panel.python_mirror_edit.geometry().top())
        assert env_page.settings.extras_index == dead
        # the loopback "PyPI": the plan is asked again, from it
        panel.extras_edit.setText(pypi.simple_url)
        panel.extras_edit.editingFinished.emit()
        assert not panel.extras_problem.isVisibleTo(env_page)
        assert env_page.settings.extras_index == pypi.simple_url
        wait_plan(qtbot, env_page)
        assert _asked(pypi, "tiny-course-extra"), pypi.log
        assert env_page.plan_error is not None and "tiny-course-extra" in env_page.plan_status.text()
        assert pypi.simple_url in env_page.what_label.text()
        pypi.add_wheels([make_wheel(tmp_path / "extra", "tiny-course-extra", "1.0.0",
                                    files={"tiny_course_extra.py": "X = 1\n"})])
        panel.extras_edit.editingFinished.emit()  # the same address, asked again
        wait_plan(qtbot, env_page)
        assert env_page.plan_error is None, env_page.plan_status.text()
        assert "tiny-course-extra" in {f.name for f in env_page.plan.files}


def test_without_a_course_the_extras_field_is_not_shown(qtbot, build, root):
    from tests.gui.install_driver import make_session, open_pages

    window, env_page, _page = open_pages(qtbot, make_session(build), root, None)
    env_page.settings_panel.reveal()
    assert env_page.mirror_edit.isVisibleTo(env_page)
    assert not env_page.settings_panel.extras_edit.isVisibleTo(env_page)


def test_the_extras_source_is_part_of_the_plan_key(tmp_path):
    import sys

    from wizard.core.install.environments import new_venv
    from wizard.ui.pages.environment.answers import plan_key

    target = new_venv(str(tmp_path / "env"), sys.executable)
    a, b = _course_options("https://pypi.org/simple"), _course_options(PYPI_MIRROR)
    assert plan_key(target, a) != plan_key(target, b)
    assert plan_key(target, a) == plan_key(target, _course_options("https://pypi.org/simple"))


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_a_bad_extras_address_is_said_under_its_field(qtbot, lang):
    from wizard.app.install import InstallSettings
    from wizard.core.base.i18n import t
    from wizard.ui.pages.environment.settings_panel import SettingsPanel

    settings = InstallSettings(mirror="https://mirror.example.edu/whl", extras_index="https://pypi.org/simple")
    panel = SettingsPanel(settings, lambda: lang)
    qtbot.addWidget(panel)
    panel.retranslate()
    panel.set_extras_needed(True)
    panel.reveal()
    panel.resize(760, 320)
    panel.show()
    panel.extras_edit.setText("pypi.example.kr/simple")
    panel.extras_edit.editingFinished.emit()
    assert panel.extras_problem.text() == t("recommend.index.bad_url.scheme", lang, url="pypi.example.kr/simple")
    assert settings.extras_index == "https://pypi.org/simple"  # the last good source stays
    qtbot.wait(50)
    assert (panel.extras_edit.geometry().bottom() <= panel.extras_problem.geometry().top()
            <= panel.extras_problem.geometry().bottom() <= panel.python_mirror_edit.geometry().top())
    panel.extras_edit.setText("")  # empty: PyPI
    panel.extras_edit.editingFinished.emit()
    assert settings.extras_index == "" and not panel.extras_problem.isVisibleTo(panel)
