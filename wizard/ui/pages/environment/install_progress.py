"""The Install page's progress: the current step, the overall bar, the figures a student trusts
(downloaded, speed, time left, elapsed) and one row per file with its own bar.

A widget that owns its state: the last progress report and download snapshot, and the file
rows (the planned files as "waiting" before the download starts, each then followed to "done",
"cached", "stopped, kept for Resume", or "not started" when the run ended before its first
byte). The page feeds it the engine's progress reports.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from wizard.app.install import STEP_DOWNLOAD, DownloadProgress, InstallPlan, Progress, format_bytes
from wizard.core.base.i18n import t

BAR_STEPS = 1000
FILE_ROWS = 6
FILE_STATES = ("waiting", "cached", "downloading", "verifying", "done", "failed", "cancelled")
STATS = ("downloaded", "speed", "eta", "elapsed")


def clock(seconds: float | None) -> str:
    """0:42, 12:05, 1:02:03; '--:--' when unknown."""
    if seconds is None:
        return "--:--"
    s = max(0, int(seconds))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


class InstallProgress(QWidget):
    """Step, overall bar, figures and files of one install run."""

    def __init__(self, lang_of: Callable[[], str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._lang_of = lang_of
        self.last_progress: Progress | None = None
        self.last_download: DownloadProgress | None = None
        self.file_rows: dict[str, tuple[QTreeWidgetItem, QProgressBar]] = {}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        self.step_label = QLabel()
        self.step_label.setObjectName("stepLabel")
        font = QFont(self.step_label.font())
        font.setBold(True)
        self.step_label.setFont(font)
        self.step_label.setWordWrap(True)
        layout.addWidget(self.step_label)
        self.overall_bar = QProgressBar()
        self.overall_bar.setObjectName("overallBar")
        self.overall_bar.setRange(0, BAR_STEPS)
        self.overall_bar.setFormat("%p%")
        self.overall_bar.setMinimumHeight(24)
        layout.addWidget(self.overall_bar)
        stats = QHBoxLayout()
        stats.setSpacing(18)
        self.stat_labels: dict[str, QLabel] = {}
        for key in STATS:
            label = QLabel()
            label.setObjectName(f"stat_{key}")
            label.setTextFormat(Qt.TextFormat.RichText)
            self.stat_labels[key] = label
            stats.addWidget(label)
        stats.addStretch(1)
        layout.addLayout(stats)
        self.files = QTreeWidget()
        self.files.setObjectName("filesTree")
        self.files.setColumnCount(4)
        self.files.setRootIsDecorated(False)
        self.files.setUniformRowHeights(True)
        header = self.files.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Fixed)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.ResizeToContents)
        header.resizeSection(2, 170)
        layout.addWidget(self.files)

    @property
    def lang(self) -> str:
        return self._lang_of()

    def begin(self, plan: InstallPlan | None, installing: bool) -> None:
        """A new run: nothing reported yet; the planned files as "waiting" (an install's only)."""
        self.last_progress = None
        self.last_download = None
        self.overall_bar.setValue(0)
        self.files.clear()
        self.file_rows.clear()
        if plan is None or not plan.to_install or not installing:
            self.files.setVisible(False)
            return
        for f in plan.to_install:
            self._file_row(f.filename, f.size)
        self.files.setVisible(True)

    def report(self, p: Progress, stopping: bool) -> None:
        """One progress report: the bar always; the step and the files unless a stop is under way."""
        self.last_progress = p
        self.overall_bar.setValue(int(round(p.overall * BAR_STEPS)))
        if stopping:
            return
        lang = self.lang
        title = t(f"install.step.{p.step_id}", lang)
        detail = p.step.text(lang) if p.step is not None else ""
        if p.step is not None and p.step.download is not None:
            detail = ""  # the figures are in the row below the bar
        self.step_label.setText(t("install.page.step", lang, index=p.step_index + 1, count=p.step_count,
                                  title=title + (f" — {detail}" if detail else "")))
        if p.step is not None and p.step.download is not None:
            self.last_download = p.step.download
            self.show_files(p.step.download, over=False)

    def finished(self) -> None:
        self.overall_bar.setValue(BAR_STEPS)

    def _file_row(self, filename: str, size: int | None) -> tuple[QTreeWidgetItem, QProgressBar]:
        row = self.file_rows.get(filename)
        if row is not None:
            return row
        item = QTreeWidgetItem([filename, format_bytes(size) if size is not None else "?", "",
                                t("install.page.file.waiting", self.lang)])
        item.setToolTip(0, filename)
        item.setTextAlignment(1, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.files.addTopLevelItem(item)
        bar = QProgressBar()
        bar.setRange(0, BAR_STEPS)
        bar.setValue(0)
        bar.setMaximumHeight(16)
        bar.setFormat("%p%")
        self.files.setItemWidget(item, 2, bar)
        self.file_rows[filename] = (item, bar)
        self._fit_files()
        return item, bar

    def _fit_files(self) -> None:
        """As tall as its rows, up to ``FILE_ROWS`` (a CUDA build has about 20 files: it scrolls)."""
        rows = min(max(1, len(self.file_rows)), FILE_ROWS)
        row_height = max(self.files.sizeHintForRow(0), self.fontMetrics().height() + 6)
        self.files.setFixedHeight(rows * row_height + self.files.header().sizeHint().height() + 4)

    def show_files(self, dl: DownloadProgress, over: bool) -> None:
        """Each file's bar and state; ``over``: the run has ended (not "downloading" any more)."""
        self.files.setVisible(True)
        current = {f.filename for f in dl.files}
        for name in [n for n in self.file_rows if n not in current]:  # planned, but not fetched in this run
            item, _bar = self.file_rows.pop(name)
            self.files.takeTopLevelItem(self.files.indexOfTopLevelItem(item))
        if len(current) != self.files.topLevelItemCount():
            self._fit_files()
        for f in dl.files:
            item, bar = self._file_row(f.filename, f.size)
            if f.size:
                item.setText(1, format_bytes(f.size))
                bar.setValue(int(BAR_STEPS * min(1.0, f.done / f.size)))
            elif f.state in ("done", "cached"):
                bar.setValue(BAR_STEPS)
            state = f.state if f.state in FILE_STATES else "waiting"
            if over and state in ("waiting", "downloading", "verifying"):
                state = "cancelled"  # the run is over: not "downloading" any more ("stopped, kept for Resume")
            if over and state == "cancelled" and f.done == 0 and not f.resumed_from:
                state = "not_started"  # nothing of it on disk: nothing is kept for Resume
            text = t(f"install.page.file.{state}", self.lang)
            if f.resumed_from and state in ("downloading", "verifying", "done"):
                text += " " + t("install.page.file.resumed", self.lang, size=format_bytes(f.resumed_from))
            item.setText(3, text)

    def show_stats(self, running: bool, elapsed: float | None) -> None:
        """Downloaded of total, speed and time left (while the download runs), elapsed."""
        lang, dl = self.lang, self.last_download
        if dl is not None:
            self.stat_labels["downloaded"].setText(t("install.page.stat.downloaded", lang,
                                                     done=format_bytes(dl.done_bytes),
                                                     total=format_bytes(dl.total_bytes)))
            downloading = running and self.last_progress is not None and self.last_progress.step_id == STEP_DOWNLOAD
            speed = format_bytes(dl.speed_bps) + "/s" if downloading and dl.speed_bps > 0 else "—"
            self.stat_labels["speed"].setText(t("install.page.stat.speed", lang, speed=speed))
            self.stat_labels["eta"].setText(t("install.page.stat.eta", lang, eta=clock(dl.eta_s) if downloading
                                              else "—"))
        else:
            self.stat_labels["downloaded"].setText(t("install.page.stat.downloaded", lang, done="—", total="—"))
            self.stat_labels["speed"].setText(t("install.page.stat.speed", lang, speed="—"))
            self.stat_labels["eta"].setText(t("install.page.stat.eta", lang, eta="—"))
        self.show_elapsed(elapsed)

    def show_elapsed(self, seconds: float | None) -> None:
        self.stat_labels["elapsed"].setText(t("install.page.stat.elapsed", self.lang, elapsed=clock(seconds)))

    def retranslate(self) -> None:
        lang = self.lang
        self.files.setHeaderLabels([t("install.page.col.file", lang), t("install.page.col.size", lang),
                                    t("install.page.col.progress", lang), t("install.page.col.state", lang)])


__all__ = ["BAR_STEPS", "FILE_ROWS", "InstallProgress", "clock"]
