"""A PDF report made in the test process (tests/cli_runner.py runs the command line in-process)
leaves a Qt application a later test's window can be made on.

The PDF is drawn with Qt; without an application it makes a QGuiApplication, the process's one
Qt application for good, and a QWidget made on that aborts the whole test process: every
integration test after ``report --format pdf`` that opens a window (faces-agree, report truth)
died with it when tests/integration ran alone. A fresh process here, as the run alone was.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

SCRIPT = """
import sys
from tests.cli_runner import run_cli
done = run_cli("report", "--format", "pdf", "-o", sys.argv[1])
assert done.exit_status == 0, done.stderr
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QApplication, QWidget
assert isinstance(QCoreApplication.instance(), QApplication), type(QCoreApplication.instance())
QWidget().show()
print("window made")
"""


def test_a_window_can_be_made_after_an_in_process_pdf(student_home, tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO), "GSW_LANG": "en"}
    target = tmp_path / "report.pdf"
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(target)], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0 and "window made" in done.stdout, done.stdout + done.stderr[-3000:]
    assert target.read_bytes().startswith(b"%PDF-")
