"""The class view use case, the same for ``gpu-setup-wizard class`` and the Report page's
"Open class view…": read the reports, build the table, write it as HTML or CSV (by extension).

Why a layer of its own: both faces must refuse the same things with the same message (no
reports, an unknown extension) and write the file the same way (atomically: a TA re-running
it while a browser has the old page open never sees half a page).
"""

from __future__ import annotations

import datetime as _dt
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Sequence

from wizard.core.base.files import write_atomic
from wizard.core.base.i18n import MessageError, msg

if TYPE_CHECKING:
    from wizard.core.classroom.roster import Skipped
    from wizard.core.classroom.table import ClassTable

FORMATS = {".html": "html", ".htm": "html", ".csv": "csv"}


class ClassViewError(MessageError, ValueError):
    """The class view cannot be made from these inputs or to this output; the message says why,
    ``skipped`` what was skipped on the way (each with its reason)."""

    def __init__(self, message: object, skipped: Sequence[Skipped] = ()) -> None:
        super().__init__(message)  # type: ignore[arg-type]
        self.skipped = list(skipped)


@dataclass
class ClassViewResult:
    path: Path
    table: ClassTable


def output_format(path: str | os.PathLike[str]) -> str:
    """``html`` or ``csv`` from the output's extension; anything else is refused."""
    ext = Path(path).suffix.lower()
    if ext not in FORMATS:
        raise ClassViewError(msg("class_view.cli.bad_extension", ext=ext or Path(path).name))
    return FORMATS[ext]


def build_table(paths: Sequence[str | os.PathLike[str]]) -> ClassTable:
    """The class table of the reports in ``paths``; no readable report at all is an error
    (the skipped files are named in the message's place by the caller)."""
    from wizard.core.classroom.roster import read_roster
    from wizard.core.classroom.table import class_table

    roster = read_roster(paths)
    if not roster.students:
        names = ", ".join(Path(p).name or str(p) for p in paths) or "-"
        raise ClassViewError(msg("class_view.cli.no_inputs", paths=names), roster.skipped)
    return class_table(roster)


def render(table: ClassTable, fmt: str, lang: str, now: _dt.datetime | None = None) -> bytes:
    from wizard.core.classroom.render import render_csv, render_html

    if fmt == "csv":
        return render_csv(table, lang).encode("utf-8-sig")  # the BOM: Excel then reads Hangul as UTF-8
    when = (now or _dt.datetime.now().astimezone()).isoformat(timespec="minutes")
    return render_html(table, lang, when).encode("utf-8")


def make_class_view(paths: Iterable[str | os.PathLike[str]], output: str | os.PathLike[str], lang: str,
                    now: _dt.datetime | None = None) -> ClassViewResult:
    """Read, build, write. Raises :class:`ClassViewError` (no reports, unknown extension) or
    OSError (the output cannot be written; nothing is left half-written)."""
    inputs = list(paths)
    fmt = output_format(output)  # refuse a bad name before reading 500 files
    table = build_table(inputs)
    data = render(table, fmt, lang, now)
    return ClassViewResult(write_atomic(output, data), table)


def default_output(folder: str | os.PathLike[str]) -> Path:
    """Where the Report page writes the page for a folder: beside the folder, named after it."""
    p = Path(folder)
    return p.parent / f"{p.name or 'class'}-class-view.html"


__all__ = ["ClassViewError", "ClassViewResult", "FORMATS", "output_format", "build_table", "render",
           "make_class_view", "default_output"]
