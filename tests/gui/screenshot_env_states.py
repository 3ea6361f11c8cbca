"""Screenshots of the Environment and Install pages in the states a student should not misread:
a mirror that does not answer (Install disabled, no "ready"), a mirror that lacks the chosen
build (the builds it has, one click each), a connection lost during the download (the failure in
the page's language, pip's words under Details), the stop question during a download, and the
next run offering the environment the last one installed.

Run under a real X server (Xvfb):
    python -m tests.gui.screenshot_env_states OUTDIR [--lang ko|en]
Saves <lang>-g1-blocked.png, <lang>-g2-alternatives.png, <lang>-g3-connection-failed.png,
<lang>-g4-stop-question.png, <lang>-g5-rerun-offer.png, <lang>-g6-stopping-install-step.png (a stop
waiting for the installer, with "Stop now") and prints their paths.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

from tests.gui.screenshot_install import prepare_home


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("outdir")
    parser.add_argument("--lang", default="ko", choices=["ko", "en"])
    args = parser.parse_args(argv)
    out = Path(args.outdir)
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="gsw-g-shots-"))
    home = prepare_home(work)
    os.environ["GSW_CONFIG_DIR"] = str(home / ".config" / "gpu-setup-wizard")
    os.environ["GSW_DATA_DIR"] = str(home / ".local" / "share" / "gpu-setup-wizard")

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox, QWizard

    from tests.integration.index_server import LoopbackIndex, free_port, make_wheel
    from wizard.app import history as app_history
    from wizard.app.session import Session
    from wizard.core.base.host import RealHost
    from wizard.core.machine.models import Detection, NvidiaInfo, PythonInterpreter, SystemInfo
    from wizard.core.recommend.choose_python import PythonChoice
    from wizard.core.recommend.inputs import MachineFacts, Wishes
    from wizard.core.recommend.recommender import recommend
    from wizard.ui.app import create_app
    from wizard.ui.main_wizard import SetupWizard
    from wizard.ui.pages.base import PageId
    from wizard.ui.pages.environment.common import MODE_NEW_VENV
    from wizard.ui.pages.environment_page import register_install_pages

    minor = f"{sys.version_info[0]}.{sys.version_info[1]}"
    facts = MachineFacts("linux", "x86_64", minor)
    rec = recommend(facts, Wishes(torch="2.13.0", variant="cpu"))
    best = rec.best
    older = [c for c in recommend(facts, Wishes(variant="cpu", newest=True)).candidates
             if c.torch != best.torch and c.torchaudio is None][-1]
    wheels = work / "wheels"
    ours = [make_wheel(wheels, "torch", f"{best.torch}+cpu", requires=["typing-extensions>=4"],
                       payload_bytes=4_000_000, seed=7),
            make_wheel(wheels, "torchvision", f"{best.torchvision}+cpu", requires=[f"torch=={best.torch}"]),
            make_wheel(wheels, "typing-extensions", "4.12.2", files={"typing_extensions.py": "X = 1\n"})]
    theirs = [make_wheel(work / "old", "torch", f"{older.torch}+cpu"),
              make_wheel(work / "old", "torchvision", f"{older.torchvision}+cpu", requires=[f"torch=={older.torch}"])]
    app = create_app([sys.argv[0]])
    saved: list[str] = []

    def wait(condition, timeout_s: float = 90.0) -> None:
        deadline = time.monotonic() + timeout_s
        while not condition():
            if time.monotonic() > deadline:
                raise SystemExit("timed out")
            app.processEvents()
            time.sleep(0.02)

    def settle(seconds: float = 0.4) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            app.processEvents()
            time.sleep(0.02)

    def grab(widget, name: str, rendered: bool = False) -> None:
        settle(0.05 if rendered else 0.4)  # (a stop that waits for the installer does not wait long)
        path = out / f"{args.lang}-{name}.png"
        # rendered: the widget draws itself (right after a modal question the X window may not be
        # exposed again yet, and the screen there reads black)
        pixmap = widget.grab() if rendered else widget.screen().grabWindow(widget.winId())
        if not pixmap.save(str(path)):
            raise SystemExit(f"could not save {path}")
        saved.append(str(path))

    def wizard(mirror: str | None):
        session = Session(host=RealHost(), lang=args.lang)
        py = PythonInterpreter(path=sys.executable, version=platform.python_version(), arch="x86_64", bits=64,
                               implementation="CPython", source="current", is_venv=sys.prefix != sys.base_prefix)
        session.detection = Detection(SystemInfo(os="linux"), NvidiaInfo(), pythons=[py])
        session.recommendation = PythonChoice(minor, py, rec)
        session.candidate = best
        window = SetupWizard(session)
        env, inst = register_install_pages(window)
        if mirror is not None:
            env.settings.mirror = mirror
        window.setStartId(PageId.ENVIRONMENT)
        window.resize(1000, 720)
        window.show()
        window.restart()
        return window, env, inst

    def planned(env) -> None:
        wait(lambda: not env.plan_running and env.checks is not None and not env.checks_running
             and not env.alternatives_running)

    # 1: a mirror nobody answers
    window, env, inst = wizard(f"http://127.0.0.1:{free_port()}/whl")
    env.set_mode(MODE_NEW_VENV)
    env.refresh()
    planned(env)
    grab(window, "g1-blocked")
    window.close()
    # 2: a mirror with an older build only
    with LoopbackIndex() as old_index:
        old_index.add_wheels(theirs)
        window, env, inst = wizard(old_index.base + "/whl")
        env.refresh()
        planned(env)
        env.more_button.setChecked(False)
        grab(window, "g2-alternatives")
        window.close()
    with LoopbackIndex() as index:
        index.add_wheels(ours)
        # 3: the connection drops during the download
        index.drop_after(ours[0].name, 1_500_000, then_down=True)
        window, env, inst = wizard(index.base + "/whl")
        env.venv_path.setText(str(home / "envs" / "끊긴 연결"))
        env.refresh()
        planned(env)
        window.button(QWizard.WizardButton.CommitButton).click()
        wait(lambda: inst.runner is not None and not inst.runner.running and inst.state == "failed")
        grab(window, "g3-connection-failed")
        window.close()
    with LoopbackIndex() as index:
        index.add_wheels(ours)
        index.throttle(ours[0].name, 400_000)
        # 4: the stop question during the download; answered "keep installing", then the install ends
        window, env, inst = wizard(index.base + "/whl")
        env.refresh()
        planned(env)
        window.button(QWizard.WizardButton.CommitButton).click()
        wait(lambda: inst.last_download is not None and inst.last_download.fetched_bytes > 600_000)

        def answer() -> None:
            box = QApplication.activeModalWidget()
            if box is None:
                QTimer.singleShot(100, answer)
                return
            grab(box, "g4-stop-question")
            box.reject()  # Esc: the safe answer, "keep installing"

        QTimer.singleShot(300, answer)
        window.reject()  # the wizard's Cancel
        index.throttle(ours[0].name, None)
        wait(lambda: inst.runner is not None and not inst.runner.running)
        if inst.state != "done":
            raise SystemExit(f"the install did not finish: {inst.message}")
        app_history.save_snapshot(window.model.session)
        window.close()
        # 5: the next run offers that environment and fills in the mirror
        window, env, inst = wizard(None)
        planned(env)
        grab(window, "g5-rerun-offer")
        window.close()
    slow = [make_wheel(work / "slow", "torch", f"{best.torch}+cpu", requires=["typing-extensions>=4"],
                       many_files=60000),
            ours[1], ours[2]]
    with LoopbackIndex() as index:
        index.add_wheels(slow)
        # 6: Cancel while the installer writes: the stop waits for it, "Stop now" is offered
        window, env, inst = wizard(index.base + "/whl")
        env.set_mode(MODE_NEW_VENV)
        env.venv_path.setText(str(home / "envs" / "설치 단계"))
        env.refresh()
        planned(env)
        window.button(QWizard.WizardButton.CommitButton).click()
        wait(lambda: inst.runner is not None and inst.runner.current is not None and inst.runner.current.id == "install")

        def stop_and_close() -> None:
            box = QApplication.activeModalWidget()
            if box is None:
                QTimer.singleShot(50, stop_and_close)
                return
            next(b for b in box.buttons() if box.buttonRole(b) == QMessageBox.ButtonRole.AcceptRole).click()

        QTimer.singleShot(100, stop_and_close)
        window.reject()
        if inst.state == "stopping":
            grab(window, "g6-stopping-install-step", rendered=True)
        wait(lambda: not inst.runner.running)
        window.close()
    print("\n".join(saved))
    return 0


if __name__ == "__main__":
    sys.exit(main())
