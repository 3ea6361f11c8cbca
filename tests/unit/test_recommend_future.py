"""The refreshed table's answers (issue 13's "Done when"), the future advice and cards by name."""

from __future__ import annotations

import argparse

import pytest

from wizard.cli import recommend as cli_recommend
from wizard.cli.exit_status import ExitStatus
from wizard.core.recommend import advice, compat
from wizard.core.recommend.inputs import MachineFacts
from wizard.core.recommend.recommender import recommend


def facts(cc: str, driver: str, name: str, os_name: str = "linux", python: str = "3.13") -> MachineFacts:
    return MachineFacts(os=os_name, arch="x86_64", python=python, driver_version=driver,
                        cuda_driver=compat.load_builtin().cuda_for_driver(driver, "windows" if os_name == "windows" else "linux"),
                        gpu_ccs=[cc], gpu_names=[name])


def test_rtx_4090_on_580_95_gets_torch_2_15():
    kb = compat.load_builtin()
    assert kb.release("2.15").verified  # PyPI confirmed it (refresh-compat, 2026-12-01)
    rec = recommend(facts("8.9", "580.95", "NVIDIA GeForce RTX 4090"), kb=kb)
    assert rec.best is not None and rec.best.torch == "2.15.0" and rec.best.kind == "cuda"


@pytest.mark.parametrize("driver", ["580", "580.95"])
def test_gtx_1080_ti_on_580_still_gets_a_build_with_sm_61_kernels(driver):
    kb = compat.load_builtin()
    rec = recommend(facts("6.1", driver, "NVIDIA GeForce GTX 1080 Ti"), kb=kb)
    best = rec.best
    assert best is not None and best.kind == "cuda"
    archs = kb.archs_for(best.variant, best.torch, "linux-x86_64")
    assert archs is not None and archs.cubin_for((6, 1)) is not None  # sm_60 code runs on sm_61
    future = [a for a in rec.advice if a.kind == "gpu_future"]
    assert len(future) == 1 and future[0].message.key == "recommend.future.ended"
    assert future[0].message.param("last") == best.torch  # 2.14.1, the last release with cu126
    for lang in ("en", "ko"):
        assert "sm_61" in future[0].text(lang) and best.torch in future[0].text(lang)


def test_future_for_a_new_card_and_for_volta_on_windows():
    kb = compat.load_builtin()
    new = [a for a in recommend(facts("12.0", "595.58.03", "RTX 5090"), kb=kb).advice if a.kind == "gpu_future"]
    assert [a.message.key for a in new] == ["recommend.future.covered"]
    # on 2.14 (an older table slice), Pascal is covered only by cu126: "narrowing"
    old = advice.future_advice(facts("6.1", "580.95", "GTX 1060"), _without(kb, "2.15"))
    assert old[0].message.key == "recommend.future.narrowing" and old[0].message.param("kept") == "cu126"
    assert "cu130" in old[0].message.param("dropped")


def _without(kb, minor):
    from dataclasses import replace

    return replace(kb, releases=tuple(r for r in kb.releases if r.torch != minor))


@pytest.mark.parametrize("name, want", [("RTX 5070", "GeForce RTX 5070"), ("nvidia geforce rtx 4090", "GeForce RTX 4090"),
                                        ("GTX-1080-Ti", "GeForce GTX 1080 Ti"), ("rtx 3060", "GeForce RTX 3060 12GB")])
def test_cards_by_name(name, want):
    assert advice.find_card(name).entry["name"] == want


@pytest.mark.parametrize("name, suggested", [("RTX 5070 Ti", "GeForce RTX 5070"), ("1080", "GeForce GTX 1080 Ti"),
                                             ("rtx 5900", "GeForce RTX 5090")])
def test_near_names_are_never_taken_only_suggested(name, suggested):
    found = advice.find_card(name)
    assert found.entry is None and suggested in found.suggestions


def _args(**kw) -> argparse.Namespace:
    base = dict(gpu=None, os=None, arch=None, python=None, driver=None, cuda=None, gpu_cc=[], wsl=False, torch=None,
                newest=False, cpu_only=False, variant=None, index_url=None, from_doctor=None, json=False,
                check_index=False, all=False, no_update_check=True, lang="en")
    base.update(kw)
    return argparse.Namespace(**base)


def test_cli_card_plan_names_builds_and_drivers(capsys):
    rec, note = cli_recommend.card_for(_args(gpu="RTX 5070", os="windows"), "ko")
    plan = rec.advice[0]
    assert plan.kind == "gpu_plan"
    text = plan.text("ko")
    assert "sm_120" in text and "cu130" in text and "570.65" in text  # first Windows driver for CUDA 12.8
    assert rec.best.torch == "2.15.0" and "595" in note


def test_cli_unknown_card_says_did_you_mean(capsys):
    status = cli_recommend.card_for(_args(gpu="RTX 5070 Ti"), "ko")
    assert status == ExitStatus.BAD_INPUT
    err = capsys.readouterr().err
    assert "GeForce RTX 5070" in err and "혹시" in err


def test_recommendation_names_its_table_in_text_and_json():
    from wizard.core.recommend import update
    from wizard.core.recommend.text import format_recommendation

    update.reset()
    rec = recommend(facts("8.9", "580.95", "RTX 4090"))
    source = rec.to_json("en")["compat"]["source"]
    assert source == {"kind": "built-in", "reviewed_on": compat.load_builtin().reviewed_on}
    assert "Compatibility data: built-in" in format_recommendation(rec, "en")
    assert "호환성 데이터: 내장" in format_recommendation(rec, "ko")
