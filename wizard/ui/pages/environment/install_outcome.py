"""How an install ends, as the Install page says it: a widget that holds the outcome's text (a
failure classified and said in the page's language, the tool's raw words folded under
"Details"), and the sentences it is made of ("kept" only when bytes were kept, the ways on).
The page's state machine and the stop question are the page's own
(:mod:`wizard.ui.pages.install_page`)."""

from __future__ import annotations

from typing import Callable

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from wizard.app import install as app_install
from wizard.app.install import STEP_DOWNLOAD, InstallJob, format_bytes
from wizard.core.base.i18n import t
from wizard.ui.pages.base import status_label
from wizard.ui.pages.environment.common import ORANGE, RED
from wizard.ui.pages.environment.common import esc as _esc
from wizard.ui.pages.environment.failure import OTHER, describe
from wizard.ui.widgets.folded_details import build_folded_details, show_folded_details

STATE_IDLE = "idle"
STATE_RUNNING = "running"
STATE_STOPPING = "stopping"
STATE_DONE = "done"
STATE_FAILED = "failed"
STATE_CANCELLED = "cancelled"
STATE_REMOVING = "removing"
STATE_REMOVED = "removed"
STATE_RESTORED = "restored"


def kept_bytes(job: InstallJob | None) -> int:
    """Bytes of this install's files that are on disk now (finished or partial downloads in the
    cache), for Resume -- read from the cache, so "kept" is said only when it is true."""
    plan = getattr(job, "plan", None)
    cache = getattr(job, "cache", None)
    if plan is None or cache is None:
        return 0
    total = 0
    for f in plan.to_install:
        try:
            done = cache.path(f.filename)
            total += done.stat().st_size if done.is_file() else cache.partial_size(f)
        except OSError:
            continue  # a file being moved right now: not counted
    return total


def kept_text(job: InstallJob | None, downloaded: bool, lang: str) -> str:
    """"<size> kept for Resume", or -- when the download had begun (``downloaded``) -- "nothing kept"."""
    kept = kept_bytes(job)
    if kept <= 0:
        reached = job is not None and STEP_DOWNLOAD in (job.summary().get("steps_run") or [])
        return t("install.kept.none", lang) if downloaded or reached else ""
    return t("install.kept.some", lang, size=format_bytes(kept))


def options_text(job: InstallJob, lang: str) -> str:
    """The ways on (Resume, Remove, Restore ...), after a line break."""
    options = job.recovery_options()
    if not options:
        return "<br>" + _esc(t("install.page.options.none", lang))
    names = ", ".join(t(f"install.recovery.{o}", lang) for o in options)
    return "<br>" + _esc(t("install.page.options", lang, options=names))


def cancelled_html(job: InstallJob, downloaded: bool, lang: str) -> str:
    """A stopped install: what stopping left (installed, killed mid-write, bytes kept) and the ways on."""
    parts = [f'<b style="color:{ORANGE}">■ {_esc(t("install.stopped", lang))}</b>']
    killed = bool(getattr(job, "killed_mid_write", False))
    installed = job.done("install") and not killed
    if killed:
        parts.append(_esc(t("install.stopped.killed", lang)))
    elif installed:
        parts.append(_esc(t("install.stopped.install_step", lang)))
    kept = "" if installed else kept_text(job, downloaded, lang)  # the downloads are used up: nothing to continue from
    if kept:
        parts.append(_esc(kept))
    return "<br>".join(parts) + options_text(job, lang)


class OutcomeView(QWidget):
    """The result box under the progress and the "Details" fold under it (hidden while a run goes)."""

    def __init__(self, lang_of: Callable[[], str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._lang_of = lang_of
        self.message = ""  # the outcome as shown (rich text)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        self.result = status_label("installResult", selectable=True)
        self.result.setFrameShape(QLabel.Shape.StyledPanel)
        self.result.setMargin(8)
        layout.addWidget(self.result)
        # the tool's own words under a failure, folded away behind "Details"
        self.details_button, self.details_label = build_folded_details(layout, "installDetailsButton",
                                                                       "installDetails")
        self.hide()

    def clear(self) -> None:
        """A run begins: nothing to say yet."""
        self.show_details("")
        self.hide()

    def finish(self, html: str) -> None:
        self.message = html
        self.result.setText(html)
        self.show()

    def show_details(self, details: str) -> None:
        show_folded_details(self.details_button, self.details_label, details)

    def show_failure(self, job: InstallJob, downloaded: bool) -> str:
        """What failed, classified and said in the page's language; the tool's raw lines go to
        Details; "kept" only when bytes were kept. Returns the step line ("" when unknown)."""
        lang = self._lang_of()
        err = job.failure
        if err is None:
            self.finish(f'<b style="color:{RED}">✖ {_esc(t("install.page.failed_unknown", lang))}</b>')
            return ""
        step = t(f"install.step.{err.step_id}", lang)
        options = job.options
        said = describe(err.failure_kind, err.message.text(lang), err.detail, lang, host=err.host,
                        reqs=" ".join(options.requirements), index=app_install.sources_text(options, lang),
                        where="installpage")
        parts = [f'<b style="color:{RED}">✖ {_esc(t("install.page.failed", lang, step=step))}</b>',
                 _esc(said.headline)]
        if said.advice:
            parts.append(_esc(said.advice))
        if said.category != OTHER or err.kind != "hash":  # a damaged file was deleted: nothing kept
            parts.append(_esc(kept_text(job, downloaded, lang)))
        self.show_details(said.details)
        self.finish("<br>".join(p for p in parts if p) + options_text(job, lang))
        return t("install.page.failed_step", lang, step=step)

    def retranslate(self) -> None:
        lang = self._lang_of()
        self.details_button.setText(t("install.failure.details", lang))
        self.details_button.setToolTip(t("install.failure.details_tip", lang))


__all__ = ["STATE_CANCELLED", "STATE_DONE", "STATE_FAILED", "STATE_IDLE", "STATE_REMOVED", "STATE_REMOVING",
           "STATE_RESTORED", "STATE_RUNNING", "STATE_STOPPING", "OutcomeView", "cancelled_html", "kept_bytes",
           "kept_text", "options_text"]
