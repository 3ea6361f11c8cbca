"""A board whose GPU driver comes with its OS image (a Jetson running L4T/JetPack) must never be
told to change its driver or to install a desktop or server CUDA build: that advice can leave the
board unable to boot. When a pasted text shows such a board, the findings that would give that
advice step aside for the Jetson finding, and no finding keeps an action that installs a driver or
another CUDA build.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache

from wizard.core.diagnosis.model import Diagnosis

JETSON_FINDING = "jetson-torch-mismatch"
# findings whose cause and fix speak of a desktop driver or a desktop CUDA build
DESKTOP_ADVICE = frozenset({
    "cuda-libs-not-found", "libcuda-not-found", "no-nvidia-driver", "driver-too-old-for-torch-cuda",
    "cuda-forward-compat-unsupported", "cpu-only-torch-installed", "cuda-driver-init-failed",
})
UNSAFE_ACTIONS = frozenset({"open_driver_page", "reinstall_cuda_build", "switch_variant"})


@lru_cache(maxsize=1)
def _jetson() -> re.Pattern[str]:
    from wizard.core.base.resources import load_json

    return re.compile(load_json("failure_patterns.json")["context"]["jetson"])


def is_jetson(text: str) -> bool:
    """The text shows a Jetson (the pattern data's 'jetson' context)."""
    return bool(_jetson().search(text))


def guard(findings: list[Diagnosis], text: str, board: bool = False) -> list[Diagnosis]:
    """The findings as they may be shown for ``text``: unchanged unless it shows a Jetson, or the
    machine is one (``board``: the environment asked says so). On a Jetson, a CUDA library that
    cannot be loaded is the Jetson finding (the wheel is for another JetPack)."""
    if not (board or is_jetson(text)):
        return findings
    if board and not any(f.id == JETSON_FINDING for f in findings):
        findings = [replace(f, id=JETSON_FINDING, variant=None, action=None) if f.id == "cuda-libs-not-found" else f
                    for f in findings]
    out = []
    jetson = any(f.id == JETSON_FINDING for f in findings)
    for f in findings:
        if f.id in DESKTOP_ADVICE and (jetson or f.severity != "info"):
            continue  # the Jetson finding says what to do instead (or nothing safe is known)
        if f.action is not None and f.action.kind in UNSAFE_ACTIONS:
            f = replace(f, action=None)
        out.append(f)
    return out
