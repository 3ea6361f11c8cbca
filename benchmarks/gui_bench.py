"""The window under load: event-loop stalls per operation, the live plot's CPU, memory after every page.

    .venv/bin/python benchmarks/gui_bench.py stalls --torch-python PY [--quick] [--trace-stalls] [--out FILE]
    .venv/bin/python benchmarks/gui_bench.py liveplot [--seconds 20] [--out FILE]
    .venv/bin/python benchmarks/gui_bench.py memory [--out FILE]

stalls -- a 10 ms QTimer heartbeat runs in the real window while each operation runs through
the real pages and the app layer: start-up after the first paint plus detection (this machine,
the later pages loading on a worker thread), planning (the Environment page against the
loopback index of tests/integration/index_server.py), download and install (the Install page:
a new venv, the wizard's downloader, pip/uv from the cache), verify and bench (the Verify and
Benchmark pages running their probes in PY, an interpreter with torch). The worst gap between
two ticks, minus the 10 ms interval, is the stall a student would feel. Target: <= 50 ms.

liveplot -- the GPU page's live plot (pyqtgraph, as the page uses it) fed one sample a second,
as NVML sampling does; the process's CPU time over wall time with the plot, minus the same
window idle. Target: < 2 % of one core.

memory -- resident memory of a bare one-page QWizard shown, against the wizard after every
page has been shown (detection on this machine, each page built), in two fresh processes.
Target: <= 1.8x.

Each prints one JSON object (also written to --out); benchmarks/run turns them into its table.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
TICK_MS = 10
TRACE_GAP_S = 0.030  # --trace-stalls: gaps longer than this are explained from the stack samples


class StackSampler:
    """``--trace-stalls``: every ``interval_s`` a thread writes down what each thread is executing
    (``sys._current_frames``), so a heartbeat gap can be explained afterwards: the GUI thread's own
    code (a slow slot), or another thread's Python that held the interpreter lock, or neither (the
    OS gave the process no CPU: a child process had both cores)."""

    def __init__(self, interval_s: float = 0.002) -> None:
        import threading

        self.interval_s = interval_s
        self.samples: list[tuple[float, dict[str, list[str]]]] = []
        self._stop = threading.Event()
        self._main = threading.main_thread().ident
        self._thread = threading.Thread(target=self._run, name="stack-sampler", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        import threading
        import traceback

        names = {}
        while not self._stop.wait(self.interval_s):
            now = time.perf_counter()
            frames = sys._current_frames()
            if len(names) != len(frames):
                names = {t.ident: t.name for t in threading.enumerate()}
            stacks = {}
            for ident, frame in frames.items():
                if ident == threading.get_ident():
                    continue
                summary = traceback.extract_stack(frame, limit=6)
                stacks["GUI" if ident == self._main else names.get(ident, str(ident))] = [
                    f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in summary[-4:]]
            self.samples.append((now, stacks))

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def explain(self, gaps: list[tuple[str, float, float]]) -> list[dict]:
        """Per gap: how many samples fell in it and the GUI thread's and the others' commonest stacks."""
        import collections

        out = []
        for phase, start, end in gaps:
            inside = [stacks for t, stacks in self.samples if start <= t <= end]
            gui = collections.Counter(" <- ".join(reversed(st["GUI"])) for st in inside if "GUI" in st)
            others = collections.Counter(f"{name}: {st[-1]}" for stacks in inside
                                         for name, st in stacks.items() if name != "GUI" and st)
            out.append({"phase": phase, "gap_ms": round((end - start) * 1000, 1), "samples": len(inside),
                        "gui": gui.most_common(3), "others": others.most_common(4)})
        return out


def app():
    from PySide6.QtWidgets import QApplication

    return QApplication.instance() or QApplication([])


def wait_until(predicate: Callable[[], Any], timeout_s: float = 300.0) -> None:
    """Run the event loop until ``predicate()`` is true (the way qtbot.waitUntil does)."""
    qapp = app()
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("gave up waiting after %.0f s" % timeout_s)
        qapp.processEvents()
        time.sleep(0.002)


class Bot:
    """What tests/gui/install_driver.py's helpers need of pytest-qt's qtbot."""

    def __init__(self) -> None:
        self.widgets: list = []

    def addWidget(self, widget) -> None:  # noqa: N802 - qtbot's name
        self.widgets.append(widget)

    def waitUntil(self, predicate, timeout: int = 5000) -> None:  # noqa: N802
        wait_until(predicate, timeout / 1000.0)


ALL_GAPS: list[tuple[str, float, float]] = []  # every heartbeat's long gaps, for --trace-stalls


class Heartbeat:
    """A 10 ms QTimer; the worst gap between ticks per phase (``phase()`` names the current one)."""

    def __init__(self, phase: Callable[[], str | None]) -> None:
        from PySide6.QtCore import QTimer

        self.phase = phase
        self.worst: dict[str, float] = {}
        self.ticks: dict[str, int] = {}
        self.gaps: list[tuple[str, float, float]] = []  # (phase, start, end) of every gap over TRACE_GAP_S
        self.last = time.perf_counter()
        self.timer = QTimer()
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self.tick)
        self.timer.start()

    def tick(self) -> None:
        now = time.perf_counter()
        gap, self.last = now - self.last, now
        name = self.phase()
        if name:
            self.worst[name] = max(self.worst.get(name, 0.0), gap)
            self.ticks[name] = self.ticks.get(name, 0) + 1
            if gap > TRACE_GAP_S:
                self.gaps.append((name, now - gap, now))

    def stop(self) -> None:
        self.timer.stop()
        ALL_GAPS.extend(self.gaps)

    def stalls_ms(self) -> dict[str, float]:
        return {k: round(max(0.0, v * 1000 - TICK_MS), 1) for k, v in self.worst.items()}


# ----------------------------------------------------------------------------------------------
# stalls
# ----------------------------------------------------------------------------------------------
def stall_idle(beat_into: dict, seconds: float = 3.0) -> None:
    """The control: the same heartbeat with nothing running -- what the machine's own load does."""
    phase = {"name": "idle"}
    beat = Heartbeat(lambda: phase["name"])
    start = time.monotonic()
    wait_until(lambda: time.monotonic() - start > seconds, seconds + 5)
    beat.stop()
    beat_into.update(beat.stalls_ms())


def stall_detection(beat_into: dict) -> None:
    from wizard.app.session import Session
    from wizard.ui.main_wizard import SetupWizard

    window = SetupWizard(Session(lang="en"), defer_pages=True)
    phase = {"name": None}
    beat = Heartbeat(lambda: phase["name"])
    window.show()
    wait_until(lambda: window.isVisible(), 30)
    app().processEvents()
    phase["name"] = "detection"
    window.after_first_paint()  # what the real window does after its first paint (the System page's boxes, the later pages)
    window.start()
    wait_until(lambda: window.pages_ready and window.model.session.detection is not None
               and not window.model.detecting, 120)
    phase["name"] = None
    beat.stop()
    beat_into.update(beat.stalls_ms())
    window.close()


def stall_install(beat_into: dict, work: Path) -> None:
    """Planning, download and install through the real Environment and Install pages."""
    import platform as _platform

    from tests.gui import install_driver as tip
    from tests.integration.index_server import LoopbackIndex, make_wheel
    from wizard.core.recommend.inputs import MachineFacts, Wishes
    from wizard.core.recommend.recommender import recommend
    from wizard.ui.pages.base import PageId
    from wizard.ui.pages.install_page import STATE_DONE

    home = work / "home"
    home.mkdir(parents=True, exist_ok=True)
    for key, value in (("HOME", home), ("XDG_CACHE_HOME", home / "cache"), ("XDG_STATE_HOME", home / "state"),
                       ("GSW_CONFIG_DIR", home / "config"), ("GSW_DATA_DIR", home / "data")):
        os.environ[key] = str(value)
    os.environ["NO_PROXY"] = os.environ["no_proxy"] = "127.0.0.1,localhost"
    minor = f"{sys.version_info[0]}.{sys.version_info[1]}"
    rec = recommend(MachineFacts("linux", _platform.machine() or "x86_64", minor), Wishes(torch="2.13.0", variant="cpu"))
    if rec.best is None:
        raise RuntimeError("the recommender offers no torch 2.13 CPU build for this Python")
    best = rec.best
    d = work / "wheels"
    d.mkdir(exist_ok=True)
    wheels = [make_wheel(d, "torch", f"{best.torch}+cpu", requires=["typing-extensions>=4"],
                         payload_bytes=tip.TORCH_PAYLOAD, seed=7),
              make_wheel(d, "torchvision", f"{best.torchvision}+cpu", requires=[f"torch=={best.torch}"]),
              make_wheel(d, "typing-extensions", "4.12.2", files={"typing_extensions.py": "X = 1\n"})]
    bot = Bot()
    with LoopbackIndex() as index:
        index.add_wheels(wheels)
        index.throttle(wheels[0].name, 3_000_000)  # about a second of download
        window, env_page, page = tip.open_pages(bot, tip.make_session(rec), work, index)

        def phase() -> str | None:
            if window.currentId() == int(PageId.ENVIRONMENT):
                return "planning" if (env_page.plan_running or env_page.checks_running) else None
            runner = page.runner
            if runner is None or not runner.running or runner.current is None:
                return None
            step = runner.current.id
            return step if step in ("download", "install") else "install (other steps)"

        beat = Heartbeat(phase)
        try:
            tip.choose_new_venv(bot, env_page, work / "envs" / "가상 환경")
            tip.commit(window)
            tip.wait_end(bot, page)
        finally:
            beat.stop()
        if page.state != STATE_DONE:
            raise RuntimeError("the install did not finish: " + page.message)
        beat_into.update(beat.stalls_ms())
        window.close()


def stall_probes(beat_into: dict, torch_python: str, quick: bool) -> None:
    from wizard.app.session import Session
    from wizard.ui.main_wizard import SetupWizard
    from wizard.ui.pages.base import PageId

    session = Session(lang="en")
    window = SetupWizard(session)
    window.show()
    with_detection = window.model.detection_finished
    done = {"d": False}
    with_detection.connect(lambda _d: done.update(d=True))
    window.start()
    wait_until(lambda: done["d"] or window.model.session.detection_error is not None, 120)
    session.target_python = torch_python
    phase = {"name": None}
    beat = Heartbeat(lambda: phase["name"])
    try:
        for page_id, name in ((PageId.VERIFY, "verify"), (PageId.BENCHMARK, "bench")):
            window.setStartId(page_id)
            window.restart()
            page = window.currentPage()
            if name == "bench" and quick:
                page.extra_args = ["--max-size", "512", "--mlp-batch", "64"]
            finished = {"f": False}
            page.probe.finished.connect(lambda _o, f=finished: f.update(f=True))
            phase["name"] = name
            page.run_button.click()
            wait_until(lambda f=finished: f["f"], 600)
            phase["name"] = None
    finally:
        beat.stop()
    beat_into.update(beat.stalls_ms())
    window.close()


def cmd_stalls(args) -> dict:
    app()
    stalls: dict[str, float] = {}
    errors: dict[str, str] = {}
    sampler = StackSampler() if args.trace_stalls else None
    with tempfile.TemporaryDirectory(prefix="gui-bench ") as tmp:
        for name, run in (("idle", lambda: stall_idle(stalls)),
                          ("detection", lambda: stall_detection(stalls)),
                          ("install", lambda: stall_install(stalls, Path(tmp))),
                          ("probes", lambda: stall_probes(stalls, args.torch_python, args.quick)
                           if args.torch_python else (_ for _ in ()).throw(RuntimeError("no --torch-python")))):
            try:
                run()
            except Exception as exc:  # noqa: BLE001 - reported in the table as "not measured" with why
                errors[name] = f"{type(exc).__name__}: {exc}"
    result = {"stalls_ms": stalls, "errors": errors, "tick_ms": TICK_MS}
    if sampler is not None:
        sampler.stop()
        result["traces"] = sampler.explain(ALL_GAPS)
    return result


# ----------------------------------------------------------------------------------------------
# live plot
# ----------------------------------------------------------------------------------------------
def cmd_liveplot(args) -> dict:
    from PySide6.QtCore import QTimer

    from wizard.core.machine.nvml_sampler import GpuSample
    from wizard.ui.widgets.live_plot import LiveGpuPlot

    qapp = app()

    def cpu_over(seconds: float, tick: Callable[[], None] | None) -> float:
        """The process's CPU time per wall second while a real event loop runs ``seconds``."""
        from PySide6.QtCore import QEventLoop

        timer = QTimer()
        if tick is not None:
            timer.setInterval(1000)
            timer.timeout.connect(tick)
            timer.start()
        loop = QEventLoop()
        QTimer.singleShot(int(seconds * 1000), loop.quit)
        wall0, cpu0 = time.monotonic(), time.process_time()
        loop.exec()
        timer.stop()
        return (time.process_time() - cpu0) / (time.monotonic() - wall0)

    plot = LiveGpuPlot()
    plot.resize(360, 260)
    plot.show()
    n = {"i": 0}

    def feed() -> None:
        n["i"] += 1
        i = n["i"]
        plot.add_samples([GpuSample(index=0, t=time.monotonic(), utilization_gpu=float(i * 7 % 100),
                                    memory_used_mib=2000.0 + i * 10 % 500, memory_total_mib=12288.0,
                                    temperature_c=50.0 + i % 20)])

    feed()
    qapp.processEvents()
    idle = cpu_over(args.seconds, None)
    busy = cpu_over(args.seconds, feed)
    return {"seconds": args.seconds, "idle_core_fraction": round(idle, 4), "plot_core_fraction": round(busy, 4),
            "plot_cost_percent_of_one_core": round(max(0.0, busy - idle) * 100, 2), "samples": n["i"]}


# ----------------------------------------------------------------------------------------------
# memory
# ----------------------------------------------------------------------------------------------
def rss_bytes() -> int:
    import psutil

    return int(psutil.Process().memory_info().rss)


def cmd_memory_bare(_args) -> dict:
    from PySide6.QtWidgets import QLabel, QVBoxLayout, QWizard, QWizardPage

    qapp = app()
    wizard = QWizard()
    page = QWizardPage()
    page.setTitle("Bare page")
    QVBoxLayout(page).addWidget(QLabel("hello"))
    wizard.addPage(page)
    wizard.show()
    for _ in range(20):
        qapp.processEvents()
    return {"rss": rss_bytes()}


def cmd_memory_wizard(_args) -> dict:
    from wizard.app.session import Session
    from wizard.ui.main_wizard import SetupWizard
    from wizard.ui.pages.base import PageId

    qapp = app()
    window = SetupWizard(Session(lang="en"))
    window.show()
    window.start()
    wait_until(lambda: window.model.session.detection is not None and not window.model.detecting, 120)
    visited = []
    while True:
        qapp.processEvents()
        visited.append(PageId(window.currentId()).name)
        if window.currentId() == PageId.REPORT:
            break
        if window.currentId() == PageId.ENVIRONMENT:
            window.environment_page.skip_install()
        wait_until(lambda: window.currentPage().isComplete(), 60)
        window.next()
    for _ in range(20):
        qapp.processEvents()
    return {"rss": rss_bytes(), "visited": visited, "modules": len(sys.modules),
            "numpy": "numpy" in sys.modules, "pyqtgraph": "pyqtgraph" in sys.modules}


def cmd_memory(_args) -> dict:
    def child(mode: str) -> dict:
        out = subprocess.run([sys.executable, __file__, mode], capture_output=True, text=True, cwd=REPO,
                             timeout=300)
        if out.returncode != 0:
            raise RuntimeError(f"{mode} failed: {out.stderr[-800:]}")
        return json.loads(out.stdout.strip().splitlines()[-1])

    bare = [child("memory-bare") for _ in range(3)]
    wiz = [child("memory-wizard") for _ in range(3)]
    b = sorted(r["rss"] for r in bare)[1]
    w = sorted(r["rss"] for r in wiz)[1]
    return {"bare_rss_mib": round(b / 2**20, 1), "wizard_rss_mib": round(w / 2**20, 1), "ratio": round(w / b, 2),
            "visited": wiz[0]["visited"], "numpy_loaded": wiz[0]["numpy"], "pyqtgraph_loaded": wiz[0]["pyqtgraph"]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=["stalls", "liveplot", "memory", "memory-bare", "memory-wizard"])
    ap.add_argument("--torch-python", default=os.environ.get("GSW_TEST_TORCH_PYTHON"))
    ap.add_argument("--quick", action="store_true", help="small benchmark sizes in the bench phase")
    ap.add_argument("--trace-stalls", action="store_true",
                    help="stalls: sample every thread's stack every 2 ms and explain each gap over 30 ms")
    ap.add_argument("--seconds", type=float, default=20.0, help="liveplot: seconds idle and seconds plotting")
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    result = {"stalls": cmd_stalls, "liveplot": cmd_liveplot, "memory": cmd_memory,
              "memory-bare": cmd_memory_bare, "memory-wizard": cmd_memory_wizard}[args.mode](args)
    text = json.dumps(result, ensure_ascii=False)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
