"""Screenshots of the Environment and Install pages during a real install from a loopback index.

Run under a real X server (Xvfb) to see what a student sees:
    python -m tests.gui.screenshot_install OUTDIR [--lang ko|en] [--corrupt]
Tiny wheels named like the recommended CPU build are served on 127.0.0.1 (the torch one slowly,
so the download can be caught in the middle); the home folder is a temporary one with a Hangul
name. Saves <lang>-5a-environment.png (the plan shown), <lang>-5b-install-download.png (in the
middle of the download) and <lang>-5c-install-done.png -- or, with ``--corrupt`` (the torch file
arrives damaged twice), <lang>-5c-install-failed.png -- and prints their paths.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QTimer

TORCH_PAYLOAD = 6_000_000


def prepare_home(base: Path) -> Path:
    """A student's home: Hangul in the name; cache and state under it, no proxy for loopback."""
    home = base / "home" / "김철수"
    home.mkdir(parents=True)
    os.environ["HOME"] = str(home)
    os.environ["XDG_CACHE_HOME"] = str(home / ".cache")
    os.environ["XDG_STATE_HOME"] = str(home / ".local" / "state")
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        os.environ.pop(name, None)
    os.environ["NO_PROXY"] = os.environ["no_proxy"] = "127.0.0.1,localhost"
    return home


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("outdir")
    parser.add_argument("--lang", default="ko", choices=["ko", "en"])
    parser.add_argument("--corrupt", action="store_true", help="the torch wheel arrives damaged: a failure")
    args = parser.parse_args(argv)
    out = Path(args.outdir)
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="gsw-shots-"))
    prepare_home(work)

    from tests.integration.index_server import LoopbackIndex, make_wheel
    from wizard.app.session import Session
    from wizard.core.base.host import RealHost
    from wizard.core.machine.models import Detection, NvidiaInfo, PythonInterpreter, SystemInfo
    from wizard.core.recommend.choose_python import PythonChoice
    from wizard.core.recommend.inputs import MachineFacts, Wishes
    from wizard.core.recommend.recommender import recommend
    from wizard.ui.app import create_app
    from wizard.ui.main_wizard import SetupWizard
    from wizard.ui.pages.base import PageId
    from wizard.ui.pages.environment_page import register_install_pages

    minor = f"{sys.version_info[0]}.{sys.version_info[1]}"
    rec = recommend(MachineFacts("linux", "x86_64", minor), Wishes(torch="2.13.0", variant="cpu"))
    best = rec.best
    if best is None:
        raise SystemExit("no torch 2.13 CPU build for this Python")
    wheels = work / "wheels"
    paths = [make_wheel(wheels, "torch", f"{best.torch}+cpu", requires=["typing-extensions>=4"],
                        payload_bytes=TORCH_PAYLOAD, seed=7),
             make_wheel(wheels, "torchvision", f"{best.torchvision}+cpu", requires=[f"torch=={best.torch}"],
                        payload_bytes=800_000, seed=8),
             make_wheel(wheels, "typing-extensions", "4.12.2", files={"typing_extensions.py": "X = 1\n"})]
    index = LoopbackIndex().start()
    index.add_wheels(paths)
    index.throttle(paths[0].name, 3_000_000 if args.corrupt else 1_500_000)  # a failure fetches it twice
    index.throttle(paths[1].name, 400_000)
    if args.corrupt:
        index.corrupt(paths[0].name, times=2)

    app = create_app([sys.argv[0]])
    session = Session(host=RealHost(), lang=args.lang)
    py = PythonInterpreter(path=sys.executable, version=platform.python_version(), arch="x86_64", bits=64,
                           implementation="CPython", source="current", is_venv=sys.prefix != sys.base_prefix)
    session.detection = Detection(SystemInfo(os="linux"), NvidiaInfo(), pythons=[py])
    session.recommendation = PythonChoice(minor, py, rec)
    session.candidate = best
    window = SetupWizard(session)
    env_page, install_page = register_install_pages(window)
    window.setStartId(PageId.ENVIRONMENT)
    window.resize(1000, 720)
    window.show()
    window.restart()
    env_page.more_button.click()
    env_page.mirror_edit.setText(index.base + "/whl")
    env_page.mirror_edit.editingFinished.emit()
    saved: list[str] = []

    def grab(name: str) -> None:
        app.processEvents()
        pixmap = window.screen().grabWindow(window.winId())
        path = out / f"{args.lang}-{name}.png"
        if not pixmap.save(str(path)):
            raise SystemExit(f"could not save {path}")
        saved.append(str(path))

    def when(condition, then, timeout_s: float = 90.0) -> None:
        deadline = [timeout_s * 1000]

        def poll() -> None:
            if condition():
                then()
                return
            deadline[0] -= 100
            if deadline[0] <= 0:
                print(f"timed out waiting before {then.__name__}", file=sys.stderr)
                app.exit(1)
                return
            QTimer.singleShot(100, poll)

        QTimer.singleShot(100, poll)

    def plan_shown() -> bool:
        return env_page.plan is not None and env_page.checks is not None and not env_page.checks_running

    def environment() -> None:
        env_page.more_button.click()  # fold the settings away again: the plan is the point
        QTimer.singleShot(300, lambda: (grab("5a-environment"), start()))

    def start() -> None:
        window.next()
        when(lambda: install_page.last_download is not None and install_page.last_download.done_bytes > 2_500_000,
             mid_download)

    def mid_download() -> None:
        QTimer.singleShot(200, lambda: grab("5b-install-download"))
        when(lambda: install_page.runner is not None and not install_page.runner.running, done)

    def done() -> None:
        name = "5c-install-failed" if args.corrupt else "5c-install-done"
        QTimer.singleShot(400, lambda: (grab(name), finish()))

    def finish() -> None:
        index.stop()
        window.gpu_page.cleanup()
        print("\n".join(saved))
        app.exit(0 if install_page.state == ("failed" if args.corrupt else "done") else 1)

    when(plan_shown, environment)
    QTimer.singleShot(150000, lambda: (print("timed out", file=sys.stderr), app.exit(1)))
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
