"""Building the report: :func:`build_report` turns :class:`ReportInputs` into a :class:`Report`.

The lesson's checklist, benchmark and judgment come first (:mod:`wizard.core.report.lesson`), then
the details a teaching assistant asks for (:mod:`wizard.core.report.details`). Every line comes
from the inputs, so a step that did not run says "not run" and nothing is guessed. Unless private
details are asked for, the finished report is redacted (user name, home folder, host name, GPU ids).
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import replace
from typing import TYPE_CHECKING, Iterable

from wizard.core.report.as_json import report_facts
from wizard.core.report.details import (
    appendices,
    bench_details_section,
    changes_section,
    findings_section,
    install_section,
    system_section,
    verification_section,
    verify_checklist_section,
    vram_section,
)
from wizard.core.report.document import MachineRecord, Report
from wizard.core.report.inputs import ReportContext, ReportInputs, inputs_redactor, local_machine
from wizard.core.report.kernel_section import kernel_section
from wizard.core.report.lesson import benchmark_section, checklist_section, judgment_section

if TYPE_CHECKING:
    from wizard.core.base.privacy import Redactor


def build_report(inputs: ReportInputs, *, lang: str | None = None, include_private: bool = False,
                 now: _dt.datetime | None = None, redactor: Redactor | None = None,
                 remotes: Iterable[MachineRecord] | None = None) -> Report:
    """The report of ``inputs`` (the application layer fills them from its session: this stage
    never sees the session). Colab/cloud machines come from
    ``remotes``, else from the inputs. Without ``include_private`` the user name, home folder,
    host name and GPU ids are replaced (``redactor`` defaults to the inputs' machine's)."""
    lang = lang or inputs.lang
    remote_list = list(remotes if remotes is not None else inputs.remotes)
    when = (now or _dt.datetime.now().astimezone()).isoformat(timespec="seconds")
    ctx = ReportContext(inputs, lang, inputs.detection, inputs.verify, inputs.bench,
                        inputs.install, [local_machine(inputs, lang), *remote_list], made_at=when)
    sections = [
        checklist_section(ctx), benchmark_section(ctx), judgment_section(ctx), verify_checklist_section(ctx),
        system_section(ctx), install_section(ctx), verification_section(ctx), bench_details_section(ctx),
        vram_section(ctx), findings_section(ctx), changes_section(ctx),
    ]
    kernel = kernel_section(ctx)  # only when the checklist also ran inside a Jupyter kernel
    if kernel is not None:
        sections.append(kernel)
    report = Report(lang=lang, generated_at=when, title=ctx.t("report.title"), sections=sections,
                    appendices=appendices(ctx), machines=ctx.machines, private_included=include_private,
                    facts=report_facts(ctx))
    if include_private:
        return report
    return report.redacted(redactor or inputs_redactor(inputs))


def with_remote(machine: MachineRecord, kind: str | None = None, label: str | None = None) -> MachineRecord:
    """A copy of ``machine`` as a remote of ``kind`` (colab/cloud)."""
    return replace(machine, kind=kind or machine.kind, label=label if label is not None else machine.label)


__all__ = ["build_report", "with_remote"]
