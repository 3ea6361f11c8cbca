"""``gpu-setup-wizard install``: create the environment and install PyTorch, headless.

The same engine as the Install page (:mod:`wizard.core.install.runner`), run on this thread:
progress lines on stderr, the final JSON summary on stdout with ``--json``. With nothing but a
target it installs what ``recommend`` picks for this machine and that environment's Python;
``--torch``/``--variant``/``--index-url`` steer the recommendation exactly as they do there.

Re-running the same command after a failure or Ctrl+C resumes (finished downloads come from the
cache); ``--remove`` deletes an environment the wizard created, ``--restore`` puts an existing
environment's previous packages back.

Exit statuses: SUCCESS; FAILED; BAD_INPUT; NEEDS_CONFIRM (refused until confirmed with ``--yes``);
CANCELLED.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import threading
import time
from typing import Any

from wizard.cli.common import error, lang_of, say
from wizard.cli.exit_status import ExitStatus
from wizard.core.base.i18n import t


class UsageError(Exception):
    """The command line names a target or interpreter that cannot be used; the message says why."""


def _is_version(text: str | None) -> bool:
    return bool(text) and bool(re.fullmatch(r"\d+\.\d+(\.\d+)?", text or ""))


def _minor(version: str | None) -> str | None:
    if not version:
        return None
    parts = version.split(".")
    return ".".join(parts[:2]) if len(parts) >= 2 else version


def _resolve_target(args: argparse.Namespace, host: Any, lang: str):
    """(target, python version 'X.Y' or None, conda install or None)."""
    from wizard.core.install.environments import existing_conda_env, existing_venv, new_conda_env, new_uv_venv
    from wizard.core.machine.pythons import query_interpreter

    if args.venv:
        path = os.path.abspath(os.path.expanduser(args.venv))
        state_dir_target = _state_target(args, path)
        if state_dir_target is not None:  # an unfinished install the wizard started here: resume it
            return state_dir_target, _minor(state_dir_target.python_version), None
        if os.path.isfile(os.path.join(path, "pyvenv.cfg")):
            target = existing_venv(path)
            interp, _ = query_interpreter(host, target.python_exe, "target")
            if interp.error:
                raise UsageError(t("install.cli.bad_env_python", lang, python=target.python_exe, error=interp.error))
            return target, _minor(interp.version), None
        if _is_version(args.python):
            return new_uv_venv(path, args.python), _minor(args.python), None
        if args.python:
            interp, _ = query_interpreter(host, args.python, "given")
            if interp.error:
                raise UsageError(t("install.cli.bad_python", lang, python=args.python, error=interp.error))
            from wizard.app.install import new_venv_target

            target = new_venv_target(path, args.python, installer=_installer(args))
            return target, _minor(interp.version), None
        return None, None, None  # the recommendation picks the interpreter
    # conda
    from wizard.core.machine.conda import find_conda

    installs = [c for c in find_conda(host) if c.error is None or c.envs]
    if not installs:
        raise UsageError(t("install.cli.no_conda", lang))
    for conda in installs:
        for env in conda.envs:
            if env.name == args.conda_env or env.prefix == args.conda_env:
                target = existing_conda_env(env, conda)
                interp, _ = query_interpreter(host, target.python_exe, "target")
                if interp.error:
                    raise UsageError(t("install.cli.bad_env_python", lang, python=target.python_exe,
                                       error=interp.error))
                return target, _minor(interp.version), conda
    version = _minor(args.python) if _is_version(args.python) else None
    return new_conda_env(args.conda_env, version or "", installs[0]), version, installs[0]


def _installer(args: argparse.Namespace) -> str:
    """pip, uv or auto (the default: uv when its binary is found, else pip)."""
    from wizard.core.install.job import INSTALLER_AUTO

    return getattr(args, "installer", None) or INSTALLER_AUTO


def _resume_state(args: argparse.Namespace):
    """The unfinished install ``--venv`` names, when this run resumes it as it was: no
    ``--torch``/``--variant``/``--index-url`` asks for something else."""
    if not args.venv or args.torch or args.variant or args.index_url:
        return None
    from wizard.app.install import state_store, unfinished_at

    return unfinished_at(state_store(), os.path.abspath(os.path.expanduser(args.venv)))


def _state_target(args: argparse.Namespace, path: str):
    """The wizard's own unfinished install at ``path`` -- the app layer's test, as the window's."""
    from wizard.app.install import state_store, unfinished_at

    state = unfinished_at(state_store(), path)
    return state.env_target() if state is not None else None


def _recommend(args: argparse.Namespace, host: Any, python_version: str | None, course: Any = None):
    """(candidate, PythonChoice or None). ``course``: a Session holding ``--course``'s profile."""
    from wizard.core.machine.detect import detect
    from wizard.core.recommend.choose_python import choose_python
    from wizard.core.recommend.inputs import MachineFacts, Wishes
    from wizard.core.recommend.recommender import recommend

    # --index-url is the mirror: applied to the chosen build by the app layer, as the window does
    wishes = Wishes(torch=args.torch, variant=args.variant, cpu_only=(args.variant == "cpu"))
    pinned = course is not None and course.course is not None
    if python_version:
        detection = detect(host, pythons=False, conda=False)
        facts = MachineFacts.from_detection(detection, python_version)
        if pinned:
            from wizard.app.course import course_wishes

            wishes = course_wishes(course, wishes, facts, recommend(facts, wishes).best)
        rec = recommend(facts, wishes)
        return rec.best, None, rec
    detection = detect(host, conda=False)
    if pinned:  # the app layer applies the pin and the course's Python, as for ``recommend``
        from wizard.app import recommend as app_recommend

        course.detection = detection
        choice = app_recommend.recommend_for(course, wishes)
        return choice.recommendation.best, choice, choice.recommendation
    choice = choose_python(detection, wishes)
    return choice.recommendation.best, choice, choice.recommendation


def _print_plan(plan: Any, lang: str) -> None:
    for line in plan.summary_lines(lang):
        say(line)


class _ProgressPrinter:
    """One line per step change, and at most one a second within a step."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.last_step = None
        self.last_time = 0.0
        self.last_line = ""

    def __call__(self, p: Any) -> None:
        from wizard.core.base.i18n import msg

        now = time.monotonic()
        changed = p.step_id != self.last_step
        if not changed and now - self.last_time < 1.0 and not (p.step and p.step.fraction == 1.0):
            return
        self.last_step, self.last_time = p.step_id, now
        title = msg(f"install.step.{p.step_id}").text(self.lang)
        detail = p.step.text(self.lang) if p.step else ""
        pct = f"{p.overall * 100:5.1f}%"
        line = f"[{p.step_index + 1}/{p.step_count}] {pct} {title}" + (f": {detail}" if detail else "")
        if line != self.last_line:
            self.last_line = line
            say(line)


def _bad_index_url(args: argparse.Namespace, lang: str) -> str | None:
    """Why ``--index-url``/``--python-mirror`` is no web address, or None. Asked before anything
    else: pip would take ``download.pytorch.org/whl/cu126`` for a folder and install from it."""
    from wizard.core.recommend.wheel_index import index_url_problem

    for url in (getattr(args, "index_url", None), getattr(args, "python_mirror", None)):
        problem = index_url_problem(url) if url else None
        if problem:
            return t(problem, lang, url=url)
    return None


def _bad_path(args: argparse.Namespace, lang: str) -> str | None:
    """Why ``--venv``/``--cache-dir`` cannot exist on any file system here, or None."""
    from wizard.cli.paths import ENV_ROOM_BYTES, path_problem

    for path, room in ((getattr(args, "venv", None), ENV_ROOM_BYTES), (getattr(args, "cache_dir", None), 200)):
        problem = path_problem(path, room) if path else None
        if problem:
            return t(problem[0], lang, **problem[1])
    return None


def run(args: argparse.Namespace) -> int:
    """``install``: resolve the target, recommend, then plan (``--plan-only``) or install."""
    from wizard.app import install as app_install
    from wizard.core.base.host import RealHost
    from wizard.core.install.environments import KIND_NEW_CONDA, find_uv
    from wizard.core.install.preflight import CONFIRMABLE

    lang = lang_of(args)
    bad = _bad_index_url(args, lang) or _bad_path(args, lang)
    if bad:
        return error(bad)
    host = RealHost()
    if getattr(args, "from_bundle", None):  # the offline bundle: no recommendation, no network
        from wizard.cli.bundle import run_from_bundle

        return run_from_bundle(args)
    if args.remove or args.restore:
        return _remove_or_restore(args, host, lang)
    resumed = _resume_state(args)
    if resumed is not None:  # the same versions, index and installer as the run that stopped
        request = app_install.resume_request(
            resumed, app_install.InstallSettings(python_mirror=args.python_mirror or ""), cache_dir=args.cache_dir,
            confirmed=set(CONFIRMABLE) if args.yes else set())
        say(t("install.cli.what", lang, reqs=" ".join(resumed.pins or request.options.requirements),
              index=request.options.index_url or "PyPI", target=request.target.label(lang)))
        return _plan_only(request, host, args, lang) if args.plan_only else _run_request(request, host, args, lang)
    from wizard.cli.course import course_session

    course = course_session(args, lang)  # --course: its pin and extras, refused before anything runs
    if isinstance(course, ExitStatus):
        return course
    try:
        target, python_version, _conda = _resolve_target(args, host, lang)
    except UsageError as exc:
        return error(str(exc))
    try:
        candidate, choice, rec = _recommend(args, host, python_version, course)
    except ValueError as exc:
        return error(t("recommend.cli.bad_input", lang, error=exc))
    if candidate is None:
        say(t("install.cli.no_candidate", lang))
        for advice in rec.advice:
            say("  " + advice.text(lang))
        return ExitStatus.FAILED
    if target is None:  # --venv PATH without --python: the recommendation's interpreter, or uv
        path = os.path.abspath(os.path.expanduser(args.venv))
        if choice is not None and choice.interpreter is not None:
            target = app_install.new_venv_target(path, choice.interpreter.path, uv_exe=find_uv(),
                                                 installer=_installer(args))
            say(t("install.cli.python_chosen", lang, path=choice.interpreter.path, version=choice.version))
        else:
            target = app_install.new_venv_target(path, choice.version if choice else "3.12", managed=True)
            say(t("install.cli.python_managed", lang, version=target.python_version))
    if target.kind == KIND_NEW_CONDA and not target.python_version:
        target.python_version = candidate.python
    settings = app_install.InstallSettings(mirror=args.index_url or "", python_mirror=args.python_mirror or "",
                                           installer=_installer(args))
    options = app_install.install_options(candidate, settings, cache_dir=args.cache_dir, parallel=args.parallel,
                                          confirmed=set(CONFIRMABLE) if args.yes else set())
    _add_course(course, rec, options, lang)
    say(t("install.cli.what", lang, reqs=" ".join(options.requirements), index=options.index_url or "PyPI",
          target=target.label(lang)))
    request = app_install.InstallRequest(target, options)
    if args.plan_only:
        return _plan_only(request, host, args, lang)
    return _run_request(request, host, args, lang)


def _add_course(course: Any, rec: Any, options: Any, lang: str) -> None:
    """The course's pin notes on stderr and its extras in the request (the app layer's, as the window's)."""
    if course.course is None:
        return
    from wizard.app.course import add_extras, pin_notes

    for line in pin_notes(course, rec):
        say(line)
    add_extras(course, options)


def _run_request(request: Any, host: Any, args: argparse.Namespace, lang: str) -> int:
    """Run the install on this thread; the summary and the exit status."""
    from wizard.app import install as app_install
    from wizard.app.session import Session

    target = request.target

    session = Session(host=host, lang=lang)
    job = app_install.new_job(session, request)
    cancel = threading.Event()
    try:
        ok = app_install.run_install(session, job, on_progress=_ProgressPrinter(lang), cancel=cancel).ok
    except KeyboardInterrupt:
        ok = False
        say(t("install.cli.cancelled", lang, path=target.path))
        _finish_output(job, args, lang)
        return ExitStatus.CANCELLED
    _finish_output(job, args, lang)
    if ok and getattr(args, "export_bundle", None):
        from wizard.cli.bundle import export_after

        return export_after(job, args, lang)
    if ok:
        return ExitStatus.SUCCESS
    if job.failure is not None and job.failure.kind == "confirm":
        say(t("install.cli.needs_yes", lang))
        return ExitStatus.NEEDS_CONFIRM
    if job.state is not None and job.state.status == "cancelled":
        return ExitStatus.CANCELLED
    return ExitStatus.FAILED


def _finish_output(job: Any, args: argparse.Namespace, lang: str) -> None:
    summary = job.summary()
    if job.failure is not None:
        say(t("install.cli.failed", lang, step=job.failure.step_id, message=job.failure.message.text(lang)))
        if job.failure.kind == "network":
            say(t("install.cli.mirror_hint", lang))
        for line in list(job.log_lines)[-15:]:
            say("    " + line)
    if summary["recovery"]:
        say(t("install.cli.recovery", lang, options=", ".join(summary["recovery"])))
    if args.json:
        print(json.dumps(summary, ensure_ascii=False, indent=2))
    elif summary["ok"]:
        from wizard.core.install.plan import format_bytes

        print(t("install.cli.done", lang, python=summary["env_python"],
                fetched=format_bytes(summary["downloaded_bytes"]), cached=format_bytes(summary["from_cache_bytes"])))
        for item in summary["installed"]:
            print(f"  {item['name']} {item['version']}")


def _plan_only(request: Any, host: Any, args: argparse.Namespace, lang: str) -> int:
    """Plan and check without installing: the app layer's plan and pre-flight, as the window's."""
    from wizard.app import install as app_install
    from wizard.core.install.preflight import SEVERITY_CONFIRM, SEVERITY_OK

    outcome = app_install.plan_install(request.target, request.options, host)
    if outcome.error is not None:
        exc = outcome.error
        say(t("install.cli.failed", lang, step="resolve", message=exc.message.text(lang)))
        if exc.kind == "network":
            say(t("install.cli.mirror_hint", lang))
        return ExitStatus.FAILED
    plan = request.plan = outcome.plan
    found = app_install.run_checks(request.target, host, plan, app_install.default_cache_dir(request.options.cache_dir),
                                   request.options.confirmed)
    checks = found.preflight
    if plan is None:
        say(t("install.cli.plan_later", lang))
    else:
        _print_plan(plan, lang)
    for c in checks.checks:
        if c.severity != SEVERITY_OK:
            say(f"[{c.severity}] {c.text(lang)}")
    if args.json:
        print(json.dumps(app_install.plan_document(request, found, lang), ensure_ascii=False, indent=2))
    if checks.ok:
        return ExitStatus.SUCCESS
    if all(c.severity == SEVERITY_CONFIRM for c in checks.blocking):
        say(t("install.cli.needs_yes", lang))
        return ExitStatus.NEEDS_CONFIRM
    return ExitStatus.FAILED


def _remove_or_restore(args: argparse.Namespace, host: Any, lang: str) -> int:
    from wizard.core.install.job import InstallOptions
    from wizard.core.install.recovery import RemoveRefused, StateStore, remove_environment
    from wizard.core.install.runner import InstallJob, restore_steps, run_steps

    store = StateStore()
    if args.venv:
        path = os.path.abspath(os.path.expanduser(args.venv))
    else:
        path = _conda_prefix(args.conda_env, host) or args.conda_env
    state = store.load(path)
    if state is None:
        say(t("install.cli.no_state", lang, path=path))
        return ExitStatus.BAD_INPUT
    if args.remove:
        try:
            result = remove_environment(state, host, store)
        except RemoveRefused as exc:
            say(t("install.cli.remove_refused", lang, reason=str(exc)))
            return ExitStatus.FAILED
        say(t("install.cli.removed", lang, path=", ".join(result.removed) or path))
        if args.json:
            print(json.dumps({"schema": "gpu-setup-wizard/install-remove@1.0", "removed": result.removed,
                              "method": result.method}, ensure_ascii=False, indent=2))
        return ExitStatus.SUCCESS
    job = InstallJob(state.env_target(), InstallOptions(state.requirements, state.index_url,
                                                        cache_dir=args.cache_dir), host, store=store)
    job.state = state
    ok = run_steps(job, restore_steps(job), on_progress=_ProgressPrinter(lang))
    if not ok and job.failure is not None:
        say(t("install.cli.failed", lang, step=job.failure.step_id, message=job.failure.message.text(lang)))
    if args.json:
        print(json.dumps({"schema": "gpu-setup-wizard/install-restore@1.0", "ok": ok,
                          "env_python": job.env_python()}, ensure_ascii=False, indent=2))
    return ExitStatus.SUCCESS if ok else ExitStatus.FAILED


def _conda_prefix(name: str, host: Any) -> str | None:
    from wizard.core.machine.conda import find_conda

    for conda in find_conda(host):
        for env in conda.envs:
            if env.name == name or env.prefix == name:
                return env.prefix
    return None


__all__ = ["run", "UsageError"]
