"""``gpu-setup-wizard kernel install|list|verify``: the notebook runs the environment you verified.

* ``kernel install --python EXE [--name N] [--yes] [--vscode DIR]``: register EXE's environment
  as a Jupyter kernel (``--user``); ipykernel is installed into it first only with ``--yes``;
  ``--vscode`` also points VS Code at it in that project folder (settings merged, JSONC refused).
* ``kernel list [--json]``: the registered kernels, flagged (interpreter gone, CPU build on a
  GPU machine, Hangul path on Windows, conda environments VS Code will not see).
* ``kernel verify NAME [--json]``: the verification checklist run inside that kernel.

Exit statuses: SUCCESS; FAILED (a registration or a check failed; ``list``: a kernel is
broken); BAD_INPUT (no such interpreter or kernel, a bad name); NEEDS_CONFIRM (ipykernel is
missing and ``--yes`` was not given); CANCELLED on Ctrl+C.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from wizard.cli.common import error, lang_of, print_json, run_probe_command, say, target_python
from wizard.cli.exit_status import ExitStatus
from wizard.core.base.i18n import t

if TYPE_CHECKING:
    from wizard.app.kernels import KernelInfo, VerifyReport
    from wizard.app.session import Session


def _session(lang: str, detect: bool) -> Session:
    from wizard.app import detect as app_detect
    from wizard.app.session import Session
    from wizard.cli.environment import current_host

    session = Session(host=current_host(), lang=lang)
    if detect:
        app_detect.detect_machine(session, pythons=False, conda=False)
    return session


def run_install(args: argparse.Namespace) -> int:
    from wizard.app import kernels as app_kernels
    from wizard.app.kernels import valid_name

    lang = lang_of(args)
    python = target_python(args.python)
    if python is None:
        return error(t("verify.cli.no_python", lang, path=args.python))
    if args.name is not None and not valid_name(args.name):
        return error(t("kernels.bad_name", lang, name=args.name))
    index_url = getattr(args, "index_url", None)
    if index_url:
        from wizard.app.install import index_url_problem

        problem = index_url_problem(index_url)
        if problem is not None:
            return error(t(problem, lang, url=index_url))
    session = _session(lang, detect=False)
    try:
        result = app_kernels.register(session, python, name=args.name, consent=args.yes, on_line=None,
                                      replace=getattr(args, "replace", False), index_url=index_url)
    except KeyboardInterrupt:
        return ExitStatus.CANCELLED
    if args.json:
        print_json(result.to_json())
    else:
        print(app_kernels.register_text(result, lang))
    if result.needs_consent:
        say(t("kernels.needs_yes", lang))
        return ExitStatus.NEEDS_CONFIRM
    if result.failed_step == "exists" and not result.steps:  # a kernel of that name is someone else's
        return ExitStatus.NEEDS_CONFIRM
    if result.failed_step == "name":
        return ExitStatus.BAD_INPUT
    if not result.ok:
        return ExitStatus.FAILED
    if args.vscode and not write_vscode(args.vscode, python, lang):
        return ExitStatus.FAILED
    return ExitStatus.SUCCESS


def write_vscode(project: str, python: str, lang: str) -> bool:
    """``--vscode DIR``: VS Code's interpreter setting in that project (merged); False, with the
    reason on stderr, when the file was left alone or could not be written."""
    from wizard.app import kernels as app_kernels

    try:
        done = app_kernels.write_vscode(project, python)
    except app_kernels.SettingsRefused as exc:
        error(t(f"kernels.vscode.refused.{exc.reason}", lang, path=str(exc.path), detail=exc.detail))
        return False
    except OSError as exc:
        error(t("kernels.vscode.os_error", lang, path=project, error=exc.strerror or str(exc)))
        return False
    say(t("kernels.vscode.written" if done.changed else "kernels.vscode.unchanged", lang, path=str(done.path)))
    return True


def run_list(args: argparse.Namespace) -> int:
    from wizard.app import kernels as app_kernels

    lang = lang_of(args)
    session = _session(lang, detect=True)
    kernels = app_kernels.list_kernels(session)
    if getattr(args, "json", False):
        print_json({"gpu_machine": app_kernels.gpu_machine(session), "kernels": [k.to_json() for k in kernels]})
    else:
        print(list_text(kernels, lang))
    return ExitStatus.FAILED if any(k.status == "fail" for k in kernels) else ExitStatus.SUCCESS


def list_text(kernels: list, lang: str) -> str:
    from wizard.app import kernels as app_kernels

    if not kernels:
        return t("kernels.none", lang)
    marks = {"pass": "[ OK ]", "warn": "[WARN]", "fail": "[FAIL]"}
    lines = []
    for info in kernels:
        lines.append(f"{marks[info.status]} {app_kernels.kernel_line(info, lang)}")
        for flag in info.flags:
            lines.append("       " + app_kernels.flag_text(flag, lang))
            lines.append("       " + t("verify.report.fix", lang, text=app_kernels.flag_fix(flag, lang)))
    return "\n".join(lines)


def run_verify(args: argparse.Namespace) -> int:
    from wizard.app import kernels as app_kernels
    from wizard.app.verify import progress_text

    lang = lang_of(args)
    missing = app_kernels.jupyter_client_missing()
    if missing is not None:
        return error(t("kernels.panel.no_jupyter_client", lang, error=missing), ExitStatus.FAILED)
    session = _session(lang, detect=True)
    info = app_kernels.find_kernel(session, args.name)
    if info is None:
        return error(t("kernels.no_such", lang, name=args.name))
    if info.interpreter is None:
        flag = next(f for f in info.flags if f.id == "interpreter_missing")
        return error(app_kernels.flag_text(flag, lang) + "\n" + app_kernels.flag_fix(flag, lang), ExitStatus.FAILED)
    say(t("kernels.verifying", lang, name=info.name, python=info.interpreter))
    report = run_probe_command(lambda on_event, cancel: InKernel(info, app_kernels.verify_in_kernel(
        session, info.name, on_event=on_event, cancel=cancel, interpreter=info.interpreter)), progress_text,
        args.json, lang)
    if report is None:
        return ExitStatus.CANCELLED
    return ExitStatus.SUCCESS if report.status != "fail" else ExitStatus.FAILED


class InKernel:
    """The checklist with the kernel it ran in, first: the JSON's ``kernel`` and the text's first
    line say which notebook interpreter the checks prove."""

    def __init__(self, info: KernelInfo, report: VerifyReport) -> None:
        self.info = info
        self.report = report

    @property
    def status(self) -> str:
        return self.report.status

    def to_json(self, lang: str) -> dict:
        return {"kernel": self.info.to_json(), **self.report.to_json(lang)}

    def to_text(self, lang: str) -> str:
        from wizard.app import kernels as app_kernels

        return app_kernels.kernel_line(self.info, lang) + "\n" + self.report.to_text(lang)


__all__ = ["run_install", "run_list", "run_verify", "list_text", "InKernel"]
