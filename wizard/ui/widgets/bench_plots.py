"""Benchmark plots: GFLOP/s against matrix size (log axes), speedups, efficiency vs spec peak.

Imports pyqtgraph, so the Benchmark page imports this module only when it is first shown.
"""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtWidgets import QHBoxLayout, QWidget

from wizard.core.base.i18n import t
from wizard.ui.language import LangOf, english

CURVES = [("cpu", "fp32", "#1f77b4"), ("gpu", "fp32", "#d62728"), ("gpu", "tf32", "#ff7f0e"),
          ("gpu", "fp16", "#2ca02c"), ("gpu", "bf16", "#9467bd")]


class BenchPlots(QWidget):
    def __init__(self, parent: QWidget | None = None, lang_of: LangOf = english) -> None:
        super().__init__(parent)
        self.lang_of = lang_of
        pg.setConfigOptions(antialias=True, background="w", foreground="#333333")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.view = pg.GraphicsLayoutWidget()
        self.view.setMinimumHeight(250)
        layout.addWidget(self.view)
        self.sweep = self.view.addPlot(row=0, col=0)
        self.sweep.setLogMode(x=True, y=True)
        self.sweep.showGrid(x=True, y=True, alpha=0.25)
        self.sweep.addLegend(offset=(5, 5), labelTextSize="8pt")
        self.bars = self.view.addPlot(row=0, col=1)
        self.bars.showGrid(x=True, alpha=0.25)
        for plot in (self.sweep, self.bars):
            plot.setMouseEnabled(x=False, y=False)
            plot.hideButtons()
            plot.setMenuEnabled(False)
        self.view.ci.layout.setColumnStretchFactor(0, 3)
        self.view.ci.layout.setColumnStretchFactor(1, 2)
        self.retranslate()


    @property
    def lang(self) -> str:
        return self.lang_of()

    def retranslate(self) -> None:
        self.sweep.setTitle(t("bench.page.plot.sweep", self.lang), size="9pt")
        self.sweep.setLabel("bottom", t("bench.page.plot.size", self.lang))
        self.sweep.setLabel("left", "GFLOP/s")
        self.bars.setTitle(t("bench.page.plot.bars", self.lang), size="9pt")

    def show_report(self, report, lang: str | None) -> None:
        self.sweep.clear()
        gpu = next((d for d in report.devices if d != "cpu"), None)
        for kind, dtype, colour in CURVES:
            device = "cpu" if kind == "cpu" else gpu
            if device is None:
                continue
            points = report.sweep(device, dtype)
            if not points:
                continue
            xs, ys = zip(*points)
            name = f"{'CPU' if kind == 'cpu' else 'GPU'} {dtype}"
            self.sweep.plot(list(xs), list(ys), pen=pg.mkPen(colour, width=2), symbol="o", symbolSize=6,
                            symbolBrush=colour, name=name)
        self._bars(report, lang)

    def _bars(self, report, lang: str | None) -> None:
        """Speedups (×, vs CPU) and efficiency (% of the card's spec peak) as horizontal bars."""
        self.bars.clear()
        rows: list[tuple[str, float, str]] = []
        for s in report.speedups():
            rows.append((f"{t('bench.page.speedup.' + s.id, lang)}  ×{s.factor:.1f}",
                         math.log10(max(s.factor, 1.0)) * 25, "#2e7d32"))
        for e in report.efficiencies():
            rows.append((f"{e.dtype} {e.id}: {e.percent:.0f}%", e.display_percent, "#1565c0"))
        if not rows:  # a CPU-only run: say so instead of drawing empty axes
            self.bars.setTitle(t("bench.page.plot.no_bars", lang), size="9pt")
            self.bars.hideAxis("left")
            self.bars.hideAxis("bottom")
            self.bars.showGrid(x=False, y=False)
            return
        self.bars.setTitle(t("bench.page.plot.bars", lang), size="9pt")
        self.bars.showAxis("left")
        self.bars.showAxis("bottom")
        self.bars.showGrid(x=True, alpha=0.25)
        ys = list(range(len(rows)))
        for y, (label, width, colour) in zip(ys, rows):
            self.bars.addItem(pg.BarGraphItem(x0=[0], y=[y], width=[max(width, 0.5)], height=0.6, brush=colour))
            text = pg.TextItem(label, color="#222222", anchor=(0, 0.5))
            text.setPos(1, y)
            self.bars.addItem(text)
        self.bars.getAxis("left").setTicks([[]])
        self.bars.getAxis("bottom").setTicks([[]])
        self.bars.setXRange(0, 100, padding=0.02)
        self.bars.setYRange(-0.7, len(rows) - 0.3, padding=0)
