"""The one rule for what gets installed (wizard/core/install/requirements.py), case by case: what a
course, a bundle or a saved state may hand to pip or uv, and the one line that refuses the rest."""

from __future__ import annotations

import pytest

from wizard.core.install.requirements import (
    MAX_REQUIREMENT_CHARS,
    RequirementRefused,
    check_requirement,
    checked_requirements,
    first_refusal,
)

ACCEPTED = ["torch", "torch==2.6.0+cu126", "torchvision==0.21.0", "transformers>=4.40,<5", "accelerate[testing]",
            "datasets; python_version >= '3.9'", "scikit-learn==1.5.*", "  numpy  ", "a", "zope.interface~=6.0",
            "typing_extensions!=4.0"]


@pytest.mark.parametrize("text", ACCEPTED)
def test_names_versions_extras_and_markers_pass(text):
    assert check_requirement(text).text == text.strip()


@pytest.mark.parametrize("text, reason", [
    ("gsw-evil @ file:///tmp/evil-1.0-py3-none-any.whl", "url"),
    ("x @ http://127.0.0.1:8000/x.whl", "url"),
    ("x @ https://example.org/x-1.0-py3-none-any.whl", "url"),
    ("x@git+https://github.com/a/b", "url"),
    ("git+https://github.com/a/b", "url"),
    ("https://example.org/x.whl", "url"),
    ("file:///tmp/x.whl", "url"),
    ("/tmp/evil-1.0-py3-none-any.whl", "path"),
    ("./evil", "path"),
    ("..\\evil", "path"),
    ("C:\\Users\\김철수\\evil.whl", "path"),
    ("evil-1.0-py3-none-any.whl", "path"),
    ("--find-links=/elsewhere", "option"),
    ("-r", "option"),
    ("-e .", "option"),
    ("--index-url", "option"),
    (" -r /etc/hostname", "option"),
    ("torch\n--find-links /x", "control"),
    ("torch\r", "control"),
    ("torch\x00", "control"),
    ("torch\u202e", "control"),
    ("", "empty"),
    ("   ", "empty"),
    ("x" * (MAX_REQUIREMENT_CHARS + 1), "too_long"),
    ("torch==", "syntax"),
    ("torch # comment", "syntax"),
    ("torch==1 --hash=sha256:00", "syntax"),
    (None, "not_text"),
    (["torch"], "not_text"),
    (3, "not_text"),
])
def test_everything_else_is_refused_with_its_reason_in_one_line(text, reason):
    with pytest.raises(RequirementRefused) as info:
        check_requirement(text)
    assert info.value.reason == reason
    for lang in ("en", "ko"):
        line = info.value.text(lang)
        assert line.strip() and "\n" not in line and "\r" not in line and "\x00" not in line


def test_a_list_is_refused_at_its_first_bad_entry():
    assert checked_requirements([" torch==2.6.0 ", "numpy"]) == ["torch==2.6.0", "numpy"]
    with pytest.raises(RequirementRefused) as info:
        checked_requirements(["torch", "x @ file:///a.whl", "-r b"])
    assert info.value.reason == "url"
    assert first_refusal(["torch", "-r b"]).reason == "option" and first_refusal(["torch"]) is None


def test_the_refusal_shows_a_long_requirement_shortened():
    with pytest.raises(RequirementRefused) as info:
        check_requirement("x @ file:///" + "a" * 250)
    assert len(info.value.requirement) <= 80
