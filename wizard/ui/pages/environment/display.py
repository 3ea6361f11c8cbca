"""What the Environment page shows itself: the one-line "what" and the note under each mode.
The plan and the checks are shown by their own widgets (:mod:`.plan_preview`,
:mod:`.preflight_view`), which hold their answers."""

from __future__ import annotations

from wizard.app import install as app_install
from wizard.core.base.i18n import t
from wizard.ui.pages.environment.common import MODE_NEW_CONDA
from wizard.ui.pages.environment.common import esc as _esc


class EnvironmentDisplay:
    """The showing half of :class:`~wizard.ui.pages.environment_page.EnvironmentPage` (a mixin)."""

    def _what_text(self, plain: bool = False) -> str:
        c = self.candidate()
        if c is None:
            return t("environment.what.none", self.lang)
        options = self.options()
        reqs = " ".join(options.requirements) if options else ""
        index = app_install.sources_text(options) if options else "PyPI"  # a course's extras: PyPI too
        if plain:
            return t("environment.what.plain", self.lang, reqs=reqs, index=index)
        return t("environment.what", self.lang, reqs=f"<b>{_esc(reqs)}</b>", index=_esc(index))

    def _show_what(self) -> None:
        remembered = self.remembered_note()
        self.what_label.setText(self._what_text() + (f"<br>{remembered}" if remembered else ""))
        self._offer_last_build()

    def _show_notes(self) -> None:
        """The note under the chosen mode (the chooser words it from the target's answer)."""
        self.chooser.show_notes(self.target_problem, self.resume_state, self.settings.python_mirror,
                                self.reuse_note())

    def _show_plan(self) -> None:
        """The plan box shows the current answer (it owns it)."""
        self.preview.show_plan(self.target is not None, self.target_problem, self.options())

    def _show_checks(self) -> None:
        """The checks box shows its answer; the plan's total gets what the cache holds."""
        self.preflight.show_checks(self.target, self.effective_cache_dir(), hide_conda_name=self.mode() == MODE_NEW_CONDA,
                                   plan_blocks=self.plan_blocks(), plan_running=self.plan_running)
        self.preview.show_total(self.preflight.cached_bytes)

    def _show_go_on(self, stopped: bool = False) -> None:
        """After a click on Install during a re-plan: "checking, then on by itself" (or why not)."""
        self.preflight.show_go_on(self.go_on, stopped)
        if self.go_on:
            self.preview.plan_busy.show()
