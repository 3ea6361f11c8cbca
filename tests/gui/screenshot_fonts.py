"""The first page in Korean, on a screen whose fontconfig may have no font at all.

    FONTCONFIG_FILE=<a config with no fonts> python -m tests.gui.screenshot_fonts OUTDIR [--lang ko]

Run under Xvfb with the xcb platform (tests/gui/test_font_screenshots.py does). Saves the window
(QScreen.grabWindow, what a student sees) and prints one JSON line: the PNG's path, the fonts
start-up found, and two tofu checks of the label next to the language menu ("언어 / Language:"):

* ``notdef``: glyphs of the label's text that are glyph 0 (.notdef, drawn as an empty box);
* ``swapped_same``: "언어" and "어언" drawn by the label's own font look the same, which only
  happens when both characters are the same empty box (also when no font exists at all, where
  Qt draws every character as a box without any .notdef glyph).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tests import scenarios


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("outdir")
    parser.add_argument("--lang", default="ko", choices=["ko", "en"])
    parser.add_argument("--name", default="fonts")
    args = parser.parse_args(argv)
    out = Path(args.outdir)
    out.mkdir(parents=True, exist_ok=True)

    from PySide6.QtCore import QTimer
    from PySide6.QtGui import QFontInfo, QImage, QTextLayout
    from PySide6.QtWidgets import QLabel

    from wizard.app.session import Session
    from wizard.ui.app import create_app
    from wizard.ui.fonts import setup_fonts
    from wizard.ui.main_wizard import SetupWizard

    app = create_app([sys.argv[0]], lang=args.lang)
    setup = setup_fonts(app)  # what create_app did (registration happens once; this reads it back, silently)
    window = SetupWizard(Session(host=scenarios.linux_host(), lang=args.lang))
    window.resize(1024, 700)
    window.show()
    result: dict = {}

    def pixels_of(text: str, like: QLabel) -> QImage:
        label = QLabel(text)
        label.setFont(like.font())
        label.adjustSize()
        return label.grab().toImage()

    def grab() -> None:
        app.processEvents()
        path = out / f"first-page-{args.lang}-{args.name}.png"
        if not window.screen().grabWindow(window.winId()).save(str(path)):
            raise SystemExit(f"could not save {path}")
        label = window.system_page.lang_label
        layout = QTextLayout(label.text(), label.font())
        layout.beginLayout()
        layout.createLine()
        layout.endLayout()
        runs = layout.glyphRuns()
        # (QRawFont.familyName() of a run crashes when no font exists at all: Qt's box engine)
        result.update(png=str(path), text=label.text(), shipped=list(setup.shipped),
                      system_hangul=list(setup.system_hangul), fallback_used=setup.fallback_used,
                      family=QFontInfo(label.font()).family(), runs=len(runs),
                      notdef=sum(list(r.glyphIndexes()).count(0) for r in runs),
                      swapped_same=pixels_of("언어", label) == pixels_of("어언", label))
        window.gpu_page.cleanup()
        app.exit(0)

    window.model.detection_finished.connect(lambda _d: QTimer.singleShot(400, grab))
    QTimer.singleShot(0, window.start)
    QTimer.singleShot(60000, lambda: (print("the first page never finished detecting", file=sys.stderr), app.exit(1)))
    code = app.exec()
    print(json.dumps(result, ensure_ascii=False))
    return code


if __name__ == "__main__":
    sys.exit(main())
