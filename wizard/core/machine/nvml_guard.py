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
Where no NVML library exists for the loader to find (:func:`library_may_load`: a machine without an
NVIDIA driver), nothing could crash, and NVML is asked in-process without the child's start-up cost.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
from typing import Any, Callable

from wizard.core.machine.models import STATUS_ERROR, STATUS_NO_DRIVER, STATUS_TIMEOUT, SourceResult

CRASH_DETAIL = "nvml-crashed"
LIBRARY_NOT_FOUND = "NVMLError_LibraryNotFound: NVML Shared Library Not Found"  # nvidia-ml-py's own words
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
    """NVML through ``host``'s bindings, here (what the child does, and what runs after a good check);
    an import failure of the bindings is "no driver" only in effect."""
    from wizard.core.machine import nvml
    from wizard.core.machine.nvml_calls import check_bindings

    try:
        module = host.nvml()
    except ImportError as exc:
        return SourceResult("nvml", STATUS_ERROR, raw_error=f"ImportError: {exc}", detail="bindings-missing")
    result = nvml.query_nvml(module)
    wrong = check_bindings(module)
    if wrong:  # a shadowing 'pynvml' package may still half-work: say so either way
        result.detail = "pynvml-conflict"
        result.raw_error = f"{result.raw_error}; {wrong}" if result.raw_error else wrong
    return result


def run_with_timeout(fn: Callable[[], SourceResult], timeout_s: float, source: str) -> SourceResult:
    """Call ``fn`` on a daemon thread; a hang becomes a STATUS_TIMEOUT result, not a frozen app."""
    from wizard.core.base import interrupt

    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["result"] = fn()
        except Exception as exc:  # noqa: BLE001 - reported as a finding, with its text
            box["error"] = exc

    thread = threading.Thread(target=target, name=f"detect-{source}", daemon=True)
    thread.start()
    interrupt.join(thread, timeout_s)  # in slices: a Ctrl+C on the main thread is seen at once
    if thread.is_alive():
        return SourceResult(source, STATUS_TIMEOUT, raw_error=f"{source} did not answer within {timeout_s:.0f} s")
    if "error" in box:
        exc = box["error"]
        return SourceResult(source, STATUS_ERROR, raw_error=f"{type(exc).__name__}: {exc}")
    return box["result"]


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

    # The child imports this package from where this process did, whatever its working folder
    # (this file is <root>/wizard/core/machine/nvml_guard.py).
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p)
    spec = ProcessSpec([sys.executable, "-m", CHILD_MODULE], child_env(extra={"PYTHONPATH": path}), None, timeout_s)
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


_LINUX_LIB = "libnvidia-ml.so.1"
_LINUX_DIRS = ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", "/lib64", "/lib",
               "/usr/lib/wsl/lib", "/usr/local/nvidia/lib64", "/usr/local/lib")


def library_may_load() -> bool:
    """Could the bindings' loader find an NVML library at all? False only when it surely cannot
    (then nothing of the driver would run in-process, and the child check is skipped): on Linux no
    ``libnvidia-ml.so.1`` on LD_LIBRARY_PATH, in the loader's cache or in the usual folders; on
    Windows no ``nvml.dll`` where nvidia-ml-py looks (System32, then NVSMI)."""
    if sys.platform == "win32":
        windir = os.environ.get("WINDIR", "C:/Windows")
        program_files = os.environ.get("ProgramFiles", "C:/Program Files")
        return any(os.path.exists(p) for p in (os.path.join(windir, "System32", "nvml.dll"),
                                                os.path.join(program_files, "NVIDIA Corporation", "NVSMI", "nvml.dll")))
    if not sys.platform.startswith("linux"):
        return True  # the loader's rules are not modelled here: ask the child
    dirs = [d for d in os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep) if d] + list(_LINUX_DIRS)
    if any(os.path.exists(os.path.join(d, _LINUX_LIB)) for d in dirs):
        return True
    try:
        with open("/etc/ld.so.cache", "rb") as fh:  # every library ldconfig knows, names as plain bytes
            return _LINUX_LIB.encode() in fh.read(16 * 1024 * 1024)
    except OSError:
        return True  # cannot tell: ask the child


def query(host: Any, timeout_s: float) -> SourceResult:
    """NVML for detection: the first time in a run through the child, afterwards in-process (on a
    daemon thread with ``timeout_s``), or the recorded crash without touching NVML again."""
    if uses_real_bindings(host):
        if not library_may_load():
            # What nvmlInit says when the loader finds no library, without importing the bindings
            # (a 5,000-line module) to hear it: most of the NVML part of a detection without a driver.
            return SourceResult("nvml", STATUS_NO_DRIVER, raw_error=LIBRARY_NOT_FOUND)
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
    if module is not sys.modules.get("pynvml") or getattr(sys, "frozen", False) or not library_may_load():
        return None  # a fake or a stand-in (nothing the child could check for it), or no library to crash
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
           "query", "query_in_process", "refusal_text", "reset_for_tests", "run_with_timeout", "uses_real_bindings"]
