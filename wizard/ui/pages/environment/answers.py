"""The Environment page's answers from the worker pool: the plan (pip's or uv's dry-run
resolution against the chosen index, seconds against download.pytorch.org) and the checks
(the target's interpreter queried). A QObject that holds the generations -- an answer that
arrives after the choice changed is dropped -- and says each answer through a signal."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from wizard.app import install as app_install
from wizard.app.install import CheckOutcome, EnvTarget, InstallOptions, InstallPlan, PlanError, PlanOutcome
from wizard.core.base.i18n import msg
from wizard.ui.pages.environment import common
from wizard.ui.workers import Task, submit

if TYPE_CHECKING:
    from wizard.core.base.host import Host

PlanKey = tuple[str | None, str | None, tuple[str, ...], str | None, str | None, str]


def plan_key(target: EnvTarget, options: InstallOptions) -> PlanKey:
    """The plan depends on the interpreter that resolves it and on what is asked, not on the
    new folder's name: typing a path does not resolve again."""
    if os.path.exists(target.python_exe):
        py: str | None = target.python_exe
    elif target.base_python and os.path.exists(target.base_python):
        py = target.base_python
    else:
        py = None
    existing = target.python_exe if not target.creates_env else None
    # a course's extras' source is asked too: changing it plans again
    return (py, existing, tuple(options.requirements), options.index_url, options.extras_index, target.kind)


class Answers(QObject):
    """Asks for the plan and the checks on the worker pool; only the newest answer is said."""

    plan_answered = Signal(object, object, bool)  # (InstallPlan | None, PlanError | None, the ask crashed)
    checks_answered = Signal(object)  # CheckOutcome
    checks_crashed = Signal(str)  # the check itself failed (its first line)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.key: PlanKey | None = None  # what the current plan answers
        self.answer_failed = False  # the index's last answer was a failure: the next plan asks it again
        self.ask_index = False  # the student pressed Enter in a field: the next plan asks the index, not a cache
        self._gen = 0  # the choice: bumped on every change
        self._plan_gen = 0
        self._check_gen = 0
        self._tasks: list[Task] = []

    def choice_changed(self) -> None:
        """The student changed something: answers still on their way are for the old choice."""
        self._gen += 1

    def forget_plan(self) -> None:
        """Ask the index again for the next plan (a red answer was for the old settings)."""
        self.key = None

    def ask_again(self) -> None:
        """Plan once more and ask the index itself (Enter in a field of the page)."""
        self.key = None
        self.ask_index = True

    def wants_plan(self, target: EnvTarget, options: InstallOptions) -> bool:
        """A new key: the plan on the way (if any) is dropped and the caller asks again."""
        key = plan_key(target, options)
        if key == self.key:
            return False
        self.key = key
        self._plan_gen += 1
        return True

    def plan(self, target: EnvTarget, options: InstallOptions, host: Host) -> None:
        self._plan_gen += 1
        gen = self._plan_gen
        if self.answer_failed or self.ask_index:  # a failure, or Enter: ask the index, not a cached page
            options = app_install.asking_again(options)
        self.ask_index = False

        def done(outcome: PlanOutcome) -> None:
            if common.alive(self) and gen == self._plan_gen:
                self.answer_failed = outcome.error is not None
                self.plan_answered.emit(outcome.plan, outcome.error, False)

        def failed(text: str) -> None:
            if common.alive(self) and gen == self._plan_gen:
                self.answer_failed = True
                first = text.strip().splitlines()[0] if text.strip() else "?"
                self.plan_answered.emit(None, PlanError("failed", msg("environment.plan.crashed", text=first)), True)

        self.keep(submit(app_install.plan_install, target, options, host, on_done=done, on_failed=failed))

    def check(self, target: EnvTarget, host: Host, plan: InstallPlan | None, cache_dir: str, confirmed: set[str],
              conda_names: list[str], conda_base: str | None, ours: bool) -> None:
        """The pre-flight checks of ``target``; only the newest check counts (a plan's sizes start another)."""
        self._check_gen += 1
        gen, check_gen = self._gen, self._check_gen

        def current() -> bool:
            return common.alive(self) and gen == self._gen and check_gen == self._check_gen

        def done(outcome: CheckOutcome) -> None:
            if current():
                self.checks_answered.emit(outcome)

        def failed(text: str) -> None:
            if current():
                self.checks_crashed.emit(text)

        self.keep(submit(app_install.run_checks, EnvTarget.from_json(target.to_json()), host, plan, cache_dir,
                         set(confirmed), conda_names, conda_base, ours, on_done=done, on_failed=failed))

    def keep(self, task: Task) -> None:
        self._tasks = self._tasks[-8:] + [task]


__all__ = ["Answers", "PlanKey", "plan_key"]
