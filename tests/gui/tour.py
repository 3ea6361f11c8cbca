"""A scripted tour: the real wizard driven through every page the way a student clicks it.

    python -m tests.gui.tour OUTDIR [--machine no-gpu|rtx3060-windows] [--lang ko|en]
                                    [--size 1024x700] [--vram-gb 8]

Run it under a real X server (``scripts/tour`` starts Xvfb and runs every machine, language
and size). Each page is screenshotted from the screen (``QScreen.grabWindow``) into
``OUTDIR/<machine>-<lang>-<size>-<n>-<page>.png``; the report is exported in every format into
``OUTDIR/<machine>-<lang>-<size>-report.{md,html,json,pdf}``, and ``…-tour.json`` says what
the tour did (pages seen, the index it installed from, the build, the VRAM choice), so a test
can check that the report tells the truth about the run.

The machines:

* ``no-gpu``: this computer with the NVIDIA parts answered as on a PC without a card (NVML
  finds no library, no nvidia-smi): the same on a developer's GPU PC as in CI. The tour
  installs the recommended CPU build for real — the torch 2.13.0 wheel and its dependencies
  served by a loopback index, typed in as a mirror on the Environment page — then verifies
  and benchmarks that environment with the real probes.
* ``rtx3060-windows``: the recorded Windows 11 PC with a GeForce RTX 3060
  (:func:`tests.scenarios.windows_rtx3060`). A Windows interpreter cannot run here, so the tour
  shows the Environment page's plan, takes "I already have an environment", and verifies and
  benchmarks a recorded interpreter: a script that answers as the probes did on an RTX 3060
  (tests/data/probe).

The torchvision served next to the real CPU torch is a small stand-in wheel (PyPI's
torchvision is built against the CUDA torch and does not import beside the CPU one); its
``ops.nms`` is a plain-PyTorch implementation so verify's torchvision check has a real op to run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from PySide6.QtCore import QTimer

from tests import scenarios

PROBE_DATA = Path(__file__).resolve().parents[1] / "data" / "probe"
STEP_TIMEOUT_S = 600.0
MACHINES = ("no-gpu", "rtx3060-windows")
SIZES = ("1024x700", "1600x1000")

TORCHVISION_NMS = '''"""Stand-in torchvision for the CPU torch 2.13.0 wheel (see tests/gui/tour.py)."""
__version__ = "0.28.0+cpu"
from . import ops  # noqa: F401
'''
TORCHVISION_OPS = '''import torch


def nms(boxes, scores, iou_threshold):
    """Greedy non-maximum suppression, as torchvision.ops.nms defines it."""
    order = scores.argsort(descending=True)
    keep = []
    while order.numel():
        i = order[0]
        keep.append(int(i))
        if order.numel() == 1:
            break
        rest = order[1:]
        lt = torch.maximum(boxes[i, :2], boxes[rest, :2])
        rb = torch.minimum(boxes[i, 2:], boxes[rest, 2:])
        inter = (rb - lt).clamp(min=0).prod(dim=1)
        area = lambda b: (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])  # noqa: E731
        iou = inter / (area(boxes[i:i + 1]) + area(boxes[rest]) - inter)
        order = rest[iou <= iou_threshold]
    return torch.tensor(keep, dtype=torch.int64)
'''

REPLAY = '''#!{python}
"""A recorded interpreter: answers each probe as it ran on the recorded machine."""
import sys
probe = next((a for a in sys.argv[1:] if a.endswith(("verify.py", "bench.py"))), "")
name = {{"verify.py": {verify!r}, "bench.py": {bench!r}}}.get(probe.replace("\\\\", "/").rsplit("/", 1)[-1])
if name is None:
    print("Python 3.11.9")
    sys.exit(0)
sys.stdout.write(open(name, encoding="utf-8").read())
'''


@dataclass
class TourRecord:
    """What the tour did: a test reads it next to the exported report."""

    machine: str
    lang: str
    size: str
    pages: list[str] = field(default_factory=list)
    screenshots: list[str] = field(default_factory=list)
    index_url: str | None = None
    installed: str | None = None
    env_python: str | None = None
    vram_gb: float | None = None
    reports: dict[str, str] = field(default_factory=dict)
    layout: dict[str, list[str]] = field(default_factory=dict)  # page → what the layout checker found
    facts: dict = field(default_factory=dict)  # what a leg (tests/gui/tour_legs.py) saw the window say
    failure: str | None = None
    seconds: float = 0.0


def prepare_home(base: Path) -> Path:
    """A student's home with a Hangul name; cache, state and config inside it, no proxy for loopback."""
    home = base / "home" / "김철수"
    home.mkdir(parents=True)
    for name, value in (("HOME", home), ("USERPROFILE", home), ("XDG_CACHE_HOME", home / ".cache"),
                        ("XDG_STATE_HOME", home / ".local" / "state"), ("XDG_CONFIG_HOME", home / ".config"),
                        ("XDG_DATA_HOME", home / ".local" / "share")):
        os.environ[name] = str(value)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        os.environ.pop(name, None)
    os.environ["NO_PROXY"] = os.environ["no_proxy"] = "127.0.0.1,localhost"
    return home


def torch_wheels(folder: Path) -> list[Path]:
    """The real torch 2.13.0 CPU wheel with its dependencies, and the stand-in torchvision."""
    from tests.integration.index_server import make_wheel

    folder.mkdir(parents=True, exist_ok=True)
    got = subprocess.run([sys.executable, "-m", "pip", "download", "torch==2.13.0", "--only-binary", ":all:",
                          "-d", str(folder), "-q"], capture_output=True, text=True, timeout=900)
    if got.returncode != 0 or not list(folder.glob("torch-2.13.0*.whl")):
        raise SystemExit(f"no torch 2.13.0 wheel can be had here: {(got.stderr or got.stdout)[-300:]}")
    make_wheel(folder, "torchvision", "0.28.0+cpu", requires=["torch==2.13.0"],
               files={"torchvision/__init__.py": TORCHVISION_NMS, "torchvision/ops/__init__.py": TORCHVISION_OPS})
    return sorted(folder.glob("*.whl"))


def recorded_interpreter(folder: Path) -> Path:
    """An executable that prints the RTX 3060's recorded probe output (tests/data/probe)."""
    path = folder / "rtx3060-python"
    path.write_text(REPLAY.format(python=sys.executable,
                                  verify=str(PROBE_DATA / "verify_rtx3060_cu128_linux.jsonl"),
                                  bench=str(PROBE_DATA / "bench_rtx3060_quick_linux.jsonl")), encoding="utf-8")
    path.chmod(0o755)
    return path


class Tour:
    """Steps run one after the other on the event loop; each waits for a condition, never sleeps."""

    def __init__(self, app, window, record: TourRecord, out: Path) -> None:
        self.app, self.window, self.record, self.out = app, window, record, out
        self.steps: list[tuple[str, Callable[[], bool], Callable[[], None]]] = []
        self.started = time.monotonic()
        self.step_started = 0.0
        self.timeout_s = float(os.environ.get("GSW_TOUR_STEP_TIMEOUT", STEP_TIMEOUT_S))

    def then(self, name: str, ready: Callable[[], bool], action: Callable[[], None]) -> "Tour":
        """When ``ready()`` holds, run ``action``; the step is named for a timeout message."""
        self.steps.append((name, ready, action))
        return self

    def grab(self, name: str) -> None:
        # A worker's result can arrive in the first round (a queued signal) and post the layout
        # requests of what it showed; a second and third round lay those out before the
        # screenshot and the layout check, which would otherwise see the old geometry.
        for _ in range(3):
            self.app.processEvents()
        index = len(self.record.screenshots) + 1
        path = self.out / f"{self.record.machine}-{self.record.lang}-{self.record.size}-{index}-{name}.png"
        if not self.window.screen().grabWindow(self.window.winId()).save(str(path)):
            raise SystemExit(f"could not save {path}")
        self.record.screenshots.append(path.name)
        self.record.pages.append(name)
        from tests.gui.layout_check import check_window

        problems = check_window(self.window)
        if problems:
            self.record.layout[name] = [str(p) for p in problems]

    def run(self) -> None:
        self.step_started = time.monotonic()
        QTimer.singleShot(50, self._poll)

    def _poll(self) -> None:
        if not self.steps:
            return self.finish(None)
        name, ready, action = self.steps[0]
        try:
            if ready():
                self.steps.pop(0)
                action()
                self.step_started = time.monotonic()
        except Exception as exc:  # the tour reports what broke instead of hanging the event loop
            import traceback

            return self.finish(f"{name}: {exc!r}\n{traceback.format_exc()}")
        if time.monotonic() - self.step_started > self.timeout_s:
            self.grab("timed-out")  # what the window showed while the tour waited in vain
            return self.finish(f"timed out waiting for: {name}")
        QTimer.singleShot(100, self._poll)

    def finish(self, failure: str | None) -> None:
        self.record.failure = failure
        self.record.seconds = round(time.monotonic() - self.started, 1)
        name = f"{self.record.machine}-{self.record.lang}-{self.record.size}-tour.json"
        (self.out / name).write_text(json.dumps(asdict(self.record), ensure_ascii=False, indent=2), encoding="utf-8")
        self.window.gpu_page.cleanup()
        self.app.exit(0 if failure is None else 1)


def settle(seconds: float) -> Callable[[], bool]:
    """A condition that holds ``seconds`` after it is first asked (for an animation to draw)."""
    start: list[float] = []

    def ready() -> bool:
        if not start:
            start.append(time.monotonic())
        return time.monotonic() - start[0] >= seconds
    return ready


def build_tour(tour: Tour, session, index, work: Path, vram_gb: float | None) -> None:
    from wizard.ui.pages.base import PageId

    w = tour.window
    record = tour.record
    gpu = record.machine != "no-gpu"
    env = w.environment_page

    def at(page_id) -> Callable[[], bool]:
        return lambda: w.currentId() == page_id

    def to_environment() -> None:
        w.next()

    def type_mirror() -> None:
        env.more_button.click()
        env.mirror_edit.setFocus()
        env.mirror_edit.setText(index.base + "/whl" if index else env.mirror_edit.text())
        env.mirror_edit.editingFinished.emit()
        record.index_url = env.mirror_edit.text() or None

    def plan_ready() -> bool:
        return env.plan is not None and env.checks is not None and not env.checks_running and not env.plan_running

    def mirror_answered() -> bool:
        return plan_ready() or bool(getattr(env, "alt_buttons", None))

    def switch_build() -> None:
        """The mirror has only torch 2.13.0: the page offers it, the student clicks it."""
        if plan_ready():
            return
        tour.grab("environment-mirror")
        button = next((b for b in env.alt_buttons if "2.13.0" in b.objectName()), None)
        if button is None:
            raise RuntimeError("the page did not offer the mirror's torch 2.13.0: "
                               + ", ".join(b.objectName() for b in env.alt_buttons))
        button.click()

    def install() -> None:
        env.more_button.click()  # fold the settings away again: the plan is the point
        tour.grab("environment")
        w.next()

    def installed() -> bool:
        page = w.install_page
        return page.runner is not None and not page.runner.running and page.state not in ("running", "stopping")

    def after_install() -> None:
        tour.grab("install")
        if w.install_page.state != "done":
            raise RuntimeError("install ended as " + str(w.install_page.state))
        record.env_python = session.install.env_python if session.install is not None else None
        w.next()

    def skip_install() -> None:
        tour.grab("environment")
        session.target_python = str(recorded_interpreter(work))
        env.skip_install()
        w.next()

    def verify_ready() -> bool:
        page = w.verify_page
        # the diagnosis under the checklist comes from a worker after the probe: it is on the page too
        return (w.currentId() == PageId.VERIFY and session.verify is not None and not page.probe.running
                and session.diagnosis is not None)

    def start_verify_if_idle() -> None:
        page = w.verify_page
        if session.verify is None and not page.probe.running:
            page.run_button.click()

    def bench() -> None:
        tour.grab("verify")
        torch_facts = session.verify.section("torch") if hasattr(session.verify, "section") else None
        record.installed = (torch_facts or {}).get("version") if isinstance(torch_facts, dict) else None
        w.next()
        page = w.benchmark_page
        page.extra_args = ["--max-size", "512", "--mlp-batch", "32", "--max-bytes", str(8 * 1024 * 1024)]
        page.run_button.click()

    def benched() -> bool:
        return session.bench is not None and not w.benchmark_page.probe.running

    def vram() -> None:
        tour.grab("benchmark")
        w.next()

    def choose_vram() -> None:
        if vram_gb is not None:
            page = w.vram_page
            page.gpu_combo.setCurrentIndex(page.gpu_combo.count() - 1)
            page.gb_spin.setValue(vram_gb)
            record.vram_gb = vram_gb

    def report() -> None:
        tour.grab("vram")
        w.next()

    def export() -> None:
        tour.grab("report")
        page = w.report_page
        stem = f"{record.machine}-{record.lang}-{record.size}-report"
        for fmt in ("md", "html", "json", "pdf"):
            path = tour.out / f"{stem}.{fmt}"
            if not page.save_to(fmt, path):
                raise RuntimeError(f"the report could not be saved as {fmt}")
            record.reports[fmt] = path.name

    tour.then("detection", lambda: session.detection is not None, lambda: None)
    tour.then("system page drawn", settle(0.5), lambda: (tour.grab("system"), w.next()))
    tour.then("GPU page drawn", settle(1.5 if gpu else 0.5), lambda: (tour.grab("gpu"), w.next()))
    tour.then("recommend page", at(PageId.RECOMMEND), lambda: None)
    tour.then("recommend page drawn", settle(0.5), lambda: (tour.grab("recommend"), to_environment()))
    tour.then("environment page", at(PageId.ENVIRONMENT), type_mirror if index else lambda: None)
    if index is not None:
        tour.then("the mirror's answer", mirror_answered, switch_build)
        tour.then("the plan from the mirror", plan_ready, install)
        tour.then("the install", installed, after_install)
    else:
        shown = settle(1.0)
        tour.then("the plan", lambda: shown() and not env.pending(), skip_install)
    tour.then("verify page", at(PageId.VERIFY), start_verify_if_idle)
    tour.then("verify result", verify_ready, bench)
    tour.then("benchmark result", benched, vram)
    tour.then("vram page", at(PageId.VRAM), choose_vram)
    tour.then("vram page drawn", settle(0.5), report)
    tour.then("report page", at(PageId.REPORT), lambda: None)
    tour.then("report page drawn", settle(0.8), export)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("outdir")
    parser.add_argument("--machine", default="no-gpu", choices=MACHINES)
    parser.add_argument("--lang", default="ko", choices=["ko", "en"])
    parser.add_argument("--size", default="1024x700")
    parser.add_argument("--vram-gb", type=float, default=None, help="type this card size on the VRAM page")
    parser.add_argument("--wheels", default=None, help="a folder to keep the downloaded wheels in between tours")
    args = parser.parse_args(argv)
    out = Path(args.outdir)
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="gsw-tour-"))
    prepare_home(work)
    width, height = (int(v) for v in args.size.lower().split("x"))

    from tests.integration.index_server import LoopbackIndex
    from wizard.app.session import Session
    from wizard.ui.app import create_app
    from wizard.ui.main_wizard import SetupWizard

    index = None
    if args.machine == "no-gpu":
        index = LoopbackIndex().start()
        index.add_wheels(torch_wheels(Path(args.wheels) if args.wheels else work / "wheels"))
        host = scenarios.this_pc_without_gpu()
    else:
        host = scenarios.windows_rtx3060()
    app = create_app([sys.argv[0]], lang=args.lang)
    session = Session(host=host, lang=args.lang)
    window = SetupWizard(session)
    window.resize(width, height)
    window.show()
    record = TourRecord(args.machine, args.lang, args.size)
    tour = Tour(app, window, record, out)
    build_tour(tour, session, index, work, args.vram_gb)
    QTimer.singleShot(0, window.start)
    tour.run()
    code = app.exec()
    if index is not None:
        index.stop()
    print(json.dumps({"failure": record.failure, "screenshots": record.screenshots}, ensure_ascii=False))
    return code


if __name__ == "__main__":
    sys.exit(main())
