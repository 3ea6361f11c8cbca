"""``gpu-setup-wizard install``: create the environment and install PyTorch, headless.

The same engine as the Install page (:mod:`wizard.core.install.runner`), run on this thread:
progress lines on stderr, the final JSON summary on stdout with ``--json``. With nothing but a
target it installs what ``recommend`` picks for this machine and that environment's Python;
``--torch``/``--variant``/``--index-url`` steer the recommendation exactly as they do there.

Re-running the same command after a failure or Ctrl+C resumes (finished downloads come from the
cache); ``--remove`` deletes an environment the wizard created, ``--restore`` puts an existing
environment's previous packages back.

Exit codes: 0 done; 1 failed; 2 bad input; 3 refused until confirmed (``--yes``); 130 cancelled.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import threading
import time
from typing import Any

from wizard.core.base.i18n import t

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_NEEDS_CONFIRM = 3
EXIT_CANCELLED = 130


class UsageError(Exception):
    pass


def add_install_parser(subparsers: Any, common_parent: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Add ``install`` to the CLI's subcommands (``common_parent`` carries ``--lang``)."""
    p = subparsers.add_parser("install", parents=[common_parent], help=t("install.cli.help"),
                              description=t("install.cli.description"))
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--venv", metavar="PATH", help=t("install.cli.venv.help"))
    where.add_argument("--conda-env", metavar="NAME", help=t("install.cli.conda.help"))
    p.add_argument("--python", metavar="EXE|X.Y", help=t("install.cli.python.help"))
    p.add_argument("--variant", help=t("install.cli.variant.help"))
    p.add_argument("--torch", metavar="2.x", help=t("install.cli.torch.help"))
    p.add_argument("--index-url", metavar="URL", help=t("install.cli.index.help"))
    p.add_argument("--plan-only", action="store_true", help=t("install.cli.plan_only.help"))
    p.add_argument("--yes", action="store_true", help=t("install.cli.yes.help"))
    p.add_argument("--json", action="store_true", help=t("install.cli.json.help"))
    p.add_argument("--installer", choices=("pip", "uv"), default="pip", help=t("install.cli.installer.help"))
    p.add_argument("--cache-dir", metavar="DIR", help=t("install.cli.cache.help"))
    p.add_argument("--parallel", type=int, default=3, metavar="N", help=t("install.cli.parallel.help"))
    p.add_argument("--python-mirror", metavar="URL", help=t("install.cli.python_mirror.help"))
    what = p.add_mutually_exclusive_group()
    what.add_argument("--remove", action="store_true", help=t("install.cli.remove.help"))
    what.add_argument("--restore", action="store_true", help=t("install.cli.restore.help"))
    p.set_defaults(handler=cmd_install)
    return p


# --------------------------------------------------------------------------------------------
def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _is_version(text: str | None) -> bool:
    return bool(text) and bool(re.fullmatch(r"\d+\.\d+(\.\d+)?", text or ""))


def _minor(version: str | None) -> str | None:
    if not version:
        return None
    parts = version.split(".")
    return ".".join(parts[:2]) if len(parts) >= 2 else version


def _resolve_target(args: argparse.Namespace, host: Any):
    """(target, python version 'X.Y' or None, conda install or None)."""
    from wizard.core.install import targets as envs
    from wizard.core.machine.pythons import query_interpreter

    if args.venv:
        path = os.path.abspath(os.path.expanduser(args.venv))
        state_dir_target = _state_target(args, path)
        if state_dir_target is not None:  # an unfinished install the wizard started here: resume it
            return state_dir_target, _minor(state_dir_target.python_version), None
        if os.path.isfile(os.path.join(path, "pyvenv.cfg")):
            target = envs.existing_venv(path)
            interp, _ = query_interpreter(host, target.python_exe, "target")
            if interp.error:
                raise UsageError(t("install.cli.bad_env_python", python=target.python_exe, error=interp.error))
            return target, _minor(interp.version), None
        if _is_version(args.python):
            return envs.new_uv_venv(path, args.python), _minor(args.python), None
        if args.python:
            interp, _ = query_interpreter(host, args.python, "given")
            if interp.error:
                raise UsageError(t("install.cli.bad_python", python=args.python, error=interp.error))
            target = envs.new_uv_venv(path, args.python) if args.installer == "uv" else envs.new_venv(path, args.python)
            return target, _minor(interp.version), None
        return None, None, None  # the recommendation picks the interpreter
    # conda
    from wizard.core.machine.conda import find_conda

    installs = [c for c in find_conda(host) if c.error is None or c.envs]
    if not installs:
        raise UsageError(t("install.cli.no_conda"))
    for conda in installs:
        for env in conda.envs:
            if env.name == args.conda_env or env.prefix == args.conda_env:
                target = envs.existing_conda_env(env, conda)
                interp, _ = query_interpreter(host, target.python_exe, "target")
                if interp.error:
                    raise UsageError(t("install.cli.bad_env_python", python=target.python_exe, error=interp.error))
                return target, _minor(interp.version), conda
    version = _minor(args.python) if _is_version(args.python) else None
    return envs.new_conda_env(args.conda_env, version or "", installs[0]), version, installs[0]


def _state_target(args: argparse.Namespace, path: str):
    from wizard.core.install.recovery import StateStore

    state = StateStore().load(path)
    if state is None or state.status == "complete" or not state.created_by_wizard:
        return None
    return state.env_target()


def _recommend(args: argparse.Namespace, host: Any, python_version: str | None):
    """(candidate, PythonChoice or None)."""
    from wizard.core.recommend.choose_python import choose_python
    from wizard.core.machine.detect import detect
    from wizard.core.recommend.recommender import MachineFacts, Wishes, recommend

    wishes = Wishes(torch=args.torch, variant=args.variant, index_url=args.index_url,
                    cpu_only=(args.variant == "cpu"))
    if python_version:
        detection = detect(host, pythons=False, conda=False)
        rec = recommend(MachineFacts.from_detection(detection, python_version), wishes)
        return rec.best, None, rec
    detection = detect(host, conda=False)
    choice = choose_python(detection, wishes)
    return choice.recommendation.best, choice, choice.recommendation


def _print_plan(plan: Any, lang: str) -> None:
    for line in plan.summary_lines(lang):
        _say(line)


class _ProgressPrinter:
    """One line per step change, and at most one a second within a step."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.last_step = None
        self.last_time = 0.0
        self.last_line = ""

    def __call__(self, p: Any) -> None:
        from wizard.core.recommend.recommender import msg

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
            _say(line)


def cmd_install(args: argparse.Namespace) -> int:
    from wizard.core.install import targets as envs
    from wizard.core.base.host import RealHost
    from wizard.core.base.i18n import language
    from wizard.core.recommend.commands import requirements
    from wizard.core.install.runner import InstallJob, InstallOptions, run_steps

    lang = language()
    host = RealHost()
    if args.remove or args.restore:
        return _remove_or_restore(args, host, lang)
    try:
        target, python_version, _conda = _resolve_target(args, host)
    except UsageError as exc:
        _say(f"gpu-setup-wizard: {exc}")
        return EXIT_BAD_INPUT
    try:
        candidate, choice, rec = _recommend(args, host, python_version)
    except ValueError as exc:
        _say(f"gpu-setup-wizard: {t('recommend.cli.bad_input', lang, error=exc)}")
        return EXIT_BAD_INPUT
    if candidate is None:
        _say(t("install.cli.no_candidate", lang))
        for advice in rec.advice:
            _say("  " + advice.text(lang))
        return EXIT_FAILED
    if target is None:  # --venv PATH without --python: the recommendation's interpreter, or uv
        path = os.path.abspath(os.path.expanduser(args.venv))
        if choice is not None and choice.interpreter is not None:
            target = envs.new_venv(path, choice.interpreter.path) if args.installer == "pip" else \
                envs.new_uv_venv(path, choice.interpreter.path)
            _say(t("install.cli.python_chosen", lang, path=choice.interpreter.path, version=choice.version))
        else:
            target = envs.new_uv_venv(path, choice.version if choice else "3.12")
            _say(t("install.cli.python_managed", lang, version=target.python_version))
    if target.kind == envs.KIND_NEW_CONDA and not target.python_version:
        target.python_version = candidate.python
    reqs = requirements(candidate)
    index_url = None if candidate.uses_default_index else candidate.index_url
    _say(t("install.cli.what", lang, reqs=" ".join(reqs), index=index_url or "PyPI", target=target.label(lang)))
    options = InstallOptions(reqs, index_url, installer=args.installer, cache_dir=args.cache_dir,
                             parallel=max(1, args.parallel), confirmed=set(envs.CONFIRMABLE) if args.yes else set(),
                             uv_python_mirror=args.python_mirror, verify_imports=["torch"])

    if args.plan_only:
        return _plan_only(target, options, host, args, lang)

    log_lines: list[str] = []
    job = InstallJob(target, options, host, on_log=log_lines.append)
    cancel = threading.Event()
    try:
        ok = run_steps(job, on_progress=_ProgressPrinter(lang), cancel=cancel)
    except KeyboardInterrupt:
        ok = False
        _say(t("install.cli.cancelled", lang, path=target.path))
        _finish_output(job, args, lang)
        return EXIT_CANCELLED
    _finish_output(job, args, lang)
    if ok:
        return EXIT_OK
    if job.failure is not None and job.failure.kind == "confirm":
        _say(t("install.cli.needs_yes", lang))
        return EXIT_NEEDS_CONFIRM
    if job.state is not None and job.state.status == "cancelled":
        return EXIT_CANCELLED
    return EXIT_FAILED


def _finish_output(job: Any, args: argparse.Namespace, lang: str) -> None:
    summary = job.summary()
    if job.failure is not None:
        _say(t("install.cli.failed", lang, step=job.failure.step_id, message=job.failure.message.text(lang)))
        if job.failure.kind == "network":
            _say(t("install.cli.mirror_hint", lang))
        for line in list(job.log_lines)[-15:]:
            _say("    " + line)
    if summary["recovery"]:
        _say(t("install.cli.recovery", lang, options=", ".join(summary["recovery"])))
    if args.json:
        print(json.dumps(summary, ensure_ascii=False, indent=2))
    elif summary["ok"]:
        from wizard.core.install.plan import format_bytes

        print(t("install.cli.done", lang, python=summary["env_python"],
                fetched=format_bytes(summary["downloaded_bytes"]), cached=format_bytes(summary["from_cache_bytes"])))
        for item in summary["installed"]:
            print(f"  {item['name']} {item['version']}")


def _plan_only(target: Any, options: Any, host: Any, args: argparse.Namespace, lang: str) -> int:
    from wizard.core.install import targets as envs
    from wizard.core.install.plan import PLAN_SCHEMA, PlanError
    from wizard.core.install.runner import preview_plan

    try:
        plan = preview_plan(target, options, host)
    except PlanError as exc:
        _say(t("install.cli.failed", lang, step="resolve", message=exc.message.text(lang)))
        if exc.kind == "network":
            _say(t("install.cli.mirror_hint", lang))
        return EXIT_FAILED
    checks = envs.preflight(target, host, download_bytes=plan.total_bytes if plan else 0,
                            cache_dir=options.cache_dir or str(_default_cache()), confirmed=options.confirmed)
    if plan is None:
        _say(t("install.cli.plan_later", lang))
    else:
        _print_plan(plan, lang)
    for c in checks.checks:
        if c.severity != envs.SEVERITY_OK:
            _say(f"[{c.severity}] {c.text(lang)}")
    if args.json:
        doc = plan.to_json() if plan is not None else {"schema": PLAN_SCHEMA, "files": None}
        doc.update({"target": target.to_json(), "requirements": options.requirements, "index_url": options.index_url,
                    "checks": [c.to_json(lang) for c in checks.checks], "ok": checks.ok})
        print(json.dumps(doc, ensure_ascii=False, indent=2))
    if checks.ok:
        return EXIT_OK
    if all(c.severity == envs.SEVERITY_CONFIRM for c in checks.blocking):
        _say(t("install.cli.needs_yes", lang))
        return EXIT_NEEDS_CONFIRM
    return EXIT_FAILED


def _default_cache():
    from wizard.core.install.download import default_cache_root

    return default_cache_root()


def _remove_or_restore(args: argparse.Namespace, host: Any, lang: str) -> int:
    from wizard.core.install.runner import InstallJob, InstallOptions, restore_steps, run_steps
    from wizard.core.install.recovery import RemoveRefused, StateStore, remove_environment

    store = StateStore()
    if args.venv:
        path = os.path.abspath(os.path.expanduser(args.venv))
    else:
        path = _conda_prefix(args.conda_env, host) or args.conda_env
    state = store.load(path)
    if state is None:
        _say(t("install.cli.no_state", lang, path=path))
        return EXIT_BAD_INPUT
    if args.remove:
        try:
            result = remove_environment(state, host, store)
        except RemoveRefused as exc:
            _say(t("install.cli.remove_refused", lang, reason=str(exc)))
            return EXIT_FAILED
        _say(t("install.cli.removed", lang, path=", ".join(result.removed) or path))
        if args.json:
            print(json.dumps({"schema": "gpu-setup-wizard/install-remove@1.0", "removed": result.removed,
                              "method": result.method}, ensure_ascii=False, indent=2))
        return EXIT_OK
    job = InstallJob(state.env_target(), InstallOptions(state.requirements, state.index_url,
                                                        cache_dir=args.cache_dir), host, store=store)
    job.state = state
    ok = run_steps(job, restore_steps(job), on_progress=_ProgressPrinter(lang))
    if not ok and job.failure is not None:
        _say(t("install.cli.failed", lang, step=job.failure.step_id, message=job.failure.message.text(lang)))
    if args.json:
        print(json.dumps({"schema": "gpu-setup-wizard/install-restore@1.0", "ok": ok,
                          "env_python": job.env_python()}, ensure_ascii=False, indent=2))
    return EXIT_OK if ok else EXIT_FAILED


def _conda_prefix(name: str, host: Any) -> str | None:
    from wizard.core.machine.conda import find_conda

    for conda in find_conda(host):
        for env in conda.envs:
            if env.name == name or env.prefix == name:
                return env.prefix
    return None


def main(argv: list[str] | None = None) -> int:
    """``python -m wizard.cli_install install ...``: the command on its own, before (or
    besides) its place in ``gpu-setup-wizard``."""
    from wizard.core.base.i18n import LANGUAGES, detect_lang, set_language

    set_language(detect_lang())
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--lang", choices=LANGUAGES)
    parser = argparse.ArgumentParser(prog="gpu-setup-wizard")
    sub = parser.add_subparsers(dest="command", required=True)
    add_install_parser(sub, common)
    args = parser.parse_args(argv)
    if args.lang:
        set_language(args.lang)
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
