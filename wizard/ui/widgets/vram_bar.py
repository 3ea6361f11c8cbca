"""A stacked bar of the itemised VRAM estimate against the usable-memory line.

Imports pyqtgraph, so the VRAM page imports this module only when it is first shown.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from wizard.core.base.i18n import t
from wizard.core.vram.estimate import Estimate
from wizard.core.vram.units import GIB, ITEM_KEYS, item_label
from wizard.ui import colours

# each at least 3:1 against the window (a legend key is a symbol, WCAG 1.4.11)
COLOURS = {"weights": "#1f77b4", "gradients": "#c45a00", "optimizer": "#d62728",
           "activations": "#269126", "kv_cache": "#9467bd", "overhead": "#7f7f7f"}


class VramBar(QWidget):
    """The bar, the usable-memory line with its value beside it (left of the line, so it never
    leaves the plot), and the legend as a wrapping line of text under the plot: a legend inside
    the plot covered the line's label and was cut off at the right in English (issue 16.8)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        pg.setConfigOptions(antialias=True, background="w", foreground="#333333")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.plot = pg.PlotWidget()
        self.plot.setMinimumHeight(150)
        self.plot.setMaximumHeight(190)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.plot.setMenuEnabled(False)
        self.plot.getAxis("left").setTicks([[]])
        self.plot.setLabel("bottom", "GiB")
        layout.addWidget(self.plot)
        self.legend = QLabel()
        self.legend.setObjectName("vramLegend")
        self.legend.setWordWrap(True)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        layout.addWidget(self.legend)
        self.bars: dict[str, pg.BarGraphItem] = {}
        self.usable_line: pg.InfiniteLine | None = None

    def show_estimate(self, est: Estimate, lang: str | None) -> None:
        self.plot.clear()
        self.bars = {}
        legend = []
        left = 0.0
        for key in ITEM_KEYS:
            width = est.items[key] / GIB
            if width <= 0:
                continue
            bar = pg.BarGraphItem(x0=[left], y=[0], width=[width], height=0.6,
                                  brush=COLOURS[key], pen=pg.mkPen("w", width=1), name=item_label(key, lang))
            self.plot.addItem(bar)
            self.bars[key] = bar
            legend.append(f'<span style="color:{COLOURS[key]}">■</span>&nbsp;{item_label(key, lang)}'
                          f'&nbsp;{width:.2f}&nbsp;GiB')
            left += width
        self.legend.setText(" &nbsp; &nbsp; ".join(legend))
        right = left
        if est.usable_bytes is not None:
            right = max(right, est.usable_bytes / GIB)
        x_max = max(right * 1.08, 0.5)
        if est.usable_bytes is not None:
            usable = est.usable_bytes / GIB
            colour = colours.OK if est.fits else colours.FAIL
            # the value sits beside the line on the side with room, so it stays inside the plot
            side = 1 if usable > 0.3 * x_max else 0
            self.usable_line = pg.InfiniteLine(pos=usable, angle=90, pen=pg.mkPen(colour, width=3,
                                               style=pg.QtCore.Qt.PenStyle.DashLine),
                                               label=t("h.vram.usable_line", lang, value=f"{usable:.1f} GiB"),
                                               labelOpts={"position": 0.85, "color": colour,
                                                          "anchors": [(side, 0.5), (side, 0.5)]})
            self.plot.addItem(self.usable_line)
        self.plot.setXRange(0, x_max, padding=0)
        self.plot.setYRange(-0.5, 1.3, padding=0)
