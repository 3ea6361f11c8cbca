"""What an install target is: the kinds of environment, :class:`EnvTarget`, and the marker on
an environment the wizard has not finished.

Why a module of its own: the Environment page, the CLI's ``install`` and the install steps all
pass one :class:`EnvTarget` around; the commands that make it
(:mod:`wizard.core.install.env_commands`) and the checks before it
(:mod:`wizard.core.install.preflight`) build on this module, never the reverse.

Four kinds of target, as students have them: a new venv (made from an interpreter the
detection found, or by uv), an existing venv, a new conda env (``conda create -n NAME
python=X.Y``) and an existing conda env -- plus an interpreter's own environment (a python.org
install on Windows), which is allowed but never silently.

The wizard marks an environment it creates with :data:`INCOMPLETE_MARKER` until the install
finishes (see :mod:`wizard.core.install.recovery`), so a half-made environment is never mistaken for
a good one -- by the wizard or by a student opening the folder.
"""

from __future__ import annotations

import json
import ntpath
import os
import posixpath
import re
import sys
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from typing import Any, Iterable, Mapping

from wizard.core.base.host import Host
from wizard.core.machine.models import CondaEnv, CondaInstall, PythonInterpreter
from wizard.core.machine.system import default_env_root

KIND_NEW_VENV = "new-venv"
KIND_EXISTING_VENV = "existing-venv"
KIND_NEW_CONDA = "new-conda"
KIND_EXISTING_CONDA = "existing-conda"
KIND_EXISTING_PYTHON = "existing-python"  # an interpreter's own environment (python.org install)
KINDS = (KIND_NEW_VENV, KIND_EXISTING_VENV, KIND_NEW_CONDA, KIND_EXISTING_CONDA, KIND_EXISTING_PYTHON)

CREATOR_VENV = "venv"
CREATOR_UV = "uv"
CREATOR_CONDA = "conda"

INCOMPLETE_MARKER = ".gpu-setup-wizard-incomplete"
MARKER_SCHEMA = "gpu-setup-wizard/incomplete@1.0"


def paths_for(os_name: str):
    """The path module of the target's OS (ntpath for Windows), whatever this machine runs."""
    return ntpath if os_name == "windows" else posixpath


def current_os() -> str:
    """This machine's OS ("windows", "macos" or "linux"): a target's default ``os_name``."""
    if sys.platform.startswith("win"):
        return "windows"
    return "macos" if sys.platform == "darwin" else "linux"


def normalized_path(path: str, os_name: str) -> str:
    """``path`` normalised and case-folded as the target's OS compares paths."""
    paths = paths_for(os_name)
    return paths.normcase(paths.normpath(path))


@dataclass
class EnvTarget:
    """One environment to install into. ``path`` is the venv folder or the conda prefix (for a
    new conda env: where conda is expected to put it; the create step reads the real one).
    ``base_python``: the interpreter a new venv is made from (or the version uv should use).
    ``python_version``: "3.12" for a new conda env or a uv-managed interpreter."""

    kind: str
    path: str
    name: str | None = None
    base_python: str | None = None
    python_version: str | None = None
    creator: str | None = None  # venv | uv | conda for new environments
    conda_exe: str | None = None
    uv_exe: str | None = None
    os_name: str = field(default_factory=current_os)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown target kind {self.kind!r}")

    @property
    def creates_env(self) -> bool:
        return self.kind in (KIND_NEW_VENV, KIND_NEW_CONDA)

    @property
    def is_conda(self) -> bool:
        return self.kind in (KIND_NEW_CONDA, KIND_EXISTING_CONDA)

    @property
    def python_exe(self) -> str:
        """The environment's interpreter (it may not exist yet)."""
        if self.kind == KIND_EXISTING_PYTHON:
            return self.base_python or self.path
        paths = paths_for(self.os_name)
        if self.os_name == "windows":
            return paths.join(self.path, "python.exe") if self.is_conda else paths.join(self.path, "Scripts",
                                                                                        "python.exe")
        return paths.join(self.path, "bin", "python")

    def label(self, lang: str | None) -> str:
        """'new venv at ...' / 'conda env dl' for the page and the log."""
        from wizard.core.base.i18n import t

        if self.is_conda:
            return t(f"install.target.{self.kind}", lang, name=self.name or self.path, path=self.path)
        return t(f"install.target.{self.kind}", lang, name=self.name or "", path=self.path)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "EnvTarget":
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)


def new_venv(path: str, base_python: str, os_name: str | None = None) -> EnvTarget:
    """A new venv made with ``<base_python> -m venv PATH`` (bundled pip, works offline)."""
    return EnvTarget(KIND_NEW_VENV, path, base_python=base_python, creator=CREATOR_VENV,
                     os_name=os_name or current_os())


def new_uv_venv(path: str, python: str, uv_exe: str | None = None, os_name: str | None = None) -> EnvTarget:
    """A new venv made by ``uv venv --python PYTHON``; ``python`` is an interpreter path or a
    version ("3.12") that uv finds among its managed interpreters (after ``uv python install``)."""
    is_version = bool(re.fullmatch(r"\d+\.\d+(\.\d+)?", python))
    return EnvTarget(KIND_NEW_VENV, path, base_python=None if is_version else python,
                     python_version=python if is_version else None, creator=CREATOR_UV,
                     uv_exe=uv_exe or find_uv(), os_name=os_name or current_os())


def existing_venv(path: str, os_name: str | None = None) -> EnvTarget:
    return EnvTarget(KIND_EXISTING_VENV, path, os_name=os_name or current_os())


def existing_python(python_exe: str, os_name: str | None = None) -> EnvTarget:
    """The environment of an interpreter itself (not a venv): allowed, checked for PEP 668."""
    return EnvTarget(KIND_EXISTING_PYTHON, python_exe, base_python=python_exe, os_name=os_name or current_os())


def new_conda_env(name: str, python_version: str, conda: CondaInstall, os_name: str | None = None) -> EnvTarget:
    """A new named conda env; its expected prefix is ``<base>/envs/<name>``."""
    os_name = os_name or current_os()
    paths = paths_for(os_name)
    base = conda.base_prefix or ""
    prefix = paths.join(base, "envs", name) if base else ""
    return EnvTarget(KIND_NEW_CONDA, prefix, name=name, python_version=python_version, creator=CREATOR_CONDA,
                     conda_exe=conda.exe, os_name=os_name)


def existing_conda_env(env: CondaEnv, conda: CondaInstall | None = None, os_name: str | None = None) -> EnvTarget:
    return EnvTarget(KIND_EXISTING_CONDA, env.prefix, name=env.name, conda_exe=conda.exe if conda else None,
                     os_name=os_name or current_os())


def existing_targets(pythons: Iterable[PythonInterpreter], condas: Iterable[CondaInstall],
                     os_name: str | None = None, extra_roots: Iterable[str] = ()) -> list[EnvTarget]:
    """The environments a student already has, for the Environment page's list: the venvs
    among the detected interpreters, every conda env, and the venvs in ``extra_roots`` (the
    wizard's own folder, :func:`wizard.core.machine.system.default_env_root`). No duplicates."""
    os_name = os_name or current_os()
    paths = paths_for(os_name)
    found: list[EnvTarget] = []
    seen: set[str] = set()

    def add(target: EnvTarget) -> None:
        key = normalized_path(target.path, os_name)
        if key not in seen:
            seen.add(key)
            found.append(target)

    for interp in pythons:
        if interp.is_venv and not interp.error:
            folder = paths.dirname(interp.path)
            if paths.basename(folder).lower() in ("bin", "scripts"):
                add(existing_venv(paths.dirname(folder), os_name=os_name))
    for conda in condas:
        for env in conda.envs:
            add(existing_conda_env(env, conda, os_name=os_name))
    for root in extra_roots:
        try:
            names = sorted(os.listdir(root))
        except OSError:
            continue
        for name in names:
            folder = paths.join(root, name)
            if os.path.isfile(os.path.join(folder, "pyvenv.cfg")):
                add(existing_venv(folder, os_name=os_name))
    return found


def default_venv_path(host: Host, name: str) -> str:
    """``<home>/GPU-Setup-Wizard/envs/<name>`` (the product folder under the user's home)."""
    from wizard.core.machine.system import host_paths

    return host_paths(host).join(default_env_root(host), name)


def find_uv() -> str | None:
    """The uv binary shipped with the wizard: ``GSW_UV`` when set, next to the executable of a
    frozen bundle, the ``uv`` package's binary (``find_uv_bin()``); else one on PATH."""
    named = os.environ.get("GSW_UV")
    if named and os.path.isfile(named):
        return named
    if getattr(sys, "frozen", False):
        beside = os.path.join(os.path.dirname(sys.executable), "uv.exe" if os.name == "nt" else "uv")
        if os.path.isfile(beside):
            return beside
    try:
        from uv import find_uv_bin  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        pass
    else:
        try:
            return os.fspath(find_uv_bin())
        except FileNotFoundError:
            pass
    import shutil

    return shutil.which("uv")


# --------------------------------------------------------------------------------------------
# The incomplete marker
# --------------------------------------------------------------------------------------------
def write_incomplete_marker(env_dir: str, note: Mapping[str, Any] | None = None) -> str:
    """Mark a wizard-made environment as not finished. Returns the marker's path."""
    from wizard import __version__

    path = os.path.join(env_dir, INCOMPLETE_MARKER)
    data = {"schema": MARKER_SCHEMA, "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "wizard_version": __version__, **(dict(note) if note else {})}
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(data, fh, ensure_ascii=False, indent=2)
        fh.write("\n")
    return path


def read_incomplete_marker(env_dir: str) -> dict[str, Any] | None:
    path = os.path.join(env_dir, INCOMPLETE_MARKER)
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return {"schema": MARKER_SCHEMA, "unreadable": True}
    return data if isinstance(data, dict) else {"schema": MARKER_SCHEMA, "unreadable": True}


def remove_incomplete_marker(env_dir: str) -> bool:
    try:
        os.unlink(os.path.join(env_dir, INCOMPLETE_MARKER))
    except FileNotFoundError:
        return False
    return True


def is_incomplete(env_dir: str) -> bool:
    return os.path.exists(os.path.join(env_dir, INCOMPLETE_MARKER))
