"""The "Jupyter / VS Code" dialog of the Verify page: the notebook runs what was verified.

"CUDA works in the terminal but not in the notebook" is the complaint after most "successful"
installs: the notebook's kernel is another interpreter. This dialog lists the registered
kernels with what is wrong with each, registers the environment picked on the Verify page as
a kernel (asking before it installs ipykernel into it), runs the verification checklist
*inside* a kernel, and writes VS Code's interpreter setting into a project folder.

Everything that runs a child (listing inspects each kernel's interpreter, registering, the
kernel's verification) runs on a worker thread (:func:`wizard.ui.workers.submit`); progress
crosses back through a signal, so the window never freezes. Closing the dialog cancels a
verification still running (the kernel is shut down by the core).

The Verify page adds the button with :func:`add_kernel_button` (one line there).
"""

from __future__ import annotations

import html
from typing import Any, Callable

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QBoxLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QTreeWidgetItem,
    QWidget,
)

from wizard.app import kernels as app_kernels
from wizard.core.base.i18n import t
from wizard.ui import colours
from wizard.ui.pages.task_dialog import OpenerButton, TaskDialog
from wizard.ui.session_model import SessionModel
from wizard.ui.workers import submit

MARKS = {"pass": ("✔", colours.OK), "warn": ("⚠", colours.WARN), "fail": ("✖", colours.FAIL)}


def consent_box(parent: QWidget | None, title: str, text: str, lang: str) -> tuple[QMessageBox, QPushButton]:
    """The question and its two answers: an action button that says what it does ("Install
    ipykernel"), not the question again, and Cancel, the default."""
    box = QMessageBox(QMessageBox.Icon.Question, title, text, QMessageBox.StandardButton.NoButton, parent)
    yes = box.addButton(t("kernels.panel.consent.install", lang), QMessageBox.ButtonRole.AcceptRole)
    no = box.addButton(t("window.button.cancel", lang), QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(no)
    box.setEscapeButton(no)
    return box, yes


def ask_consent(parent: QWidget, title: str, text: str, lang: str) -> bool:
    """Yes only for an explicit yes (the safe answer is the default). One function, so a test
    answers it without a modal loop."""
    box, yes = consent_box(parent, title, text, lang)
    box.exec()
    return box.clickedButton() is yes


def choose_folder(parent: QWidget, lang: str) -> str:
    from wizard.ui.widgets.file_dialogs import existing_folder

    return existing_folder(parent, t("kernels.panel.pick_folder", lang), lang)


class _Relay(QObject):
    """Made on the GUI thread; a worker emits, the slot runs on the GUI thread."""

    progress = Signal(str)


class KernelDialog(TaskDialog):
    """The kernels, and the three actions on them."""

    def __init__(self, model: SessionModel, python_of: Callable[[], str | None], parent: QWidget | None = None) -> None:
        super().__init__(model, "kernelDialog", parent)
        self.python_of = python_of
        self.kernels: list[Any] = []
        self.report = None  # the last in-kernel VerifyReport
        self.verified: dict[str, Any] = {}  # kernel name -> its last in-kernel VerifyReport (the list's status)
        self.last_register = None
        self._relay = _Relay(self)
        self._relay.progress.connect(self._on_progress)
        self._start_up()

    def _build(self) -> None:
        layout = self._add_head("kernelTree", 4)
        self.tree.setWordWrap(True)
        header = self.tree.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(0, 110)
        for column in (1, 2):  # the display name and the build are read whole; the path may elide
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.tree.itemSelectionChanged.connect(self._on_selection)
        layout.addWidget(self.tree, 1)
        self.details = QLabel()  # the selected kernel's problems and fixes, whole (the rows may elide)
        self.details.setObjectName("kernelDetails")
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details.hide()
        layout.addWidget(self.details)
        row = QHBoxLayout()
        self.refresh_button = self._button("kernelRefresh", self.refresh, row)
        self.register_button = self._button("kernelRegister", self.register, row)
        self.verify_button = self._button("kernelVerify", self.verify_selected, row)
        self.vscode_button = self._button("kernelVscode", self.write_vscode, row)
        self._add_tail(layout, row, "kernel", 900, 620)

    def retranslate(self) -> None:
        lang = self.lang
        self.setWindowTitle(t("kernels.panel.title", lang))
        self.intro.setText(t("kernels.panel.intro", lang))
        self.tree.setHeaderLabels([t("kernels.panel.col.status", lang), t("kernels.panel.col.kernel", lang),
                                   t("kernels.panel.col.torch", lang), t("kernels.panel.col.python", lang)])
        for button, key in ((self.refresh_button, "kernels.panel.refresh"), (self.register_button, "kernels.panel.register"),
                            (self.verify_button, "kernels.panel.verify"), (self.vscode_button, "kernels.panel.vscode"),
                            (self.close_button, "kernels.panel.close")):
            button.setText(t(key, lang))
        self._fill()

    # ---- busy state ------------------------------------------------------------------
    def _start(self, what: str, text: str) -> None:
        self.busy_with = what
        self.busy.show()
        self.status.setText(html.escape(text))
        self._update_buttons()

    def _end(self, text: str | None = None) -> None:
        self.busy_with = None
        self.busy.hide()
        if text is not None:
            self.status.setText(text)
        self._update_buttons()

    def _update_buttons(self) -> None:
        idle = self.busy_with is None
        for button in (self.refresh_button, self.register_button, self.vscode_button):
            button.setEnabled(idle)
        self.verify_button.setEnabled(idle and self.selected() is not None)

    def _failed(self, text: str) -> None:
        self._end(html.escape(t("kernels.panel.failed", self.lang, error=text.splitlines()[0] if text else "?")))
        self.output.setPlainText(text)

    # ---- the list ----------------------------------------------------------------------
    def refresh(self) -> None:
        self._start("list", t("kernels.panel.listing", self.lang))
        submit(app_kernels.list_kernels, self.model.session, on_done=self._listed, on_failed=self._failed)

    def _listed(self, kernels: list[Any]) -> None:
        self.kernels = list(kernels)
        self._fill()
        self._end(html.escape(t("kernels.panel.listed", self.lang, count=len(self.kernels))
                              if self.kernels else t("kernels.none", self.lang)))

    def _fill(self) -> None:
        lang = self.lang
        selected = self.selected()
        self.tree.clear()
        for info in self.kernels:
            status, word, verify_lines = self._status_of(info)
            symbol, colour = MARKS[status]
            torch = info.env.torch if info.env is not None else None
            if info.interpreter is None:
                build = t("kernels.interpreter_gone", lang)
            elif torch is None:
                build = t("kernels.no_torch", lang)
            else:
                kind = t("kernels.kind.gpu" if torch.gpu else "kernels.kind.cpu", lang)
                build = t("kernels.torch_build", lang, version=torch.version or "?", kind=kind)
            item = QTreeWidgetItem([f"{symbol} {word}",
                                    f"{info.display_name} · {info.name}", build,
                                    info.interpreter or (info.argv[0] if info.argv else "?")])
            item.setForeground(0, self.palette().text() if status == "pass" else _brush(colour))
            item.setData(0, Qt.ItemDataRole.UserRole, info.name)
            for column in range(3):  # an elided cell still says everything on hover
                item.setToolTip(column, item.text(column))
            item.setToolTip(3, f"{item.text(3)}\n{info.resource_dir}")
            self.tree.addTopLevelItem(item)
            rows = list(verify_lines)  # what failed inside the kernel first, then the spec's flags
            for flag in info.flags:  # a whole row each (spanned), the problem then its fix
                rows += [app_kernels.flag_text(flag, lang), "→ " + app_kernels.flag_fix(flag, lang)]
            for text in rows:
                child = QTreeWidgetItem([text])
                child.setToolTip(0, text)
                item.addChild(child)
                child.setFirstColumnSpanned(True)
            item.setExpanded(bool(rows))
            if info.name == selected:
                item.setSelected(True)
        self._update_buttons()

    def _status_of(self, info: Any) -> tuple[str, str, list[str]]:
        """(status, its word, the in-kernel checks that did not pass) of a kernel in the list.
        Verified inside: the worse of that run and the spec's flags, so a kernel whose
        verification failed never reads "✔ OK"; not verified: the spec's flags alone."""
        lang = self.lang
        report = self.verified.get(info.name)
        if report is None:
            return info.status, t("kernels.panel.status." + info.status, lang), []
        ran = {"fail": "fail", "warn": "warn"}.get(report.status, "pass")
        rank = {"pass": 0, "warn": 1, "fail": 2}
        status = max(ran, info.status, key=rank.__getitem__)
        word = t(("kernels.panel.status.verify_" if status == ran else "kernels.panel.status.") + status, lang)
        lines = []
        for check in report.checks:
            if check.status in ("fail", "warn"):
                mark = MARKS[check.status][0]
                lines.append(f"{mark} {check.title(lang)}: {check.detail_text(lang)}")
        return status, word, lines[:6]

    def _on_selection(self) -> None:
        self._update_buttons()
        name = self.selected()
        info = next((k for k in self.kernels if k.name == name), None)
        verify_lines = self._status_of(info)[2] if info is not None else []
        if info is None or not (info.flags or verify_lines):
            self.details.hide()
            return
        lines = [html.escape(line) for line in verify_lines]
        for flag in info.flags:
            symbol, colour = MARKS[flag.severity]
            lines.append(f'<span style="color:{colour}">{symbol}</span> '
                         + html.escape(app_kernels.flag_text(flag, self.lang))
                         + "<br>→ " + html.escape(app_kernels.flag_fix(flag, self.lang)))
        self.details.setText("<br>".join(lines))
        self.details.show()

    def selected(self) -> str | None:
        for item in self.tree.selectedItems():
            top = item
            while (parent := top.parent()) is not None:
                top = parent
            name = top.data(0, Qt.ItemDataRole.UserRole)
            if name:
                return str(name)
        return None

    def select(self, name: str) -> None:
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            if item is not None:
                item.setSelected(item.data(0, Qt.ItemDataRole.UserRole) == name)

    # ---- register ----------------------------------------------------------------------
    def register(self, consent: bool = False) -> None:
        python = self.python_of()
        if not python:
            self.status.setText(html.escape(t("kernels.panel.no_python", self.lang)))
            return
        self._start("register", t("kernels.panel.registering", self.lang))
        submit(lambda: app_kernels.register(self.model.session, python, consent=consent,
                                            on_line=lambda line: self._relay.progress.emit(str(line))),
               on_done=self._registered, on_failed=self._failed)

    def _registered(self, result: Any) -> None:
        self.last_register = result
        text = app_kernels.register_text(result, self.lang)
        if result.needs_consent:
            self._end(html.escape(text))
            if ask_consent(self, t("kernels.panel.consent.title", self.lang),
                           t("kernels.panel.consent.text", self.lang, python=result.env.python_exe), self.lang):
                self.register(consent=True)
            return
        self._end(html.escape(text))
        self.output.appendPlainText(text)
        if result.ok:
            self.verified.pop(result.name, None)  # a new registration: the last run inside is stale
            self._select_after_list = result.name
            self._start("list", t("kernels.panel.listing", self.lang))
            submit(app_kernels.list_kernels, self.model.session, on_done=self._listed_then_select,
                   on_failed=self._failed)

    def _listed_then_select(self, kernels: list[Any]) -> None:
        self._listed(kernels)
        self.select(getattr(self, "_select_after_list", ""))

    def _on_progress(self, line: str) -> None:
        self.output.appendPlainText(line)

    # ---- verify in the kernel ------------------------------------------------------------
    def verify_selected(self) -> None:
        name = self.selected()
        if name is None:
            self.status.setText(html.escape(t("kernels.panel.select_kernel", self.lang)))
            return
        info = next((k for k in self.kernels if k.name == name), None)
        gone = [f for f in (info.flags if info else []) if f.id == "interpreter_missing"]
        if gone:  # nothing to start: say why, and what to do, instead of a failed probe
            self.status.setText(html.escape(app_kernels.flag_text(gone[0], self.lang) + " "
                                            + app_kernels.flag_fix(gone[0], self.lang)))
            return
        missing = app_kernels.jupyter_client_missing()
        if missing is not None:
            self.status.setText(html.escape(t("kernels.panel.no_jupyter_client", self.lang, error=missing)))
            return
        self._cancel.clear()
        self._start("verify", t("kernels.panel.verifying", self.lang, name=name))
        self.output.clear()
        lang = self.lang

        def on_event(event: dict) -> None:  # worker thread: only the signal crosses
            from wizard.app.verify import progress_text

            if event.get("event") == "progress":
                self._relay.progress.emit("… " + progress_text(event, lang))

        submit(lambda: app_kernels.verify_in_kernel(self.model.session, name, on_event=on_event,
                                                    cancel=self._cancel,
                                                    interpreter=info.interpreter if info else None),
               on_done=lambda report: self._verified(name, report), on_failed=self._failed)

    def _verified(self, name: str, report: Any) -> None:
        self.report = report
        self.verified[name] = report
        counts = report.counts()
        summary = t("verify.report.counts", self.lang, passed=counts["pass"], warned=counts["warn"],
                    failed=counts["fail"], skipped=counts["skip"])
        symbol, colour = MARKS["fail" if report.status == "fail" else "warn" if report.status == "warn" else "pass"]
        self._end(f'<span style="color:{colour}">{symbol}</span> '
                  + html.escape(t("kernels.panel.verified", self.lang, name=name, summary=summary)))
        info = next((k for k in self.kernels if k.name == name), None)
        # the report's "Jupyter kernel" section reads it from the session
        app_kernels.remember_verify(self.model.session, info.display_name if info else name, report)
        heading = t("kernels.line", self.lang, name=name, display=info.display_name if info else name,
                    python=report.python_exe or "?", build=summary)
        self.output.setPlainText(heading + "\n\n" + report.to_text(self.lang))
        self._fill()  # the list's status line now says what the run inside found
        self.select(name)

    # ---- VS Code -----------------------------------------------------------------------
    def write_vscode(self) -> None:
        python = self.python_of()
        if not python:
            self.status.setText(html.escape(t("kernels.panel.no_python", self.lang)))
            return
        folder = choose_folder(self, self.lang)
        if folder:
            self.write_vscode_to(folder, python)

    def write_vscode_to(self, folder: str, python: str) -> str:
        """Write the setting (a small file: on this thread) and say what happened."""
        try:
            result = app_kernels.write_vscode(folder, python)
        except app_kernels.SettingsRefused as exc:
            text = t(f"kernels.vscode.refused.{exc.reason}", self.lang, path=str(exc.path), detail=exc.detail)
        except OSError as exc:
            text = t("kernels.vscode.os_error", self.lang, path=folder, error=exc.strerror or str(exc))
        else:
            key = "kernels.vscode.written" if result.changed else "kernels.vscode.unchanged"
            text = t(key, self.lang, path=str(result.path))
        self.status.setText(html.escape(text))
        return text

    # ---- closing (``done``, in TaskDialog, cancels too) ---------------------------------------
    def closeEvent(self, event: Any) -> None:  # noqa: N802 - Qt's name
        self._cancel.set()  # a verification still running stops; the core shuts its kernel down
        super().closeEvent(event)


def _brush(colour: str) -> Any:
    from PySide6.QtGui import QBrush, QColor

    return QBrush(QColor(colour))


def add_kernel_button(page: Any, row: QBoxLayout) -> QPushButton:
    """The Verify page's "Jupyter / VS Code…" button, in ``row``; it opens :class:`KernelDialog`
    for the interpreter picked on the page."""
    button = OpenerButton("kernels.panel.button", "openKernelPanel", page.model)

    def open_dialog() -> None:
        dialog = getattr(page, "kernel_dialog", None)
        if dialog is None:
            dialog = KernelDialog(page.model, page.picker.path, page)
            page.kernel_dialog = dialog
        else:
            dialog.refresh()
        dialog.show()
        dialog.raise_()

    button.clicked.connect(lambda _checked=False: open_dialog())
    row.addWidget(button)
    return button


__all__ = ["KernelDialog", "add_kernel_button", "ask_consent", "consent_box", "choose_folder"]
