"""Every ``from wizard… import NAME`` in the project names something that exists.

pyflakes (ruff's F rules) sees undefined names inside a file, not a name imported from another
module that has since moved or gone: such an import fails only when its function first runs
(a function-local import in a rarely used command). This walks every file's imports of
``wizard`` modules, imports each module once and checks each name.

    python -m tests.tools.check_imports [ROOT]   # prints the broken imports; exit 1 if any
"""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

FOLDERS = ("wizard", "tests", "benchmarks", "installers")


def broken_imports(root: Path) -> list[str]:
    """'file:line: module has no NAME' for each import that cannot be satisfied."""
    bad: list[str] = []
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*.py")):
            if "probe" in path.relative_to(root).parts[:2]:
                continue  # the probes import nothing of wizard/ (a contract checks that)
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("wizard"):
                    bad += _check(path.relative_to(root), node)
    return bad


def _check(rel: Path, node: ast.ImportFrom) -> list[str]:
    try:
        module = importlib.import_module(node.module)
    except ImportError as exc:
        return [f"{rel}:{node.lineno}: cannot import {node.module}: {exc}"]
    missing = []
    for alias in node.names:
        if alias.name == "*" or hasattr(module, alias.name):
            continue
        try:
            importlib.import_module(f"{node.module}.{alias.name}")  # a submodule
        except ImportError:
            missing.append(f"{rel}:{node.lineno}: {node.module} has no {alias.name}")
    return missing


def main(argv: list[str] | None = None) -> int:
    root = Path((argv or sys.argv[1:] or ["."])[0]).resolve()
    sys.path.insert(0, str(root))
    bad = broken_imports(root)
    print("\n".join(bad) or "every wizard import resolves")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
