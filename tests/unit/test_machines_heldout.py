"""Held-out machines (tests/data/machines): every one gets the right build and none gets
dangerous advice, through the real detection and ``recommend``/``doctor`` (see
tests/unit/machine_batch_score.py for how a described machine becomes a recorded host)."""

from __future__ import annotations

import pytest

from tests.unit import machine_batch_score as batch

MACHINES = batch.machines()


def test_the_batch_is_large_and_varied() -> None:
    assert len(MACHINES) >= 25
    kinds = {(m.os, m.wsl, m.arch) for m in MACHINES}
    assert ("windows", False, "x86_64") in kinds and ("linux", True, "x86_64") in kinds
    assert any(m.jetson for m in MACHINES) and any(m.os == "macos" for m in MACHINES)
    assert all(m.meta.get("source", "").startswith("https://") and m.meta.get("collected") for m in MACHINES)


@pytest.mark.parametrize("machine", MACHINES, ids=[m.name for m in MACHINES])
def test_machine_gets_the_right_build_and_no_dangerous_advice(machine: batch.Machine,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in batch.OFFLINE.items():
        monkeypatch.setenv(key, value)
    result = batch.score(machine)
    assert result.dangers == [], result.dangers
    assert result.verdict == "right", (
        f"expected {machine.meta['expect-variants']} torch {machine.meta['expect-torch']}, "
        f"got {result.got} {result.detail}")


def test_the_scorer_catches_a_wrong_build_and_a_driver_it_cannot_run() -> None:
    machine = batch.load(batch.MACHINES / "08-linux-rtx3070-470.57.02.txt")
    dangers = batch._driver_dangers(machine, {"variant": "cu126"}, "470.57.02")
    assert dangers and "525.60.13" in dangers[0]
    assert batch._driver_dangers(machine, {"variant": "cu118"}, "470.57.02") == []
    assert batch._variant({"variant": "cu126", "index_url": "https://download.pytorch.org/whl/cu126"}) == "cu126"
