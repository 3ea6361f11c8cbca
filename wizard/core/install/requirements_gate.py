"""The one install rule (:mod:`wizard.core.install.requirements`) where the install engine meets it:
a refusal as the error each stage already shows in one line.

Why apart from the rule: the plan (:class:`~wizard.core.install.plan.PlanError`) and the job
(:class:`~wizard.core.install.job.StepError`) import the rule's guards themselves; the rule
cannot import them back without an import circle.
"""

from __future__ import annotations

from typing import Any, Iterable

from wizard.core.base.i18n import msg
from wizard.core.install.job import StepError
from wizard.core.install.plan import PlanError
from wizard.core.install.requirements import RequirementRefused, checked_requirements

REFUSED_KIND = "requirement"  # the failure's kind on a PlanError or StepError (not a connection's "refused")


def checked_for_plan(values: Iterable[Any]) -> list[str]:
    """:func:`checked_requirements` for the plan preview: a refusal is the PlanError (kind
    :data:`REFUSED_KIND`) its callers already show in one line."""
    try:
        return checked_requirements(values)
    except RequirementRefused as exc:
        raise PlanError(REFUSED_KIND, msg("install.requirement.refused_step", reason=exc.message),
                        exc.requirement) from exc


def checked_for_step(step_id: str, values: Iterable[Any]) -> list[str]:
    """:func:`checked_requirements` inside an install step: a refusal is the StepError (kind
    :data:`REFUSED_KIND`) that stops the job -- in its first step, before a venv is made."""
    try:
        return checked_requirements(values)
    except RequirementRefused as exc:
        raise StepError(step_id, msg("install.requirement.refused_step", reason=exc.message), REFUSED_KIND,
                        exc.requirement) from exc


__all__ = ["REFUSED_KIND", "checked_for_plan", "checked_for_step"]
