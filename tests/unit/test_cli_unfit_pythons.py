"""Issue 27.9 on the command line: ``recommend`` and ``install`` list the detected Pythons the
build has no wheels for, each with the reason, in the words the window's Python list uses
(:meth:`wizard.app.environments.PythonOption.label`), instead of leaving them unsaid."""

from __future__ import annotations

import pytest

from tests import scenarios
from tests.cli_runner import run_cli
from tests.unit.test_pythons import query_ok
from wizard.app.environments import PythonOption
from wizard.core.base.i18n import msg

PYTHONS = {"/usr/bin/python": "2.7.18", "/usr/bin/python3": "3.7.9", "/usr/bin/python3.12": "3.12.3"}


def _host():
    """The Ubuntu desktop with Python 2.7 as ``python``, 3.7 as ``python3`` and 3.12."""
    names = {"/usr/bin/python": "python", "/usr/bin/python3": "python3", "/usr/bin/python3.12": "python3.12"}
    return scenarios.linux_host(on_path={name: path for path, name in names.items()},
                                commands={f"{path} *": query_ok(version, path, "/usr")
                                          for path, version in PYTHONS.items()})


def _expected(lang: str, torch: str, needs: str) -> list[str]:
    return [PythonOption(path, version, why_not=msg("environment.python.unfit", version=version, torch=torch,
                                                    range=needs)).label(lang)
            for path, version in PYTHONS.items() if not version.startswith("3.12")]


def _build(tmp_path) -> tuple[str, str]:
    """(torch, its Python range) as the English text says them."""
    import re

    out = run_cli("recommend", "--no-update-check", lang="en", host=_host(), data_dir=tmp_path).stdout
    found = re.search(r"torch (\S+) has no wheels for Python 2\.7\.18: it needs (\S+)\)", out)
    assert found, out
    return found.group(1), found.group(2)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_recommend_lists_the_pythons_too_old_for_the_build(tmp_path, lang):
    torch, needs = _build(tmp_path)
    text = run_cli("recommend", "--no-update-check", lang=lang, host=_host(), data_dir=tmp_path)
    assert text.exit_status == 0, text.stderr
    lines = [line.strip() for line in text.stdout.splitlines()]
    heading = {"en": "Pythons this build cannot use:", "ko": "이 빌드에 쓸 수 없는 Python:"}[lang]
    assert heading in lines, text.stdout
    listed = lines[lines.index(heading) + 1:lines.index(heading) + 3]
    assert sorted(listed) == sorted(_expected(lang, torch, needs)), listed  # the window's words, whole
    assert f"▶ torch {torch} (cpu)" in text.stdout and "3.12.3" not in " ".join(listed)


def test_install_plan_lists_them_before_the_plan(tmp_path):
    result = run_cli("install", "--plan-only", "--venv", str(tmp_path / "env"), lang="en", host=_host(),
                     data_dir=tmp_path / "data")
    assert result.exit_status == 0, result.stderr
    said = result.stdout + result.stderr
    assert "Pythons this build cannot use:" in said
    assert "Python 2.7.18 — /usr/bin/python  (torch " in said and "no wheels for Python 2.7.18" in said
    assert "Python 3.7.9 — /usr/bin/python3  (torch " in said


def test_the_python_range_reads_as_a_student_reads_it(tmp_path):
    """packaging writes ">=3.11,<3.16" as "<3.16,>=3.11"; the line says "3.11–3.15"."""
    _torch, needs = _build(tmp_path)
    assert "<" not in needs and ">" not in needs and "–" in needs, needs
