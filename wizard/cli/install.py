"""``gpu-setup-wizard install``: create the environment and install PyTorch, headless.

The same use cases as the Install page (:mod:`wizard.app.install`), run on this thread:
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
import threading
import time
from typing import TYPE_CHECKING, Any

from wizard.app.install import FailureKind
from wizard.cli.common import error, lang_of, say
from wizard.cli.exit_status import ExitStatus
from wizard.core.base.i18n import t

if TYPE_CHECKING:
    from wizard.app.environments import TargetAnswer, TargetChoice
    from wizard.app.install import InstallJob, InstallOptions, InstallPlan, InstallRequest, Progress
    from wizard.app.recommend import PythonChoice
    from wizard.app.session import Session
    from wizard.core.base.host import Host


class UsageError(Exception):
    """The command line names a target or interpreter that cannot be used; the message says why."""


def _target_choice(args: argparse.Namespace, condas: list[Any]) -> TargetChoice:
    """The command line's target as the app layer's :class:`~wizard.app.environments.TargetChoice`:
    ``--venv`` names the environment there or a new one; ``--conda-env`` an existing env (by name
    or prefix) or a new one of that name. The rule itself is the window's."""
    from wizard.app import environments as app_env

    if args.venv:
        return app_env.TargetChoice(app_env.venv_mode(args.venv), path=args.venv, python=args.python or "",
                                    installer=_installer(args), check_python=True)
    found = any(env.name == args.conda_env or env.prefix == args.conda_env for c in condas for env in c.envs)
    mode = app_env.MODE_EXISTING_CONDA if found else app_env.MODE_NEW_CONDA
    return app_env.TargetChoice(mode, python=args.python or "", conda_name=args.conda_env, installer=_installer(args),
                                check_python=True)


def _resolve_target(args: argparse.Namespace, host: Host, lang: str, session: Session | None = None) -> TargetAnswer:
    """The app layer's answer for the command line's target; ``session`` holds the recommendation
    once it is made (before: what depends on it is left open). Raises UsageError with the reason."""
    from wizard.app import environments as app_env
    from wizard.app.install import state_store

    condas: list[Any] = []
    if not args.venv:
        condas = app_env.find_conda_installs(host)
        if not condas:
            raise UsageError(t("install.cli.no_conda", lang))
    recommendation = session.recommendation if session is not None else None
    candidate = session.candidate if session is not None else None
    answer = app_env.resolve_target(_target_choice(args, condas), host, state_store(), recommendation=recommendation,
                                    candidate=candidate, condas=condas)
    if answer.problem is not None:
        raise UsageError(answer.problem.text(lang))
    return answer


def _installer(args: argparse.Namespace) -> str:
    """pip, uv or auto (the default: uv when its binary is found, else pip)."""
    from wizard.app.install import INSTALLER_AUTO

    return getattr(args, "installer", None) or INSTALLER_AUTO


def _resume_state(args: argparse.Namespace):
    """The unfinished install ``--venv`` names, when this run resumes it as it was: no
    ``--torch``/``--variant``/``--index-url`` asks for something else."""
    if not args.venv or args.torch or args.variant or args.index_url:
        return None
    from wizard.app.install import state_store, unfinished_at

    return unfinished_at(state_store(), os.path.abspath(os.path.expanduser(args.venv)))


def _recommend(args: argparse.Namespace, host: Host, python_version: str | None, session: Session) -> PythonChoice:
    """The app layer's recommendation for this machine (``recommend_for``, as the window's and the
    ``recommend`` command's), for the target's Python when it has one. ``session`` holds
    ``--course``'s profile; the choice is recorded in it."""
    from wizard.app import detect as app_detect
    from wizard.app import recommend as app_recommend

    # --index-url is the mirror: applied to the chosen build by the app layer, as the window does
    wishes = app_recommend.Wishes(torch=args.torch, variant=args.variant, cpu_only=(args.variant == "cpu"))
    session.host = host
    session.detection = app_detect.compute(host, pythons=not python_version, conda=False)
    return app_recommend.recommend_for(session, wishes, explicit_version=python_version)


def _print_plan(plan: InstallPlan, lang: str) -> None:
    for line in plan.summary_lines(lang):
        say(line)


class _ProgressPrinter:
    """One line per step change, and at most one a second within a step."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.last_step: str | None = None
        self.last_time = 0.0
        self.last_line = ""

    def __call__(self, p: Progress) -> None:
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
    """Why ``--index-url``/``--python-mirror``/``--extras-index`` is no web address, or None. Asked
    before anything else: pip would take ``download.pytorch.org/whl/cu126`` for a folder and install from it."""
    from wizard.app.install import index_url_problem

    for url in (getattr(args, "index_url", None), getattr(args, "python_mirror", None),
                getattr(args, "extras_index", None)):
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
    from wizard.app.install import CONFIRMABLE
    from wizard.cli.environment import current_host

    lang = lang_of(args)
    bad = _bad_index_url(args, lang) or _bad_path(args, lang)
    if bad:
        return error(bad)
    host = current_host()
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

    session = course_session(args, lang)  # --course: its pin and extras, refused before anything runs
    if isinstance(session, ExitStatus):
        return session
    try:
        answer = _resolve_target(args, host, lang)
        choice = _recommend(args, host, answer.python_version, session)
    except UsageError as exc:
        return error(str(exc))
    except ValueError as exc:
        return error(t("recommend.cli.bad_input", lang, error=exc))
    rec = choice.recommendation
    candidate = session.candidate
    if candidate is None:
        say(t("install.cli.no_candidate", lang))
        for advice in rec.advice:
            say("  " + advice.text(lang))
        return ExitStatus.FAILED
    if answer.target is None:  # the recommendation gives the Python: the same rule, asked again
        try:
            answer = _resolve_target(args, host, lang, session)
        except UsageError as exc:
            return error(str(exc))
        if answer.interpreter is not None:
            say(t("install.cli.python_chosen", lang, path=answer.interpreter.path, version=choice.version))
        elif answer.target is not None and answer.target.creates_env and answer.target.python_version:
            say(t("install.cli.python_managed", lang, version=answer.target.python_version))
    if answer.target is not None and answer.target.creates_env:
        from wizard.cli.recommend import unfit_pythons_text

        unfit = unfit_pythons_text(session, lang)  # the Pythons not offered, as the window lists them
        if unfit:
            say(unfit)
    target = answer.target
    assert target is not None  # with the recommendation made, resolve_target answers a target or a problem
    settings = app_install.InstallSettings(mirror=args.index_url or "", python_mirror=args.python_mirror or "",
                                           installer=_installer(args), extras_index=args.extras_index or "")
    options = app_install.install_options(candidate, settings, cache_dir=args.cache_dir, parallel=args.parallel,
                                          confirmed=set(CONFIRMABLE) if args.yes else set())
    _add_course(session, choice, options, lang, settings.extras_index)
    say(t("install.cli.what", lang, reqs=" ".join(options.requirements), index=app_install.sources_text(options, lang),
          target=target.label(lang)))
    request = app_install.InstallRequest(target, app_install.asking_again(options))  # a command asks the index anew
    if args.plan_only:
        return _plan_only(request, host, args, lang, session)
    return _run_request(request, host, args, lang)


def _add_course(course: Session, choice: PythonChoice, options: InstallOptions, lang: str,
                extras_index: str = "") -> None:
    """The course's pin notes on stderr and its extras in the request (the app layer's, as the window's)."""
    if course.course is None:
        return
    from wizard.app.course import add_extras, pin_notes

    for line in pin_notes(course, choice.recommendation):
        say(line)
    add_extras(course, options, extras_index)


def _run_request(request: InstallRequest, host: Host, args: argparse.Namespace, lang: str) -> int:
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
    if job.failure is not None and job.failure.kind == "confirm":  # (the engine's reason: refused until --yes)
        say(t("install.cli.needs_yes", lang))
        return ExitStatus.NEEDS_CONFIRM
    if job.state is not None and job.state.status == "cancelled":
        return ExitStatus.CANCELLED
    return ExitStatus.FAILED


def _finish_output(job: InstallJob, args: argparse.Namespace, lang: str) -> None:
    summary = job.summary()
    if job.failure is not None:
        say(t("install.cli.failed", lang, step=job.failure.step_id, message=job.failure.message.text(lang)))
        if job.failure.failure_kind == FailureKind.CONNECTION or job.failure.kind == "no-resume":
            say(t("install.cli.mirror_hint", lang))
        for line in list(job.log_lines)[-15:]:
            say("    " + line)
    if summary["recovery"]:
        say(t("install.cli.recovery", lang, options=", ".join(summary["recovery"])))
    if args.json:
        print(json.dumps(summary, ensure_ascii=False, indent=2))
    elif summary["ok"]:
        from wizard.app.install import format_bytes

        print(t("install.cli.done", lang, python=summary["env_python"],
                fetched=format_bytes(summary["downloaded_bytes"]), cached=format_bytes(summary["from_cache_bytes"])))
        for item in summary["installed"]:
            print(f"  {item['name']} {item['version']}")


def _plan_only(request: InstallRequest, host: Host, args: argparse.Namespace, lang: str,
               session: Session | None = None) -> int:
    """Plan and check without installing: the app layer's plan and pre-flight, as the window's;
    an index that lacks the build names the builds it has (the window's one-click offer)."""
    from wizard.app import install as app_install
    from wizard.app.install import SEVERITY_CONFIRM, SEVERITY_OK

    outcome = app_install.plan_install(request.target, request.options, host)
    if outcome.error is not None:
        exc = outcome.error
        say(t("install.cli.failed", lang, step="resolve", message=exc.message.text(lang)))
        if exc.failure_kind == FailureKind.CONNECTION:
            say(t("install.cli.mirror_hint", lang))
        elif exc.failure_kind == FailureKind.NO_BUILD and session is not None:
            _say_alternatives(session, args, lang)
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


def _say_alternatives(session: Session, args: argparse.Namespace, lang: str) -> None:
    """The builds the index has instead (the app layer's answer, as the window's buttons)."""
    from wizard.app.alternatives import alternatives_for
    from wizard.app.install import InstallSettings

    try:
        found = alternatives_for(session, InstallSettings(mirror=args.index_url or ""), cache_dir=args.cache_dir)
    except (OSError, ValueError):
        return  # the offer is a help, not a second failure
    if found:
        say(t("environment.alt.title", lang))
        for c in found:
            say(f"  --torch {c.torch} --variant {c.variant}")


def _remove_or_restore(args: argparse.Namespace, host: Host, lang: str) -> int:
    from wizard.app import environments as app_env
    from wizard.app import install as app_install

    store = app_install.state_store()
    if args.venv:
        path = os.path.abspath(os.path.expanduser(args.venv))
    else:
        path = _conda_prefix(args.conda_env, host) or args.conda_env
    state = store.load(path)
    if state is None:
        say(t("install.cli.no_state", lang, path=path))
        return ExitStatus.BAD_INPUT
    if args.remove:
        result = app_env.remove_environment(state, host, store)
        if result.refused is not None:
            say(t("install.cli.remove_refused", lang, reason=result.refused))
            return ExitStatus.FAILED
        say(t("install.cli.removed", lang, path=", ".join(result.removed) or path))
        if args.json:
            print(json.dumps({"schema": "gpu-setup-wizard/install-remove@1.0", "removed": result.removed,
                              "method": result.method}, ensure_ascii=False, indent=2))
        return ExitStatus.SUCCESS
    outcome = app_install.restore_job(state, host, store, cache_dir=args.cache_dir,
                                      on_progress=_ProgressPrinter(lang))
    job, ok = outcome.job, outcome.ok
    if not ok and job.failure is not None:
        say(t("install.cli.failed", lang, step=job.failure.step_id, message=job.failure.message.text(lang)))
    if args.json:
        print(json.dumps({"schema": "gpu-setup-wizard/install-restore@1.0", "ok": ok,
                          "env_python": job.env_python()}, ensure_ascii=False, indent=2))
    return ExitStatus.SUCCESS if ok else ExitStatus.FAILED


def _conda_prefix(name: str, host: Host) -> str | None:
    from wizard.app.environments import find_conda_installs

    for conda in find_conda_installs(host):
        for env in conda.envs:
            if env.name == name or env.prefix == name:
                return env.prefix
    return None


__all__ = ["run", "UsageError"]
