"""Benchmark use cases: CPU versus GPU speed in the target environment.

The Benchmark page streams the probe (on a worker thread) into :func:`new_report`;
``gpu-setup-wizard bench`` calls :func:`run_bench`. Both record the report the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

from wizard.app.session import Session
from wizard.core.base.lazy import lazy_exports

if TYPE_CHECKING:
    from wizard.core.base.host import Host
    from wizard.core.base.process import CancelLike
    from wizard.core.machine.nvml_sampler import NvmlSampler
    from wizard.core.verify.benchmark import BenchReport as BenchReport
    from wizard.core.verify.benchmark import progress_text as progress_text
    from wizard.core.verify.benchmark import result_title as result_title

__getattr__ = lazy_exports(__name__, {
    "BenchReport": "wizard.core.verify.benchmark", "progress_text": "wizard.core.verify.benchmark",
    "result_title": "wizard.core.verify.benchmark",
})

TIMEOUT_S = {"quick": 240, "full": 600}


def new_report(python_exe: str) -> BenchReport:
    from wizard.core.verify.benchmark import BenchReport

    return BenchReport(python_exe=python_exe)


def probe_args(suite: str, extra: Sequence[str] = ()) -> list[str]:
    from wizard.core.verify.benchmark import bench_args

    return bench_args(suite, extra=extra)


def open_sampler(host: Host) -> NvmlSampler | None:
    """An open NVML sampler for the GPU's memory and load while the probe runs, or None
    (no NVIDIA driver library: the benchmark runs without it)."""
    from wizard.core.machine.nvml_sampler import NvmlSampler

    try:
        bindings = host.nvml()
    except ImportError:
        return None
    sampler = NvmlSampler(bindings)
    return sampler if sampler.open() else None


def run_bench(session: Session, python_exe: str, suite: str = "quick", *,
              on_event: Callable[[dict[str, Any]], None] | None = None, cancel: CancelLike = None) -> BenchReport:
    """Run the benchmark probe in ``python_exe`` on this thread (NVML sampled) and record it."""
    from wizard.core.verify.benchmark import run_bench as core_run_bench

    sampler = open_sampler(session.host)
    try:
        report = core_run_bench(python_exe, suite, nvml_sampler=sampler, on_event=on_event, cancel=cancel)
    finally:
        if sampler is not None:
            sampler.close()
    record_bench(session, report)
    return report


def record_bench(session: Session, report: BenchReport) -> None:
    session.bench = report
