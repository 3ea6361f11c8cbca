"""The Environment page on a re-run: the environment the last run verified is offered first, the
mirror of last time is filled in again (and said, with its address), the build of last time is
offered with a button but never replaces the recommendation by itself, and an install that starts
is remembered for the next run (the answers are :mod:`wizard.app.reuse`'s)."""

from __future__ import annotations

from wizard.app import reuse
from wizard.core.base.i18n import t
from wizard.ui.pages.environment.common import GREEN
from wizard.ui.pages.environment.common import esc as _esc


class EnvironmentReuse:
    """The re-run half of :class:`~wizard.ui.pages.environment_page.EnvironmentPage` (a mixin)."""

    config_dir: str | None = None  # None: the user config folder (tests pass their own)
    history_dir: str | None = None  # None: the user history folder
    reuse_offer: reuse.ReuseOffer | None = None
    reuse_applied = False  # once per page: Back and Next again keep the student's own changes
    remembered_settings = False  # the mirror/proxy came back from the last run
    last_build = None  # the build of the last run, offered (one click) when it is not this run's

    def apply_last_run(self) -> None:
        """First show: fill in what the last run set, and offer its verified environment."""
        if self.reuse_applied:
            return
        self.reuse_applied = True
        remembered = reuse.load_remembered(self.config_dir)
        self._apply_remembered(remembered)
        offer = reuse.offer_for(self.history_dir, self.store())
        if offer is None:
            return
        self.reuse_offer = self.chooser.reuse_offer = offer  # listed too (also when the lists are filled again)
        self.chooser.fill_existing()
        self.chooser.select_existing(offer.python_exe)

    def _apply_remembered(self, remembered: reuse.Remembered) -> None:
        if remembered.empty:
            return
        s = self.settings
        if not (s.mirror or s.python_mirror or s.proxy):  # settings given for this run win
            s.mirror, s.python_mirror, s.proxy = remembered.mirror, remembered.python_mirror, remembered.proxy
            self.settings_panel.show_values()
            self.remembered_settings = bool(remembered.mirror or remembered.python_mirror or remembered.proxy)
        # the recommendation's build stays the choice: last time's is offered, never put in silently
        self.last_build = reuse.remembered_build(self.session, remembered)
        self._offer_last_build()

    def last_build_offered(self):
        """The last run's build while it is not the current choice (else None)."""
        build, c = self.last_build, self.candidate()
        if build is None or (c is not None and (build.torch, build.variant) == (c.torch, c.variant)):
            return None
        return build

    def _offer_last_build(self) -> None:
        build = self.last_build_offered()
        self.last_build_button.setVisible(build is not None)
        if build is not None:
            self.last_build_button.setText(t("environment.reuse.last_build.use", self.lang, torch=build.torch,
                                             variant=build.variant))

    def use_last_build(self) -> None:
        """The button under the "what" line: the last run's build becomes the choice."""
        build = self.last_build
        if build is not None:
            self.use_build(build)
        self._offer_last_build()

    def remember_this_install(self) -> None:
        """An install starts: its mirror, proxy, installer and build are what the next run fills in."""
        reuse.remember_install(self.settings, self.candidate(), self.config_dir)

    def reuse_note(self) -> str:
        """The line under "Existing": this is the environment the last run verified (rich text)."""
        offer = self.reuse_offer
        target = self.existing_combo.currentData()
        if offer is None or target is None or target.python_exe != offer.python_exe:
            return ""
        kind = "verified" if offer.verified else "installed"
        head = t(f"environment.reuse.offer.{kind}", self.lang, path=offer.env_path, torch=offer.torch or "?")
        note = t(f"environment.reuse.note.{kind}", self.lang, date=(offer.when or "?").replace("T", " ")[:16])
        return f'<span style="color:{GREEN}">✓ {_esc(head)}</span><br>{_esc(note)}'

    def remembered_note(self) -> str:
        """What came from the last run, said under the "what" line: the mirror with its address,
        the build of last time when it is not this run's (the button offers it)."""
        lines = []
        if self.remembered_settings and self.settings.mirror:
            lines.append(t("environment.reuse.remembered.mirror", self.lang, url=self.settings.mirror))
        build = self.last_build_offered()
        if build is not None:
            lines.append(t("environment.reuse.remembered.build", self.lang, torch=build.torch, variant=build.variant))
        return "<br>".join(_esc(line) for line in lines)


__all__ = ["EnvironmentReuse"]
