"""The exact install commands for a chosen build: pip, uv and conda, each copyable.

Why every command names the index: a plain ``pip install torch`` gives a CPU build on Windows and,
on Linux, whatever CUDA PyPI defaults to (13.0 since torch 2.11, which needs driver >= 580). So
the commands always pass ``--index-url`` for builds from the PyTorch index -- not
``--extra-index-url``, which can let PyPI's build win -- and pin torch, torchvision (and
torchaudio where it still follows torch) together, so nothing re-resolves torch later.

conda: PyTorch's own conda channel stopped at 2.5, so the conda recipe creates the environment
with the right Python and runs pip inside it.

A mirror replaces the index everywhere (:func:`mirror_index_url`). Commands are returned both as
argv lists (for the install page, which runs them through the host object) and as text lines
(for a copy button), quoted so they paste into cmd, PowerShell and POSIX shells alike.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping, Protocol
from urllib.parse import urlsplit, urlunsplit

_SAFE = re.compile(r"^[A-Za-z0-9_./:=+\-@%,]+$")
_VARIANT_SEGMENT = re.compile(r"^(cpu|xpu|cu[0-9]+|rocm[0-9.]+)$")


class Installable(Protocol):
    """What a command needs from a candidate (see :class:`wizard.core.recommend.recommender.Candidate`)."""

    torch: str
    torchvision: str | None
    torchaudio: str | None
    index_url: str
    uses_default_index: bool


@dataclass(frozen=True)
class InstallCommands:
    """Lines to paste, per tool. ``conda`` is several lines (create, activate, install)."""

    pip: list[str]
    uv: list[str]
    conda: list[str]

    def as_text(self) -> dict[str, str]:
        return {"pip": "\n".join(self.pip), "uv": "\n".join(self.uv), "conda": "\n".join(self.conda)}


def quote_arg(arg: str) -> str:
    """Quote one argument so it pastes into cmd, PowerShell and sh: plain when safe, else "..."."""
    if arg and _SAFE.match(arg):
        return arg
    return '"' + arg.replace('"', '\\"') + '"'


def join_argv(argv: list[str]) -> str:
    return " ".join(quote_arg(a) for a in argv)


def mirror_index_url(mirror: str, variant: str, known_variants: Mapping[str, object] | None = None) -> str:
    """The index URL of ``variant`` on a mirror of download.pytorch.org/whl.

    Accepted forms: a template (``https://m/whl/{variant}``), a base (``https://m/whl``, the
    variant is appended), or a full variant URL (``https://m/whl/cu126``, its last segment is
    swapped for the variant wanted).
    """
    if "{variant}" in mirror:
        return mirror.format(variant=variant)
    parts = urlsplit(mirror)
    segments = [s for s in parts.path.split("/") if s]
    last = segments[-1] if segments else ""
    is_variant = bool(_VARIANT_SEGMENT.match(last)) or (known_variants is not None and last in known_variants)
    if is_variant:
        segments[-1] = variant
    else:
        segments.append(variant)
    return urlunsplit((parts.scheme, parts.netloc, "/" + "/".join(segments), parts.query, parts.fragment))


def requirements(candidate: Installable) -> list[str]:
    """'torch==2.14.1', 'torchvision==0.29.1' (and torchaudio while it follows torch).

    No local version ('+cu126'): with ``--index-url`` only that index is searched, and a
    specifier without the local part matches its wheels; py3-none companions such as
    torchvision 0.29.2 may carry no local part at all.
    """
    reqs = [f"torch=={candidate.torch}"]
    if candidate.torchvision:
        reqs.append(f"torchvision=={candidate.torchvision}")
    if candidate.torchaudio:
        reqs.append(f"torchaudio=={candidate.torchaudio}")
    return reqs


def _index_args(candidate: Installable) -> list[str]:
    return [] if candidate.uses_default_index else ["--index-url", candidate.index_url]


def pip_install_argv(candidate: Installable, python_exe: str = "python") -> list[str]:
    """argv for ``<python> -m pip install ...`` into the interpreter's environment."""
    return [python_exe, "-m", "pip", "install", *requirements(candidate), *_index_args(candidate)]


def uv_install_argv(candidate: Installable, python_exe: str | None = None, uv_exe: str = "uv") -> list[str]:
    """argv for ``uv pip install ...``; ``python_exe`` targets a given environment's interpreter."""
    target = ["--python", python_exe] if python_exe else []
    return [uv_exe, "pip", "install", *target, *requirements(candidate), *_index_args(candidate)]


def build_commands(candidate: Installable, python_version: str, env_name: str = "dl",
                   python_exe: str = "python") -> InstallCommands:
    """The three copyable recipes. conda's shows ``conda activate`` (what students type), then pip."""
    pip_line = join_argv(pip_install_argv(candidate, python_exe))
    uv_line = join_argv(uv_install_argv(candidate))
    conda = [
        join_argv(["conda", "create", "-n", env_name, f"python={python_version}", "-y"]),
        join_argv(["conda", "activate", env_name]),
        join_argv(pip_install_argv(candidate, "python")),
    ]
    return InstallCommands(pip=[pip_line], uv=[uv_line], conda=conda)
