"""The Storage dialog, opened from the System page: the disk space the student can see and get back.

It lists what the wizard's environments, its download cache and pip's, uv's and Hugging Face's
caches take (measured on a worker thread: a big cache takes seconds to walk, the window must not
freeze), and cleans up safely: the caches when their box is ticked, and an environment only when
its own row is ticked *and* the confirmation that names it is accepted. What a cleanup would do
is shown first ("Preview cleanup": the same plan as ``storage --dry-run``, sizes before and
after); files an unfinished install needs stay, and the dialog says so.

The System page's button calls :func:`open_storage_dialog`, importing this module on the first click.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QHeaderView, QMessageBox, QTreeWidgetItem, QWidget

from wizard.app import storage as app_storage
from wizard.app.storage import human_size
from wizard.core.base.i18n import t
from wizard.ui.pages.task_dialog import TaskDialog
from wizard.ui.session_model import SessionModel
from wizard.ui.workers import submit

PATH_ROLE = Qt.ItemDataRole.UserRole


def ask_confirm(parent: QWidget, title: str, text: str, lang: str) -> bool:
    """Yes/No, No the default: deleting is never one stray Enter away."""
    box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.NoButton, parent)
    yes = box.addButton(t("common.yes", lang), QMessageBox.ButtonRole.YesRole)
    no = box.addButton(t("common.no", lang), QMessageBox.ButtonRole.NoRole)
    box.setDefaultButton(no)
    box.exec()
    return box.clickedButton() is yes


class StorageDialog(TaskDialog):
    """The table of sizes, the cache box, the environments' checkboxes, and the cleanup."""

    def __init__(self, model: SessionModel, parent: QWidget | None = None) -> None:
        super().__init__(model, "storageDialog", parent)
        self.report: app_storage.StorageReport | None = None
        self.last_plan: Any = None
        self._start_up()

    def _build(self) -> None:
        layout = self._add_head("storageTree", 3)
        self.tree.setRootIsDecorated(False)
        header = self.tree.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        layout.addWidget(self.tree, 1)
        self.caches_box = QCheckBox()
        self.caches_box.setObjectName("storageCaches")
        self.caches_box.setChecked(True)
        layout.addWidget(self.caches_box)
        row = QHBoxLayout()
        self.refresh_button = self._button("storageRefresh", self.refresh, row)
        self.preview_button = self._button("storagePreview", self.preview, row)
        self.clean_button = self._button("storageClean", self.clean, row)
        self._add_tail(layout, row, "storage", 960, 620)

    def retranslate(self) -> None:
        lang = self.lang
        self.setWindowTitle(t("storage.ui.title", lang))
        self.intro.setText(t("storage.ui.intro", lang))
        self.tree.setHeaderLabels([t("storage.ui.col.what", lang), t("storage.ui.col.size", lang),
                                   t("storage.ui.col.path", lang)])
        self.caches_box.setText(t("storage.ui.caches", lang))
        for button, key in ((self.refresh_button, "storage.ui.refresh"), (self.preview_button, "storage.ui.preview"),
                            (self.clean_button, "storage.ui.clean"), (self.close_button, "storage.ui.close")):
            button.setText(t(key, lang))
        self._fill()

    # ---- busy state ------------------------------------------------------------------
    def _start(self, what: str, key: str) -> None:
        self.busy_with = what
        self.busy.show()
        self.status.setText(html.escape(t(key, self.lang)))
        for button in (self.refresh_button, self.preview_button, self.clean_button):
            button.setEnabled(False)

    def _end(self, text: str | None = None) -> None:
        self.busy_with = None
        self.busy.hide()
        if text is not None:
            self.status.setText(html.escape(text))
        for button in (self.refresh_button, self.preview_button, self.clean_button):
            button.setEnabled(True)

    def _failed(self, text: str) -> None:
        self._end(t("storage.ui.failed", self.lang, error=text.splitlines()[0] if text else "?"))
        self.output.setPlainText(text)

    # ---- the survey ------------------------------------------------------------------
    def refresh(self) -> None:
        self._start("survey", "storage.ui.measuring")
        submit(lambda: app_storage.survey(cancel=self._cancel), on_done=self._surveyed, on_failed=self._failed)

    def _surveyed(self, report: app_storage.StorageReport) -> None:
        self.report = report
        self._fill()
        self._end(t("storage.ui.measured", self.lang, size=human_size(report.total)))

    def _fill(self) -> None:
        if self.report is None:
            return
        ticked = set(self.confirmed_envs())
        self.tree.clear()
        for kind in app_storage.KIND_ORDER:
            for entry in self.report.of_kind(kind):
                item = QTreeWidgetItem([t(f"storage.kind.{kind}", self.lang),
                                        app_storage.size_text(entry.usage, self.lang), entry.location.path])
                item.setTextAlignment(1, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                item.setToolTip(2, f"{entry.location.path}\n({entry.location.source})")
                if kind == "env" and entry.usage.exists:
                    item.setData(0, PATH_ROLE, entry.location.path)
                    item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                    state = Qt.CheckState.Checked if entry.location.path in ticked else Qt.CheckState.Unchecked
                    item.setCheckState(0, state)  # never ticked by the wizard itself
                self.tree.addTopLevelItem(item)

    def confirmed_envs(self) -> list[str]:
        """The environments whose rows the student ticked."""
        out = []
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            path = item.data(0, PATH_ROLE) if item is not None else None
            if path and item is not None and item.checkState(0) == Qt.CheckState.Checked:
                out.append(str(path))
        return out

    def env_item(self, path: str) -> QTreeWidgetItem | None:
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            if item is not None and item.data(0, PATH_ROLE) == path:
                return item
        return None

    # ---- preview and cleanup ---------------------------------------------------------
    def _plan_args(self) -> tuple[Any, list[str], bool] | None:
        if self.report is None:
            return None
        envs, caches = self.confirmed_envs(), self.caches_box.isChecked()
        if not envs and not caches:
            self.status.setText(html.escape(t("storage.ui.nothing", self.lang)))
            return None
        return self.report, envs, caches

    def preview(self) -> None:
        args = self._plan_args()
        if args is None:
            return
        self._start("preview", "storage.ui.measuring")
        report, envs, caches = args
        submit(lambda: app_storage.plan(report, envs, caches=caches), on_done=self._previewed,
               on_failed=self._failed)

    def _previewed(self, plan: Any) -> None:
        self.last_plan = plan
        self.output.setPlainText(app_storage.plan_text(plan, self.lang, dry_run=True))
        self._end("")

    def clean(self) -> None:
        args = self._plan_args()
        if args is None:
            return
        self._start("plan", "storage.ui.measuring")
        report, envs, caches = args
        submit(lambda: app_storage.plan(report, envs, caches=caches), on_done=self._confirm_and_clean,
               on_failed=self._failed)

    def _confirm_and_clean(self, plan: Any) -> None:
        self._end("")
        envs = [i for i in plan.items if i.kind == "env" and not i.refused]
        caches = [i for i in plan.items if i.kind != "env" and not i.refused]
        freed = human_size(sum(i.expected_freed for i in envs + caches))
        if envs:
            listing = "\n".join(f"• {i.path} ({human_size(i.before)})" for i in envs)
            if not ask_confirm(self, t("storage.ui.confirm_title", self.lang),
                               t("storage.ui.confirm_envs", self.lang, envs=listing, freed=freed), self.lang):
                return
        elif caches and not ask_confirm(self, t("storage.ui.confirm_title", self.lang),
                                        t("storage.ui.confirm_caches", self.lang, freed=freed), self.lang):
            return
        self._start("clean", "storage.ui.cleaning")
        submit(lambda: app_storage.clean(plan, cancel=self._cancel), on_done=self._cleaned, on_failed=self._failed)

    def _cleaned(self, plan: Any) -> None:
        self.last_plan = plan
        self.output.setPlainText(app_storage.plan_text(plan, self.lang, dry_run=False))
        self._end("")
        self.refresh()


def open_storage_dialog(page: Any) -> StorageDialog:
    """Show the page's Storage dialog (the same one again while it is open). The System page's
    "Storage…" button calls this, importing this module only then: its engine (the cleanup plan,
    hashing, the size walk) is not on the path to the window's first paint (issue 17)."""
    dialog = getattr(page, "storage_dialog", None)
    if dialog is None or not dialog.isVisible():
        dialog = StorageDialog(page.model, page)
        page.storage_dialog = dialog
    dialog.show()
    dialog.raise_()
    return dialog


__all__ = ["StorageDialog", "ask_confirm", "open_storage_dialog"]
