"""A stacked bar of the itemised VRAM estimate against the usable-memory line.

Imports pyqtgraph, so the VRAM page imports this module only when it is first shown.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtWidgets import QVBoxLayout, QWidget

from wizard.core.vram.estimate import Estimate
from wizard.core.vram.units import GIB, ITEM_KEYS, item_label

COLOURS = {"weights": "#1f77b4", "gradients": "#ff7f0e", "optimizer": "#d62728",
           "activations": "#2ca02c", "kv_cache": "#9467bd", "overhead": "#7f7f7f"}


class VramBar(QWidget):
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
        self.legend = self.plot.addLegend(offset=(-5, 5), colCount=3, labelTextSize="8pt")
        layout.addWidget(self.plot)
        self.bars: dict[str, pg.BarGraphItem] = {}
        self.usable_line: pg.InfiniteLine | None = None

    def show_estimate(self, est: Estimate, lang: str | None) -> None:
        self.plot.clear()
        self.legend.clear()
        self.bars = {}
        left = 0.0
        for key in ITEM_KEYS:
            width = est.items[key] / GIB
            if width <= 0:
                continue
            bar = pg.BarGraphItem(x0=[left], y=[0], width=[width], height=0.6,
                                  brush=COLOURS[key], pen=pg.mkPen("w", width=1), name=item_label(key, lang))
            self.plot.addItem(bar)
            self.bars[key] = bar
            left += width
        right = left
        if est.usable_bytes is not None:
            usable = est.usable_bytes / GIB
            colour = "#2e7d32" if est.fits else "#c62828"
            self.usable_line = pg.InfiniteLine(pos=usable, angle=90, pen=pg.mkPen(colour, width=3,
                                               style=pg.QtCore.Qt.PenStyle.DashLine),
                                               label=f"{usable:.1f} GiB", labelOpts={"position": 0.9,
                                                                                   "color": colour})
            self.plot.addItem(self.usable_line)
            right = max(right, usable)
        self.plot.setXRange(0, max(right * 1.08, 0.5), padding=0)
        self.plot.setYRange(-0.5, 1.3, padding=0)
