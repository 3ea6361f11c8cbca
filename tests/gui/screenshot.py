"""Open the wizard on a recorded machine and save a PNG of each requested page.

Run under a real X server (Xvfb) to see what a student sees:
    python -m tests.gui.screenshot OUTDIR [--scenario windows-gpu|no-gpu|mismatch] [--lang ko|en]
The window is captured from the screen (QScreen.grabWindow), not rendered offscreen.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from PySide6.QtCore import QTimer

from tests import scenarios

SCENARIOS = {
    "windows-gpu": scenarios.windows_rtx2080super,
    "no-gpu": scenarios.linux_host,
    "mismatch": scenarios.linux_driver_mismatch,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("outdir")
    parser.add_argument("--scenario", default="windows-gpu", choices=sorted(SCENARIOS))
    parser.add_argument("--lang", default="ko", choices=["ko", "en"])
    parser.add_argument("--plot-seconds", type=float, default=4.0)
    args = parser.parse_args(argv)
    out = Path(args.outdir)
    out.mkdir(parents=True, exist_ok=True)

    from wizard.app.session import Session
    from wizard.ui.app import create_app
    from wizard.ui.main_wizard import SetupWizard

    app = create_app([sys.argv[0]])
    window = SetupWizard(Session(host=SCENARIOS[args.scenario](), lang=args.lang))
    window.resize(1000, 720)
    window.show()
    saved: list[str] = []

    def grab(name: str) -> None:
        app.processEvents()
        pixmap = window.screen().grabWindow(window.winId())
        path = out / f"{args.scenario}-{args.lang}-{name}.png"
        if not pixmap.save(str(path)):
            raise SystemExit(f"could not save {path}")
        saved.append(str(path))

    def after_detection(_detection) -> None:
        QTimer.singleShot(300, lambda: (grab("1-system"), window.next(),
                                        QTimer.singleShot(int(args.plot_seconds * 1000), second)))

    def second() -> None:
        grab("2-gpu")
        window.next()
        QTimer.singleShot(300, third)

    def third() -> None:
        grab("3-recommend")
        window.recommend_page.more_button.click()
        QTimer.singleShot(200, lambda: (grab("3-recommend-more"), window.next(),
                                        QTimer.singleShot(1500, fourth)))

    def fourth() -> None:
        grab("4-environment")
        from wizard.ui.pages.base import PageId

        while window.currentId() != PageId.VRAM:
            if window.currentId() == PageId.ENVIRONMENT:
                window.environment_page.skip_install()
            window.next()
        QTimer.singleShot(500, lambda: (grab("8-vram"), finish()))

    def finish() -> None:
        window.gpu_page.cleanup()
        print("\n".join(saved))
        app.exit(0)

    window.model.detection_finished.connect(after_detection)
    QTimer.singleShot(0, window.start)
    QTimer.singleShot(60000, lambda: (print("timed out", file=sys.stderr), app.exit(1)))
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
