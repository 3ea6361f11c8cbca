"""One full detection: system, Python interpreters, conda, NVIDIA — in parallel.

The pieces are independent and each waits mostly on child processes, so they run on
threads; the whole detection takes about as long as its slowest part.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable, Generic, TypeVar

from wizard.core.base.host import Host
from wizard.core.base.interrupt import join, stop_children
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

    # Four plain threads, not a ThreadPoolExecutor: concurrent.futures (and logging under it) was a
    # tenth of what doctor spent importing, for four calls that each run once (issue 17).
    parts: list[_Part[Any]] = [_Part("system", timed("system", detect_system, host, env_dir)),
             _Part("nvidia", timed("nvidia", detect_nvidia, host))]
    if pythons:
        parts.append(_Part("pythons", timed("pythons", find_pythons, host)))
    if conda:
        parts.append(_Part("conda", timed("conda", find_conda, host)))
    found: dict[str, Any] = {"pythons": [], "conda": []}
    try:
        for part in parts:
            part.start()
        for part in parts:
            found[part.part] = part.value()
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt):
            # Waiting for the parts would wait for a hung nvidia-smi's whole timeout: kill the
            # children first, so the threads come back now.
            stop_children()
        for part in parts:  # no part outlives the detection that started it, as a pool's workers did not
            if part.is_alive():
                part.join()
        raise
    detection = Detection(system=found["system"], nvidia=found["nvidia"], pythons=found["pythons"],
                          conda=found["conda"])
    began = time.monotonic()
    detection.findings = detection_findings(detection)
    timings["findings"] = _ms(time.monotonic() - began)
    detection.duration_s = round(time.monotonic() - start, 3)
    timings["total"] = _ms(detection.duration_s)
    detection.timings = timings
    return detection


class _Part(threading.Thread, Generic[T]):
    """One part of the detection on its own thread: what it returned, or what it raised."""

    def __init__(self, part: str, fn: Callable[[], T]) -> None:
        super().__init__(name=f"detect-{part}")
        self.part = part
        self._fn = fn
        self._result: T | None = None
        self._error: BaseException | None = None

    def run(self) -> None:
        try:
            self._result = self._fn()
        except BaseException as exc:  # handed to the waiting thread by value(), as a future would
            self._error = exc

    def value(self) -> T:
        """Wait for the part (in short slices: a Ctrl+C another thread received still wakes us)."""
        join(self)
        if self._error is not None:
            raise self._error
        return self._result  # type: ignore[return-value]


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
