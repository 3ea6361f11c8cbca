"""``install … --export-bundle DIR`` and ``install --from-bundle DIR --venv PATH``: the offline bundle.

Kept out of :mod:`wizard.cli.install` so that command stays the install engine's; these are the
app layer's bundle use cases (:mod:`wizard.app.bundle`) with their lines on stderr.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import TYPE_CHECKING

from wizard.cli.common import error, lang_of, say
from wizard.cli.exit_status import ExitStatus
from wizard.core.base.i18n import t

if TYPE_CHECKING:
    from wizard.app.install import InstallJob


def add_bundle_arguments(p: argparse.ArgumentParser, lang: str) -> None:
    p.add_argument("--export-bundle", metavar="DIR", help=t("bundle.cli.export.help", lang))
    p.add_argument("--from-bundle", metavar="DIR", help=t("bundle.cli.from.help", lang))
    p.add_argument("--variants", metavar="cpu,cu126,...", help=t("bundle.cli.variants.help", lang))


def run_from_bundle(args: argparse.Namespace) -> int:
    """``install --from-bundle DIR --venv PATH [--python EXE]``: check, say what it serves, install offline."""
    from wizard.app.bundle import BundleError, install_from_bundle
    from wizard.cli.environment import current_host

    lang = lang_of(args)
    if not args.venv:
        return error(t("bundle.cli.needs_venv", lang))
    python = args.python if args.python and os.path.isfile(args.python) else None
    variant = (args.variant or "").strip().lower() or None
    detection = None
    if variant is None:  # a bundle of several builds: the one this machine runs
        from wizard.app import detect as app_detect
        from wizard.app.session import Session

        session = Session(host=current_host(), lang=lang)
        detection = app_detect.detect_machine(session, pythons=False, conda=False)
    try:
        result = install_from_bundle(current_host(), args.from_bundle, os.path.abspath(os.path.expanduser(args.venv)),
                                     python, variant=variant, detection=detection)
    except BundleError as exc:
        return error(exc.text(lang))
    for m in result.messages:
        say(m.text(lang))
    if not result.ok:
        for line in result.log:
            say("    " + line)
        return ExitStatus.FAILED
    if args.json:
        print(json.dumps({"ok": True, "env_python": result.env_python, "variant": result.variant}, ensure_ascii=False))
    return ExitStatus.SUCCESS


def export_after(job: InstallJob, args: argparse.Namespace, lang: str) -> int:
    """After a successful install: the bundle at ``--export-bundle``."""
    from wizard.app.bundle import BundleError, export_from_job, parse_variants, serves_text

    try:
        manifest = export_from_job(job, os.path.abspath(os.path.expanduser(args.export_bundle)),
                                   parse_variants(getattr(args, "variants", None)))
    except BundleError as exc:
        return error(exc.text(lang), ExitStatus.FAILED)
    except OSError as exc:
        return error(t("report.cli.cannot_write", lang, path=args.export_bundle, error=exc.strerror or exc),
                     ExitStatus.FAILED)
    say(t("bundle.written", lang, folder=args.export_bundle))
    say(serves_text(manifest).text(lang))
    return ExitStatus.SUCCESS


__all__ = ["add_bundle_arguments", "export_after", "run_from_bundle"]
