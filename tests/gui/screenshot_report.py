"""Open the wizard on its Report page for a fixed session and save PNGs of what a student sees.

Run under a real X server (Xvfb):
    python -m tests.gui.screenshot_report OUTDIR [--lang ko|en] [--session full|no-gpu]
The session is tests/report_sessions.py's (every step ran on an RTX 3060, with a Colab
nvidia-smi paste added; or a PC without an NVIDIA GPU); two earlier runs are saved to a
temporary history so the History tab has something to compare. Saved: the report preview, the
preview scrolled to the verification checklist, the History tab, and the Add Colab/cloud dialog.
The window is captured from the screen (QScreen.grabWindow), not rendered offscreen.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QTimer


def _seed_history(detection) -> None:
    """Two earlier runs: one with an older driver, one like this run."""
    from wizard.core.history.store import HistoryStore, build_snapshot

    store = HistoryStore()
    older = build_snapshot(detection, now=_dt.datetime(2026, 11, 1, 9, 0, tzinfo=_dt.timezone.utc))
    older.driver_version, older.cuda_version = "550.120", "12.4"
    store.save(older)
    store.save(build_snapshot(detection, now=_dt.datetime(2026, 11, 20, 9, 0, tzinfo=_dt.timezone.utc)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("outdir")
    parser.add_argument("--lang", default="ko", choices=["ko", "en"])
    parser.add_argument("--session", default="full", choices=["full", "no-gpu"])
    args = parser.parse_args(argv)
    out = Path(args.outdir)
    out.mkdir(parents=True, exist_ok=True)
    os.environ["GSW_DATA_DIR"] = tempfile.mkdtemp(prefix="gsw-report-shot-")

    from tests import report_sessions
    from wizard.core.report.remote import machine_from_text
    from wizard.ui.app import create_app
    from wizard.ui.main_wizard import SetupWizard
    from wizard.ui.pages.base import PageId
    from wizard.ui.pages.report_page import RemoteDialog, register_report_page

    app = create_app([sys.argv[0]])
    make = report_sessions.full_session if args.session == "full" else report_sessions.no_gpu_session
    session = make(args.lang)
    if args.session == "full":
        session.remotes = [machine_from_text(report_sessions.colab_smi_text(), label="colab.txt")]
    _seed_history(session.detection)
    window = SetupWizard(session)
    page = register_report_page(window)
    window.setStartId(PageId.REPORT)
    window.resize(1000, 720)
    window.show()
    saved: list[str] = []
    prefix = f"report-{args.session}-{args.lang}"

    def grab(name: str, widget=None) -> None:
        app.processEvents()
        target = widget or window
        pixmap = target.screen().grabWindow(target.winId())
        path = out / f"{prefix}-{name}.png"
        if not pixmap.save(str(path)):
            raise SystemExit(f"could not save {path}")
        saved.append(str(path))

    def first() -> None:
        grab("1-preview")
        anchor = "verify_checklist"
        page.preview.scrollToAnchor(anchor)
        QTimer.singleShot(200, second)

    def second() -> None:
        grab("2-checks")
        page.tabs.setCurrentIndex(1)
        QTimer.singleShot(300, third)

    def third() -> None:
        grab("3-history")
        page.tabs.setCurrentIndex(0)
        dialog = RemoteDialog(window)
        dialog.text.setPlainText(report_sessions.colab_smi_text())
        dialog.show()
        QTimer.singleShot(300, lambda: (grab("4-add-remote", dialog), dialog.close(), finish()))

    def finish() -> None:
        window.gpu_page.cleanup()
        print("\n".join(saved))
        app.exit(0)

    QTimer.singleShot(600, first)
    QTimer.singleShot(60000, lambda: (print("timed out", file=sys.stderr), app.exit(1)))
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
