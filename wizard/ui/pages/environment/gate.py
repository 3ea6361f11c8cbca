"""The Environment page's gate: Install only for a plan that can run; a click during a re-plan
waits for the answers and goes on by itself; a mirror that lacks the chosen build offers the
fitting builds it has (one click to switch)."""

from __future__ import annotations

from typing import Any

from wizard.app import recommend as app_recommend


class EnvironmentGate:
    """The gate half of :class:`~wizard.ui.pages.environment_page.EnvironmentPage` (a mixin over
    the page's plan preview and checks, which hold the answers)."""

    go_on = False  # Install was clicked while the plan was being worked out: go on when it is ready

    def plan_blocks(self) -> bool:
        """The plan was worked out and cannot run (no connection, no such build on the index, a
        torch family of mixed builds ...): the app layer's answer, as the command line's."""
        return self.built and self.preview.blocks()

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

    def _start_alternatives(self) -> None:
        """The index lacks the chosen build: the plan box asks it (worker) which fitting builds it has."""
        choice = self.session.recommendation
        if choice is None:
            return
        facts = choice.recommendation.facts
        self.preview.start_alternatives(facts, self.candidate(), self.python_version() or facts.python, self.settings)

    def use_build(self, candidate: Any) -> None:
        """One click on a build the index has: it becomes the choice, and the plan is made again."""
        app_recommend.choose_build(self.session, candidate.torch, candidate.variant, candidate)
        self.preview.clear_alternatives()
        self._fill_python_combo()  # the default folder follows the build
        self._changed()
        self.refresh()


__all__ = ["EnvironmentGate"]
