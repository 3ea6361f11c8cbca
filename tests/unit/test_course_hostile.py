"""Hostile course profiles (red-team findings 8, 10a, 10b, 11, 20): each refused in one line, in
both languages, never a traceback, never a hang, and never a requirement the install would take
from outside an index (a direct URL, a path, an option)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from wizard.core.course.profile import CourseError, load_course, parse_course

REPO = Path(__file__).resolve().parents[2]
HEAD = 'schema = "gpu-setup-wizard/course@1.0"\n[course]\nname = "Lab"\n'


def _refused(text: str) -> CourseError:
    with pytest.raises(CourseError) as info:
        parse_course(text, "c.toml")
    for lang in ("en", "ko"):
        line = info.value.text(lang)
        assert line.strip() and "\n" not in line, line
    return info.value


@pytest.mark.parametrize("package", [
    "gsw-evil @ file:///tmp/evil-1.0-py3-none-any.whl",
    "x @ http://host/x.whl",
    "x @ https://host/x-1.0-py3-none-any.whl",
    "x @ git+https://github.com/a/b",
    "git+https://github.com/a/b",
    "/tmp/evil-1.0-py3-none-any.whl",
    "./evil",
    "-e .",
    "--index-url=http://127.0.0.1:9/simple",
    "-r requirements.txt",
    "torch\x1b[2J",
])
def test_course_packages_are_names_versions_extras_and_markers_only(package):
    exc = _refused(HEAD + f"packages = [{json.dumps(package)}]\n")
    assert exc.message.key in ("course.bad_package", "course.control_chars")


def test_ordinary_packages_still_pass():
    profile = parse_course(HEAD + 'packages = ["transformers>=4.40", "accelerate[testing]", '
                                  '"datasets; python_version >= \'3.9\'", "scikit-learn==1.5.*"]\n')
    assert len(profile.packages) == 4


@pytest.mark.parametrize("nest", ["[" * 20000 + "]" * 20000, "{x=" * 8000 + "1" + "}" * 8000,
                                  "[" * 30 + "]" * 30])
def test_deep_nesting_is_one_line_not_a_recursion_error(nest):
    text = HEAD + "a = " + nest + "\n"
    assert len(text.encode()) < 64 * 1024
    _refused(text)


def test_deep_dotted_keys_are_refused():
    _refused(HEAD + "[extra]\n" + ".".join(f"k{i}" for i in range(3000)) + " = 1\n")


@pytest.mark.parametrize("field", ["[[lessons]]\nid = \"mnist_cnn\"\nvram_gb = nan\n",
                                   "[[lessons]]\nid = \"mnist_cnn\"\nvram_gb = inf\n",
                                   "[[lessons]]\nid = \"x\"\nvram_gb = -nan\n"])
def test_non_finite_lesson_memory_is_refused(field):
    _refused(HEAD + field)


def test_non_finite_minimum_is_refused():
    _refused(HEAD.replace('name = "Lab"\n', 'name = "Lab"\nmin_vram_gb = nan\n'))
    _refused(HEAD.replace('name = "Lab"\n', 'name = "Lab"\nmin_vram_gb = inf\n'))
    _refused(HEAD + "[extra]\nweight = nan\n")  # anywhere in the profile, not only the known fields


def test_duplicate_lesson_ids_are_refused():
    exc = _refused(HEAD + '[[lessons]]\nid = "mnist_cnn"\nvram_gb = 0.5\n[[lessons]]\nid = "mnist_cnn"\nvram_gb = 900\n')
    assert "mnist_cnn" in exc.text("en")


def test_a_lesson_id_ending_in_a_newline_is_refused():
    _refused(HEAD + '[[lessons]]\nid = "week\\n"\n')


def test_control_characters_in_shown_text_are_refused():
    _refused(HEAD.replace('"Lab"', '"Lab\\u001b]8;;http://x\\u0007"'))
    _refused(HEAD + '[[lessons]]\nid = "a"\ntitle = "x\\u009b2J"\n')


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_named_pipe_is_refused_at_once(tmp_path):
    """Nothing ever writes to the pipe: opening it for reading would wait forever."""
    fifo = tmp_path / "course.toml"
    os.mkfifo(fifo)
    code = ("import sys\nfrom wizard.core.course.profile import CourseError, load_course\n"
            "try:\n    load_course(sys.argv[1])\nexcept CourseError as exc:\n    print(exc.text('en'))\n")
    out = subprocess.run([sys.executable, "-c", code, str(fifo)], cwd=REPO, capture_output=True, text=True, timeout=30)
    assert out.returncode == 0 and "regular file" in out.stdout, (out.stdout, out.stderr)


def test_a_folder_or_device_is_refused(tmp_path):
    with pytest.raises(CourseError):
        load_course(str(tmp_path))
    if os.path.exists("/dev/zero"):
        with pytest.raises(CourseError) as info:
            load_course("/dev/zero")
        assert "regular file" in info.value.text("en")
