"""Which TensorFlow uses the GPU on this machine, and the requirement that installs it.

Why it differs from PyTorch: TensorFlow has no build per CUDA on its own index. On Linux (and
WSL2) ``tensorflow[and-cuda]`` brings CUDA and cuDNN as pip packages; a plain ``tensorflow`` there
finds no GPU. On native Windows GPU support ended after 2.10: WSL2 is the way. On a Mac with
Apple silicon the GPU comes from Apple's ``tensorflow-metal`` plugin. On a Jetson NVIDIA publishes
its own builds per JetPack. ``resources/tensorflow.json`` holds these facts with their sources.

A course that lists ``tensorflow`` among its packages gets the requirement for this machine
(:func:`with_tensorflow_route`), with the course's version specifier kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from wizard.core.base.i18n import Message, msg
from wizard.core.base.resources import load_json
from wizard.core.recommend.inputs import MachineFacts

DATA_FILE = "tensorflow.json"
NAMES = ("tensorflow", "tensorflow-cpu", "tensorflow-gpu")


@lru_cache(maxsize=1)
def tensorflow_data() -> dict[str, Any]:
    doc: dict[str, Any] = load_json(DATA_FILE)
    return doc


@dataclass(frozen=True)
class TfRoute:
    """How TensorFlow gets this machine's GPU: ``route`` names the way, ``requirements`` install it
    (empty on a Jetson: NVIDIA's page), ``gpu`` whether TensorFlow will see a GPU that way."""

    route: str  # "linux-nvidia" | "wsl-nvidia" | "windows-nvidia" | "macos-arm64" | "jetson" | "cpu"
    requirements: tuple[str, ...]
    gpu: bool
    url: str

    @property
    def message(self) -> Message:
        return msg(f"recommend.tensorflow.{self.route.replace('-', '_')}",
                   last=tensorflow_data()["last_native_windows_gpu"], url=self.url)

    def to_json(self, lang: str | None) -> dict[str, Any]:
        return {"route": self.route, "requirements": list(self.requirements), "gpu": self.gpu, "url": self.url,
                "text": self.message.text(lang)}


def route_name(facts: MachineFacts) -> str:
    if facts.is_jetson:
        return "jetson"
    if facts.os == "macos" and facts.arch == "arm64":
        return "macos-arm64"
    if facts.has_nvidia and facts.is_wsl:
        return "wsl-nvidia"
    if facts.has_nvidia and facts.os == "windows":
        return "windows-nvidia"
    if facts.has_nvidia and facts.os == "linux" and facts.arch == "x86_64":
        return "linux-nvidia"
    return "cpu"


def tensorflow_route(facts: MachineFacts) -> TfRoute:
    name = route_name(facts)
    entry = tensorflow_data()["routes"][name]
    return TfRoute(name, tuple(entry["requirements"]), bool(entry["gpu"]), str(entry["url"]))


def with_tensorflow_route(requirements: list[str], facts: MachineFacts) -> list[str]:
    """``requirements`` with a bare TensorFlow requirement made this machine's: ``tensorflow>=2.16``
    becomes ``tensorflow[and-cuda]>=2.16`` on Linux with an NVIDIA GPU, gets ``tensorflow-metal``
    beside it on a Mac with Apple silicon. A requirement that already names extras, a marker or a
    URL is the course's own choice and is left alone; so is everything on a Jetson (NVIDIA's page)."""
    from packaging.requirements import InvalidRequirement, Requirement

    route = tensorflow_route(facts)
    if not route.requirements:
        return list(requirements)
    out: list[str] = []
    for text in requirements:
        try:
            req = Requirement(text)
        except InvalidRequirement:
            out.append(text)
            continue
        if req.name.lower() != "tensorflow" or req.extras or req.marker or req.url:
            out.append(text)
            continue
        first, *others = route.requirements
        for made in (first + str(req.specifier), *others):
            if made not in out and (made == first + str(req.specifier) or made not in requirements):
                out.append(made)
    return list(dict.fromkeys(out))  # asked twice (the command line, then the install job): once


def wants_tensorflow(requirements: list[str] | tuple[str, ...]) -> bool:
    """Does a list of requirements (a course's packages) ask for TensorFlow?"""
    from packaging.requirements import InvalidRequirement, Requirement

    for text in requirements:
        try:
            if Requirement(text).name.lower() in NAMES:
                return True
        except InvalidRequirement:
            continue
    return False
