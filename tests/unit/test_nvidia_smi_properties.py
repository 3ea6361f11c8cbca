"""Property tests: nvidia-smi parsers take any text a student can paste without raising.

Each parser must return a SourceResult for every ``str``; random text is "unrecognised";
a real table with lines deleted, duplicated or cut off still parses, and whatever survives
of it is read correctly (never a value invented from a damaged line).
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.nvidia_smi_texts import (
    CAPTURE_01,
    COLAB_T4,
    FIXTURES,
    Q_TWO_GPUS,
    TWO_GPU_470,
    V13_XML,
    WSL2_4070,
    capture_sections,
)
from wizard.core.machine import nvidia_smi as smi
from wizard.core.machine.models import STATUS_UNRECOGNISED, SourceResult

PARSERS = (smi.parse_any, smi.parse_table, smi.parse_q_text, smi.parse_xml, smi.parse_csv,
           lambda text: smi.parse_csv(text, smi.QUERY_FIELDS))
FORMATS = {"xml", "csv", "q", "table", "failure", "unrecognised"}
STATUSES = {"ok", "no-driver", "driver-not-loaded", "version-mismatch", "no-permission", "gpu-lost",
            "timeout", "no-devices", "error", "unrecognised"}
PROFILE = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Text built from the pieces nvidia-smi output is made of, so that the strategies reach
# deep into the parsers instead of failing at the first regular expression.
TOKENS = st.sampled_from([
    "|", "+", "-", "=", " ", "  ", "\n", "\r\n", "\t", ":", " : ", ",", "/", "%", "C", "W", "MiB", "N/A",
    "[N/A]", "NVIDIA-SMI 550.54.15", "Driver Version:", "CUDA Version:", "12.4", "0", "1", "99999999999",
    "00000000:01:00.0", "Off", "On", "WDDM", "P8", "Default", "Enabled", "Processes:", "MIG devices:",
    "GPU", "N/A  N/A", "C+G", "python", "...", "==============NVSMI LOG==============", "Product Name",
    "FB Memory Usage", "    ", "Total", "Process ID", "<nvidia_smi_log>", "</nvidia_smi_log>", "<gpu id=\"",
    "\">", "<fb_memory_usage><total>", "</total>", "index, name, memory.total [MiB]", "\ufeff", "```",
    "Failed to initialize NVML: ", "GPU is lost", "No devices were found", "<!DOCTYPE", "&amp;", "<",
])
NVIDIA_ISH = st.lists(TOKENS, max_size=80).map("".join)
ANY_TEXT = st.one_of(st.text(), NVIDIA_ISH)


def _valid(result: object) -> None:
    assert isinstance(result, SourceResult)
    assert result.status in STATUSES
    for gpu in result.gpus:
        assert isinstance(gpu.index, int)
        assert all(isinstance(v, str) for v in gpu.sources.values())


@PROFILE
@given(ANY_TEXT)
def test_no_text_crashes_any_parser(text):
    for parse in PARSERS:
        _valid(parse(text))
    assert smi.detect_format(text) in FORMATS
    failure = smi.classify_failure(text, 1)
    assert failure is not None and failure.status in STATUSES


@PROFILE
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=400))
def test_random_text_is_unrecognised(text):
    # Plain random text carries none of nvidia-smi's markers.
    if re.search(r"NVIDIA|NVSMI|nvidia|\||<|Product|devices|NVML|Insufficient|GPU|Field", text):
        return
    assert smi.detect_format(text) == "unrecognised"
    result = smi.parse_any(text)
    assert result.status == STATUS_UNRECOGNISED and result.source == "unknown" and result.detail


def _mutations(text: str):
    lines = text.split("\n")
    index = st.integers(min_value=0, max_value=len(lines) - 1)
    delete = st.lists(index, max_size=6).map(lambda drop: [l for i, l in enumerate(lines) if i not in set(drop)])
    duplicate = st.lists(index, max_size=6).map(
        lambda dup: [x for i, l in enumerate(lines) for x in ([l, l] if i in set(dup) else [l])])
    return st.one_of(delete, duplicate).map("\n".join)


REAL_OUTPUTS = [COLAB_T4, WSL2_4070, TWO_GPU_470, Q_TWO_GPUS, V13_XML]


@PROFILE
@given(st.sampled_from(REAL_OUTPUTS).flatmap(_mutations))
def test_deleted_or_duplicated_lines_never_crash(text):
    for parse in PARSERS:
        _valid(parse(text))


@PROFILE
@given(st.sampled_from(REAL_OUTPUTS).flatmap(lambda t: st.integers(0, len(t)).map(lambda n: t[:n])))
def test_truncated_outputs_never_crash(text):
    for parse in PARSERS:
        _valid(parse(text))


@PROFILE
@given(st.integers(0, len(COLAB_T4)))
def test_truncated_table_reads_what_survives(cut):
    text = COLAB_T4[:cut]
    result = smi.parse_any(text)
    _valid(result)
    header = "| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |"
    if header in text:
        assert (result.driver_version, result.cuda_version) == ("550.54.15", "12.4")
    memory_line = "| N/A   36C    P8              9W /   70W |       0MiB /  15360MiB |      0%      Default |"
    if memory_line in text:
        assert result.gpus[0].memory_total_mib == 15360
    for gpu in result.gpus:
        assert gpu.memory_total_mib in (None, 15360)
        assert gpu.name in (None, "Tesla T4")


@PROFILE
@given(_mutations(TWO_GPU_470))
def test_mutated_two_gpu_table_values_come_from_real_rows(text):
    result = smi.parse_table(text)
    _valid(result)
    assert len(result.gpus) <= 2
    for gpu in result.gpus:
        assert gpu.index in (0, 1)
        assert gpu.memory_total_mib in (None, 24268)
        assert gpu.memory_used_mib in (None, 10240, 22011)
        assert all(p.pid in (1432, 20871, 20872) for p in gpu.processes)


def _real_table() -> str:
    path = FIXTURES / CAPTURE_01
    if not path.is_file():
        return ""
    return capture_sections(path.read_text(encoding="utf-8"))[("load", "nvidia-smi (default table)")]


REAL_TABLE = _real_table()
needs_capture = pytest.mark.skipif(not REAL_TABLE, reason="reference capture 01 not available")


@needs_capture
@PROFILE
@given(st.one_of(_mutations(REAL_TABLE or "x"),
                 st.integers(0, len(REAL_TABLE)).map(lambda n: REAL_TABLE[:n])))
def test_mutated_real_table_never_crashes_nor_invents(text):
    for parse in PARSERS:
        _valid(parse(text))
    result = smi.parse_table(text)
    for gpu in result.gpus:
        assert gpu.index == 0
        assert gpu.memory_total_mib in (None, 8192) and gpu.memory_used_mib in (None, 1296)
        assert gpu.driver_model in (None, "WDDM")
        assert len(gpu.processes) <= 2 * 12
    if "Driver Version: 591.86" in text:
        assert result.driver_version == "591.86"
