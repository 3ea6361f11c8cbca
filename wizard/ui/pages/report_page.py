"""Page 9 — Report: the checklist, filled in, as it will be exported; export, share, compare.

The preview is the export itself: the same HTML that becomes the PDF, rendered by Qt's rich
text engine, so what the student sees is what the teaching assistant gets. Building the report
is pure and takes milliseconds, so it runs on the GUI thread whenever something it shows changes
(the page is entered, the privacy switch, a Colab/cloud result added, the language).

"Add Colab/cloud result…" takes another machine's ``report --json`` file, a ``doctor --json``
file, or the text of Colab's ``!nvidia-smi`` pasted in; it fills the Colab or cloud line and
puts both machines in the benchmark comparison. The History tab lists the saved runs; choosing
one shows what changed between it and this run.

``register_report_page(wizard)`` puts the page in the wizard at :data:`PageId.REPORT`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTabWidget,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from wizard.app import report as app_report
from wizard.core.base.i18n import t
from wizard.ui.language import LangOf, english
from wizard.ui.pages.base import BasePage, PageId
from wizard.ui.session_model import SessionModel
from wizard.ui.widgets import file_dialogs

FORMATS = app_report.FORMATS
SUFFIX = app_report.SUFFIX
GREEN, RED, GREY = "#2e7d32", "#c62828", "#6d6d6d"
PLOT_COLOURS = ("#1565c0", "#2e7d32", "#ef6c00", "#6a1b9a")


# ---------------------------------------------------------------------------------------------
# The benchmark plot embedded in the report
# ---------------------------------------------------------------------------------------------
def sweep_plot_png(bench: Any, lang: str | None, width: int = 640, height: int = 300) -> bytes | None:
    """The matmul sweep (GFLOP/s against N, CPU and each GPU) drawn as a PNG for the report, or
    None when the benchmark has no sweep. Drawn with QPainter on an image: no window needed,
    the same picture in the preview, the HTML file and the PDF."""
    from wizard.ui.widgets.bench_plots import sweep_png  # the Benchmark page's drawing: one style

    return sweep_png(bench, lang, width, height)


def report_plots(session: Any, lang: str) -> list:
    """The plots the report embeds: the Benchmark page's own PNGs when it left them in
    ``session.bench_plots`` (caption, PNG bytes), else the sweep drawn here."""
    Plot = app_report.Plot
    given = session.bench_plots
    if given:
        return [Plot(caption, png) for caption, png in given]
    png = sweep_plot_png(session.bench, lang)
    bench = session.bench
    gpu = bench is not None and any(r.device != "cpu" for r in bench.results)
    caption = t("report.page.plot.caption" if gpu else "report.page.plot.caption_cpu", lang)  # no GPU: no "and GPU"
    return [Plot(caption, png)] if png else []


def _rich(text: str) -> str:
    """A message for a rich-text label: escaped, its `code spans` in a monospace font."""
    import html
    import re

    parts = re.split(r"(`[^`\n]+`)", text)
    return "".join(f"<code>{html.escape(p[1:-1])}</code>" if i % 2 else html.escape(p) for i, p in enumerate(parts))


# ---------------------------------------------------------------------------------------------
# Adding a Colab / cloud result
# ---------------------------------------------------------------------------------------------
class RemoteDialog(QDialog):
    """Paste Colab's ``!nvidia-smi`` output, or open a ``report --json`` / nvidia-smi file."""

    def __init__(self, parent: QWidget | None = None, lang_of: LangOf = english) -> None:
        super().__init__(parent)
        self.lang_of = lang_of
        self.setObjectName("remoteDialog")
        self.setWindowTitle(t("report.page.remote.title", self.lang))
        self.machine: app_report.MachineRecord | None = None
        self.file_label: str | None = None
        layout = QVBoxLayout(self)
        intro = QLabel(_rich(t("report.page.remote.intro", self.lang)))
        intro.setTextFormat(Qt.TextFormat.RichText)
        intro.setWordWrap(True)
        layout.addWidget(intro)
        row = QHBoxLayout()
        row.addWidget(QLabel(t("report.page.remote.kind", self.lang) + ":"))
        self.kind = QComboBox()
        self.kind.setObjectName("remoteKind")
        self.kind.addItem(t("report.page.remote.auto", self.lang), None)
        self.kind.addItem(t("report.machine.colab", self.lang), "colab")
        self.kind.addItem(t("report.machine.cloud", self.lang), "cloud")
        row.addWidget(self.kind, 1)
        self.open_button = QPushButton(t("report.page.remote.open", self.lang))
        self.open_button.setObjectName("remoteOpen")
        self.open_button.clicked.connect(self._open_file)
        row.addWidget(self.open_button)
        layout.addLayout(row)
        self.text = QPlainTextEdit()
        self.text.setObjectName("remoteText")
        self.text.setPlaceholderText(t("report.page.remote.placeholder", self.lang))
        mono = QFont("monospace")
        mono.setStyleHint(QFont.StyleHint.TypeWriter)
        self.text.setFont(mono)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)  # nvidia-smi's table stays a table
        self.text.setMinimumSize(680, 280)
        layout.addWidget(self.text, 1)
        self.error = QLabel()
        self.error.setObjectName("remoteError")
        self.error.setWordWrap(True)
        self.error.setStyleSheet(f"color: {RED};")
        layout.addWidget(self.error)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText(t("report.page.remote.add", self.lang))
        buttons.button(QDialogButtonBox.StandardButton.Cancel).setText(t("window.button.cancel", self.lang))
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)


    @property
    def lang(self) -> str:
        return self.lang_of()

    def _open_file(self) -> None:
        path = file_dialogs.open_file_name(self, t("report.page.remote.open", self.lang), self.lang,
                                           t("report.page.remote.filter", self.lang))
        if path:
            self.load_file(path)

    def load_file(self, path: str) -> None:
        """The file as every reader of user files reads it: decoded, at most the cap, saying so when cut."""
        from wizard.core.base.user_input import read_user_text

        try:
            read = read_user_text(path)
        except OSError as exc:
            self.error.setText(t("cli.error.cannot_read", self.lang, path=path, error=exc.strerror or exc))
            return
        self.text.setPlainText(read.text)
        self.file_label = Path(path).name
        notice = read.cut_notice(self.file_label)
        self.error.setText(notice.text(self.lang) if notice is not None else "")

    def accept(self) -> None:  # noqa: D401 - Qt's name
        try:
            self.machine = app_report.remote_from_text(self.text.toPlainText(), self.kind.currentData(),
                                                       self.file_label)
        except app_report.RemoteInputError as exc:
            self.error.setText(exc.text(self.lang))
            return
        super().accept()


# ---------------------------------------------------------------------------------------------
# The page
# ---------------------------------------------------------------------------------------------
class ReportPage(BasePage):
    page_id = PageId.REPORT

    def __init__(self, model: SessionModel, parent: QWidget | None = None) -> None:
        super().__init__(model, parent)
        self.setObjectName("page_report")
        self.report: app_report.Report | None = None  # the Report shown
        self.html = ""
        self.last_saved: Path | None = None
        self.url_opener: file_dialogs.UrlOpener | None = None  # None: Qt's desktop services (a test gives one)
        self._history: list[Any] = []
        model.detection_finished.connect(lambda _d: self.refresh() if self.isVisible() else None)  # a rescan

    # build -----------------------------------------------------------------------------------
    def _build(self) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        bar = QHBoxLayout()
        self.save_button = QToolButton()
        self.save_button.setObjectName("saveButton")
        self.save_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.save_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.save_menu = QMenu(self.save_button)
        self.save_actions = {}
        for fmt in FORMATS:
            action = self.save_menu.addAction("")
            action.setObjectName(f"save_{fmt}")
            action.triggered.connect(lambda _checked=False, f=fmt: self.save_dialog(f))
            self.save_actions[fmt] = action
        self.save_button.setMenu(self.save_menu)
        self.copy_button = QPushButton()
        self.copy_button.setObjectName("copyMarkdown")
        self.copy_button.clicked.connect(self.copy_markdown)
        self.folder_button = QPushButton()
        self.folder_button.setObjectName("openFolder")
        self.folder_button.clicked.connect(self.open_folder)
        self.remote_button = QPushButton()
        self.remote_button.setObjectName("addRemote")
        self.remote_button.clicked.connect(self.add_remote_dialog)
        self.colab_button = QPushButton()
        self.colab_button.setObjectName("copyColabCell")
        self.colab_button.clicked.connect(self.copy_colab_cell)
        for w in (self.save_button, self.copy_button, self.folder_button, self.colab_button, self.remote_button):
            bar.addWidget(w)
        bar.addStretch(1)
        outer.addLayout(bar)

        second = QHBoxLayout()
        self.private = QCheckBox()
        self.private.setObjectName("includePrivate")
        self.private.toggled.connect(lambda _on: self.refresh())
        second.addWidget(self.private)
        self.status = QLabel()
        self.status.setObjectName("reportStatus")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status.setStyleSheet(f"color: {GREY};")
        second.addWidget(self.status, 1)
        from wizard.ui.class_view import ClassViewButton  # the instructor's class view (its own module)

        self.class_button = ClassViewButton(lambda: self.lang, self)
        second.addWidget(self.class_button, 0, Qt.AlignmentFlag.AlignTop)
        outer.addLayout(second)
        self._build_tabs(outer)

    def _build_tabs(self, outer: QVBoxLayout) -> None:
        self.tabs = QTabWidget()
        self.tabs.setObjectName("reportTabs")
        self.preview = QTextBrowser()
        self.preview.setObjectName("reportPreview")
        self.preview.setOpenLinks(False)
        self.tabs.addTab(self.preview, "")

        history = QWidget()
        history_layout = QVBoxLayout(history)
        split = QSplitter(Qt.Orientation.Horizontal)
        self.history_list = QListWidget()
        self.history_list.setObjectName("historyList")
        self.history_list.setWordWrap(True)
        self.history_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.history_list.setAlternatingRowColors(True)
        self.history_list.currentRowChanged.connect(self._show_diff)
        self.diff_view = QTextBrowser()
        self.diff_view.setObjectName("historyDiff")
        split.addWidget(self.history_list)
        split.addWidget(self.diff_view)
        split.setSizes([300, 400])
        history_layout.addWidget(split, 1)
        self.history_note = QLabel()
        self.history_note.setWordWrap(True)
        self.history_note.setStyleSheet(f"color: {GREY};")
        history_layout.addWidget(self.history_note)
        self.tabs.addTab(history, "")
        self.tabs.currentChanged.connect(lambda i: self.load_history() if i == 1 else None)
        outer.addWidget(self.tabs, 1)

        self.remotes_row = QHBoxLayout()
        self.remotes_label = QLabel()
        self.remotes_label.setObjectName("remotesLabel")
        self.remotes_label.setWordWrap(True)
        self.remove_remote = QPushButton()
        self.remove_remote.setObjectName("removeRemote")
        self.remove_remote.clicked.connect(self.remove_last_remote)
        self.remotes_row.addWidget(self.remotes_label, 1)
        self.remotes_row.addWidget(self.remove_remote)
        outer.addLayout(self.remotes_row)

    # the report ---------------------------------------------------------------------------------
    @property
    def session(self) -> Any:
        return self.model.session

    def remotes(self) -> list:
        return self.session.remotes

    def build(self):
        """The report of the session now, as it will be exported."""
        return app_report.build(self.session, lang=self.lang, include_private=self.private.isChecked())

    def current(self) -> app_report.Report:
        """The report shown, built first when the page has not built one yet."""
        if self.report is None:
            self.refresh()
        assert self.report is not None  # refresh() builds it
        return self.report

    def refresh(self) -> None:
        self.report = report = self.build()
        self.html = app_report.render(report, "html", report_plots(self.session, self.lang), for_qt=True)
        bar = self.preview.verticalScrollBar()
        position = bar.value()
        self.preview.setHtml(self.html)
        bar.setValue(position)
        self._show_remotes()

    def initializePage(self) -> None:  # noqa: N802
        self.ensure_built()
        self.refresh()
        self._history = []  # read again when the tab is opened: a run may have been saved since

    def text(self, fmt: str) -> bytes:
        """The export of the report shown, in ``fmt`` (not PDF)."""
        return app_report.render(self.current(), fmt, report_plots(self.session, self.lang)).encode("utf-8")

    # exports -----------------------------------------------------------------------------------
    def default_name(self, fmt: str) -> str:
        return app_report.default_name(fmt)

    def default_folder(self) -> Path:
        if self.last_saved is not None:
            return self.last_saved.parent
        return file_dialogs.documents_folder()

    def save_dialog(self, fmt: str) -> None:
        path = file_dialogs.save_file_name(self, t("report.page.save_title", self.lang), self.lang,
                                           self.default_name(fmt), t(f"report.page.filter.{fmt}", self.lang),
                                           folder=self.default_folder())
        if path:
            if not Path(path).suffix:
                path += SUFFIX[fmt]
            self.save_to(fmt, path)

    def save_to(self, fmt: str, path: str | Path) -> bool:
        """Write the report in ``fmt`` to ``path`` (atomically); the status line says how it went."""
        try:
            target = app_report.export(self.current(), fmt, path, self.lang, report_plots(self.session, self.lang))
        except app_report.ExportError as exc:
            self._say(exc.text, RED)
            return False
        self.last_saved = target
        self._say(t("report.cli.saved", self.lang, path=target), GREEN)
        return True

    def copy_colab_cell(self) -> None:
        """The Colab cell (the wizard's own probes, nothing to install there) on the clipboard;
        its gpu-setup-result.json comes back through "Add Colab/cloud result…"."""
        text = app_report.colab_cell("colab")
        QGuiApplication.clipboard().setText(text)
        self._say(t("report.page.colab_cell.copied", self.lang, size=f"{len(text) // 1024} kB"), GREEN)

    def copy_markdown(self) -> None:
        QGuiApplication.clipboard().setText(self.text("md").decode("utf-8"))
        self._say(t("report.page.copied", self.lang), GREEN)

    def open_folder(self) -> None:
        folder = self.default_folder()
        folder.mkdir(parents=True, exist_ok=True)
        if not file_dialogs.open_folder(self, folder, self.lang, opener=self.url_opener):
            self._say(t("report.page.cannot_open", self.lang, path=folder), RED)

    def _say(self, text: str, colour: str) -> None:
        self.status.setStyleSheet(f"color: {colour};")
        self.status.setText(text)

    # remotes -----------------------------------------------------------------------------------
    def add_remote_dialog(self) -> None:
        dialog = RemoteDialog(self, self.current_lang)
        if dialog.exec() == QDialog.DialogCode.Accepted and dialog.machine is not None:
            self.add_remote(dialog.machine)

    def add_remote(self, machine: Any) -> None:
        app_report.add_remote(self.session, machine)
        self.refresh()
        self._say(t("report.page.remote.added", self.lang, machine=self._machine_text(machine)), GREEN)

    def remove_last_remote(self) -> None:
        if app_report.remove_last_remote(self.session):
            self.refresh()

    def _machine_text(self, m: Any) -> str:
        return app_report.remote_line(m, self.lang)

    def _show_remotes(self) -> None:
        remotes = self.remotes()
        self.remotes_label.setText(t("report.page.remotes", self.lang,
                                     list="; ".join(self._machine_text(m) for m in remotes))
                                   if remotes else "")
        self.remotes_label.setVisible(bool(remotes))
        self.remove_remote.setVisible(bool(remotes))

    # history -------------------------------------------------------------------------------------
    def load_history(self) -> None:
        from wizard.app import history as app_history

        store = app_history.open_store()
        self._history = list(reversed(store.entries()))  # newest first
        self.history_list.blockSignals(True)
        self.history_list.clear()
        for entry in self._history:
            s = entry.snapshot
            gpus = ", ".join(g.name or "?" for g in s.gpus) or t("report.gpu.none", self.lang)
            torch = s.torch.version if s.torch and s.torch.version else "-"
            item = QListWidgetItem(t("report.page.history.row", self.lang, number=entry.number,
                                     time=s.time.replace("T", " ")[:16],
                                     driver=s.driver_version or s.pending_driver_version or "-", torch=torch,
                                     gpus=gpus))
            item.setToolTip(str(entry.path.name))
            self.history_list.addItem(item)
        self.history_list.blockSignals(False)
        notes = [n.text(self.lang) for n in store.warnings]
        if not self._history:
            notes.insert(0, t("report.page.history.none", self.lang, dir=store.root))
        else:
            notes.insert(0, t("report.page.history.hint", self.lang))
        self.history_note.setText("\n".join(notes))
        self.diff_view.clear()
        if self._history:
            self.history_list.setCurrentRow(0)

    def _show_diff(self, row: int) -> None:
        from wizard.app import history as app_history

        if not 0 <= row < len(self._history):
            self.diff_view.clear()
            return
        entry = self._history[row]
        d = self.session.detection
        this_run = app_history.snapshot_of(self.session) if d is not None else None
        if this_run is not None:
            # this run with its torch and benchmark numbers, as it will be saved (not the detection alone)
            current, label = this_run, t("report.page.history.this_run", self.lang)
        elif row + 1 < len(self._history):  # no detection this run: what that run changed
            current, label = entry.snapshot, None
            entry = self._history[row + 1]
        else:
            self.diff_view.setPlainText(t("report.page.history.nothing_to_compare", self.lang))
            return
        diff = app_history.diff(entry.snapshot, current)
        import html

        colours = {"better": GREEN, "worse": RED, "neutral": "#1f2328"}
        marks = {"better": "+", "worse": "!", "neutral": "•"}
        head = t("report.page.history.compare", self.lang, number=entry.number,
                 time=entry.snapshot.time.replace("T", " ")[:16], other=label or current.time.replace("T", " ")[:16])
        lines = [f"<p><b>{html.escape(head)}</b></p>"]
        if not diff.changes:
            lines.append(f"<p>{html.escape(t('history.diff.none', self.lang))}</p>")
        for c in diff.changes:
            lines.append(f'<p style="color:{colours.get(c.tone, "#1f2328")}">{marks.get(c.tone, "•")} '
                         f"{html.escape(c.text(self.lang))}</p>")
        self.diff_view.setHtml("\n".join(lines))

    # language ------------------------------------------------------------------------------------
    def retranslate(self) -> None:
        super().retranslate()
        self.save_button.setText(t("report.page.save", self.lang) + " ▾")
        for fmt, action in self.save_actions.items():
            action.setText(t(f"report.page.save.{fmt}", self.lang))
        self.copy_button.setText(t("report.page.copy", self.lang))
        self.folder_button.setText(t("report.page.open_folder", self.lang))
        self.remote_button.setText(t("report.page.add_remote", self.lang))
        self.colab_button.setText(t("report.page.colab_cell", self.lang))
        self.colab_button.setToolTip(t("report.page.colab_cell.tip", self.lang))
        self.class_button.retranslate()
        self.private.setText(t("report.page.private", self.lang))
        self.private.setToolTip(t("report.page.private.tip", self.lang))
        self.remove_remote.setText(t("report.page.remote.remove", self.lang))
        self.tabs.setTabText(0, t("report.page.tab.preview", self.lang))
        self.tabs.setTabText(1, t("report.page.tab.history", self.lang))
        if self.report is not None:
            self.refresh()
        if self._history:
            self.load_history()


def register_report_page(wizard: Any) -> ReportPage:
    """Put the Report page into ``wizard`` (a SetupWizard) at PageId.REPORT, replacing the
    placeholder; also kept as ``wizard.report_page``."""
    page = ReportPage(wizard.model)
    if int(PageId.REPORT) in wizard.pageIds():
        old = wizard.page(PageId.REPORT)
        wizard.removePage(PageId.REPORT)
        if old is not None:
            old.deleteLater()
    wizard.setPage(PageId.REPORT, page)
    wizard.report_page = page
    return page


__all__ = ["ReportPage", "RemoteDialog", "register_report_page", "sweep_plot_png", "report_plots"]
