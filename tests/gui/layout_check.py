"""Find what a student cannot read: widgets clipped by their parents and text cut short.

Why geometry and font metrics rather than screenshots: a screenshot shows a cut-off word only to
someone who looks; this walks the real widget tree of a shown window and fails on it.

Two kinds of problem:

* **clipped** — a visible label, button, input or plot extends outside the rectangle of an
  ancestor that does not scroll in that direction (a scroll area's viewport lets its content
  overflow only along the axes it scrolls; beyond it, only the part inside the viewport counts).
  Inside a pyqtgraph plot, text items (the legend, a line's label) that overlap each other or
  leave the plot are clipped too.
* **cut** — text wider (or, wrapped, taller) than the widget's contents rectangle, measured
  with ``fontMetrics().horizontalAdvance`` (or a QTextDocument for rich text, laid out at the
  label's width when it wraps), unless the widget's tooltip carries the full text. Item views
  (trees, tables) are checked cell by cell the same way.

``check_window(window)`` returns the problems as :class:`Problem` rows; ``describe`` prints them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from PySide6.QtCore import QPoint, QRect, QRectF, Qt
from PySide6.QtGui import Qt as GuiQt
from PySide6.QtGui import QTextDocument, QTextOption
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractScrollArea,
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QStyle,
    QTreeWidget,
    QWidget,
)

TOLERANCE = 1  # pixels of rounding allowed at every edge
CHECKED = (QLabel, QAbstractButton, QComboBox, QAbstractSpinBox, QLineEdit, QGroupBox)


@dataclass(frozen=True)
class Problem:
    kind: str  # "clipped" or "cut"
    widget: str  # class, object name and the start of its text
    detail: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.widget}: {self.detail}"


def describe(problems: list[Problem]) -> str:
    return "\n".join(str(p) for p in problems)


def _plain(text: str) -> str:
    if GuiQt.mightBeRichText(text):
        doc = QTextDocument()
        doc.setHtml(text)
        return doc.toPlainText()
    return text


def _name(widget: QWidget) -> str:
    text = ""
    if isinstance(widget, (QLabel, QAbstractButton)):
        text = _plain(widget.text())
    elif isinstance(widget, QGroupBox):
        text = widget.title()
    text = " ".join(text.split())
    short = text if len(text) <= 60 else text[:57] + "…"
    name = widget.objectName()
    return f"{type(widget).__name__}{'#' + name if name else ''} {short!r}"


def _has_full_tooltip(widget: QWidget, text: str) -> bool:
    tip = " ".join(_plain(widget.toolTip()).split())
    return bool(tip) and " ".join(text.split()) in tip


def _is_plot(widget: QWidget) -> bool:
    return any(cls.__name__ == "GraphicsView" and cls.__module__.startswith("pyqtgraph")
               for cls in type(widget).__mro__)


def _scroll_axes(ancestor: QWidget) -> tuple[bool, bool] | None:
    """(scrolls horizontally, scrolls vertically) when ``ancestor`` is a scroll area's viewport."""
    area = ancestor.parentWidget()
    if not isinstance(area, QAbstractScrollArea) or area.viewport() is not ancestor:
        return None
    off = Qt.ScrollBarPolicy.ScrollBarAlwaysOff
    return area.horizontalScrollBarPolicy() != off, area.verticalScrollBarPolicy() != off


def _clipping(widget: QWidget, window: QWidget) -> str | None:
    """Which ancestor cuts ``widget`` off, and by how much; None when it is whole."""
    rect = QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())
    ancestor = widget.parentWidget()
    while ancestor is not None:
        area = QRect(ancestor.mapTo(window, QPoint(0, 0)), ancestor.size())
        axes = _scroll_axes(ancestor)
        scroll_x, scroll_y = axes if axes else (False, False)
        over = {
            "left": 0 if scroll_x else area.left() - rect.left(),
            "right": 0 if scroll_x else rect.right() - area.right(),
            "top": 0 if scroll_y else area.top() - rect.top(),
            "bottom": 0 if scroll_y else rect.bottom() - area.bottom(),
        }
        cut = {side: px for side, px in over.items() if px > TOLERANCE}
        if cut:
            sides = ", ".join(f"{px}px on the {side}" for side, px in cut.items())
            return f"outside {type(ancestor).__name__}#{ancestor.objectName() or '-'} by {sides}"
        if axes:  # beyond the viewport only what the viewport shows can be clipped further
            rect = rect.intersected(area)
            if rect.isEmpty():
                return None
        if ancestor is window:
            break
        ancestor = ancestor.parentWidget()
    return None


def _document(text: str, font, width: int | None) -> QTextDocument:
    doc = QTextDocument()
    doc.setDefaultFont(font)
    doc.setDocumentMargin(0)
    doc.setHtml(text)
    if width is not None:
        doc.setTextWidth(width)
    else:
        option = QTextOption()
        option.setWrapMode(QTextOption.WrapMode.NoWrap)
        doc.setDefaultTextOption(option)
    return doc


def _label_cut(label: QLabel) -> str | None:
    text = label.text()
    if not text.strip() or label.pixmap() is not None and not label.pixmap().isNull():
        return None
    box = label.contentsRect()
    inset = 2 * label.margin() + max(0, label.indent())
    width, height = box.width() - inset, box.height() - inset
    rich = label.textFormat() == Qt.TextFormat.RichText or (
        label.textFormat() == Qt.TextFormat.AutoText and GuiQt.mightBeRichText(text))
    fm = label.fontMetrics()
    if rich:
        doc = _document(text, label.font(), width if label.wordWrap() else None)
        need_w, need_h = doc.idealWidth(), doc.size().height()
    elif label.wordWrap():
        bounds = fm.boundingRect(QRect(0, 0, max(1, width), 100000),
                                 int(Qt.TextFlag.TextWordWrap) | int(label.alignment()), text)
        need_w, need_h = bounds.width(), bounds.height()
    else:
        lines = text.split("\n")
        need_w = max(fm.horizontalAdvance(line) for line in lines)
        need_h = fm.height() * len(lines)
    if need_w > width + TOLERANCE:
        return f"text needs {need_w:.0f}px wide, has {width}px"
    if need_h > height + TOLERANCE + 1:
        return f"text needs {need_h:.0f}px tall, has {height}px"
    return None


def _button_cut(button: QAbstractButton) -> str | None:
    text = button.text().replace("&&", "\0").replace("&", "").replace("\0", "&")
    if not text.strip():
        return None
    fm = button.fontMetrics()
    style = button.style()
    need = fm.horizontalAdvance(text)
    if not button.icon().isNull():
        need += button.iconSize().width() + 4
    if isinstance(button, QPushButton):
        need += 2 * style.pixelMetric(QStyle.PixelMetric.PM_ButtonMargin, None, button)
    elif isinstance(button, (QCheckBox, QRadioButton)):
        need += style.pixelMetric(QStyle.PixelMetric.PM_IndicatorWidth, None, button) + 4
    else:
        need = min(need + 6, button.sizeHint().width())
    if need > button.width() + TOLERANCE:
        return f"text needs {need}px wide, has {button.width()}px"
    return None


def _item_view_cuts(view: QAbstractItemView) -> list[Problem]:
    """Cells of a tree or table whose text does not fit their cell and has no full tooltip."""
    problems: list[Problem] = []
    model = view.model()
    fm = view.fontMetrics()
    viewport = view.viewport().rect()
    margin = view.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, view) + 1

    def visit(parent) -> None:
        for row in range(model.rowCount(parent)):
            for column in range(model.columnCount(parent)):
                index = model.index(row, column, parent)
                text = model.data(index, Qt.ItemDataRole.DisplayRole)
                rect = view.visualRect(index)
                if not isinstance(text, str) or not text.strip() or rect.isEmpty():
                    continue
                if not rect.intersects(viewport):
                    continue
                width = rect.width() - 2 * margin  # the delegate's text margins
                if isinstance(view, QTreeWidget) and column == 0:
                    width -= view.iconSize().width() if model.data(index, Qt.ItemDataRole.DecorationRole) else 0
                if view.wordWrap():
                    bounds = fm.boundingRect(QRect(0, 0, max(1, width), 100000), int(Qt.TextFlag.TextWordWrap),
                                             text)
                    fits = bounds.width() <= width + TOLERANCE and bounds.height() <= rect.height() + TOLERANCE
                else:
                    fits = max(fm.horizontalAdvance(line) for line in text.split("\n")) <= width + TOLERANCE
                tip = model.data(index, Qt.ItemDataRole.ToolTipRole)
                if not fits and not (isinstance(tip, str) and " ".join(text.split()) in " ".join(tip.split())):
                    problems.append(Problem("cut", f"{type(view).__name__}#{view.objectName() or '-'} "
                                                   f"cell {row},{column} {text[:50]!r}",
                                            f"cell is {rect.width()}×{rect.height()}px"))
            first = model.index(row, 0, parent)
            if model.rowCount(first) and (not hasattr(view, "isExpanded") or view.isExpanded(first)):
                visit(first)

    visit(view.rootIndex())
    return problems


def _painted_text_problems(widget: QWidget) -> list[Problem]:
    """A self-painted panel that says where it draws its text (``text_rects()``): every text
    inside the widget, none on another."""
    rects = widget.text_rects()
    inside = QRectF(widget.rect()).adjusted(-TOLERANCE, -TOLERANCE, TOLERANCE, TOLERANCE)
    name = f"{type(widget).__name__}#{widget.objectName() or '-'}"
    problems = [Problem("clipped", name, f"{what} leaves the panel") for what, rect in rects if not inside.contains(rect)]
    for i, (what, rect) in enumerate(rects):
        for other, other_rect in rects[i + 1:]:
            overlap = rect.intersected(other_rect)
            if overlap.width() > TOLERANCE and overlap.height() > TOLERANCE:
                problems.append(Problem("clipped", name, f"{what} overlaps {other}"))
    return problems


def _plot_problems(plot: QWidget) -> list[Problem]:
    """Text inside a pyqtgraph plot: each must lie inside the plot and not on another."""
    import pyqtgraph as pg

    scene = plot.scene()
    visible = QRectF(plot.mapToScene(plot.viewport().rect()).boundingRect())
    texts = []
    for item in scene.items():
        if not item.isVisible():
            continue
        if isinstance(item, pg.LegendItem) and item.items:
            texts.append(("legend", item.sceneBoundingRect()))
        elif isinstance(item, pg.TextItem) and item.toPlainText().strip():
            texts.append((f"label {item.toPlainText()!r}", item.sceneBoundingRect()))
    problems = []
    name = f"{type(plot).__name__}#{plot.objectName() or '-'}"
    for i, (what, rect) in enumerate(texts):
        if not visible.adjusted(-TOLERANCE, -TOLERANCE, TOLERANCE, TOLERANCE).contains(rect):
            problems.append(Problem("clipped", name, f"{what} leaves the plot"))
        for other, other_rect in texts[i + 1:]:
            overlap = rect.intersected(other_rect)
            if overlap.width() > TOLERANCE and overlap.height() > TOLERANCE:
                problems.append(Problem("clipped", name, f"{what} overlaps {other}"))
    return problems


def check_window(window: QWidget) -> list[Problem]:
    """Every problem a student would see in ``window`` as it is shown now."""
    problems: list[Problem] = []
    for widget in [window, *window.findChildren(QWidget)]:
        if not widget.isVisible() or widget.width() <= 0 or widget.height() <= 0:
            continue
        painted = callable(getattr(widget, "text_rects", None))  # a panel that paints its own text
        if painted:
            problems += _painted_text_problems(widget)
        plot = _is_plot(widget)
        if not (plot or painted or isinstance(widget, CHECKED)):
            if isinstance(widget, QAbstractItemView) and type(widget).__name__ not in ("QHeaderView",):
                problems += _item_view_cuts(widget)
            continue
        if _inside_item_view_or_internal(widget):
            continue
        clipped = _clipping(widget, window)
        if clipped:
            problems.append(Problem("clipped", _name(widget), clipped))
        cut = None
        if isinstance(widget, QLabel):
            cut = _label_cut(widget)
            full = _plain(widget.text())
        elif isinstance(widget, QAbstractButton):
            cut = _button_cut(widget)
            full = widget.text().replace("&", "")
        elif isinstance(widget, QGroupBox) and widget.title():
            full = widget.title()
            need = widget.fontMetrics().horizontalAdvance(full) + 2 * widget.style().pixelMetric(
                QStyle.PixelMetric.PM_DefaultFrameWidth, None, widget)
            cut = f"title needs {need}px wide, has {widget.width()}px" if need > widget.width() + TOLERANCE else None
        if cut and not _has_full_tooltip(widget, full):
            problems.append(Problem("cut", _name(widget), cut))
        if plot:
            problems += _plot_problems(widget)
    return problems


def _inside_item_view_or_internal(widget: QWidget) -> bool:
    """Qt's own parts (a combo's line edit, a spin box's arrows, a tab bar's scroll buttons)."""
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, (QAbstractItemView, QComboBox, QAbstractSpinBox)):
            return True
        if type(parent).__name__ == "QTabBar":
            return True
        parent = parent.parentWidget()
    return False


def visible_text(widget: QWidget) -> str:
    """All label and button text of ``widget``'s visible children, for messages."""
    parts = [_plain(w.text()) for w in widget.findChildren(QLabel) if w.isVisible()]
    return re.sub(r"\s+", " ", " ".join(parts))


# contrast ------------------------------------------------------------------------------------
_COLOUR = r"(#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b|palette\(\w+\)|[a-zA-Z]+)"
_TEXT_COLOUR = re.compile(r"(?<![-\w])color\s*:\s*" + _COLOUR)
_BACKGROUND = re.compile(r"background(?:-color)?\s*:\s*" + _COLOUR)
_SPAN = re.compile(r'<(\w+)[^>]*style="[^"]*?(?<![-\w])color\s*:\s*' + _COLOUR + r'[^"]*"[^>]*>(.*?)</\1>', re.S)


def _colour(spec: str, widget: QWidget):
    from PySide6.QtGui import QColor, QPalette

    if spec.startswith("palette("):
        role = spec[len("palette("):-1]
        return widget.palette().color(getattr(QPalette.ColorRole, role[0].upper() + role[1:]))
    colour = QColor(spec)
    return colour if colour.isValid() else None


def _luminance(colour) -> float:
    def channel(v: float) -> float:
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(colour.redF()) + 0.7152 * channel(colour.greenF()) + 0.0722 * channel(colour.blueF())


def contrast_ratio(a, b) -> float:
    """WCAG 2 contrast ratio of two QColors (1 … 21)."""
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def _background_of(widget: QWidget):
    """The colour behind ``widget``: the nearest ancestor that paints one (a style sheet
    background, a ``paintedBackground`` property for a widget that paints itself, an
    auto-filled widget or the window)."""
    node = widget
    while node is not None:
        painted = node.property("paintedBackground")
        if painted:
            return _colour(str(painted), node)
        match = _BACKGROUND.search(node.styleSheet() or "")
        if match and _colour(match.group(1), node) is not None:
            return _colour(match.group(1), node)
        if node is not widget and (node.autoFillBackground() or node.isWindow()):
            return node.palette().color(node.backgroundRole())
        node = node.parentWidget()
    return widget.palette().color(widget.backgroundRole())


def contrast_problems(root: QWidget, minimum: float = 4.5) -> list[Problem]:
    """Visible label text under ``root`` whose colour (its own, its style sheet's, or a rich-text
    span's) has less than ``minimum`` contrast (WCAG AA for normal text) with what is behind it."""
    problems = []
    for label in root.findChildren(QLabel):
        if not label.isVisible() or not label.text().strip():
            continue
        colours = [m.group(1) for m in _TEXT_COLOUR.finditer(label.styleSheet() or "")]
        base = _colour(colours[-1], label) if colours else label.palette().color(label.foregroundRole())
        behind = _background_of(label)
        # (what, colour, the least contrast it needs): a span that holds only a mark (✓, ⚠) is a
        # symbol, for which WCAG asks 3:1; text asks ``minimum``
        rich = GuiQt.mightBeRichText(label.text())
        outside = _plain(_SPAN.sub("", label.text())).strip() if rich else label.text()
        checks = [("text", base, minimum)] if outside else []  # text in no coloured span
        if rich:
            for match in _SPAN.finditer(label.text()):
                inner = _plain(match.group(3)).strip()
                checks.append((f"{inner[:12]!r} in {match.group(2)}", _colour(match.group(2), label),
                               3.0 if len(inner) <= 2 else minimum))
        for what, colour, least in checks:
            if colour is None:
                continue
            ratio = contrast_ratio(colour, behind)
            if ratio < least:
                problems.append(Problem("low contrast", _name(label),
                                        f"{what} {colour.name()} on {behind.name()}: {ratio:.2f}:1 < {least}:1"))
    return problems
