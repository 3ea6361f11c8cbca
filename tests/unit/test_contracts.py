"""The import contracts of pyproject.toml hold, and they (and the cycle check) can fail.

`lint-imports` reads [tool.importlinter]: core never imports the application layer, a face or
Qt; the core stages follow the flow; ui and cli never import each other; the probe scripts stand
alone; no sibling packages or modules import each other in a circle. Function-local imports
count: grimp reads every import statement of the syntax tree, not only the top-level ones.

A contract that cannot fail proves nothing, so the same contracts are run over a small synthetic
package laid out like wizard/: clean it keeps all of them, and each deliberate bad import breaks
the contract named for it. acyclic_siblings does not see a package and its own submodule
importing each other, so a strongly-connected-components pass over grimp's module graph catches
every circle, whatever the depth.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # import-linter depends on tomli there
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
FAKE = "fakewiz"  # the synthetic package's name: distinct from the installed wizard
MODULE_FIELDS = ("root_packages", "source_modules", "forbidden_modules", "containers", "modules",
                 "ancestors")
STAGES = ("base", "machine", "recommend", "install", "verify", "vram", "course", "diagnosis", "report",
          "history")


def _lint_imports() -> str:
    """The lint-imports script of this interpreter's environment (CI runs it from the venv)."""
    beside = Path(sys.executable).with_name("lint-imports")
    found = str(beside) if beside.exists() else shutil.which("lint-imports")
    assert found, "lint-imports is missing: install the test extra (pip install -e '.[test]')"
    return found


def _run_lint(cwd: Path, *contracts: str, pythonpath: Path | None = None) -> subprocess.CompletedProcess:
    argv = [_lint_imports(), "--no-cache", "--no-logo", "pyproject.toml"]
    for contract in contracts:
        argv += ["--contract", contract]
    env = dict(os.environ, COLUMNS="1000")  # one line per contract: "<its name> KEPT|BROKEN"
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def _verdicts(stdout: str) -> dict[str, str]:
    """Each contract's id and KEPT or BROKEN, from one run's report (contracts are listed by name)."""
    ids = {contract["name"]: contract["id"] for contract in _contracts_config()["contracts"]}
    found = {}
    for line in stdout.splitlines():
        name, _, verdict = line.strip().rpartition(" ")
        if verdict in ("KEPT", "BROKEN") and name in ids:
            found[ids[name]] = verdict
    return found


def _contracts_config() -> dict:
    with (REPO / "pyproject.toml").open("rb") as handle:
        return tomllib.load(handle)["tool"]["importlinter"]


def module_cycles(package: str, graph: grimp.ImportGraph | None = None) -> list[list[str]]:
    """Every import circle among the modules of `package` (Tarjan's strongly connected components;
    ``graph``: its grimp graph, when already built).

    Iterative, so a deep import chain does not hit the recursion limit."""
    graph = graph if graph is not None else grimp.build_graph(package, cache_dir=None)
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in sorted(graph.modules)}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    for root in edges:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, child = work.pop()
            if child == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            if child < len(edges[node]):
                work.append((node, child + 1))
                nxt = edges[node][child]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    cycles.append(sorted(component))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return sorted(cycles)


# ---- the real code ---------------------------------------------------------------------------

def test_wizard_keeps_its_import_contracts():
    done = _run_lint(REPO)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def wizard_graph() -> grimp.ImportGraph:
    """wizard's import graph, read once for the tests below (grimp reads every file: seconds)."""
    return grimp.build_graph("wizard", cache_dir=None)


def test_wizard_has_no_import_cycles(wizard_graph):
    assert module_cycles("wizard", wizard_graph) == []


def test_every_contract_names_modules_that_exist(wizard_graph):
    """A contract over a renamed package would check nothing: each named wizard module exists."""
    graph = wizard_graph
    for contract in _contracts_config()["contracts"]:
        for field in MODULE_FIELDS:
            for name in contract.get(field, []):
                if name.startswith("wizard"):
                    assert name in graph.modules, (contract["id"], name)


# ---- the contracts can fail -----------------------------------------------------------------

def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return str(value)


def _rename(value):
    if isinstance(value, list):
        return [_rename(v) for v in value]
    if value == "wizard" or (isinstance(value, str) and value.startswith("wizard.")):
        return FAKE + value[len("wizard"):]
    return value


def _write_config(folder: Path) -> None:
    """pyproject.toml's contracts, with the package renamed to the synthetic one."""
    config = _contracts_config()
    lines = ["[tool.importlinter]"]
    lines += [f"{k} = {_toml_value(_rename(v))}" for k, v in config.items() if k != "contracts"]
    for contract in config["contracts"]:
        lines += ["", "[[tool.importlinter.contracts]]"]
        lines += [f"{k} = {_toml_value(_rename(v) if k in MODULE_FIELDS else v)}"
                  for k, v in contract.items()]
    (folder / "pyproject.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _clean_tree() -> dict[str, str]:
    """A package laid out like wizard/, whose imports all run the allowed way."""
    files = {"__init__.py": "", "__main__.py": f"import {FAKE}.cli\n", "report_pdf.py":
             f"import {FAKE}.core.report.m\n",
             "app/__init__.py": f"import {FAKE}.core.history.m\nimport {FAKE}.report_pdf\n",
             "ui/__init__.py": f"import {FAKE}.app\nimport {FAKE}.report_pdf\nimport {FAKE}.core.base.m\n",
             "cli/__init__.py": f"import {FAKE}.app\nimport {FAKE}.report_pdf\n",
             "tools/__init__.py": f"import {FAKE}.core.recommend.m\n",
             "probe/__init__.py": "", "probe/verify.py": "import json\n",
             "core/__init__.py": ""}
    below = None
    for stage in STAGES:
        files[f"core/{stage}/__init__.py"] = ""
        files[f"core/{stage}/m.py"] = f"import {FAKE}.core.{below}.m\n" if below else "import os\n"
        below = stage
    # the top layer's two independent packages: "classroom | storage"
    files["core/classroom/__init__.py"] = ""
    files["core/classroom/m.py"] = f"import {FAKE}.core.history.m\n"
    files["core/storage/__init__.py"] = ""
    files["core/storage/m.py"] = f"import {FAKE}.core.install.m\n"
    return files


BAD_IMPORTS = {
    # function-local, as the hidden Qt imports were
    "qt-in-core": ({"core/machine/m.py": "import os\n\ndef window():\n    from PySide6 import QtCore\n"},
                   {"core-without-faces-or-qt"}),
    "core-imports-app": ({"core/report/m.py": f"import {FAKE}.app\n"},
                         {"core-without-faces-or-qt", "faces-over-app-over-core"}),
    "earlier-stage-imports-later": ({"core/base/m.py": f"import {FAKE}.core.history.m\n"},
                                    {"stage-order", "no-package-cycles"}),
    "cli-imports-ui": ({"cli/__init__.py": f"import {FAKE}.app\nimport {FAKE}.ui\n"},
                       {"faces-independent", "faces-over-app-over-core"}),
    "ui-imports-cli": ({"ui/__init__.py": f"def main():\n    import {FAKE}.cli\n"},
                       {"faces-independent", "faces-over-app-over-core"}),
    "app-imports-ui": ({"app/__init__.py": f"import {FAKE}.ui\n"}, {"faces-over-app-over-core"}),
    # a face reaching past the application layer into an engine stage, at the top or in a function
    "cli-imports-an-engine-stage": ({"cli/__init__.py": f"import {FAKE}.app\nimport {FAKE}.core.machine.m\n"},
                                    {"faces-only-through-app"}),
    "ui-imports-an-engine-stage-in-a-function": (
        {"ui/__init__.py": f"import {FAKE}.app\n\ndef page():\n    from {FAKE}.core.report import m\n"},
        {"faces-only-through-app"}),
    "unplaced-top-level-module": ({"cli_report.py": f"import {FAKE}.app\n"},
                                  {"faces-over-app-over-core"}),
    "unplaced-stage": ({"core/extra/__init__.py": ""}, {"stage-order"}),
    "storage-imports-classroom": ({"core/storage/m.py": f"import {FAKE}.core.classroom.m\n"}, {"stage-order"}),
    "probe-imports-core": ({"probe/verify.py": f"import {FAKE}.core.base.m\n"}, {"probe-standalone"}),
    "module-circle": ({"core/report/a.py": f"from {FAKE}.core.report import b\n",
                       "core/report/b.py": f"from {FAKE}.core.report import a\n"},
                      {"no-package-cycles"}),
}


def _lay_out(folder: Path, changes: dict[str, str]) -> Path:
    files = _clean_tree() | changes
    for relative, text in files.items():
        path = folder / FAKE / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    _write_config(folder)
    return folder


def test_the_synthetic_package_keeps_every_contract(tmp_path):
    folder = _lay_out(tmp_path, {})
    done = _run_lint(folder, pythonpath=folder)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("case", sorted(BAD_IMPORTS))
def test_a_bad_import_breaks_its_contract(tmp_path, case):
    changes, broken = BAD_IMPORTS[case]
    folder = _lay_out(tmp_path, changes)
    done = _run_lint(folder, pythonpath=folder)
    assert done.returncode == 1, done.stdout + done.stderr
    # every contract was checked (a configuration error also exits 1, and checks none), and each one
    # named for this import is broken: one run answers for each contract (it ran once per contract)
    verdicts = _verdicts(done.stdout)
    assert set(verdicts) == {contract["id"] for contract in _contracts_config()["contracts"]}, done.stdout + done.stderr
    assert broken <= {c for c, verdict in verdicts.items() if verdict == "BROKEN"}, done.stdout


def test_the_cycle_check_sees_a_package_and_its_submodule_importing_each_other(tmp_path, monkeypatch):
    """acyclic_siblings compares siblings only; module_cycles also catches parent <-> child."""
    folder = _lay_out(tmp_path, {"core/report/__init__.py": f"from {FAKE}.core.report import m\n",
                                 "core/report/m.py": f"import {FAKE}.core.report\n"})
    monkeypatch.syspath_prepend(str(folder))
    assert module_cycles(FAKE) == [[f"{FAKE}.core.report", f"{FAKE}.core.report.m"]]
    clean = _lay_out(tmp_path / "clean", {})
    monkeypatch.syspath_prepend(str(clean))  # found first now (grimp reads files, imports nothing)
    assert module_cycles(FAKE) == []
