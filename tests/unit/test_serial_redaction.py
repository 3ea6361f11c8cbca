"""GPU serial numbers, PDIs and board part numbers never leave the machine unasked.

The docs promise that a report and ``doctor --json`` hide what identifies a student; UUIDs were
hidden, but the serials and board ids inside *raw* nvidia-smi text (``nvidia.raw_smi_output``,
the remote nvidia-smi appendix, a CSV's serial column) went out as they were. These tests take
real captured outputs (``-q``, ``-q -x`` and ``--query-gpu`` CSV), give the GeForce capture the
serial a data-centre board would show, and run the real command line on them.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.cli_runner import run_cli
from tests.reference import reference_file
from wizard.core.base.privacy import HIDDEN, Redactor, redact_board_ids

SERIAL = "1324020012345"
PDI = "0x7f8dedcec96ce17f"  # the real one in the Windows capture
XML_SERIAL = "1650522003820"  # the real ones in the A100 capture
XML_BOARD_PART = "692-2G506-0212-002"
SECRETS = (SERIAL, PDI, XML_SERIAL, XML_BOARD_PART)
_RULE = "#" * 80


def _section(capture: str, title: str) -> str:
    """The raw output of one ``# <state> :: <title>`` section of a capture file (see its README)."""
    parts = capture.split(_RULE + "\n")
    for i, part in enumerate(parts[:-1]):
        if part.startswith("# idle :: " + title):
            return parts[i + 1].split("\n\n\n")[0] + "\n"
    raise AssertionError(f"no section {title!r}")


def _windows_capture() -> str:
    return reference_file("nvidia-smi", "01-windows-wddm-geforce-rtx2080super-591.86.capture.txt").read_text(
        encoding="utf-8")


@pytest.fixture
def q_text() -> str:
    """The real ``-q`` of an RTX 2080 SUPER, with the serial a board that has one prints."""
    text = _section(_windows_capture(), "query (-q)")
    text, n = re.subn(r"(Serial Number\s*:\s*)N/A", r"\g<1>" + SERIAL, text, count=1)
    assert n == 1 and PDI in text
    return text


@pytest.fixture
def csv_text() -> str:
    """The real full ``--query-gpu`` CSV (with header), its serial column filled in."""
    text = _section(_windows_capture(), "query-gpu (csv")
    header, row = text.splitlines()[:2]
    column = [c.strip() for c in header.split(",")].index("serial")
    cells = row.split(",")
    cells[column] = " " + SERIAL
    return header + "\n" + ",".join(cells) + "\n"


@pytest.fixture
def xml_text() -> str:
    text = reference_file("nvidia-smi", "04-linux-4x-a100-sxm4-535.54.03.q-x.xml").read_text(encoding="utf-8")
    assert XML_SERIAL in text and XML_BOARD_PART in text
    return text


def _leaks(text: str) -> list[str]:
    return [s for s in SECRETS if s in text]


# --- the text redactor on each format ------------------------------------------------------------


def test_q_log_hides_serial_and_pdi_and_keeps_the_rest(q_text):
    out = redact_board_ids(q_text)
    assert not _leaks(out)
    assert re.search(r"Serial Number\s*: <hidden>", out) and re.search(r"GPU PDI\s*: <hidden>", out)
    # N/A says nothing: kept; the chip's part number is the same on every 2080 SUPER: kept
    assert re.search(r"Board Part Number\s*: N/A", out) and "1E81-450-A1" in out
    assert out.count("\n") == q_text.count("\n")


def test_xml_hides_serial_and_board_part_number(xml_text):
    out = redact_board_ids(xml_text)
    assert not _leaks(out)
    assert f"<serial>{HIDDEN}</serial>" in out and f"<board_part_number>{HIDDEN}</board_part_number>" in out
    assert "<gpu_part_number>20B2-895-A1</gpu_part_number>" in out


def test_csv_serial_column_is_hidden_by_header(csv_text):
    out = redact_board_ids(csv_text)
    assert not _leaks(out)
    header, row = out.splitlines()[:2]
    cells = [c.strip() for c in row.split(",")]
    names = [c.strip() for c in header.split(",")]
    assert cells[names.index("serial")] == HIDDEN
    assert cells[names.index("name")] == "NVIDIA GeForce RTX 2080 SUPER"
    assert cells[names.index("clocks_event_reasons_counters.sw_power_cap [us]")].endswith(" us")


def test_headerless_csv_row_hides_a_serial_shaped_cell():
    row = f"0, NVIDIA A100-SXM4-80GB, GPU-<hidden>, 00000000:07:00.0, 535.54.03, 8.0, 81920, {SERIAL}\n"
    assert SERIAL not in redact_board_ids(row) and "81920" in redact_board_ids(row)


def test_structured_board_fields_are_hidden_by_name():
    doc = {"gpus": [{"serial": SERIAL, "board_part_number": XML_BOARD_PART, "gpu_pdi": PDI, "name": "A100"}],
           "raw_smi_output": f"    Serial Number : {SERIAL}\n"}
    out = Redactor().redact(doc)
    assert not _leaks(json.dumps(out)) and out["gpus"][0]["name"] == "A100"


# --- what a student hands in -------------------------------------------------------------------------


@pytest.mark.parametrize("fixture", ["q_text", "xml_text", "csv_text"])
def test_doctor_json_from_a_saved_output_leaks_nothing(fixture, request, tmp_path):
    path = tmp_path / "smi.txt"
    path.write_text(request.getfixturevalue(fixture), encoding="utf-8")
    out = run_cli("doctor", "--nvidia-smi-file", str(path), "--json", data_dir=tmp_path / "data")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["nvidia"]["raw_smi_output"] and doc["nvidia"]["gpus"]
    assert not _leaks(out.stdout), _leaks(out.stdout)


def test_doctor_include_private_keeps_them(xml_text, tmp_path):
    path = tmp_path / "smi.xml"
    path.write_text(xml_text, encoding="utf-8")
    out = run_cli("doctor", "--nvidia-smi-file", str(path), "--json", "--include-private", data_dir=tmp_path / "data")
    assert out.returncode == 0, out.stderr
    assert XML_SERIAL in out.stdout


@pytest.mark.parametrize("fmt", ["md", "html", "json"])
def test_report_with_remote_outputs_leaks_nothing(fmt, q_text, xml_text, csv_text, tmp_path):
    files = []
    for name, text in (("q.txt", q_text), ("x.xml", xml_text), ("c.csv", csv_text)):
        (tmp_path / name).write_text(text, encoding="utf-8")
        files += ["--add-remote", "cloud:" + str(tmp_path / name)]
    out = run_cli("report", "--format", fmt, *files, data_dir=tmp_path / "data")
    assert out.returncode == 0, out.stderr
    assert "A100-SXM4-80GB" in out.stdout  # the appendices are there...
    assert not _leaks(out.stdout), _leaks(out.stdout)  # ...without the board ids
