"""``gpu-setup-wizard``: the wizard window, or the same engine headless.

Without a command it opens the Qt wizard (imported only then, so the headless commands work
on a server without a display and never load Qt). Commands:

- ``doctor``: detect this machine (or read a saved nvidia-smi output) and explain it.
- ``recommend``: the PyTorch build this machine can run, and why.
- ``verify`` / ``bench``: prove an environment works; CPU versus GPU speed.
- ``vram``: what fits in GPU memory, and which lessons need Colab or the cloud.
- ``install``: create the environment and install the recommended build (resumable, cancellable).
- ``report``: the lesson's checklist filled in (Markdown, HTML, PDF, JSON), with Colab/cloud rows.
- ``history``: earlier runs, and what changed between them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Sequence

from wizard import __version__
from wizard.core.base.i18n import LANGUAGES, detect_lang, set_language, t

EXIT_OK = 0
EXIT_BAD_INPUT = 2


def _prescan_lang(argv: Sequence[str]) -> str:
    """Pick the language before argparse builds its (translated) help."""
    for i, arg in enumerate(argv):
        if arg == "--lang" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--lang="):
            return arg.split("=", 1)[1]
    return detect_lang()


def build_parser(with_commands: bool = True) -> argparse.ArgumentParser:
    """The argument parser. Without ``with_commands`` it knows only the window's own options,
    so opening the wizard does not import every command's module (start-up time)."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--lang", choices=LANGUAGES, help=t("cli.lang.help"))
    parser = argparse.ArgumentParser(prog="gpu-setup-wizard", description=t("cli.description"),
                                     parents=[common])
    parser.add_argument("--version", action="version", version=f"gpu-setup-wizard {__version__}")
    parser.add_argument("--smoke-test", action="store_true", help=t("cli.smoke.help"))
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    if not with_commands:
        return parser

    doctor = sub.add_parser("doctor", parents=[common], help=t("cli.doctor.help"),
                            description=t("cli.doctor.help"))
    doctor.add_argument("--json", action="store_true", help=t("cli.json.help"))
    doctor.add_argument("--nvidia-smi-file", metavar="FILE", help=t("cli.smi_file.help"))
    doctor.add_argument("--include-private", action="store_true", help=t("cli.private.help"))
    doctor.add_argument("--explain", metavar="FILE", help=t("explain.cli.help"))
    doctor.add_argument("--compare-last", action="store_true", help=t("compare.cli.help"))
    doctor.set_defaults(handler=cmd_doctor)

    rec = sub.add_parser("recommend", parents=[common], help=t("recommend.cli.help"),
                         description=t("recommend.cli.help"))
    rec.add_argument("--json", action="store_true", help=t("cli.json.help"))
    rec.add_argument("--from-doctor", metavar="FILE", help="doctor --json output of another machine ('-': stdin)")
    rec.add_argument("--os", choices=("windows", "linux", "macos"))
    rec.add_argument("--arch", help="x86_64, arm64, aarch64")
    rec.add_argument("--python", metavar="X.Y", help="Python version of the target environment")
    rec.add_argument("--driver", metavar="VERSION", help="NVIDIA driver version, e.g. 566.36")
    rec.add_argument("--cuda", metavar="X.Y", help="highest CUDA the driver supports (default: from --driver)")
    rec.add_argument("--gpu-cc", metavar="X.Y", action="append", default=[], help="compute capability (repeat per GPU)")
    rec.add_argument("--wsl", action="store_true", help="the machine is WSL2 (the driver is the Windows one)")
    rec.add_argument("--torch", metavar="VERSION", help="a torch version the course pins, e.g. 2.1")
    rec.add_argument("--variant", help="preferred build, e.g. cu126, cpu")
    rec.add_argument("--cpu-only", action="store_true")
    rec.add_argument("--newest", action="store_true", help="newest torch and CUDA even where data is unconfirmed")
    rec.add_argument("--index-url", metavar="URL", help="a mirror of the PyTorch package indexes")
    rec.add_argument("--check-index", action="store_true", help="ask the package index whether the wheel exists")
    rec.add_argument("--all", action="store_true", help="list every alternative and rejection")
    rec.set_defaults(handler=cmd_recommend)

    verify = sub.add_parser("verify", parents=[common], help=t("verify.cli.help"), description=t("verify.cli.help"))
    verify.add_argument("--python", metavar="EXE", required=True, help=t("verify.cli.python.help"))
    verify.add_argument("--json", action="store_true", help=t("cli.json.help"))
    verify.set_defaults(handler=cmd_verify)

    bench = sub.add_parser("bench", parents=[common], help=t("bench.cli.help"), description=t("bench.cli.help"))
    bench.add_argument("--python", metavar="EXE", required=True, help=t("verify.cli.python.help"))
    suite = bench.add_mutually_exclusive_group()
    suite.add_argument("--quick", dest="suite", action="store_const", const="quick", help=t("bench.cli.quick.help"))
    suite.add_argument("--full", dest="suite", action="store_const", const="full", help=t("bench.cli.full.help"))
    bench.add_argument("--json", action="store_true", help=t("cli.json.help"))
    bench.set_defaults(handler=cmd_bench, suite="quick")

    vram = sub.add_parser("vram", parents=[common], help=t("vram.cli.help"), description=t("vram.cli.help"))
    vram.add_argument("--vram-gb", metavar="N", help=t("vram.cli.vram_gb.help"))
    which = vram.add_mutually_exclusive_group()
    which.add_argument("--model", metavar="NAME", help=t("vram.cli.model.help"))
    which.add_argument("--params", metavar="SIZE", help=t("vram.cli.params.help"))
    which.add_argument("--list-models", action="store_true", help=t("vram.cli.list.help"))
    vram.add_argument("--dtype", default="fp16", help="fp32 fp16 bf16 int8 int4 nf4 gptq4 q4_0 q4_k_m q8_0")
    vram.add_argument("--mode", default="inference", choices=("inference", "train", "lora", "qlora"))
    vram.add_argument("--batch", type=int, default=1)
    vram.add_argument("--context", type=int)
    vram.add_argument("--json", action="store_true", help=t("cli.json.help"))
    vram.set_defaults(handler=cmd_vram)

    from wizard.cli_history import add_history_parser
    from wizard.cli_install import add_install_parser
    from wizard.cli_report import add_report_parser

    add_install_parser(sub, common)
    add_report_parser(sub, common)
    add_history_parser(sub, common)
    return parser


def _read_input(path: str) -> str:
    if path == "-":
        data = sys.stdin.buffer.read()
    else:
        with open(path, "rb") as fh:
            data = fh.read()
    from wizard.core.base.host import decode_output

    return decode_output(data)


def _error(message: str) -> int:
    print(f"gpu-setup-wizard: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def cmd_doctor(args: argparse.Namespace) -> int:
    from wizard.core.machine.detect import UnreadableInput, detect, detection_from_smi_text
    from wizard.core.machine.doctor import detection_to_json, format_text
    from wizard.core.base.host import RealHost
    from wizard.core.base.i18n import language
    from wizard.core.base.privacy import redactor_for

    if args.explain:
        from wizard.cli_history import cmd_explain

        return cmd_explain(args.explain, language(), as_json=args.json)
    host = RealHost()
    if args.nvidia_smi_file:
        try:
            text = _read_input(args.nvidia_smi_file)
        except OSError as exc:
            return _error(t("cli.error.cannot_read", path=args.nvidia_smi_file, error=exc.strerror or exc))
        if not text.strip():
            return _error(t("cli.error.empty"))
        try:
            detection = detection_from_smi_text(text)
        except UnreadableInput as exc:
            return _error(t("cli.error.unrecognised_smi", reason=str(exc)))
    else:
        detection = detect(host)
    redactor = None
    if not args.include_private:
        redactor = redactor_for(host.home(), host.environ, host.platform_facts().get("node"))
    compared = None
    if args.compare_last and not args.nvidia_smi_file:  # a saved file is another machine: nothing to compare
        from wizard.cli_history import compare_last

        compared = compare_last(detection, language(), save=True)  # run it before and after an update
        for warning in compared.warnings:
            print(warning, file=sys.stderr)
    if args.json:
        doc = detection_to_json(detection, language(), redactor)
        if compared is not None:
            doc["changes"] = redactor.redact(compared.doc) if redactor else compared.doc
        print(json.dumps(doc, ensure_ascii=False, indent=2))
    else:
        text = format_text(detection, language())
        if compared is not None:
            text += "\n\n" + "\n".join(compared.lines)
        print(redactor.redact_text(text) if redactor else text)
    return EXIT_OK


def _what_if_facts(args: argparse.Namespace):
    """MachineFacts typed on the command line (the teaching / support form)."""
    from wizard.core.recommend.recommender import MachineFacts

    cuda = args.cuda
    if args.driver and not cuda:
        from wizard.core.recommend import compat

        cuda = compat.load().cuda_for_driver(args.driver, "windows" if args.os == "windows" or args.wsl else "linux")
    return MachineFacts(os=args.os or "linux", arch=args.arch or "x86_64", python=args.python or "3.12",
                        driver_version=args.driver, cuda_driver=cuda, gpu_ccs=list(args.gpu_cc), is_wsl=args.wsl,
                        gpu_names=["" for _ in args.gpu_cc])


def cmd_recommend(args: argparse.Namespace) -> int:
    from wizard.core.base.i18n import language
    from wizard.core.recommend.recommender import MachineFacts, Wishes, recommend
    from wizard.core.recommend.text import format_recommendation

    lang = language()
    wishes = Wishes(torch=args.torch, newest=args.newest, cpu_only=args.cpu_only, variant=args.variant,
                    index_url=args.index_url)
    note = None
    try:
        if args.from_doctor:
            from wizard.core.machine.doctor import SchemaError, load_doctor_json
            from wizard.core.machine.doctor_import import detection_from_doctor_json

            try:
                doc = load_doctor_json(_read_input(args.from_doctor))
            except (OSError, SchemaError) as exc:
                return _error(t("recommend.cli.bad_from_doctor", path=args.from_doctor, error=exc))
            detection = detection_from_doctor_json(doc)
            from wizard.core.recommend.choose_python import choose_python

            choice = choose_python(detection, wishes, args.python)
            rec = choice.recommendation
        elif args.os or args.driver or args.gpu_cc:
            rec = recommend(_what_if_facts(args), wishes)
        else:
            from wizard.core.recommend.choose_python import choose_python
            from wizard.core.machine.detect import detect
            from wizard.core.base.host import RealHost

            choice = choose_python(detect(RealHost(), conda=False), wishes, args.python)
            rec = choice.recommendation
            note = (t("recommend.cli.python_chosen", version=choice.version, path=choice.interpreter.path)
                    if choice.interpreter else t("recommend.cli.python_install", version=choice.version))
    except ValueError as exc:
        return _error(t("recommend.cli.bad_input", error=exc))
    index_messages: list[str] = []
    if args.check_index and rec.best is not None:
        from wizard.core.recommend.wheel_index import WheelIndex, target_tags

        f = rec.facts
        check = WheelIndex().check_candidate(rec.best, target_tags(f.python, f.os, f.arch))
        index_messages = check.messages(lang)
    if args.json:
        doc = rec.to_json(lang)
        if index_messages:
            doc["index_check"] = index_messages
        print(json.dumps(doc, ensure_ascii=False, indent=2))
        return EXIT_OK
    text = format_recommendation(rec, lang, python_note=note, show_all=args.all)
    if index_messages:
        text += "\n" + "\n".join(t("recommend.cli.index_check", result=m) for m in index_messages)
    print(text)
    return EXIT_OK


def _progress_printer(progress_text):
    """Progress events to stderr, one line each (stdout stays clean for --json)."""
    from wizard.core.base.i18n import language

    def on_event(event: dict) -> None:
        if event.get("event") == "progress":
            print("… " + progress_text(event, language()), file=sys.stderr, flush=True)

    return on_event


def _target_python(path: str) -> str | None:
    import shutil

    if os.path.isfile(path) or os.path.isfile(path + ".exe"):
        return path
    return shutil.which(path)


def cmd_verify(args: argparse.Namespace) -> int:
    import threading

    from wizard.core.machine.detect import detect
    from wizard.core.base.host import RealHost
    from wizard.core.base.i18n import language
    from wizard.core.verify.checklist import progress_text, run_verify

    python = _target_python(args.python)
    if python is None:
        return _error(t("verify.cli.no_python", path=args.python))
    detection = detect(RealHost(), pythons=False, conda=False)
    cancel = threading.Event()
    try:
        report = run_verify(python, detection, on_event=_progress_printer(progress_text), cancel=cancel)
    except KeyboardInterrupt:
        cancel.set()
        return 130
    lang = language()
    if args.json:
        print(json.dumps(report.to_json(lang), ensure_ascii=False, indent=2))
    else:
        print(report.to_text(lang))
    return EXIT_OK if report.status != "fail" else 1


def cmd_bench(args: argparse.Namespace) -> int:
    import threading

    from wizard.core.verify.benchmark import progress_text, run_bench
    from wizard.core.base.host import RealHost
    from wizard.core.base.i18n import language

    python = _target_python(args.python)
    if python is None:
        return _error(t("verify.cli.no_python", path=args.python))
    sampler = None
    try:
        from wizard.core.machine.nvml import NvmlSampler

        candidate = NvmlSampler(RealHost().nvml())
        sampler = candidate if candidate.open() else None
    except ImportError:
        sampler = None
    cancel = threading.Event()
    try:
        report = run_bench(python, args.suite, nvml_sampler=sampler, on_event=_progress_printer(progress_text),
                           cancel=cancel)
    except KeyboardInterrupt:
        cancel.set()
        return 130
    finally:
        if sampler is not None:
            sampler.close()
    lang = language()
    if args.json:
        print(json.dumps(report.to_json(lang), ensure_ascii=False, indent=2))
    else:
        print(report.to_text(lang))
    return EXIT_OK


def _vram_of_this_machine() -> tuple[int | None, int, str | None]:
    """(total bytes, used bytes, GPU name) of this machine's largest NVIDIA GPU, or (None, 0, None)."""
    from wizard.core.base.host import RealHost
    from wizard.core.machine.nvidia import detect_nvidia
    from wizard.core.vram.estimate import vram_from_gpu

    gpus = [g for g in detect_nvidia(RealHost()).gpus if g.memory_total_mib]
    if not gpus:
        return None, 0, None
    gpu = max(gpus, key=lambda g: g.memory_total_mib or 0)
    total, used = vram_from_gpu(gpu)
    return total, used, gpu.name


def cmd_vram(args: argparse.Namespace) -> int:
    from wizard.core.base.i18n import language
    from wizard.core.vram.estimate import (GIB, VramInputError, catalogue_models, estimate, format_gib, format_params,
                                  parse_param_count)
    from wizard.core.vram.text import format_estimate, format_largest, format_workloads
    from wizard.core.vram.workloads import judge_workloads

    lang = language()
    if args.list_models:
        for spec in catalogue_models():
            print(f"{spec.id:<28} {format_params(spec.params):>8}  {spec.name}")
        return EXIT_OK
    if args.vram_gb is not None:
        try:
            gb = float(args.vram_gb)
        except ValueError:
            gb = -1.0
        if not 1 <= gb <= 4096:
            return _error(t("vram.cli.bad_vram_gb", value=args.vram_gb))
        total, used, gpu_name = int(gb * GIB), 0, None
    else:
        total, used, gpu_name = _vram_of_this_machine()
    try:
        est = None
        if args.model or args.params:
            model = args.model if args.model else parse_param_count(args.params)
            est = estimate(model, mode=args.mode, precision=args.dtype, batch=args.batch,
                           context=args.context, vram_total_bytes=total, vram_used_bytes=used)
        judgments = judge_workloads(total, used)
    except VramInputError as exc:
        return _error(exc.message(lang))
    if args.json:
        if est is not None:
            doc = est.to_json(lang, workloads=judgments)
        else:
            from wizard.core.vram.estimate import SCHEMA, SCHEMA_VERSION, units_explanation, usable_vram_bytes

            doc = {"schema": f"{SCHEMA}@{SCHEMA_VERSION}", "items": None, "total_bytes": None,
                   "usable_bytes": usable_vram_bytes(total, used) if total else None, "fits": None,
                   "vram_total_bytes": total, "vram_used_bytes": used, "units_note": units_explanation(lang),
                   "workloads": [j.to_json(lang) for j in judgments]}
        print(json.dumps(doc, ensure_ascii=False, indent=2))
        return EXIT_OK
    lines: list[str] = []
    if gpu_name:
        lines.append(t("vram.cli.gpu_from_machine", name=gpu_name, total=format_gib(total or 0),
                       used=format_gib(used)))
    elif total:
        lines.append(t("vram.cli.gpu_typed", total=format_gib(total)))
    else:
        lines.append(t("vram.cli.no_gpu"))
    if est is not None:
        lines += [""] + format_estimate(est, lang)
    lines += [""] + format_workloads(judgments, lang)
    if total:
        lines += [""] + format_largest(total, used, lang)
    from wizard.core.vram.estimate import units_explanation

    lines += ["", units_explanation(lang)]
    print("\n".join(lines))
    return EXIT_OK


def run_gui(smoke_test: bool) -> int:
    try:
        from wizard.ui.app import run
    except ImportError as exc:  # Qt missing or its system libraries absent
        return _error(t("cli.error.no_gui", error=exc))
    return run(smoke_test=smoke_test)


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    set_language(_prescan_lang(args_list))
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")
    positional = [a for i, a in enumerate(args_list)
                  if not a.startswith("-") and not (i and args_list[i - 1] == "--lang")]
    wants_commands = bool(positional) or any(a in ("-h", "--help") for a in args_list)
    parser = build_parser(with_commands=wants_commands)
    args = parser.parse_args(args_list)
    if args.lang:
        set_language(args.lang)
    handler = getattr(args, "handler", None)
    if handler is None:
        return run_gui(args.smoke_test)
    return handler(args)


if __name__ == "__main__":
    sys.exit(main())
