"""Layout checks that can fail: every page of the real wizard, both languages, 1024×700.

The wizard is opened on recorded machines (a Linux PC with no GPU, the Windows RTX desktop),
each page is reached the way a student reaches it (Next; pages build on first show) and then
measured by tests/gui/layout_check.py. The first tests prove the checker sees a clipped label,
text cut short, a tooltip that excuses it, and text piled up inside a plot.
"""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtWidgets import QGroupBox, QHBoxLayout, QLabel, QPushButton, QScrollArea, QVBoxLayout, QWidget  # noqa: E402

from tests import scenarios  # noqa: E402
from tests.gui import layout_check  # noqa: E402
from tests.gui.wizard_driver import GPU_VERIFY, open_wizard, show_recorded_verify  # noqa: E402
from wizard.ui.pages.base import PageId  # noqa: E402

SIZE = (1024, 700)
# pages whose text colours are measured too (the others' owners have the findings)
CONTRAST_CHECKED = {PageId.SYSTEM, PageId.GPU, PageId.RECOMMEND, PageId.VERIFY, PageId.VRAM}
MACHINES = {"no-gpu-linux": scenarios.linux_host, "rtx2080-windows": scenarios.windows_rtx2080super}
if hasattr(scenarios, "windows_rtx3060"):  # the tour's RTX 3060 Windows capture
    MACHINES["rtx3060-windows"] = scenarios.windows_rtx3060


# the checker itself ------------------------------------------------------------------------------
def _shown(qtbot, widget: QWidget, w: int, h: int) -> QWidget:
    qtbot.addWidget(widget)
    widget.resize(w, h)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def test_checker_finds_a_label_its_parent_cuts_off(qtbot):
    window = QWidget()
    inner = QWidget(window)
    inner.setGeometry(0, 0, 120, 40)
    label = QLabel("a label that sticks out", inner)
    label.setGeometry(60, 5, 200, 20)  # 140 px past inner's right edge
    _shown(qtbot, window, 300, 100)
    problems = layout_check.check_window(window)
    assert [p.kind for p in problems if "sticks out" in p.widget] == ["clipped"], layout_check.describe(problems)
    label.setGeometry(0, 5, 110, 20)
    label.setText("fits")
    assert layout_check.check_window(window) == []


def test_checker_finds_text_wider_than_its_label_unless_the_tooltip_has_it(qtbot):
    window = QWidget()
    label = QLabel("Try a smaller batch, 4-bit weights or a shorter context", window)
    label.setGeometry(0, 0, 90, 20)
    button = QPushButton("A long button caption", window)
    button.setGeometry(0, 30, 60, 28)
    box = QGroupBox("Live: utilization, memory, temperature (last minute)", window)
    box.setGeometry(0, 60, 120, 30)
    _shown(qtbot, window, 200, 100)
    kinds = sorted(p.kind + ":" + p.widget.split()[0] for p in layout_check.check_window(window))
    assert kinds == ["cut:QGroupBox", "cut:QLabel", "cut:QPushButton"]
    label.setToolTip(label.text())
    button.setToolTip(button.text())
    box.setToolTip(box.title())
    assert layout_check.check_window(window) == []


def test_checker_measures_wrapped_and_rich_labels_at_their_width(qtbot):
    window = QWidget()
    layout = QVBoxLayout(window)
    wrapped = QLabel("word " * 40)
    wrapped.setWordWrap(True)
    wrapped.setFixedSize(150, 20)  # wraps to many lines, shown one line tall
    rich = QLabel("<b>bold text that is much wider than the label</b>")
    rich.setFixedWidth(80)
    layout.addWidget(wrapped)
    layout.addWidget(rich)
    _shown(qtbot, window, 300, 120)
    problems = layout_check.check_window(window)
    assert {p.widget.split()[0] for p in problems if p.kind == "cut"} == {"QLabel"} and len(problems) == 2, \
        layout_check.describe(problems)
    wrapped.setFixedSize(150, 400)
    rich.setFixedWidth(360)
    window.resize(400, 480)
    assert layout_check.check_window(window) == []


def test_checker_lets_a_scroll_area_overflow_only_the_way_it_scrolls(qtbot):
    from PySide6.QtCore import Qt

    window = QWidget()
    row = QHBoxLayout(window)
    area = QScrollArea()
    body = QWidget()
    body.setFixedSize(600, 600)
    QLabel("deep in a scroll area", body).setGeometry(400, 500, 150, 20)
    area.setWidget(body)
    row.addWidget(area)
    _shown(qtbot, window, 300, 200)
    assert layout_check.check_window(window) == []
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # wider than it can show
    problems = layout_check.check_window(window)
    assert problems and all(p.kind == "clipped" for p in problems), layout_check.describe(problems)


def test_checker_finds_plot_labels_on_the_legend(qtbot):
    import pyqtgraph as pg

    plot = pg.PlotWidget()
    legend = plot.addLegend(offset=(-5, 5))
    plot.plot([0, 1], [0, 1], name="weights and gradients")
    _shown(qtbot, plot, 300, 150)
    assert layout_check.check_window(plot) == []
    label = pg.TextItem("13.8 GiB limit")
    plot.addItem(label)
    top_right = plot.plotItem.vb.mapSceneToView(legend.sceneBoundingRect().center())
    label.setPos(top_right)
    qtbot.wait(10)
    problems = layout_check.check_window(plot)
    assert any("overlaps" in p.detail for p in problems), layout_check.describe(problems)


def test_checker_finds_grey_text_and_lets_a_dark_mark_pass(qtbot):
    window = QWidget()
    layout = QVBoxLayout(window)
    grey = QLabel("light grey words")
    grey.setStyleSheet("color: palette(mid);")
    marked = QLabel('<span style="color:#a34700">⚠</span>&nbsp;a note in the normal colour')
    pale = QLabel('<span style="color:#ef6c00">⚠ pale orange words</span>')
    for label in (grey, marked, pale):
        layout.addWidget(label)
    _shown(qtbot, window, 300, 120)
    low = layout_check.contrast_problems(window)
    assert sorted(p.widget.split("'")[1][:5] for p in low) == ["light", "⚠ pal"], layout_check.describe(low)
    grey.setStyleSheet("color: #4a4a4a;")
    pale.setText('<span style="color:#a34700">⚠ darker orange words</span>')
    assert layout_check.contrast_problems(window) == []


def test_checker_finds_painted_text_that_leaves_its_panel_or_piles_up(qtbot):
    from PySide6.QtCore import QRectF

    class Panel(QWidget):
        rects = [("a", QRectF(5, 5, 40, 12)), ("b", QRectF(60, 5, 40, 12))]

        def text_rects(self):
            return self.rects

    window = QWidget()
    panel = Panel(window)
    panel.setGeometry(0, 0, 120, 40)
    _shown(qtbot, window, 150, 60)
    assert layout_check.check_window(window) == []
    panel.rects = [("a", QRectF(5, 5, 40, 12)), ("b", QRectF(30, 5, 40, 12)), ("c", QRectF(100, 5, 40, 12))]
    details = sorted(p.detail for p in layout_check.check_window(window))
    assert details == ["a overlaps b", "c leaves the panel"], details


# the real wizard --------------------------------------------------------------------------------
def walk_pages(window):
    """Reach every page in flow order the way a student does, yielding each once it is shown."""
    while True:
        page_id = window.currentId()
        yield PageId(page_id)
        if page_id == PageId.ENVIRONMENT:
            window.environment_page.skip_install()
        if window.currentPage().nextId() == -1:
            return
        window.next()


def _settle(qtbot) -> None:
    qtbot.wait(50)


@pytest.mark.parametrize("lang", ["ko", "en"])
@pytest.mark.parametrize("machine", sorted(MACHINES))
def test_no_page_clips_or_cuts_text(qtbot, machine, lang):
    window = open_wizard(qtbot, MACHINES[machine](), lang=lang)
    window.resize(*SIZE)
    _settle(qtbot)
    found: dict[str, list[str]] = {}
    seen = []
    for page_id in walk_pages(window):
        seen.append(page_id)
        _settle(qtbot)
        states = [("", lambda: None)]
        if page_id == PageId.RECOMMEND:
            states.append(("more", window.recommend_page.more_button.click))
        if page_id == PageId.VERIFY:
            states.append(("cpu report", lambda: show_recorded_verify(window)))
            states.append(("gpu report", lambda: show_recorded_verify(window, GPU_VERIFY)))
        for state, enter in states:
            enter()
            _settle(qtbot)
            problems = layout_check.check_window(window)
            if page_id in CONTRAST_CHECKED:
                problems += layout_check.contrast_problems(window.currentPage())
                problems += layout_check.contrast_problems(window.steps)
            if problems:
                found[f"{page_id.name} {state}".strip()] = [str(p) for p in problems]
    window.gpu_page.cleanup()
    assert seen == [p for p in PageId if p != PageId.INSTALL]  # skipped: the Install page needs an install
    assert not found, "\n".join(f"[{page}]\n  " + "\n  ".join(lines) for page, lines in found.items())


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_every_page_fits_the_smallest_window(qtbot, lang):
    """Issue 16.8: the English VRAM page was cut off on the right at the default size and the
    usable-memory label sat on the legend; at the window's minimum size no page is cut now."""
    window = open_wizard(qtbot, scenarios.windows_rtx2080super(), lang=lang)
    window.resize(window.minimumSize())
    _settle(qtbot)
    found = {}
    for page_id in walk_pages(window):
        _settle(qtbot)
        problems = layout_check.check_window(window)
        if problems:
            found[page_id.name] = layout_check.describe(problems)
    assert not found, found
    page = window.vram_page
    assert page.bar.legend.isVisibleTo(page) and "GiB" in page.bar.legend.text()
    assert " GiB" == page.gb_spin.suffix() and all("GB)" not in page.gpu_combo.itemText(i)
                                                   for i in range(page.gpu_combo.count()))
    window.gpu_page.cleanup()
