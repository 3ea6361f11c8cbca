"""The side list of steps, so a student always sees where they are in the flow.

The background is painted directly and the current step is marked with rich text rather
than a style sheet: a style sheet would switch the panel to the slower style-sheet style and
re-polish on every page change, which showed up in the start-up time.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QColor, QPainter, QPixmap
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

BACKGROUND = QColor("#1f3a5f")
DONE = "#8fb3de"
TODO = "#c9d6e8"
MARK_WIDTH = 18  # pixels: the widest mark (▶) and a space


class StepList(QWidget):
    """The steps; a click on a step already reached asks to go back to it (``step_clicked``)."""

    step_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("stepList")
        self.setFixedWidth(210)
        self.setProperty("paintedBackground", BACKGROUND.name())  # for checks of text contrast
        # The background is a one-pixel pixmap stretched over the panel. Not fillRect(rect, colour):
        # PySide resolves that overload (and QBrush(colour)) through Qt.GlobalColor, which creates
        # the whole Qt namespace (15-20 ms) in the first paint; a palette's autofill is ignored
        # in a QWizard's side area.
        self._background = QPixmap(1, 1)
        self._background.fill(BACKGROUND)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(16, 18, 10, 18)
        self._layout.setSpacing(10)
        self.heading = self._label()
        self._layout.addWidget(self.heading)
        self._layout.addSpacing(10)
        self.labels: list[QLabel] = []
        self._layout.addStretch(1)

    @staticmethod
    def _label() -> QLabel:
        label = QLabel()  # Qt.AutoText: every text set_steps gives it starts with <span> (rich);
        label.setWordWrap(True)  # no Qt.TextFormat here, the Qt namespace costs 15 ms before the first paint
        return label


    def mousePressEvent(self, event) -> None:  # noqa: N802 - Qt's name
        """A click on a step's line: the window decides whether it can go there."""
        y = event.position().toPoint().y()
        for i, label in enumerate(self.labels):
            if label.isVisible() and label.geometry().top() <= y <= label.geometry().bottom():
                self.step_clicked.emit(i)
                return
        super().mousePressEvent(event)

    def paintEvent(self, event) -> None:  # noqa: N802
        painter = QPainter(self)
        painter.drawPixmap(self.rect(), self._background)
        painter.end()
        super().paintEvent(event)

    def set_steps(self, heading: str, titles: list[str], current: int, done: set[int] | None = None) -> None:
        """``done``: the steps reached so far (✓). Without it, every step before ``current``.
        A step before the furthest one reached that was never shown (an install skipped) gets "–"."""
        self.heading.setText(f'<span style="color:white; font-size:16px; font-weight:700">{heading}</span>')
        while len(self.labels) < len(titles):
            label = self._label()
            self._layout.insertWidget(len(self.labels) + 2, label)
            self.labels.append(label)
        done = set(range(current)) if done is None else set(done)
        furthest = max(done | {current})
        for i, (label, title) in enumerate(zip(self.labels, titles)):
            if i == current:
                mark, colour, weight = "▶", "white", "; font-weight:700"
            elif i in done:
                mark, colour, weight = "✓", DONE, ""
            elif i < furthest:
                mark, colour, weight = "–", TODO, ""
            else:
                mark, colour, weight = "○", TODO, ""
            label.setText(_row(mark, f"{i + 1}. {title}", f"color:{colour}{weight}"))


def _row(mark: str, text: str, style: str) -> str:
    """The mark in a column of its own width: every step's number starts at the same place,
    whatever the mark's glyph and whichever font (Hangul or Latin) shapes the space after it."""
    return (f'<table cellspacing="0" cellpadding="0"><tr><td width="{MARK_WIDTH}">'
            f'<span style="{style}">{mark}</span></td><td><span style="{style}">{text}</span></td></tr></table>')
