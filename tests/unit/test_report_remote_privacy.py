"""A Colab/cloud result added with ``--add-remote`` keeps none of the remote machine's identity (issue 24,
finding 8; red team 9): the remote's home path and user name, from a report made there with
``--include private``, a pasted ``nvidia-smi`` whose process list names ``/home/<user>/…``, or the
``home``/``user`` a document records, are hidden in every format of this machine's report (the
report object the PDF is drawn from, and the Markdown, HTML and JSON texts)."""

from __future__ import annotations

import json

import pytest

from tests import report_sessions as rs
from wizard.app.report import build as build_report
from wizard.app.report import render
from wizard.core.base.privacy import remote_redactor
from wizard.core.report.as_json import dumps
from wizard.core.report.remote import machine_from_file, machine_from_text

SECRETS = ("remotekim", "원격김", "/home/remotekim", "C:\\Users\\원격김")


def _private_remote_report() -> str:
    """What ``report --json --include private`` prints on a cloud machine whose user is remotekim."""
    doc = json.loads(dumps(build_report(rs.full_session("en"), lang="en", now=rs.NOW, include_private=True)))
    doc["private_included"] = True
    doc["machines"][0]["os"] = "Ubuntu 22.04 (/home/remotekim)"
    for block in doc.get("appendices") or []:
        if block.get("text"):
            block["text"] += ("\n|    0   N/A  N/A      4242      C   /home/remotekim/venv/bin/python      1234MiB |\n"
                              "| C:\\Users\\원격김\\env\\python.exe  remotekim@cloud-box |\n")
    doc["machines"][0]["raw_nvidia_smi"] = "|  0  4242  C  /home/remotekim/venv/bin/python  1234MiB |\n"
    return json.dumps(doc, ensure_ascii=False)


def _all_formats(machine) -> list[str]:
    session = rs.full_session("en")
    session.remotes = [machine]
    report = build_report(session, lang="en", now=rs.NOW)
    return [dumps(report), render(report, "md"), render(report, "html"), repr(report)]


def test_a_private_remote_report_keeps_no_remote_identity_in_any_format():
    machine = machine_from_text(_private_remote_report(), "cloud", label="cloud.json")
    assert machine.os == "Ubuntu 22.04 (~)"
    for text in _all_formats(machine):
        for secret in SECRETS:
            assert secret not in text


def test_a_pasted_nvidia_smi_with_the_remotes_process_paths(tmp_path):
    paste = rs.colab_smi_text() + ("|    0   N/A  N/A      4242      C   /home/remotekim/venv/bin/python"
                                   "      1234MiB |\n")
    path = tmp_path / "cloud.txt"
    path.write_text(paste, encoding="utf-8")
    machine = machine_from_file(path, "cloud")
    assert "~/venv/bin/python" in machine.raw_nvidia_smi
    for text in _all_formats(machine):
        assert "remotekim" not in text


def test_a_document_recording_its_home_and_user_is_redacted_with_them():
    doc = json.loads(dumps(build_report(rs.full_session("en"), lang="en", now=rs.NOW, include_private=True)))
    doc["home"], doc["user"] = "/srv/people/jdoe2", "jdoe2"
    doc["machines"][0]["os"] = "Linux (jdoe2 at /srv/people/jdoe2)"
    machine = machine_from_text(json.dumps(doc), "cloud")
    assert "jdoe2" not in machine.os and "/srv/people" not in machine.os


@pytest.mark.parametrize("text,hidden", [
    ("/Users/minji/miniforge3/bin/python", "minji"),
    ("C:/Users/kim.s/AppData/python.exe", "kim.s"),
    ("D:\\\\Users\\\\lee\\\\env", "lee"),
])
def test_home_paths_of_every_os_become_tilde(text, hidden):
    red = remote_redactor({"x": text})
    assert hidden not in red.redact_text(text) and "~" in red.redact_text(text)
