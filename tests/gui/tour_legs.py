"""The tour's legs: the paths of a student's second pass (issue "the window never contradicts
itself"), each walked in the real window from its first page by the mouse and keyboard.

    python -m tests.gui.tour_legs OUTDIR --leg LEG [--lang ko|en] [--size 1024x700]

* ``mirror-fixed``: the typed mirror lacks the build (and tells clients to cache its pages for
  ten minutes); the page says so and Install stays off. The mirror is fixed, the student types its
  address again: the index is asked again and the plan is ready. The install then meets the mirror
  syncing again (its torch file answers 404) and fails; once the file is back, Resume finishes it
  (a real venv, small wheels named like the build from a loopback index).
* ``chosen-python``: the interpreter picked on the Recommendation page is the one the Environment
  page plans with, and its note does not send the student back to choose it.
* ``course-mirror``: a course profile opened on the System page asks for an extra package; the
  student names where a course's extras come from ("Course extras from": a loopback "PyPI", so the
  tour never reaches pypi.org). With a mirror and a PyPI that both lack it the preview names the
  package and Install stays off; once the PyPI has it the preview lists it with the place it
  comes from (the mirror for torch, the PyPI for the extra).
* ``closed-after-report``: the run walks to the report (a recorded CPU-only interpreter answers
  the probes), exports the HTML and closes by Cancel (Korean) or the window's ✕ (English): the
  run is in the history.
* ``html-no-font``: the HTML that leg exported, read with a fontconfig that knows only DejaVu
  (no CJK font at all): DejaVu alone cannot draw its Hangul, the fonts the page embeds draw every
  character. A picture of its first lines drawn with them is saved to look at.

Each leg writes ``OUTDIR/leg-<leg>-<lang>-<size>-tour.json`` (:class:`tests.gui.tour.TourRecord`,
``facts`` holding what the student saw) and one PNG per moment worth looking at; a broken promise
stops the leg with a failure naming it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Callable

from tests.gui.tour import PROBE_DATA, REPLAY, Tour, TourRecord, prepare_home, settle

LEGS = ("mirror-fixed", "chosen-python", "course-mirror", "closed-after-report", "html-no-font")
COURSE = '''schema = "gpu-setup-wizard/course@1.0"

[course]
name = "{name}"
packages = ["tiny-course-extra"]
'''
DEJAVU = Path("/usr/share/fonts/truetype/dejavu")


def leg_stem(leg: str, lang: str, size: str) -> str:
    return f"leg-{leg}-{lang}-{size}"


def cpu_interpreter(folder: Path) -> Path:
    """An executable answering the probes as a CPU-only torch on a PC without a GPU answered them."""
    path = folder / "cpu-python"
    path.write_text(REPLAY.format(python=sys.executable,
                                  verify=str(PROBE_DATA / "verify_cpu_only_no_gpu_linux.jsonl"),
                                  bench=str(PROBE_DATA / "bench_cpu_only_windows.jsonl")), encoding="utf-8")
    path.chmod(0o755)
    return path


def build_wheels(folder: Path, requirements: list[str]) -> list[Path]:
    """Small wheels named like each pinned requirement of the plan (``torch==X`` → ``X+cpu``)."""
    from tests.integration.index_server import make_wheel

    wheels = []
    for req in requirements:
        m = re.fullmatch(r"([A-Za-z0-9_.-]+)==([0-9][0-9A-Za-z.+]*)", req.strip())
        if m is None:
            continue
        name, version = m.groups()
        version = version if "+" in version else version + "+cpu"
        wheels.append(make_wheel(folder, name, version, seed=len(wheels)))
    return wheels


class Leg:
    """The common walk (System → GPU → Recommendation → Environment) and the small actions."""

    def __init__(self, tour: Tour, session, index, work: Path) -> None:
        self.tour, self.session, self.index, self.work = tour, session, index, work
        self.pypi = None  # a second loopback index standing for PyPI (a course's extras' source)
        self.w = tour.window
        self.env = self.w.environment_page
        self.facts: dict = tour.record.facts

    # actions a student takes -------------------------------------------------------------------
    def click(self, button) -> None:
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest

        if not (button.isVisible() and button.isEnabled()):
            raise RuntimeError(f"the button {button.text()!r} cannot be clicked")
        QTest.mouseClick(button, Qt.MouseButton.LeftButton)

    def next(self) -> None:
        from PySide6.QtWidgets import QWizard

        self.click(self.w.button(QWizard.WizardButton.NextButton))

    def install_button(self):
        from PySide6.QtWidgets import QWizard

        return self.w.button(QWizard.WizardButton.CommitButton)

    def type_mirror(self, url: str) -> None:
        """Open the settings, select what the field holds, type the address and leave the field
        (Enter would also press the window's default button, Install: the tour looks at the plan
        first)."""
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest

        if not self.env.mirror_edit.isVisible():
            self.click(self.env.more_button)
        edit = self.env.mirror_edit
        edit.setFocus()
        QTest.keyClick(edit, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
        QTest.keyClicks(edit, url)
        edit.editingFinished.emit()  # what leaving the field sends (Xvfb has no window manager to move focus)
        self.tour.record.index_url = url

    def type_extras_index(self, url: str) -> None:
        """The settings' "Course extras from" field, typed as :meth:`type_mirror` types the mirror."""
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest

        if not self.env.mirror_edit.isVisible():
            self.click(self.env.more_button)
        edit = self.env.settings_panel.extras_edit
        edit.setFocus()
        QTest.keyClick(edit, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
        QTest.keyClicks(edit, url)
        edit.editingFinished.emit()

    def plan_ready(self) -> bool:
        env = self.env
        return (not env.plan_running and env.checks is not None and not env.checks_running
                and not env.pending())

    def check(self, ok: bool, what: str) -> None:
        if not ok:
            self.tour.grab("broken-promise")
            raise RuntimeError(what)

    # the walk ---------------------------------------------------------------------------------------
    def to_environment(self, on_system: Callable[[], None] = lambda: None,
                       on_recommend: Callable[[], None] = lambda: None) -> None:
        from wizard.ui.pages.base import PageId

        w, tour = self.w, self.tour
        tour.then("detection", lambda: self.session.detection is not None, on_system)
        tour.then("system page drawn", settle(0.5), self.next)
        tour.then("GPU page", lambda: w.currentId() == PageId.GPU, lambda: None)
        tour.then("GPU page drawn", settle(0.3), self.next)
        tour.then("recommend page", lambda: w.currentId() == PageId.RECOMMEND, lambda: None)
        tour.then("recommend page drawn", settle(0.5), on_recommend)
        tour.then("recommend page chosen", settle(0.5), self.next)
        tour.then("environment page", lambda: w.currentId() == PageId.ENVIRONMENT, lambda: None)


# --- the legs ----------------------------------------------------------------------------------------
def mirror_fixed(leg: Leg) -> None:
    from tests.integration.index_server import make_wheel
    from wizard.ui.pages.base import PageId

    tour, env, idx = leg.tour, leg.env, leg.index
    idx.page_headers = {"Cache-Control": "max-age=600"}
    idx.add_wheels([make_wheel(leg.work / "old", "torch", "1.0.0+cpu")])
    asked: list[int] = []
    leg.to_environment()
    tour.then("the environment page drawn", settle(0.3), lambda: leg.type_mirror(idx.base + "/whl"))

    def broken() -> None:
        tour.grab("mirror-lacks-the-build")
        leg.check(env.plan_error is not None, "a mirror without the build gave a plan")
        leg.check(not leg.install_button().isEnabled(), "Install is on although the mirror lacks the build")
        leg.facts["broken_status"] = env.plan_status.text()
        idx.add_wheels(build_wheels(leg.work / "wheels", list(env.options().requirements)))  # the mirror is fixed
        asked.append(len(idx.log))
        leg.type_mirror(idx.base + "/whl")  # typed again: the same address

    def fixed() -> None:
        leg.facts["asked_again"] = len(idx.log) > asked[0]
        leg.check(leg.facts["asked_again"], "the re-typed mirror was not asked again")
        leg.check(env.plan_error is None, "the fixed mirror still fails: " + env.plan_status.text())
        leg.check(leg.install_button().isEnabled(), "Install is off although the fixed mirror has the build")
        tour.grab("mirror-fixed")
        torch = next(f.filename for f in idx.files.values() if f.project == "torch" and "1.0.0" not in f.filename)
        idx.fail(torch, 404)  # while the mirror syncs again, its torch file is gone for a moment
        leg.facts["broken_file"] = torch
        leg.click(leg.install_button())

    def installed() -> bool:
        page = leg.w.install_page
        return page.runner is not None and not page.runner.running and page.state not in ("running", "stopping")

    def failed() -> None:
        page = leg.w.install_page
        tour.grab("install-failed")
        leg.facts["first_install"] = page.state
        failure = page.job.failure if page.job is not None else None
        leg.facts["failure_kind"] = str(failure.failure_kind) if failure is not None else None
        leg.facts["failure_text"] = failure.message.text(tour.record.lang) if failure is not None else ""
        leg.check(page.state == "failed", f"the install from a mirror without its torch file ended as {page.state}")
        leg.check("✓" not in leg.w.steps.labels[PageId.INSTALL].text(), "the side list ticks a failed install")
        idx.fail(leg.facts["broken_file"], None)  # the mirror is whole again
        asked[0] = len(idx.log)
        leg.click(page.resume_button)

    def done() -> None:
        tour.grab("install-resumed")
        leg.facts["install_state"] = leg.w.install_page.state
        leg.facts["resume_asked"] = len(idx.log) > asked[0]
        leg.check(leg.w.install_page.state == "done", f"the resumed install ended as {leg.w.install_page.state}")
        leg.facts["env_python"] = leg.session.install.env_python if leg.session.install else None

    tour.then("the mirror without the build", leg.plan_ready, broken)
    tour.then("the re-planned mirror", lambda: len(idx.log) > asked[0] and leg.plan_ready(), fixed)
    tour.then("the install from the mirror missing its torch file", installed, failed)
    tour.then("the resumed install", lambda: leg.w.install_page.state not in ("failed",) and installed(), done)


def chosen_python(leg: Leg) -> None:
    tour, env = leg.tour, leg.env
    chosen: list[str] = []

    def choose() -> None:
        """Pick an interpreter this PC has other than the one "best match" takes (a Python 3.10 or
        newer, which every build the tables list supports)."""
        page = leg.w.recommend_page
        auto = page.choice.interpreter.path if page.choice and page.choice.interpreter else None
        combo = page.python_combo
        for i in range(combo.count()):
            text, minor = combo.itemText(i), combo.itemData(i)
            path = text.split(" — ", 1)[1] if " — " in text else None
            if path and path != auto and minor and tuple(int(v) for v in minor.split(".")) >= (3, 10):
                combo.setCurrentIndex(i)
                chosen.append(path)
                break
        leg.check(bool(chosen), "the Recommendation page lists no other installed Python")
        leg.facts["best_match"], leg.facts["chosen"] = auto, chosen[0]

    def seen() -> None:
        tour.grab("recommend-python-chosen")
        leg.facts["recommend_says"] = leg.w.recommend_page.choice_sub.text()
        leg.check(chosen[0] in leg.facts["recommend_says"], "the Recommendation page does not say the chosen Python")

    def on_environment() -> None:
        tour.grab("environment-python-kept")
        data = env.python_combo.currentData()
        leg.facts["environment_python"] = env.python_combo.currentText()
        leg.facts["venv_note"] = env.venv_note.text()
        leg.check(data is not None and data[1] == chosen[0],
                  f"the Environment page plans with {env.python_combo.currentText()!r}, not {chosen[0]!r}")
        leg.check(env.target is not None and env.target.base_python == chosen[0], "the plan's Python is another one")

    leg.to_environment(on_recommend=choose)
    tour.steps.insert(len(tour.steps) - 2, ("recommend page with the choice", settle(0.3), seen))
    tour.then("the environment page's plan", lambda: leg.plan_ready() and env.target is not None, on_environment)


def course_mirror(leg: Leg) -> None:
    from tests.integration.index_server import make_wheel

    tour, env, idx, pypi = leg.tour, leg.env, leg.index, leg.pypi
    name = "딥러닝 기초" if tour.record.lang == "ko" else "Deep learning basics"
    course = leg.work / "course.toml"
    course.write_text(COURSE.format(name=name), encoding="utf-8")
    asked: list[int] = []

    def open_course() -> None:
        leg.check(leg.w.system_page.course_row.open(str(course)), "the course profile was refused")

    def system() -> None:
        tour.grab("system-course-open")
        leg.check(name in leg.w.system_page.course_row.label.text(), "the System page does not name the course")

    def lacking() -> None:
        tour.grab("environment-course-extra-missing")
        leg.facts["what_missing"] = env.what_label.text()
        leg.facts["status_missing"] = env.plan_status.text()
        leg.check("tiny-course-extra" in env.what_label.text(), "the plan does not ask for the course's package")
        leg.check("tiny-course-extra" in env.plan_status.text(), "the refusal does not name the missing package")
        leg.check(not leg.install_button().isEnabled(), "Install is on although the course's package is missing")
        leg.facts["pypi"] = pypi.simple_url
        leg.facts["pypi_asked"] = any("tiny-course-extra" in str(e.get("path")) for e in pypi.log)
        leg.check(leg.facts["pypi_asked"], "the course's extras' source was not asked for the missing package")
        pypi.add_wheels([make_wheel(leg.work / "extra", "tiny-course-extra", "1.0.0",
                                    files={"tiny_course_extra.py": "X = 1\n"})])  # PyPI has it, the mirror not
        asked.append(len(idx.log))
        leg.type_mirror(idx.base + "/whl")

    def planned() -> None:
        tour.grab("environment-course-extra-planned")
        what = env.what_label.text()
        leg.facts["what_planned"] = what
        leg.facts["planned_files"] = sorted(f.name for f in env.plan.files) if env.plan else []
        leg.check(env.plan_error is None, "the mirror with the course's package still fails: " + env.plan_status.text())
        leg.check("tiny-course-extra" in what and idx.base in what and pypi.simple_url in what,
                  "the plan does not say where the extra comes from")
        leg.facts["extras_field_shown"] = env.settings_panel.extras_edit.isVisible()
        leg.check("tiny-course-extra" in leg.facts["planned_files"], "the plan's files lack the course's package")
        leg.check(leg.install_button().isEnabled(), "Install is off although everything is on the mirror")

    def fill_mirror() -> None:
        idx.add_wheels(build_wheels(leg.work / "wheels", list(env.options().requirements)))
        leg.type_extras_index(pypi.simple_url)
        leg.type_mirror(idx.base + "/whl")

    leg.to_environment(on_system=open_course)
    tour.steps.insert(1, ("system page with the course", settle(0.3), system))
    tour.then("the environment page drawn", settle(0.3), fill_mirror)
    tour.then("the mirror without the course's package", lambda: bool(idx.log) and leg.plan_ready(), lacking)
    tour.then("the mirror with the course's package", lambda: len(idx.log) > asked[0] and leg.plan_ready(), planned)


def closed_after_report(leg: Leg) -> None:
    from wizard.app import history as app_history
    from wizard.ui.pages.base import PageId

    tour, w, session = leg.tour, leg.w, leg.session
    stem = leg_stem("closed-after-report", tour.record.lang, tour.record.size)
    close_by = "cancel" if tour.record.lang == "ko" else "window-x"

    def skip() -> None:
        session.target_python = str(cpu_interpreter(leg.work))
        leg.env.skip_install()
        leg.next()

    def verified() -> bool:
        return w.currentId() == PageId.VERIFY and session.verify is not None and not w.verify_page.probe.running

    def start_verify() -> None:
        if session.verify is None and not w.verify_page.probe.running:
            leg.click(w.verify_page.run_button)

    def bench() -> None:
        leg.next()
        leg.click(w.benchmark_page.run_button)

    def report() -> None:
        tour.grab("report")
        html = tour.out / f"{stem}.html"
        leg.check(w.report_page.save_to("html", html), "the report could not be saved as HTML")
        tour.record.reports["html"] = html.name
        leg.facts["history_before"] = len(app_history.open_store().entries())
        leg.facts["closed_by"] = close_by
        if close_by == "cancel":
            from PySide6.QtWidgets import QWizard

            leg.click(w.button(QWizard.WizardButton.CancelButton))
        else:
            w.close()  # what the window's ✕ sends
        entries = app_history.open_store().entries()
        leg.facts["history_after"] = len(entries)
        leg.check(len(entries) == leg.facts["history_before"] + 1, f"closing by {close_by} did not save the run")

    leg.to_environment()
    tour.then("the environment page's plan", settle(1.0), skip)
    tour.then("verify page", lambda: w.currentId() == PageId.VERIFY, start_verify)
    tour.then("verify result", verified, bench)
    tour.then("benchmark result", lambda: session.bench is not None and not w.benchmark_page.probe.running, leg.next)
    tour.then("vram page", lambda: w.currentId() == PageId.VRAM, leg.next)
    tour.then("report page", lambda: w.currentId() == PageId.REPORT and w.report_page.report is not None, lambda: None)
    tour.then("report page drawn", settle(0.8), report)


def html_no_font(out: Path, lang: str, size: str) -> TourRecord:
    """No window: the exported HTML under a DejaVu-only fontconfig (see the module's docstring)."""
    from PySide6.QtCore import QRectF, Qt
    from PySide6.QtGui import QColor, QFont, QFontDatabase, QGuiApplication, QImage, QPainter, QRawFont

    from tests.html_fonts import embedded_faces, visible_text

    record = TourRecord("leg-html-no-font", lang, size)
    source = out / f"{leg_stem('closed-after-report', lang, size)}.html"
    if not source.exists():
        record.failure = f"no exported HTML to read: run the closed-after-report leg first ({source.name})"
        return record
    # a bare application, as a browser on that PC: the fonts fontconfig knows, not the wizard's own
    app = QGuiApplication([sys.argv[0]])  # noqa: F841 (fonts need the application)
    system = QFontDatabase.families()
    page = source.read_text(encoding="utf-8")
    text = visible_text(page)
    wide = sorted({ch for ch in text if ord(ch) > 0x7F and not ch.isspace()})
    dejavu = QRawFont.fromFont(QFont("DejaVu Sans"))
    faces = embedded_faces(page)
    raws = [QRawFont(data, 12.0) for data in faces.values()]
    families: list[str] = []
    for data in faces.values():
        font_id = QFontDatabase.addApplicationFontFromData(data)
        families += QFontDatabase.applicationFontFamilies(font_id) if font_id >= 0 else []
    record.facts = {"system_families": system, "embedded": families, "characters": len(wide),
                    "hangul": sum(1 for ch in wide if "\uac00" <= ch <= "\ud7a3"),
                    "dejavu_misses": sum(1 for ch in wide if not dejavu.supportsCharacter(ord(ch))),
                    "embedded_misses": [ch for ch in wide if not any(r.supportsCharacter(ord(ch)) for r in raws)]}
    image = QImage(900, 640, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    font = QFont(families[0] if families else "DejaVu Sans")
    font.setPixelSize(15)
    painter.setFont(font)
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()][:34]
    painter.setPen(QColor("black"))
    painter.drawText(QRectF(16, 12, 868, 620), int(Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap),
                     "\n".join(lines))
    painter.end()
    name = f"{leg_stem('html-no-font', lang, size)}-1-html-embedded-fonts.png"
    image.save(str(out / name))
    record.screenshots.append(name)
    record.pages.append("html-embedded-fonts")
    problems = []
    if any("CJK" in f or "KR" in f or "Nanum" in f for f in system):
        problems.append(f"the fontconfig is not DejaVu-only: {system}")
    if lang == "ko" and (record.facts["hangul"] == 0 or record.facts["dejavu_misses"] == 0):
        problems.append("DejaVu draws every character: this check could not fail")
    if record.facts["embedded_misses"]:
        problems.append(f"the embedded fonts lack {record.facts['embedded_misses'][:20]}")
    record.failure = "; ".join(problems) or None
    return record


def dejavu_only_fontconfig(folder: Path) -> None:
    """Point fontconfig at DejaVu alone (before the application starts)."""
    conf = folder / "fonts.conf"
    conf.write_text(f'<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n'
                    f'  <dir>{DEJAVU}</dir>\n  <cachedir>{folder / "fc-cache"}</cachedir>\n</fontconfig>\n',
                    encoding="utf-8")
    os.environ["FONTCONFIG_FILE"] = str(conf)


LEG_STEPS = {"mirror-fixed": mirror_fixed, "chosen-python": chosen_python, "course-mirror": course_mirror,
             "closed-after-report": closed_after_report}
NEEDS_INDEX = {"mirror-fixed", "course-mirror"}
NEEDS_PYPI = {"course-mirror"}  # a loopback "PyPI" for a course's extras: a leg never reaches pypi.org


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("outdir")
    parser.add_argument("--leg", required=True, choices=LEGS)
    parser.add_argument("--lang", default="ko", choices=["ko", "en"])
    parser.add_argument("--size", default="1024x700")
    args = parser.parse_args(argv)
    out = Path(args.outdir)
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="gsw-leg-"))
    try:
        return _run(args, out, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _run(args, out: Path, work: Path) -> int:
    import time

    stem = leg_stem(args.leg, args.lang, args.size)
    if args.leg == "html-no-font":
        if not DEJAVU.is_dir():
            print(json.dumps({"failure": f"no DejaVu fonts at {DEJAVU}"}))
            return 1
        dejavu_only_fontconfig(work)
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        started = time.monotonic()
        record = html_no_font(out, args.lang, args.size)
        record.seconds = round(time.monotonic() - started, 1)
        from dataclasses import asdict

        (out / f"{stem}-tour.json").write_text(json.dumps(asdict(record), ensure_ascii=False, indent=2),
                                               encoding="utf-8")
        print(json.dumps({"failure": record.failure, "screenshots": record.screenshots}, ensure_ascii=False))
        return 0 if record.failure is None else 1

    prepare_home(work)
    os.environ["GSW_CONFIG_DIR"] = str(work / "config")
    width, height = (int(v) for v in args.size.lower().split("x"))

    from tests import scenarios
    from tests.integration.index_server import LoopbackIndex
    from wizard.app.session import Session
    from wizard.ui.app import create_app
    from wizard.ui.main_wizard import SetupWizard

    index = LoopbackIndex().start() if args.leg in NEEDS_INDEX else None
    pypi = LoopbackIndex().start() if args.leg in NEEDS_PYPI else None
    app = create_app([sys.argv[0]], lang=args.lang)
    app.setQuitOnLastWindowClosed(False)  # a leg closes the window itself and reports after
    session = Session(host=scenarios.this_pc_without_gpu(), lang=args.lang)
    window = SetupWizard(session)
    window.resize(width, height)
    window.show()
    record = TourRecord(f"leg-{args.leg}", args.lang, args.size)
    tour = Tour(app, window, record, out)
    leg = Leg(tour, session, index, work)
    leg.pypi = pypi
    LEG_STEPS[args.leg](leg)
    from PySide6.QtCore import QTimer

    QTimer.singleShot(0, window.start)
    tour.run()
    code = app.exec()
    for served in (index, pypi):
        if served is not None:
            served.stop()
    print(json.dumps({"failure": record.failure, "screenshots": record.screenshots}, ensure_ascii=False))
    return code


if __name__ == "__main__":
    sys.exit(main())
