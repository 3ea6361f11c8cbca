"""Detect use case: what this machine has, recorded in the session once for both faces.

Computing and recording are apart: :func:`compute` is safe on a worker thread (the window runs it
on its pool), :func:`record` writes the session (the window calls it on the GUI thread when the
worker is done); :func:`detect_machine` does both, for the command line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wizard.app.session import Session
from wizard.core.base.lazy import lazy_exports

if TYPE_CHECKING:  # value types and formatters the faces use; loaded on first use, not at start-up
    from wizard.core.base.host import Host
    from wizard.core.base.privacy import Redactor
    from wizard.core.machine.detect import UnreadableInput as UnreadableInput
    from wizard.core.machine.doctor import detection_to_json as detection_to_json
    from wizard.core.machine.doctor import format_text as format_text
    from wizard.core.machine.models import STATUS_OK as STATUS_OK
    from wizard.core.machine.models import Detection as Detection
    from wizard.core.machine.models import Finding as Finding
    from wizard.core.machine.models import GpuInfo as GpuInfo
    from wizard.core.machine.models import SourceResult as SourceResult
    from wizard.core.machine.nvml_sampler import NvmlSampler as NvmlSampler

__getattr__ = lazy_exports(__name__, {
    "UnreadableInput": "wizard.core.machine.detect",
    "detection_to_json": "wizard.core.machine.doctor", "format_text": "wizard.core.machine.doctor",
    "STATUS_OK": "wizard.core.machine.models", "Detection": "wizard.core.machine.models",
    "Finding": "wizard.core.machine.models", "GpuInfo": "wizard.core.machine.models",
    "SourceResult": "wizard.core.machine.models",
    "NvmlSampler": "wizard.core.machine.nvml_sampler",
})


def compute(host: Host, env_dir: str | None = None, *, pythons: bool = True, conda: bool = True) -> Detection:
    """Detect with ``host`` (the arguments as :func:`wizard.core.machine.detect.detect` takes them).
    Touches no session: safe on a worker thread. The import happens here too, so loading the
    machine package never stalls the window's GUI thread."""
    from wizard.core.machine.detect import detect

    return detect(host, env_dir, pythons=pythons, conda=conda)


def record(session: Session, detection: Detection) -> None:
    """The detection is this run's machine (the GUI thread, or the command line)."""
    session.detection = detection
    session.detection_error = None


def detect_machine(session: Session, env_dir: str | None = None, *, pythons: bool = True,
                   conda: bool = True) -> Detection:
    """Compute and record with the session's host; a failure propagates, the caller records it
    with :func:`record_failure` so the report says why the machine part is empty."""
    detection = compute(session.host, env_dir, pythons=pythons, conda=conda)
    record(session, detection)
    return detection


def record_failure(session: Session, text: str) -> None:
    session.detection_error = text


def from_smi_text(text: str) -> Detection:
    """The detection a saved nvidia-smi output (CSV, XML or the plain table) describes: another
    machine's facts, read from a file. Raises :class:`UnreadableInput` for text it cannot read."""
    from wizard.core.machine.detect import detection_from_smi_text

    return detection_from_smi_text(text)


def redactor(host: Host) -> Redactor:
    """What hides this machine's user name, home folder and host name in anything shown or saved."""
    from wizard.core.base.privacy import redactor_for

    return redactor_for(host.home(), host.environ, host.platform_facts().get("node"))
