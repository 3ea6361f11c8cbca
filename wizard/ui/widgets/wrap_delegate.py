"""Word wrap that works in a tree's last column.

Why: ``QTreeView.setWordWrap(True)`` alone never makes a row taller — the view asks the
delegate for a row's size without saying how wide the column is, so a long cause or fix was
drawn on one line and cut with "…". This delegate tells the style the column's width, and the
view lays its rows out again whenever a column changes width.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize
from PySide6.QtWidgets import QStyledItemDelegate, QStyleOptionViewItem, QTreeView

ROW_GAP = 6  # pixels under a wrapped row, so two long rows do not run into each other


class WrapLastColumn(QStyledItemDelegate):
    """Rows as tall as the wrapped text of the view's last column needs."""

    def __init__(self, view: QTreeView) -> None:
        super().__init__(view)
        self.view = view
        view.setWordWrap(True)
        view.setUniformRowHeights(False)
        view.header().sectionResized.connect(self._relayout)

    def _relayout(self, *_args) -> None:
        self.view.doItemsLayout()

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:  # noqa: N802 - Qt's name
        header = self.view.header()
        if index.column() != header.count() - 1:
            return super().sizeHint(option, index)  # other columns size to their contents
        bounded = QStyleOptionViewItem(option)
        bounded.rect = QRect(0, 0, max(1, header.sectionSize(index.column())), 1 << 20)
        size = super().sizeHint(bounded, index)
        one_line = option.fontMetrics.height()
        return QSize(size.width(), size.height() + (ROW_GAP if size.height() > one_line + 4 else 0))
