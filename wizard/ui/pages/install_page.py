"""Page 5 — Install: download and install, with progress a student can trust, and a way out.

The install starts as the page opens (the Environment page's "Install" button committed to
it). The page shows the overall progress, the current step, each file's bar while the
download runs (bytes, speed, time left), the elapsed time and the live log, which can be
saved. Cancel stops within a few seconds -- the child process and everything it started, or
the download threads -- and leaves a state the page can act on:

* **Resume**: a new job for the same environment; finished steps are skipped, finished and
  partial downloads come from the cache.
* **Remove**: deletes only an environment the wizard itself created.
* **Restore**: puts an existing environment's previous packages back (its ``pip freeze`` was
  saved before anything changed).

The offer follows ``job.recovery_options()``. A failure says what failed in the engine's own
words; a network failure names the host and points at the mirror setting. On success
``session.install`` holds the environment's Python and the installed packages, and
Next goes to Verify. This page is itself a commit page: once left, it is not re-entered (that
would start another install); its commit button reads "Next".

The page is composed of parts that hold their own state: the progress (step, bars, figures,
file rows: :mod:`wizard.ui.pages.environment.install_progress`) and the outcome (the result
and the tool's words under "Details": :mod:`wizard.ui.pages.environment.install_outcome`). The
page keeps the state machine, the buttons, the stop question and the log.

Nothing blocks the event loop: the install steps run on a worker thread, through the engine's
one step loop (``run_steps``, relayed as signals by :mod:`wizard.ui.process_runner`).
"""

from __future__ import annotations

import os
from typing import Callable

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget, QWizard

from wizard.app import environments as app_env
from wizard.app import install as app_install
from wizard.app.install import (
    OPTION_REMOVE,
    OPTION_RESTORE,
    OPTION_RESUME,
    STEP_DOWNLOAD,
    FailureKind,
    InstallJob,
    InstallRequest,
    Progress,
    format_bytes,
    new_job,
    record_install,
)
from wizard.core.base.i18n import t
from wizard.ui.pages.base import BasePage, PageId, status_label
from wizard.ui.pages.environment.common import GREEN, RED, ask_yes_no, marked
from wizard.ui.pages.environment.common import esc as _esc
from wizard.ui.pages.environment.install_outcome import (  # noqa: F401 - the states are this page's names
    STATE_CANCELLED,
    STATE_DONE,
    STATE_FAILED,
    STATE_IDLE,
    STATE_REMOVED,
    STATE_REMOVING,
    STATE_RESTORED,
    STATE_RUNNING,
    STATE_STOPPING,
    OutcomeView,
    cancelled_html,
    kept_bytes,
)
from wizard.ui.pages.environment.install_progress import BAR_STEPS, InstallProgress, clock  # noqa: F401
from wizard.ui.process_runner import StepRunner
from wizard.ui.session_model import SessionModel
from wizard.ui.widgets.log_view import LogView
from wizard.ui.workers import Task, submit

# Failures the Environment page's settings fix (a mirror, a proxy, the extras' source): "Change
# settings" opens them there. A file the mirror lists but does not serve is one: another index is
# the way out while the mirror syncs.
SETTINGS_KINDS = (FailureKind.CONNECTION, FailureKind.MISSING_FILE, FailureKind.EXTRAS)


def _part(part: str, name: str) -> property:
    """A widget of one of the page's parts, named on the page too (tests and the tour reach it so)."""
    return property(lambda self: getattr(getattr(self, part), name), doc=f"``{part}.{name}``")


class InstallPage(BasePage):
    page_id = PageId.INSTALL
    step_label, overall_bar = _part("progress", "step_label"), _part("progress", "overall_bar")
    stat_labels, files, file_rows = _part("progress", "stat_labels"), _part("progress", "files"), _part("progress", "file_rows")
    last_progress, last_download = _part("progress", "last_progress"), _part("progress", "last_download")
    result, message = _part("outcome", "result"), _part("outcome", "message")
    details_button, details_label = _part("outcome", "details_button"), _part("outcome", "details_label")

    def __init__(self, model: SessionModel, parent: QWidget | None = None) -> None:
        super().__init__(model, parent)
        self.setObjectName("page_install")
        self.setCommitPage(True)
        self.request: InstallRequest | None = None
        self.job: InstallJob | None = None
        self.runner: StepRunner | None = None
        self.state = STATE_IDLE
        self.mode = "install"  # install | restore
        self.stopped_in_install_step = False  # the last stop waited for pip's install step to finish
        self._after_stop: Callable[[], object] | None = None  # the window's close, waiting for the job to stop
        self._final_elapsed: float | None = None
        self._task: Task | None = None

    # --- build -------------------------------------------------------------------------------------
    def _build(self) -> None:
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)

        self.target_label = status_label("installTarget", selectable=True)
        layout.addWidget(self.target_label)

        # the step, the bars, the figures and the files: a part that holds the run's progress
        self.progress = InstallProgress(self.current_lang)
        layout.addWidget(self.progress)

        # how it ended: the result and the tool's words folded under "Details"
        self.outcome = OutcomeView(self.current_lang)
        layout.addWidget(self.outcome)

        buttons = QHBoxLayout()
        self.cancel_button = QPushButton()
        self.cancel_button.setObjectName("cancelInstall")
        self.cancel_button.clicked.connect(self.cancel_clicked)
        self.resume_button = QPushButton()
        self.resume_button.setObjectName("resumeButton")
        self.resume_button.clicked.connect(self.resume)
        self.remove_button = QPushButton()
        self.remove_button.setObjectName("removeButton")
        self.remove_button.clicked.connect(self.remove)
        self.restore_button = QPushButton()
        self.restore_button.setObjectName("restoreButton")
        self.restore_button.clicked.connect(self.restore)
        self.change_button = QPushButton()
        self.change_button.setObjectName("changeButton")
        self.change_button.clicked.connect(self.change_settings)
        self.save_button = QPushButton()
        self.save_button.setObjectName("saveLog")
        self.save_button.clicked.connect(self.save_log_dialog)
        self.force_button = QPushButton()
        self.force_button.setObjectName("forceStop")
        self.force_button.clicked.connect(self.force_stop)
        for b in (self.cancel_button, self.force_button, self.resume_button, self.remove_button, self.restore_button,
                  self.change_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        buttons.addWidget(self.save_button)
        layout.addLayout(buttons)

        self.log_title = QLabel()
        layout.addWidget(self.log_title)
        self.log = LogView()
        self.log.setMinimumHeight(110)
        layout.addWidget(self.log, 1)

        self.elapsed_timer = QTimer(self)
        self.elapsed_timer.setInterval(500)
        self.elapsed_timer.timeout.connect(self._show_elapsed)
        self._show_buttons()

    # --- QWizardPage -------------------------------------------------------------------------------
    def initializePage(self) -> None:  # noqa: N802
        self.ensure_built()
        self.retranslate()
        request = self.model.session.install_request
        if not isinstance(request, InstallRequest):
            self.request = None
            self._finish_text(marked("✖", RED, t("install.page.no_request", self.lang)))
            return
        if request is not self.request:
            self.job = None  # another choice on the Environment page: a new job, not a resume
        self.request = request
        self.model.session.install = None
        self.start()  # the steps themselves begin on the next turn of the event loop

    def isComplete(self) -> bool:  # noqa: N802
        return self.state == STATE_DONE

    def step_done(self) -> bool:
        """The side list's ✓: only an install that finished (a failed one was reached, not done)."""
        return self.state == STATE_DONE

    @property
    def busy(self) -> bool:
        """Something runs: an install, a restore, or a removal."""
        return self.state == STATE_REMOVING or (self.runner is not None and self.runner.running)

    def cleanupPage(self) -> None:  # noqa: N802 - leaving backwards (Change settings): nothing may run
        self.shutdown()

    def shutdown(self) -> None:
        """Stop a running install (the window is closing, or the page is left)."""
        if self.runner is not None and self.runner.running:
            self.runner.cancel()

    # --- running -----------------------------------------------------------------------------------
    def start(self) -> None:
        """A new job for the request's target (a resume when the engine finds an unfinished one)."""
        if self.request is None or self.busy:
            return
        request = self.request
        if self.job is not None:  # Resume: the same target as the job before (its folder now exists)
            # after a failure the index is asked again, not trusted from a cached page
            options = app_install.asking_again(request.options) if self.job.failure is not None else request.options
            request = InstallRequest(self.job.target, options, request.plan, request.description)
        self.job = new_job(self.model.session, request)
        self.mode = "install"
        self._run(StepRunner(self.job, parent=self))

    def _run(self, runner: StepRunner) -> None:
        if self.runner is not None and not self.runner.running:
            self.runner.deleteLater()  # the previous run (a resume or a restore follows it)
        self.runner = runner
        self.state = STATE_RUNNING
        self.outcome.clear()
        self.stopped_in_install_step = False
        self.progress.begin(self.request.plan if self.request is not None else None, self.mode == "install")
        runner.progress.connect(self._on_progress)
        runner.line.connect(self.log.append_line)
        runner.finished.connect(self._on_finished)
        self._show_target()
        self._show_stats()
        self._show_buttons()
        self.completeChanged.emit()
        self.elapsed_timer.start()
        runner.start()

    # --- stopping ---------------------------------------------------------------------------------
    def confirm_stop(self, closing: bool = False) -> bool:
        """Ask before stopping a running job (the page's Cancel, the wizard's Cancel, the window's
        close): what stopping now does, in the page's language. True when nothing runs or the
        student said stop (the stop has then begun: :meth:`when_stopped` follows its end)."""
        if not self.busy or self.state in (STATE_REMOVING, STATE_STOPPING):
            return True  # (a deletion cannot be stopped half-way: the window waits for it; a stop: asked already)
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
        outlook = getattr(self.job, "cancel_outlook", None)
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

    def when_stopped(self, callback: Callable[[], object]) -> None:
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

    def _ask(self, title: str, text: str, yes: str, no: str) -> bool:
        """The stop question (this module's ``ask_yes_no``, so tests answer it)."""
        return ask_yes_no(self, title, text, yes, no)

    def cancel(self) -> None:
        if self.runner is None or not self.runner.running:
            return
        self.state = STATE_STOPPING
        self.step_label.setText(t("install.page.stopping", self.lang))
        self._show_buttons()
        self.runner.cancel()

    def resume(self) -> None:
        self.start()

    def restore(self) -> None:
        if self.job is None or self.busy:
            return
        self.mode = "restore"
        self._run(StepRunner(self.job, app_install.restore_run(self.job), parent=self))

    def remove(self) -> None:
        """Delete the environment this install created (after a confirmation), on a worker."""
        job = self.job
        if job is None or job.state is None or self.busy:
            return
        state = job.state
        if not ask_yes_no(self, t("environment.remove.title", self.lang), t("environment.remove.question", self.lang,
                                                                        path=state.env_path),
                          t("environment.remove.yes", self.lang), t("environment.confirm.no", self.lang)):
            return
        host, store = job.host, job.store
        before = self.state
        self.state = STATE_REMOVING  # (a 5 GB environment takes a while to delete)
        self._show_buttons()
        self.step_label.setText(t("install.page.removing", self.lang, path=state.env_path))

        def done(outcome: app_env.RemoveOutcome) -> None:
            refused = outcome.refused
            if refused:
                self.state = before
                self._finish_text(marked("✖", RED, t("install.page.remove.refused", self.lang, reason=refused)))
                self._show_buttons()
                self._run_after_stop()
                return
            self.state = STATE_REMOVED
            self.log.append_line(t("install.page.removed", self.lang, path=", ".join(outcome.removed) or state.env_path))
            self.step_label.setText("")
            removed = t("install.page.removed", self.lang, path=", ".join(outcome.removed) or state.env_path)
            self._finish_text(f'<b>{_esc(removed)}'
                              f'</b><br>{_esc(t("install.page.removed_next", self.lang))}')
            self._show_buttons()
            self._run_after_stop()

        def failed(text: str) -> None:
            self.state = before
            self._finish_text(marked("✖", RED, text.strip().splitlines()[0]))
            self._show_buttons()
            self._run_after_stop()

        self._task = submit(app_env.remove_environment, state, host, store, on_done=done, on_failed=failed)

    def change_settings(self) -> None:
        """Back to the Environment page (a mirror, another folder); Install there starts again.
        After a failure of one of ``SETTINGS_KINDS`` the settings there are open."""
        if self.busy:
            return
        wizard = self.wizard()
        if wizard is None:
            return
        in_settings = (self.job is not None and self.job.failure is not None
                       and self.job.failure.failure_kind in SETTINGS_KINDS)
        wizard.back()
        previous = wizard.currentPage()
        if in_settings and hasattr(previous, "show_settings"):
            previous.show_settings()

    def save_log(self, path: str | os.PathLike[str]) -> None:
        if self.job is not None:
            self.job.save_log(path)
        else:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write("\n".join(self.log.lines()) + "\n")

    def save_log_dialog(self) -> None:
        default = os.path.join(self.model.session.host.home(), "gpu-setup-wizard-install.log")
        path, _filter = QFileDialog.getSaveFileName(self, t("install.page.save_title", self.lang), default,
                                                    t("install.page.save_filter", self.lang))
        if path:
            try:
                self.save_log(path)
            except OSError as exc:
                self.log.append_line(t("install.page.save_failed", self.lang, path=path,
                                       reason=exc.strerror or str(exc)))
                return
            self.log.append_line(t("install.page.saved", self.lang, path=path))

    # --- progress ---------------------------------------------------------------------------------
    def _on_progress(self, p: Progress) -> None:
        self.progress.report(p, stopping=self.state == STATE_STOPPING)
        if self.state != STATE_STOPPING:
            self._show_stats()

    def _show_stats(self) -> None:
        self.progress.show_stats(self.state == STATE_RUNNING, self._elapsed())

    def _elapsed(self) -> float | None:
        return self.job.elapsed_s if self.job is not None and self.state in (STATE_RUNNING, STATE_STOPPING) \
            else self._final_elapsed

    def _show_elapsed(self) -> None:
        self.progress.show_elapsed(self._elapsed())

    # --- the end ------------------------------------------------------------------------------------
    def _on_finished(self, ok: bool) -> None:
        job = self.job
        assert job is not None
        self.elapsed_timer.stop()
        self._final_elapsed = job.elapsed_s
        self.log.flush()
        lang = self.lang
        if self.mode == "restore":
            if ok:
                self.state = STATE_RESTORED
                self.step_label.setText("")
                self._finish_text(f'<b style="color:{GREEN}">✓ {_esc(t("install.restore.done", self.lang))}</b><br>'
                                  f'{_esc(t("install.page.restored_next", self.lang))}')
            elif job.state is not None and job.state.status == "cancelled":
                self.state = STATE_CANCELLED
                self._finish_text(cancelled_html(job, self.last_download is not None, lang))
            else:
                self._show_failure(job)
            self._show_buttons()
            self._show_stats()
            self._run_after_stop()
            return
        if ok:
            self.state = STATE_DONE
            self.progress.finished()
            summary = job.summary()
            record_install(self.model.session, summary)  # its Python is what Verify checks
            installed = ", ".join(f"{i['name']} {i['version']}" for i in summary["installed"])
            self.step_label.setText(t("install.page.done_step", self.lang))
            if summary["already_satisfied"]:
                extra = _esc(t("install.already_satisfied", self.lang))
            elif summary["from_cache_bytes"]:
                extra = _esc(t("install.page.done_bytes", self.lang, fetched=format_bytes(summary["downloaded_bytes"]),
                               cached=format_bytes(summary["from_cache_bytes"])))
            else:
                extra = _esc(t("install.page.done_fetched", self.lang,
                               fetched=format_bytes(summary["downloaded_bytes"])))
            done = _esc(t("install.page.done", self.lang, python=summary["env_python"]))
            self._finish_text(f'<b style="color:{GREEN}">✓ {done}</b><br>{_esc(installed)}<br>{extra}<br>'
                              f'{_esc(t("install.page.done_next", self.lang))}')
        elif job.state is not None and job.state.status == "cancelled" or job.failure is None:
            self.state = STATE_CANCELLED
            self.step_label.setText(t("install.page.cancelled_step", self.lang))
            self._finish_text(cancelled_html(job, self.last_download is not None, lang))
        else:
            self._show_failure(job)
        self._show_buttons()
        self._show_stats()
        if self.last_download is not None:
            self.progress.show_files(self.last_download, over=self.state in (STATE_FAILED, STATE_CANCELLED))
        self.completeChanged.emit()
        self._run_after_stop()

    def _show_failure(self, job: InstallJob) -> None:
        self.state = STATE_FAILED
        step = self.outcome.show_failure(job, self.last_download is not None)
        if step:
            self.step_label.setText(step)

    def kept_bytes(self) -> int:
        """Bytes of this install's files on disk now (what Resume continues from)."""
        return kept_bytes(self.job)

    def _finish_text(self, html: str) -> None:
        self.outcome.finish(html)

    def _show_buttons(self) -> None:
        running = self.state in (STATE_RUNNING, STATE_STOPPING, STATE_REMOVING)
        options = self.job.recovery_options() if self.job is not None and not running else []
        stopped = self.state in (STATE_FAILED, STATE_CANCELLED)
        self.cancel_button.setVisible(running and self.state != STATE_REMOVING)
        self.cancel_button.setEnabled(self.state == STATE_RUNNING)
        # waiting for the installer to finish writing: the one way to stop at once, said plainly
        self.force_button.setVisible(self.state == STATE_STOPPING and self.stopped_in_install_step)
        self.resume_button.setVisible(stopped or self.state == STATE_RESTORED)
        self.resume_button.setText(t("install.recovery.resume", self.lang) if OPTION_RESUME in options
                                   else t("install.page.try_again", self.lang))
        self.remove_button.setVisible(stopped and OPTION_REMOVE in options)
        self.remove_button.setEnabled(True)
        self.restore_button.setVisible(stopped and OPTION_RESTORE in options)
        self.change_button.setVisible(not running and self.state != STATE_DONE and self.request is not None)
        self.save_button.setEnabled(self.job is not None)

    def _show_target(self) -> None:
        request = self.request
        if request is None:
            self.target_label.setText("")
            return
        target = self.job.target if self.job is not None else request.target
        self.target_label.setText(t("install.page.what", self.lang, what=_esc(request.description)) + "<br>"
                                  + t("install.page.into", self.lang, target=f"<b>{_esc(target.label(self.lang))}</b>"))

    def retranslate(self) -> None:
        super().retranslate()
        self.setButtonText(QWizard.WizardButton.CommitButton, t("window.button.next", self.lang))
        self.cancel_button.setText(t("install.page.cancel", self.lang))
        self.force_button.setText(t("install.force.button", self.lang))
        self.remove_button.setText(t("install.recovery.remove", self.lang))
        self.restore_button.setText(t("install.recovery.restore", self.lang))
        self.change_button.setText(t("install.page.change", self.lang))
        self.save_button.setText(t("install.page.save", self.lang))
        self.outcome.retranslate()
        self.log_title.setText(t("install.page.log", self.lang))
        self.progress.retranslate()
        self._show_buttons()
        self._show_stats()
        self._show_target()


__all__ = ["BAR_STEPS", "InstallPage", "clock"]
