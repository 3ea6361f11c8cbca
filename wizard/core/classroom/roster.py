"""Reading a class's handed-in reports: each file once, bounded, typed; broken files skipped with a
one-line reason, possible duplicates kept and flagged.

Why these rules: a TA points the class view at a shared folder where students upload twice,
rename, re-export the same run, or drop something that is not a report at all. Every file is
read with the one bounded reader (:func:`wizard.core.base.user_input.read_user_text`, 4 MB cap,
any encoding a Windows editor writes) and parsed by the report's own typed loader, exactly as
``report --add-remote`` reads a report; ``facts`` are then checked value by value
(:mod:`wizard.core.classroom.facts`), numbers bounded. A file whose bytes were already seen, or
that describes the same machine at the same time as another file, is a *possible* duplicate:
every such file keeps its row and each is flagged with the others' names -- a student who copies
a classmate's report under a name that sorts first must not push the real one out of the view.
Only regular files are read (a named pipe is refused without being opened, never waited on), at
most :data:`MAX_REPORTS` of them. File names and reasons reach the instructor's terminal, so
control characters in them (terminal escape codes) are shown escaped (:func:`shown_name`).
Nothing is de-redacted: the table shows what the student exported.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from wizard.core.base.i18n import Message, MessageError, msg
from wizard.core.base.schema import SchemaError
from wizard.core.base.typed import DocumentTypeError, build
from wizard.core.base.user_files import NotARegularFile, file_kind, open_user_file
from wizard.core.base.user_input import MAX_USER_BYTES, decode_user_bytes, read_bounded
from wizard.core.classroom.facts import ReportFacts, check_bounds, facts_from_legacy

REPORT_SUFFIXES = (".json",)
# C0 and C1 controls, DEL, and the bidirectional overrides that reorder what a terminal shows
_UNSAFE = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]+")
_UNSAFE_ONE = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
MAX_LABEL = 60
MAX_REPORTS = 5000  # a class is at most a few hundred; a folder of more is not a class folder
# A learning platform's "download all submissions" is one folder per student (Moodle:
# "Kim Minji_123456_assignsubmission_file_/gpu-setup-report.json"), sometimes one more level for
# an attempt: reports are looked for this many folder levels down, never through a link.
MAX_DEPTH = 3
MAX_ENTRIES = 100_000  # folder entries looked at, at most: a home folder given by mistake ends soon
_LMS_SUFFIX = re.compile(r"_\d+_(assignsubmission|onlinetext)_\w*$|_(assignsubmission|onlinetext)_\w*$")


@dataclass
class Student:
    """One student's report: who (a label from the file, never a path), and the facts."""

    label: str
    file: str  # the file's name, without its folder (control characters shown escaped)
    facts: ReportFacts
    lang: str | None = None  # the report's language (a 1.0 report's fix lines are in it)
    from_facts: bool = True  # False: a 1.0 report, read from its machines and sections
    duplicates: list[Message] = field(default_factory=list)  # "the same content/machine as <file>"


@dataclass
class Skipped:
    file: str
    reason: Message


@dataclass
class Roster:
    students: list[Student] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)


def shown_name(name: str) -> str:
    """A file name as it may be printed: each control character (an escape code) as ``\\x1b``."""
    return _UNSAFE_ONE.sub(lambda m: ascii(m.group())[1:-1], name)


def _safe(message: Message) -> Message:
    """``message`` with every text parameter's control characters shown escaped (a reason may
    quote the file: a schema version, a type name)."""
    params = {k: (_safe(v) if isinstance(v, Message) else shown_name(v) if isinstance(v, str) else v)
              for k, v in message.params}
    return Message(message.key, tuple(params.items()))


def label_from_name(name: str) -> str:
    """``"kim_minji-report.json"`` → ``"kim_minji-report"``: the file's stem, folder and control
    characters dropped, cut to :data:`MAX_LABEL`. Never a home path, whatever the name held."""
    base = re.split(r"[\\/]", name)[-1]
    stem = base[:-5] if base.lower().endswith(".json") else base
    stem = _UNSAFE.sub(" ", stem).strip() or "?"
    return stem if len(stem) <= MAX_LABEL else stem[:MAX_LABEL - 1] + "…"


def label_from_folder(folder: str) -> str:
    """A student's folder from a platform's download as a label: ``"Kim Minji_123456_
    assignsubmission_file_"`` → ``"Kim Minji"``."""
    return label_from_name(_LMS_SUFFIX.sub("", folder).strip() or folder)


@dataclass
class Found:
    """A report file to read: its path, the name shown for it (``student folder/file`` when it
    came from a student's subfolder) and its row's label (the folder's, else the file's)."""

    path: Path
    name: str
    label: str


def _walk(top: Path) -> tuple[list[Found], list[Skipped]]:
    """The ``*.json`` files in ``top`` and its subfolders down to :data:`MAX_DEPTH`, not following
    links, sorted so that a file comes before its copy ("x.json", then "x (1).json")."""
    found: list[Found] = []
    skipped: list[Skipped] = []
    seen = 0
    folders: list[tuple[Path, tuple[str, ...]]] = [(top, ())]
    while folders:
        folder, parts = folders.pop(0)
        try:
            entries = sorted(os.scandir(folder), key=lambda e: (os.path.splitext(e.name)[0], e.name))
        except OSError as exc:
            skipped.append(Skipped(shown_name("/".join(parts) or top.name),
                                   msg("class_view.skip.unreadable", error=exc.strerror or str(exc))))
            continue
        for entry in entries:
            seen += 1
            if seen > MAX_ENTRIES:
                skipped.append(Skipped(shown_name(top.name), msg("class_view.skip.too_many", count=str(MAX_REPORTS))))
                return found, skipped
            if entry.is_dir(follow_symlinks=False):
                if len(parts) < MAX_DEPTH:
                    folders.append((Path(entry.path), parts + (entry.name,)))
            elif os.path.splitext(entry.name)[1].lower() in REPORT_SUFFIXES:
                name = "/".join(parts + (entry.name,))
                label = label_from_folder(parts[0]) if parts else label_from_name(entry.name)
                found.append(Found(Path(entry.path), name, label))
    return found, skipped


def expand_inputs(paths: Iterable[str | os.PathLike[str]]) -> tuple[list[Found], list[Skipped]]:
    """Files named, and the ``*.json`` files of folders named and of their students' subfolders
    (:func:`_walk`); a name that is neither is skipped with its reason."""
    files: list[Found] = []
    missing: list[Skipped] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            walked, problems = _walk(p)
            missing += problems
            for f in walked:
                _add(f, files, missing)
        elif os.path.lexists(p):
            _add(Found(p, p.name, label_from_name(p.name)), files, missing)
        else:
            missing.append(Skipped(shown_name(p.name or str(p)), msg("class_view.skip.missing")))
    return files, missing


def _add(found: Found, files: list[Found], skipped: list[Skipped]) -> None:
    """A regular file joins ``files``; a pipe, device or socket is skipped without being opened."""
    try:
        mode = found.path.stat().st_mode
    except OSError as exc:
        skipped.append(Skipped(shown_name(found.name), msg("class_view.skip.unreadable", error=exc.strerror or str(exc))))
        return
    if stat.S_ISREG(mode):
        files.append(found)
    else:
        skipped.append(Skipped(shown_name(found.name), NotARegularFile(found.path, file_kind(mode)).message))


def student_from_text(text: str, name: str, label: str | None = None) -> Student:
    """One report text as a student (``label``: its row's name, by default the file's); raises
    :class:`SchemaError` (a ReportSchemaError), :class:`DocumentTypeError` or
    :class:`MessageError` with the reason."""
    from wizard.core.base.schema import load_schema_json
    from wizard.core.report.as_json import check_report_types
    from wizard.core.report.document import SCHEMA, SCHEMA_VERSION, ReportSchemaError, report_from_dict

    doc = load_schema_json(text, SCHEMA, SCHEMA_VERSION, ReportSchemaError)  # depth-limited, schema'd
    label = label or label_from_name(name)
    lang = doc.get("lang") if doc.get("lang") in ("ko", "en") else None
    if doc.get("facts") is not None:
        # a 1.1 report: the table needs only its facts, each value checked against its type
        # (checking every section's text too made 500 reports take three times as long)
        return Student(label, name, check_bounds(build(ReportFacts, doc["facts"], "facts")), lang)
    check_report_types(doc)  # a 1.0 report: the machines and sections are read, so all of it is checked
    return Student(label, name, facts_from_legacy(report_from_dict(doc)), lang, from_facts=False)


def _machine_key(facts: ReportFacts) -> tuple | None:
    if not facts.started_at:
        return None
    return (facts.started_at, facts.os, facts.driver, tuple((g.name, g.vram_bytes) for g in facts.gpus))


def read_roster(paths: Iterable[str | os.PathLike[str]], limit: int = MAX_USER_BYTES) -> Roster:
    """Every report of ``paths`` read once, each with its row; possible duplicates flagged, the
    rest skipped, each with a reason."""
    files, skipped = expand_inputs(paths)
    roster = Roster(skipped=skipped)
    by_hash: dict[str, list[Student]] = {}
    by_machine: dict[tuple, list[Student]] = {}
    for n, found in enumerate(files):
        path, name = found.path, shown_name(found.name)
        if n >= MAX_REPORTS:
            roster.skipped.append(Skipped(name, msg("class_view.skip.too_many", count=str(MAX_REPORTS))))
            continue
        try:
            with open_user_file(path) as fh:  # a regular file only: a pipe swapped in is refused, not waited on
                raw, cut = read_bounded(fh, limit)  # the bounded reader: the cap, whatever the file claims
        except NotARegularFile as exc:
            roster.skipped.append(Skipped(name, exc.message))
            continue
        except OSError as exc:
            roster.skipped.append(Skipped(name, msg("class_view.skip.unreadable", error=exc.strerror or str(exc))))
            continue
        if cut:
            roster.skipped.append(Skipped(name, msg("report.remote.too_big", name=name)))
            continue
        student = _parse(raw, name, roster, shown_name(found.label))
        if student is None:
            continue
        by_hash.setdefault(hashlib.sha256(raw).hexdigest(), []).append(student)
        key = _machine_key(student.facts)
        if key is not None:
            by_machine.setdefault(key, []).append(student)
        roster.students.append(student)
    for group, dup_key in [(g, "class_view.dup.same_content") for g in by_hash.values()] + \
                      [(g, "class_view.dup.same_machine") for g in by_machine.values()]:
        for student in group if len(group) > 1 else []:
            others = [s.file for s in group if s is not student]
            if not any(dict(d.params).get("others") == ", ".join(others) for d in student.duplicates):
                student.duplicates.append(msg(dup_key, others=", ".join(others)))
    return roster


def _parse(raw: bytes, name: str, roster: Roster, label: str | None = None) -> Student | None:
    try:
        text = decode_user_bytes(raw)  # BOMs, UTF-16 from PowerShell, cp949, as every user file
        if not text.strip():
            raise MessageError(msg("cli.error.empty"))
        return student_from_text(text, name, label)
    except (SchemaError, DocumentTypeError, MessageError) as exc:
        roster.skipped.append(Skipped(name, msg("class_view.skip.not_report", reason=_safe(exc.message))))
    return None


__all__ = ["Student", "Skipped", "Roster", "Found", "label_from_name", "label_from_folder", "MAX_DEPTH", "shown_name", "expand_inputs", "student_from_text",
           "read_roster", "REPORT_SUFFIXES", "MAX_REPORTS"]
