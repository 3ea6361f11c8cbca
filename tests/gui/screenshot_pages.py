"""Screenshots of the System, Recommend, Verify and VRAM pages at a chosen window size, with
the layout checker's findings printed for each.

Run under a real X server (Xvfb) to see what a student sees:
    python -m tests.gui.screenshot_pages OUTDIR [--scenario no-gpu|windows-gpu] [--lang ko|en] [--size 1024x700]
The Verify page shows the recorded checklist of a CPU build on a PC without an NVIDIA GPU.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tests import scenarios


def _this_pc():
    from wizard.core.base.host import RealHost

    return RealHost()  # this machine's own interpreters (pyenv shims and all)


SCENARIOS = {"windows-gpu": scenarios.windows_rtx2080super, "no-gpu": scenarios.linux_host, "this-pc": _this_pc}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("outdir")
    parser.add_argument("--scenario", default="no-gpu", choices=sorted(SCENARIOS))
    parser.add_argument("--lang", default="ko", choices=["ko", "en"])
    parser.add_argument("--size", default="1024x700")
    args = parser.parse_args(argv)
    out = Path(args.outdir)
    out.mkdir(parents=True, exist_ok=True)
    width, height = (int(v) for v in args.size.split("x"))

    from tests.gui import layout_check
    from tests.gui.wizard_driver import GPU_VERIFY, show_recorded_verify
    from wizard.app.session import Session
    from wizard.ui.app import create_app
    from wizard.ui.main_wizard import SetupWizard
    from wizard.ui.pages.base import PageId

    app = create_app([sys.argv[0]])
    window = SetupWizard(Session(host=SCENARIOS[args.scenario](), lang=args.lang))
    window.resize(width, height)
    window.show()
    finished: list[bool] = []
    window.model.detection_finished.connect(lambda _d: finished.append(True))
    window.start()
    while not finished:
        app.processEvents()

    def settle() -> None:
        for _ in range(20):
            app.processEvents()

    def grab(name: str) -> None:
        settle()
        path = out / f"{args.scenario}-{args.lang}-{args.size}-{name}.png"
        if not window.screen().grabWindow(window.winId()).save(str(path)):
            raise SystemExit(f"could not save {path}")
        problems = layout_check.check_window(window)
        print(path, "ok" if not problems else "\n  " + layout_check.describe(problems).replace("\n", "\n  "))

    wanted = {PageId.SYSTEM: "1-system", PageId.GPU: "2-gpu", PageId.RECOMMEND: "3-recommend",
              PageId.VERIFY: "6-verify", PageId.VRAM: "8-vram"}
    while True:
        page_id = PageId(window.currentId())
        if page_id in wanted:
            grab(wanted[page_id])
        if page_id == PageId.RECOMMEND:
            window.recommend_page.more_button.click()
            grab("3-recommend-more")
        if page_id == PageId.VERIFY:
            show_recorded_verify(window)
            grab("6-verify-report")
            show_recorded_verify(window, GPU_VERIFY)
            grab("6-verify-report-gpu")
        if page_id == PageId.ENVIRONMENT:
            window.environment_page.skip_install()
        if page_id == PageId.VRAM:
            from PySide6.QtWidgets import QScrollArea

            area = window.vram_page.findChild(QScrollArea, "pageScroll")
            area.verticalScrollBar().setValue(area.verticalScrollBar().maximum())
            grab("8-vram-lessons")
            break
        window.next()
    window.gpu_page.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
