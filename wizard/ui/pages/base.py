"""What every page shares: access to the session model and re-translation on demand.

``Qt`` is reached as ``QtCore.Qt`` inside the functions, never imported at the top: PySide creates
the namespace's ~90 enums when it is first touched (15-20 ms), and the first page paints
without it (see :meth:`wizard.ui.pages.system_page.SystemPage._build`). Likewise a Qt class is
created when a module first names it (``from PySide6.QtWidgets import QScrollArea``), so what only
later pages use is imported where they use it, and the label/value form is in
:mod:`wizard.ui.widgets.info_form`.
"""

from __future__ import annotations

from enum import IntEnum

from PySide6 import QtCore
from PySide6.QtWidgets import QLabel, QProgressBar, QVBoxLayout, QWidget, QWizardPage

from wizard.core.base.i18n import t
from wizard.ui.session_model import SessionModel


class PageId(IntEnum):
    """The flow of DESIGN.md, in order. nextId() follows this unless a page says otherwise."""

    SYSTEM = 0
    GPU = 1
    RECOMMEND = 2
    ENVIRONMENT = 3
    INSTALL = 4
    VERIFY = 5
    BENCHMARK = 6
    VRAM = 7
    REPORT = 8


PAGE_TITLE_KEYS = {
    PageId.SYSTEM: "window.page.system.title",
    PageId.GPU: "window.page.gpu.title",
    PageId.RECOMMEND: "window.page.recommend.title",
    PageId.ENVIRONMENT: "window.page.environment.title",
    PageId.INSTALL: "window.page.install.title",
    PageId.VERIFY: "window.page.verify.title",
    PageId.BENCHMARK: "window.page.benchmark.title",
    PageId.VRAM: "window.page.vram.title",
    PageId.REPORT: "window.page.report.title",
}


class BasePage(QWizardPage):
    """A page that builds its widgets on first show, so start-up builds only the first page.

    ``__init__`` sets the title and the plain fields; ``_build`` makes the widgets and connects
    them, once, from :meth:`ensure_built` -- which ``initializePage`` calls (Qt's "the page is
    about to be shown"), and which any code reaching for a widget of a page not yet shown
    (the wizard's wiring, a test) triggers too: :meth:`__getattr__` runs only for an attribute
    that does not exist yet.
    """

    page_id: PageId
    built = False  # the widgets exist (set by ensure_built, or by a page's own _build)

    def __init__(self, model: SessionModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        # a bound method, not a lambda: Qt drops the connection when this page is deleted
        model.language_changed.connect(self._on_language_changed)
        BasePage.retranslate(self)  # the title: the wizard's header may show it before the page

    def _build(self) -> None:
        """The page's widgets and their connections (pages override this)."""

    def ensure_built(self) -> None:
        """Build the widgets now if they are not there yet, then translate them."""
        if self.built:
            return
        self.built = True  # first: _build may read attributes it is about to create
        self._build()
        self.retranslate()

    def __getattr__(self, name: str):
        # Only reached for a missing attribute: a widget of a page not built yet is made on demand.
        if self.built or name.startswith("__") or "model" not in self.__dict__:
            raise AttributeError(f"{type(self).__name__!s} has no attribute {name!r}")
        self.ensure_built()
        return getattr(self, name)

    def initializePage(self) -> None:  # noqa: N802 - Qt's name
        self.ensure_built()

    def current_lang(self) -> str:
        """The session's language, which every text on this page is rendered in."""
        return self.model.session.lang

    @property
    def lang(self) -> str:
        return self.current_lang()

    def _on_language_changed(self, _lang: str) -> None:
        if self.built:
            self.retranslate()
        else:
            BasePage.retranslate(self)  # only the title: the rest is translated when built

    def retranslate(self) -> None:
        self.setTitle(t(PAGE_TITLE_KEYS[self.page_id], self.lang))
        self.setSubTitle(t(PAGE_TITLE_KEYS[self.page_id].replace(".title", ".subtitle"), self.lang))


def scroll_body(page: QWidget) -> QVBoxLayout:
    """Give ``page`` a frameless vertical scroll area; return the layout to fill.

    Every page scrolls vertically and never horizontally: long values wrap instead, so a
    small laptop screen (1366×768) still shows the whole width.
    """
    from PySide6.QtWidgets import QScrollArea  # a later page's: not created before the first paint

    outer = QVBoxLayout(page)
    outer.setContentsMargins(0, 0, 0, 0)
    scroll = QScrollArea()
    scroll.setObjectName("pageScroll")
    scroll.setWidgetResizable(True)
    scroll.setFrameShape(QScrollArea.Shape.NoFrame)
    scroll.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    body = QWidget()
    layout = QVBoxLayout(body)
    layout.setContentsMargins(0, 0, 6, 0)
    scroll.setWidget(body)
    outer.addWidget(scroll)
    return layout


def busy_bar(hidden: bool = True) -> QProgressBar:
    """The thin "working…" bar a page shows while its job runs (no percentage: it cannot know one).

    Not ``hidden``: left as it is, so it shows with the page it is put in. ``setVisible(True)`` on
    the bar before it has a parent would open it as a window of its own (which the layout then
    takes back): under wine that window cost the first paint about 300-600 ms."""
    bar = QProgressBar()
    bar.setRange(0, 0)
    bar.setMaximumHeight(6)
    bar.setTextVisible(False)
    if hidden:
        bar.hide()
    return bar


def status_label(object_name: str, rich: bool = True, selectable: bool = False) -> QLabel:
    """A wrapping status line under a page's buttons (rich text for its coloured marks);
    ``selectable``: the student can select and copy its text (a path, an error)."""
    label = QLabel()
    label.setObjectName(object_name)
    label.setWordWrap(True)
    if rich:
        label.setTextFormat(QtCore.Qt.TextFormat.RichText)
    if selectable:
        label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
    return label
