"""Issue 27.12: the side list wrote "○4." for some later steps and "○ 2." for others (the mark's
space was shaped with the Hangul font on a Korean title, with the Latin one on "VRAM"): every
step's number now starts at the same x, whatever its mark and its title's script."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtWidgets import QTextEdit  # noqa: E402

from tests import scenarios  # noqa: E402
from tests.gui.wizard_driver import open_wizard  # noqa: E402


def _number_x(view: QTextEdit, label) -> float:
    """Where the step's number ("4.") begins in the label's text, laid out in the label's font
    (a shown text view's cursor rectangle: it knows where a table cell puts its text)."""
    view.setFont(label.font())
    view.setHtml(label.text())
    view.resize(label.width() + 40, 200)
    text = view.toPlainText()
    digit = next(i for i, ch in enumerate(text) if ch.isdigit())
    cursor = view.textCursor()
    cursor.setPosition(digit)
    return view.cursorRect(cursor).x()


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_every_step_number_starts_at_the_same_place(qtbot, lang):
    window = open_wizard(qtbot, scenarios.linux_host(), lang=lang)
    steps = window.steps
    view = QTextEdit()
    view.setFrameShape(QTextEdit.Shape.NoFrame)
    qtbot.addWidget(view)
    view.show()
    titles = [f"단계 {i}" if i % 2 else f"VRAM step {i}" for i in range(9)]  # both scripts, as "8. VRAM 계산"
    for current, done in ((2, None), (4, {0, 1, 2, 3}), (6, {0, 1, 3, 5})):  # ✓, ▶, – and ○ marks
        steps.set_steps("GPU", titles, current, done)
        qtbot.wait(10)
        xs = [round(_number_x(view, label), 1) for label in steps.labels]
        assert min(xs) >= 15 and max(xs) - min(xs) <= 0.5, (current, xs, [label.text() for label in steps.labels])
