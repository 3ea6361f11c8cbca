"""The System page's "Open course profile…", offscreen: the course lands in the session the other
pages read (the recommendation takes its pin, the report its lessons); a malformed file is
refused with its reason on the page and the course already open stays."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from tests import scenarios  # noqa: E402
from tests.gui.wizard_driver import open_wizard  # noqa: E402
from wizard.app import recommend as app_recommend  # noqa: E402
from wizard.app import report as app_report  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "data" / "courses"


@pytest.mark.gui
def test_open_course_profile_on_the_system_page(qtbot):
    window = open_wizard(qtbot, scenarios.windows_rtx3060(), lang="ko")
    row = window.system_page.course_row
    assert row.button.text() == "강의 프로필 열기…" and row.button.isVisible()
    assert row.label.text() == "강의 프로필 없음"
    assert row.open(str(DATA / "good.toml"))
    session = window.model.session
    assert session.course.name == "강의 NLP 실습" and "강의 NLP 실습" in row.label.text()
    assert not row.open(str(DATA / "malformed.toml"))
    assert session.course.name == "강의 NLP 실습"
    assert "malformed.toml" in row.label.text() and "강의 프로필을 열지 못했습니다" in row.label.text()
    window.model.set_language("en")
    assert row.button.text() == "Open course profile…"
    # the pages after this one read the same session
    assert app_recommend.recommend_for(session).recommendation.best.torch.startswith("2.13.")
    assert any(sec.id == "course" for sec in app_report.build(session).sections)
