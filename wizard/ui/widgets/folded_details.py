"""A tool's raw words folded away behind a "Details" arrow button.

Why: the plan box and the install outcome both show the engine's own text under a failure,
hidden until asked for; one builder keeps the two folds alike (arrow, plain selectable text,
shown only when there is text) instead of two copies drifting apart.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QToolButton, QVBoxLayout


def build_folded_details(layout: QVBoxLayout, button_name: str,
                         label_name: str) -> tuple[QToolButton, QLabel]:
    """Add a hidden checkable "Details" button and its hidden label to ``layout``.

    The caller sets the button's text in its language; ``show_folded_details`` fills it.
    """
    button = QToolButton()
    button.setObjectName(button_name)
    button.setCheckable(True)
    button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
    button.setArrowType(Qt.ArrowType.RightArrow)
    button.hide()
    label = QLabel()
    label.setObjectName(label_name)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.hide()

    def toggle(shown: bool) -> None:
        button.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)
        label.setVisible(shown and bool(label.text()))

    button.toggled.connect(toggle)
    layout.addWidget(button)
    layout.addWidget(label)
    return button, label


def show_folded_details(button: QToolButton, label: QLabel, details: str) -> None:
    """Put ``details`` in the fold: the button shows when there is text, the label when unfolded."""
    button.setVisible(bool(details))
    label.setText(details)
    label.setVisible(bool(details) and button.isChecked())


__all__ = ["build_folded_details", "show_folded_details"]
