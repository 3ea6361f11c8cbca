"""benchmarks/run.py's own arithmetic: the start-up blocks, their pooling and the accuracy rule.

Not a timing test: it feeds the functions made-up hyperfine results and checks what the table
would say, so a change to how the rows are computed cannot quietly change their meaning.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _run_module():
    spec = importlib.util.spec_from_file_location("bench_run_under_test", REPO / "benchmarks" / "run.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


run = _run_module()


def test_startup_blocks_alternate_in_one_invocation(tmp_path):
    argv = run.interleaved_startup_argv(20, tmp_path / "s.json", blocks=4)
    assert argv[0] == "hyperfine" and argv.count("hyperfine") == 1
    names = [argv[i + 1] for i, a in enumerate(argv) if a == "-n"]
    assert names == ["bare-qwizard#0", "wizard-smoke-test#0", "bare-qwizard#1", "wizard-smoke-test#1",
                     "bare-qwizard#2", "wizard-smoke-test#2", "bare-qwizard#3", "wizard-smoke-test#3"]
    assert argv[argv.index("--runs") + 1] == "5"  # 20 runs a side in four blocks
    assert run.interleaved_startup_argv(10, tmp_path / "s.json", blocks=8)[argv.index("--runs") + 1] == "2"


def _result(name, times, user=0.1, system=0.02):
    return {"command": name, "times": times, "user": user, "system": system}


def test_pooling_takes_every_run_of_a_side_and_splits_the_control():
    results = [_result("bare-qwizard#0", [0.10, 0.11]), _result("wizard-smoke-test#0", [0.13, 0.14]),
               _result("bare-qwizard#1", [0.20, 0.21]), _result("wizard-smoke-test#1", [0.26, 0.27])]
    pooled = run.pooled_startup(results)
    assert pooled["bare-qwizard"]["runs"] == 4
    assert pooled["bare-qwizard"]["median"] == (0.11 + 0.20) / 2
    assert pooled["wizard-smoke-test"]["median"] == (0.14 + 0.26) / 2
    # the bare side's even blocks against its odd ones: a load that doubled half-way shows as 2x
    assert pooled["bare-qwizard"]["halves"] == pytest.approx([0.105, 0.205])


def test_accuracy_is_judged_against_its_noise_floor():
    assert run.judge_within(1.3, 1.5, 3.0) is True      # within even with the floor added
    assert run.judge_within(3.2, 3.6, 3.0) is None      # the machine was too noisy to say
    assert run.judge_within(7.0, 1.0, 3.0) is False     # over even with the floor taken off
    assert run.judge_within(2.9, None, 3.0) is True     # no control measured: the deviation alone
