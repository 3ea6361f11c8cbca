"""The report's "Jupyter kernel" section: the verification run inside a notebook kernel.

Why a section of its own: "CUDA works in the terminal but not in the notebook" is the most common
complaint after an install that looked fine, because the notebook runs another interpreter. When
the checklist was also run inside a kernel (``kernel verify`` / the Verify page's Jupyter panel),
the report says what that kernel sees, with the checklist's counts, so a teaching assistant reads
the notebook's truth beside the terminal's. Without a kernel result there is no section at all, so
reports that never ran one are unchanged.
"""

from __future__ import annotations

from typing import Any

from wizard.core.report.document import FAIL, PASS, SKIP, STATUSES, WARN, Item, Section
from wizard.core.report.inputs import ReportContext, as_doc


def kernel_state(doc: dict[str, Any]) -> str:
    """What the kernel's interpreter has: "gpu" (CUDA available), "cpu_build" (torch without
    CUDA), "no_gpu" (a CUDA build that sees no GPU) or "no_torch"."""
    versions = doc.get("versions") or {}
    cuda = (doc.get("facts") or {}).get("cuda")
    if isinstance(cuda, dict) and cuda.get("is_available") is True:
        return "gpu"
    if not versions.get("torch"):
        return "no_torch"
    return "no_gpu" if versions.get("cuda") else "cpu_build"


def kernel_section(ctx: ReportContext) -> Section | None:
    """The section for ``ctx.inputs.kernel_verify`` (kernel label, VerifyReport or its JSON), or None."""
    pair = ctx.inputs.kernel_verify
    if pair is None:
        return None
    label, value = pair
    doc = as_doc(value, ctx.lang)
    if doc is None:
        return None
    state = kernel_state(doc)
    status = doc.get("status") if doc.get("status") in STATUSES else WARN
    if status == SKIP:
        status = WARN
    counts = doc.get("counts") or {}
    counts_text = ctx.t("p.report.kernel.counts", passed=counts.get(PASS, 0), warned=counts.get(WARN, 0),
                        failed=counts.get(FAIL, 0), skipped=counts.get(SKIP, 0))
    versions = doc.get("versions") or {}
    details = [counts_text]
    if doc.get("python"):
        details.append(ctx.t("p.report.kernel.python", python=doc["python"]))
    value_text = ctx.t(f"p.report.kernel.{state}", kernel=label, torch=versions.get("torch") or "?",
                       cuda=versions.get("cuda") or "?")
    sec = Section("kernel", ctx.t("p.report.section.kernel"), status=status)
    sec.items.append(Item("kernel", ctx.t("p.report.kernel.label", kernel=label), value_text, status, details))
    return sec


__all__ = ["kernel_section", "kernel_state"]
