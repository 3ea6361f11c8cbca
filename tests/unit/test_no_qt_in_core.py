"""wizard.core and `doctor` never import Qt (or the slow numeric stack): checked in a fresh process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FORBIDDEN = ("PySide6", "shiboken6", "pyqtgraph", "numpy", "torch")


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
