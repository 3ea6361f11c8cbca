"""The Qt face of the app layer's :class:`Session`: the same data, plus signals for the pages.

It keeps no logic of its own: detection and the comparison with the last run are the app
layer's ``compute`` functions, run on the worker pool, and its ``record`` functions, called here
on the GUI thread when the worker is done.

Pages never run detection themselves; they ask the model and listen, so the System page and
the GPU page always show the same detection, and Rescan refreshes both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from wizard.app import detect as app_detect
from wizard.app import history as app_history
from wizard.app import session as app_session
from wizard.app.session import Session
from wizard.ui.workers import Task, submit

if TYPE_CHECKING:  # the models load with detection, on its worker thread
    from wizard.app.detect import Detection


class SessionModel(QObject):
    detection_started = Signal()
    detection_finished = Signal(object)  # Detection
    detection_failed = Signal(str)
    language_changed = Signal(str)
    changes_found = Signal(object)  # SnapshotDiff: this machine differs from the last saved run

    def __init__(self, session: Session, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.detecting = False
        self._task: Task | None = None  # keeps the running task's signals alive

    @property
    def lang(self) -> str:
        """The language every page renders in (the session's, not a process-wide one)."""
        return self.session.lang

    def set_language(self, lang: str) -> None:
        if app_session.set_language(self.session, lang):
            self.language_changed.emit(lang)

    def start_detection(self) -> None:
        """Detect in the background; a second request while one runs is ignored."""
        if self.detecting:
            return
        self.detecting = True
        self.detection_started.emit()
        # the app layer's compute on the worker (its import too: loading the machine package on the
        # GUI thread stalled the window's first moments); record on the GUI thread when it is done
        self._task = submit(app_detect.compute, self.session.host, on_done=self._done, on_failed=self._failed)

    def _done(self, detection: Detection) -> None:
        self.detecting = False
        app_detect.record(self.session, detection)
        self.detection_finished.emit(detection)
        if not self.session.changes_checked:  # once per run: against the run before this one
            self._changes_task = submit(app_history.compute_changes, detection, on_done=self._changes)

    def _changes(self, diff) -> None:
        app_history.record_changes(self.session, diff)
        if diff is not None:
            self.changes_found.emit(diff)

    def save_snapshot(self):
        """Save this run to the history (the next run compares with it)."""
        return app_history.save_snapshot(self.session)

    def _failed(self, text: str) -> None:
        self.detecting = False
        app_detect.record_failure(self.session, text)
        self.detection_failed.emit(text)
