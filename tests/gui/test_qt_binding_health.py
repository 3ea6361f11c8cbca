"""The Qt bindings must not leak references to None/True/False.

PySide6-Essentials 6.12.0 on Python 3.11 decrements None's reference count on every void
method call (QLabel.setText, QApplication.processEvents, ...) and True/False's on every
signal emit; after a few thousand calls the interpreter aborts with "deallocating None".
The wizard updates labels once a second for as long as it is open, so such a release would
crash it. pyproject pins below 6.12; this test fails if a pinned or future release has it.
"""

from __future__ import annotations

import sys

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import QObject, Signal  # noqa: E402
from PySide6.QtWidgets import QLabel  # noqa: E402


class _Emitter(QObject):
    fired = Signal(object)


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="None/True/False are immortal from Python 3.12")
def test_void_calls_and_emits_keep_reference_counts(qtbot):
    label = QLabel()
    qtbot.addWidget(label)
    emitter = _Emitter()
    emitter.fired.connect(lambda _v: None)
    none_before, true_before = sys.getrefcount(None), sys.getrefcount(True)
    for _ in range(2000):
        label.setText("x")
        emitter.fired.emit(True)
    assert none_before - sys.getrefcount(None) < 100, "Qt bindings leak references to None"
    assert true_before - sys.getrefcount(True) < 100, "Qt bindings leak references to True"
