"""The gui and slow markers describe what the tests really do.

`-m "not gui"` must leave out every test that needs Qt, and `-m "not slow"` every test that
builds a venv or starts an X server; otherwise a quick run on a machine without a display or
the time for a venv fails for no reason of its own. The suite is collected in a separate pytest
process (a small plugin writes each test's markers and fixtures), and each test module is read
on its own terms, from its syntax tree, not from the rules tests/conftest.py marks by, so a
module that imports Qt outside tests/gui, or builds a venv without saying so, is caught.
"""

from __future__ import annotations

import ast
import functools
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
QT_MODULES = ("PySide6", "shiboken6", "pyqtgraph", "pytestqt", "wizard.ui", "wizard.report_pdf")
QT_FIXTURES = {"qtbot", "qapp"}
SLOW_FIXTURES = {"torch_python", "xvfb_display"}

PLUGIN = '''
import json, os

def pytest_collection_finish(session):
    items = [{"nodeid": i.nodeid, "path": str(i.path),
              "markers": sorted({m.name for m in i.iter_markers()}),
              "fixtures": sorted(getattr(i, "fixturenames", ()))} for i in session.items]
    with open(os.environ["GSW_MARKER_DUMP"], "w", encoding="utf-8") as out:
        json.dump(items, out)
'''


def _names_needing_qt(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in ("importorskip", "import_module") and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            names = [node.args[0].value]
        if any(n == q or n.startswith(q + ".") for n in names for q in QT_MODULES):
            return True
    return False


def _builds_venvs(tree: ast.AST) -> bool:
    """venv.create(...), EnvBuilder(...), run_steps(job) with the job's own steps (the whole
    install: venv, pip, imports), or a call given an argv with "-m", "venv"."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        called = getattr(func, "id", getattr(func, "attr", None))
        if called == "create" and isinstance(func, ast.Attribute) and getattr(func.value, "id", "") == "venv":
            return True
        if called == "EnvBuilder":
            return True
        if called == "run_steps" and len(node.args) == 1 and "steps" not in {k.arg for k in node.keywords}:
            return True
        argv = node.args[0] if node.args and isinstance(node.args[0], ast.List) else None
        words = [e.value for e in argv.elts if isinstance(e, ast.Constant)] if argv else []
        if any(a == "-m" and b == "venv" for a, b in zip(words, words[1:])):
            return True
    return False


def _referenced_names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | \
        {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}


@functools.lru_cache(maxsize=None)
def _module_facts(path: str) -> tuple[bool, frozenset[str] | None]:
    """(needs Qt, the module's functions that build a venv, directly or through one another).

    None for the second when the module builds one at import time (every test of it does)."""
    tree = ast.parse(Path(path).read_text(encoding="utf-8"), path)
    functions = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    top_level = ast.Module(body=[n for n in tree.body if n.__class__ not in
                                 (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)], type_ignores=[])
    if _builds_venvs(top_level):
        return _names_needing_qt(tree), None
    building = {name for name, f in functions.items() if _builds_venvs(f)}
    uses = {name: _referenced_names(f) for name, f in functions.items()}
    grew = True
    while grew:
        more = {name for name, used in uses.items() if name not in building and used & building}
        building |= more
        grew = bool(more)
    return _names_needing_qt(tree), frozenset(building)


def _needs_slow(item: dict) -> bool:
    if SLOW_FIXTURES & set(item["fixtures"]):
        return True
    building = _module_facts(item["path"])[1]
    if building is None:
        return True
    test_name = item["nodeid"].split("::")[-1].split("[")[0]
    return test_name in building or bool(building & set(item["fixtures"]))


@functools.lru_cache(maxsize=1)
def _collected(tmp: str) -> list[dict]:
    folder = Path(tmp)
    (folder / "gsw_marker_dump.py").write_text(PLUGIN, encoding="utf-8")
    dump = folder / "items.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(folder), str(REPO)]),
           "GSW_MARKER_DUMP": str(dump), "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                           "-p", "gsw_marker_dump", "tests"], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    return json.loads(dump.read_text(encoding="utf-8"))


def _items(tmp_path_factory) -> list[dict]:
    """The suite's tests, collected once per session."""
    folder = tmp_path_factory.getbasetemp() / "marker dump"
    folder.mkdir(exist_ok=True)
    return _collected(str(folder))


def test_the_suite_is_collected(tmp_path_factory):
    items = _items(tmp_path_factory)
    assert len(items) > 500, len(items)


def test_every_test_that_needs_qt_is_marked_gui(tmp_path_factory):
    unmarked = [i["nodeid"] for i in _items(tmp_path_factory) if "gui" not in i["markers"]
                and (_module_facts(i["path"])[0] or QT_FIXTURES & set(i["fixtures"]))]
    assert not unmarked, unmarked


def test_every_test_that_builds_a_venv_or_starts_x_is_marked_slow(tmp_path_factory):
    unmarked = [i["nodeid"] for i in _items(tmp_path_factory) if "slow" not in i["markers"] and _needs_slow(i)]
    assert not unmarked, unmarked


def test_a_test_that_builds_a_venv_through_a_helper_needs_slow(tmp_path):
    module = tmp_path / "test_example.py"
    module.write_text("import venv\n\ndef _make(p):\n    venv.create(p)\n\ndef _env(p):\n    return _make(p)\n\n"
                      "def test_builds(tmp_path):\n    _env(tmp_path)\n\ndef test_quick():\n    assert True\n",
                      encoding="utf-8")
    item = {"path": str(module), "fixtures": ["tmp_path"]}
    assert _needs_slow(item | {"nodeid": "test_example.py::test_builds"})
    assert not _needs_slow(item | {"nodeid": "test_example.py::test_quick"})


def test_the_scans_see_what_they_look_for():
    """Each scan, on a few lines that must (and must not) trip it."""
    qt = ["def f():\n    from PySide6.QtCore import QTimer\n", "import pytestqt.qtbot\n",
          "import pytest\nQt = pytest.importorskip('PySide6')\n", "from wizard import report_pdf\n",
          "from wizard.ui.pages import base\n"]
    assert all(_names_needing_qt(ast.parse(s)) for s in qt)
    assert not _names_needing_qt(ast.parse("x = 'import PySide6'\nfrom wizard.core import base\n"))
    venvs = ["import venv\nvenv.create('e', with_pip=False)\n", "subprocess.run([py, '-m', 'venv', 'e'])\n",
             "assert run_steps(job, on_progress=seen.append)\n"]
    assert all(_builds_venvs(ast.parse(s)) for s in venvs)
    assert not _builds_venvs(ast.parse("t = envs.new_venv('/e', '/usr/bin/python3')\n"
                                       "assert argv == [['/usr/bin/python3', '-m', 'venv', '/e']]\n"
                                       "assert run_steps(job, [PythonStep('plan', func=f)])\n"))
