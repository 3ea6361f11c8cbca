"""``gpu-setup-wizard vram``: what fits in GPU memory, and which lessons need Colab or the cloud.

The memory is this machine's largest NVIDIA GPU unless ``--vram-gb`` names another.
``--measure SPEC --python PY`` measures the model itself in that environment (on the meta
device: no GPU, no download, no memory) instead of estimating it. Exit statuses: SUCCESS;
BAD_INPUT for a size, model, precision or spec that cannot be used; FAILED when a model asked
to be measured could be neither measured nor estimated.
"""

from __future__ import annotations

import argparse

from wizard.app import vram as vram_app
from wizard.cli.common import error, lang_of, print_json, say
from wizard.cli.environment import current_host
from wizard.cli.exit_status import ExitStatus
from wizard.core.base.i18n import t


def _gpu(args: argparse.Namespace) -> vram_app.GpuMemory | None:
    if args.vram_gb is not None:
        return vram_app.typed_gpu(args.vram_gb)
    return vram_app.this_machine_gpu(current_host())


def run(args: argparse.Namespace) -> int:
    lang = lang_of(args)
    if args.list_models:
        for spec in vram_app.catalogue_models():
            print(f"{spec.id:<28} {vram_app.format_params(spec.params):>8}  {spec.name}")
        return ExitStatus.SUCCESS
    if getattr(args, "measure", None):
        return _measure(args, lang)
    if getattr(args, "course", None):
        return _course(args, lang)
    try:
        gpu = _gpu(args)
        ram = None if gpu is not None and gpu.what_if else vram_app.ram_total_bytes(current_host())
        result = vram_app.compute(args.model, args.params, mode=args.mode or "inference",
                                  precision=args.dtype or "fp16", batch=args.batch, context=args.context,
                                  gpu=gpu, ram_total=ram)
    except vram_app.VramInputError as exc:
        return error(exc.message(lang))
    if args.json:
        print_json(vram_app.result_json(result, lang))
    else:
        print("\n".join(vram_app.result_lines(result, lang)))
    return ExitStatus.SUCCESS


def _measure(args: argparse.Namespace, lang: str) -> int:
    """``--measure SPEC --python PY``: the probe counts the model in PY's environment."""
    if not getattr(args, "python", None):
        return error(t("vram.measure.needs_python", lang))
    try:
        gpu = _gpu(args)
        request = vram_app.measure_request(args.measure, batch=args.batch, mode=args.mode or "train",
                                           dtype=args.dtype or "fp32", optimizer=args.optimizer or "adamw",
                                           input_shape=args.input)
    except vram_app.VramInputError as exc:
        return error(exc.message(lang))
    if not args.json:
        say(t("vram.measure.running", lang, spec=request.spec, python=args.python))
    m = vram_app.measure(args.python, request, gpu)
    if not m.measured and m.reason and not args.json:
        say(t("vram.measure.why_not", lang, reason=m.reason))
    if args.json:
        print_json(m.to_json(lang))
    else:
        print("\n".join(vram_app.measurement_lines(m, gpu, lang) + ["", vram_app.units_explanation(lang)]))
    return ExitStatus.SUCCESS if m.estimate is not None else ExitStatus.FAILED


def _course(args: argparse.Namespace, lang: str) -> int:
    """``--course FILE|URL --python PY``: each lesson named by its model measured in PY's
    environment, then every lesson judged for this GPU (or ``--vram-gb``'s card)."""
    from wizard.app import course_models
    from wizard.cli.course import course_session

    session = course_session(args, lang)
    if isinstance(session, int):
        return session
    try:
        gpu = _gpu(args)
    except vram_app.VramInputError as exc:
        return error(exc.message(lang))
    lessons = course_models.lessons_to_measure(session)
    if lessons and not getattr(args, "python", None):
        return error(t("vram.course.needs_python", lang))
    if lessons and not args.json:
        say(t("vram.course.measuring", lang, count=len(lessons), python=args.python))
    course_models.record_measured(session, course_models.measure_lessons(session, args.python, gpu)
                                  if lessons else {})
    ram = None if gpu is not None and gpu.what_if else vram_app.ram_total_bytes()
    judged = course_models.judge_on(session, gpu, ram)
    if args.json:
        print_json(judged.to_json(lang))
    else:
        print("\n".join([vram_app.gpu_line(gpu, lang), *judged.lines(lang)]))
    return ExitStatus.SUCCESS


__all__ = ["run"]
