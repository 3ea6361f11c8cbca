"""The report's JSON (gpu-setup-wizard/report@1.1): loads back into the same model and renders
the same; other documents and other major versions are refused with a message."""

from __future__ import annotations

import json

import pytest

from tests import report_sessions as rs
from wizard.app.report import build as build_report
from wizard.core.report.as_json import dumps, loads
from wizard.core.report.document import SCHEMA, ReportSchemaError, report_from_dict, report_to_dict
from wizard.core.report.remote import machine_from_text
from wizard.core.report.render import render_html, render_markdown


def sessions():
    full = rs.full_session("ko")
    full.remotes = [machine_from_text(rs.colab_smi_text(), label="colab.txt")]
    return {"full-ko": (full, "ko"), "no-gpu-en": (rs.no_gpu_session("en"), "en"),
            "detection-only-en": (rs.detection_only_session("en"), "en")}


@pytest.mark.parametrize("name", list(sessions()))
@pytest.mark.parametrize("private", [False, True])
def test_round_trip(name, private):
    session, lang = sessions()[name]
    report = build_report(session, lang=lang, include_private=private, now=rs.NOW)
    text = dumps(report)
    doc = json.loads(text)
    assert doc["schema"] == f"{SCHEMA}@1.1"
    back = loads(text)
    assert back == report
    assert render_markdown(back) == render_markdown(report)
    assert render_html(back) == render_html(report)
    assert dumps(back) == text


def test_the_document_carries_facts_as_values():
    report = build_report(rs.full_session("en"), lang="en", now=rs.NOW)
    doc = report_to_dict(report)
    local = doc["machines"][0]
    assert local["kind"] == "local" and local["driver_version"] == "570.133.07" and local["cuda_version"] == "12.8"
    assert local["gpus"] == [{"name": "NVIDIA GeForce RTX 3060", "memory_total_mib": 12288,
                              "compute_capability": "8.6"}]
    assert local["torch_version"] == "2.8.0+cu128" and local["cuda_available"] is True
    assert isinstance(local["cpu_s"], float) and isinstance(local["speedup"], float)
    assert doc["lang"] == "en" and doc["private_included"] is False
    assert [s["id"] for s in doc["sections"]][:3] == ["checklist", "benchmark", "judgment"]


def test_a_newer_minor_version_with_unknown_keys_still_reads():
    report = build_report(rs.detection_only_session("en"), lang="en", now=rs.NOW)
    doc = report_to_dict(report)
    doc["schema"] = f"{SCHEMA}@1.7"
    doc["something_new"] = {"x": 1}
    doc["machines"][0]["new_fact"] = "y"
    doc["sections"][0]["items"][0]["icon"] = "calendar"
    assert report_from_dict(doc) == report


@pytest.mark.parametrize("doc,fragment", [
    ({"schema": f"{SCHEMA}@2.0", "machines": []}, "version 2.0"),
    ({"schema": "gpu-setup-wizard/doctor@1.0"}, "gpu-setup-wizard/doctor"),
    ({"no": "schema"}, "no \"schema\""),
    ([1, 2], "no \"schema\""),
])
def test_other_documents_are_refused(doc, fragment):
    with pytest.raises(ReportSchemaError) as err:
        report_from_dict(doc) if isinstance(doc, dict) else loads(json.dumps(doc))
    assert fragment in str(err.value)


def test_not_json_and_damaged_parts():
    with pytest.raises(ReportSchemaError, match="not valid JSON"):
        loads("{ this is not json")
    report = build_report(rs.detection_only_session("en"), lang="en", now=rs.NOW)
    doc = report_to_dict(report)
    doc["sections"][0]["items"] = "oops"
    with pytest.raises(ReportSchemaError, match="damaged"):
        report_from_dict(doc)
    doc = report_to_dict(report)
    doc["machines"] = []
    with pytest.raises(ReportSchemaError, match="machines"):
        report_from_dict(doc)
    doc = report_to_dict(report)
    del doc["sections"][0]["title"]
    with pytest.raises(ReportSchemaError, match="Section"):
        report_from_dict(doc)
