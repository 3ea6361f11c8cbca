"""Start the Qt application: fonts, the wizard window, and the ``--smoke-test`` mode.

Start-up stays fast because nothing slow is imported here: pyqtgraph and numpy load only
when the GPU page first draws its plot, and torch is never imported by the wizard itself.
"""

from __future__ import annotations

import os
import sys
import time
from typing import cast

# isort: off
# The window's non-Qt modules load before PySide6: PySide6's import hook reads the source of
# every module imported after it (to look for "from __feature__ import"), about half a
# millisecond each.
from wizard.app import detect as _detect, history as _history  # noqa: F401 - the session model's
from wizard.app.session import Session
from wizard.core.base.i18n import detect_lang, t
from wizard.core.base.resources import resource_path
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication
# isort: on


def ms_since_process_start() -> float:
    """Milliseconds since the OS created this process.

    Linux: the start time in /proc/self/stat (clock ticks since boot) against CLOCK_BOOTTIME,
    exact to one tick -- psutil adds a boot time rounded to whole seconds, which put the printed
    figure off by up to a second. Elsewhere psutil, whose creation time is the OS's own there.
    """
    try:
        with open("/proc/self/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
        start_ticks = int(fields[19])  # field 22, starttime; the fields after "(comm)" begin at 3
        return (time.clock_gettime(time.CLOCK_BOOTTIME) - start_ticks / os.sysconf("SC_CLK_TCK")) * 1000.0
    except (OSError, ValueError, IndexError, AttributeError):
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
    app = cast(QApplication, QApplication.instance()) or QApplication(argv or sys.argv[:1])
    app.setApplicationName("GPU Setup Wizard")
    app.setOrganizationName("GPU Setup Wizard")
    app.setApplicationDisplayName(t("common.app_title", lang))
    app.setDesktopFileName("gpu-setup-wizard")  # matches the Linux .desktop entry
    from wizard.ui.fonts import setup_fonts
    from wizard.ui.translations import set_qt_language

    setup_fonts(app, lang)  # the shipped Hangul font where the system has none (under 5 ms)
    set_qt_language(lang)  # Qt's own dialogs and buttons in Korean (qtbase_ko)
    return app  # type: ignore[return-value]


def set_window_icon(app: QApplication) -> None:
    """The wizard's icon on every window (title bar, task bar). :func:`run` sets it just after the
    first paint: decoding the PNG and creating PySide's QIcon class (with its ~100-name ThemeIcon
    enum) took 2-3 ms of start-up, and the window manager takes a new icon at any time."""
    icon = resource_path("icons", "app.png")
    if icon.is_file():
        from PySide6.QtGui import QIcon

        app.setWindowIcon(QIcon(str(icon)))


def _check_compat_update() -> None:
    """At most once a day, after the first paint, on a worker thread: never blocks the window."""
    from wizard.app.recommend import check_data_update
    from wizard.ui.workers import submit

    submit(check_data_update)


def run(smoke_test: bool = False, lang: str | None = None) -> int:
    """Open the window in ``lang`` (the command line's choice; until it passes one, the
    process-wide language it sets) and run until it closes."""
    from wizard.ui.main_wizard import SetupWizard

    lang = lang or detect_lang()
    app = create_app(lang=lang)
    session = Session(lang=lang)
    window = SetupWizard(session, defer_pages=True)  # the later pages come after the first paint
    from wizard.ui.translations import follow_language

    follow_language(window.model)  # the language menu switches Qt's own texts too
    if smoke_test:
        page = window.page(window.startId())

        def report() -> None:
            # Start-up ends here: what the real window does next (load the later pages on a
            # worker thread, detect) is measured by benchmarks/gui_stalls.py, not by this figure.
            print(f"smoke-test: first page painted after {ms_since_process_start():.0f} ms")
            app.exit(0)

        watcher = _FirstPaint(report)
        page.installEventFilter(watcher)
        QTimer.singleShot(30000, lambda: (print("smoke-test: first page was never painted", file=sys.stderr),
                                          app.exit(1)))
        window.show()
        return app.exec()
    def after_first_paint() -> None:
        set_window_icon(app)
        window.after_first_paint()

    loader = _FirstPaint(after_first_paint)
    window.page(window.startId()).installEventFilter(loader)
    updater = _FirstPaint(_check_compat_update)  # a newer signed compatibility table, on a worker
    window.page(window.startId()).installEventFilter(updater)
    window.fit_to_screen(window.screen().availableGeometry().size())
    window.show()
    QTimer.singleShot(0, window.start)
    return app.exec()
