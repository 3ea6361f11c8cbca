"""The command line runs against an injected environment: its own streams, variables, folder and
machine (a recorded host), and the process's are as they were afterwards (what tests/cli_runner.py builds on)."""

from __future__ import annotations

import io
import os
import sys

from tests import scenarios
from tests.cli_runner import run_cli
from wizard.__main__ import main
from wizard.cli.environment import Environment, current_host
from wizard.core.base.host import RealHost


def test_a_command_writes_to_the_streams_it_is_given_and_reads_its_variables(tmp_path):
    out, err = io.StringIO(), io.StringIO()
    before = (sys.stdout, sys.stderr, os.getcwd(), os.environ.get("GSW_LANG"))
    status = main(["vram", "--vram-gb", "8", "--model", "llama-2-7b", "--json"],
                  env=Environment(stdout=out, stderr=err, environ={"GSW_LANG": "ko"}, cwd=tmp_path))
    assert status == 0
    assert '"schema": "gpu-setup-wizard/vram@1.0"' in out.getvalue()
    assert (sys.stdout, sys.stderr, os.getcwd(), os.environ.get("GSW_LANG")) == before


def test_the_language_comes_from_the_injected_variables():
    korean = run_cli("vram", "--vram-gb", "8", "--model", "llama-2-7b", lang="ko")
    english = run_cli("vram", "--vram-gb", "8", "--model", "llama-2-7b", lang="en")
    assert korean.exit_status == english.exit_status == 0
    assert korean.stdout != english.stdout and any("\uac00" <= c <= "\ud7a3" for c in korean.stdout)


def test_stdin_bytes_reach_the_command_and_a_bad_input_is_one_line_and_status_2():
    out = run_cli("doctor", "--nvidia-smi-file", "-", stdin="hello, this is not nvidia-smi\n".encode("utf-16"))
    assert out.exit_status == 2
    assert out.stderr.startswith("gpu-setup-wizard: ") and len(out.stderr.strip().splitlines()) == 1


def test_argparse_exits_become_the_status_and_help_is_captured():
    done = run_cli("doctor", "--help", lang="ko")
    assert done.exit_status == 0 and done.stdout.startswith("사용법: ")
    wrong = run_cli("doctor", "--no-such-option")
    assert wrong.exit_status == 2 and "--no-such-option" in wrong.stderr


def test_json_is_parsed_and_a_variable_removed_for_the_command_is_back_afterwards():
    os.environ["GSW_TEST_MARKER"] = "kept"
    try:
        done = run_cli("vram", "--vram-gb", "8", "--model", "llama-2-7b", "--json", env={"GSW_TEST_MARKER": None})
        assert done.json["schema"] == "gpu-setup-wizard/vram@1.0" and done.returncode == 0
        assert os.environ["GSW_TEST_MARKER"] == "kept"
    finally:
        del os.environ["GSW_TEST_MARKER"]


def test_a_command_probes_the_injected_machine_and_this_one_again_afterwards():
    host = scenarios.windows_rtx3060()
    done = run_cli("doctor", "--json", host=host)
    assert done.exit_status == 0, done.stderr
    assert done.json["system"]["os"] == "windows" and done.json["system"]["locale"] == "ko-KR"
    assert [g["name"] for g in done.json["nvidia"]["gpus"]] == ["NVIDIA GeForce RTX 3060"]
    assert host.calls  # the recorded machine was asked, not this one
    assert isinstance(current_host(), RealHost)


def test_every_machine_reading_command_reads_the_injected_one():
    mismatch = run_cli("doctor", "--json", host=scenarios.linux_driver_mismatch())
    assert [f["id"] for f in mismatch.json["findings"]][:1] == ["nvml-driver-library-version-mismatch"]
    vram = run_cli("vram", "--model", "llama-2-7b", "--json", host=scenarios.windows_rtx3060())
    assert vram.json["gpu_name"] == "NVIDIA GeForce RTX 3060" and vram.json["vram_total_bytes"] == 12288 * 2**20
    recommend = run_cli("recommend", "--json", host=scenarios.windows_rtx3060())
    assert recommend.json["machine"]["gpu_ccs"] == ["8.6"] and recommend.json["machine"]["os"] == "windows"
