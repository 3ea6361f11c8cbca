"""The checks before anything is downloaded or created (:func:`preflight`).

Why a module of its own: a student must learn that the disk is too small, the folder is not
writable or the path too long for Windows *before* a 3 GB download, in Korean or English; the
GUI shows these checks live as the student types, the CLI prints them, and the install refuses
to start while one blocks.

Each check is a :class:`Check`: free space against the download plus the unpacked size, a
writable location, the Windows path-length limit (torch has files 170 characters deep), conda's
name rules, a new location that is empty. Hangul and spaces in paths are fine and are not
flagged. Three targets are refused unless the user confirms explicitly (a dialog in the GUI,
``--yes`` in the CLI): the wizard's own runtime, an "externally managed" (PEP 668) system
Python, and conda's base.
"""

from __future__ import annotations

import glob
import os
import re
import sys
import tempfile
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from wizard.core.base.host import Host
from wizard.core.base.i18n import Message, msg
from wizard.core.install.environments import (
    INCOMPLETE_MARKER,
    KIND_EXISTING_CONDA,
    KIND_EXISTING_PYTHON,
    KIND_EXISTING_VENV,
    KIND_NEW_CONDA,
    KIND_NEW_VENV,
    EnvTarget,
    normalized_path,
    paths_for,
)
from wizard.core.machine.models import PythonInterpreter
from wizard.core.machine.system import parse_reg_value

# Windows MAX_PATH is 260 characters including the drive and the terminating NUL.
WINDOWS_MAX_PATH = 259
# The deepest file in a torch wheel, below site-packages: 171 characters, measured on
# torch-2.13.0+cpu (cp311, manylinux_2_28_x86_64): a dist-info license file under
# licenses/third_party/kineto/.../duktape-1.5.2/LICENSE.txt. Windows wheels carry the same tree.
TORCH_DEEPEST_MEMBER = 171
SITE_PACKAGES_WINDOWS = "\\Lib\\site-packages\\"
LONG_PATHS_KEY = r"HKLM\SYSTEM\CurrentControlSet\Control\FileSystem"

# Unpacked size over download size. Measured: torch-2.13.0+cpu wheel 191.8 MB -> 699.3 MB
# unpacked (3.65x, from its zip directory); a CUDA torch 2.14.1 + torchvision environment is
# ~5.6 GB for ~3 GB of wheels (~1.9x). The plan uses this before the download; after it the
# exact unpacked size is read from the wheels' zip directories (:func:`unpacked_size`).
UNPACK_FACTOR = 2.0
NEW_VENV_BYTES = 30 * 1000 * 1000  # an empty venv with pip
NEW_CONDA_BYTES = 250 * 1000 * 1000  # python and its conda dependencies, plus conda's package cache
SPACE_MARGIN_BYTES = 200 * 1000 * 1000

# conda: ``PREFIX_NAME_DISALLOWED_CHARS`` in conda/base/constants.py, and the reserved names.
CONDA_NAME_DISALLOWED = ("/", " ", ":", "#")
CONDA_RESERVED_NAMES = ("base", "root")


SEVERITY_ERROR = "error"  # cannot go on
SEVERITY_CONFIRM = "confirm"  # goes on only when the user confirms explicitly
SEVERITY_WARNING = "warning"
SEVERITY_OK = "ok"

CHECK_OWN_RUNTIME = "own-runtime"
CHECK_EXTERNALLY_MANAGED = "externally-managed"
CHECK_CONDA_BASE = "conda-base"
CONFIRMABLE = (CHECK_OWN_RUNTIME, CHECK_EXTERNALLY_MANAGED, CHECK_CONDA_BASE)


@dataclass
class Check:
    id: str
    severity: str
    message: Message
    confirmed: bool = False

    @property
    def blocks(self) -> bool:
        return self.severity == SEVERITY_ERROR or (self.severity == SEVERITY_CONFIRM and not self.confirmed)

    def text(self, lang: str | None) -> str:
        return self.message.text(lang)

    def to_json(self, lang: str | None) -> dict[str, Any]:
        return {"id": self.id, "severity": self.severity, "confirmed": self.confirmed, "blocks": self.blocks,
                "text": self.text(lang)}


@dataclass
class PreflightResult:
    checks: list[Check]

    @property
    def ok(self) -> bool:
        return not any(c.blocks for c in self.checks)

    @property
    def blocking(self) -> list[Check]:
        return [c for c in self.checks if c.blocks]

    @property
    def needs_confirmation(self) -> list[Check]:
        return [c for c in self.checks if c.severity == SEVERITY_CONFIRM and not c.confirmed]

    def get(self, check_id: str) -> Check | None:
        return next((c for c in self.checks if c.id == check_id), None)


def conda_name_problem(name: str, existing: Iterable[str] = ()) -> Message | None:
    """Why ``name`` cannot be a new conda env name, or None. conda's own rules (no ``/``,
    space, ``:``, ``#``; not base/root) plus: not empty, not a path, not an existing env."""
    if not name or not name.strip():
        return msg("install.check.conda_name.empty")
    bad = [c for c in CONDA_NAME_DISALLOWED if c in name] + (["\\"] if "\\" in name else [])
    if bad:
        shown = " ".join("space" if c == " " else c for c in bad)
        return msg("install.check.conda_name.chars", name=name, chars=shown)
    if name.lower() in CONDA_RESERVED_NAMES:
        return msg("install.check.conda_name.reserved", name=name)
    if name in (".", ".."):
        return msg("install.check.conda_name.chars", name=name, chars=name)
    if name in set(existing):
        return msg("install.check.conda_name.exists", name=name)
    return None


def windows_long_paths_enabled(host: Host) -> bool | None:
    """``LongPathsEnabled`` = 1 in the registry (None when it cannot be read)."""
    res = host.run(["reg", "query", LONG_PATHS_KEY, "/v", "LongPathsEnabled"], timeout=10)
    if not res.ok:
        # exit code 1 with "unable to find": the value is absent, i.e. the default (off)
        return False if res.returncode == 1 else None
    value = parse_reg_value(res.stdout, "LongPathsEnabled")
    if value is None:
        return None
    try:
        return int(value, 16 if value.lower().startswith("0x") else 10) == 1
    except ValueError:
        return None


def deepest_path_length(env_path: str, deepest_member: int = TORCH_DEEPEST_MEMBER) -> int:
    """Characters of the deepest file the install writes on Windows."""
    return len(env_path.rstrip("\\/")) + len(SITE_PACKAGES_WINDOWS) + deepest_member


def max_env_path_length(deepest_member: int = TORCH_DEEPEST_MEMBER) -> int:
    return WINDOWS_MAX_PATH - len(SITE_PACKAGES_WINDOWS) - deepest_member


def probe_writable(path: str) -> str | None:
    """None when a file can be created at ``path`` (or its nearest existing parent, which is
    where a new folder would go); else the reason. Really writes: permission bits lie on
    Windows and on network drives."""
    probe = os.path.abspath(path)
    while not os.path.exists(probe):
        parent = os.path.dirname(probe)
        if parent == probe:
            return "no existing parent folder"
        probe = parent
    if not os.path.isdir(probe):
        return f"{probe} is a file, not a folder"
    try:
        fd, name = tempfile.mkstemp(prefix=".gsw-write-test-", dir=probe)
    except OSError as exc:
        return exc.strerror or str(exc)
    os.close(fd)
    os.unlink(name)
    return None


def _folder_state(path: str) -> str:
    """'missing', 'empty', 'venv', 'conda', 'file' or 'nonempty' for a local path."""
    if not os.path.exists(path):
        return "missing"
    if not os.path.isdir(path):
        return "file"
    entries = [e for e in os.listdir(path) if e != INCOMPLETE_MARKER]
    if not entries:
        return "empty"
    if os.path.isfile(os.path.join(path, "pyvenv.cfg")):
        return "venv"
    if os.path.isdir(os.path.join(path, "conda-meta")):
        return "conda"
    return "nonempty"


def preflight(target: EnvTarget, host: Host, *, download_bytes: int = 0, unpacked_bytes: int | None = None,
              cache_dir: str | None = None, interpreter: PythonInterpreter | None = None,
              own_prefixes: Sequence[str] | None = None, existing_conda_names: Iterable[str] = (),
              conda_base_prefix: str | None = None, confirmed: Iterable[str] = (),
              writable: Callable[[str], str | None] | None = None,
              folder_state: Callable[[str], str] | None = None,
              deepest_member: int = TORCH_DEEPEST_MEMBER, replacing: Iterable[str] = ()) -> PreflightResult:
    """Every check for ``target`` before anything is downloaded or created.

    ``download_bytes``: what still has to come over the network; ``unpacked_bytes``: what the
    install writes into the environment (default: ``download_bytes`` x :data:`UNPACK_FACTOR`,
    plus the files already cached); ``interpreter``: the target's interpreter as
    :func:`wizard.core.machine.pythons.query_interpreter` described it (for PEP 668 and its prefix);
    ``confirmed``: ids of the refusals the user has explicitly accepted.
    ``writable``/``folder_state`` probe the local file system; tests pass their own.
    ``replacing``: the distributions the install writes (the plan's); what of them is already in the
    environment's site-packages (a resume after ENOSPC finds a half-unpacked torch there) is
    overwritten, so it counts as free space (:func:`replaced_bytes`).
    """
    checks = _location_checks(target, cache_dir, existing_conda_names, writable or probe_writable,
                              folder_state or _folder_state)
    checks += _path_length_checks(target, host, deepest_member)
    checks += _space_checks(target, host, download_bytes, unpacked_bytes, cache_dir, replacing)
    checks += _refusals(target, interpreter, own_prefixes, conda_base_prefix, set(confirmed))
    return PreflightResult(checks)


def _location_checks(target: EnvTarget, cache_dir: str | None, existing_conda_names: Iterable[str],
                     writable: Callable[[str], str | None], folder_state: Callable[[str], str]) -> list[Check]:
    """Can the environment go where the student asked: an empty folder for a new venv, a venv for
    an existing one, a valid conda name and a conda to run, writable locations."""
    checks: list[Check] = []
    if target.kind == KIND_NEW_VENV:
        state = folder_state(target.path)
        if state in ("venv", "conda", "nonempty"):
            checks.append(Check("path-not-empty", SEVERITY_ERROR, msg("install.check.not_empty", path=target.path)))
        elif state == "file":
            checks.append(Check("path-is-file", SEVERITY_ERROR, msg("install.check.is_file", path=target.path)))
    if target.kind == KIND_EXISTING_VENV and folder_state(target.path) != "venv":
        checks.append(Check("not-a-venv", SEVERITY_ERROR, msg("install.check.not_a_venv", path=target.path)))
    if target.kind == KIND_NEW_CONDA:
        problem = conda_name_problem(target.name or "", existing_conda_names)
        if problem is not None:
            checks.append(Check("conda-name", SEVERITY_ERROR, problem))
        if not target.conda_exe:
            checks.append(Check("no-conda", SEVERITY_ERROR, msg("install.check.no_conda")))
    if target.path and target.kind != KIND_EXISTING_PYTHON:
        reason = writable(target.path)
        if reason is not None:
            checks.append(Check("not-writable", SEVERITY_ERROR,
                                msg("install.check.not_writable", path=target.path, reason=reason)))
    if cache_dir:
        reason = writable(cache_dir)
        if reason is not None:
            checks.append(Check("cache-not-writable", SEVERITY_ERROR,
                                msg("install.check.not_writable", path=cache_dir, reason=reason)))
    return checks


def _path_length_checks(target: EnvTarget, host: Host, deepest_member: int) -> list[Check]:
    """On Windows without long paths enabled, torch's deepest file must stay within MAX_PATH."""
    if target.os_name != "windows" or not target.path or target.kind == KIND_EXISTING_PYTHON:
        return []
    longest = deepest_path_length(target.path, deepest_member)
    if longest <= WINDOWS_MAX_PATH or windows_long_paths_enabled(host) is True:
        return []
    return [Check("path-too-long", SEVERITY_ERROR, msg(
        "install.check.path_too_long", path=target.path, length=longest, limit=WINDOWS_MAX_PATH,
        max=max_env_path_length(deepest_member)))]


def _space_checks(target: EnvTarget, host: Host, download_bytes: int, unpacked_bytes: int | None,
                  cache_dir: str | None, replacing: Iterable[str] = ()) -> list[Check]:
    """Free space for the unpacked install (and a new env's own files) and for the download cache,
    counted together when both are on one volume. Files of the packages being installed that are
    already in the environment are overwritten, so they are subtracted from the need."""
    checks: list[Check] = []
    unpacked = int(unpacked_bytes if unpacked_bytes is not None else download_bytes * UNPACK_FACTOR)
    replaced = replaced_bytes(target, replacing)
    if replaced:
        from wizard.core.install.plan import format_bytes

        unpacked = max(0, unpacked - replaced)
        checks.append(Check("space-replaced", SEVERITY_OK, msg("install.check.space_replaced", path=target.path,
                                                               size=format_bytes(replaced))))
    env_need = unpacked + (NEW_CONDA_BYTES if target.kind == KIND_NEW_CONDA else
                           NEW_VENV_BYTES if target.kind == KIND_NEW_VENV else 0)
    env_disk = host.disk_free(target.path) if target.path else None
    cache_disk = host.disk_free(cache_dir) if cache_dir else None
    same_volume = env_disk is not None and cache_disk is not None and env_disk == cache_disk
    if same_volume and env_disk is not None:
        need = env_need + download_bytes + SPACE_MARGIN_BYTES
        checks.append(_space_check("disk-space", target.path, env_disk, need))
    else:
        if env_disk is not None:
            checks.append(_space_check("disk-space", target.path, env_disk, env_need + SPACE_MARGIN_BYTES))
        if cache_disk is not None and download_bytes:
            checks.append(_space_check("cache-space", cache_dir or "", cache_disk, download_bytes + SPACE_MARGIN_BYTES))
    if env_disk is None and target.path:
        checks.append(Check("disk-space", SEVERITY_WARNING, msg("install.check.space_unknown", path=target.path)))
    return checks


def _refusals(target: EnvTarget, interpreter: PythonInterpreter | None, own_prefixes: Sequence[str] | None,
              conda_base_prefix: str | None, confirmed: set[str]) -> list[Check]:
    """The three targets that need an explicit yes: the wizard's own runtime, a PEP 668 system
    Python, conda's base environment."""
    checks: list[Check] = []
    if _is_own_runtime(target, own_prefixes) and not target.creates_env:
        checks.append(Check(CHECK_OWN_RUNTIME, SEVERITY_CONFIRM, msg("install.check.own_runtime", path=target.path),
                            confirmed=CHECK_OWN_RUNTIME in confirmed))
    if interpreter is not None and interpreter.externally_managed and not target.creates_env:
        checks.append(Check(CHECK_EXTERNALLY_MANAGED, SEVERITY_CONFIRM,
                            msg("install.check.externally_managed", python=interpreter.path),
                            confirmed=CHECK_EXTERNALLY_MANAGED in confirmed))
    is_base = target.kind == KIND_EXISTING_CONDA and (
        (target.name or "").lower() in CONDA_RESERVED_NAMES
        or (conda_base_prefix is not None
            and normalized_path(conda_base_prefix, target.os_name) == normalized_path(target.path, target.os_name)))
    if is_base:
        checks.append(Check(CHECK_CONDA_BASE, SEVERITY_CONFIRM, msg("install.check.conda_base", path=target.path),
                            confirmed=CHECK_CONDA_BASE in confirmed))
    return checks


def _is_own_runtime(target: EnvTarget, own_prefixes: Sequence[str] | None) -> bool:
    """Is the target the environment the wizard itself runs from (default: ``sys.prefix``)?"""
    own = [p for p in (list(own_prefixes) if own_prefixes is not None else [sys.prefix]) if p]
    if target.kind == KIND_EXISTING_PYTHON:
        exe = normalized_path(target.python_exe, target.os_name)
        sep = paths_for(target.os_name).sep
        return any(exe.startswith(normalized_path(p, target.os_name) + sep) for p in own)
    return any(normalized_path(target.path, target.os_name) == normalized_path(p, target.os_name) for p in own)


def _space_check(check_id: str, path: str, disk: tuple[int, int], need: int) -> Check:
    from wizard.core.install.plan import format_bytes

    free = disk[0]
    if free < need:
        return Check(check_id, SEVERITY_ERROR, msg("install.check.space_short", path=path, free=format_bytes(free),
                                                   need=format_bytes(need)))
    return Check(check_id, SEVERITY_OK, msg("install.check.space_ok", path=path, free=format_bytes(free),
                                            need=format_bytes(need)))


def _canonical(name: str) -> str:
    """A distribution or import name as wheels spell it on disk: ``Foo.Bar-baz`` → ``foo_bar_baz``."""
    return re.sub(r"[-_.]+", "_", name).lower()


def site_packages_dirs(target: EnvTarget) -> list[str]:
    """The target environment's site-packages folders that exist (none for a bare interpreter)."""
    if not target.path or target.kind == KIND_EXISTING_PYTHON:
        return []
    if target.os_name == "windows":
        candidates = [os.path.join(target.path, "Lib", "site-packages")]
    else:
        candidates = sorted(glob.glob(os.path.join(glob.escape(target.path), "lib", "python3*", "site-packages")))
    return [c for c in candidates if os.path.isdir(c)]


def _tree_bytes(path: str) -> int:
    """Bytes a file or folder takes (links not followed; a file that vanished counts 0)."""
    try:
        if not os.path.isdir(path) or os.path.islink(path):
            return os.lstat(path).st_size
    except OSError:
        return 0
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                continue
    return total


def replaced_bytes(target: EnvTarget, names: Iterable[str]) -> int:
    """Bytes already in the environment that installing the distributions ``names`` overwrites: for
    each, its package folder (``torch/``), its bundled libraries (``torch.libs/``), its metadata
    (``torch-*.dist-info``, ``*.data``) and a single-module ``torch.py``. After pip ran out of space
    half-way through unpacking, that is the half-written package a resume writes again."""
    wanted = {_canonical(n) for n in names if n}
    if not wanted:
        return 0
    total = 0
    for site in site_packages_dirs(target):
        try:
            entries = os.listdir(site)
        except OSError:
            continue
        for entry in entries:
            stem = entry
            for suffix in (".dist-info", ".data"):
                if entry.endswith(suffix):
                    stem = entry[: -len(suffix)].split("-")[0]
            for suffix in (".libs", ".py"):
                if stem.endswith(suffix):
                    stem = stem[: -len(suffix)]
            if _canonical(stem) in wanted:
                total += _tree_bytes(os.path.join(site, entry))
    return total


def unpacked_size(wheel_paths: Iterable[str | os.PathLike[str]]) -> tuple[int, int]:
    """(bytes the wheels unpack to, the longest member path), read from their zip directories
    (no extraction): the exact figures for the second space and path-length check."""
    import zipfile

    total = 0
    longest = 0
    for path in wheel_paths:
        with zipfile.ZipFile(path) as zf:
            for info in zf.infolist():
                total += info.file_size
                longest = max(longest, len(info.filename))
    return total, longest
