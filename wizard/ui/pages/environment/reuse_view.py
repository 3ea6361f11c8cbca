"""The Environment page on a re-run: the environment the last run verified is offered first, the
mirror and the build chosen last time are filled in again, and an install that starts is
remembered for the next run (the answers are :mod:`wizard.app.reuse`'s)."""

from __future__ import annotations

from wizard.app import recommend as app_recommend
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
    remembered_choice = False  # the build came back from the last run

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
        build = reuse.remembered_build(self.session, remembered)
        if build is not None:
            app_recommend.choose_build(self.session, build.torch, build.variant, build)
            self.remembered_choice = True
            self._fill_python_combo()  # the default folder follows the build

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
        if self.remembered_settings and self.remembered_choice:
            key = "environment.reuse.remembered.both"
        elif self.remembered_settings or self.remembered_choice:
            key = "environment.reuse.remembered.mirror" if self.remembered_settings else "environment.reuse.remembered.build"
        else:
            return ""
        c = self.candidate()
        return _esc(t(key, self.lang, torch=getattr(c, "torch", "?"), variant=getattr(c, "variant", "?")))


__all__ = ["EnvironmentReuse"]
