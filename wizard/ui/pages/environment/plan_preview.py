"""The Environment page's plan preview: the exact files (package, version, size; "already
installed" plainly), the total, a failure said from its kind with the tool's words folded under
"Details", and -- when the index lacks the chosen build -- the builds it has, one click each.

A widget that owns its state: the plan or why there is none, whether it is being worked out,
and the builds the index offers instead (asked on the worker pool). It says ``build_chosen``
when the student clicks one of those, ``connection_failed`` when the answer was a connection
failure (the page opens the mirror setting).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from wizard.app import install as app_install
from wizard.app.alternatives import builds_on_index
from wizard.app.install import InstallOptions, InstallPlan, InstallSettings, PlanError, format_bytes
from wizard.core.base.i18n import t
from wizard.ui.pages.environment import common
from wizard.ui.pages.environment.common import GREEN, RED
from wizard.ui.pages.environment.common import esc as _esc
from wizard.ui.pages.environment.failure import CONNECTION, NO_BUILD, describe
from wizard.ui.widgets.folded_details import build_folded_details, show_folded_details
from wizard.ui.workers import Task, submit

if TYPE_CHECKING:
    from wizard.app.recommend import Candidate, MachineFacts


class PlanPreview(QGroupBox):
    """The plan box of the Environment page."""

    build_chosen = Signal(object)  # a Candidate the index has
    connection_failed = Signal()

    def __init__(self, lang_of: Callable[[], str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._lang_of = lang_of
        self.plan: InstallPlan | None = None
        self.plan_error: PlanError | None = None
        self.plan_running = False
        self.alternatives: list | None = None  # builds the index has when it lacks the chosen one (None: not asked)
        self.alternatives_running = False
        self.cached_bytes = 0  # what the cache holds of the plan (the checks' answer)
        self._alt_gen = 0
        self._tasks: list[Task] = []
        self._build()

    @property
    def lang(self) -> str:
        return self._lang_of()

    def _build(self) -> None:
        layout = QVBoxLayout(self)
        status_row = QHBoxLayout()
        self.plan_busy = QProgressBar()
        self.plan_busy.setRange(0, 0)
        self.plan_busy.setMaximumWidth(120)
        self.plan_busy.setMaximumHeight(12)
        self.plan_busy.setTextVisible(False)
        self.plan_status = QLabel()
        self.plan_status.setObjectName("planStatus")
        self.plan_status.setWordWrap(True)
        self.plan_status.setTextFormat(Qt.TextFormat.RichText)
        self.plan_status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        status_row.addWidget(self.plan_busy)
        status_row.addWidget(self.plan_status, 1)
        layout.addLayout(status_row)
        self.plan_tree = QTreeWidget()
        self.plan_tree.setObjectName("planTree")
        self.plan_tree.setColumnCount(3)
        self.plan_tree.setRootIsDecorated(False)
        self.plan_tree.setAlternatingRowColors(True)
        self.plan_tree.setMinimumHeight(120)
        self.plan_tree.setMaximumHeight(210)
        header = self.plan_tree.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(False)
        layout.addWidget(self.plan_tree)
        self.plan_total = QLabel()
        self.plan_total.setObjectName("planTotal")
        self.plan_total.setWordWrap(True)
        self.plan_total.setTextFormat(Qt.TextFormat.RichText)
        layout.addWidget(self.plan_total)
        # under a failed plan: the raw details (folded) and the builds the index does have
        self.details_button, self.details_label = build_folded_details(layout, "planDetailsButton", "planDetails")
        self.alt_label = QLabel()
        self.alt_label.setObjectName("altLabel")
        self.alt_label.setWordWrap(True)
        self.alt_label.setTextFormat(Qt.TextFormat.RichText)
        self.alt_label.hide()
        layout.addWidget(self.alt_label)
        self.alt_row = QHBoxLayout()
        self.alt_row.addStretch(1)
        self.alt_buttons: list[QPushButton] = []
        layout.addLayout(self.alt_row)

    # --- the answer --------------------------------------------------------------------------------
    def forget(self) -> None:
        """Another question: the old answer no longer applies."""
        self.plan, self.plan_error, self.plan_running = None, None, False

    def set_answer(self, plan: InstallPlan | None, error: PlanError | None) -> None:
        self.plan, self.plan_error, self.plan_running = plan, error, False

    def blocks(self) -> bool:
        """The plan was worked out and cannot run (the app layer's answer, as the command line's)."""
        return app_install.plan_blocks(self.plan_error)

    # --- what it shows -----------------------------------------------------------------------------
    def show_plan(self, has_target: bool, target_problem: str | None, options: InstallOptions | None) -> None:
        lang = self.lang
        self.plan_busy.setVisible(self.plan_running)
        self.plan_tree.clear()
        self.plan_total.setText("")
        self.plan_status.setToolTip("")
        self.show_details("")
        self.show_alternatives(has_target)
        plan, err = self.plan, self.plan_error
        sources = app_install.sources_text(options, lang) if options else "PyPI"  # a course's extras: in words
        if not has_target:
            self.plan_status.setText(_esc(target_problem or ""))
            self.plan_tree.hide()
            return
        if self.plan_running:
            self.plan_status.setText(_esc(t("environment.plan.resolving", lang, index=sources)))
            self.plan_tree.hide()
            return
        if err is not None:
            said = describe(err.failure_kind, err.message.text(lang), err.detail, lang, host=err.host,
                            reqs=" ".join(options.requirements) if options else "", index=sources)
            if said.category == CONNECTION:
                self.connection_failed.emit()
            advice = f"<br>{_esc(said.advice)}" if said.advice else ""
            self.plan_status.setText(f'<span style="color:{RED}">✖ {_esc(said.headline)}</span>{advice}')
            self.plan_status.setToolTip(said.details)
            self.show_details(said.details)
            self.plan_tree.hide()
            return
        if plan is None:
            self.plan_status.setText(_esc(t("environment.plan.later", lang)))
            self.plan_tree.hide()
            return
        self.plan_status.setText(_esc(t("environment.plan.exact", lang, python=plan.python_version or "?")))
        self.plan_tree.show()
        for f in plan.files:
            if f.satisfied:
                size = t("install.plan.satisfied", lang)
            else:
                size = format_bytes(f.size) if f.size is not None else t("install.plan.size_unknown", lang)
            item = QTreeWidgetItem([f.name, f.version, size])
            item.setToolTip(0, f.host or f.url)  # where it comes from (a course's extras: PyPI)
            item.setTextAlignment(2, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if f.installed_version and not f.satisfied:
                item.setToolTip(1, t("environment.plan.replaces", lang, version=f.installed_version))
                item.setText(1, f"{f.version}  (← {f.installed_version})")
            if f.satisfied:
                item.setForeground(2, self.palette().brush(self.palette().ColorGroup.Disabled,
                                                           self.palette().ColorRole.Text))
            self.plan_tree.addTopLevelItem(item)
        rows = min(len(plan.files), 8)
        self.plan_tree.setFixedHeight(self.plan_tree.sizeHintForRow(0) * rows + self.plan_tree.header().height() + 6
                                      if rows else 60)
        self.show_total()

    def show_total(self, cached_bytes: int | None = None) -> None:
        """The total to download; what the cache already holds when the checks have said."""
        if cached_bytes is not None:
            self.cached_bytes = cached_bytes
        plan, lang = self.plan, self.lang
        if plan is None:
            return
        if plan.already_satisfied:
            done = _esc(t("install.already_satisfied", lang))
            self.plan_total.setText(f'<b style="color:{GREEN}">✓ {done}</b>')
            return
        text = _esc(t("install.plan.total", lang, count=len(plan.to_install), size=format_bytes(plan.total_bytes)))
        if plan.unknown_sizes:
            text += " " + _esc(t("environment.plan.unknown_sizes", lang, count=plan.unknown_sizes))
        cached = self.cached_bytes
        if cached:
            text += "<br>" + _esc(t("environment.plan.cached", lang, size=format_bytes(cached)))
        self.plan_total.setText(f"<b>{text}</b>" if not cached else text)

    def show_details(self, details: str) -> None:
        """The tool's raw words, folded away under "Details"."""
        show_folded_details(self.details_button, self.details_label, details)

    # --- the builds the index has instead ----------------------------------------------------------
    def start_alternatives(self, facts: MachineFacts, current: Candidate | None, python: str,
                           settings: InstallSettings) -> None:
        """The index lacks the chosen build: ask it (worker) which fitting builds it has."""
        self._alt_gen += 1
        self.alternatives, self.alternatives_running = None, False
        if self.plan_error is None or self.plan_error.failure_kind != NO_BUILD or current is None:
            return
        gen, self.alternatives_running = self._alt_gen, True

        def done(found: list) -> None:
            if common.alive(self) and gen == self._alt_gen:
                self.alternatives, self.alternatives_running = found, False
                self.show_alternatives(True)

        def failed(_text: str) -> None:
            if common.alive(self) and gen == self._alt_gen:
                self.alternatives, self.alternatives_running = [], False
                self.show_alternatives(True)

        task = submit(builds_on_index, facts, current, python, InstallSettings(**vars(settings)),
                      on_done=done, on_failed=failed)
        self._tasks = self._tasks[-4:] + [task]

    def clear_alternatives(self) -> None:
        self.alternatives = None
        self.show_alternatives(False)

    def show_alternatives(self, has_target: bool) -> None:
        """The builds the index has (one button each), while the plan says it lacks this one."""
        for button in self.alt_buttons:
            button.deleteLater()
        self.alt_buttons = []
        err, lang = self.plan_error, self.lang
        if err is None or err.failure_kind != NO_BUILD or not has_target:
            self.alt_label.hide()
            return
        self.alt_label.show()
        if self.alternatives_running:
            self.alt_label.setText(_esc(t("environment.alt.looking", lang)))
            return
        if not self.alternatives:
            self.alt_label.setText(_esc(t("environment.alt.none", lang)) if self.alternatives is not None else "")
            return
        self.alt_label.setText(_esc(t("environment.alt.title", lang)))
        for c in self.alternatives:
            button = QPushButton(t("environment.alt.use", lang, torch=c.torch, variant=c.variant))
            button.setObjectName(f"useBuild_{c.torch}_{c.variant}")
            button.clicked.connect(lambda _on=False, _c=c: self.build_chosen.emit(_c))
            self.alt_row.insertWidget(self.alt_row.count() - 1, button)
            self.alt_buttons.append(button)

    def retranslate(self) -> None:
        lang = self.lang
        self.setTitle(t("environment.plan.title", lang))
        self.plan_tree.setHeaderLabels([t("environment.plan.col.package", lang), t("environment.plan.col.version", lang),
                                        t("environment.plan.col.size", lang)])
        self.details_button.setText(t("install.failure.details", lang))
        self.details_button.setToolTip(t("install.failure.details_tip", lang))


__all__ = ["PlanPreview"]
