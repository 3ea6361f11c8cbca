"""The probes run for real, as the wizard runs them: as files, by another environment's Python.

* A venv with real torch (``torch==2.13.0``; on the project's machines pip takes a CPU wheel
  from local disk), built once per test session. ``GSW_TEST_TORCH_PYTHON=/path/to/python``
  uses an existing torch interpreter instead (for example on a GPU machine).
* A plain venv (torch absent), and one whose ``torch`` package raises on import (broken).

Checked: every check says what that environment really is (asked of the same interpreter
directly); the CPU matmul agrees with torch.utils.benchmark timing the same operation; the JSON
lines survive torch absent, torch broken, a cancel and a kill.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import textwrap
import threading
import venv
from pathlib import Path

import psutil
import pytest

from wizard.core.base.host import RealHost
from wizard.core.machine.detect import detect
from wizard.core.verify.benchmark import BenchReport, run_bench
from wizard.core.verify.checklist import VerifyReport, run_verify
from wizard.core.verify.probe_runner import run_probe

pytestmark = pytest.mark.slow

from tests.torch_env import TORCH_SPEC  # noqa: F401  (torch_python is a shared fixture)

REQUIRED = ("id", "device", "dtype", "size", "median_s", "iqr_s", "value", "unit")
# The real-probe runs here use the quick suite with small sizes so the file stays well under a
# minute on a 2-core machine; the default sizes are for students' machines.
SMALL_BENCH = ["--max-size", "1024", "--mlp-batch", "64", "--max-bytes", str(16 * 1024 * 1024)]


def _python_in(env_dir: Path) -> Path:
    return env_dir / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def _run(argv, timeout=300, **kw):
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=timeout, **kw)


def _ask(python: Path, code: str, timeout: float = 120) -> dict:
    """Ask the target interpreter itself (the ground truth the probe is compared with)."""
    res = _run([python, "-c", textwrap.dedent(code)], timeout=timeout)
    assert res.returncode == 0, res.stderr[-2000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="session")
def torch_truth(torch_python) -> dict:
    return _ask(torch_python, """
        import importlib.util, json, torch
        print(json.dumps({
            "version": torch.__version__, "cuda": torch.version.cuda, "hip": torch.version.hip,
            "is_available": torch.cuda.is_available(), "device_count": torch.cuda.device_count(),
            "capabilities": ["%d.%d" % torch.cuda.get_device_capability(i) for i in range(torch.cuda.device_count())],
            "threads": torch.get_num_threads(),
            "mps": bool(getattr(torch.backends, "mps", None) and torch.backends.mps.is_available()),
            "tensorflow": importlib.util.find_spec("tensorflow") is not None,
        }))
    """)


@pytest.fixture(scope="module")
def plain_python(tmp_path_factory) -> Path:
    env_dir = tmp_path_factory.mktemp("plain env") / "venv"
    venv.create(env_dir, with_pip=False, symlinks=os.name != "nt")
    return _python_in(env_dir)


@pytest.fixture(scope="module")
def broken_python(tmp_path_factory) -> Path:
    """A venv whose torch raises on import, like a Windows install with a missing DLL."""
    env_dir = tmp_path_factory.mktemp("broken env") / "venv"
    venv.create(env_dir, with_pip=False, symlinks=os.name != "nt")
    py = _python_in(env_dir)
    site = _run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip()
    pkg = Path(site) / "torch"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(
        'raise OSError(\'[WinError 126] The specified module could not be found. Error loading '
        '"C:\\\\env\\\\Lib\\\\site-packages\\\\torch\\\\lib\\\\c10.dll" or one of its dependencies.\')\n',
        encoding="utf-8")
    return py


@pytest.fixture(scope="module")
def machine_detection():
    """What the wizard's detection sees on this machine (NVIDIA driver, GPUs), for the cross-checks."""
    return detect(RealHost(), pythons=False, conda=False)


def _no_bare_traceback(outcome):
    assert "Traceback (most recent call last)" not in outcome.stderr_tail, outcome.stderr_tail[-2000:]
    assert outcome.garbage == [] and outcome.truncated_line is None


# --------------------------------------------------------------------------- verification
def test_verify_reports_what_the_environment_really_is(torch_python, torch_truth, machine_detection):
    seen = []
    r = run_verify(str(torch_python), machine_detection, timeout=300, on_event=seen.append)
    out = r.outcome
    assert out.ok, out.to_json()
    assert seen == out.events  # streamed, in order, all of them
    _no_bare_traceback(out)
    assert r.check("probe") is None

    imp = r.check("torch.import")
    assert imp.status == "pass" and imp.evidence["version"] == torch_truth["version"]
    cpu = r.check("cpu.matmul")
    assert cpu.status == "pass" and cpu.evidence["rel_error"] < 1e-5
    assert cpu.evidence["threads"] == torch_truth["threads"]
    assert r.check("cpu.train_step").status == "pass"

    build = r.check("cuda.build")
    nvidia_here = bool(machine_detection.nvidia.gpus) or bool(r.facts["driver"]["found"])
    if torch_truth["cuda"] is None and torch_truth["hip"] is None:
        # a CPU-only build: the CPU-only finding, not a failure of the wizard
        if sys.platform == "darwin":
            assert build.status == "skip"
        elif nvidia_here:
            assert (build.status, build.cause) == ("fail", "cpu_only_build")
        else:
            assert (build.status, build.cause) == ("pass", "cpu_only_no_gpu")  # right here: a pass with a note
            assert r.ok
        assert r.check("cuda.available").status == "skip"
        assert r.check("cuda.arch") is None and r.check("cuda.kernel") is None
    else:
        assert build.status == "pass"
        avail = r.check("cuda.available")
        assert (avail.status == "pass") == (torch_truth["is_available"] and torch_truth["device_count"] > 0)
        for i, cc in enumerate(torch_truth["capabilities"]):
            assert r.devices[i]["capability"] == cc
            assert r.check("cuda.kernel", i).status == "pass"
            assert r.check("cuda.matmul.fp32", i).status == "pass"

    tf = r.check("tensorflow")
    assert (tf.status == "skip") == (not torch_truth["tensorflow"])
    ce = r.check("collect_env")
    assert ce.status == "pass"
    assert f"PyTorch version: {torch_truth['version']}" in r.collect_env_text

    for lang in ("en", "ko"):
        data = r.to_json(lang)
        json.dumps(data)
        assert data["schema"] == "gpu-setup-wizard/verify@1.0"
        for c in data["checks"]:
            assert not c["title"].startswith("verify.") and "{" not in c["detail"], c


# --------------------------------------------------------------------------- benchmark
TIMER_SCRIPT = """
    import json, sys, torch
    import torch.utils.benchmark as B
    n = int(sys.argv[1])
    a, b, c = torch.randn(n, n), torch.randn(n, n), torch.empty(n, n)
    for line in sys.stdin:  # one measurement per request, so torch is imported once
        out = {"threads": torch.get_num_threads()}
        for label, threads in (("all", torch.get_num_threads()), ("one", 1))[:int(line)]:
            m = B.Timer("torch.matmul(a, b, out=c)", globals={"torch": torch, "a": a, "b": b, "c": c},
                        num_threads=threads).blocked_autorange(min_run_time=0.5)
            out[label] = m.median
        print(json.dumps(out), flush=True)
"""


class ReferenceTimer:
    """torch.utils.benchmark in the target interpreter, kept running between measurements."""

    def __init__(self, python: Path, n: int) -> None:
        self.proc = subprocess.Popen([str(python), "-c", textwrap.dedent(TIMER_SCRIPT), str(n)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    def measure(self, one_thread_too: bool) -> dict:
        self.proc.stdin.write("2\n" if one_thread_too else "1\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, "the reference timer process died"
        return json.loads(line)

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def test_cpu_benchmark_is_plausible(torch_python, torch_truth):
    seen = []
    report = run_bench(str(torch_python), "quick", extra_args=SMALL_BENCH, timeout=300, on_event=seen.append)
    out = report.outcome
    assert out.ok, out.to_json()
    _no_bare_traceback(out)
    assert report.completed and [e for e in seen if e.get("type") == "measurement"]
    cores = os.cpu_count() or 1
    for r in report.results:
        row = r.to_json()
        assert all(k in row for k in REQUIRED)
        assert r.median_s > 0 and r.iqr_s >= 0 and r.extra["blocks"] >= 3
        if r.unit == "GFLOP/s":
            assert math.isclose(r.value, 2 * r.size ** 3 / r.median_s / 1e9, rel_tol=1e-9)
        if r.unit == "GFLOP/s" and r.device == "cpu":
            # 300 GFLOP/s per core is beyond any CPU core's fp32 FMA peak; 0.5 in total is a broken BLAS
            assert 0.5 < r.value < 300.0 * cores, r
            assert r.extra["threads"] == torch_truth["threads"]
    assert [s for s, _ in report.sweep("cpu")] == [256, 512, 1024]
    course = report.find("course_matmul", "cpu")[0]
    assert course.size == 1024 and course.extra.get("size_requested") is None  # capped by --max-size, not OOM
    mlp = report.find("mlp_train", "cpu")[0]
    assert mlp.unit == "steps/s" and mlp.size == 64 and math.isclose(mlp.value, 1 / mlp.median_s)
    if torch_truth["cuda"] is None and not torch_truth["mps"]:
        assert {s.reason for s in report.skipped} == {"cpu_only_build"}
        assert report.summary("en").startswith("Your CPU computes")
        assert all(not s.text("ko").startswith("bench.") for s in report.skipped)
    data = report.to_json("ko")
    json.dumps(data)
    assert data["schema"] == "gpu-setup-wizard/bench@1.0" and data["complete"]


def test_cpu_matmul_agrees_with_torch_utils_benchmark(torch_python, torch_truth):
    """The probe's median time of the 1024x1024 fp32 matmul against
    torch.utils.benchmark.Timer(num_threads=all).blocked_autorange() of the same call in the same
    interpreter, measured just before and just after the probe.

    Tolerance: the probe's time must lie within a factor of 2 of the Timer's range, in at least
    one of three such trials. Both are medians of timed blocks of the same MKL GEMM with the
    same thread count; on a quiet 2-core machine they agree within about 10%. A factor of 2
    absorbs another process taking one of two cores for the length of one measurement (a
    2-thread GEMM then runs at half speed), and a retry absorbs a burst that spans a whole
    trial (seen here with other test suites running: single ratios from 0.12 to 2.4 at load
    average 3-5, while the quiet trials agreed within 0.92-1.23). A systematic error fails every
    trial: a per-block division slip (off by the block's call count), timing a launch instead of
    the work, no warm-up. Errors below 2x (drawing inputs inside the timed loop, about +30-60%
    here) are excluded by construction in bench.py, not by this test. Timing one thread instead
    of all is checked directly: where one thread is clearly slower than all on this machine, the
    probe's time must be closer to the all-threads time (on 2 cores, one thread is only about
    2x slower, within the noise, and the check is left out).
    """
    n = 1024
    trials = []
    timer = ReferenceTimer(torch_python, n)
    for _ in range(3):
        before = timer.measure(one_thread_too=True)
        out = run_probe(torch_python, "bench.py", ["--only", "cpu_matmul", "--sizes", str(n)], timeout=120)
        assert out.ok, out.to_json()
        report = BenchReport.from_events(out.events, outcome=out)
        probe_s = report.find("matmul", "cpu", "fp32", n)[0].median_s
        assert report.find("matmul", "cpu", "fp32", n)[0].extra["threads"] == before["threads"]
        after = timer.measure(one_thread_too=False)
        lo, hi = min(before["all"], after["all"]), max(before["all"], after["all"])
        trials.append((probe_s, lo, hi, before["one"]))
        print(f"\nprobe {probe_s * 1e3:.2f} ms; torch.utils.benchmark {before['all'] * 1e3:.2f} / "
              f"{after['all'] * 1e3:.2f} ms (1 thread {before['one'] * 1e3:.2f} ms); "
              f"ratio {probe_s / before['all']:.2f} / {probe_s / after['all']:.2f}")
        if probe_s / hi <= 2.0 and probe_s / lo >= 0.5:
            break
    else:
        timer.close()
        pytest.fail(f"no trial agreed within 2x: {trials}")
    timer.close()
    probe_s, lo, hi, one = trials[-1]
    if one > 2.5 * hi:  # threads clearly help on this machine (not so on 2 busy cores), so one thread would show
        assert abs(math.log(probe_s / hi)) < abs(math.log(probe_s / one)), trials[-1]


# --------------------------------------------------------------------------- survival
@pytest.mark.parametrize("script", ["verify.py", "bench.py"])
def test_json_survives_torch_absent(plain_python, script):
    out = run_probe(plain_python, script, ["--skip", "collect_env"] if script == "verify.py" else [], timeout=60)
    assert out.ok, out.to_json()
    _no_bare_traceback(out)
    (err,) = out.errors
    assert err["id"] == "torch-missing" and err["exception"] == "ModuleNotFoundError"
    if script == "verify.py":
        r = VerifyReport.from_outcome(out)
        c = r.check("torch.import")
        assert (c.status, c.cause, c.fix) == ("fail", "torch_missing", "install_torch")
        assert r.check("probe") is None and r.check("python").status == "pass"
        assert not r.ok
    else:
        b = BenchReport.from_events(out.events, outcome=out)
        assert b.results == [] and b.summary("en") == "The benchmark could not run; the Verify step says why."


@pytest.mark.parametrize("script", ["verify.py", "bench.py"])
def test_json_survives_a_torch_whose_import_raises(broken_python, script):
    out = run_probe(broken_python, script, timeout=60)
    assert out.ok, out.to_json()
    _no_bare_traceback(out)
    (err,) = out.errors
    assert err["id"] == "torch-import" and err["exception"] == "OSError" and "WinError 126" in err["message"]
    r = VerifyReport.from_outcome(out)
    c = r.check("torch.import")
    assert (c.status, c.cause, c.fix) == ("fail", "torch_import_failed", "reinstall_torch")
    assert "c10.dll" in c.detail_text("en")


def test_cancel_mid_benchmark(torch_python):
    cancel = threading.Event()
    pids = []

    def on_event(e):
        if not pids:
            pids.extend(p.pid for p in psutil.Process().children(recursive=True))
        if e.get("type") == "measurement":
            cancel.set()

    out = run_probe(torch_python, "bench.py", ["--suite", "full"], timeout=120, on_event=on_event, cancel=cancel)
    assert out.cancelled and not out.completed
    assert any(e.get("type") == "measurement" for e in out.events)
    for pid in pids:
        assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    b = BenchReport.from_events(out.events, outcome=out)
    assert b.results and not b.completed and b.to_json("en")["probe"]["failure"] == "cancelled"


@pytest.mark.skipif(os.name == "nt", reason="POSIX signal")
def test_probe_killed_while_verifying(torch_python):
    def on_event(e):
        if e.get("step") == "import_torch":
            for p in psutil.Process().children():
                p.kill()

    out = run_probe(torch_python, "verify.py", timeout=120, on_event=on_event)
    assert out.returncode == -9 and out.failure_kind() == "crashed"
    r = VerifyReport.from_outcome(out)
    assert r.check("probe").cause == "probe_crashed"
    assert r.check("python").status == "pass"  # what it said before dying is kept


def _python38() -> str | None:
    """A working Python 3.8 (the probes' oldest target), if this machine has one."""
    candidates = [shutil.which("python3.8")]
    candidates += [str(p) for p in sorted((Path.home() / ".pyenv" / "versions").glob("3.8*/bin/python"))]
    for candidate in candidates:
        if not candidate:
            continue
        try:
            res = _run([candidate, "-c", "import sys; print(sys.version_info[:2] == (3, 8))"], timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if res.returncode == 0 and res.stdout.strip() == "True":
            return candidate
    return None


PYTHON38 = _python38()


@pytest.mark.skipif(PYTHON38 is None, reason="no Python 3.8 interpreter on this machine")
@pytest.mark.parametrize("script", ["verify.py", "bench.py"])
def test_probes_run_on_python38(script):
    out = run_probe(PYTHON38, script, ["--skip", "collect_env"] if script == "verify.py" else [], timeout=60)
    assert out.ok, out.to_json()
    _no_bare_traceback(out)
    assert out.events[0]["step"] == "start"
