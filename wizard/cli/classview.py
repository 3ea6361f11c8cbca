"""``gpu-setup-wizard class FILES_OR_DIRS… -o OUT.html|OUT.csv``: the class view.

The students' exported JSON reports (files, or folders of ``*.json``) as one table for the
instructor or TA; the format follows the output's extension. Exit statuses: SUCCESS (written),
BAD_INPUT (no reports, an unknown extension, an output that cannot be written).
"""

from __future__ import annotations

import argparse

from wizard.cli.common import error, lang_of, say
from wizard.cli.exit_status import ExitStatus
from wizard.core.base.i18n import t


def run(args: argparse.Namespace) -> int:
    from wizard.app.classroom import ClassViewError, make_class_view

    lang = lang_of(args)
    try:
        result = make_class_view(args.inputs, args.output, lang)
    except ClassViewError as exc:
        for skipped in exc.skipped:
            say(t("class_view.skipped.line", lang, file=skipped.file, reason=skipped.reason.text(lang)))
        return error(exc.text(lang))
    except OSError as exc:
        return error(t("class_view.cli.unwritable", lang, path=args.output, error=exc.strerror or str(exc)))
    table = result.table
    for skipped in table.roster.skipped:
        say(t("class_view.skipped.line", lang, file=skipped.file, reason=skipped.reason.text(lang)))
    say(t("class_view.cli.wrote", lang, path=str(result.path), ready=table.ready, total=len(table.rows),
          help=table.need_help, skipped=len(table.roster.skipped)))
    return ExitStatus.SUCCESS


__all__ = ["run"]
