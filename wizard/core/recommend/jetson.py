"""The recommendation for an NVIDIA Jetson board: NVIDIA's JetPack wheels, never a driver change.

Why a path of its own: the general rules would judge a Jetson as an ARM server with a GPU of
compute capability 8.7 and a 540 driver -- and offer download.pytorch.org's server-ARM (SBSA)
wheels, which do not run on the board's integrated GPU, with ``apt install nvidia-driver-580``
as the way to newer builds, which would replace the driver the board boots with. On a Jetson the
driver, the kernel and CUDA are the L4T image's; the PyTorch wheels are NVIDIA's builds for each
JetPack (``resources/jetson.json``, each fact with its source).

What it gives, by L4T release: JetPack 6 (R36.4 and later) a full candidate from the Jetson AI
Lab index; JetPack 5.1 the wheel's own URL as a command (NVIDIA publishes it as a file, with no
torchvision); JetPack 4 the news that PyTorch ended at 1.10 there, and Colab; an L4T the table
does not know, where NVIDIA lists the wheels. Every answer carries the driver warning.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from packaging.version import InvalidVersion, Version

from wizard.core.base.i18n import msg
from wizard.core.base.resources import load_json
from wizard.core.machine.jetson import jetpack_of
from wizard.core.recommend.advice import Advice
from wizard.core.recommend.inputs import MachineFacts, Wishes

DATA_FILE = "jetson.json"


@lru_cache(maxsize=1)
def jetson_data() -> dict[str, Any]:
    doc: dict[str, Any] = load_json(DATA_FILE)
    return doc


def _v(text: str) -> Version:
    try:
        return Version(text)
    except InvalidVersion:
        return Version("0")


def wheel_entry(l4t: str | None) -> dict[str, Any] | None:
    """The table's wheels for this L4T release (None when it has none for the release)."""
    if not l4t:
        return None
    major = int(l4t.split(".")[0])
    for entry in jetson_data()["wheels"]:
        if entry["l4t_major"] == major and _v(l4t) >= _v(str(entry.get("l4t_min", "0"))):
            return dict(entry)
    return None


def wheel_python(l4t: str | None) -> str | None:
    """The one Python NVIDIA's wheels for this L4T are built for ('3.10' on JetPack 6)."""
    entry = wheel_entry(l4t)
    return str(entry["python"]) if entry else None


def board_l4t(facts: MachineFacts) -> str | None:
    """The board's L4T release: detected, or (when the release file could not be read) the one an
    Orin's driver CUDA belongs to (12.6 -> 36.4), or else its driver (540.4.0 -> 36.4; both in
    resources/jetson.json); None when unknown."""
    if facts.jetson_l4t:
        return facts.jetson_l4t
    if "8.7" not in facts.gpu_ccs:
        return None
    detection = jetson_data()["detection"]
    found: str | None = detection["cuda_to_l4t"].get(facts.cuda_driver or "")
    return found or detection["driver_to_l4t"].get(facts.driver_version or "")


def _board(facts: MachineFacts) -> dict[str, str]:
    l4t = board_l4t(facts)
    return {"model": facts.jetson_model or "NVIDIA Jetson", "l4t": l4t or "?", "jetpack": jetpack_of(l4t) or "?"}


def _common_advice(facts: MachineFacts) -> list[Advice]:
    """Said on every Jetson: the driver is the board's, and the server-ARM wheels do not fit."""
    pages = jetson_data()["pages"]
    return [
        Advice("jetson_driver", "recommended", msg("recommend.jetson.driver", **_board(facts))),
        Advice("jetson_server_wheels", "info", msg("recommend.jetson.server_wheels"), url=pages["docs"]),
    ]


def _candidate(entry: dict[str, Any], facts: MachineFacts, wishes: Wishes) -> dict[str, Any]:
    """The keyword arguments of the recommender's Candidate (built there: it imports this module)."""
    board = _board(facts)
    return dict(
        torch=str(entry["torch"]), torchvision=entry.get("torchvision"), torchaudio=None,
        variant=str(entry["variant"]), kind="cuda", index_url=str(entry["index_url"]),
        python_requires=f"=={entry['python']}.*", python=facts.python,
        reasons=[msg("recommend.jetson.reason", jetpack=board["jetpack"], l4t=board["l4t"], cuda=entry["cuda"],
                     python=entry["python"])],
        warnings=[msg("recommend.jetson.pin_ignored", torch=wishes.torch)] if wishes.torch else [],
        driver_bar=None, verified=True, uses_default_index=False)


def for_jetson(facts: MachineFacts, wishes: Wishes, colab_gpu: str) -> tuple[list[dict[str, Any]], list[Advice]]:
    """Candidates (as Candidate keyword arguments) and advice for a Jetson (``facts.is_jetson``);
    ``colab_gpu`` names Colab's free GPU."""
    pages = jetson_data()["pages"]
    advice = _common_advice(facts)
    board = _board(facts)
    entry = wheel_entry(board_l4t(facts))
    colab = Advice("colab", "info", msg("recommend.advice.colab", gpu=colab_gpu))
    if entry is None:
        l4t = board_l4t(facts)
        major = int(l4t.split(".")[0]) if l4t else None
        key = "recommend.jetson.unknown" if major is None else "recommend.jetson.no_table"
        advice.append(Advice("jetson_wheels", "required", msg(key, **board, url=pages["wheels"]), url=pages["wheels"]))
        return [], advice
    if entry.get("last"):
        advice.append(Advice("jetson_wheels", "info", msg("recommend.jetson.ended", **board, torch=entry["torch"],
                                                          python=entry["python"], url=pages["wheels"]),
                             url=pages["wheels"]))
        advice.append(colab)
        return [], advice
    if facts.python != entry["python"]:
        advice.append(Advice("python", "required", msg("recommend.jetson.python", python=facts.python,
                                                       use=entry["python"], jetpack=board["jetpack"])))
        return [], advice
    if wishes.cpu_only:
        advice.append(Advice("jetson_cpu_only", "info", msg("recommend.jetson.cpu_only")))
    if "index_url" in entry:
        return [_candidate(entry, facts, wishes)], advice
    # a wheel NVIDIA publishes as a file: its URL is the command
    advice.append(Advice("jetson_wheels", "required", msg("recommend.jetson.wheel_file", **board, torch=entry["torch"],
                                                          python=entry["python"]),
                         url=pages["docs"], commands=[f"python -m pip install {entry['wheel_url']}"]))
    return [], advice
