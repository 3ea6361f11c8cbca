"""What cancelling an install does right now, for the front end that asks before it cancels.

Why: a cancel must never leave a half-written environment. So the steps that write the
environment (making the venv, ensurepip, the installer's own run) are allowed to finish when
cancel is asked -- the run then stops before the next step -- while a download or a check stops
at once (partial downloads are kept; Resume continues them). A window about to close or cancel
asks :meth:`JobState.cancel_outlook` which case it is in and says it in one sentence; only an
explicit second "stop now" (:meth:`JobState.force_stop`) kills a writing step, and the state
then says the environment may be broken.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wizard.core.base.i18n import Message, msg

PHASE_IDLE = "idle"
PHASE_PREPARING = "preparing"
PHASE_DOWNLOAD = "download"
PHASE_INSTALL = "install"
PHASE_VERIFY = "verify"
PHASE_FINISHING = "finishing"

AFTER_NOTHING = "nothing-installed"  # nothing in the environment changed yet
AFTER_PARTIAL = "partial-download"  # downloads kept (finished and partial); nothing installed
AFTER_UNVERIFIED = "installed-unverified"  # the packages are installed; Resume checks them
AFTER_COMPLETE = "complete"

# Steps that write the environment: a cancel lets them finish (never killed mid-write).
WAITING_STEPS = frozenset({"create", "ensurepip", "install", "finish"})

_PHASES = {"prepare": PHASE_PREPARING, "python": PHASE_PREPARING, "create": PHASE_PREPARING,
           "ensurepip": PHASE_PREPARING, "inspect": PHASE_PREPARING, "resolve": PHASE_PREPARING,
           "plan": PHASE_PREPARING, "download": PHASE_DOWNLOAD, "install": PHASE_INSTALL,
           "verify": PHASE_VERIFY, "finish": PHASE_FINISHING}


@dataclass(frozen=True)
class CancelOutlook:
    """The answer to "is a job running, and what happens if I cancel now?".

    ``running``: a run is under way; ``step_id``: its current step (None between steps);
    ``phase``: one of the PHASE_* words; ``waits``: cancelling lets the current step finish
    first (the installer is writing the environment; a few seconds); ``after``: what the
    environment is once the cancel has taken effect (an AFTER_* word); ``message``: the
    sentence to show (:meth:`text` in the student's language)."""

    running: bool
    step_id: str | None
    phase: str
    waits: bool
    after: str
    message: Message

    def text(self, lang: str | None) -> str:
        return self.message.text(lang)


def outlook(job: Any) -> CancelOutlook:
    """The outlook of ``job`` (a :class:`~wizard.core.install.job.JobState`; not imported: the job
    imports this module) now. Reads only attributes the run keeps up to date."""
    if not job.running:
        done = job.state is not None and job.state.status == "complete"
        return CancelOutlook(False, None, PHASE_IDLE, False, AFTER_COMPLETE if done else AFTER_NOTHING,
                             msg("install.cancel.idle"))
    step = job.current_step
    steps_done = set(job.state.steps_done) if job.state is not None else set()
    phase = _PHASES.get(step or "", PHASE_PREPARING)
    if step is None:  # between two steps: the next one decides, judged by what is done
        phase = PHASE_VERIFY if "install" in steps_done else PHASE_PREPARING
    waits = step in WAITING_STEPS
    if "install" in steps_done or step in ("install", "verify"):
        after = AFTER_UNVERIFIED
    elif step == "download" or "download" in steps_done:
        after = AFTER_PARTIAL
    elif step == "finish":
        after = AFTER_COMPLETE
    else:
        after = AFTER_NOTHING
    key = {PHASE_DOWNLOAD: "install.cancel.download", PHASE_INSTALL: "install.cancel.install",
           PHASE_VERIFY: "install.cancel.verify", PHASE_FINISHING: "install.cancel.finishing"}.get(phase)
    if key is None:
        key = "install.cancel.preparing_wait" if waits else "install.cancel.preparing"
    return CancelOutlook(True, step, phase, waits, after, msg(key))


__all__ = ["AFTER_COMPLETE", "AFTER_NOTHING", "AFTER_PARTIAL", "AFTER_UNVERIFIED", "CancelOutlook", "PHASE_DOWNLOAD",
           "PHASE_FINISHING", "PHASE_IDLE", "PHASE_INSTALL", "PHASE_PREPARING", "PHASE_VERIFY", "WAITING_STEPS",
           "outlook"]
