"""Build an expensive thing (a venv with torch) once per test run, also when pytest-xdist runs
the suite in several worker processes.

A session fixture is once per *process*: with ``-n 2`` each worker would install torch for
itself. Here the first worker to ask builds under a file lock in the folder all workers share
(the parent of each worker's base temp), writes what it got (a path, or the reason it skipped)
beside the lock, and the others read that. Without xdist it is a plain build in this run's
base temp.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Callable

import pytest
from filelock import FileLock


def shared_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder every worker of this run can see: the base temp, or its parent under xdist
    (where the workers' own ``popen-gwN`` folders live)."""
    base = tmp_path_factory.getbasetemp()
    worker = os.environ.get("PYTEST_XDIST_WORKER")  # inherited by a pytest this one starts: check the name too
    return base.parent if worker and base.name == f"popen-{worker}" else base


def once_per_run(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], Path]) -> Path:
    """``build(folder)`` run by one process of this test run; every process gets its result.

    ``build`` returns a path or calls ``pytest.skip``; both are shared. Any other error is not
    recorded, so the next worker that asks tries again (and fails the same way, visibly)."""
    root = shared_root(tmp_path_factory)
    record = root / f"{name}.json"
    with FileLock(str(root / f"{name}.lock")):
        if record.is_file():
            done = json.loads(record.read_text(encoding="utf-8"))
            if "skip" in done:
                pytest.skip(done["skip"])
            return Path(done["path"])
        folder = root / name
        folder.mkdir(exist_ok=True)
        try:
            result = build(folder)
        except pytest.skip.Exception as skipped:
            record.write_text(json.dumps({"skip": str(skipped.msg)}), encoding="utf-8")
            raise
        record.write_text(json.dumps({"path": str(result)}), encoding="utf-8")
        return result
