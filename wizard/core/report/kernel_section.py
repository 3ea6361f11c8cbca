"""The report's "Jupyter kernel" section: the verification run inside a notebook kernel.

Why a section of its own: "CUDA works in the terminal but not in the notebook" is the most common
complaint after an install that looked fine, because the notebook runs another interpreter. When
the checklist was also run inside a kernel (``kernel verify`` / the Verify page's Jupyter panel),
the report says what that kernel sees, with the checklist's counts, so a teaching assistant reads
the notebook's truth beside the terminal's. Without a kernel result there is no section at all, so
reports that never ran one are unchanged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wizard.core.report.document import FAIL, PASS, SKIP, STATUSES, WARN, Item, Section
from wizard.core.report.inputs import ReportContext, cuda_available

if TYPE_CHECKING:
    from wizard.core.verify.checklist import VerifyReport


def kernel_state(report: VerifyReport) -> str:
    """What the kernel's interpreter has: "gpu" (CUDA available), "cpu_build" (torch without
    CUDA), "no_gpu" (a CUDA build that sees no GPU) or "no_torch"."""
    versions = report.versions
    if cuda_available(report) is True:
        return "gpu"
    if not versions.get("torch"):
        return "no_torch"
    return "no_gpu" if versions.get("cuda") else "cpu_build"


def kernel_section(ctx: ReportContext) -> Section | None:
    """The section for ``ctx.inputs.kernel_verify`` (kernel label, VerifyReport or its JSON), or None."""
    pair = ctx.inputs.kernel_verify
    if pair is None:
        return None
    label, report = pair
    state = kernel_state(report)
    status = report.status if report.status in STATUSES else WARN
    if status == SKIP:
        status = WARN
    counts = report.counts()
    counts_text = ctx.t("report.kernel.counts", passed=counts.get(PASS, 0), warned=counts.get(WARN, 0),
                        failed=counts.get(FAIL, 0), skipped=counts.get(SKIP, 0))
    versions = report.versions
    details = [counts_text]
    if report.python_exe:
        details.append(ctx.t("report.kernel.python", python=report.python_exe))
    value_text = ctx.t(f"report.kernel.{state}", kernel=label, torch=versions.get("torch") or "?",
                       cuda=versions.get("cuda") or "?")
    sec = Section("kernel", ctx.t("report.section.kernel"), status=status)
    sec.items.append(Item("kernel", ctx.t("report.kernel.label", kernel=label), value_text, status, details))
    return sec


__all__ = ["kernel_section", "kernel_state"]
