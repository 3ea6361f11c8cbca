"""What the fuzz suite found, kept as plain regression tests (each was a traceback before its fix)."""

from __future__ import annotations

import json

import pytest

from tests.fuzz import seeds
from tests.fuzz.targets import TARGETS


def test_a_deep_compat_file_is_the_tables_own_error(tmp_path):
    from wizard.core.recommend.compat import CompatDataError, load_file

    path = tmp_path / "compat.json"
    path.write_text('{"a":' * 5000 + "1" + "}" * 5000, encoding="utf-8")  # was RecursionError from json.load
    with pytest.raises(CompatDataError):
        load_file(path)


def test_a_snapshot_whose_stored_message_has_list_params_is_skipped(tmp_path):
    from wizard.core.history.store import HistoryStore

    doc = seeds.history_snapshots()[0]
    doc["findings"] = [{"id": "no-nvidia-driver", "severity": "info", "variant": "no-gpu",
                        "params": {"others": {"$t": "finding.no-nvidia-driver.no-gpu.others", "params": [1, 2]}}}]
    (tmp_path / "snapshot-20261129-102000-000001.json").write_text(json.dumps(doc), encoding="utf-8")
    store = HistoryStore(tmp_path)
    assert store.entries() == []  # was AttributeError in `history show` when the title was rendered
    assert "not a stored message" in store.warnings[0].text("en")


def test_a_doctor_file_with_an_empty_source_name_reads():
    doc = seeds.doctor_documents()[0]
    doc["nvidia"]["sources"][0]["source"] = ""  # was IndexError in the detection rules
    assert TARGETS["doctor-json"].run(json.dumps(doc).encode("utf-8")) == "result"


def test_a_doctor_file_without_a_system_is_refused_in_one_line():
    doc = seeds.doctor_documents()[0]
    doc["system"] = None  # the recommender needs an OS: "Cannot recommend for that machine: ..."
    assert TARGETS["doctor-json"].run(json.dumps(doc).encode("utf-8")) == "refused"
