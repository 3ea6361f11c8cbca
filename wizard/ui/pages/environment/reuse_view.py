"""What the last run left for this one, held by a plain object the Environment page owns: the
environment it verified (offered first), the mirror of last time (filled in again and said with
its address), the build of last time (offered with a button, never put in place of the
recommendation by itself), and -- when an install starts -- what the next run gets back. The
answers are :mod:`wizard.app.reuse`'s."""

from __future__ import annotations

from typing import TYPE_CHECKING

from wizard.app import reuse
from wizard.core.base.i18n import t
from wizard.ui.pages.environment.common import GREEN
from wizard.ui.pages.environment.common import esc as _esc

if TYPE_CHECKING:
    from wizard.app.install import InstallSettings, StateStore
    from wizard.app.recommend import Candidate
    from wizard.app.session import Session


class LastRun:
    """The last run's settings, build and environment, read once per page."""

    def __init__(self) -> None:
        self.config_dir: str | None = None  # None: the user config folder (tests pass their own)
        self.history_dir: str | None = None  # None: the user history folder
        self.offer: reuse.ReuseOffer | None = None  # the environment to offer first
        self.applied = False  # once per page: Back and Next again keep the student's own changes
        self.mirror = ""  # the mirror that came back (said while the field still holds it)
        self.build: Candidate | None = None  # the last run's build, when it still fits this machine

    def apply(self, session: Session, settings: InstallSettings, store: StateStore) -> bool:
        """First show: fill the last run's mirror, proxy and uv mirror into ``settings`` (unless this
        run set its own) and find its build and environment. True when the settings changed."""
        if self.applied:
            return False
        self.applied = True
        remembered = reuse.load_remembered(self.config_dir)
        changed = False
        if not remembered.empty:
            if not (settings.mirror or settings.python_mirror or settings.proxy):  # settings given for this run win
                settings.mirror, settings.python_mirror = remembered.mirror, remembered.python_mirror
                settings.proxy = remembered.proxy
                self.mirror = remembered.mirror
                changed = True
            # the recommendation's build stays the choice: last time's is offered, never put in silently
            self.build = reuse.remembered_build(session, remembered)
        self.offer = reuse.offer_for(self.history_dir, store)
        return changed

    def offered_build(self, candidate: Candidate | None) -> Candidate | None:
        """The last run's build while it is not the current choice (else None)."""
        build = self.build
        if build is None or (candidate is not None and (build.torch, build.variant) == (candidate.torch,
                                                                                         candidate.variant)):
            return None
        return build

    def note(self, mirror: str, candidate: Candidate | None, lang: str) -> str:
        """What came from the last run, said under the "what" line (rich text): the mirror with its
        address, and the build of last time when it is not this run's (the button offers it)."""
        lines = []
        if self.mirror and mirror == self.mirror:
            lines.append(t("environment.reuse.remembered.mirror", lang, url=mirror))
        build = self.offered_build(candidate)
        if build is not None:
            lines.append(t("environment.reuse.remembered.build", lang, torch=build.torch, variant=build.variant))
        return "<br>".join(_esc(line) for line in lines)

    def existing_note(self, python_exe: str | None, lang: str) -> str:
        """The line under "Existing" when ``python_exe`` is the environment the last run verified."""
        offer = self.offer
        if offer is None or python_exe is None or python_exe != offer.python_exe:
            return ""
        kind = "verified" if offer.verified else "installed"
        head = t(f"environment.reuse.offer.{kind}", lang, path=offer.env_path, torch=offer.torch or "?")
        note = t(f"environment.reuse.note.{kind}", lang, date=(offer.when or "?").replace("T", " ")[:16])
        return f'<span style="color:{GREEN}">✓ {_esc(head)}</span><br>{_esc(note)}'

    def remember(self, settings: InstallSettings, candidate: Candidate | None) -> None:
        """An install starts: its mirror, proxy, installer and build are what the next run fills in."""
        reuse.remember_install(settings, candidate, self.config_dir)


__all__ = ["LastRun"]
