"""The side list of steps, so a student always sees where they are in the flow.

Colours come from the palette and the current step is marked with rich text, not a style
sheet: a style sheet here would switch the whole side panel to the (slower) style-sheet
style and re-polish on every page change, which showed up in the start-up time.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

BACKGROUND = "#1f3a5f"
TEXT = "#c9d6e8"


class StepList(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("stepList")
        self.setMinimumWidth(200)
        self.setAutoFillBackground(True)
        palette = self.palette()
        palette.setColor(QPalette.ColorRole.Window, QColor(BACKGROUND))
        palette.setColor(QPalette.ColorRole.WindowText, QColor(TEXT))
        self.setPalette(palette)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(18, 18, 12, 18)
        self._layout.setSpacing(9)
        self.heading = QLabel()
        self.heading.setWordWrap(True)
        self._layout.addWidget(self.heading)
        self._layout.addSpacing(8)
        self.labels: list[QLabel] = []
        self._layout.addStretch(1)

    def set_steps(self, heading: str, titles: list[str], current: int) -> None:
        self.heading.setText(f'<span style="color:white; font-size:15px; font-weight:700">{heading}</span>')
        while len(self.labels) < len(titles):
            label = QLabel()
            self._layout.insertWidget(len(self.labels) + 2, label)
            self.labels.append(label)
        for i, (label, title) in enumerate(zip(self.labels, titles)):
            text = f"{i + 1}. {title}"
            if i == current:
                text = f'<span style="color:white; font-weight:700">▶ {text}</span>'
            elif i < current:
                text = f'<span style="color:#8fb3de">✓ {text}</span>'
            else:
                text = f"&nbsp;&nbsp;&nbsp;{text}"
            label.setText(text)
