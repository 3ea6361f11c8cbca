"""Redaction works on the typed report: the same result the JSON document's redaction gives,
new objects of the same types, and the report it was made from left as it was."""

from __future__ import annotations

import copy
from dataclasses import fields, is_dataclass

from tests import report_sessions as rs
from wizard.app.report import build as build_report
from wizard.core.base.privacy import redactor_for
from wizard.core.report.document import redact_typed, report_from_dict, report_to_dict


def _types(value, path="report"):
    """(path, type) of every dataclass inside ``value``: the shape of a typed report."""
    out = []
    if is_dataclass(value):
        out.append((path, type(value)))
        for f in fields(value):
            out += _types(getattr(value, f.name), f"{path}.{f.name}")
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            out += _types(v, f"{path}[{i}]")
    return out


def test_typed_redaction_gives_what_the_document_redaction_gives():
    private = build_report(rs.full_session("ko"), lang="ko", include_private=True, now=rs.NOW)
    redactor = redactor_for(rs.HOME, {"USERNAME": rs.USER}, rs.HOST)
    before = copy.deepcopy(report_to_dict(private))

    redacted = private.redacted(redactor)

    by_document = report_from_dict(redactor.redact(report_to_dict(private)))
    by_document.private_included = False
    assert report_to_dict(redacted) == report_to_dict(by_document)
    assert rs.HOME not in str(report_to_dict(redacted)) and rs.USER not in str(report_to_dict(redacted))
    assert _types(redacted) == _types(private)  # the same typed shape, all the way down
    assert report_to_dict(private) == before  # the private report is not changed by redacting a copy


def test_redact_typed_keeps_tuples_and_hides_serial_fields():
    from dataclasses import dataclass

    @dataclass
    class Gpu:
        name: str
        serial: str
        paths: tuple[str, ...]

    gpu = Gpu("RTX 3060", "1320521012345", (f"{rs.HOME}/envs/dl", "/opt/x"))
    out = redact_typed(gpu, redactor_for(rs.HOME, {}, None))
    assert out.serial != gpu.serial and "1320521012345" not in out.serial
    assert isinstance(out.paths, tuple) and out.paths[0] == "~/envs/dl" and out.paths[1] == "/opt/x"
    assert gpu.paths[0].startswith(rs.HOME)
