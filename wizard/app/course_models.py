"""A course's lessons named by their model (``model = "torchvision:resnet50"``), measured in the
student's environment.

Why here and not at reading time: the measuring probe runs in the environment where torch and the
model's library live (``wizard/probe/vram_measure.py``, on the meta device: no GPU, no download),
which exists only after the install. Verify calls :func:`measure_lessons` on its worker thread
right after the course's extras are imported in the same interpreter, and ``vram --course`` calls
it directly; the report's Course section then judges each such lesson by its measured need
(:func:`wizard.core.course.lessons.judge_course`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from wizard.app.session import Session
    from wizard.app.vram import GpuMemory
    from wizard.core.base.process import CancelLike
    from wizard.core.course.lessons import CourseJudgment, MeasuredNeed
    from wizard.core.course.profile import CourseLesson


def lessons_to_measure(session: Session) -> list[CourseLesson]:
    """The open course's lessons that name a model (none without a course)."""
    course = session.course
    return [ls for ls in course.lessons if ls.model] if course is not None else []


def measure_lessons(session: Session, python_exe: str, gpu: GpuMemory | None = None, *,
                    on_event: Callable[[dict[str, Any]], None] | None = None,
                    cancel: CancelLike = None) -> dict[str, MeasuredNeed]:
    """Measure each model-named lesson in ``python_exe`` (a child process per lesson: call it off
    the GUI thread). A lesson whose setting the wizard refuses, or whose model cannot be measured
    nor estimated, gets a need of None with the reason in the student's language."""
    from wizard.app import vram as vram_app
    from wizard.core.course.lessons import MeasuredNeed

    out: dict[str, MeasuredNeed] = {}
    for lesson in lessons_to_measure(session):
        try:
            request = vram_app.measure_request(lesson.model, batch=lesson.batch, mode=lesson.mode,
                                               dtype=lesson.dtype, input_shape=lesson.input_shape)
        except vram_app.VramInputError as exc:
            out[lesson.id] = MeasuredNeed(None, False, exc.message(session.lang))
            continue
        m = vram_app.measure(python_exe, request, gpu, on_event=on_event, cancel=cancel)
        reason = _reason(m.reason_id, lesson.model, python_exe, session.lang) or m.reason or ""
        if m.estimate is None:
            out[lesson.id] = MeasuredNeed(None, False, reason)
        else:
            out[lesson.id] = MeasuredNeed(m.estimate.total_bytes, m.measured, reason)
    return out


# the library a SPEC's kind needs, by its distribution name
_LIBRARIES = {"torchvision": "torchvision", "timm": "timm", "hf": "transformers"}


def _reason(reason_id: str | None, spec: str, python_exe: str, lang: str) -> str | None:
    """The probe's reasons are English (it runs with the standard library alone); the one a
    student can act on, a missing library, is said in their language with the command that adds it."""
    from wizard.core.base.i18n import t

    library = _LIBRARIES.get(spec.split(":", 1)[0])
    if reason_id == "missing-library" and library:
        return t("course.lesson.missing_library", lang, library=library, python=python_exe)
    return None


def record_measured(session: Session, measured: dict[str, MeasuredNeed]) -> None:
    """The report's Course section judges these lessons by what was measured."""
    session.course_measured = dict(measured)


def judge_on(session: Session, gpu: GpuMemory | None, ram_total_bytes: int | None) -> CourseJudgment:
    """The course's lessons judged for ``gpu`` (this PC's, a typed card, or None) with what was
    measured (``vram --course``: the command line has no detection to judge from). The session
    holds a course (``vram --course`` opened it)."""
    from wizard.core.course.lessons import judge_course

    if session.course is None:
        raise ValueError("judge_on needs a session with a course profile")
    gpus: list[tuple[str | None, int | None, int]] = [(gpu.name, gpu.total_bytes, gpu.used_bytes)] if gpu else []
    return judge_course(session.course, gpus, ram_total_bytes, session.lang, session.course_measured)


__all__ = ["judge_on", "lessons_to_measure", "measure_lessons", "record_measured"]
