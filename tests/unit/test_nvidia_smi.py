"""nvidia-smi parsers: real captured outputs, hand-written failure texts, pasted variants.

The real outputs are read from ../shared/reference/nvidia-smi (byte-exact captures with a
README that lists their sha256); those tests skip when the folder is absent. The tables
and failure texts written below follow the exact layout and wording nvidia-smi prints
(table layouts of drivers 418, 470 and 550+; messages from failure-modes.json).
"""

from __future__ import annotations

import hashlib
import re

import pytest

from tests.nvidia_smi_texts import (
    CAPTURE_01,
    COLAB_T4,
    FAILURES,
    FIXTURES,
    MIG_A100_470,
    OLD_418_T4,
    Q_TWO_GPUS,
    TWO_GPU_470,
    V13_XML,
    WSL2_4070,
    XML_04,
    XML_07,
    fixture_text,
    section,
)
from wizard.core.machine import nvidia_smi as smi
from wizard.core.machine.models import (
    STATUS_DRIVER_NOT_LOADED,
    STATUS_ERROR,
    STATUS_GPU_LOST,
    STATUS_NO_DEVICES,
    STATUS_NO_DRIVER,
    STATUS_NO_PERMISSION,
    STATUS_OK,
    STATUS_UNRECOGNISED,
    STATUS_VERSION_MISMATCH,
    SourceResult,
)
from wizard.core.machine.nvidia_smi.values import (
    cuda_version_from_int,
    name_is_truncated,
    normalise_bus_id,
    normalise_cc,
    parse_float,
    parse_mib,
)

# ---------------------------------------------------------------------------------------
# Real fixtures
# ---------------------------------------------------------------------------------------

def test_fixtures_are_byte_exact():
    readme = fixture_text("README.md")
    rows = re.findall(r"^\| (\S+\.(?:txt|xml)) \|.*?\| ([0-9a-f]{64}) \| (\d+) \|$", readme, re.MULTILINE)
    assert rows, "README lists no fixtures"
    for name, sha256, size in rows:
        path = FIXTURES / name
        if path.is_file():
            data = path.read_bytes()
            assert len(data) == int(size), name
            assert hashlib.sha256(data).hexdigest() == sha256, name


def test_capture_01_sections_agree():
    texts = {fmt: section(("idle", title)) for fmt, title in (
        ("table", "nvidia-smi (default table)"), ("q", "query (-q)"),
        ("csv", "query-gpu (csv, what the exporter parses)"))}
    assert {fmt: smi.detect_format(text) for fmt, text in texts.items()} == {f: f for f in texts}
    table, q, csv = smi.parse_table(texts["table"]), smi.parse_q_text(texts["q"]), smi.parse_csv(texts["csv"])
    for result, source in ((table, "nvidia-smi table"), (q, "nvidia-smi -q"), (csv, "nvidia-smi csv")):
        assert result.status == STATUS_OK and result.source == source
        assert result.driver_version == "591.86"
        assert len(result.gpus) == 1
        gpu = result.gpus[0]
        assert gpu.index == 0
        assert gpu.memory_total_mib == 8192
        assert gpu.memory_used_mib == 702
        assert gpu.driver_model == "WDDM"
        assert gpu.pci_bus_id == "00000000:0C:00.0"
        assert gpu.sources["memory_total_mib"] == source
    assert table.cuda_version == q.cuda_version == "13.1"
    assert csv.cuda_version is None  # --query-gpu has no CUDA field
    assert table.smi_version == "591.86"
    assert q.gpus[0].name == csv.gpus[0].name == "NVIDIA GeForce RTX 2080 SUPER"
    short = table.gpus[0].name
    assert short == "NVIDIA GeForce RTX 2080 ..." and name_is_truncated(short)
    assert "truncated" in table.detail
    assert q.gpus[0].name.startswith(short.removesuffix("..."))
    assert csv.gpus[0].compute_capability == "7.5"
    assert csv.gpus[0].sources["compute_capability"] == "nvidia-smi csv"
    assert table.gpus[0].compute_capability is None and q.gpus[0].compute_capability is None
    assert q.gpus[0].memory_reserved_mib == csv.gpus[0].memory_reserved_mib == 205
    assert q.gpus[0].power_draw_w == csv.gpus[0].power_draw_w == 38.92
    assert q.gpus[0].architecture == "Turing"
    assert q.gpus[0].mig_mode is None and csv.gpus[0].mig_mode is None  # N/A on GeForce
    assert q.gpus[0].serial is None and csv.gpus[0].serial is None  # [N/A]


def test_capture_01_processes_on_wddm_have_no_memory():
    table = smi.parse_table(section(("load", "nvidia-smi (default table)")))
    q = smi.parse_q_text(section(("idle", "query (-q)")))
    procs = table.gpus[0].processes
    assert len(procs) == 12
    assert all(p.used_memory_mib is None for p in procs)
    assert [p.kind for p in procs].count("C") == 2
    assert procs[0].pid == 2056 and procs[0].name == r"C:\Windows\System32\dwm.exe" and procs[0].kind == "C+G"
    assert procs[-1].name.endswith("ffmpeg.exe")
    q_procs = q.gpus[0].processes
    assert len(q_procs) == 10 and all(p.used_memory_mib is None for p in q_procs)
    assert q_procs[1].name == r"C:\Program Files\NVIDIA Corporation\NVIDIA GeForce Experience\NVIDIA Share.exe"
    assert table.gpus[0].power_draw_w == 97 and table.gpus[0].utilization_gpu_percent == 7


def test_capture_01_whole_file_merges_richest_first():
    text = fixture_text(CAPTURE_01)
    assert smi.detect_format(text) == "q"
    assert smi.classify_failure(text) is None
    result = smi.parse_any(text)
    assert result.status == STATUS_OK and result.source == "nvidia-smi -q"
    assert (result.driver_version, result.cuda_version) == ("591.86", "13.1")
    assert (result.smi_version, result.nvml_version) == ("591.86", "591.86")
    assert len(result.gpus) == 1
    gpu = result.gpus[0]
    assert gpu.name == "NVIDIA GeForce RTX 2080 SUPER"
    assert gpu.sources["name"] == "nvidia-smi -q"
    assert gpu.compute_capability == "7.5" and gpu.sources["compute_capability"] == "nvidia-smi csv"
    assert "merged from" in result.detail


def test_xml_04_a100_mig():
    text = fixture_text(XML_04)
    assert smi.detect_format(text) == "xml"
    result = smi.parse_xml(text)
    assert result.status == STATUS_OK and result.source == "nvidia-smi xml"
    assert (result.driver_version, result.cuda_version) == ("535.54.03", "12.2")
    # The file says <attached_gpus>4</attached_gpus> but keeps one <gpu> element.
    assert len(result.gpus) == text.count("<gpu id=") == 1
    assert "attached_gpus says 4" in result.detail
    gpu = result.gpus[0]
    assert gpu.name == "NVIDIA A100-SXM4-80GB"
    assert gpu.pci_bus_id == "00000000:01:00.0"
    assert gpu.architecture == "Ampere"
    assert gpu.memory_total_mib == 81920 and gpu.memory_reserved_mib == 869
    assert gpu.compute_capability is None  # v12 XML does not carry it
    assert gpu.mig_mode == "Enabled"
    assert len(gpu.mig_devices) == text.count("<mig_device>") == 4
    assert [d.gpu_instance_id for d in gpu.mig_devices] == [3, 4, 5, 6]
    assert all(d.memory_total_mib == 19968 and d.memory_used_mib == 12 for d in gpu.mig_devices)
    assert gpu.power_draw_w == 67.03 and gpu.power_limit_w == 500
    assert gpu.utilization_gpu_percent is None  # N/A under MIG
    assert gpu.driver_model is None  # N/A on Linux
    assert gpu.serial == "1650522003820"
    assert gpu.sources["mig_devices"] == "nvidia-smi xml"
    assert smi.parse_any(text).gpus[0].mig_devices == gpu.mig_devices


def test_xml_07_old_driver_graphics_device():
    text = fixture_text(XML_07)
    result = smi.parse_any(text)
    assert result.status == STATUS_OK and result.source == "nvidia-smi xml"
    assert (result.driver_version, result.cuda_version) == ("418.43", "10.1")
    assert len(result.gpus) == 1
    gpu = result.gpus[0]
    assert gpu.name == "Graphics Device"
    assert gpu.memory_total_mib == 5912 and gpu.memory_reserved_mib is None
    assert gpu.power_draw_w == 8.93 and gpu.power_limit_w == 130  # <power_readings> in old DTDs
    assert gpu.pcie_gen_current == 1 and gpu.pcie_gen_max == 3
    assert gpu.architecture is None and gpu.compute_capability is None
    assert gpu.mig_mode is None and gpu.mig_devices == []


def test_xml_truncated_is_unrecognised_not_a_crash():
    text = fixture_text(XML_04)
    cut = text[: len(text) // 2]
    result = smi.parse_xml(cut)
    assert result.status == STATUS_UNRECOGNISED and "malformed" in result.detail
    assert smi.parse_any(cut).status == STATUS_UNRECOGNISED


# ---------------------------------------------------------------------------------------
# XML safety and newer schemas
# ---------------------------------------------------------------------------------------

XXE = """<?xml version="1.0"?>
<!DOCTYPE nvidia_smi_log [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<nvidia_smi_log><driver_version>&xxe;</driver_version></nvidia_smi_log>"""
LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE nvidia_smi_log [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;">]>
<nvidia_smi_log><driver_version>&lol2;</driver_version></nvidia_smi_log>"""


@pytest.mark.parametrize("text", [XXE, LAUGHS], ids=["xxe", "billion-laughs"])
def test_xml_with_entities_is_refused(text):
    result = smi.parse_xml(text)
    assert result.status == STATUS_UNRECOGNISED and "entities" in result.detail
    assert result.driver_version is None
    assert smi.parse_any(text).status == STATUS_UNRECOGNISED


def test_xml_v13_power_names_compute_capability_and_processes():
    result = smi.parse_xml("$ nvidia-smi -q -x\r\n" + V13_XML.replace("\n", "\r\n"))
    assert result.status == STATUS_OK and result.detail is None
    gpu = result.gpus[0]
    assert gpu.power_draw_w == 3.99  # instant, not the average
    assert gpu.power_limit_w == 300
    assert gpu.compute_capability == "12.0"
    assert gpu.mig_devices == []
    assert [(p.pid, p.kind, p.name, p.used_memory_mib) for p in gpu.processes] == [(4242, "C", "python", 65000)]


# ---------------------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------------------

def _check_colab(result: SourceResult) -> None:
    assert result.status == STATUS_OK and result.source == "nvidia-smi table"
    assert (result.smi_version, result.driver_version, result.cuda_version) == ("550.54.15", "550.54.15", "12.4")
    assert len(result.gpus) == 1
    gpu = result.gpus[0]
    assert (gpu.index, gpu.name, gpu.pci_bus_id) == (0, "Tesla T4", "00000000:00:04.0")
    assert (gpu.memory_used_mib, gpu.memory_total_mib) == (0, 15360)
    assert (gpu.fan_percent, gpu.temperature_c, gpu.pstate) == (None, 36, "P8")
    assert (gpu.power_draw_w, gpu.power_limit_w, gpu.utilization_gpu_percent) == (9, 70, 0)
    assert gpu.driver_model is None  # Persistence-M column on Linux
    assert gpu.mig_mode is None and gpu.processes == []
    assert not name_is_truncated(gpu.name)


PASTED_VARIANTS = {
    "plain": COLAB_T4,
    "crlf": COLAB_T4.replace("\n", "\r\n"),
    "bom": "\ufeff" + COLAB_T4,
    "fence": "```\n" + COLAB_T4 + "```\n",
    "fence-lang-crlf": "```text\r\n" + COLAB_T4.replace("\n", "\r\n") + "```",
    "prompt": "$ nvidia-smi\n" + COLAB_T4,
    "colab-cell": "!nvidia-smi\n" + COLAB_T4,
    "trailing-stripped": "\n".join(line.rstrip() for line in COLAB_T4.split("\n")),
    "tabs-and-trailing": COLAB_T4.replace("|   0  Tesla T4", "|\t0  Tesla T4").replace("|\n", "|   \n"),
    "embedded": "코랩에서 실행한 결과입니다:\n\n" + COLAB_T4 + "\nGPU가 잡히는데 torch에서는 안 보여요.\n",
    "markdown-indented": "\n".join("    " + line for line in COLAB_T4.split("\n")),
    "quoted": "\n".join("> " + line for line in COLAB_T4.split("\n")),
}


@pytest.mark.parametrize("name", PASTED_VARIANTS)
def test_colab_t4_table_pasted_variants(name):
    text = PASTED_VARIANTS[name]
    assert smi.detect_format(text) == "table"
    _check_colab(smi.parse_table(text))
    _check_colab(smi.parse_any(text))


def test_wsl2_table_keeps_smi_and_driver_versions_apart():
    result = smi.parse_any(WSL2_4070)
    assert (result.smi_version, result.driver_version, result.cuda_version) == ("565.77.01", "566.36", "12.7")
    gpu = result.gpus[0]
    assert gpu.name == "NVIDIA GeForce RTX 4070 ..." and name_is_truncated(gpu.name)
    assert "truncated" in result.detail
    assert (gpu.memory_used_mib, gpu.memory_total_mib, gpu.display_active) == (790, 8188, "Enabled")
    assert [(p.pid, p.kind, p.name, p.used_memory_mib) for p in gpu.processes] == [(33, "G", "/Xwayland", None)]


def test_two_gpu_table():
    result = smi.parse_table(TWO_GPU_470)
    assert result.status == STATUS_OK
    assert (result.driver_version, result.cuda_version) == ("470.182.03", "11.4")
    assert [g.index for g in result.gpus] == [0, 1]
    assert [g.pci_bus_id for g in result.gpus] == ["00000000:01:00.0", "00000000:21:00.0"]
    assert [g.memory_used_mib for g in result.gpus] == [10240, 22011]
    assert [g.memory_total_mib for g in result.gpus] == [24268, 24268]
    assert [g.utilization_gpu_percent for g in result.gpus] == [35, 98]
    assert [g.temperature_c for g in result.gpus] == [45, 71]
    assert [g.fan_percent for g in result.gpus] == [30, 65]
    assert [g.display_active for g in result.gpus] == ["Enabled", "Disabled"]
    assert [(p.pid, p.used_memory_mib) for p in result.gpus[0].processes] == [(1432, 35), (20871, 10201)]
    assert [(p.pid, p.kind, p.name) for p in result.gpus[1].processes] == [(20872, "C", "python")]


def test_old_418_table_without_mig_line():
    result = smi.parse_any(OLD_418_T4)
    assert (result.driver_version, result.cuda_version) == ("418.67", "10.1")
    gpu = result.gpus[0]
    assert (gpu.name, gpu.memory_used_mib, gpu.memory_total_mib, gpu.power_draw_w) == ("Tesla T4", 887, 15079, 29)
    assert gpu.mig_mode is None
    assert [(p.pid, p.kind, p.name, p.used_memory_mib) for p in gpu.processes] == [(2307, "C", "/usr/bin/python3", 877)]


def test_table_without_cuda_version_and_collapsed_spaces():
    text = ("| NVIDIA-SMI 375.26 Driver Version: 375.26 |\n"
            "| 0 GeForce 840M Off | 0000:03:00.0 Off | N/A |\n"
            "| N/A 47C P0 N/A / N/A | 242MiB / 2002MiB | 24% Default |\n")
    result = smi.parse_table(text)
    assert (result.driver_version, result.cuda_version) == ("375.26", None)
    gpu = result.gpus[0]
    assert (gpu.name, gpu.pci_bus_id, gpu.memory_total_mib) == ("GeForce 840M", "00000000:03:00.0", 2002)
    assert gpu.power_draw_w is None and gpu.power_limit_w is None and gpu.temperature_c == 47


def test_mig_table():
    result = smi.parse_table(MIG_A100_470)
    gpu = result.gpus[0]
    assert gpu.mig_mode == "Enabled" and gpu.utilization_gpu_percent is None
    assert [(d.index, d.gpu_instance_id, d.compute_instance_id) for d in gpu.mig_devices] == [(0, 1, 0), (1, 2, 0)]
    assert all((d.memory_used_mib, d.memory_total_mib) == (10, 20096) for d in gpu.mig_devices)


def test_table_rows_without_header_still_read():
    rows = "\n".join(COLAB_T4.split("\n")[8:11])
    result = smi.parse_table(rows)
    assert result.status == STATUS_OK and result.driver_version is None
    assert result.gpus[0].memory_total_mib == 15360
    assert "header" in result.detail


# ---------------------------------------------------------------------------------------
# -q text
# ---------------------------------------------------------------------------------------

def test_q_text_two_gpus():
    result = smi.parse_q_text(Q_TWO_GPUS)
    assert result.status == STATUS_OK and result.detail is None
    assert (result.driver_version, result.cuda_version) == ("570.86.15", "12.8")
    first, second = result.gpus
    assert (first.index, first.pci_bus_id, second.pci_bus_id) == (0, "00000000:01:00.0", "00000000:02:00.0")
    assert first.uuid == "GPU-1b2c3d4e-0000-1111-2222-333344445555"
    assert (first.pcie_gen_max, first.pcie_gen_current, first.pcie_width_max, first.pcie_width_current) == (4, 1, 16, 8)
    assert (first.memory_total_mib, first.memory_reserved_mib, first.memory_used_mib) == (24576, 310, 1234)
    assert (first.temperature_c, first.power_draw_w, first.power_limit_w) == (48, 31.57, 350)
    assert [(p.pid, p.kind, p.name, p.used_memory_mib) for p in first.processes] == [
        (1607, "G", "/usr/lib/xorg/Xorg", 245), (5347, "C", None, 988)]
    assert (second.power_draw_w, second.power_limit_w, second.processes) == (None, 350, [])
    assert second.memory_reserved_mib is None
    # A process "named" Insufficient Permissions is a value, not a failure.
    assert smi.classify_failure(Q_TWO_GPUS) is None
    assert smi.parse_any(Q_TWO_GPUS).status == STATUS_OK


def test_q_text_indented_paste():
    indented = "Here is my output:\n\n" + "\n".join("    " + line for line in Q_TWO_GPUS.split("\n"))
    result = smi.parse_q_text(indented)
    assert [g.pci_bus_id for g in result.gpus] == ["00000000:01:00.0", "00000000:02:00.0"]
    assert result.gpus[0].memory_total_mib == 24576


def test_q_text_mig_devices():
    text = Q_TWO_GPUS.replace(
        "    Driver Model\n",
        "    MIG devices\n"
        "        MIG Device\n"
        "            Index                         : 0\n"
        "            GPU Instance ID               : 1\n"
        "            Compute Instance ID           : 0\n"
        "            FB Memory Usage\n"
        "                Total                     : 9984 MiB\n"
        "                Used                      : 6 MiB\n"
        "        MIG Device\n"
        "            Index                         : 1\n"
        "            GPU Instance ID               : 2\n"
        "            Compute Instance ID           : 0\n"
        "            FB Memory Usage\n"
        "                Total                     : 9984 MiB\n"
        "                Used                      : 0 MiB\n"
        "    Driver Model\n", 1)
    devices = smi.parse_q_text(text).gpus[0].mig_devices
    assert [(d.index, d.gpu_instance_id, d.memory_total_mib, d.memory_used_mib) for d in devices] == [
        (0, 1, 9984, 6), (1, 2, 9984, 0)]


# ---------------------------------------------------------------------------------------
# CSV
# ---------------------------------------------------------------------------------------

ROW_3060 = ("0, NVIDIA GeForce RTX 3060, GPU-0a1b2c3d-1111-2222-3333-444455556666, 00000000:01:00.0, 560.94, "
            "8.6, 12288, 1024, 11000, 264, 41, 17.25, 170.00, 3, 10, 210, 210, 2100, 405, P8, 1, 4, 16, 16, "
            "WDDM, [N/A], 0, Enabled, 94.06.2f.00.9a, [N/A]")


def test_csv_no_header_no_units():
    assert len(smi._split_csv(ROW_3060)) == len(smi.QUERY_FIELDS)
    result = smi.parse_csv(ROW_3060 + "\n", smi.QUERY_FIELDS)
    assert result.status == STATUS_OK and result.driver_version == "560.94"
    gpu = result.gpus[0]
    assert (gpu.name, gpu.compute_capability, gpu.memory_total_mib, gpu.memory_reserved_mib) == (
        "NVIDIA GeForce RTX 3060", "8.6", 12288, 264)
    assert (gpu.power_draw_w, gpu.power_limit_w, gpu.clock_sm_max_mhz, gpu.pstate) == (17.25, 170, 2100, "P8")
    assert (gpu.pcie_gen_current, gpu.pcie_gen_max, gpu.driver_model) == (1, 4, "WDDM")
    assert gpu.mig_mode is None and gpu.serial is None and gpu.fan_percent == 0
    assert set(gpu.sources.values()) == {"nvidia-smi csv"}
    assert "mig_mode" not in gpu.sources and "serial" not in gpu.sources
    # parse_any recognises its own query's output by its width.
    assert smi.detect_format(ROW_3060) == "csv"
    assert smi.parse_any(ROW_3060).gpus[0].compute_capability == "8.6"


def test_csv_fallback_fields_for_old_drivers():
    assert "compute_cap" not in smi.FALLBACK_FIELDS and "memory.reserved" not in smi.FALLBACK_FIELDS
    cells = smi._split_csv(ROW_3060)
    row = ", ".join(c for c, f in zip(cells, smi.QUERY_FIELDS) if f in smi.FALLBACK_FIELDS)
    gpu = smi.parse_any(row).gpus[0]
    assert gpu.compute_capability is None and gpu.memory_total_mib == 12288 and gpu.memory_reserved_mib is None


def test_csv_two_gpus_with_header_and_units():
    text = ("index, name, memory.total [MiB], memory.used [MiB], compute_cap, power.draw [W]\n"
            "0, NVIDIA H100 80GB HBM3, 81559 MiB, 0 MiB, 9.0, 70.12 W\n"
            "1, NVIDIA H100 80GB HBM3, 81559 MiB, 40000 MiB, 9.0, [Not Supported]\n")
    result = smi.parse_csv(text)
    assert [g.memory_used_mib for g in result.gpus] == [0, 40000]
    assert [g.power_draw_w for g in result.gpus] == [70.12, None]
    assert [g.compute_capability for g in result.gpus] == ["9.0", "9.0"]
    assert smi.detect_format(text) == "csv"


def test_csv_without_header_or_fields_is_unrecognised():
    assert smi.parse_csv("0, Tesla T4, 15360\n").status == STATUS_UNRECOGNISED


def test_query_argv():
    argv = smi.query_argv("nvidia-smi")
    assert argv[0] == "nvidia-smi" and argv[2] == "--format=csv,noheader,nounits"
    assert argv[1] == "--query-gpu=" + ",".join(smi.QUERY_FIELDS)
    for field in ("index", "compute_cap", "memory.reserved", "pcie.link.width.max", "driver_model.current",
                  "mig.mode.current", "clocks.max.sm", "serial"):
        assert field in smi.QUERY_FIELDS
    assert smi.query_argv("x", smi.FALLBACK_FIELDS)[1].count(",") == len(smi.FALLBACK_FIELDS) - 1


# ---------------------------------------------------------------------------------------
# Failures
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", FAILURES)
def test_failure_outputs(name):
    text, returncode, status, raw = FAILURES[name]
    for rc in (returncode, None):
        result = smi.classify_failure(text, rc)
        assert result is not None and result.status == status
        assert result.raw_error == raw
    assert smi.detect_format(text) == "failure"
    result = smi.parse_any("$ nvidia-smi\n" + text)
    assert result.status == status and result.raw_error == raw
    assert smi.parse_table(text).status == status  # a parser handed an error reports it


def test_failure_statuses_are_all_covered():
    assert {v[2] for v in FAILURES.values()} == {
        STATUS_DRIVER_NOT_LOADED, STATUS_VERSION_MISMATCH, STATUS_NO_PERMISSION, STATUS_GPU_LOST,
        STATUS_NO_DEVICES, STATUS_NO_DRIVER, STATUS_ERROR}


def test_failure_by_return_code_only():
    assert smi.classify_failure("", 18).status == STATUS_VERSION_MISMATCH
    assert smi.classify_failure("", 9).status == STATUS_DRIVER_NOT_LOADED
    odd = smi.classify_failure("something unexpected\n", 255)
    assert odd.status == STATUS_ERROR and odd.raw_error == "something unexpected"
    assert smi.classify_failure("", 0) is None
    assert smi.classify_failure(COLAB_T4, 0) is None
    assert smi.classify_failure(COLAB_T4) is None


def test_gpu_lost_line_with_a_table_keeps_the_gpus():
    text = "Unable to determine the device handle for GPU 0000:02:00.0: GPU is lost.\n" + COLAB_T4
    result = smi.parse_any(text)
    assert result.status == STATUS_GPU_LOST
    assert result.raw_error.startswith("Unable to determine the device handle")
    assert result.gpus[0].name == "Tesla T4"


def test_rejected_query_field():
    out = 'Field "compute_cap" is not a valid field to query.\n\n'
    assert smi.rejected_query_field(out) == "compute_cap"
    assert smi.classify_failure(out, 2).status == STATUS_ERROR
    assert smi.rejected_query_field(COLAB_T4) is None


@pytest.mark.parametrize("text", ["", "   \n", "hello world", "```\n```", "Driver Version: 1.2 CUDA"])
def test_unrecognised(text):
    assert smi.detect_format(text) == "unrecognised"
    result = smi.parse_any(text)
    assert result.status == STATUS_UNRECOGNISED and result.source == "unknown" and result.detail


# ---------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("value, expected", [
    ("8192 MiB", 8192), ("702MiB", 702), ("8192", 8192), ("8 GiB", 8192), ("[N/A]", None), ("N/A", None),
    ("Not available in WDDM driver model", None), ("", None), (None, None), ("lots", None),
])
def test_parse_mib(value, expected):
    assert parse_mib(value) == expected


@pytest.mark.parametrize("value, expected", [
    ("38.92 W", 38.92), ("37 %", 37), ("40C", 40), ("16x", 16), ("[Not Supported]", None),
    ("[Requested functionality has been deprecated]", None), ("ERR!", None), ("P8", None), ("9" * 400, None),
])
def test_parse_float(value, expected):
    assert parse_float(value) == expected


@pytest.mark.parametrize("value, expected", [
    ("8.6", "8.6"), (" 7.5 ", "7.5"), ("sm_120", "12.0"), ("86", "8.6"), ((9, 0), "9.0"), ("12.0", "12.0"),
    ("[N/A]", None), ("8", None), ("8.6.1", None), ("abc", None), ("0.0", None),
])
def test_normalise_cc(value, expected):
    assert normalise_cc(value) == expected


@pytest.mark.parametrize("value, expected", [
    (12080, "12.8"), (11040, "11.4"), (10010, "10.1"), (13010, "13.1"), (12000, "12.0"), ("12040", "12.4"),
    (0, None), (-1, None), (None, None), (True, None), (12080.5, None),
])
def test_cuda_version_from_int(value, expected):
    assert cuda_version_from_int(value) == expected


def test_normalise_bus_id():
    assert normalise_bus_id("0000:03:00.0") == "00000000:03:00.0"
    assert normalise_bus_id("00000000:0c:00.0") == "00000000:0C:00.0"
    assert normalise_bus_id("N/A") is None and normalise_bus_id("GPU-1") is None


def test_jetson_table_has_its_gpu_row_without_a_pci_bus():
    """A Jetson's integrated GPU has no PCI bus id: its row reads "N/A  N/A" where a card's bus and
    display are. Before, the row was skipped and a Jetson's table showed no GPU at all."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "data" / "jetson" / "orin_nano_jp62_nvidia_smi.txt").read_text(
        encoding="utf-8")
    result = smi.parse_table(text)
    assert (result.driver_version, result.cuda_version) == ("540.4.0", "12.6")
    assert [(g.index, g.name, g.pci_bus_id) for g in result.gpus] == [(0, "Orin (nvgpu)", None)]
    assert "no GPU rows" not in (result.detail or "")
