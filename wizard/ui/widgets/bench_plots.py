"""Benchmark plots drawn with QPainter: GFLOP/s against matrix size, speedups and efficiency.

One drawing for the Benchmark page and the report (:func:`sweep_png`, embedded in the HTML and
PDF), so both look the same: a linear GFLOP/s axis with a few round ticks, the matrix sizes
that were measured as the x ticks (log-spaced, never piled up), every point labelled with its
value. Plain Qt: no pyqtgraph or numpy (they added ~40 MB to the window's memory). The bars
panel (speedup over the CPU, % of the card's peak) appears only when there is a GPU result.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QImage, QPainter, QPen
from PySide6.QtWidgets import QHBoxLayout, QSizePolicy, QWidget

from wizard.core.base.i18n import t
from wizard.ui.language import LangOf, english

COLOURS = ("#1565c0", "#c62828", "#ef6c00", "#2e7d32", "#6a1b9a")
GRID, TEXT, AXIS = "#d0d7de", "#424a53", "#8c959f"
CURVES = (("cpu", "fp32"), ("gpu", "fp32"), ("gpu", "tf32"), ("gpu", "fp16"), ("gpu", "bf16"))


@dataclass
class Series:
    """One curve: its legend text, colour and (size, GFLOP/s) points."""

    label: str
    colour: str
    points: list[tuple[int, float]] = field(default_factory=list)


def sweep_series(bench: object) -> list[Series]:
    """The sweep curves of a BenchReport: the CPU's fp32, then each GPU dtype that has points."""
    sweep = getattr(bench, "sweep", None)
    devices = list(getattr(bench, "devices", None) or [])
    if not callable(sweep):
        return []
    gpu = next((d for d in devices if d != "cpu"), None)
    out: list[Series] = []
    for kind, dtype in CURVES:
        device = "cpu" if kind == "cpu" else gpu
        if device is None:
            continue
        points = [(int(n), float(v)) for n, v in sweep(device, dtype)]
        if points:
            name = "CPU" if device == "cpu" else device.split(":")[0].upper()
            out.append(Series(f"{name} {dtype}", COLOURS[len(out) % len(COLOURS)], points))
    return out


def nice_step(top: float, ticks: int = 4) -> float:
    """A round tick step (1, 2 or 5 × 10^k) so that ``ticks`` steps cover ``top``."""
    if top <= 0:
        return 1.0
    raw = top / ticks
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def value_text(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:.1f}" if value >= 10 else f"{value:.2g}"


def tick_text(value: float, step: float) -> str:
    """A y tick: whole numbers when the step is whole (0, 20, 40 - not 20.0)."""
    return f"{value:,.0f}" if step >= 1 else f"{value:.2g}"


def paint_sweep(p: QPainter, area: QRectF, series: list[Series], lang: str | None, font_px: int = 11) -> None:
    """Draw the sweep into ``area``: title, y ticks, x ticks at the measured sizes, curves,
    each point's value, a legend at the top right. ``series`` empty: a one-line hint."""
    font = QFont(p.font())
    font.setPixelSize(font_px)
    p.setFont(font)
    metrics = p.fontMetrics()
    line = metrics.height()
    p.setPen(QColor(TEXT))
    title = QRectF(area.left() + 4, area.top() + 2, area.width() - 8, line + 2)
    p.drawText(title, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
               t("bench.page.plot.sweep", lang) + " (GFLOP/s)")
    points = [pt for s in series for pt in s.points]
    if not points:
        p.drawText(area, Qt.AlignmentFlag.AlignCenter.value | Qt.TextFlag.TextWordWrap.value, t("bench.page.plot.empty", lang))
        return
    step = nice_step(max(v for _n, v in points) * 1.12)
    y_top = step * 4
    left = area.left() + max(metrics.horizontalAdvance(tick_text(y_top, step)), 24) + 10
    plot = QRectF(left, area.top() + line * 2 + 8, area.right() - 14 - left,
                  area.height() - line * 4 - 36)
    sizes = sorted({n for n, _v in points})
    lo, hi = math.log2(sizes[0]), math.log2(sizes[-1])

    def x_of(n: float) -> float:
        if hi == lo:
            return plot.center().x()
        return plot.left() + (math.log2(n) - lo) / (hi - lo) * plot.width()

    def y_of(v: float) -> float:
        return plot.bottom() - v / y_top * plot.height()

    for i in range(5):  # y grid and ticks: 0, step, 2·step, ...
        y = y_of(step * i)
        p.setPen(QPen(QColor(GRID), 1))
        p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y))
        p.setPen(QColor(TEXT))
        p.drawText(QRectF(area.left(), y - line / 2, plot.left() - area.left() - 6, line),
                   Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, tick_text(step * i, step))
    p.setPen(QPen(QColor(AXIS), 1))
    p.drawLine(QPointF(plot.left(), plot.bottom()), QPointF(plot.right(), plot.bottom()))
    p.setPen(QColor(TEXT))
    last_right = -1e9
    for n in sizes:  # x ticks: the sizes measured, skipped where they would touch the previous one
        text = str(n)
        width = metrics.horizontalAdvance(text)
        x = x_of(n)
        if x - width / 2 < last_right + 4:
            continue
        p.drawLine(QPointF(x, plot.bottom()), QPointF(x, plot.bottom() + 3))
        p.drawText(QRectF(x - width / 2 - 2, plot.bottom() + 4, width + 4, line), Qt.AlignmentFlag.AlignCenter, text)
        last_right = x + width / 2
    p.drawText(QRectF(plot.left(), plot.bottom() + line + 6, plot.width(), line), Qt.AlignmentFlag.AlignHCenter,
               t("bench.page.plot.size", lang))
    placed: list[QRectF] = []  # value labels drawn so far: a label that would touch one moves or is left out
    for s in series:
        colour = QColor(s.colour)
        where = [QPointF(x_of(n), y_of(v)) for n, v in s.points]
        p.setPen(QPen(colour, 2.2))
        for a, b in zip(where, where[1:]):
            p.drawLine(a, b)
        p.setBrush(colour)
        for point in where:
            p.setPen(QPen(colour, 1))
            p.drawEllipse(point, 3.2, 3.2)
    for s in reversed(series):  # the top curve's labels first: they sit above their points
        p.setPen(QColor(s.colour).darker(130))
        for (_n, v), point in zip(s.points, [QPointF(x_of(n), y_of(v)) for n, v in s.points]):
            text = value_text(v)
            width = metrics.horizontalAdvance(text) + 4
            for dy, dx in ((-line - 4, 0.0), (4, 0.0), (-line / 2, width / 2 + 6)):
                box = QRectF(point.x() - width / 2 + dx, point.y() + dy, width, line)
                box.moveLeft(min(max(box.left(), plot.left()), plot.right() - box.width()))
                if box.bottom() <= plot.bottom() and not any(box.intersects(other) for other in placed):
                    placed.append(box)
                    p.drawText(box, Qt.AlignmentFlag.AlignCenter, text)
                    break
    p.setBrush(Qt.BrushStyle.NoBrush)
    legend_y = area.top() + line + 6
    x = plot.right()
    for s in reversed(series):  # the legend, right-aligned on one line under the title
        text = "● " + s.label
        width = metrics.horizontalAdvance(text) + 6
        x -= width
        p.setPen(QColor(s.colour))
        p.drawText(QRectF(x, legend_y - line / 2 + 2, width, line), Qt.AlignmentFlag.AlignLeft, text)
        x -= 8


def bar_rows(report: object, lang: str | None) -> list[tuple[str, float, str]]:
    """(label, fraction of the bar's full width, colour): speedups, then efficiencies."""
    rows: list[tuple[str, float, str]] = []
    for s in getattr(report, "speedups", lambda: [])():
        rows.append((f"{t('bench.page.speedup.' + s.id, lang)}  ×{s.factor:.1f}",
                     min(1.0, math.log10(max(s.factor, 1.0)) / 3.0), "#2e7d32"))
    for e in getattr(report, "efficiencies", lambda: [])():
        if e.id == "copy_d2d":
            name = t("bench.page.eff.copy_d2d", lang)
        else:  # short words, not the probe's ids: "matmul fp16", "course matmul fp32"
            short = "course_matmul" if e.id == "course_matmul" else "matmul"
            name = f"{t('bench.page.speedup.' + short, lang)} {e.dtype}"
        rows.append((f"{name}: {e.percent:.0f}%", min(1.0, e.display_percent / 100.0), "#1565c0"))
    return rows


def paint_bars(p: QPainter, area: QRectF, rows: list[tuple[str, float, str]], lang: str | None,
               font_px: int = 11) -> None:
    font = QFont(p.font())
    font.setPixelSize(font_px)
    p.setFont(font)
    line = p.fontMetrics().height()
    p.setPen(QColor(TEXT))
    p.drawText(QRectF(area.left() + 4, area.top() + 2, area.width() - 8, line * 2 + 4),
               Qt.AlignmentFlag.AlignLeft.value | Qt.TextFlag.TextWordWrap.value, t("bench.page.plot.bars", lang))
    top = area.top() + line * 2 + 12
    height = min(line * 1.6, (area.bottom() - top) / max(len(rows), 1))
    for i, (label, fraction, colour) in enumerate(rows):
        y = top + i * height
        p.fillRect(QRectF(area.left() + 4, y + 2, max(4.0, fraction * (area.width() - 8)), height - 4),
                   QColor(colour).lighter(160))
        p.setPen(QColor("#1f2328"))
        text = p.fontMetrics().elidedText(label, Qt.TextElideMode.ElideRight, int(area.width() - 12))
        p.drawText(QRectF(area.left() + 8, y, area.width() - 12, height), Qt.AlignmentFlag.AlignVCenter, text)


def sweep_png(bench: object, lang: str | None, width: int = 640, height: int = 300) -> bytes | None:
    """The sweep as a PNG (drawn at twice its size: sharp in the PDF), None without two points."""
    series = [s for s in sweep_series(bench) if len(s.points) >= 2]
    if not series:
        return None
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice

    scale = 2
    image = QImage(width * scale, height * scale, QImage.Format.Format_ARGB32)
    image.setDevicePixelRatio(scale)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    paint_sweep(painter, QRectF(0, 0, width, height), series, lang)
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")  # type: ignore[call-overload]  # a QBuffer is the QIODevice save() takes
    buffer.close()
    return bytes(data.data())


class _Canvas(QWidget):
    """A white panel that paints itself with one of the functions above."""

    def __init__(self, paint, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._paint = paint
        self.setMinimumSize(QSize(260, 230))
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def paintEvent(self, _event) -> None:  # noqa: N802 - Qt's name
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.fillRect(self.rect(), QColor("white"))
        p.setPen(QPen(QColor(GRID), 1))
        p.drawRect(QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5))
        self._paint(p, QRectF(self.rect()).adjusted(4, 4, -4, -4))
        p.end()


class BenchPlots(QWidget):
    """The Benchmark page's plots: the sweep, and the bars once a GPU result exists."""

    def __init__(self, parent: QWidget | None = None, lang_of: LangOf = english) -> None:
        super().__init__(parent)
        self.lang_of = lang_of
        self.series: list[Series] = []
        self.rows: list[tuple[str, float, str]] = []
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.sweep = _Canvas(lambda p, r: paint_sweep(p, r, self.series, self.lang))
        self.sweep.setObjectName("benchSweepPlot")
        self.bars = _Canvas(lambda p, r: paint_bars(p, r, self.rows, self.lang))
        self.bars.setObjectName("benchBarsPlot")
        self.bars.hide()  # a PC without a GPU never has anything to put here
        layout.addWidget(self.sweep, 3)
        layout.addWidget(self.bars, 2)

    @property
    def lang(self) -> str:
        return self.lang_of()

    def retranslate(self) -> None:
        self.sweep.update()
        self.bars.update()

    def show_report(self, report, lang: str | None = None) -> None:
        self.series = sweep_series(report)
        self.rows = bar_rows(report, lang or self.lang)
        self.bars.setVisible(bool(self.rows))
        self.retranslate()
