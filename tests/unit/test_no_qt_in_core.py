"""wizard.core and `doctor` never import Qt (or the slow numeric stack).

Two checks, because each misses what the other sees: importing every core module in a fresh
process shows what loads at import time, and a scan of every import statement in the syntax tree
(function bodies included, and importlib.import_module/__import__ with a literal name) catches
the Qt import that would only run when a function is called. The import contracts
(tests/unit/test_contracts.py) say the same for the whole package graph.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FORBIDDEN = ("PySide6", "shiboken6", "pyqtgraph", "numpy", "torch")
QT = ("PySide6", "shiboken6", "pyqtgraph")
DYNAMIC_IMPORTERS = ("import_module", "__import__")


def qt_imports(source: str, filename: str = "<source>") -> list[str]:
    """'line: module' for every Qt import in the source, wherever it stands."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source, filename)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if called in DYNAMIC_IMPORTERS and isinstance(node.args[0].value, str):
                names = [node.args[0].value]
        found += [(node.lineno, n) for n in names if n.split(".")[0] in QT]
    return [f"{line}: {name}" for line, name in sorted(found)]


def _modules_after(code: str) -> set[str]:
    script = code + "\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True,
                         timeout=120, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_importing_every_core_module_loads_no_qt():
    core = REPO / "wizard" / "core"
    names = sorted(".".join(p.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__")
                   for p in core.rglob("*.py"))
    assert len(names) > 40, names  # the walk found the stage packages
    code = "\n".join(f"import {n}" for n in names)
    loaded = _modules_after(code)
    bad = sorted(m for m in loaded if m.split(".")[0] in FORBIDDEN)
    assert not bad, bad


def test_doctor_command_loads_no_qt(capsys):
    code = ("import io, contextlib\nfrom wizard.cli import main\nbuf = io.StringIO()\n"
            "with contextlib.redirect_stdout(buf):\n    rc = main(['doctor', '--json'])\nassert rc == 0\n")
    loaded = _modules_after(code)
    bad = sorted(m for m in loaded if m.split(".")[0] in FORBIDDEN)
    assert not bad, bad


def test_no_core_module_imports_qt_even_inside_a_function():
    bad = {}
    for path in sorted((REPO / "wizard" / "core").rglob("*.py")):
        hits = qt_imports(path.read_text(encoding="utf-8"), str(path))
        if hits:
            bad[str(path.relative_to(REPO))] = hits
    assert not bad, bad


def test_the_scan_sees_imports_that_only_run_when_called():
    source = (
        "import os\n"
        "def window():\n"
        "    from PySide6.QtWidgets import QApplication\n"
        "class Plot:\n"
        "    def draw(self):\n"
        "        import pyqtgraph as pg\n"
        "def late():\n"
        "    import importlib\n"
        "    return importlib.import_module('shiboken6')\n"
        "from wizard.core.base import i18n\n"
    )
    assert qt_imports(source) == ["3: PySide6.QtWidgets", "6: pyqtgraph", "9: shiboken6"]
