"""Baseline for start-up: a bare QWizard with one page, timed exactly like --smoke-test.

Prints the milliseconds from process start to the first paint of the page, then exits.
"""

import os
import sys
import time

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QLabel, QVBoxLayout, QWizard, QWizardPage


def ms_since_process_start() -> float:
    """The same clock as wizard.ui.app.ms_since_process_start (copied: importing the wizard
    would add its imports to the baseline)."""
    try:
        with open("/proc/self/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
        return (time.clock_gettime(time.CLOCK_BOOTTIME) - int(fields[19]) / os.sysconf("SC_CLK_TCK")) * 1000.0
    except (OSError, ValueError, IndexError, AttributeError):
        import psutil

        return (time.time() - psutil.Process().create_time()) * 1000.0


class FirstPaint(QObject):
    def __init__(self, callback):
        super().__init__()
        self.callback = callback
        self.fired = False

    def eventFilter(self, obj, event):  # noqa: N802
        if not self.fired and event.type() == QEvent.Type.Paint:
            self.fired = True
            QTimer.singleShot(0, self.callback)
        return False


def main() -> int:
    app = QApplication(sys.argv[:1])
    wizard = QWizard()
    page = QWizardPage()
    page.setTitle("Bare page")
    QVBoxLayout(page).addWidget(QLabel("hello"))
    wizard.addPage(page)
    watcher = FirstPaint(lambda: (print(f"smoke-test: first page painted after {ms_since_process_start():.0f} ms"),
                                  app.exit(0)))
    page.installEventFilter(watcher)
    wizard.show()
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
