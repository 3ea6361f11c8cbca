"""``gpu-setup-wizard vram``: what fits in GPU memory, and which lessons need Colab or the cloud.

The memory is this machine's largest NVIDIA GPU unless ``--vram-gb`` names another. Exit
statuses: SUCCESS; BAD_INPUT for a size, model or precision that cannot be used.
"""

from __future__ import annotations

import argparse
from typing import Any

from wizard.cli.common import error, lang_of, print_json
from wizard.cli.exit_status import ExitStatus
from wizard.core.base.i18n import t


def vram_of_this_machine() -> tuple[int | None, int, str | None]:
    """(total bytes, used bytes, GPU name) of this machine's largest NVIDIA GPU, or (None, 0, None)."""
    from wizard.core.base.host import RealHost
    from wizard.core.machine.nvidia import detect_nvidia
    from wizard.core.vram.units import vram_from_gpu

    gpus = [g for g in detect_nvidia(RealHost()).gpus if g.memory_total_mib]
    if not gpus:
        return None, 0, None
    gpu = max(gpus, key=lambda g: g.memory_total_mib or 0)
    total, used = vram_from_gpu(gpu)
    return total, used, gpu.name


def run(args: argparse.Namespace) -> int:
    from wizard.core.vram.catalogue import catalogue_models
    from wizard.core.vram.estimate import estimate
    from wizard.core.vram.inputs import VramInputError, parse_param_count
    from wizard.core.vram.units import GIB, format_params
    from wizard.core.vram.workloads import judge_workloads

    lang = lang_of(args)
    if args.list_models:
        for spec in catalogue_models():
            print(f"{spec.id:<28} {format_params(spec.params):>8}  {spec.name}")
        return ExitStatus.SUCCESS
    if args.vram_gb is not None:
        try:
            gb = float(args.vram_gb)
        except ValueError:
            gb = -1.0
        if not 1 <= gb <= 4096:
            return error(t("vram.cli.bad_vram_gb", lang, value=args.vram_gb))
        total, used, gpu_name = int(gb * GIB), 0, None
        ram = None  # a GPU asked about: its lessons, not this machine's CPU
    else:
        from wizard.core.base.host import RealHost

        total, used, gpu_name = vram_of_this_machine()
        ram = (RealHost().resources() or {}).get("ram_total")  # the small lessons on this CPU, as the report
    try:
        est = None
        if args.model or args.params:
            model = args.model if args.model else parse_param_count(args.params)
            est = estimate(model, mode=args.mode, precision=args.dtype, batch=args.batch,
                           context=args.context, vram_total_bytes=total, vram_used_bytes=used)
        judgments = judge_workloads(total, used, ram_total_bytes=int(ram) if ram else None)
    except VramInputError as exc:
        return error(exc.message(lang))
    if args.json:
        print_json(_json(est, judgments, total, used, lang))
    else:
        print("\n".join(_lines(est, judgments, total, used, gpu_name, lang)))
    return ExitStatus.SUCCESS


def _json(est: Any, judgments: list[Any], total: int | None, used: int, lang: str) -> dict[str, Any]:
    from wizard.core.vram.estimate import SCHEMA, SCHEMA_VERSION
    from wizard.core.vram.memory import usable_vram_bytes
    from wizard.core.vram.units import units_explanation

    if est is not None:
        return est.to_json(lang, workloads=judgments)
    return {"schema": f"{SCHEMA}@{SCHEMA_VERSION}", "items": None, "total_bytes": None,
            "usable_bytes": usable_vram_bytes(total, used) if total else None, "fits": None,
            "vram_total_bytes": total, "vram_used_bytes": used, "units_note": units_explanation(lang),
            "workloads": [j.to_json(lang) for j in judgments]}


def _lines(est: Any, judgments: list[Any], total: int | None, used: int, gpu_name: str | None,
           lang: str) -> list[str]:
    from wizard.core.vram.text import format_estimate, format_largest, format_workloads
    from wizard.core.vram.units import format_gib, units_explanation

    lines: list[str] = []
    if gpu_name:
        lines.append(t("vram.cli.gpu_from_machine", lang, name=gpu_name, total=format_gib(total or 0),
                       used=format_gib(used)))
    elif total:
        lines.append(t("vram.cli.gpu_typed", lang, total=format_gib(total)))
    else:
        lines.append(t("vram.cli.no_gpu", lang))
    if est is not None:
        lines += [""] + format_estimate(est, lang)
    lines += [""] + format_workloads(judgments, lang)
    if total:
        lines += [""] + format_largest(total, used, lang)
    lines += ["", units_explanation(lang)]
    return lines


__all__ = ["run", "vram_of_this_machine"]
