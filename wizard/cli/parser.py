"""The one argparse definition of every ``gpu-setup-wizard`` command and option.

Every help text comes from the catalogue in the language chosen before the parser is built
(:func:`prescan_lang`: ``--lang`` may come after the command, and argparse prints ``--help``
while it parses, too late to choose then). argparse's own headings ("usage:", "options:") and
the ``-h``/``--version`` help are replaced by catalogue text too, so ``--lang ko install --help``
is Korean from top to bottom.

Each command's options are added by one ``add_<command>_parser`` function, which points the
command at its module's ``run`` (``set_defaults(handler=...)``); the command modules import
the core lazily, so building the parser stays cheap.
"""

from __future__ import annotations

import argparse
import functools
import importlib
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence

from wizard import __version__
from wizard.cli.bundle import add_bundle_arguments
from wizard.cli.common import PROG
from wizard.cli.course import add_course_argument
from wizard.core.base.i18n import LANGUAGES, detect_lang, normalise_lang, t

if TYPE_CHECKING:
    # what ``add_subparsers()`` returns: each command's ``add_*_parser`` adds its sub-parser to it
    SubParsers = argparse._SubParsersAction[argparse.ArgumentParser]
    CommandAdder = Callable[[SubParsers, argparse.ArgumentParser, str], argparse.ArgumentParser]


class _CommandModule:
    """``wizard.cli.<name>``, imported when the parser first reaches for its handler: opening the
    window (no command, so no command's parser) then loads no command and none of its engine."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Callable[..., Any]:
        """A handler that imports its module when it is called, not when the parser is built:
        ``doctor`` then loads neither the history store nor any other command's engine."""
        name = self._name

        def handler(*args: Any, **kwargs: Any) -> Any:
            return getattr(importlib.import_module(f"wizard.cli.{name}"), attr)(*args, **kwargs)

        handler.__name__ = handler.__qualname__ = f"{name}.{attr}"
        return handler


bench, doctor, history, install, recommend, report, verify, vram = (
    _CommandModule(name) for name in ("bench", "doctor", "history", "install", "recommend", "report", "verify", "vram"))
kernel = _CommandModule("kernel")
classview = _CommandModule("classview")
storage = _CommandModule("storage")

REPORT_FORMATS = ("md", "html", "pdf", "json")
VRAM_MODES = ("inference", "train", "lora", "qlora")


def prescan_lang(argv: Sequence[str]) -> str:
    """The language of this run, read before argparse builds its (translated) help: the last
    ``--lang`` on the command line (argparse keeps the last one too), else the environment's."""
    found = None
    for i, arg in enumerate(argv):
        if arg == "--lang" and i + 1 < len(argv):
            found = argv[i + 1]
        elif arg.startswith("--lang="):
            found = arg.split("=", 1)[1]
    return normalise_lang(found) if found else detect_lang()


class _Formatter(argparse.HelpFormatter):
    """argparse's formatter with a translated "usage:" prefix."""

    def __init__(self, prog: str, usage_prefix: str = "usage: ", **kwargs: Any) -> None:
        super().__init__(prog, **kwargs)
        self.usage_prefix = usage_prefix

    def add_usage(self, usage: str | None, actions: Iterable[argparse.Action],
                  groups: Iterable[argparse._MutuallyExclusiveGroup], prefix: str | None = None) -> None:
        super().add_usage(usage, actions, groups, prefix if prefix is not None else self.usage_prefix)


def _new(factory: Callable[..., argparse.ArgumentParser], lang: str, **kwargs: Any) -> argparse.ArgumentParser:
    """A parser (or sub-parser, from ``factory``) whose own texts are in ``lang``; its ``-h``
    comes from the ``common_parent`` every parser is given."""
    formatter = functools.partial(_Formatter, usage_prefix=t("cli.argparse.usage", lang) + " ")
    parser = factory(add_help=False, formatter_class=formatter, **kwargs)
    parser._positionals.title = t("cli.argparse.positionals", lang)
    parser._optionals.title = t("cli.argparse.options", lang)
    return parser


def common_parent(lang: str) -> argparse.ArgumentParser:
    """The options every parser takes (``-h`` in ``lang``, ``--lang``): a parent of each one."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("-h", "--help", action="help", default=argparse.SUPPRESS, help=t("cli.help.help", lang))
    common.add_argument("--lang", choices=LANGUAGES, help=t("cli.lang.help", lang))
    return common


def _command(sub: SubParsers, name: str, common: argparse.ArgumentParser, lang: str, help_key: str,
             description_key: str | None = None) -> argparse.ArgumentParser:
    return _new(sub.add_parser, lang, name=name, parents=[common], help=t(help_key, lang),
                description=t(description_key or help_key, lang))


def build_parser(lang: str = "en", with_commands: bool = True, only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser, its help in ``lang``. Without ``with_commands`` it knows only the
    window's own options, so opening the wizard builds no command's options (start-up time).

    ``only`` (a command's name, see :func:`command_named`) builds that one command's options
    and no other's: what ``doctor --json`` parses is the same, and building the other eleven
    commands' ~100 translated options cost more than the detection itself (issue 17). An unknown
    name, ``--help`` and a bare ``--version`` still get the whole parser, which lists them all."""
    common = common_parent(lang)
    parser = _new(argparse.ArgumentParser, lang, prog=PROG, description=t("cli.description", lang),
                  parents=[common])
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}",
                        help=t("cli.version.help", lang))
    parser.add_argument("--smoke-test", action="store_true", help=t("cli.smoke.help", lang))
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", title=t("cli.argparse.commands", lang))
    if not with_commands:
        return parser
    adders = _command_adders()
    for add in ([adders[only]] if only in adders else adders.values()):
        add(sub, common, lang)
    return parser


def _command_adders() -> dict[str, CommandAdder]:
    """Each command's name and the function that adds its sub-parser, in the help's order."""
    return {"doctor": add_doctor_parser, "recommend": add_recommend_parser, "verify": add_verify_parser,
            "bench": add_bench_parser, "vram": add_vram_parser, "install": add_install_parser,
            "report": add_report_parser, "colab-cell": add_colab_cell_parser, "history": add_history_parser,
            "kernel": add_kernel_parser, "class": add_class_parser, "storage": add_storage_parser}


def command_named(argv: Sequence[str]) -> str | None:
    """The command this command line runs, when that alone decides how it is parsed: the first
    word that is not an option (nor ``--lang``'s value), if it names a command and no ``-h``
    comes before it (top-level help lists every command). None otherwise."""
    for i, arg in enumerate(argv):
        if arg in ("-h", "--help"):
            return None
        if arg.startswith("-") or (i and argv[i - 1] == "--lang"):
            continue
        return arg if arg in _command_adders() else None
    return None


def add_doctor_parser(sub: SubParsers, common: argparse.ArgumentParser, lang: str = "en") -> argparse.ArgumentParser:
    p = _command(sub, "doctor", common, lang, "cli.doctor.help")
    p.add_argument("--json", action="store_true", help=t("cli.json.help", lang))
    p.add_argument("--nvidia-smi-file", metavar="FILE", help=t("cli.smi_file.help", lang))
    p.add_argument("--include-private", action="store_true", help=t("cli.private.help", lang))
    p.add_argument("--explain", metavar="FILE", help=t("diagnosis.explain.cli.help", lang))
    p.add_argument("--python", metavar="ENV", help=t("diagnosis.explain.cli.python.help", lang))
    p.add_argument("--compare-last", action="store_true", help=t("history.compare.cli.help", lang))
    p.set_defaults(handler=doctor.run)
    return p


def add_recommend_parser(sub: SubParsers, common: argparse.ArgumentParser, lang: str = "en") -> argparse.ArgumentParser:
    p = _command(sub, "recommend", common, lang, "recommend.cli.help")
    h = {name: t(f"recommend.cli.{name}.help", lang) for name in (
        "from_doctor", "os", "arch", "python", "driver", "cuda", "gpu_cc", "wsl", "torch", "variant", "cpu_only",
        "newest", "index_url", "check_index", "all")}
    p.add_argument("--json", action="store_true", help=t("cli.json.help", lang))
    p.add_argument("--from-doctor", metavar="FILE", help=h["from_doctor"])
    p.add_argument("--os", choices=("windows", "linux", "macos"), help=h["os"])
    p.add_argument("--arch", help=h["arch"])
    p.add_argument("--python", metavar="X.Y", help=h["python"])
    p.add_argument("--driver", metavar="VERSION", help=h["driver"])
    p.add_argument("--cuda", metavar="X.Y", help=h["cuda"])
    p.add_argument("--gpu-cc", metavar="X.Y", action="append", default=[], help=h["gpu_cc"])
    p.add_argument("--gpu", metavar="NAME", help=t("recommend.cli.gpu.help", lang))
    p.add_argument("--no-update-check", action="store_true", help=t("recommend.cli.no_update_check.help", lang))
    p.add_argument("--wsl", action="store_true", help=h["wsl"])
    p.add_argument("--torch", metavar="VERSION", help=h["torch"])
    p.add_argument("--variant", help=h["variant"])
    p.add_argument("--cpu-only", action="store_true", help=h["cpu_only"])
    p.add_argument("--newest", action="store_true", help=h["newest"])
    p.add_argument("--index-url", metavar="URL", help=h["index_url"])
    p.add_argument("--check-index", action="store_true", help=h["check_index"])
    p.add_argument("--all", action="store_true", help=h["all"])
    add_course_argument(p, lang)
    p.set_defaults(handler=recommend.run)
    return p


def add_verify_parser(sub: SubParsers, common: argparse.ArgumentParser, lang: str = "en") -> argparse.ArgumentParser:
    p = _command(sub, "verify", common, lang, "verify.cli.help")
    p.add_argument("--python", metavar="EXE", required=True, help=t("verify.cli.python.help", lang))
    p.add_argument("--json", action="store_true", help=t("cli.json.help", lang))
    add_course_argument(p, lang)
    p.set_defaults(handler=verify.run)
    return p


def add_bench_parser(sub: SubParsers, common: argparse.ArgumentParser, lang: str = "en") -> argparse.ArgumentParser:
    p = _command(sub, "bench", common, lang, "bench.cli.help")
    p.add_argument("--python", metavar="EXE", required=True, help=t("verify.cli.python.help", lang))
    suite = p.add_mutually_exclusive_group()
    suite.add_argument("--quick", dest="suite", action="store_const", const="quick",
                       help=t("bench.cli.quick.help", lang))
    suite.add_argument("--full", dest="suite", action="store_const", const="full", help=t("bench.cli.full.help", lang))
    p.add_argument("--json", action="store_true", help=t("cli.json.help", lang))
    p.set_defaults(handler=bench.run, suite="quick")
    return p


def add_vram_parser(sub: SubParsers, common: argparse.ArgumentParser, lang: str = "en") -> argparse.ArgumentParser:
    p = _command(sub, "vram", common, lang, "vram.cli.help")
    p.add_argument("--vram-gb", metavar="N", help=t("vram.cli.vram_gb.help", lang))
    which = p.add_mutually_exclusive_group()
    which.add_argument("--model", metavar="NAME", help=t("vram.cli.model.help", lang))
    which.add_argument("--params", metavar="SIZE", help=t("vram.cli.params.help", lang))
    which.add_argument("--list-models", action="store_true", help=t("vram.cli.list.help", lang))
    which.add_argument("--measure", metavar="SPEC", help=t("vram.cli.measure.help", lang))
    which.add_argument("--course", metavar="FILE|URL", help=t("vram.cli.course.help", lang))
    p.add_argument("--python", metavar="EXE", help=t("vram.cli.python.help", lang))
    # defaults by what is asked: an estimate is inference in fp16, a measurement training in fp32
    p.add_argument("--dtype", default=None, help=t("vram.cli.dtype.help", lang))
    p.add_argument("--mode", default=None, choices=VRAM_MODES, help=t("vram.cli.mode.help", lang))
    p.add_argument("--batch", type=int, default=1, help=t("vram.cli.batch.help", lang))
    p.add_argument("--context", type=int, help=t("vram.cli.context.help", lang))
    p.add_argument("--optimizer", default=None, choices=("adamw", "sgd"), help=t("vram.cli.optimizer.help", lang))
    p.add_argument("--input", metavar="SHAPE", help=t("vram.cli.input.help", lang))
    p.add_argument("--json", action="store_true", help=t("cli.json.help", lang))
    p.set_defaults(handler=vram.run)
    return p


def add_install_parser(sub: SubParsers, common: argparse.ArgumentParser, lang: str = "en") -> argparse.ArgumentParser:
    p = _command(sub, "install", common, lang, "install.cli.help", "install.cli.description")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--venv", metavar="PATH", help=t("install.cli.venv.help", lang))
    where.add_argument("--conda-env", metavar="NAME", help=t("install.cli.conda.help", lang))
    p.add_argument("--python", metavar="EXE|X.Y", help=t("install.cli.python.help", lang))
    p.add_argument("--variant", help=t("install.cli.variant.help", lang))
    p.add_argument("--torch", metavar="2.x", help=t("install.cli.torch.help", lang))
    p.add_argument("--index-url", metavar="URL", help=t("install.cli.index.help", lang))
    p.add_argument("--plan-only", action="store_true", help=t("install.cli.plan_only.help", lang))
    p.add_argument("--yes", action="store_true", help=t("install.cli.yes.help", lang))
    p.add_argument("--json", action="store_true", help=t("install.cli.json.help", lang))
    p.add_argument("--installer", choices=("auto", "pip", "uv"), default="auto", help=t("install.cli.installer.help", lang))
    p.add_argument("--cache-dir", metavar="DIR", help=t("install.cli.cache.help", lang))
    p.add_argument("--parallel", type=int, default=3, metavar="N", help=t("install.cli.parallel.help", lang))
    p.add_argument("--python-mirror", metavar="URL", help=t("install.cli.python_mirror.help", lang))
    p.add_argument("--extras-index", metavar="URL", help=t("install.cli.extras_index.help", lang))
    add_course_argument(p, lang)
    add_bundle_arguments(p, lang)
    what = p.add_mutually_exclusive_group()
    what.add_argument("--remove", action="store_true", help=t("install.cli.remove.help", lang))
    what.add_argument("--restore", action="store_true", help=t("install.cli.restore.help", lang))
    p.set_defaults(handler=install.run)
    return p


def add_report_parser(sub: SubParsers, common: argparse.ArgumentParser, lang: str = "en") -> argparse.ArgumentParser:
    p = _command(sub, "report", common, lang, "report.cli.help", "report.cli.description")
    p.add_argument("--format", choices=REPORT_FORMATS, help=t("report.cli.format.help", lang))
    p.add_argument("--json", action="store_true", help=t("report.cli.json.help", lang))
    p.add_argument("-o", "--output", metavar="FILE", help=t("report.cli.output.help", lang))
    p.add_argument("--include", choices=("private",), action="append", default=[],
                   help=t("report.cli.include.help", lang))
    p.add_argument("--include-private", dest="include", action="append_const", const="private",
                   help=argparse.SUPPRESS)  # the spelling ``doctor`` uses
    p.add_argument("--add-remote", metavar="[colab:|cloud:]FILE", action="append", default=[],
                   help=t("report.cli.add_remote.help", lang))
    p.add_argument("--kernel", metavar="NAME", help=t("report.kernel.cli.help", lang))
    add_course_argument(p, lang)
    p.set_defaults(handler=report.run)
    return p


def add_colab_cell_parser(sub: SubParsers, common: argparse.ArgumentParser, lang: str = "en") -> argparse.ArgumentParser:
    """``colab-cell [--ssh] [--no-bench] [-o FILE]``: the Colab cell / SSH script whose result
    ``report --add-remote`` reads."""
    p = _command(sub, "colab-cell", common, lang, "colab.cli.help", "colab.cli.description")
    p.add_argument("--ssh", action="store_true", help=t("colab.cli.ssh.help", lang))
    p.add_argument("--no-bench", action="store_true", help=t("colab.cli.no_bench.help", lang))
    p.add_argument("-o", "--output", metavar="FILE", help=t("colab.cli.output.help", lang))
    p.set_defaults(handler=report.run_colab_cell)
    return p


def add_history_parser(sub: SubParsers, common: argparse.ArgumentParser, lang: str = "en") -> argparse.ArgumentParser:
    """``history`` with ``list``, ``show [N]`` and ``diff [A [B]]``; bare ``history`` lists."""
    p = _command(sub, "history", common, lang, "history.cli.help")
    p.add_argument("--dir", metavar="DIR", help=t("history.cli.dir.help", lang))
    p.add_argument("--json", action="store_true", help=t("cli.json.help", lang))
    p.set_defaults(handler=history.run_list)
    inner = p.add_subparsers(dest="history_command", metavar="list|show|diff",
                             title=t("cli.argparse.commands", lang))
    for name, handler, help_key in (("list", history.run_list, "history.cli.list.help"),
                                    ("show", history.run_show, "history.cli.show.help"),
                                    ("diff", history.run_diff, "history.cli.diff.help")):
        c = _command(inner, name, common, lang, help_key)
        c.add_argument("--dir", metavar="DIR", default=argparse.SUPPRESS, help=t("history.cli.dir.help", lang))
        c.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help=t("cli.json.help", lang))
        if name == "show":
            c.add_argument("number", nargs="?", type=int, default=-1, metavar="N",
                           help=t("history.cli.number.help", lang))
        if name == "diff":
            c.add_argument("numbers", nargs="*", type=int, metavar="A B", help=t("history.cli.numbers.help", lang))
        c.set_defaults(handler=handler)
    return p


def add_kernel_parser(sub: SubParsers, common: argparse.ArgumentParser, lang: str = "en") -> argparse.ArgumentParser:
    """``kernel install --python EXE [--name N] [--yes]``, ``kernel list``, ``kernel verify NAME``."""
    p = _command(sub, "kernel", common, lang, "kernels.cli.help")
    p.add_argument("--json", action="store_true", help=t("cli.json.help", lang))
    p.set_defaults(handler=kernel.run_list)
    inner = p.add_subparsers(dest="kernel_command", metavar="install|list|verify",
                             title=t("cli.argparse.commands", lang))
    c = _command(inner, "install", common, lang, "kernels.cli.install.help")
    c.add_argument("--python", metavar="EXE", required=True, help=t("kernels.cli.python.help", lang))
    c.add_argument("--name", metavar="N", help=t("kernels.cli.name.help", lang))
    c.add_argument("--yes", action="store_true", help=t("kernels.cli.yes.help", lang))
    c.add_argument("--replace", action="store_true", help=t("kernels.cli.replace.help", lang))
    c.add_argument("--index-url", metavar="URL", help=t("kernels.cli.index_url.help", lang))
    c.add_argument("--vscode", metavar="PROJECT_DIR", help=t("kernels.cli.vscode.help", lang))
    c.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help=t("cli.json.help", lang))
    c.set_defaults(handler=kernel.run_install)
    c = _command(inner, "list", common, lang, "kernels.cli.list.help")
    c.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help=t("cli.json.help", lang))
    c.set_defaults(handler=kernel.run_list)
    c = _command(inner, "verify", common, lang, "kernels.cli.verify.help")
    c.add_argument("name", metavar="NAME", help=t("kernels.cli.kernel_name.help", lang))
    c.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help=t("cli.json.help", lang))
    c.set_defaults(handler=kernel.run_verify)
    return p


def add_class_parser(sub: SubParsers, common: argparse.ArgumentParser, lang: str = "en") -> argparse.ArgumentParser:
    """``class FILES_OR_DIRS... -o OUT.html|OUT.csv``: the class view (wizard.cli.classview)."""
    p = _command(sub, "class", common, lang, "class_view.cli.help")
    p.add_argument("inputs", nargs="+", metavar="FILES_OR_DIRS", help=t("class_view.cli.inputs.help", lang))
    p.add_argument("-o", "--output", metavar="OUT", required=True, help=t("class_view.cli.output.help", lang))
    p.set_defaults(handler=classview.run)
    return p


def add_storage_parser(sub: SubParsers, common: argparse.ArgumentParser, lang: str = "en") -> argparse.ArgumentParser:
    """``storage [--json] [--clean] [--dry-run] [--env PATH]... [--wizard-envs] [--yes]`` (wizard.cli.storage)."""
    p = _command(sub, "storage", common, lang, "storage.cli.help")
    p.add_argument("--json", action="store_true", help=t("cli.json.help", lang))
    p.add_argument("--clean", action="store_true", help=t("storage.cli.clean.help", lang))
    p.add_argument("--dry-run", action="store_true", help=t("storage.cli.dry_run.help", lang))
    p.add_argument("--env", action="append", metavar="PATH", help=t("storage.cli.env.help", lang))
    p.add_argument("--wizard-envs", action="store_true", help=t("storage.cli.wizard_envs.help", lang))
    p.add_argument("--yes", action="store_true", help=t("storage.cli.yes.help", lang))
    p.set_defaults(handler=storage.run)
    return p


__all__ = ["prescan_lang", "build_parser", "common_parent", "add_doctor_parser", "add_recommend_parser",
           "add_verify_parser", "add_bench_parser", "add_vram_parser", "add_install_parser", "add_report_parser",
           "add_colab_cell_parser",
           "add_history_parser", "add_kernel_parser", "add_class_parser", "add_storage_parser",
           "REPORT_FORMATS"]
