"""Start the Qt application: fonts, the wizard window, and the ``--smoke-test`` mode.

Start-up stays fast because nothing slow is imported here: pyqtgraph and numpy load only
when the GPU page first draws its plot, and torch is never imported by the wizard itself.
"""

from __future__ import annotations

import sys
import time

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication

from wizard.app.session import Session
from wizard.core.base.i18n import detect_lang, t
from wizard.core.base.resources import resource_path


def ms_since_process_start() -> float:
    """Milliseconds since this process was created (psutil: the OS's own start time)."""
    import psutil

    return (time.time() - psutil.Process().create_time()) * 1000.0


class _FirstPaint(QObject):
    """Calls back once, after the watched widget has been painted."""

    def __init__(self, callback) -> None:
        super().__init__()
        self.callback = callback
        self.fired = False

    def eventFilter(self, obj, event) -> bool:  # noqa: N802
        if not self.fired and event.type() == QEvent.Type.Paint:
            self.fired = True
            QTimer.singleShot(0, self.callback)  # after this paint completes
        return False


def create_app(argv: list[str] | None = None, lang: str = "en") -> QApplication:
    app = QApplication.instance() or QApplication(argv or sys.argv[:1])
    app.setApplicationName("GPU Setup Wizard")
    app.setOrganizationName("GPU Setup Wizard")
    app.setApplicationDisplayName(t("app.title", lang))
    app.setDesktopFileName("gpu-setup-wizard")  # matches the Linux .desktop entry
    icon = resource_path("icons", "app.png")
    if icon.is_file():
        from PySide6.QtGui import QIcon

        app.setWindowIcon(QIcon(str(icon)))
    return app  # type: ignore[return-value]


def run(smoke_test: bool = False, lang: str | None = None) -> int:
    """Open the window in ``lang`` (the command line's choice; until it passes one, the
    process-wide language it sets) and run until it closes."""
    from wizard.ui.main_wizard import SetupWizard

    lang = lang or detect_lang()
    app = create_app(lang=lang)
    session = Session(lang=lang)
    window = SetupWizard(session)
    if smoke_test:
        page = window.page(window.startId())

        def report() -> None:
            print(f"smoke-test: first page painted after {ms_since_process_start():.0f} ms")
            window.gpu_page.cleanup()
            app.exit(0)

        watcher = _FirstPaint(report)
        page.installEventFilter(watcher)
        QTimer.singleShot(30000, lambda: (print("smoke-test: first page was never painted", file=sys.stderr),
                                          app.exit(1)))
        window.show()
        return app.exec()
    window.show()
    QTimer.singleShot(0, window.start)
    return app.exec()
