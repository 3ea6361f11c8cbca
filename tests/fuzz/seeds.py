"""Real inputs the mutations start from: captures of nvidia-smi, the failure texts students paste,
and the documents the wizard itself writes (doctor JSON, report JSON, history snapshots, compat data).

Why real ones: random text fails at a reader's first check; a real output with a few bytes changed
reaches the deep branches (a table with a cut row, an XML element holding a list, a JSON field of the
wrong type) where the crashes were. The shared reference captures are used when they are beside the
repository; the hand-written outputs in the unit tests and tests/data are always there.
"""

from __future__ import annotations

import copy
import functools
import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Callable, TypeVar

from tests.reference import REFERENCE

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"


T = TypeVar("T")


def _fresh(fn: Callable[[], T]) -> Callable[[], T]:
    """Built once, handed out as a copy: a test that edits a seed cannot change it for the others."""
    cached = lru_cache(maxsize=1)(fn)

    @functools.wraps(fn)
    def fresh() -> T:
        return copy.deepcopy(cached())
    return fresh


def _reference_text(*parts: str) -> str | None:
    path = REFERENCE.joinpath(*parts)
    return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else None


def _capture_sections(text: str) -> list[str]:
    """The command outputs of a capture file (80 '#', '# state :: title', '# $ cmd', 80 '#')."""
    bar = "#" * 80
    parts = re.split(rf"^{bar}\n# \w+ :: .*\n(?:# .*\n)*{bar}\n", text, flags=re.M)
    return [p.strip("\n") for p in parts[1:] if p.strip()]


@_fresh
def nvidia_smi_outputs() -> dict[str, list[str]]:
    """Real nvidia-smi outputs by format: "table", "q", "xml", "csv" (and "failure" texts)."""
    from tests import nvidia_smi_texts as known
    from wizard.core.machine import nvidia_smi as smi

    texts = [known.COLAB_T4, known.WSL2_4070, known.TWO_GPU_470, known.Q_TWO_GPUS, known.V13_XML]
    texts.append((DATA / "report" / "colab_nvidia_smi.txt").read_text(encoding="utf-8"))
    for name in ("04-linux-4x-a100-sxm4-535.54.03.q-x.xml", "07-old-driver-418.43-gtx1660ti.q-x.xml"):
        text = _reference_text("nvidia-smi", name)
        if text:
            texts.append(text)
    capture = _reference_text("nvidia-smi", "01-windows-wddm-geforce-rtx2080super-591.86.capture.txt")
    if capture:
        texts += _capture_sections(capture)
    # The wizard's own --query-gpu call, as a driver answers it.
    header = ", ".join(smi.QUERY_FIELDS)
    row = ("0, NVIDIA GeForce RTX 3060, GPU-5b1d6f2a-0000-1111-2222-333344445555, 00000000:01:00.0, 560.94, 8.6, "
           "12288 MiB, 1024 MiB, 11000 MiB, 264 MiB, 45, 20.11 W, 170.00 W, 3 %, 1 %, 210 MHz, 210 MHz, 2100 MHz, "
           "405 MHz, P8, 1, 4, 8, 16, WDDM, [N/A], 0 %, Enabled, 94.06.2f.00.9a, [N/A]")
    texts.append(f"{header}\n{row}\n")
    texts.append(f"{header}\n{row}\n{row.replace('0, NVIDIA', '1, NVIDIA', 1)}\n")
    out: dict[str, list[str]] = {"table": [], "q": [], "xml": [], "csv": [], "failure": []}
    for text in texts:
        kind = smi.detect_format(text)
        if kind in out:
            out[kind].append(text)
    return out


@_fresh
def pasted_texts() -> list[str]:
    """Error texts students paste: every symptom of the failure-mode catalogue, and tracebacks."""
    texts: list[str] = []
    catalogue = _reference_text("failure-modes.json")
    if catalogue:
        for mode in json.loads(catalogue):
            texts += [s for s in mode.get("symptom", []) if isinstance(s, str)]
    texts += [
        "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    x = torch.zeros(1).cuda()\n"
        "  File \"C:\\Users\\학생\\venv\\lib\\site-packages\\torch\\cuda\\__init__.py\", line 310, in _lazy_init\n"
        "    raise AssertionError(\"Torch not compiled with CUDA enabled\")\nAssertionError: Torch not compiled with CUDA enabled\n",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 11.76 GiB "
        "of which 1.06 GiB is free.\n",
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n",
        "ERROR: Could not find a version that satisfies the requirement torch==2.13.0+cu130 (from versions: none)\n",
        "\x1b[31mRuntimeError\x1b[0m: CUDA error: no kernel image is available for execution on the device\r\n",
    ]
    texts += nvidia_smi_outputs()["failure"]
    return texts


@_fresh
def doctor_documents() -> list[dict]:
    """``doctor --json`` documents: a GPU machine, a machine without one, an A100 server read from XML."""
    from tests import report_sessions as rs
    from wizard.core.machine.detect import detection_from_smi_text
    from wizard.core.machine.doctor import detection_to_json

    detections = [rs.rtx3060_detection(), rs.no_gpu_detection()]
    xml = _reference_text("nvidia-smi", "04-linux-4x-a100-sxm4-535.54.03.q-x.xml")
    detections.append(detection_from_smi_text(xml or nvidia_smi_outputs()["table"][0]))
    return [json.loads(json.dumps(detection_to_json(d, "en"))) for d in detections]


@_fresh
def report_documents() -> list[dict]:
    """``report --json`` documents of a full session and of one that only detected."""
    from tests import report_sessions as rs
    from wizard.app.report import build as build_report
    from wizard.core.report.as_json import dumps

    sessions = [rs.full_session("en"), rs.detection_only_session("en")]
    return [json.loads(dumps(build_report(s, lang="en", now=rs.NOW))) for s in sessions]


@_fresh
def history_snapshots() -> list[dict]:
    """History snapshots as ``history`` saves them, of a GPU machine and of one without."""
    from tests import report_sessions as rs
    from wizard.core.history.store import build_snapshot

    return [build_snapshot(d, now=rs.NOW).to_json() for d in (rs.rtx3060_detection(), rs.no_gpu_detection())]


@_fresh
def compat_data() -> dict:
    """The bundled compatibility table, as ``compat.parse`` reads an updated one."""
    from wizard.core.base.resources import load_json

    return json.loads(json.dumps(load_json("compat.json")))


__all__ = ["nvidia_smi_outputs", "pasted_texts", "doctor_documents", "report_documents", "history_snapshots",
           "compat_data", "course_profiles"]


@lru_cache(maxsize=None)
def course_profiles() -> list[str]:
    """The shipped example course profile and the test suite's ones (TOML text)."""
    root = Path(__file__).resolve().parents[2]
    files = [root / "wizard" / "resources" / "courses" / "example-course.toml",
             *sorted((root / "tests").rglob("*.toml"))]
    texts = [f.read_text(encoding="utf-8") for f in files if f.is_file()]
    return texts or ['schema = "gpu-setup-wizard/course@1.0"\n[course]\nname = "x"\n']

