"""The System page's "Open course profile…": the course a whole run then honours.

Why on the first page: the recommendation (its torch pin), the install (its extra packages) and
the report (its lessons) all read ``session.course``, so the course is chosen before any of
them runs. Reading a profile is a small bounded file read (64 kB at most), done on the GUI
thread; a refused file shows its one-line reason under the button and changes nothing.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QBoxLayout

from wizard.core.base.i18n import t
from wizard.ui.widgets.button_row import ButtonRow


class CourseRow(ButtonRow):
    """The button and the line saying which course is open (or why the last one was refused)."""

    def __init__(self, page: Any, layout: QBoxLayout) -> None:
        self.refusal: str | None = None
        super().__init__(page, layout, "openCourseProfile", "courseProfileStatus")

    def choose(self) -> None:
        from PySide6.QtWidgets import QFileDialog  # created on the first click, not at start-up

        path, _ = QFileDialog.getOpenFileName(self.page, t("course.open", self.lang), "",
                                              t("course.open.filter", self.lang))
        if path:
            self.open(path)

    def open(self, source: str) -> bool:
        """Read ``source`` into the session; True when it was taken."""
        from wizard.app.course import CourseError, open_course

        try:
            open_course(self.page.model.session, source)
        except CourseError as exc:
            self.refusal = exc.text(self.lang)
            self.retranslate()
            return False
        self.refusal = None
        self.retranslate()
        return True

    def retranslate(self) -> None:
        lang = self.lang
        self.button.setText(t("course.open", lang))
        self.button.setToolTip(t("course.open.tip", lang))
        course = self.page.model.session.course
        text = t("course.loaded", lang, name=course.name, source=course.source) if course else t("course.none", lang)
        if self.refusal:
            text = t("course.open.refused", lang) + ": " + self.refusal + "\n" + text
        self.label.setText(text)


def add_course_row(page: Any, layout: QBoxLayout) -> CourseRow:
    """The "Open course profile…" row, in ``layout``."""
    return CourseRow(page, layout)


__all__ = ["CourseRow", "add_course_row"]
