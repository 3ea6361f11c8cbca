"""Where the space goes: the wizard's environments and caches, and pip's, uv's and Hugging Face's.

Why its own module: each tool decides its cache folder its own way (environment variables,
config files, the OS's conventions), so guessing is wrong for some students. The tools are
asked first -- ``python -m pip cache dir`` and ``uv cache dir``, through the one process runner --
and only when a tool is not there is its documented default used (``PIP_CACHE_DIR`` /
platformdirs' ``pip`` cache; ``UV_CACHE_DIR`` / ``$XDG_CACHE_HOME/uv`` or ``~/.cache/uv``, and
``%LOCALAPPDATA%\\uv\\cache`` on Windows; ``HF_HUB_CACHE`` / ``HF_HOME/hub`` /
``$XDG_CACHE_HOME/huggingface/hub`` / ``~/.cache/huggingface/hub`` on every OS). Hugging Face
has no command to ask that does not need its package, so its rules are applied here.

Environments: every folder under the default ``<home>/GPU-Setup-Wizard/envs`` that is an
environment, and every environment the install state records and the history snapshots name.
"""

from __future__ import annotations

import os
import sys
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

from wizard.core.base.process import ProcessSpec, child_env, run_process

KIND_ENV = "env"
KIND_WIZARD_CACHE = "wizard_cache"
KIND_PIP = "pip_cache"
KIND_UV = "uv_cache"
KIND_HF = "hf_cache"
CACHE_KINDS = (KIND_WIZARD_CACHE, KIND_PIP, KIND_UV, KIND_HF)

SOURCE_TOOL = "tool"  # the tool said so
SOURCE_ENV = "environment variable"
SOURCE_DEFAULT = "documented default"
SOURCE_STATE = "install state"
SOURCE_HISTORY = "history"
SOURCE_FOLDER = "default folder"

ASK_TIMEOUT_S = 30.0

# (argv) -> (returncode or None, stdout): the process runner, replaceable by a recorded host.
Runner = Callable[[Sequence[str]], "tuple[int | None, str]"]


@dataclass
class Location:
    """One folder whose size the Storage panel shows. ``tool``: the executable whose own
    command cleans it (pip's python, uv), when there is one."""

    kind: str
    path: str
    source: str
    tool: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def run_tool(argv: Sequence[str]) -> tuple[int | None, str]:
    """A tool's answer through the one process runner (short, no shell, never raising)."""
    res = run_process(ProcessSpec(list(argv), env=child_env(), timeout_s=ASK_TIMEOUT_S, keep_chars=20_000))
    return res.returncode, res.stdout


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def _os_name() -> str:
    if sys.platform.startswith("win"):
        return "windows"
    return "macos" if sys.platform == "darwin" else "linux"


def pip_cache_default(environ: Mapping[str, str], os_name: str | None = None) -> tuple[str, str]:
    """pip's cache folder as pip documents it: ``PIP_CACHE_DIR``, else the user cache dir
    (``~/.cache/pip``, ``~/Library/Caches/pip``, ``%LOCALAPPDATA%\\pip\\Cache``)."""
    if environ.get("PIP_CACHE_DIR"):
        return environ["PIP_CACHE_DIR"], SOURCE_ENV
    os_name = os_name or _os_name()
    if os_name == "windows":
        base = environ.get("LOCALAPPDATA") or os.path.join(environ.get("USERPROFILE", "~"), "AppData", "Local")
        return os.path.join(base, "pip", "Cache"), SOURCE_DEFAULT
    if os_name == "macos":
        return os.path.join(_home(environ), "Library", "Caches", "pip"), SOURCE_DEFAULT
    return os.path.join(_xdg_cache(environ), "pip"), SOURCE_DEFAULT


def uv_cache_default(environ: Mapping[str, str], os_name: str | None = None) -> tuple[str, str]:
    """uv's cache folder as uv documents it: ``UV_CACHE_DIR``, else ``$XDG_CACHE_HOME/uv`` or
    ``~/.cache/uv`` (Linux and macOS), ``%LOCALAPPDATA%\\uv\\cache`` (Windows)."""
    if environ.get("UV_CACHE_DIR"):
        return environ["UV_CACHE_DIR"], SOURCE_ENV
    if (os_name or _os_name()) == "windows":
        base = environ.get("LOCALAPPDATA") or os.path.join(environ.get("USERPROFILE", "~"), "AppData", "Local")
        return os.path.join(base, "uv", "cache"), SOURCE_DEFAULT
    return os.path.join(_xdg_cache(environ), "uv"), SOURCE_DEFAULT


def hf_cache_path(environ: Mapping[str, str]) -> tuple[str, str]:
    """huggingface_hub's cache: ``HF_HUB_CACHE`` (or the older ``HUGGINGFACE_HUB_CACHE``), else
    ``HF_HOME/hub``, else ``$XDG_CACHE_HOME/huggingface/hub``, else ``~/.cache/huggingface/hub``
    (the same ``.cache`` folder on Windows and macOS)."""
    for name in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        if environ.get(name):
            return environ[name], SOURCE_ENV
    if environ.get("HF_HOME"):
        return os.path.join(environ["HF_HOME"], "hub"), SOURCE_ENV
    return os.path.join(_xdg_cache(environ), "huggingface", "hub"), SOURCE_DEFAULT


def _home(environ: Mapping[str, str]) -> str:
    return environ.get("HOME") or environ.get("USERPROFILE") or os.path.expanduser("~")


def _xdg_cache(environ: Mapping[str, str]) -> str:
    return environ.get("XDG_CACHE_HOME") or os.path.join(_home(environ), ".cache")


def pip_location(python: str | None, environ: Mapping[str, str], runner: Runner = run_tool) -> Location:
    """Ask ``python -m pip cache dir``; pip's documented default when that python has no pip."""
    if python:
        code, out = runner([python, "-m", "pip", "cache", "dir"])
        answer = _last_line(out)
        if code == 0 and answer and os.path.isabs(answer):
            return Location(KIND_PIP, answer, SOURCE_TOOL, tool=python)
    path, source = pip_cache_default(environ)
    return Location(KIND_PIP, path, source, tool=None)


def uv_location(uv: str | None, environ: Mapping[str, str], runner: Runner = run_tool) -> Location:
    """Ask ``uv cache dir``; uv's documented default when uv is not there."""
    if uv:
        code, out = runner([uv, "cache", "dir"])
        answer = _last_line(out)
        if code == 0 and answer and os.path.isabs(answer):
            return Location(KIND_UV, answer, SOURCE_TOOL, tool=uv)
    path, source = uv_cache_default(environ)
    return Location(KIND_UV, path, source, tool=None)


def _env_dir(path: str) -> str:
    """An environment's folder from what a record holds: the folder, or its python executable."""
    norm = os.path.normpath(path)
    head, name = os.path.split(norm)
    if name.lower().startswith("python") and os.path.basename(head).lower() in ("bin", "scripts"):
        return os.path.dirname(head)
    return norm


def is_environment(path: str) -> bool:
    """A venv (``pyvenv.cfg``), a conda env (``conda-meta``) or one the wizard has begun (its marker)."""
    from wizard.core.install.environments import INCOMPLETE_MARKER

    return os.path.isdir(path) and any(os.path.exists(os.path.join(path, name))
                                       for name in ("pyvenv.cfg", "conda-meta", INCOMPLETE_MARKER))


def environment_locations(env_root: str, state_paths: Iterable[str], history_paths: Iterable[str]) -> list[Location]:
    """Every environment the wizard knows of, once each (paths compared as the OS compares them)."""
    found: dict[str, Location] = {}

    def add(path: str, source: str) -> None:
        key = os.path.normcase(os.path.abspath(path))
        if key in found:
            found[key].details.setdefault("also_known_from", []).append(source)
            return
        found[key] = Location(KIND_ENV, os.path.abspath(path), source)

    try:
        children = sorted(os.scandir(env_root), key=lambda e: e.name) if os.path.isdir(env_root) else []
    except OSError:
        children = []
    for entry in children:
        if entry.is_dir(follow_symlinks=False) and is_environment(entry.path):
            add(entry.path, SOURCE_FOLDER)
    for path in state_paths:
        if path:
            add(_env_dir(path), SOURCE_STATE)
    for path in history_paths:
        if path and os.path.isdir(_env_dir(path)):  # history remembers envs long gone: only those still there
            add(_env_dir(path), SOURCE_HISTORY)
    return list(found.values())


__all__ = ["Location", "KIND_ENV", "KIND_WIZARD_CACHE", "KIND_PIP", "KIND_UV", "KIND_HF", "CACHE_KINDS",
           "pip_location", "uv_location", "hf_cache_path", "pip_cache_default", "uv_cache_default",
           "environment_locations", "is_environment", "run_tool"]
