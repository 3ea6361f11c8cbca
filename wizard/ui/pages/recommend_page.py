"""Page 3 — Recommendation: the build this driver, these GPUs and this Python can all run.

The choice comes first, large and plain; then why, the warnings, what to do first (a driver
update), the commands with a Copy button, and, behind an expander, the alternatives and every
rejected option with its reason. The student may override the choice: the override goes
through the same rules and is warned about, not blocked. The recommender is pure and takes
milliseconds; only the package-index check (network) runs on a worker thread.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QFont, QGuiApplication
from PySide6.QtWidgets import (
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QTabWidget,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from wizard.app import recommend as app_recommend
from wizard.core.base.i18n import t
from wizard.ui import colours
from wizard.ui.pages.base import BasePage, PageId, scroll_body
from wizard.ui.session_model import SessionModel
from wizard.ui.widgets.wrap_delegate import WrapLastColumn
from wizard.ui.workers import Task, submit

if TYPE_CHECKING:
    from wizard.app.recommend import Candidate, PythonChoice

GREEN, ORANGE, RED = colours.OK, colours.WARN, colours.FAIL
MUTED = colours.MUTED  # the disabled-text grey was too light to read
_SHARED_WARNINGS = {"recommend.warn.pypi_default", "recommend.warn.torchaudio_separate"}


def _html_list(items: list[str], mark: str, colour: str) -> str:
    return "<br>".join(f'<span style="color:{colour}">{mark}</span>&nbsp;{_esc(x)}' for x in items)


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class RecommendPage(BasePage):
    page_id = PageId.RECOMMEND

    def __init__(self, model: SessionModel, parent: QWidget | None = None) -> None:
        super().__init__(model, parent)
        self.setObjectName("page_recommend")
        self.built = False
        self.choice: PythonChoice | None = None
        self.selected: Candidate | None = None  # the build the student goes on with
        self._index_task: Task | None = None
        model.detection_finished.connect(lambda _d: self.recompute() if self.built else None)
        super().retranslate()

    # build ----------------------------------------------------------------------------------
    def _build(self) -> None:
        self.built = True
        layout = scroll_body(self)
        self.page_scroll = self.findChild(QScrollArea, "pageScroll")

        # the label above the list, and the list as narrow as the page: an interpreter's long path
        # must not widen the page past a small screen (640×480), where every line wraps instead
        self.python_label = QLabel()
        self.python_label.setWordWrap(True)
        self.python_combo = QComboBox()
        self.python_combo.setObjectName("pythonCombo")
        self.python_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.python_combo.setMinimumContentsLength(16)
        self.python_combo.currentIndexChanged.connect(lambda _i: self.recompute(keep_python=True))
        layout.addWidget(self.python_label)
        layout.addWidget(self.python_combo)

        self.first = QLabel()  # "update the driver first": only when required
        self.first.setObjectName("requiredAdvice")
        self.first.setWordWrap(True)
        self.first.setTextFormat(Qt.TextFormat.RichText)
        self.first.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.first.setOpenExternalLinks(True)
        self.first.setFrameShape(QLabel.Shape.StyledPanel)
        self.first.setMargin(10)
        layout.addWidget(self.first)

        self.choice_label = QLabel()
        self.choice_label.setObjectName("choiceLabel")
        font = QFont(self.choice_label.font())
        font.setPointSizeF(font.pointSizeF() * 1.6)
        font.setBold(True)
        self.choice_label.setFont(font)
        self.choice_label.setWordWrap(True)
        layout.addWidget(self.choice_label)
        self.choice_sub = QLabel()
        self.choice_sub.setWordWrap(True)
        layout.addWidget(self.choice_sub)

        self.why = QLabel()
        self.why.setObjectName("whyLabel")
        self.why.setWordWrap(True)
        self.why.setTextFormat(Qt.TextFormat.RichText)
        layout.addWidget(self.why)
        self._build_commands(layout)
        self._build_more(layout)
        self.data_source = QLabel()  # which compatibility table was used: built-in or updated, its date
        self.data_source.setObjectName("dataSource")
        self.data_source.setWordWrap(True)
        layout.addWidget(self.data_source)

    def _build_commands(self, layout: QVBoxLayout) -> None:
        self.commands_box = QGroupBox()
        commands_layout = QVBoxLayout(self.commands_box)
        self.command_tabs = QTabWidget()
        self.command_edits: dict[str, QPlainTextEdit] = {}
        for tool in ("pip", "uv", "conda"):
            edit = QPlainTextEdit()
            edit.setReadOnly(True)
            edit.setFont(QFont("monospace"))
            edit.setMaximumHeight(74)
            self.command_edits[tool] = edit
            self.command_tabs.addTab(edit, tool)
        self.command_tabs.setMaximumHeight(112)
        commands_layout.addWidget(self.command_tabs)
        buttons = QHBoxLayout()
        self.copy_button = QPushButton()
        self.copy_button.setObjectName("copyButton")
        self.copy_button.clicked.connect(self.copy_command)
        self.index_button = QPushButton()
        self.index_button.setObjectName("indexButton")
        self.index_button.clicked.connect(self.check_index)
        self.index_result = QLabel()
        self.index_result.setWordWrap(True)
        buttons.addWidget(self.copy_button)
        buttons.addWidget(self.index_button)
        buttons.addWidget(self.index_result, 1)
        commands_layout.addLayout(buttons)
        layout.addWidget(self.commands_box)

    def _build_more(self, layout: QVBoxLayout) -> None:
        self.advice = QLabel()
        self.advice.setWordWrap(True)
        self.advice.setTextFormat(Qt.TextFormat.RichText)
        self.advice.setOpenExternalLinks(True)
        layout.addWidget(self.advice)

        self.more_button = QToolButton()
        self.more_button.setObjectName("moreButton")
        self.more_button.setCheckable(True)
        self.more_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.more_button.setArrowType(Qt.ArrowType.RightArrow)
        self.more_button.toggled.connect(self._toggle_more)
        layout.addWidget(self.more_button)
        self.more = QWidget()
        more_layout = QVBoxLayout(self.more)
        more_layout.setContentsMargins(0, 0, 0, 0)
        self.tree = QTreeWidget()
        self.tree.setObjectName("optionsTree")
        self.tree.setColumnCount(3)
        self.tree.setMinimumHeight(240)
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.header().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.setItemDelegate(WrapLastColumn(self.tree))  # reasons wrap instead of ending in "…"
        self.tree.currentItemChanged.connect(lambda *_: self._tree_selection())
        more_layout.addWidget(self.tree)
        override_row = QHBoxLayout()
        self.use_button = QPushButton()
        self.use_button.setObjectName("useButton")
        self.use_button.setEnabled(False)
        self.use_button.clicked.connect(self.use_selected)
        self.override_note = QLabel()
        self.override_note.setWordWrap(True)
        self.override_note.setTextFormat(Qt.TextFormat.RichText)
        override_row.addWidget(self.use_button)
        override_row.addWidget(self.override_note, 1)
        more_layout.addLayout(override_row)
        self.more.hide()
        layout.addWidget(self.more)
        layout.addStretch(1)

    # QWizardPage ------------------------------------------------------------------------
    def initializePage(self) -> None:  # noqa: N802
        if not self.built:
            self._build()
            self.retranslate()
        self.recompute()

    def isComplete(self) -> bool:  # noqa: N802
        return self.selected is not None

    # computation ------------------------------------------------------------------------
    def _fill_pythons(self) -> None:
        from wizard.app.recommend import FALLBACK_PYTHON

        d = self.model.session.detection
        combo = self.python_combo
        combo.blockSignals(True)
        combo.clear()
        combo.addItem(t("recommend.page.python_auto", self.lang), None)
        seen = set()
        for p in (d.pythons if d else []):
            if p.error or not p.version or p.bits == 32:
                continue
            minor = ".".join(p.version.split(".")[:2])
            if p.path in seen or minor.startswith("2."):
                continue
            seen.add(p.path)
            combo.addItem(f"Python {p.version} — {p.path}", minor)
        combo.addItem(t("recommend.page.python_install", self.lang, version=FALLBACK_PYTHON), FALLBACK_PYTHON)
        combo.blockSignals(False)

    def recompute(self, keep_python: bool = False) -> None:
        if not self.built:
            return
        if not keep_python:
            self._fill_pythons()
        self.choice = app_recommend.recommend_for(self.model.session,
                                                  explicit_version=self.python_combo.currentData())
        self.selected = self.model.session.candidate
        self.override_failures = list(self.model.session.override_failures)
        self._show()
        self._fill_tree()
        self.completeChanged.emit()

    def _show(self) -> None:
        lang = self.lang
        assert self.choice is not None  # shown after recompute
        rec = self.choice.recommendation
        required = [a for a in rec.advice if a.severity == "required"]
        if required:
            parts = []
            for a in required:
                link = f' <a href="{a.url}">{_esc(a.url)}</a>' if a.url else ""
                cmds = "".join(f"<br><code>{_esc(c)}</code>" for c in a.commands)
                parts.append(f'<b style="color:{RED}">‼ {_esc(a.text(lang))}</b>{link}{cmds}')
            self.first.setText("<br><br>".join(parts))
        self.first.setVisible(bool(required))
        c = self.selected
        if c is None:
            self.choice_label.setText(t("recommend.cli.none", self.lang))
            self.choice_sub.setText("")
            self.why.setText("")
            for edit in self.command_edits.values():
                edit.setPlainText("")
        else:
            self.choice_label.setText(t("recommend.page.choice", self.lang, torch=c.torch,
                                        build=self._build_name(c, self.lang)))
            who = self.choice.interpreter.path if self.choice.interpreter else t(
                "recommend.page.python_to_install", self.lang, version=self.choice.version)
            extras = ", ".join(f"{n} {v}" for n, v in (("torchvision", c.torchvision), ("torchaudio", c.torchaudio))
                               if v)
            self.choice_sub.setText(t("recommend.page.choice_sub", self.lang, python=self.choice.version, where=who,
                                      extras=extras or "—", index=c.index_url))
            html = _html_list([m.text(lang) for m in c.reasons], "✓", GREEN)
            if c.warnings:
                html += "<br>" + _html_list([m.text(lang) for m in c.warnings], "⚠", ORANGE)
            if c is not rec.best and self.override_failures:
                html = _html_list(self.override_failures, "✖", RED) + "<br>" + html
            self.why.setText(html)
            for tool, text in c.commands().as_text().items():
                self.command_edits[tool].setPlainText(text)
        others = [a for a in rec.advice if a.severity != "required"]
        self.advice.setText(_html_list([a.text(lang) for a in others], "•", colours.INFO))
        self.advice.setVisible(bool(others))
        self.index_result.setText("")
        source = rec.data_source
        refused = f" {source.refused.text(lang)}" if source is not None and source.refused is not None else ""
        self.data_source.setText(source.text(lang) + refused if source is not None else "")

    override_failures: list[str] = []

    @staticmethod
    def _build_name(c, lang: str) -> str:
        if c.kind == "cuda":
            digits = c.variant[2:]
            return f"CUDA {digits[:-1]}.{digits[-1]} ({c.variant})"
        return {"cpu": t("recommend.page.kind.cpu", lang), "mps": "Apple MPS", "rocm": f"AMD ROCm ({c.variant})",
                "xpu": f"Intel XPU ({c.variant})"}.get(c.kind, c.variant)

    def _fill_tree(self) -> None:
        lang = self.lang
        assert self.choice is not None  # filled after recompute
        rec = self.choice.recommendation
        self.tree.clear()
        good = QTreeWidgetItem([t("recommend.page.tree.candidates", self.lang, count=len(rec.candidates)), "", ""])
        bad = QTreeWidgetItem([t("recommend.page.tree.rejected", self.lang, count=len(rec.rejected)), "", ""])
        self.tree.addTopLevelItems([good, bad])
        for c in rec.candidates:
            # the warnings every candidate shares (plain pip gives another build, torchaudio apart)
            # say nothing when comparing options: leave them out of the column
            specific = [m for m in c.warnings if m.key not in _SHARED_WARNINGS]
            note = "; ".join(m.text(lang) for m in specific) or t("recommend.page.tree.ok", self.lang)
            item = QTreeWidgetItem([f"torch {c.torch}", c.variant, note])
            item.setData(0, Qt.ItemDataRole.UserRole, ("candidate", c))
            item.setToolTip(2, note)
            good.addChild(item)
        for r in rec.rejected:
            item = QTreeWidgetItem([f"torch {r.torch}", r.variant, r.reason.text(lang)])
            item.setData(0, Qt.ItemDataRole.UserRole, ("rejected", r))
            item.setToolTip(2, r.reason.text(lang))
            item.setForeground(2, QBrush(QColor(MUTED)))  # set apart, still readable (16.12)
            bad.addChild(item)
        good.setExpanded(True)
        bad.setExpanded(True)
        for group in (good, bad):  # "runs on this computer (39)" spans the row, not the torch column
            group.setFirstColumnSpanned(True)

    def _toggle_more(self, shown: bool) -> None:
        self.more.setVisible(shown)
        self.more_button.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)
        if shown:
            from PySide6.QtCore import QTimer

            scroll = self.page_scroll
            if scroll is not None:
                QTimer.singleShot(0, lambda: scroll.ensureWidgetVisible(self.tree, 0, 40))

    def _tree_selection(self) -> None:
        item = self.tree.currentItem()
        data = item.data(0, Qt.ItemDataRole.UserRole) if item else None
        self.use_button.setEnabled(data is not None)
        self.override_note.setText("")
        if data is None:
            return
        _kind, option = data
        failures = app_recommend.build_problems(self.model.session, option.torch, option.variant)
        if failures:
            self.override_note.setText(_html_list(failures, "⚠", RED))
        else:
            ok = t("recommend.page.override_ok", self.lang)
            self.override_note.setText(f'<span style="color:{GREEN}">✓ {ok}</span>')

    def use_selected(self) -> None:
        """Go on with the selected option. A rejected one is turned into a candidate, with its failures shown."""
        item = self.tree.currentItem()
        data = item.data(0, Qt.ItemDataRole.UserRole) if item else None
        if data is None:
            return
        kind, option = data
        chosen = app_recommend.choose_build(self.model.session, option.torch, option.variant,
                                            option if kind == "candidate" else None)
        if chosen is not None:
            self.selected = chosen
        self.override_failures = list(self.model.session.override_failures)
        self._show()
        self.completeChanged.emit()

    def _candidate_for(self, torch: str, variant: str):
        """A Candidate for an option the rules rejected (the override), built by the app layer."""
        assert self.choice is not None  # the options are shown after recompute
        return app_recommend.candidate_for(self.choice.recommendation.facts, torch, variant)

    # actions ------------------------------------------------------------------------------
    def copy_command(self) -> None:
        tool = self.command_tabs.tabText(self.command_tabs.currentIndex())
        QGuiApplication.clipboard().setText(self.command_edits[tool].toPlainText())
        self.index_result.setText(t("recommend.page.copied", self.lang, tool=tool))

    def check_index(self) -> None:
        if self.selected is None or self.choice is None:
            return
        facts = self.choice.recommendation.facts
        candidate = self.selected
        self.index_button.setEnabled(False)
        self.index_result.setText(t("recommend.page.checking", self.lang))

        def work():
            return app_recommend.check_index(candidate, facts)

        def done(check) -> None:
            self.index_button.setEnabled(True)
            self.index_result.setText("\n".join(check.messages(self.lang)))

        def failed(text: str) -> None:
            self.index_button.setEnabled(True)
            self.index_result.setText(text.splitlines()[0])

        self._index_task = submit(work, on_done=done, on_failed=failed)

    def retranslate(self) -> None:
        super().retranslate()
        if not self.built:
            return
        self.python_label.setText(t("recommend.page.python", self.lang) + ":")
        self.commands_box.setTitle(t("recommend.cli.commands", self.lang))
        self.copy_button.setText(t("recommend.page.copy", self.lang))
        self.index_button.setText(t("recommend.page.check_index", self.lang))
        self.more_button.setText(t("recommend.page.more", self.lang))
        self.use_button.setText(t("recommend.page.use", self.lang))
        self.tree.setHeaderLabels([t("recommend.page.col.torch", self.lang), t("recommend.page.col.build", self.lang),
                                   t("recommend.page.col.note", self.lang)])
        if self.choice is not None:
            current = self.python_combo.currentIndex()
            self._fill_pythons()
            self.python_combo.blockSignals(True)
            self.python_combo.setCurrentIndex(current)
            self.python_combo.blockSignals(False)
            self._show()
            self._fill_tree()
