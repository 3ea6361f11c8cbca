"""``report --kernel NAME``: the checklist run inside a Jupyter kernel first, for the report.

Why it runs the verification instead of reading a saved one: a saved result may be from an
environment that has changed since; running it now is what ``kernel verify NAME`` does, so the
report's "Jupyter kernel" section proves what the notebook sees today.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from wizard.cli.common import error, progress_printer, say
from wizard.cli.exit_status import ExitStatus
from wizard.core.base.i18n import t

if TYPE_CHECKING:
    from wizard.app.session import Session


def verify_kernel_into(session: Session, name: str, lang: str) -> int | None:
    """Verify inside kernel ``name`` and keep the result in ``session``; an exit status when it
    cannot run (jupyter_client missing, no such kernel, its interpreter gone, Ctrl+C), else None."""
    from wizard.app import kernels as app_kernels
    from wizard.app.verify import progress_text

    missing = app_kernels.jupyter_client_missing()
    if missing is not None:
        return error(t("kernels.panel.no_jupyter_client", lang, error=missing), ExitStatus.FAILED)
    info = app_kernels.find_kernel(session, name)
    if info is None:
        return error(t("report.kernel.cli.unknown", lang, name=name))
    if info.interpreter is None:
        flag = next(f for f in info.flags if f.id == "interpreter_missing")
        return error(app_kernels.flag_text(flag, lang) + "\n" + app_kernels.flag_fix(flag, lang), ExitStatus.FAILED)
    say(t("report.kernel.cli.verifying", lang, name=info.display_name or info.name))
    cancel = threading.Event()
    try:
        report = app_kernels.verify_in_kernel(session, info.name, on_event=progress_printer(progress_text, lang),
                                              cancel=cancel, interpreter=info.interpreter)
    except KeyboardInterrupt:
        cancel.set()
        return ExitStatus.CANCELLED
    app_kernels.remember_verify(session, info.display_name or info.name, report)
    return None


__all__ = ["verify_kernel_into"]
