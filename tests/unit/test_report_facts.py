"""The report's ``facts`` (schema 1.1): language-free values built from the same inputs as the
sections, the same in a Korean and an English report, redacted like the rest, and absent from a
1.0 document, which still loads."""

from __future__ import annotations

import json

from tests import report_sessions as rs
from wizard.app.report import build as build_report
from wizard.core.report.as_json import LESSON_VERDICTS, dumps, loads
from wizard.core.report.document import SCHEMA, report_to_dict


def facts_of(session, lang: str, private: bool = False) -> dict:
    return report_to_dict(build_report(session, lang=lang, include_private=private, now=rs.NOW))["facts"]


def test_full_session_facts():
    facts = facts_of(rs.full_session("ko"), "ko")
    assert facts["os"] == "Ubuntu 22.04.4 LTS" and facts["platform"] == "linux"
    assert facts["gpus"] == [{"name": "NVIDIA GeForce RTX 3060", "vram_bytes": 12288 * 2**20, "cc": "8.6"}]
    assert facts["driver"] == "570.133.07" and facts["cuda_driver"] == "12.8"
    install = facts["install"]
    assert install["index_url"] == "https://download.pytorch.org/whl/cu128" and install["installer"] == "pip"
    assert install["torch_build"] == "2.8.0+cu128"
    assert {"name": "torchvision", "version": "0.23.0+cu128"} in install["packages"]
    verify = facts["verify"]
    assert verify["failed"] == 0 and verify["failed_ids"] == [] and verify["passed"] > 10
    assert verify["cuda_available"] is True
    assert facts["vram"] == {"chosen": True, "fits": False}  # llama-2-7b fp16 does not fit 12 GB
    verdicts = {x["id"]: x["verdict"] for x in facts["lessons"]}
    assert verdicts["mnist_cnn"] == "gpu" and set(verdicts.values()) <= set(LESSON_VERDICTS.values())


def test_facts_agree_with_the_judgment_section():
    """The lessons needing Colab/cloud in the facts are the judgment section's lines."""
    report = build_report(rs.no_gpu_session("en"), lang="en", now=rs.NOW)
    facts = report_to_dict(report)["facts"]
    remote = report.item("judgment", "needs_remote")
    here = report.item("judgment", "runs_here")
    assert len(remote.details) == sum(1 for x in facts["lessons"] if x["verdict"] in ("colab", "cloud", "cannot"))
    assert len(here.details) == sum(1 for x in facts["lessons"] if x["verdict"] in ("gpu", "cpu"))
    assert facts["gpus"] == [] and facts["install"] is None and facts["vram"] == {"chosen": False, "fits": None}
    assert facts["verify"]["torch"] == "2.13.0+cpu"
    families = {f["family"] for f in facts["findings"]}
    assert "no-nvidia-driver" in families
    for f in facts["findings"]:
        assert f["fix_key"] and f["severity"] in ("error", "warning", "info")


def test_facts_are_language_free_and_redacted():
    ko, en = facts_of(rs.full_session("ko"), "ko"), facts_of(rs.full_session("en"), "en")
    assert ko == en
    text = json.dumps(facts_of(rs.no_gpu_session("ko"), "ko"), ensure_ascii=False)
    assert rs.USER not in text and rs.HOME not in text and rs.HOST not in text
    # with private details asked for, the facts still hold no home path (they never name one)
    private = json.dumps(facts_of(rs.full_session("en"), "en", private=True), ensure_ascii=False)
    assert rs.HOME not in private


def test_a_1_0_report_without_facts_still_loads():
    doc = json.loads(dumps(build_report(rs.full_session("en"), lang="en", now=rs.NOW)))
    assert doc["schema"] == f"{SCHEMA}@1.1"
    doc["schema"] = f"{SCHEMA}@1.0"
    del doc["facts"]
    report = loads(json.dumps(doc))
    assert report.facts is None and report.local.driver_version == "570.133.07"
