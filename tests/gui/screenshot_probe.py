"""Screenshots of the Verify and Benchmark pages after real probe runs (under Xvfb).

    python -m tests.gui.screenshot_probe OUTDIR PYTHON [--lang ko|en]
PYTHON is an interpreter with torch. The benchmark uses small sizes to stay quick.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from PySide6.QtCore import QTimer

from tests import scenarios


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("outdir")
    parser.add_argument("python")
    parser.add_argument("--lang", default="ko", choices=["ko", "en"])
    args = parser.parse_args(argv)
    out = Path(args.outdir)
    out.mkdir(parents=True, exist_ok=True)

    from wizard.app.session import Session
    from wizard.ui.app import create_app
    from wizard.ui.main_wizard import SetupWizard
    from wizard.ui.pages.base import PageId

    app = create_app([sys.argv[0]])
    window = SetupWizard(Session(host=scenarios.linux_host(), lang=args.lang))
    window.model.session.target_python = args.python
    window.resize(1000, 720)
    window.show()
    saved: list[str] = []

    def grab(name: str) -> None:
        app.processEvents()
        path = out / f"probe-{args.lang}-{name}.png"
        window.screen().grabWindow(window.winId()).save(str(path))
        saved.append(str(path))

    def detected(_d) -> None:
        while window.currentId() != PageId.VERIFY:
            if window.currentId() == PageId.ENVIRONMENT:
                window.environment_page.skip_install()
            window.next()
        window.verify_page.probe.finished.connect(lambda _o: QTimer.singleShot(200, verified))
        window.verify_page.run_button.click()

    def verified() -> None:
        grab("6-verify")
        window.next()
        page = window.benchmark_page
        page.extra_args = ["--max-size", "1024", "--mlp-batch", "64", "--max-bytes", str(16 * 1024 * 1024)]
        page.probe.finished.connect(lambda _o: QTimer.singleShot(300, benched))
        page.run_button.click()

    def benched() -> None:
        grab("7-benchmark")
        print("\n".join(saved))
        app.exit(0)

    window.model.detection_finished.connect(detected)
    QTimer.singleShot(0, window.start)
    QTimer.singleShot(240000, lambda: (print("timed out", file=sys.stderr), app.exit(1)))
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
