"""How an install ends, as the Install page says it: the stop question (what stopping now does)
and the wait for the job before the window closes; a failure classified and said in the page's
language, the tool's raw words under "Details"; "kept" only when bytes were kept."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QVBoxLayout

from wizard.app import install as app_install
from wizard.app.install import STEP_DOWNLOAD, format_bytes
from wizard.core.base.i18n import t
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


class InstallOutcome:
    """The ending half of :class:`~wizard.ui.pages.install_page.InstallPage` (a mixin)."""

    stopped_in_install_step = False  # the last stop waited for pip's install step to finish
    _after_stop: Any = None  # the window's close, waiting for the job to stop

    def confirm_stop(self, closing: bool = False) -> bool:
        """Ask before stopping a running job (the page's Cancel, the wizard's Cancel, the window's
        close): what stopping now does, in the page's language. True when nothing runs or the
        student said stop (the stop has then begun: :meth:`when_stopped` follows its end)."""
        if not self.busy:
            return True
        if self.state == STATE_REMOVING:
            return True  # a deletion cannot be stopped half-way: the window waits for it
        if self.state == STATE_STOPPING:
            return True  # asked already
        lang = self.lang
        waits, text = self._stop_outlook()
        if closing:
            text += "\n\n" + t("install.stop.close_suffix", lang)
        yes = t("install.stop.yes_close" if closing else "install.stop.yes", lang)
        if not self._ask(t("install.stop.title", lang), text, yes, t("install.stop.no", lang)):
            return False
        self.stopped_in_install_step = waits
        self.cancel()
        return True

    def _stop_outlook(self) -> tuple[bool, str]:
        """(the step finishes first, the sentence): the engine's outlook when it has one."""
        job = self.job
        outlook = getattr(job, "cancel_outlook", None)
        if outlook is not None:
            answer = outlook()
            if answer.running:
                return bool(answer.waits), answer.text(self.lang)
        step = self.runner.current.id if self.runner is not None and self.runner.current is not None else None
        if step == STEP_DOWNLOAD:
            return False, t("install.stop.download", self.lang)
        if step == "install":
            return True, t("install.stop.install_step", self.lang)
        return False, t("install.stop.other_step", self.lang)

    def force_stop(self) -> bool:
        """Stop now although the installer is writing the environment (after a second, explicit
        question that says the environment may be left broken). True when it was asked to."""
        job = self.job
        if self.state != STATE_STOPPING or job is None or not hasattr(job, "force_stop"):
            return False
        lang = self.lang
        if not self._ask(t("install.force.title", lang), t("install.force.text", lang), t("install.force.yes", lang),
                         t("install.force.no", lang)):
            return False
        job.force_stop()
        self.stopped_in_install_step = False
        self.force_button.hide()
        return True

    def when_stopped(self, callback: Any) -> None:
        """Call ``callback`` (the window's close) once nothing runs any more -- never while a
        child process still writes the environment."""
        self._after_stop = callback
        if not self.busy:
            self._run_after_stop()
            return
        key = "install.stop.waiting_install" if self.stopped_in_install_step else "install.stop.waiting"
        self.step_label.setText(t(key, self.lang))

    def _run_after_stop(self) -> None:
        callback, self._after_stop = self._after_stop, None
        if callback is not None:
            QTimer.singleShot(0, callback)

    def cancel_clicked(self) -> None:
        """The page's own Cancel button: asks first, like the wizard's."""
        self.confirm_stop(closing=False)

    def _show_failure(self, job: Any, lang: str) -> None:
        """What failed, classified and said in the page's language; the tool's raw lines go to
        Details; "kept" only when bytes were kept."""
        self.state = STATE_FAILED
        err = job.failure
        if err is None:
            self._finish_text(f'<b style="color:{RED}">✖ {_esc(t("install.page.failed_unknown", lang))}</b>')
            return
        step = t(f"install.step.{err.step_id}", lang)
        self.step_label.setText(t("install.page.failed_step", lang, step=step))
        options = job.options
        said = describe(err.failure_kind, err.message.text(lang), err.detail, lang, host=err.host,
                        reqs=" ".join(options.requirements), index=app_install.sources_text(options),
                        where="installpage")
        parts = [f'<b style="color:{RED}">✖ {_esc(t("install.page.failed", lang, step=step))}</b>',
                 _esc(said.headline)]
        if said.advice:
            parts.append(_esc(said.advice))
        if said.category != OTHER or err.kind != "hash":  # a damaged file was deleted: nothing kept
            parts.append(_esc(self._kept_text()))
        self._show_details(said.details)
        self._finish_text("<br>".join(p for p in parts if p) + self._options_text(job))

    def kept_bytes(self) -> int:
        """Bytes of this install's files that are on disk now (finished or partial downloads in the
        cache), for Resume -- read from the cache, so "kept" is said only when it is true."""
        job = self.job
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

    def _kept_text(self) -> str:
        kept = self.kept_bytes()
        if kept <= 0:
            return t("install.kept.none", self.lang) if self.last_download is not None or self._reached_download() else ""
        return t("install.kept.some", self.lang, size=format_bytes(kept))

    def _reached_download(self) -> bool:
        return self.job is not None and STEP_DOWNLOAD in (self.job.summary().get("steps_run") or [])

    def _cancelled_text(self, job: Any) -> str:
        parts = [f'<b style="color:{ORANGE}">■ {_esc(t("install.stopped", self.lang))}</b>']
        killed = bool(getattr(self.job, "killed_mid_write", False))
        installed = self.job is not None and self.job.done("install") and not killed
        if killed:
            parts.append(_esc(t("install.stopped.killed", self.lang)))
        elif installed:
            parts.append(_esc(t("install.stopped.install_step", self.lang)))
        kept = "" if installed else self._kept_text()  # the downloads are used up: nothing to continue from
        if kept:
            parts.append(_esc(kept))
        return "<br>".join(parts) + self._options_text(job)

    def _build_details(self, layout: QVBoxLayout) -> None:
        """The tool's own words under a failure, folded away behind "Details"."""
        self.details_button, self.details_label = build_folded_details(
            layout, "installDetailsButton", "installDetails")

    def _show_details(self, details: str) -> None:
        show_folded_details(self.details_button, self.details_label, details)


__all__ = ["InstallOutcome"]
