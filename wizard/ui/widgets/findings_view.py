"""Findings as cards: a coloured mark, the title, the cause, and the fix to follow."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from wizard.app.detect import Finding
from wizard.core.base.i18n import t
from wizard.ui import colours
from wizard.ui.language import LangOf, english

COLOURS = {"error": colours.FAIL, "warning": colours.WARN, "info": colours.INFO}
MARKS = {"error": "✖", "warning": "⚠", "info": "ℹ"}


class FindingCard(QFrame):
    """One finding. A finding with an ``action`` (a diagnosis) gets a button; the view asks
    before anything is done (``action_requested``)."""

    action_requested = Signal(object)

    def __init__(self, finding: Finding, parent: QWidget | None = None, lang_of: LangOf = english) -> None:
        super().__init__(parent)
        self.lang_of = lang_of
        self.finding = finding
        colour = COLOURS.get(finding.severity, "#555555")
        self.setObjectName("findingCard")
        self.setStyleSheet(
            f"#findingCard {{ border: 1px solid #d0d0d0; border-left: 5px solid {colour};"
            f" border-radius: 4px; background: palette(base); }}")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 8)
        layout.setSpacing(3)
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.title.setStyleSheet(f"color: {colour}; font-weight: 600;")
        self.cause = QLabel()
        self.cause.setWordWrap(True)
        self.fix = QLabel()
        self.fix.setWordWrap(True)
        for label in (self.title, self.cause, self.fix):
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            layout.addWidget(label)
        self.button: QPushButton | None = None
        if getattr(finding, "action", None) is not None:
            row = QHBoxLayout()
            self.button = QPushButton()
            self.button.setObjectName("findingAction")
            self.button.clicked.connect(lambda: self.action_requested.emit(self.finding))
            row.addWidget(self.button)
            row.addStretch(1)
            layout.addLayout(row)
        self.retranslate()


    @property
    def lang(self) -> str:
        return self.lang_of()

    def retranslate(self) -> None:
        f = self.finding
        severity = t("diagnosis.severity." + f.severity, self.lang)
        self.title.setText(f"{MARKS.get(f.severity, '•')}  {severity}: {f.title(self.lang)}")
        self.cause.setText(f.cause(self.lang))
        self.fix.setText("→ " + f.fix(self.lang))
        if f.evidence:
            self.setToolTip(f.evidence)
        if self.button is not None:
            self.button.setText(f.action.label(self.lang))  # type: ignore[attr-defined]


class FindingsView(QWidget):
    """A column of :class:`FindingCard`; shows "no problems" when the list is empty."""

    action_requested = Signal(object)  # the finding whose action button was pressed

    def __init__(self, parent: QWidget | None = None, lang_of: LangOf = english) -> None:
        super().__init__(parent)
        self.lang_of = lang_of
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(6)
        self._findings: list[Finding] = []
        self._empty = QLabel()
        self._layout.addWidget(self._empty)
        self.cards: list[FindingCard] = []


    @property
    def lang(self) -> str:
        return self.lang_of()

    def set_findings(self, findings: list[Finding]) -> None:
        for card in self.cards:
            card.setParent(None)
            card.deleteLater()
        self.cards = [FindingCard(f, self, self.lang_of) for f in findings]
        for card in self.cards:
            card.action_requested.connect(self.action_requested)
            self._layout.addWidget(card)
        self._findings = list(findings)
        self.retranslate()

    def retranslate(self) -> None:
        self._empty.setText("✔  " + t("doctor.no_findings", self.lang))
        self._empty.setVisible(not self.cards)
        for card in self.cards:
            card.retranslate()
