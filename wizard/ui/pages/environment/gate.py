"""The Environment page's gate: Install only for a plan that can run; a click during a re-plan
waits for the answers and goes on by itself; a mirror that lacks the chosen build offers the
fitting builds it has (one click to switch)."""

from __future__ import annotations

from typing import Any

from wizard.app import install as app_install
from wizard.app import recommend as app_recommend
from wizard.app.alternatives import builds_on_index
from wizard.app.install import InstallOptions, InstallSettings
from wizard.ui.pages.environment import common
from wizard.ui.workers import submit


class EnvironmentGate:
    """The gate half of :class:`~wizard.ui.pages.environment_page.EnvironmentPage` (a mixin)."""

    go_on = False  # Install was clicked while the plan was being worked out: go on when it is ready
    alternatives: list | None = None  # builds the index has when it lacks the chosen one (None: not asked)
    alternatives_running = False
    checks_failed = False  # the checks themselves crashed: no answer is coming for this choice
    _alt_gen = 0

    def plan_blocks(self) -> bool:
        """The plan was worked out and cannot run (no connection, no such build on the index, a
        torch family of mixed builds ...): the app layer's answer, as the command line's."""
        return app_install.plan_blocks(self.plan_error)

    def pending(self) -> bool:
        """Answers for the current choice are still on their way (or about to be asked for)."""
        return (self._debounce.isActive() or self.plan_running or self.checks_running
                or (self.target is not None and self.checks is None and not self.checks_failed))

    def _maybe_go_on(self) -> None:
        """Install was clicked while checking: now that the answers are in, go on -- or say why not."""
        if not self.go_on or self.pending():
            return
        self.go_on = False
        wizard = self.wizard()
        ready = self.isComplete()
        self._show_go_on(stopped=not ready)
        if ready and wizard is not None and wizard.currentPage() is self:
            wizard.next()

    def _start_alternatives(self, options: InstallOptions) -> None:
        """The index lacks the chosen build: ask it (worker) which fitting builds it has."""
        self._alt_gen += 1
        self.alternatives, self.alternatives_running = None, False
        if self.plan_error is None or self.plan_error.kind != "no-version" or self.session.recommendation is None:
            return
        gen, self.alternatives_running = self._alt_gen, True
        facts = self.session.recommendation.recommendation.facts
        current = self.candidate()
        python = self.python_version() or facts.python
        settings = InstallSettings(**vars(self.settings))

        def done(found: list) -> None:
            if common.alive(self) and gen == self._alt_gen:
                self.alternatives, self.alternatives_running = found, False
                self._show_alternatives()

        def failed(text: str) -> None:
            if common.alive(self) and gen == self._alt_gen:
                self.alternatives, self.alternatives_running = [], False
                self._show_alternatives()

        self._keep(submit(builds_on_index, facts, current, python, settings, on_done=done, on_failed=failed))

    def use_build(self, candidate: Any) -> None:
        """One click on a build the index has: it becomes the choice, and the plan is made again."""
        app_recommend.choose_build(self.session, candidate.torch, candidate.variant, candidate)
        self.alternatives = None
        self._show_alternatives()
        self._fill_python_combo()  # the default folder follows the build
        self._changed()
        self.refresh()


__all__ = ["EnvironmentGate"]
