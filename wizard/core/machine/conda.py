"""Find conda installations (Miniconda, Anaconda, Miniforge) and their environments.

The course creates its environment with ``conda create``, so the wizard lists what a
student already has: which conda, which version, and which environments (by name, as
``conda activate`` wants them). Each conda is asked twice, ``--version`` and
``env list --json``, both with a timeout: conda's first start after an update or on a
cold laptop can take tens of seconds, and a broken conda must not hang the wizard.

Conda's JSON has varied: old releases print ``{"envs": [...]}`` only; some print the whole
``conda info`` object (``root_prefix``, ``conda_prefix``, ``envs``); newer ones add
``envs_details`` with a name per prefix. :func:`parse_conda_env_list` reads all of them.
"""

from __future__ import annotations

import json
import ntpath
import posixpath
import re
from typing import TYPE_CHECKING, Any, Iterable

from wizard.core.base.host import Host
from wizard.core.machine.models import CondaEnv, CondaInstall
from wizard.core.machine.system import host_paths

if TYPE_CHECKING:  # the process runner loads only when a command runs (issue 17)
    from wizard.core.base.host import CommandResult

VERSION_TIMEOUT = 30.0
ENV_LIST_TIMEOUT = 60.0

_INSTALL_DIR_NAMES = ("miniconda3", "anaconda3", "miniforge3", "mambaforge")


# ------------------------------------------------------------------------- pure parsing


def _pathmod_for(path: str):
    """Windows rules for a path that looks like a Windows path, POSIX rules otherwise."""
    return ntpath if re.match(r"^[A-Za-z]:[\\/]|^\\\\", path) else posixpath


def _same_path(a: str, b: str) -> bool:
    mod = _pathmod_for(a)
    return mod.normcase(mod.normpath(a)) == mod.normcase(mod.normpath(b))


def parse_conda_env_list(json_text: str) -> tuple[str | None, list[CondaEnv]]:
    """``conda env list --json`` → (base prefix, environments in conda's order).

    The base is ``root_prefix`` (or ``conda_prefix``) when conda prints it, else the
    ``envs_details`` entry marked base, else the listed prefix that holds the ``envs``
    folder of other listed environments. Names: "base" for the base, the folder name for
    an environment inside an ``envs`` folder, the path itself for one elsewhere (created
    with ``--prefix``; it can only be activated by path). Raises ValueError on text that
    is not this JSON.
    """
    data = _json_object(json_text)
    raw_envs = data.get("envs")
    if not isinstance(raw_envs, list):
        raise ValueError("no 'envs' list in conda output")
    prefixes = [str(p) for p in raw_envs if isinstance(p, str) and p.strip()]
    details: dict[str, Any] = data["envs_details"] if isinstance(data.get("envs_details"), dict) else {}

    base = data.get("root_prefix") or data.get("conda_prefix")
    base = str(base) if isinstance(base, str) and base.strip() else None
    if base is None:
        base = next((p for p in prefixes if isinstance(details.get(p), dict) and details[p].get("base")), None)
    if base is None:
        base = _infer_base(prefixes)

    envs = []
    for prefix in prefixes:
        is_base = base is not None and _same_path(prefix, base)
        envs.append(CondaEnv(name=_env_name(prefix, is_base, details.get(prefix)), prefix=prefix, is_base=is_base))
    return base, envs


def _json_object(text: str) -> dict[str, Any]:
    """The first JSON object in ``text`` (conda may print a warning line before it)."""
    text = (text or "").lstrip("\ufeff")
    start = text.find("{")
    if start < 0:
        raise ValueError("no JSON object in conda output")
    obj, _ = json.JSONDecoder().raw_decode(text, start)
    if not isinstance(obj, dict):
        raise ValueError("conda output is not a JSON object")
    return obj


def _infer_base(prefixes: list[str]) -> str | None:
    """The listed prefix P such that another listed prefix is P/envs/<name>."""
    for candidate in prefixes:
        mod = _pathmod_for(candidate)
        envs_dir = mod.normcase(mod.join(mod.normpath(candidate), "envs"))
        for other in prefixes:
            if other is candidate:
                continue
            parent = mod.normcase(mod.dirname(mod.normpath(other)))
            if parent == envs_dir:
                return candidate
    return None


def _env_name(prefix: str, is_base: bool, detail: Any) -> str:
    if is_base:
        return "base"
    mod = _pathmod_for(prefix)
    norm = mod.normpath(prefix)
    if mod.basename(mod.dirname(norm)).lower() == "envs":
        return mod.basename(norm)
    if isinstance(detail, dict) and isinstance(detail.get("name"), str) and detail["name"].strip():
        return detail["name"].strip()
    return prefix


def parse_conda_version(text: str) -> str | None:
    """'conda 24.5.0' → '24.5.0' (old condas print it on stderr; callers pass both)."""
    match = re.search(r"\bconda\s+(\d+(?:\.\d+)+\S*)", text or "")
    return match.group(1) if match else None


# ---------------------------------------------------------------------------- discovery


def find_conda(host: Host) -> list[CondaInstall]:
    """Every conda found (CONDA_EXE, PATH, the usual install folders), each asked once."""
    return [_describe(host, exe) for exe in _dedupe(host, _candidates(host))]


def _candidates(host: Host) -> Iterable[str]:
    paths = host_paths(host)
    conda_exe = host.getenv("CONDA_EXE")
    if conda_exe:
        yield conda_exe
    on_path = host.which("conda")
    if on_path:
        yield on_path
    home = host.home()
    if host.os_name == "windows":
        profile = host.getenv("USERPROFILE") or home
        local = host.getenv("LOCALAPPDATA") or paths.join(home, "AppData", "Local")
        program_data = host.getenv("ProgramData") or "C:\\ProgramData"
        roots = [paths.join(base, name) for base in (profile, local, program_data) for name in _INSTALL_DIR_NAMES]
        for root in roots:
            yield paths.join(root, "Scripts", "conda.exe")
    else:
        roots = [paths.join(home, name) for name in _INSTALL_DIR_NAMES]
        roots += ["/opt/conda", "/opt/miniconda3", "/opt/anaconda3", "/opt/miniforge3"]
        for root in roots:
            yield paths.join(root, "bin", "conda")


def install_root(host: Host, exe: str) -> str:
    """The installation folder a conda executable belongs to (``<root>/bin/conda``,
    ``<root>\\Scripts\\conda.exe``, ``<root>\\condabin\\conda.bat``)."""
    paths = host_paths(host)
    folder = paths.dirname(exe)
    if paths.basename(folder).lower() in ("bin", "scripts", "condabin"):
        return paths.dirname(folder)
    return folder


def _dedupe(host: Host, candidates: Iterable[str]) -> list[str]:
    paths = host_paths(host)
    seen: set[str] = set()
    kept: list[str] = []
    for exe in candidates:
        if not exe:
            continue
        root = install_root(host, exe)
        if host.os_name == "windows" and exe.lower().endswith((".bat", ".cmd")):
            # PATH finds condabin\conda.bat; the real executable runs without cmd.exe
            real = paths.join(root, "Scripts", "conda.exe")
            if host.exists(real):
                exe = real
        key = paths.normcase(paths.normpath(root))
        if key in seen or not host.exists(exe):
            continue
        seen.add(key)
        kept.append(exe)
    return kept


def _describe(host: Host, exe: str) -> CondaInstall:
    install = CondaInstall(exe=exe)
    errors: list[str] = []

    version = host.run([exe, "--version"], timeout=VERSION_TIMEOUT)
    if version.ok:
        install.version = parse_conda_version(version.stdout + "\n" + version.stderr)
    else:
        errors.append("conda --version: " + _failure(version, VERSION_TIMEOUT))
    if version.timed_out or version.not_found:
        # a conda that hangs on --version hangs on everything (do not wait twice); one
        # that cannot be started cannot list anything either
        install.base_prefix = install_root(host, exe)
        install.error = "; ".join(errors)
        return install

    listing = host.run([exe, "env", "list", "--json"], timeout=ENV_LIST_TIMEOUT)
    if listing.ok:
        try:
            base, envs = parse_conda_env_list(listing.stdout)
            install.base_prefix, install.envs = base, envs
        except ValueError as exc:
            errors.append(f"conda env list --json: unreadable output ({exc})")
    else:
        errors.append("conda env list --json: " + _failure(listing, ENV_LIST_TIMEOUT))
    if install.base_prefix is None:
        install.base_prefix = install_root(host, exe)
        for env in install.envs:
            if _same_path(env.prefix, install.base_prefix):
                env.is_base, env.name = True, "base"
    install.error = "; ".join(errors) or None
    return install


def _failure(res: CommandResult, timeout: float) -> str:
    if res.timed_out:
        return f"timed out after {timeout:.0f} s"
    if res.error:
        return res.error
    lines = [ln.strip() for ln in (res.stderr or res.stdout or "").splitlines() if ln.strip()]
    return f"exit code {res.returncode}" + (f": {lines[-1][:300]}" if lines else "")


__all__ = [
    "find_conda",
    "install_root",
    "parse_conda_env_list",
    "parse_conda_version",
]
