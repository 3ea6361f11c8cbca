"""The VRAM page as a student sees it, under a real X server: before and after "Measure my model…".

    python -m tests.gui.screenshot_vram OUTDIR --python /path/to/python-with-torch
        [--scenario no-gpu|windows-gpu] [--lang en|ko] [--spec torchvision:mobilenet_v3_large]

The window is captured from the screen (QScreen.grabWindow); the measurement is the real probe
run in that Python. PNGs: <scenario>-<lang>-vram-before.png, -vram-measured.png (the result
scrolled into view), -vram-lessons.png.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QScrollArea

from tests import scenarios

SCENARIOS = {"no-gpu": scenarios.linux_host, "windows-gpu": scenarios.windows_rtx2080super}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("outdir")
    parser.add_argument("--python", required=True)
    parser.add_argument("--scenario", default="no-gpu", choices=sorted(SCENARIOS))
    parser.add_argument("--lang", default="en", choices=["ko", "en"])
    parser.add_argument("--spec", default="torchvision:mobilenet_v3_large")
    parser.add_argument("--batch", type=int, default=32)
    args = parser.parse_args(argv)
    out = Path(args.outdir)
    out.mkdir(parents=True, exist_ok=True)

    from wizard.app.session import Session
    from wizard.ui.app import create_app
    from wizard.ui.main_wizard import SetupWizard
    from wizard.ui.pages.base import PageId

    app = create_app([sys.argv[0]])
    session = Session(host=SCENARIOS[args.scenario](), lang=args.lang)
    session.target_python = args.python
    window = SetupWizard(session)
    window.resize(1000, 760)
    window.show()
    status = {"code": 1}

    def grab(name: str) -> None:
        app.processEvents()
        path = out / f"{args.scenario}-{args.lang}-{name}.png"
        if not window.screen().grabWindow(window.winId()).save(str(path)):
            raise SystemExit(f"could not save {path}")
        print(path)

    def scroll_to(widget) -> None:
        area = window.vram_page.findChild(QScrollArea, "pageScroll")
        if area is not None:
            area.ensureWidgetVisible(widget, 0, 0)
        app.processEvents()

    def at_vram(_detection) -> None:
        while window.currentId() != PageId.VRAM:
            if window.currentId() == PageId.ENVIRONMENT:
                window.environment_page.skip_install()
            window.next()
        page = window.vram_page
        QTimer.singleShot(400, lambda: (grab("vram-before"), measure(page)))

    def measure(page) -> None:
        page.mode_combo.setCurrentIndex(page.mode_combo.findData("train"))
        page.precision_combo.setCurrentIndex(page.precision_combo.findData("fp32"))
        page.batch_spin.setValue(args.batch)
        page.spec_edit.setText(args.spec)
        page.start_measure()
        page.probe.finished.connect(lambda _o: QTimer.singleShot(400, lambda: measured(page)))

    def measured(page) -> None:
        scroll_to(page.measure_box)
        grab("vram-measured")
        scroll_to(page.lessons_box)
        grab("vram-lessons")
        status["code"] = 0 if page.measurement is not None and page.measurement.measured else 2
        app.quit()

    window.model.detection_finished.connect(at_vram)
    window.start()
    QTimer.singleShot(600_000, app.quit)
    app.exec()
    return status["code"]


if __name__ == "__main__":
    sys.exit(main())
