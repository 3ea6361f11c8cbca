"""``gpu-setup-wizard bench --python EXE [--quick|--full]``: CPU versus GPU speed in that environment.

NVML samples the GPU during the run when it is available. Exit statuses: SUCCESS; BAD_INPUT
for an interpreter that is not there; CANCELLED on Ctrl+C.
"""

from __future__ import annotations

import argparse

from wizard.cli.common import error, lang_of, run_probe_command, target_python
from wizard.cli.exit_status import ExitStatus
from wizard.core.base.i18n import t


def run(args: argparse.Namespace) -> int:
    lang = lang_of(args)
    python = target_python(args.python)
    if python is None:
        return error(t("verify.cli.no_python", lang, path=args.python))
    return bench_and_print(python, args.suite, args.json, lang)


def bench_and_print(python: str, suite: str, as_json: bool, lang: str) -> int:
    """The command's body: run the benchmark probe (NVML sampled), print its report -- the app
    layer's use case, as the Benchmark page's."""
    from wizard.app import bench as app_bench
    from wizard.app.bench import progress_text
    from wizard.app.session import Session
    from wizard.cli.environment import current_host

    session = Session(host=current_host(), lang=lang)
    report = run_probe_command(lambda on_event, cancel: app_bench.run_bench(session, python, suite, on_event=on_event,
                                                                            cancel=cancel),
                               progress_text, as_json, lang)
    return ExitStatus.CANCELLED if report is None else ExitStatus.SUCCESS


__all__ = ["run", "bench_and_print"]
