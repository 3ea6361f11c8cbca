"""A live log: plain text, monospace, follows the end unless the reader scrolled up.

Why batch: pip can print hundreds of lines a second, and appending them one by one (each a
layout pass and a repaint) is what makes a progress window stutter. Lines are queued and
added together every ``FLUSH_MS``; the view keeps at most ``MAX_LINES`` (the saved log,
``InstallJob.save_log``, keeps the full record).
"""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QPlainTextEdit, QWidget

FLUSH_MS = 100
MAX_LINES = 20000


class LogView(QPlainTextEdit):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("logView")
        self.setReadOnly(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setMaximumBlockCount(MAX_LINES)
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self._pending: list[str] = []
        self._timer = QTimer(self)
        self._timer.setInterval(FLUSH_MS)
        self._timer.timeout.connect(self.flush)

    def append_line(self, text: str) -> None:
        self._pending.append(text)
        if not self._timer.isActive():
            self._timer.start()

    def flush(self) -> None:
        if not self._pending:
            self._timer.stop()
            return
        bar = self.verticalScrollBar()
        follow = bar.value() >= bar.maximum() - 4
        text = "\n".join(self._pending)
        self._pending.clear()
        self.appendPlainText(text)
        if follow:  # vertical only: jumping to the end of a long last line would scroll sideways
            bar.setValue(bar.maximum())
            # the range grows once the new lines are laid out (and a horizontal bar may appear)
            QTimer.singleShot(0, lambda: bar.setValue(bar.maximum()))

    def lines(self) -> list[str]:
        """Everything shown (and still queued), for tests and the page."""
        shown = self.toPlainText().splitlines()
        return shown + list(self._pending)
