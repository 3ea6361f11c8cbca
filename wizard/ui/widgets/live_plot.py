"""Live GPU plot: utilisation, memory and temperature over the last minute.

This module imports pyqtgraph (and with it numpy), so it is imported only when the GPU page
is shown on a machine with a GPU — never at start-up.
"""

from __future__ import annotations

from collections import deque

import pyqtgraph as pg
from PySide6.QtWidgets import QVBoxLayout, QWidget

from wizard.core.base.i18n import t
from wizard.ui.language import LangOf, english

HISTORY_S = 60
PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"]


class LiveGpuPlot(QWidget):
    """Three stacked plots sharing the time axis; one curve per GPU."""

    SERIES = (("utilization", "gpu.plot.utilization", "%", (0, 100)),
              ("memory", "gpu.plot.memory", "%", (0, 100)),
              ("temperature", "gpu.plot.temperature", "°C", (20, 100)))  # fixed ranges: no autorange pass per sample

    def __init__(self, parent: QWidget | None = None, lang_of: LangOf = english) -> None:
        super().__init__(parent)
        self.lang_of = lang_of
        pg.setConfigOptions(antialias=True, background="w", foreground="#333333")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.view = pg.GraphicsLayoutWidget()
        self.view.setMinimumHeight(420)
        layout.addWidget(self.view)
        self.plots: dict[str, pg.PlotItem] = {}
        self.curves: dict[tuple[str, int], pg.PlotDataItem] = {}
        self.data: dict[tuple[str, int], deque] = {}
        self.t0: float | None = None
        previous = None
        for row, (name, key, unit, yrange) in enumerate(self.SERIES):
            plot = self.view.addPlot(row=row, col=0)
            plot.showGrid(x=True, y=True, alpha=0.25)
            plot.setMouseEnabled(x=False, y=False)
            plot.hideButtons()
            plot.setMenuEnabled(False)
            if yrange:
                plot.setYRange(*yrange, padding=0.02)
                plot.disableAutoRange(axis="y")
            if previous is not None:
                plot.setXLink(previous)
            previous = plot
            self.plots[name] = plot
        self.retranslate()


    @property
    def lang(self) -> str:
        return self.lang_of()

    def retranslate(self) -> None:
        for name, key, unit, _ in self.SERIES:
            self.plots[name].setTitle(f"{t(key, self.lang)} ({unit})", size="9pt")
        self.plots["temperature"].setLabel("bottom", t("gpu.plot.seconds", self.lang))

    def add_samples(self, samples: list) -> None:
        """Append one round of NVML samples (objects with index, t, utilization_gpu, …)."""
        for s in samples:
            if self.t0 is None:
                self.t0 = s.t
            x = s.t - self.t0
            mem = None
            if s.memory_used_mib is not None and s.memory_total_mib:
                mem = 100.0 * s.memory_used_mib / s.memory_total_mib
            for name, value in (("utilization", s.utilization_gpu), ("memory", mem),
                                ("temperature", s.temperature_c)):
                if value is None:
                    continue
                key = (name, s.index)
                if key not in self.curves:
                    colour = PALETTE[s.index % len(PALETTE)]
                    # no antialiasing: a 2 px line redrawn once a second costs a third as much without it
                    self.curves[key] = self.plots[name].plot(pen=pg.mkPen(colour, width=2), name=f"GPU {s.index}",
                                                             antialias=False, skipFiniteCheck=True)
                    self.data[key] = deque(maxlen=HISTORY_S * 2)
                self.data[key].append((x, float(value)))
        for key, points in self.data.items():
            xs = [p[0] for p in points]
            ys = [p[1] for p in points]
            self.curves[key].setData(xs, ys, skipFiniteCheck=True)
        if self.t0 is not None and samples:
            right = samples[-1].t - self.t0
            self.plots["utilization"].setXRange(max(0.0, right - HISTORY_S), max(right, 10.0), padding=0)
