"""Baseline for start-up: a bare QWizard with one page, timed exactly like --smoke-test.

Prints the milliseconds from process start to the first paint of the page, then exits.
"""

import sys
import time

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QLabel, QVBoxLayout, QWizard, QWizardPage


def ms_since_process_start() -> float:
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
