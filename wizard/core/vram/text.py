"""The VRAM estimate as text for the terminal (``gpu-setup-wizard vram``)."""

from __future__ import annotations

from wizard.core.base.i18n import t
from wizard.core.vram.estimate import Estimate
from wizard.core.vram.largest import largest_model_table
from wizard.core.vram.units import ITEM_KEYS, format_gib, format_params, item_label
from wizard.core.vram.workloads import WorkloadJudgment

MARKS = {"runs_here": "✔", "needs_colab": "☁", "needs_cloud": "☁", "too_big": "✖"}


def format_estimate(est: Estimate, lang: str) -> list[str]:
    head = t("vram.cli.estimate_for", lang, model=est.model.name, params=format_params(est.model.params),
             mode=t(f"vram.mode.{est.mode}", lang), precision=est.precision, batch=est.batch)
    lines = [head]
    width = max(len(item_label(k, lang)) for k in ITEM_KEYS)
    for key in ITEM_KEYS:
        line = f"  {item_label(key, lang):<{width}}  {format_gib(est.items[key]):>12}"
        if key == "activations" and est.activation_basis != "none":
            line += "  " + t(f"vram.basis.{est.activation_basis}", lang)
        lines.append(line)
    lines.append(f"  {t('vram.cli.total', lang):<{width}}  {format_gib(est.total_bytes):>12}")
    if est.usable_bytes is None:
        lines.append("  " + t("vram.cli.no_gpu", lang))
    else:
        verdict = t("vram.cli.fits" if est.fits else "vram.cli.does_not_fit", lang)
        lines.append("  " + t("vram.cli.usable", lang, usable=format_gib(est.usable_bytes),
                              total=format_gib(est.vram_total_bytes or 0), verdict=verdict))
    lines += ["  - " + a for a in est.assumption_texts(lang)]
    return lines


def format_workloads(judgments: list[WorkloadJudgment], lang: str) -> list[str]:
    lines = [t("vram.cli.workloads", lang)]
    for j in judgments:
        lines.append(f"  {MARKS.get(j.verdict, '•')} {j.title(lang)} — {j.text(lang)}")
    return lines


def format_largest(vram_total_bytes: int, vram_used_bytes: int, lang: str) -> list[str]:
    lines = [t("vram.cli.largest", lang)]
    lines += ["  " + row.text(lang) for row in largest_model_table(vram_total_bytes, vram_used_bytes)]
    return lines
