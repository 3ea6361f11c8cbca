"""The one step loop (``run_steps``) with real child processes: the callbacks both faces hear.

The GUI's StepRunner relays exactly these callbacks as Qt signals, so what is checked here is
what the Install page sees: steps started and ended in order, every output line in the log,
progress that only grows, and a cancel that stops a running child and its tree.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import psutil

from wizard.core.base.host import RealHost
from wizard.core.base.i18n import msg
from wizard.core.base.process import ProcessSpec
from wizard.core.install.environments import new_venv
from wizard.core.install.job import (
    InstallOptions,
    OutputParser,
    ProcessStep,
    PythonStep,
    StepContext,
    StepError,
    StepProgress,
)
from wizard.core.install.runner import InstallJob, Progress, StepHooks, run_steps


def _job(tmp_path: Path) -> InstallJob:
    target = new_venv(str(tmp_path / "envs" / "가상 환경"), sys.executable)
    options = InstallOptions(["x==1"], cache_dir=str(tmp_path / "cache"), state_dir=str(tmp_path / "state"))
    return InstallJob(target, options, RealHost(), work_dir=tmp_path / "work")


def _child(code: str, timeout: float = 60) -> ProcessStep:
    return ProcessStep("install", build=lambda job: ProcessSpec([sys.executable, "-c", code], job.child_env(),
                                                                None, timeout))


class _Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, str]] = []
        self.progress: list[Progress] = []

    def hooks(self) -> StepHooks:
        return StepHooks(started=lambda s: self.events.append(("started", s.id)),
                         ended=lambda s, outcome: self.events.append((outcome, s.id)))


def test_steps_run_in_order_with_their_callbacks(tmp_path):
    job = _job(tmp_path)
    lines: list[str] = []
    job.on_log = lines.append
    rec = _Recorder()

    def python_step(ctx: StepContext) -> None:
        ctx.progress(StepProgress("plan", 0.5))
        ctx.log("파이썬 단계")

    steps = [PythonStep("plan", func=python_step),
             PythonStep("download", func=lambda ctx: None, skip_when=lambda job: True),
             _child("print('설치 중'); import sys; sys.stderr.write('경고\\n')")]
    assert run_steps(job, steps, on_progress=rec.progress.append, hooks=rec.hooks())
    assert rec.events == [("started", "plan"), ("succeeded", "plan"), ("skipped", "download"),
                          ("started", "install"), ("succeeded", "install")]
    assert "파이썬 단계" in lines and "설치 중" in lines and "경고" in lines  # stderr merged into the log
    assert any(line.startswith("$ ") for line in lines)
    overall = [p.overall for p in rec.progress]
    assert overall == sorted(overall) and overall[-1] == 1.0
    assert list(job.log_lines) == lines


def test_a_failing_child_stops_the_run_with_its_error(tmp_path):
    job = _job(tmp_path)
    rec = _Recorder()
    steps = [_child("import sys; print('error: no space left'); sys.exit(2)"),
             PythonStep("finish", func=lambda ctx: None)]
    assert not run_steps(job, steps, hooks=rec.hooks())
    assert rec.events == [("started", "install"), ("failed", "install")]
    assert job.failure is not None and job.failure.kind == "failed" and "no space left" in job.failure.detail


def test_a_step_error_from_python_is_a_failure_not_a_crash(tmp_path):
    job = _job(tmp_path)

    def broken(ctx: StepContext) -> None:
        raise StepError("plan", msg("install.already_satisfied"), "space")

    assert not run_steps(job, [PythonStep("plan", func=broken)])
    assert job.failure.kind == "space"


def test_cancel_stops_a_running_child_and_its_tree(tmp_path):
    job = _job(tmp_path)
    cancel = threading.Event()
    pids: list[int] = []

    def on_log(line: str) -> None:
        if line.isdigit():
            pids.append(int(line))
            cancel.set()  # as the GUI's Cancel button does, from the loop's own callback

    job.on_log = on_log
    code = ("import subprocess, sys, time; "
            "c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)']); "
            "print(c.pid, flush=True); time.sleep(120)")
    rec = _Recorder()
    start = time.monotonic()
    assert not run_steps(job, [_child(code), PythonStep("finish", func=lambda ctx: None)], cancel=cancel,
                         hooks=rec.hooks())
    assert time.monotonic() - start < 15
    assert rec.events == [("started", "install"), ("cancelled", "install")]
    end = time.monotonic() + 10
    while time.monotonic() < end and psutil.pid_exists(pids[0]) \
            and psutil.Process(pids[0]).status() != psutil.STATUS_ZOMBIE:
        time.sleep(0.02)
    assert not psutil.pid_exists(pids[0]) or psutil.Process(pids[0]).status() == psutil.STATUS_ZOMBIE


def test_output_parser_progress_reaches_the_front_end(tmp_path):
    job = _job(tmp_path)

    class Halves(OutputParser):
        def parse(self, line: str) -> StepProgress | None:
            return StepProgress(self.step_id, 0.5) if line == "half" else None

    step = ProcessStep("install", build=lambda j: ProcessSpec([sys.executable, "-c", "print('half')"], j.child_env()),
                       make_parser=lambda j: Halves("install"))
    seen: list[Progress] = []
    assert run_steps(job, [step], on_progress=seen.append)
    assert [p.step.fraction for p in seen if p.step is not None] == [0.5, 1.0]
