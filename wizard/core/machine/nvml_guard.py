"""The first NVML query of a run happens in a child process; NVML is loaded in-process only after it.

Why: a segfault inside libnvidia-ml (a broken or mixed driver install) used to kill the wizard with
rc 139 and no word of explanation (issue 15 item 10). Now the first query of a run is
:mod:`wizard.core.machine.nvml_child`, started through the one process runner. Its outcome decides
for the rest of the run:

* it answered (GPUs, no devices, or NVML's own error such as "driver not loaded"): NVML is safe to
  load here, and the GPU page's live sampler and later detections use it in-process;
* it died by a signal (SIGSEGV, SIGABRT; an access violation on Windows): the result says the NVML
  library crashed (detail :data:`CRASH_DETAIL`, shown as the ``nvml-crashed`` finding with a fix),
  detection goes on with nvidia-smi, and NVML is never loaded in this process afterwards;
* it hung past the timeout: the same refusal, as a timeout (a hung call would hang a worker here too).

Only the real door to NVML goes through the child: a host whose ``nvml()`` is not
:meth:`RealHost.nvml <wizard.core.base.host.RealHost.nvml>` (the tests' fakes) is asked in-process,
as the child could not stand in for it. A frozen bundle has no ``-m``: it asks in-process, as before.
"""

from __future__ import annotations

import json
import signal
import sys
import threading
from typing import Any

from wizard.core.machine.models import STATUS_ERROR, STATUS_TIMEOUT, SourceResult

CRASH_DETAIL = "nvml-crashed"
CHILD_MODULE = "wizard.core.machine.nvml_child"
# Windows reports a crash as an NTSTATUS exit code (0xC0000005 access violation and kin).
_WINDOWS_CRASH_MIN = 0xC0000000

_lock = threading.Lock()
_verdict: SourceResult | None = None  # the child's answer; None until it has run
_refused: SourceResult | None = None  # set when the child crashed or hung: NVML stays out of this process


def in_process_refused() -> SourceResult | None:
    """The child's crash or hang, when NVML must not be loaded in this process; else None."""
    return _refused


def refusal_text() -> str | None:
    """Why NVML is not loaded in-process (for a sampler's error line), or None."""
    return _refused.raw_error if _refused is not None else None


def query_in_process(host: Any) -> SourceResult:
    """NVML through ``host``'s bindings, here (what the child does, and what runs after a good check)."""
    from wizard.core.machine.nvidia import query_nvml_via_host

    return query_nvml_via_host(host)


def uses_real_bindings(host: Any) -> bool:
    """True when ``host`` reaches NVML through the real bindings, which the child can stand in for."""
    from wizard.core.base.host import RealHost

    return getattr(type(host), "nvml", None) is RealHost.nvml and not getattr(sys, "frozen", False)


def crash_signal(returncode: int | None) -> str | None:
    """The name of the signal (or Windows status) a child died of, or None if it exited normally."""
    if returncode is None:
        return None
    if returncode < 0:
        try:
            return signal.Signals(-returncode).name
        except ValueError:
            return f"signal {-returncode}"
    if returncode in (128 + 11, 128 + 6, 128 + 7):  # a shell's way of saying SIGSEGV, SIGABRT, SIGBUS
        return signal.Signals(returncode - 128).name
    if returncode >= _WINDOWS_CRASH_MIN:
        return f"0x{returncode:08X}"
    return None


def check_in_child(timeout_s: float) -> SourceResult:
    """Run the NVML query in a child and record the verdict for this run (see the module docstring)."""
    global _verdict, _refused
    from wizard.core.base.process import ProcessSpec, child_env, run_process
    from wizard.core.base.typed import DocumentTypeError, build

    spec = ProcessSpec([sys.executable, "-m", CHILD_MODULE], child_env(), None, timeout_s)
    run = run_process(spec)
    crashed = crash_signal(run.returncode)
    if crashed is not None:
        result = SourceResult("nvml", STATUS_ERROR, detail=CRASH_DETAIL,
                              raw_error=f"the NVIDIA driver's NVML library crashed the process that loaded it "
                                        f"({crashed}, exit status {run.returncode})")
        refused = result
    elif run.timed_out:
        result = SourceResult("nvml", STATUS_TIMEOUT, raw_error=f"nvml did not answer within {timeout_s:.0f} s")
        refused = result
    elif run.cancelled:
        return SourceResult("nvml", STATUS_ERROR, raw_error="stopped")  # Ctrl+C: nothing learnt, nothing recorded
    else:
        refused = None
        line = next((ln for ln in reversed(run.stdout.splitlines()) if ln.startswith("{")), "")
        try:
            result = build(SourceResult, json.loads(line), "nvml")
        except (ValueError, DocumentTypeError):
            tail = (run.stderr or run.stdout or run.error or "").strip()[-500:]
            result = SourceResult("nvml", STATUS_ERROR,
                                  raw_error=f"the NVML check exited with status {run.returncode}: {tail or 'no output'}")
    with _lock:
        _verdict, _refused = result, refused
    return result


def query(host: Any, timeout_s: float) -> SourceResult:
    """NVML for detection: the first time in a run through the child, afterwards in-process (on a
    daemon thread with ``timeout_s``), or the recorded crash without touching NVML again."""
    from wizard.core.machine.nvidia import run_with_timeout

    if uses_real_bindings(host):
        with _lock:
            first = _verdict is None
        if first:
            return check_in_child(timeout_s)
        if _refused is not None:
            return _refused
    return run_with_timeout(lambda: query_in_process(host), timeout_s, "nvml")


def ensure_checked(module: Any, timeout_s: float = 15.0) -> str | None:
    """Before a sampler loads the real bindings in this process: run the child check if none ran yet.
    Returns why NVML must stay out of this process, or None when it may be loaded."""
    if module is not sys.modules.get("pynvml") or getattr(sys, "frozen", False):
        return None  # a fake or a stand-in: nothing the child could check for it
    with _lock:
        first = _verdict is None
    if first:
        check_in_child(timeout_s)
    return refusal_text()


def reset_for_tests() -> None:
    """Forget the verdict (a test that runs several checks in one process)."""
    global _verdict, _refused
    with _lock:
        _verdict = _refused = None


__all__ = ["CRASH_DETAIL", "CHILD_MODULE", "check_in_child", "crash_signal", "ensure_checked", "in_process_refused",
           "query", "query_in_process", "refusal_text", "reset_for_tests", "uses_real_bindings"]
