"""The fuzz targets: one per reader of a user's or the disk's input, and what each may answer.

Every target takes a generated input, runs the reader the way the command line does, and checks
the contract of issue 15: a result, or the reader's own refusal (its documented error class, with
a message in both languages), never another exception; and no reader takes more than the cap from
its input. ``TARGETS`` is what ``tests/fuzz/test_fuzz.py`` and ``scripts/fuzz`` run; ``COUNTS``
records how many inputs each target saw (the long run's table).
"""

from __future__ import annotations

import io
import json
import os
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from tests.fuzz import seeds
from tests.fuzz.strategies import json_text, mutated_json, mutated_text, saved_bytes
from wizard.core.base.i18n import MessageError
from wizard.core.base.user_input import MAX_USER_BYTES, decode_user_bytes, read_bounded

COUNTS: Counter[str] = Counter()
OUTCOMES: Counter[tuple[str, str]] = Counter()

# The normal suite's budget (scripts/test sets GSW_FUZZ_PROFILE=ci): fixed, derandomised, no database,
# so a CI run is repeatable and adds seconds, not minutes. "dev" is the same budget, random each run.
settings.register_profile("ci", max_examples=150, derandomize=True, database=None, deadline=None,
                          suppress_health_check=list(HealthCheck), print_blob=True)
settings.register_profile("dev", max_examples=150, database=None, deadline=None,
                          suppress_health_check=list(HealthCheck), print_blob=True)
settings.register_profile("long", max_examples=1000, database=None, deadline=None,
                          suppress_health_check=list(HealthCheck), print_blob=True)
PROFILE = os.environ.get("GSW_FUZZ_PROFILE", "ci")


class _CountingReader(io.RawIOBase):
    """A stream that remembers how many bytes were taken from it."""

    def __init__(self, data: bytes) -> None:
        self._inner = io.BytesIO(data)
        self.taken = 0

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        chunk = self._inner.read(size)
        self.taken += len(chunk)
        return chunk


def read_capped(data: bytes, limit: int = MAX_USER_BYTES) -> str:
    """What the command line's bounded reader makes of a file holding ``data``; checks the cap."""
    stream = _CountingReader(data)
    raw, cut = read_bounded(stream, limit)  # type: ignore[arg-type]
    assert stream.taken <= limit + 1, f"read {stream.taken} bytes with a cap of {limit}"
    assert len(raw) <= limit and cut == (len(data) > limit)
    return decode_user_bytes(raw)


def refused(exc: BaseException) -> None:
    """A refusal must carry a message a student can read, in both languages."""
    if isinstance(exc, MessageError):
        for lang in ("en", "ko"):
            assert exc.text(lang).strip(), f"{type(exc).__name__} without a message"
    else:
        assert str(exc).strip(), f"{type(exc).__name__} without a message"


@dataclass(frozen=True)
class Target:
    """A reader under fuzz: ``inputs`` makes its input, ``run`` reads it and returns "result" or
    "refused" (raising only for a broken contract); ``refusals`` are its documented error classes."""

    name: str
    reader: str
    inputs: Callable[[], st.SearchStrategy[Any]]
    run: Callable[[Any], str]


def _outcome(name: str, kind: str) -> str:
    COUNTS[name] += 1
    OUTCOMES[(name, kind)] += 1
    return kind


# --- nvidia-smi, all four formats: `doctor --nvidia-smi-file`, and `report --add-remote` of a paste --------------
def _smi_inputs(kind: str) -> Callable[[], st.SearchStrategy[bytes]]:
    def inputs() -> st.SearchStrategy[bytes]:
        outputs = seeds.nvidia_smi_outputs()
        mine, every = outputs[kind], [t for texts in outputs.values() for t in texts]
        return saved_bytes(st.one_of(mutated_text(mine), mutated_text(mine, max_edits=30), mutated_text(every)))
    return inputs


def _smi_run(name: str) -> Callable[[bytes], str]:
    def run(data: bytes) -> str:
        from wizard.core.machine.detect import UnreadableInput, detection_from_smi_text
        from wizard.core.machine.doctor import detection_to_json, format_text
        from wizard.core.report.remote import RemoteInputError, machine_from_nvidia_smi

        text = read_capped(data)
        try:
            detection = detection_from_smi_text(text)
        except UnreadableInput as exc:
            refused(exc)
            return _outcome(name, "refused")
        json.dumps(detection_to_json(detection, "en"))  # what doctor --json prints
        format_text(detection, "ko")  # what doctor prints
        try:
            machine_from_nvidia_smi(text, label="remote.txt")  # report --add-remote of the same file
        except RemoteInputError as exc:
            refused(exc)
        return _outcome(name, "result")
    return run


# --- a pasted error text: doctor --explain ------------------------------------------------------------------------
def _explain_inputs() -> st.SearchStrategy[bytes]:
    texts = seeds.pasted_texts()
    return saved_bytes(st.one_of(mutated_text(texts), mutated_text(texts, max_edits=30), st.text()))


def _explain_run(data: bytes) -> str:
    from wizard.cli.doctor import explain_json, explain_text, format_explain

    findings, _status = explain_text(read_capped(data))
    format_explain(findings, "ko")
    json.dumps(explain_json(findings, "en"))
    return _outcome("explain", "result")


# --- doctor JSON: recommend --from-doctor -------------------------------------------------------------------------
def _doctor_inputs() -> st.SearchStrategy[bytes]:
    return saved_bytes(json_text(mutated_json(seeds.doctor_documents())))


def _doctor_run(data: bytes) -> str:
    from wizard.core.base.schema import SchemaError
    from wizard.core.base.typed import DocumentTypeError
    from wizard.core.machine.doctor import load_doctor_json
    from wizard.core.machine.doctor_import import detection_from_doctor_json
    from wizard.core.recommend.choose_python import choose_python
    from wizard.core.recommend.inputs import Wishes

    try:
        detection = detection_from_doctor_json(load_doctor_json(read_capped(data)))
    except (SchemaError, DocumentTypeError) as exc:
        refused(exc)
        return _outcome("doctor-json", "refused")
    try:
        choose_python(detection, Wishes(), None)
    except ValueError as exc:  # the command line's "Cannot recommend for that machine: <why>" (cli/recommend.py)
        refused(exc)
        return _outcome("doctor-json", "refused")
    return _outcome("doctor-json", "result")


# --- report JSON: report --add-remote -----------------------------------------------------------------------------
def _report_inputs() -> st.SearchStrategy[bytes]:
    docs = seeds.report_documents() + seeds.doctor_documents()
    return saved_bytes(json_text(mutated_json(docs)))


def _report_run(data: bytes) -> str:
    from wizard.core.report.remote import RemoteInputError, machine_from_text

    try:
        machine_from_text(read_capped(data), label="remote.json")
    except RemoteInputError as exc:
        refused(exc)
        return _outcome("report-json", "refused")
    return _outcome("report-json", "result")


# --- history snapshots: history list/show/diff, doctor --compare-last ---------------------------------------------
_HISTORY_DIR: list[Path] = []


def _history_inputs() -> st.SearchStrategy[bytes]:
    return st.one_of(json_text(mutated_json(seeds.history_snapshots())).map(lambda t: t.encode("utf-8")),
                     saved_bytes(json_text(mutated_json(seeds.history_snapshots()))))


def _history_run(data: bytes) -> str:
    from wizard.cli.history import format_snapshot
    from wizard.core.history.diff import diff_snapshots
    from wizard.core.history.store import HistoryStore, Snapshot

    if not _HISTORY_DIR:
        _HISTORY_DIR.append(Path(tempfile.mkdtemp(prefix="gsw-fuzz-history-")))
    root = _HISTORY_DIR[0]
    (root / "snapshot-20261129-102000-000001.json").write_bytes(data)
    store = HistoryStore(root)
    entries = store.entries()
    if not entries:
        assert store.warnings, "an unreadable snapshot was skipped without a warning"
        for notice in store.warnings:
            assert notice.text("ko").strip() and notice.text("en").strip()
        return _outcome("history", "refused")
    good = Snapshot.from_json(seeds.history_snapshots()[0])
    for entry in entries:
        format_snapshot(entry, "ko")
        for old, new in ((good, entry.snapshot), (entry.snapshot, good), (entry.snapshot, entry.snapshot)):
            diff_snapshots(old, new).lines("en")
    return _outcome("history", "result")


# --- compat data: compat.parse of an updated table ----------------------------------------------------------------
def _compat_inputs() -> st.SearchStrategy[Any]:
    return st.one_of(mutated_json([seeds.compat_data()], max_edits=4),
                     json_text(mutated_json([seeds.compat_data()], max_edits=4)))


_COMPAT_FILE: list[Path] = []


def _compat_run(case: Any) -> str:
    """A parsed document goes to ``compat.parse``; a text, saved as a file, to ``compat.load_file``."""
    from wizard.core.recommend.compat import CompatDataError, load_file, parse

    try:
        if isinstance(case, str):
            if not _COMPAT_FILE:
                _COMPAT_FILE.append(Path(tempfile.mkdtemp(prefix="gsw-fuzz-compat-")) / "compat.json")
            _COMPAT_FILE[0].write_text(case, encoding="utf-8", errors="surrogatepass")
            load_file(_COMPAT_FILE[0])
        else:
            parse(case)
    except CompatDataError as exc:
        refused(exc)
        return _outcome("compat", "refused")
    return _outcome("compat", "result")


# --- the bounded reader itself: no reader takes more than the cap ---------------------------------------------------
def _cap_inputs() -> st.SearchStrategy[tuple[int, bytes]]:
    return st.tuples(st.integers(1, 5000), st.integers(0, 12000)).flatmap(
        lambda lim_len: st.tuples(st.just(lim_len[0]), st.binary(min_size=lim_len[1], max_size=lim_len[1])
                                  | st.just(b"\xff\xfe" + b"a\x00" * (lim_len[1] // 2))))


def _cap_run(case: tuple[int, bytes]) -> str:
    limit, data = case
    read_capped(data, limit)
    return _outcome("bounded-reader", "result")


# --- a course profile (TOML): --course FILE and "Open course profile…" ---------------------------------------------
def _course_inputs() -> st.SearchStrategy[bytes]:
    texts = seeds.course_profiles()
    return saved_bytes(st.one_of(mutated_text(texts), mutated_text(texts, max_edits=30), st.text()))


def _course_run(data: bytes) -> str:
    from wizard.core.course.profile import MAX_COURSE_BYTES, CourseError, parse_course

    try:
        profile = parse_course(read_capped(data, MAX_COURSE_BYTES), "course.toml")
        json.dumps(profile.to_json())
        profile.requirement_names()
    except CourseError as exc:
        refused(exc)
        return _outcome("course", "refused")
    return _outcome("course", "result")


TARGETS: dict[str, Target] = {t.name: t for t in (
    Target("smi-table", "doctor --nvidia-smi-file (default table)", _smi_inputs("table"), _smi_run("smi-table")),
    Target("smi-q", "doctor --nvidia-smi-file (-q)", _smi_inputs("q"), _smi_run("smi-q")),
    Target("smi-xml", "doctor --nvidia-smi-file (-q -x)", _smi_inputs("xml"), _smi_run("smi-xml")),
    Target("smi-csv", "doctor --nvidia-smi-file (--query-gpu CSV)", _smi_inputs("csv"), _smi_run("smi-csv")),
    Target("explain", "doctor --explain (pasted text)", _explain_inputs, _explain_run),
    Target("doctor-json", "recommend --from-doctor", _doctor_inputs, _doctor_run),
    Target("report-json", "report --add-remote", _report_inputs, _report_run),
    Target("history", "history list/show/diff (snapshots)", _history_inputs, _history_run),
    Target("compat", "compat.parse (compatibility data)", _compat_inputs, _compat_run),
    Target("course", "--course FILE (course profile, TOML)", _course_inputs, _course_run),
    Target("bounded-reader", "the bounded reader (cap)", _cap_inputs, _cap_run),
)}
# What gets installed (a bundle's manifest, a course's packages): their module uses the helpers above.
from tests.fuzz.targets_install import INSTALL_TARGETS  # noqa: E402

TARGETS.update(INSTALL_TARGETS)
# What gets deleted and shown (storage plans, kernel names, the class view): the same helpers.
from tests.fuzz.targets_safety import SAFETY_TARGETS  # noqa: E402

TARGETS.update(SAFETY_TARGETS)

__all__ = ["TARGETS", "Target", "COUNTS", "OUTCOMES", "PROFILE", "read_capped", "refused"]
