"""Reading a class's handed-in reports: each file once, bounded, typed, duplicates and broken
files skipped with a one-line reason.

Why these rules: a TA points the class view at a shared folder where students upload twice,
rename, re-export the same run, or drop something that is not a report at all. Every file is
read with the one bounded reader (:func:`wizard.core.base.user_input.read_user_text`, 4 MB cap,
any encoding a Windows editor writes) and parsed by the report's own typed loader, exactly as
``report --add-remote`` reads a report; ``facts`` are then checked value by value
(:mod:`wizard.core.classroom.facts`). A file whose bytes were already seen, or that describes
the same machine at the same time as an earlier file, is a duplicate. Nothing is de-redacted:
the table shows what the student exported.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from wizard.core.base.i18n import Message, MessageError, msg
from wizard.core.base.schema import SchemaError
from wizard.core.base.typed import DocumentTypeError, build
from wizard.core.base.user_input import MAX_USER_BYTES, decode_user_bytes, read_bounded
from wizard.core.classroom.facts import ReportFacts, facts_from_legacy

REPORT_SUFFIXES = (".json",)
_UNSAFE = re.compile(r"[\x00-\x1f\x7f]+")
MAX_LABEL = 60


@dataclass
class Student:
    """One student's report: who (a label from the file, never a path), and the facts."""

    label: str
    file: str  # the file's name, without its folder
    facts: ReportFacts
    lang: str | None = None  # the report's language (a 1.0 report's fix lines are in it)
    from_facts: bool = True  # False: a 1.0 report, read from its machines and sections


@dataclass
class Skipped:
    file: str
    reason: Message


@dataclass
class Roster:
    students: list[Student] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)


def label_from_name(name: str) -> str:
    """``"kim_minji-report.json"`` → ``"kim_minji-report"``: the file's stem, folder and control
    characters dropped, cut to :data:`MAX_LABEL`. Never a home path, whatever the name held."""
    base = re.split(r"[\\/]", name)[-1]
    stem = base[:-5] if base.lower().endswith(".json") else base
    stem = _UNSAFE.sub(" ", stem).strip() or "?"
    return stem if len(stem) <= MAX_LABEL else stem[:MAX_LABEL - 1] + "…"


def expand_inputs(paths: Iterable[str | os.PathLike[str]]) -> tuple[list[Path], list[Skipped]]:
    """Files named, and the ``*.json`` files of folders named (not recursive, sorted by name);
    a name that is neither is skipped with its reason."""
    files: list[Path] = []
    missing: list[Skipped] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            try:
                found = [c for c in p.iterdir() if c.suffix.lower() in REPORT_SUFFIXES and c.is_file()]
            except OSError as exc:
                missing.append(Skipped(p.name, msg("k.class.skip.unreadable", error=exc.strerror or str(exc))))
                continue
            files.extend(sorted(found, key=lambda c: (c.stem, c.name)))  # "x.json" before its copy "x (1).json"
        elif p.is_file():
            files.append(p)
        else:
            missing.append(Skipped(p.name or str(p), msg("k.class.skip.missing")))
    return files, missing


def student_from_text(text: str, name: str) -> Student:
    """One report text as a student; raises :class:`SchemaError` (a ReportSchemaError),
    :class:`DocumentTypeError` or :class:`MessageError` with the reason."""
    from wizard.core.base.schema import load_schema_json
    from wizard.core.report.as_json import check_report_types
    from wizard.core.report.document import SCHEMA, SCHEMA_VERSION, ReportSchemaError, report_from_dict

    doc = load_schema_json(text, SCHEMA, SCHEMA_VERSION, ReportSchemaError)  # depth-limited, schema'd
    label = label_from_name(name)
    lang = doc.get("lang") if doc.get("lang") in ("ko", "en") else None
    if doc.get("facts") is not None:
        # a 1.1 report: the table needs only its facts, each value checked against its type
        # (checking every section's text too made 500 reports take three times as long)
        return Student(label, name, build(ReportFacts, doc["facts"], "facts"), lang)
    check_report_types(doc)  # a 1.0 report: the machines and sections are read, so all of it is checked
    return Student(label, name, facts_from_legacy(report_from_dict(doc)), lang, from_facts=False)


def _machine_key(facts: ReportFacts) -> tuple | None:
    if not facts.started_at:
        return None
    return (facts.started_at, facts.os, facts.driver, tuple((g.name, g.vram_bytes) for g in facts.gpus))


def read_roster(paths: Iterable[str | os.PathLike[str]], limit: int = MAX_USER_BYTES) -> Roster:
    """Every report of ``paths`` read once; the rest skipped, each with a reason."""
    files, skipped = expand_inputs(paths)
    roster = Roster(skipped=skipped)
    by_hash: dict[str, str] = {}
    by_machine: dict[tuple, str] = {}
    for path in files:
        name = path.name
        try:
            with open(path, "rb") as fh:
                raw, cut = read_bounded(fh, limit)  # the bounded reader: /dev/zero costs ``limit``
        except OSError as exc:
            roster.skipped.append(Skipped(name, msg("k.class.skip.unreadable", error=exc.strerror or str(exc))))
            continue
        if cut:
            roster.skipped.append(Skipped(name, msg("report.remote.too_big", name=name)))
            continue
        digest = hashlib.sha256(raw).hexdigest()
        if digest in by_hash:
            roster.skipped.append(Skipped(name, msg("k.class.skip.same_content", other=by_hash[digest])))
            continue
        by_hash[digest] = name
        student = _parse(raw, name, roster)
        if student is None:
            continue
        key = _machine_key(student.facts)
        if key is not None and key in by_machine:
            roster.skipped.append(Skipped(name, msg("k.class.skip.same_machine", other=by_machine[key])))
            continue
        if key is not None:
            by_machine[key] = name
        roster.students.append(student)
    return roster


def _parse(raw: bytes, name: str, roster: Roster) -> Student | None:
    try:
        text = decode_user_bytes(raw)  # BOMs, UTF-16 from PowerShell, cp949, as every user file
        if not text.strip():
            raise MessageError(msg("cli.error.empty"))
        return student_from_text(text, name)
    except (SchemaError, DocumentTypeError, MessageError) as exc:
        roster.skipped.append(Skipped(name, msg("k.class.skip.not_report", reason=exc.message)))
    return None


__all__ = ["Student", "Skipped", "Roster", "label_from_name", "expand_inputs", "student_from_text", "read_roster",
           "REPORT_SUFFIXES"]
