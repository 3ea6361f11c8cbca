"""Each of a course's lessons judged for one machine: "meets the course", "use Colab" or "cannot".

Why on top of :func:`wizard.core.vram.workloads.judge_machine_lessons`: that is the one judge of
the lessons for a real machine (the report's, in both faces), and a course lesson with a known id
takes its verdict from it unchanged. A lesson of the course's own (or one whose ``vram_gb``
overrides the estimate) is judged against the same GPU that judge chose, with the same usable
memory rule (the CUDA context reserve), and against the same Colab target.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wizard.core.base.i18n import t
from wizard.core.course.profile import CourseLesson, CourseProfile

MEETS = "meets"
COLAB = "colab"
CANNOT = "cannot"
UNMEASURED = "unmeasured"  # a lesson named by its model, not measured yet (no environment with torch)


@dataclass(frozen=True)
class MeasuredNeed:
    """What measuring a lesson's model (``CourseLesson.model``) in the student's environment gave:
    ``need_bytes`` (weights, gradients, optimizer, activations and slack; the CUDA context is the
    usable rule's) or None with ``reason`` when it could be neither measured nor estimated;
    ``measured`` False when the probe fell back to the parameter-count estimate."""

    need_bytes: int | None
    measured: bool
    reason: str = ""


@dataclass(frozen=True)
class LessonVerdict:
    lesson: CourseLesson
    verdict: str  # MEETS, COLAB, CANNOT or UNMEASURED
    need_bytes: int | None  # the course's figure or the measured one (None: the wizard's estimate)
    detail: str  # the wizard's judgment in words, in the language it was made in

    def title(self) -> str:
        return self.lesson.title or self.lesson.id

    def text(self, lang: str | None) -> str:
        return t(f"course.verdict.{self.verdict}", lang)

    def to_json(self, lang: str | None) -> dict[str, Any]:
        return {"id": self.lesson.id, "title": self.title(), "verdict": self.verdict, "text": self.text(lang),
                "need_bytes": self.need_bytes, "detail": self.detail}


@dataclass(frozen=True)
class CourseJudgment:
    course: CourseProfile
    verdicts: list[LessonVerdict]
    vram_total_bytes: int | None  # the GPU the lessons were judged for (None: no GPU)
    meets_minimum: bool
    basis: str

    def to_json(self, lang: str | None) -> dict[str, Any]:
        return {"course": self.course.name, "source": self.course.source, "min_vram_gb": self.course.min_vram_gb,
                "meets_minimum": self.meets_minimum, "vram_total_bytes": self.vram_total_bytes,
                "basis": self.basis, "lessons": [v.to_json(lang) for v in self.verdicts]}

    def lines(self, lang: str | None) -> list[str]:
        """The report's section: the minimum, then a line per lesson."""
        key = "course.min.ok" if self.meets_minimum else "course.min.short"
        out = [t("course.report.title", lang, name=self.course.name)]
        if self.course.min_vram_gb:  # as the report: no minimum, no line
            out.append("  " + t(key, lang, need=f"{self.course.min_vram_gb:g}", basis=self.basis))
        for v in self.verdicts:
            out.append(f"  - {v.title()}: {v.text(lang)}" + (f" ({v.detail})" if v.detail else ""))
        if any(v.verdict == COLAB for v in self.verdicts) and self.course.colab_note:
            out.append("  " + t("course.colab_note", lang, note=self.course.colab_note, url=self.course.colab_url))
        return out


def _from_workload(judgment: Any, course: CourseProfile) -> str:
    from wizard.core.vram.workloads import VERDICT_NEEDS_COLAB

    if judgment.runs_here:
        return MEETS
    if judgment.verdict == VERDICT_NEEDS_COLAB and course.colab_allowed:
        return COLAB
    return CANNOT


def judge_course(course: CourseProfile, gpus: list[tuple[str | None, int | None, int]],
                 ram_total_bytes: int | None, lang: str | None,
                 measured: dict[str, MeasuredNeed] | None = None) -> CourseJudgment:
    """The course's lessons for a machine with ``gpus`` ((name, total bytes, bytes in use) per
    NVIDIA GPU) and ``ram_total_bytes`` of RAM; a lesson id the wizard does not know and the
    course gives no ``vram_gb`` for is "cannot" with a reason (the profile should say).

    A lesson named by its model takes its need from ``measured`` (lesson id → what measuring it
    in the student's environment gave); not measured yet, the course's ``vram_gb`` stands in,
    said as such, or the lesson is "not measured yet" — never "cannot" for want of a figure."""
    from wizard.core.vram.memory import usable_vram_bytes
    from wizard.core.vram.units import GIB, format_gib
    from wizard.core.vram.workloads import judge_machine_lessons, targets

    machine = judge_machine_lessons(gpus, ram_total_bytes)
    by_id = {j.workload.id: j for j in machine.judgments}
    usable = [g for g in gpus if g[1]]
    total, used = (max(usable, key=lambda g: g[1] or 0)[1:] if usable else (None, 0))
    here = usable_vram_bytes(total, used) if total else 0
    colab = next((tg for tg in targets() if tg.id == "colab_t4"), None)
    colab_usable = usable_vram_bytes(colab.vram_bytes, 0) if colab else 0
    verdicts = []
    for lesson in course.lessons:
        got = (measured or {}).get(lesson.id) if lesson.model else None
        if lesson.model and (got is None or got.need_bytes is None) and lesson.vram_gb is None:
            why = got.reason if got is not None else ""
            verdicts.append(LessonVerdict(lesson, UNMEASURED, None, t(
                "course.lesson.unmeasured_why" if why else "course.lesson.unmeasured", lang, spec=lesson.model,
                reason=why)))
            continue
        if got is not None and got.need_bytes is not None:
            need = got.need_bytes
            verdict = MEETS if need <= here else COLAB if course.colab_allowed and need <= colab_usable else CANNOT
            key = "course.need_measured" if got.measured else "course.need_estimated"
            verdicts.append(LessonVerdict(lesson, verdict, need, t(key, lang, need=format_gib(need),
                                                                    here=format_gib(here), spec=lesson.model,
                                                                    batch=lesson.batch)))
            continue
        if lesson.vram_gb is None and lesson.id in by_id:
            j = by_id[lesson.id]
            verdicts.append(LessonVerdict(lesson, _from_workload(j, course), None, j.text(lang)))
            continue
        if lesson.vram_gb is None:
            verdicts.append(LessonVerdict(lesson, CANNOT, None, t("course.unknown_lesson", lang, id=lesson.id)))
            continue
        need = int(lesson.vram_gb * GIB)
        if need <= here:
            verdict = MEETS
        elif course.colab_allowed and need <= colab_usable:
            verdict = COLAB
        else:
            verdict = CANNOT
        key = "course.need_until_measured" if lesson.model else "course.need"
        verdicts.append(LessonVerdict(lesson, verdict, need, t(key, lang, need=format_gib(need), here=format_gib(here),
                                                                 spec=lesson.model)))
    # a card sold as "N GB" reports a little less (a 16 GB T4: 15109 MiB): 10% slack
    meets = bool(total) and (total or 0) >= course.min_vram_gb * GIB * 0.9 if course.min_vram_gb else True
    return CourseJudgment(course, verdicts, total, meets, machine.basis(lang))


__all__ = ["CANNOT", "COLAB", "MEETS", "UNMEASURED", "CourseJudgment", "LessonVerdict", "MeasuredNeed", "judge_course"]
