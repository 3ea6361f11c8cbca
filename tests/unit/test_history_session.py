"""The history a run saves says what the run did: the torch it installed or verified and the
benchmark's numbers, so the next run's History shows "torch 2.13.0" and the speed change instead
of "torch -" and "Nothing changed" (a snapshot of the detection alone)."""

from __future__ import annotations

from wizard.app import history as app_history
from wizard.app.session import Session
from wizard.core.history.diff import diff_snapshots
from wizard.core.history.store import HistoryStore
from wizard.core.install.summary import InstallSummary
from wizard.core.machine.models import Detection, NvidiaInfo, SystemInfo
from wizard.core.verify.benchmark import BenchReport, BenchResult


def a_run(env: str, cpu_seconds: float | None, torch: str | None = "2.13.0+cpu") -> Session:
    session = Session(lang="en")
    session.detection = Detection(SystemInfo(os="linux", os_pretty="Ubuntu 24.04"), NvidiaInfo())
    if torch:
        session.install = InstallSummary.from_json({
            "env_path": env, "env_python": f"{env}/bin/python",
            "installed": [{"name": "torch", "version": torch}, {"name": "typing-extensions", "version": "4.12.2"}]})
    if cpu_seconds is not None:
        session.bench = BenchReport(results=[BenchResult("train.mlp", "cpu", "float32", 64, cpu_seconds / 10,
                                                         cpu_seconds / 400, cpu_seconds, "s")])
    return session


def test_the_first_run_is_saved_with_the_torch_it_installed_and_its_bench_numbers(tmp_path):
    store = HistoryStore(tmp_path / "history")
    assert app_history.save_snapshot(a_run("/envs/torch-cpu", 6.45), store).ok
    (entry,) = store.entries()
    assert entry.snapshot.torch is not None and entry.snapshot.torch.version == "2.13.0+cpu"
    assert entry.snapshot.env_path == "/envs/torch-cpu"
    assert entry.snapshot.benchmark["train.mlp/cpu/float32/64"].value == 6.45
    assert not entry.snapshot.benchmark["train.mlp/cpu/float32/64"].higher_is_better  # seconds: lower is better


def test_the_next_run_shows_that_the_cpu_time_changed(tmp_path):
    store = HistoryStore(tmp_path / "history")
    app_history.save_snapshot(a_run("/envs/torch-cpu", 6.45), store)
    app_history.save_snapshot(a_run("/envs/torch-cpu", 2.16), store)
    first, second = store.entries()
    diff = diff_snapshots(first.snapshot, second.snapshot)
    texts = [c.text("en") for c in diff.changes]
    assert any("6.45" in x and "2.16" in x for x in texts), texts
    assert [c.tone for c in diff.changes if c.kind == "benchmark"] == ["better"]


def test_a_run_that_installed_nothing_keeps_torch_empty(tmp_path):
    store = HistoryStore(tmp_path / "history")
    app_history.save_snapshot(a_run("/envs/x", None, torch=None), store)
    (entry,) = store.entries()
    assert entry.snapshot.torch is None and entry.snapshot.benchmark == {}
