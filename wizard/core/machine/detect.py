"""One full detection: system, Python interpreters, conda, NVIDIA — in parallel.

The pieces are independent and each waits mostly on child processes, so they run on
threads; the whole detection takes about as long as its slowest part.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, TypeVar

from wizard.core.base.host import Host
from wizard.core.base.interrupt import stop_children, wait_result
from wizard.core.machine.findings import detection_findings
from wizard.core.machine.models import STATUS_UNRECOGNISED, Detection, NvidiaInfo, SourceResult, SystemInfo

T = TypeVar("T")


def detect(host: Host, env_dir: str | None = None, *, pythons: bool = True, conda: bool = True) -> Detection:
    """Detect everything the first two pages show, and the findings."""
    from wizard.core.machine.conda import find_conda
    from wizard.core.machine.nvidia import detect_nvidia
    from wizard.core.machine.pythons import find_pythons
    from wizard.core.machine.system import detect_system

    start = time.monotonic()
    timings: dict[str, int] = {}

    def timed(part: str, fn: Callable[..., T], *args: Any) -> Callable[[], T]:
        def run() -> T:
            began = time.monotonic()
            try:
                return fn(*args)
            finally:
                timings[part] = _ms(time.monotonic() - began)
        return run

    with ThreadPoolExecutor(max_workers=4, thread_name_prefix="detect") as pool:
        try:
            f_system = pool.submit(timed("system", detect_system, host, env_dir))
            f_nvidia = pool.submit(timed("nvidia", detect_nvidia, host))
            f_pythons = pool.submit(timed("pythons", find_pythons, host)) if pythons else None
            f_conda = pool.submit(timed("conda", find_conda, host)) if conda else None
            # wait_result, not .result(): a Ctrl+C the kernel gave to a worker thread must still wake us
            detection = Detection(
                system=wait_result(f_system),
                nvidia=wait_result(f_nvidia),
                pythons=wait_result(f_pythons) if f_pythons else [],
                conda=wait_result(f_conda) if f_conda else [],
            )
        except KeyboardInterrupt:
            # Leaving the ``with`` waits for the workers, and a hung nvidia-smi would hold them
            # for its whole timeout: kill the children first, so the workers come back now.
            stop_children()
            raise
    began = time.monotonic()
    detection.findings = detection_findings(detection)
    timings["findings"] = _ms(time.monotonic() - began)
    detection.duration_s = round(time.monotonic() - start, 3)
    timings["total"] = _ms(detection.duration_s)
    detection.timings = timings
    return detection


def _ms(seconds: float) -> int:
    return int(round(seconds * 1000))


def detection_from_smi_text(text: str) -> Detection:
    """A detection built from a saved nvidia-smi output (any of the four formats).

    The file comes from another machine (Colab, a lab server), so nothing about THIS machine
    is mixed in: the system part stays unknown. Raises :class:`UnreadableInput` when the text
    is not nvidia-smi output at all.
    """
    from wizard.core.machine import nvidia_smi
    from wizard.core.machine.nvidia import merge

    result: SourceResult = nvidia_smi.parse_any(text)
    if result.status == STATUS_UNRECOGNISED:
        raise UnreadableInput(result.detail or "unrecognised")
    info: NvidiaInfo = merge(None, result)
    info.raw_smi_output = text
    detection = Detection(system=SystemInfo(os="unknown"), nvidia=info)
    detection.findings = detection_findings(detection)
    return detection


class UnreadableInput(ValueError):
    """Input that is not any nvidia-smi format we know; the message says why."""
