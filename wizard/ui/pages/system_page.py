"""Page 1 — Welcome / System: language, OS, CPU, RAM, disk, Python interpreters, conda."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6 import QtCore
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from wizard.core.base.i18n import t
from wizard.ui.pages.base import BasePage, PageId, busy_bar, status_label
from wizard.ui.session_model import SessionModel

if TYPE_CHECKING:  # the models load with detection, on its worker thread
    from wizard.app.detect import Detection


def source_text(source: str, lang: str) -> str:
    """Where an interpreter was found, in the page's language (the detector's word as tooltip)."""
    key = f"system.page.source.{source}"
    from wizard.core.base.i18n import has

    return t(key, lang) if has(key) else source


def _gib(nbytes: int | None, lang: str) -> str:
    return t("common.na", lang) if nbytes is None else f"{nbytes / 2**30:.1f} GiB"


class SystemPage(BasePage):
    page_id = PageId.SYSTEM
    #: the window will build the boxes soon (SetupWizard.after_first_paint): a detection that
    #: ends first waits for them rather than creating the Qt namespace on the GUI thread itself
    boxes_coming = False

    def __init__(self, model: SessionModel, parent: QWidget | None = None) -> None:
        super().__init__(model, parent)
        self.setObjectName("page_system")
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)

        top = QHBoxLayout()
        self.welcome = QLabel()
        self.welcome.setWordWrap(True)
        top.addWidget(self.welcome, 1)
        self.lang_label = QLabel("언어 / Language:")
        self.lang_combo = QComboBox()
        self.lang_combo.setObjectName("languageCombo")
        self.lang_combo.addItem("한국어", "ko")
        self.lang_combo.addItem("English", "en")
        self.lang_combo.setCurrentIndex(0 if model.session.lang == "ko" else 1)
        self.lang_combo.currentIndexChanged.connect(
            lambda i: self.model.set_language(self.lang_combo.itemData(i)))
        top.addWidget(self.lang_label)
        top.addWidget(self.lang_combo)
        outer.addLayout(top)

        self.changes = QLabel()  # "this computer changed since the last run": shown when it did
        self.changes.setObjectName("changesBanner")
        self.changes.setWordWrap(True)
        self.changes.setFrameShape(QLabel.Shape.StyledPanel)
        self.changes.setMargin(8)
        self.changes.hide()
        self.rerun = QPushButton()
        self.rerun.setObjectName("rerunButton")
        self.rerun.hide()
        changes_row = QHBoxLayout()
        changes_row.addWidget(self.changes, 1)
        changes_row.addWidget(self.rerun)  # AlignTop is set with the boxes (_build): no Qt enum before the first paint
        self._changes_row = changes_row
        outer.addLayout(changes_row)
        self._diff = None

        self.busy = busy_bar(hidden=False)  # detection starts with the window
        outer.addWidget(self.busy)
        self.status = status_label("systemStatus", rich=False)
        outer.addWidget(self.status)
        self._outer = outer

        model.detection_started.connect(self._on_started)
        model.detection_finished.connect(self._on_finished)
        model.detection_failed.connect(self._on_failed)
        model.changes_found.connect(self._on_changes)
        self.retranslate()

    def _build(self) -> None:
        """The boxes detection fills: built after the window's first paint (or when something
        reaches for them first), not in ``__init__``.

        Why: they are the first widgets to use an enum of PySide's ``Qt`` namespace, and PySide
        creates all ~90 of those Python enums the first time any one is touched -- 15-20 ms, an
        eighth of a bare QWizard's whole start-up (issue 17). Until detection ends they are empty,
        so the first paint shows what there is to see then: the welcome line, the language menu,
        the busy bar and "Checking this PC…"; :meth:`SetupWizard.after_first_paint` builds them
        a moment later, before detection can answer.
        """
        # PySide creates each Qt class when a module first names it: the boxes' classes here
        from PySide6.QtWidgets import QGroupBox, QHeaderView, QScrollArea, QToolButton, QTreeWidget

        from wizard.ui.widgets.info_form import InfoForm

        Qt = QtCore.Qt  # noqa: N806 - the namespace, touched here for the first time
        outer = self._outer
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        body = QWidget()
        body_layout = QVBoxLayout(body)
        body_layout.setContentsMargins(0, 0, 6, 0)
        self.system_box = QGroupBox()
        self.form = InfoForm(self.current_lang)
        self.system_box.setLayout(self.form)
        body_layout.addWidget(self.system_box)

        self.python_box = QGroupBox()
        python_layout = QVBoxLayout(self.python_box)
        self.python_tree = QTreeWidget()
        self.python_tree.setObjectName("pythonTree")
        self.python_tree.setRootIsDecorated(False)
        self.python_tree.setMinimumHeight(110)
        self.python_tree.header().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        python_layout.addWidget(self.python_tree)
        # interpreters that could not be run (pyenv shims of versions not installed, …): one
        # line, as `doctor` says it, with the paths and errors behind a button
        broken_row = QHBoxLayout()
        self.broken_label = QLabel()
        self.broken_label.setObjectName("brokenPythons")
        self.broken_label.setWordWrap(True)
        self.broken_button = QToolButton()
        self.broken_button.setObjectName("brokenDetails")
        self.broken_button.setCheckable(True)
        self.broken_button.toggled.connect(self._show_broken)
        broken_row.addWidget(self.broken_label, 1)
        broken_row.addWidget(self.broken_button, 0, Qt.AlignmentFlag.AlignTop)
        python_layout.addLayout(broken_row)
        self.broken_details = QLabel()
        self.broken_details.setObjectName("brokenPythonDetails")
        self.broken_details.setWordWrap(True)
        self.broken_details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.broken_details.hide()
        python_layout.addWidget(self.broken_details)
        self.conda_label = QLabel()
        self.conda_label.setWordWrap(True)
        python_layout.addWidget(self.conda_label)
        body_layout.addWidget(self.python_box)
        # the course and storage controls above the boxes, outside the scroll area: a student
        # sees them without scrolling, however many interpreters the list below shows
        from wizard.ui.pages.course_panel import add_course_row  # the course profile the run honours

        controls = QHBoxLayout()
        controls.setObjectName("systemControls")
        self.course_row = add_course_row(self, controls)
        self.storage_button = self._add_storage_button(controls)
        outer.addLayout(controls)
        body_layout.addStretch(1)
        scroll.setWidget(body)
        outer.addWidget(scroll, 1)
        scroll.show()  # the page may be on screen already: at once, not on the next turn of the loop
        self._changes_row.setAlignment(self.rerun, Qt.AlignmentFlag.AlignTop)

    # QWizardPage -----------------------------------------------------------------
    def _add_storage_button(self, layout: QHBoxLayout) -> QPushButton:
        """The "Storage…" button (the disk-space dialog), at the end of ``layout``; the dialog's
        module loads on the first click, not before the window's first paint."""
        from wizard.ui.pages.task_dialog import OpenerButton

        button = OpenerButton("storage.ui.button", "openStoragePanel", self.model)

        def open_dialog() -> None:
            from wizard.ui.pages.storage_panel import open_storage_dialog

            open_storage_dialog(self)

        button.clicked.connect(lambda _checked=False: open_dialog())
        layout.addWidget(button, 0, QtCore.Qt.AlignmentFlag.AlignTop)
        return button

    def isComplete(self) -> bool:  # noqa: N802 - Qt's name
        return not self.model.detecting and (self.model.session.detection is not None
                                             or self.model.session.detection_error is not None)

    # slots ----------------------------------------------------------------------------
    def _on_started(self) -> None:
        self.busy.show()
        self.status.setText(t("system.page.detecting", self.lang))
        self.completeChanged.emit()

    def _on_finished(self, _detection: Detection) -> None:
        self.busy.hide()
        self.fill()
        self.completeChanged.emit()

    def _on_failed(self, text: str) -> None:
        self.busy.hide()
        self.status.setText(t("system.page.failed", self.lang, error=text.splitlines()[0]))
        self.status.setToolTip(text)
        self.completeChanged.emit()

    def _on_changes(self, diff) -> None:
        self._diff = diff
        self._show_changes()

    def _show_changes(self) -> None:
        if self._diff is None:
            return
        lines = self._diff.lines(self.lang)
        self.changes.setText("⟳  " + t("history.changes.notice", self.lang, time=self._diff.old.time[:16].replace("T",
                                                                                                          " ")) + "\n"
                             + "\n".join("• " + line for line in lines[1:]))
        self.changes.show()
        self.rerun.show()

    # content ----------------------------------------------------------------------------
    def _fill(self) -> None:
        d = self.model.session.detection
        assert d is not None  # filled when detection has finished
        s = d.system
        self.status.setText(t("system.page.done", self.lang, seconds=f"{d.duration_s or 0:.1f}"))
        os_text = s.os_pretty or s.os
        if s.is_wsl:
            os_text += f"  (WSL{s.wsl_version or ''})"
        self.form.set_row("system.page.os", os_text)
        self.form.set_row("system.page.build", s.os_build or t("common.na", self.lang))
        self.form.set_row("system.page.arch", s.arch or t("common.na", self.lang))
        self.form.set_row("system.page.cpu", s.cpu_model or t("common.na", self.lang))
        cores = t("system.page.cores_value", self.lang, physical=s.cpu_physical_cores or "?",
                  logical=s.cpu_logical_cores or "?")
        self.form.set_row("system.page.cores", cores)
        self.form.set_row("system.page.ram",
                          f"{_gib(s.ram_total_bytes, self.lang)}  ({t('doctor.available', self.lang)} "
                                             f"{_gib(s.ram_available_bytes, self.lang)})")
        self.form.set_row("system.page.disk", f"{_gib(s.disk_free_bytes, self.lang)}  —  {s.disk_path or ''}")
        self.form.set_row("system.page.locale", s.locale or t("common.na", self.lang))
        self.form.set_row("system.page.admin", t("common.yes", self.lang) if s.is_admin else t("common.no", self.lang))
        self._fill_pythons(d)
        if d.conda:
            parts = [f"{c.exe} ({c.version or '?'}): " + ", ".join(e.name for e in c.envs) for c in d.conda]
            self.conda_label.setText("conda — " + "; ".join(parts))
        else:
            self.conda_label.setText("conda — " + t("common.none_found", self.lang))

    def _fill_pythons(self, d: Detection) -> None:
        """The interpreters that run, as `doctor` lists them; the ones that do not, one line."""
        from PySide6.QtWidgets import QTreeWidgetItem

        lang = self.lang
        working = [p for p in d.pythons if not p.error]
        broken = [p for p in d.pythons if p.error]
        self.python_tree.clear()
        for p in working:
            notes = []
            if p.is_venv:
                notes.append(t("system.page.venv", lang))
            if p.externally_managed:
                notes.append(t("system.page.externally_managed", lang))
            item = QTreeWidgetItem([p.version or "?", p.arch or "", source_text(p.source, lang), p.path,
                                    ", ".join(notes)])
            item.setToolTip(2, p.source)
            item.setToolTip(3, p.path)
            self.python_tree.addTopLevelItem(item)
        self.python_tree.setVisible(bool(working))
        lines = [] if working else [t("system.page.no_python", lang)]
        if broken:
            lines.append(t("system.page.broken", lang, count=len(broken)))
        self.broken_label.setText("\n".join(lines))
        self.broken_label.setVisible(bool(lines))
        self.broken_button.setVisible(bool(broken))
        self.broken_details.setText("\n".join(f"• {p.path} — {p.error}" for p in broken))
        self._show_broken(self.broken_button.isChecked())

    def _show_broken(self, shown: bool) -> None:
        self.broken_details.setVisible(shown and self.broken_button.isVisible())
        self.broken_button.setText(t("system.page.hide_details" if shown else "system.page.show_details", self.lang))

    def initializePage(self) -> None:  # noqa: N802 - Qt's name
        """Shown: the boxes stay for :meth:`SetupWizard.after_first_paint` (see :meth:`_build`)."""

    def _on_language_changed(self, _lang: str) -> None:
        self.retranslate()  # the top is always there; the boxes only once built

    def fill(self) -> None:
        """Detection's answer into the boxes (built now if the first paint has not come yet)."""
        if self.model.session.detection is None:
            return
        if not self.built:
            if not self.boxes_coming:
                self.ensure_built()  # builds, translates and so fills
            return  # else the window builds the boxes (and so fills them) in a moment
        self._fill()

    def retranslate(self) -> None:
        super().retranslate()
        self.welcome.setText(t("system.page.welcome", self.lang))
        self.rerun.setText(t("history.changes.rerun", self.lang))
        self._show_changes()
        session = self.model.session
        if self.model.detecting or (session.detection is None and session.detection_error is None):
            self.status.setText(t("system.page.detecting", self.lang))  # the busy bar runs from the start
        if not self.built:
            return
        self.system_box.setTitle(t("system.page.box", self.lang))
        self.python_box.setTitle(t("system.page.python_box", self.lang))
        self.python_tree.setHeaderLabels([t("system.page.col.version", self.lang), t("system.page.col.arch", self.lang),
                                          t("system.page.col.source", self.lang), t("system.page.col.path", self.lang),
                                          t("system.page.col.notes", self.lang)])
        self.form.retranslate()
        self.fill()
