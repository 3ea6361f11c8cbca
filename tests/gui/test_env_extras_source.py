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
