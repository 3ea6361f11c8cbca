"""`gpu-setup-wizard recommend` as a student runs it: the "Done when" machines and a card by name."""

from __future__ import annotations

import json

from tests.cli_runner import run_cli


def test_rtx_4090_and_gtx_1080_ti_on_driver_580():
    out = run_cli("recommend", "--os", "linux", "--python", "3.13", "--driver", "580.95", "--gpu-cc", "8.9", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["candidates"][0]["torch"] == "2.15.0"
    assert doc["compat"]["source"]["kind"] == "built-in"
    out = run_cli("recommend", "--os", "linux", "--python", "3.13",
                  "--driver", "580", "--gpu-cc", "6.1", "--lang", "ko")
    assert out.returncode == 0, out.stderr
    assert "torch 2.14.1 (cu126)" in out.stdout and "sm_60 커널" in out.stdout
    assert "마지막 릴리스는 torch 2.14.1(cu126)" in out.stdout


def test_card_by_name_and_a_near_miss():
    out = run_cli("recommend", "--gpu", "RTX 5070", "--os", "windows", "--json")
    assert out.returncode == 0, out.stderr
    plan = json.loads(out.stdout)["advice"][0]
    assert plan["kind"] == "gpu_plan" and "sm_120" in plan["text"] and "570.65" in plan["text"]
    out = run_cli("recommend", "--gpu", "RTX 5070 Ti")
    assert out.returncode != 0 and "Did you mean: GeForce RTX 5070" in out.stderr and "Traceback" not in out.stderr
