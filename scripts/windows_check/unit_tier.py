"""Unit tests that touch processes, paths, encodings and files, run by the Windows CPython in wine.

They run in the Hangul/cp949 prefix, so a test's temporary folders are under ``C:\\users\\김학생``
and the ANSI code page is 949, as on a Korean student's PC; a test that cannot run on Windows
says why in its skip reason (pytest's summary, kept in the log). pytest and hypothesis go to a
folder of their own (``pip install --target``), so the freezing Python stays as it was.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from wine import Wine, windows_path

TEST_MODULES = [
    "tests/unit/test_windows_console_flags.py",
    "tests/unit/test_process.py",
    "tests/unit/test_process_steps.py",
    "tests/unit/test_host.py",
    "tests/unit/test_files_and_schema.py",
]
REQUIREMENTS = ["pytest>=8", "hypothesis", "colorama"]


def prepare(cache: Path, runner: Wine, python: str) -> Path:
    target = cache / "pytest-win"
    if (target / ".complete").exists():
        return target
    wheels = cache / "downloads" / "pytest-wheels"
    res = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--only-binary=:all:", "--platform",
                          "win_amd64", "--python-version", "3.13", "--implementation", "cp", "-d", str(wheels),
                          *REQUIREMENTS], capture_output=True, text=True, timeout=900, check=False)
    if res.returncode != 0:
        raise RuntimeError(f"pip download pytest (win_amd64) failed: {res.stderr[-1500:]}")
    res2 = runner.run([python, "-m", "pip", "install", "-q", "--no-index", "--find-links", windows_path(wheels),
                       "--target", windows_path(target), *REQUIREMENTS], timeout=900)
    if res2.returncode != 0:
        raise RuntimeError(f"pip install --target under wine failed: {res2.stderr.decode(errors='replace')[-1500:]}")
    (target / ".complete").write_text("\n".join(REQUIREMENTS) + "\n", encoding="utf-8")
    return target


def run(runner: Wine, python: str, target: Path, repo: Path, out: Path) -> tuple[bool, str, dict]:
    res = runner.run([python, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", *TEST_MODULES],
                     extra={"PYTHONPATH": windows_path(target), "QT_QPA_PLATFORM": "offscreen"},
                     timeout=900, cwd=repo)
    text = res.stdout.decode("utf-8", errors="replace") + res.stderr.decode("utf-8", errors="replace")
    (out / "windows-unit-tests.log").write_text(text, encoding="utf-8")
    counts = {k: int(v) for v, k in re.findall(r"(\d+) (passed|failed|skipped|error|errors)", text.splitlines()[-1]
                                               if text.strip() else "")}
    facts = {"modules": TEST_MODULES, "counts": counts, "log": "windows-unit-tests.log"}
    ok = res.returncode == 0 and counts.get("passed", 0) > 0
    return ok, "" if ok else f"pytest exited {res.returncode}: {text.strip().splitlines()[-1:]}", facts
