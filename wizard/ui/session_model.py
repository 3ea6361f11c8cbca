"""The Qt face of the core :class:`Session`: the same data, plus signals for the pages.

Pages never run detection themselves; they ask the model and listen, so the System page and
the GPU page always show the same detection, and Rescan refreshes both.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from wizard.core.i18n import set_language
from wizard.core.models import Detection
from wizard.core.session import Session
from wizard.ui.workers import submit


class SessionModel(QObject):
    detection_started = Signal()
    detection_finished = Signal(object)  # Detection
    detection_failed = Signal(str)
    language_changed = Signal(str)

    def __init__(self, session: Session, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.detecting = False
        self._task = None  # keeps the running task's signals alive

    def set_language(self, lang: str) -> None:
        if lang == self.session.lang:
            return
        self.session.lang = lang
        set_language(lang)
        self.language_changed.emit(lang)

    def start_detection(self) -> None:
        """Detect in the background; a second request while one runs is ignored."""
        if self.detecting:
            return
        from wizard.core.detect import detect

        self.detecting = True
        self.detection_started.emit()
        self._task = submit(detect, self.session.host, on_done=self._done, on_failed=self._failed)

    def _done(self, detection: Detection) -> None:
        self.detecting = False
        self.session.detection = detection
        self.session.detection_error = None
        self.detection_finished.emit(detection)

    def _failed(self, text: str) -> None:
        self.detecting = False
        self.session.detection_error = text
        self.detection_failed.emit(text)
