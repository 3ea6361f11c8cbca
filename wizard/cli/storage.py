"""``gpu-setup-wizard storage [--json] [--clean] [--dry-run] [--env PATH]... [--wizard-envs] [--yes]``.

* bare: what the wizard's environments, its download cache and pip's, uv's and Hugging Face's
  caches take;
* ``--dry-run``: what a cleanup would delete, with the sizes before and after; nothing changes;
* ``--clean``: cleans the caches (the wizard's keeps what an unfinished install needs; pip and
  uv clean themselves) and removes only the environments named with ``--env``; on a terminal it
  asks first (once for the caches, then per environment) unless ``--yes``; without a terminal an
  environment needs ``--yes``;
* ``--wizard-envs`` (with ``--clean`` or ``--dry-run``): instead of the caches, every environment
  this user's install records say the wizard made, wherever it is, each checked as one named
  with ``--env`` (:func:`wizard.app.storage.plan_wizard_envs` decides); what fails the rule is
  skipped and said. The Jupyter kernels the wizard registered for an environment it removes
  go with it (a kernel goes only after its environment went). The Windows uninstaller runs ``storage --clean --wizard-envs --yes`` when
  asked to delete the environments (the shared ``C:\\GPU-Setup-Wizard\\envs`` cannot go whole).

Exit statuses: SUCCESS; FAILED (a cleanup step did not finish); BAD_INPUT (``--env`` names no
environment the wizard can see, or comes without --clean/--dry-run); NEEDS_CONFIRM (an
environment with neither a terminal nor ``--yes``); CANCELLED on Ctrl+C.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Callable

from wizard.cli.common import error, lang_of, print_json, say
from wizard.cli.exit_status import ExitStatus
from wizard.core.base.i18n import t

if TYPE_CHECKING:
    from wizard.app.storage import CleanPlan, StorageReport, WizardEnvs


def _ask(question: str) -> bool:
    try:
        answer = input(question)
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes", "예", "네", "ㅇ")


def _envs(args: argparse.Namespace, known_paths: list[str], lang: str) -> list[str] | int:
    from wizard.app.storage import is_environment

    known = {os.path.normcase(os.path.abspath(p)) for p in known_paths}
    chosen = []
    for raw in args.env or []:
        path = os.path.abspath(raw)
        if os.path.normcase(path) not in known and not is_environment(path):
            return error(t("storage.cli.env_not_known", lang, path=raw))
        chosen.append(path)
    return chosen


def run(args: argparse.Namespace) -> int:
    from wizard.app import storage as app_storage
    from wizard.app.storage import human_size

    lang = lang_of(args)
    if args.env and not (args.clean or args.dry_run):
        return error(t("storage.cli.env_needs_clean", lang))
    if args.wizard_envs:
        if not (args.clean or args.dry_run):
            return error(t("storage.cli.wizard_envs_needs_clean", lang))
        return _wizard_envs(args, lang)
    try:
        report = app_storage.survey()
        if not (args.clean or args.dry_run):
            if args.json:
                print_json(report.to_json(lang))
            else:
                print(app_storage.report_text(report, lang))
            return ExitStatus.SUCCESS
        envs = _envs(args, [e.location.path for e in report.environments], lang)
        if isinstance(envs, int):
            return envs
        cleanup = app_storage.plan(report, envs)
        if args.dry_run:
            _out(args, report, cleanup, lang, dry_run=True)
            return ExitStatus.SUCCESS
        interactive = sys.stdin.isatty() and not args.yes
        if envs and not args.yes and not sys.stdin.isatty():
            say(t("storage.cli.needs_yes", lang))
            return ExitStatus.NEEDS_CONFIRM
        if interactive:
            _confirm(cleanup, lang, human_size)
        cleanup = app_storage.clean(cleanup)
    except KeyboardInterrupt:
        return ExitStatus.CANCELLED
    _out(args, report, cleanup, lang, dry_run=False)
    return ExitStatus.FAILED if any(i.error for i in cleanup.items) else ExitStatus.SUCCESS


def _wizard_envs(args: argparse.Namespace, lang: str) -> int:
    """``--wizard-envs``: the environments the records say the wizard made (and any ``--env``)."""
    from wizard.app import storage as app_storage
    from wizard.app.storage import human_size

    try:
        cleanup, found = app_storage.plan_wizard_envs()
        also = _envs(args, found.paths, lang)
        if isinstance(also, int):
            return also
        if also:
            cleanup, found = app_storage.plan_wizard_envs(also=also)
        if args.dry_run:
            _out_wizard_envs(args, cleanup, found, lang, dry_run=True)
            return ExitStatus.SUCCESS
        removable = [i for i in cleanup.items if not i.refused]
        if removable and not args.yes and not sys.stdin.isatty():
            say(t("storage.cli.needs_yes", lang))
            return ExitStatus.NEEDS_CONFIRM
        if removable and not args.yes:
            _confirm(cleanup, lang, human_size)
        cleanup = app_storage.clean(cleanup)
    except KeyboardInterrupt:
        return ExitStatus.CANCELLED
    _out_wizard_envs(args, cleanup, found, lang, dry_run=False)
    return ExitStatus.FAILED if any(i.error for i in cleanup.items) else ExitStatus.SUCCESS


def _out_wizard_envs(args: argparse.Namespace, cleanup: CleanPlan, found: WizardEnvs, lang: str,
                     dry_run: bool) -> None:
    from wizard.app import storage as app_storage

    if args.json:
        print_json({"schema": app_storage.SCHEMA, "dry_run": dry_run, "wizard_envs": found.to_json(),
                    "cleanup": cleanup.to_json()})
    else:
        print(app_storage.wizard_envs_text(found, lang))
        print(app_storage.plan_text(cleanup, lang, dry_run))


def _confirm(cleanup: CleanPlan, lang: str, human_size: Callable[[int], str]) -> None:
    """Ask on the terminal: once for the caches, then for each environment; a "no" marks the
    item refused (skipped), so nothing the student did not say yes to is touched."""
    caches = [i for i in cleanup.items if i.kind not in ("env", "kernelspec") and not i.refused]
    if caches and not _ask(t("storage.cli.confirm_caches", lang,
                             freed=human_size(sum(i.expected_freed for i in caches)))):
        for item in caches:
            item.refused = "storage.cli.skipped"
    for item in cleanup.items:
        if item.kind == "env" and not item.refused and \
                not _ask(t("storage.cli.confirm_env", lang, path=item.path, size=human_size(item.before))):
            item.refused = "storage.cli.skipped"


def _out(args: argparse.Namespace, report: StorageReport, cleanup: CleanPlan, lang: str, dry_run: bool) -> None:
    from wizard.app import storage as app_storage

    if args.json:
        print_json({**report.to_json(lang), "dry_run": dry_run, "cleanup": cleanup.to_json()})
    else:
        print(app_storage.plan_text(cleanup, lang, dry_run))


__all__ = ["run"]
