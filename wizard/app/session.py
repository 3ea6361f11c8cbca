"""The session: what every page of one run has learned, in one place.

Pages read and write it; the report and history are built from it. Nothing else is global.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from wizard.core.base.host import Host, RealHost

if TYPE_CHECKING:  # the models load with the first detection, not at start-up
    from wizard.core.machine.models import Detection


@dataclass
class Session:
    host: Host = field(default_factory=RealHost)
    lang: str = "en"
    started_at: str = field(default_factory=lambda: _dt.datetime.now().astimezone().isoformat(timespec="seconds"))
    detection: Detection | None = None
    detection_error: str | None = None
    # Later steps (recommendation, environment, install, verify, benchmark, VRAM) add their
    # results here under their own keys, so the report can say "not run" for the missing ones.
    results: dict[str, Any] = field(default_factory=dict)
