"""A stacked bar of the itemised VRAM estimate against the usable-memory line, drawn with QPainter.

Plain Qt, like the benchmark plots (wizard/ui/widgets/bench_plots.py): pyqtgraph and numpy
added about 50 MB to the window for one bar. The legend is a wrapping line of text under the
bar, and the usable line's value sits beside the line on the side with room, clamped inside
the panel — a legend inside the plot covered that value and was cut off at the right in
English (issue 16.8). ``label_rect()`` and ``panel_rect()`` say where they were drawn.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from wizard.app.vram import GIB, ITEM_KEYS, Estimate, item_label
from wizard.core.base.i18n import t
from wizard.ui import colours
from wizard.ui.widgets.bench_plots import AXIS, GRID, TEXT, nice_step

# each at least 3:1 against the window (a legend key is a symbol, WCAG 1.4.11)
COLOURS = {"weights": "#1f77b4", "gradients": "#c45a00", "optimizer": "#d62728",
           "activations": "#269126", "kv_cache": "#9467bd", "overhead": "#7f7f7f"}
PAD = 10  # pixels around the panel's contents


class BarCanvas(QWidget):
    """The panel: the stacked bar, a GiB axis with round ticks, the dashed usable line."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setMinimumHeight(120)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.segments: list[tuple[str, float, float]] = []  # (item, start GiB, width GiB)
        self.usable: float | None = None
        self.fits: bool | None = None
        self.label = ""
        self.x_max = 1.0

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(400, 130)

    def panel_rect(self) -> QRectF:
        return QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)

    def _plot_rect(self) -> QRectF:
        fm = self.fontMetrics()
        return self.panel_rect().adjusted(PAD, PAD + fm.height() + 4, -PAD, -(PAD + 2 * fm.height() + 6))

    def _x(self, gib: float) -> float:
        plot = self._plot_rect()
        return plot.left() + plot.width() * gib / self.x_max

    def label_rect(self) -> QRectF | None:
        """Where the usable line's value is drawn: beside the line, inside the panel."""
        if self.usable is None or not self.label:
            return None
        fm = self.fontMetrics()
        width, height = fm.horizontalAdvance(self.label) + 4, fm.height()
        x, panel = self._x(self.usable), self.panel_rect()
        left = x - 4 - width if x - 4 - width >= panel.left() + 2 else x + 4
        left = max(panel.left() + 2, min(left, panel.right() - 2 - width))
        return QRectF(left, panel.top() + PAD / 2, width, height)

    def _ticks(self) -> list[tuple[float, str, QRectF]]:
        """(GiB, text, where the text goes) for each round tick under the bar."""
        plot, fm = self._plot_rect(), self.fontMetrics()
        step = nice_step(self.x_max, max(2, min(6, int(plot.width() // 70))))
        out, tick = [], 0.0
        while tick <= self.x_max + 1e-9:
            text = f"{tick:g}"
            width = fm.horizontalAdvance(text) + 4
            x = self._x(tick)
            out.append((tick, text, QRectF(x - width / 2, plot.bottom() + 2, width, fm.height())))
            tick += step
        return out

    def text_rects(self) -> list[tuple[str, QRectF]]:
        """Every text drawn on the panel and its place (the layout checks read this)."""
        plot, fm = self._plot_rect(), self.fontMetrics()
        width = fm.horizontalAdvance("GiB") + 4
        rects = [(f"tick {text}", rect) for _gib, text, rect in self._ticks()]
        rects.append(("axis title", QRectF(plot.center().x() - width / 2, plot.bottom() + fm.height() + 4,
                                           width, fm.height())))
        label = self.label_rect()
        if label is not None:
            rects.append((f"label {self.label!r}", label))
        return rects

    def paintEvent(self, _event) -> None:  # noqa: N802
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.fillRect(self.panel_rect(), QColor("white"))
        painter.setPen(QPen(QColor(GRID)))
        painter.drawRect(self.panel_rect())
        plot, fm = self._plot_rect(), self.fontMetrics()
        # the axis: round GiB ticks under the bar
        painter.setPen(QPen(QColor(AXIS)))
        painter.drawLine(QPointF(plot.left(), plot.bottom()), QPointF(plot.right(), plot.bottom()))
        for gib, text, rect in self._ticks():
            x = self._x(gib)
            painter.setPen(QPen(QColor(GRID)))
            painter.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()))
            painter.setPen(QPen(QColor(TEXT)))
            painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)
        painter.drawText(QRectF(plot.left(), plot.bottom() + fm.height() + 4, plot.width(), fm.height()),
                         Qt.AlignmentFlag.AlignHCenter, "GiB")
        # the bar
        top, height = plot.top() + plot.height() * 0.2, plot.height() * 0.6
        for item, start, width in self.segments:
            painter.fillRect(QRectF(self._x(start), top, self._x(start + width) - self._x(start), height),
                             QColor(COLOURS[item]))
        # the usable line and its value
        if self.usable is not None:
            colour = QColor(colours.OK if self.fits else colours.FAIL)
            pen = QPen(colour, 3, Qt.PenStyle.DashLine)
            painter.setPen(pen)
            x = self._x(self.usable)
            painter.drawLine(QPointF(x, plot.top() - 2), QPointF(x, plot.bottom()))
            label_rect = self.label_rect()
            if label_rect is not None:
                painter.setPen(QPen(colour))
                painter.drawText(label_rect, Qt.AlignmentFlag.AlignCenter, self.label)
        painter.end()


class VramBar(QWidget):
    """The panel and, under it, the legend: each item's colour, name and size."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.canvas = BarCanvas()
        self.canvas.setObjectName("vramBarCanvas")
        layout.addWidget(self.canvas)
        self.legend = QLabel()
        self.legend.setObjectName("vramLegend")
        self.legend.setWordWrap(True)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        layout.addWidget(self.legend)
        self.bars: dict[str, tuple[float, float]] = {}  # item → (start GiB, width GiB), as drawn
        self.usable_line: float | None = None  # GiB

    def show_estimate(self, est: Estimate, lang: str | None) -> None:
        self.bars = {}
        legend = []
        left = 0.0
        for key in ITEM_KEYS:
            width = est.items[key] / GIB
            if width <= 0:
                continue
            self.bars[key] = (left, width)
            legend.append(f'<span style="color:{COLOURS[key]}">■</span>&nbsp;{item_label(key, lang)}'
                          f'&nbsp;{width:.2f}&nbsp;GiB')
            left += width
        self.legend.setText(" &nbsp; &nbsp; ".join(legend))
        usable = None if est.usable_bytes is None else est.usable_bytes / GIB
        self.usable_line = usable
        canvas = self.canvas
        canvas.segments = [(key, start, width) for key, (start, width) in self.bars.items()]
        canvas.usable, canvas.fits = usable, est.fits
        canvas.label = "" if usable is None else t("vram.page.usable_line", lang, value=f"{usable:.1f} GiB")
        canvas.x_max = max(max(left, usable or 0.0) * 1.08, 0.5)
        canvas.update()
