"""How many annotations say ``Any``, per package: ``python scripts/any_count.py [ROOT]``.

Counts every ``Any`` (``Any``, ``typing.Any``) inside an annotation -- a parameter, a return, an
annotated assignment or attribute, written directly or as a string -- in the Python files under
ROOT (default: the ``wizard`` package beside this script's folder). ``dict[str, Any]`` counts one,
``Callable[[Any], Any]`` two. Packages are the folders: ``wizard.app``, ``wizard.core.base``,
``wizard.core.install`` and so on (``wizard.ui.pages.environment`` is counted in
``wizard.ui.pages``' line when ``--depth`` cuts it). The last line is the total.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _any_in(node: ast.AST | None) -> int:
    """``Any`` names inside one annotation expression (string annotations parsed)."""
    if node is None:
        return 0
    count = 0
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id == "Any":
            count += 1
        elif isinstance(sub, ast.Attribute) and sub.attr == "Any":
            count += 1
        elif isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            try:
                parsed = ast.parse(sub.value, mode="eval")
            except SyntaxError:
                continue
            count += _any_in(parsed.body)
    return count


def annotations_of(tree: ast.AST) -> list[ast.expr]:
    """Every annotation in a module: parameters, returns, annotated assignments."""
    found: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
                if arg is not None and arg.annotation is not None:
                    found.append(arg.annotation)
            if node.returns is not None:
                found.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            found.append(node.annotation)
    return found


def count_file(path: Path) -> int:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return sum(_any_in(a) for a in annotations_of(tree))


def package_of(path: Path, root: Path, depth: int) -> str:
    parts = path.relative_to(root.parent).parent.parts
    return ".".join(parts[:depth])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", default=str(REPO / "wizard"))
    parser.add_argument("--depth", type=int, default=3, help="package name parts per line (default 3)")
    parser.add_argument("--files", action="store_true", help="one line per file instead of per package")
    args = parser.parse_args(argv)
    root = Path(args.root).resolve()
    counts: Counter[str] = Counter()
    for path in sorted(root.rglob("*.py")):
        n = count_file(path)
        key = str(path.relative_to(root.parent)) if args.files else package_of(path, root, args.depth)
        counts[key] += n
    for key in sorted(counts):
        if counts[key] or not args.files:
            print(f"{counts[key]:6d}  {key}")
    print(f"{sum(counts.values()):6d}  total")
    return 0


if __name__ == "__main__":
    sys.exit(main())
