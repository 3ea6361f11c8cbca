"""Course use cases: one course profile, honoured by every step of a run, in both faces.

``--course FILE|URL`` on recommend, install, verify and report and the System page's "Open
course profile…" all call :func:`open_course`, which stores the profile in the session; then
the recommendation takes the pin (:func:`course_wishes`, :func:`pin_notes`), the install request
adds the extras (:func:`extra_requirements`), verification checks they import
(:func:`check_extras`) and the report judges the lessons (:func:`judge`).
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from wizard.app.session import Session
from wizard.core.base.i18n import t
from wizard.core.base.lazy import lazy_exports
from wizard.core.course.extras import ExtraCheck as ExtraCheck  # re-exported: the faces and tests name it here

if TYPE_CHECKING:
    from packaging.specifiers import SpecifierSet

    from wizard.core.course.lessons import CourseJudgment
    from wizard.core.course.profile import CourseError as CourseError
    from wizard.core.course.profile import CourseProfile
    from wizard.core.install.job import InstallOptions
    from wizard.core.machine.models import Detection
    from wizard.core.recommend.inputs import MachineFacts, Wishes
    from wizard.core.recommend.recommender import Candidate, Recommendation
    from wizard.core.report.document import Report, Section

__getattr__ = lazy_exports(__name__, {"CourseError": "wizard.core.course.profile"})

EXTRAS_TIMEOUT_S = 120.0
# Run in the student's interpreter: one JSON line per package (its version, or why it does not import).
_EXTRAS_PROBE = """
import importlib, json, sys
from importlib import metadata
for dist, mod in json.loads(sys.argv[1]):
    row = {"dist": dist, "module": mod}
    try:
        importlib.import_module(mod)
        try:
            row["version"] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            row["version"] = "?"
    except BaseException as exc:
        row["error"] = type(exc).__name__ + ": " + str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
    print(json.dumps(row), flush=True)
"""


def open_course(session: Session, source: str) -> CourseProfile:
    """Read the profile at ``source`` (a file or an https:// address) into the session.
    Raises :class:`wizard.core.course.profile.CourseError` (its ``text(lang)`` is one line)."""
    from wizard.core.course.profile import load_course

    course = load_course(source)
    session.course = course
    return course


def course_wishes(session: Session, wishes: Wishes | None, facts: MachineFacts | None = None,
                  unpinned: Candidate | None = None) -> Wishes:
    """``wishes`` with the course's torch pin, unless the student asked for a torch themselves.

    For a range the newest allowed torch is not always the one to take: on an older driver the
    newest runs only as a CPU build while an older one in the range runs on the GPU. Given the
    machine's ``facts`` and the recommendation without the pin (``unpinned``), the newest
    allowed torch whose build is as good (a GPU build when the unpinned one is) is taken."""
    from wizard.core.course.profile import allowed_torches
    from wizard.core.recommend import compat
    from wizard.core.recommend.inputs import Wishes
    from wizard.core.recommend.recommender import recommend

    course = session.course
    wishes = wishes if wishes is not None else Wishes()
    if course is None or not course.torch or wishes.torch:
        return wishes
    allowed = allowed_torches(course, compat.load().releases)
    if not allowed:
        return wishes
    if facts is not None:
        want_gpu = unpinned is not None and unpinned.kind != "cpu"
        for torch in allowed:
            best = recommend(facts, replace(wishes, torch=torch)).best
            if best is not None and _allowed(course.torch_spec(), best.torch) and (not want_gpu or best.kind != "cpu"):
                return replace(wishes, torch=torch)
    return replace(wishes, torch=allowed[0])


def course_python(session: Session) -> str | None:
    """The course's Python as "X.Y" when it names one version (a range leaves the choice to
    the recommendation, which :func:`pin_notes` then checks)."""
    import re

    course = session.course
    if course is None or not re.fullmatch(r"3\.\d+", course.python.strip()):
        return None
    return str(course.python).strip()


def pin_notes(session: Session, rec: Recommendation) -> list[str]:
    """What the recommendation did with the course's pin, in the session's language: the
    version taken, or why this machine cannot run it (the recommender's own reasons)."""
    from wizard.core.course.profile import pick_torch
    from wizard.core.recommend import compat

    course, lang = session.course, session.lang
    if course is None:
        return []
    notes = [t("course.loaded", lang, name=course.name, source=course.source)]
    spec = course.torch_spec()
    if spec is not None:
        notes.append(_pin_note(spec, pick_torch(course, compat.load().releases), rec, lang))
    python_spec = course.python_spec()
    have = getattr(rec.facts, "python", None)
    if python_spec is not None and have and not python_spec.contains(f"{have}.0") and not python_spec.contains(have):
        notes.append(t("course.python_mismatch", lang, want=course.python, have=have))
    return notes


def _pin_note(spec: SpecifierSet, torch: str | None, rec: Recommendation, lang: str) -> str:
    """One line: the pinned torch taken, the pin matching nothing the table knows, or why this
    machine cannot run the pinned torch (on its GPU, when the unpinned choice would use it)."""
    from wizard.core.recommend.inputs import Wishes
    from wizard.core.recommend.recommender import check_candidate, recommend

    if torch is None:
        return t("course.pin_unknown", lang, spec=str(spec))
    best = rec.best
    unpinned = recommend(rec.facts, Wishes()).best
    lost_gpu = best is not None and unpinned is not None and best.kind == "cpu" and unpinned.kind != "cpu"
    if best is not None and _allowed(spec, best.torch) and not lost_gpu:
        return t("course.pin_used", lang, spec=str(spec), torch=best.torch)
    torch = best.torch if best is not None and _allowed(spec, best.torch) else torch
    variant = _nearest_variant(torch, unpinned, rec.facts) if unpinned is not None else "cpu"
    reasons = list(check_candidate(rec.facts, torch, variant, lang=lang))
    if lost_gpu and best is not None:
        reasons.append(t("course.pin_cpu_only", lang, torch=best.torch))
    if not reasons:
        return t("course.pin_cannot_none", lang, spec=str(spec))
    return t("course.pin_cannot", lang, torch=torch, spec=str(spec), reasons=" ".join(reasons))


def _nearest_variant(torch: str, unpinned: Candidate, facts: MachineFacts) -> str:
    """The newest build of ``torch`` of the kind this machine could use (CUDA, ROCm): the one
    whose objections say why the course's torch cannot use the GPU here."""
    from wizard.core.recommend import compat

    kb = compat.load()
    release = kb.release(torch)
    names = release.variants.get(f"{facts.os}-{facts.arch}", ()) if release is not None else ()
    same = [v for n in names if (v := kb.variant(n)) is not None and v.kind == unpinned.kind]
    return max(same, key=lambda v: v.sort_key).name if same else unpinned.variant


def _allowed(spec: SpecifierSet, torch: str) -> bool:
    probe = torch if torch.count(".") >= 2 else f"{torch}.0"
    return bool(spec.contains(probe) or spec.contains(torch))


def pinned_ok(session: Session, rec: Recommendation) -> bool:
    """The recommendation's build is inside the course's pin (True when there is no pin)."""
    course = session.course
    spec = course.torch_spec() if course is not None else None
    return spec is None or (rec.best is not None and _allowed(spec, rec.best.torch))


def extra_requirements(session: Session) -> list[str]:
    """The course's extra packages, for the install request (after torch's own requirements)."""
    return list(session.course.packages) if session.course is not None else []


def add_extras(session: Session, options: InstallOptions, extras_index: str = "") -> InstallOptions:
    """``options`` (InstallOptions) with the course's extras appended, each once; ``extras_index``:
    where they come from when the build's index lacks them ("": PyPI; see
    :func:`wizard.core.course.profile.add_extras`)."""
    from wizard.core.course.profile import add_extras as core_add_extras

    extended: InstallOptions = core_add_extras(session.course, options, extras_index.strip() or None)
    return extended


def check_extras(session: Session, python_exe: str) -> list[ExtraCheck]:
    """Import each of the course's extras in ``python_exe`` (a child process; run it off the GUI
    thread); a row per package, also stored as ``session.course_checks``."""
    course = session.course
    if course is None or not course.packages:
        session.course_checks = []
        return []
    pairs = course.import_names()
    names = course.requirement_names()
    probe = [[name, module] for name, (_req, module) in zip(names, pairs)]
    result = session.host.run([python_exe, "-c", _EXTRAS_PROBE, json.dumps(probe)], timeout=EXTRAS_TIMEOUT_S)
    rows: dict[str, dict[str, Any]] = {}
    for line in (result.stdout or "").splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict) and isinstance(row.get("dist"), str):
            rows[row["dist"]] = row
    why = result.error or (result.stderr or "").strip().splitlines()[-1:] or [f"exit {result.returncode}"]
    checks = []
    for name, (req, module) in zip(names, pairs):
        row = rows.get(name)
        if row is None:  # the interpreter did not run, or died before this package
            checks.append(ExtraCheck(req, module, None, t("course.verify.no_python", session.lang,
                                                          python=python_exe, error=why if isinstance(why, str)
                                                          else " ".join(why))))
        else:
            checks.append(ExtraCheck(req, module, row.get("version"), row.get("error")))
    session.course_checks = checks
    return checks


def machine_gpus(detection: Detection | None) -> list[tuple[str | None, int | None, int]]:
    """(name, total bytes, bytes in use) per NVIDIA GPU, as the report's lesson judgment takes them."""
    from wizard.core.report.lesson import gpus_of
    from wizard.core.vram.units import vram_from_gpu

    out = []
    for g in gpus_of(detection) if detection is not None else []:
        if g.memory_total_mib:
            total, used = vram_from_gpu(g)
            out.append((g.name, total, used))
    return out


def judge(session: Session) -> CourseJudgment | None:
    """The course's lessons for the session's machine (None without a course)."""
    from wizard.core.course.lessons import judge_course

    if session.course is None:
        return None
    detection = session.detection
    ram = detection.system.ram_total_bytes if detection is not None else None
    return judge_course(session.course, machine_gpus(detection), ram, session.lang, session.course_measured)


__all__ = ["ExtraCheck", "add_extras", "check_extras", "course_python", "course_wishes", "extra_requirements", "judge",
           "machine_gpus", "open_course", "pin_notes", "pinned_ok"]


def report_section(session: Session, lang: str) -> Section | None:
    """The report's "Course" section: the course's minimum VRAM, a row per lesson ("meets the
    course / use Colab / cannot" for this machine) and, after verification, a row per extra."""
    from wizard.core.course.lessons import CANNOT, COLAB, MEETS, UNMEASURED
    from wizard.core.report.document import FAIL, INFO, PASS, STYLE_CHECKS, WARN, Item, Section, Table

    judged = judge(session_in(session, lang))
    if judged is None:
        return None
    status = {MEETS: PASS, COLAB: WARN, CANNOT: FAIL, UNMEASURED: INFO}
    rows = [[v.title(), v.text(lang), v.detail] for v in judged.verdicts]
    table = Table("course.lessons", [t("course.col.lesson", lang), t("course.col.verdict", lang),
                                     t("course.col.why", lang)], rows,
                  row_status=[status[v.verdict] for v in judged.verdicts])
    key = "course.min.ok" if judged.meets_minimum else "course.min.short"
    items = [Item("course.min_vram", t("course.col.min", lang),
                  t(key, lang, need=f"{judged.course.min_vram_gb:g}", basis=judged.basis),
                  PASS if judged.meets_minimum else WARN)] if judged.course.min_vram_gb else []
    python = session.target_python or ""
    for check in session.course_checks or []:
        items.append(Item(f"course.extra.{check.requirement}", check.requirement, check.text(lang, python),
                          PASS if check.ok else FAIL))
    paragraphs = [t("course.loaded", lang, name=judged.course.name, source=judged.course.source)]
    if any(v.verdict == COLAB for v in judged.verdicts) and judged.course.colab_note:
        paragraphs.append(t("course.colab_note", lang, note=judged.course.colab_note, url=judged.course.colab_url))
    worst = FAIL if any(v.verdict == CANNOT for v in judged.verdicts) else (
        WARN if any(v.verdict == COLAB for v in judged.verdicts) else PASS)
    return Section("course", t("course.report.title", lang, name=judged.course.name), status=worst if rows else INFO,
                   style=STYLE_CHECKS, paragraphs=paragraphs, items=items, tables=[table] if rows else [])


def session_in(session: Session, lang: str) -> Session:
    """``session`` seen in ``lang`` (the report may be made in another language than the run's)."""
    if session.lang == lang:
        return session
    return replace(session, lang=lang)


def add_to_report(session: Session, report: Report) -> Report:
    """The course section at the end of the report, and its language-free
    facts (``facts["course"]``) for the class view; the report unchanged without a course."""
    section = report_section(session, report.lang)
    if section is None:
        return report
    report.sections.append(section)
    if report.facts is not None:
        judged = judge(session)
        if judged is not None:  # (there is a section: there is a course)
            report.facts["course"] = dict(judged.to_json(None),
                                          extras=[c.to_json() for c in session.course_checks or []])
    return report
