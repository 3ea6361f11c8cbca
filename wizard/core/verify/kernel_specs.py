"""The Jupyter kernels registered on this machine, and what is wrong with each.

Why: the most common complaint after a "successful" install is "CUDA works in the terminal but
not in the notebook" -- the notebook runs another interpreter than the one that was verified.
A kernel is a folder with a ``kernel.json`` whose ``argv[0]`` is the interpreter the notebook
starts; this module lists those folders (through jupyter_client's ``KernelSpecManager`` when the
wizard has it, else by reading the same folders directly) and flags the traps students meet:

* ``interpreter_missing``: the spec points at an environment that was deleted (the notebook
  then fails with "kernel died" and no word of why);
* ``cpu_build``: torch in that kernel is a CPU build while this PC has an NVIDIA GPU;
* ``non_ascii_path``: a Hangul (non-ASCII) Windows user name in the kernel's or the
  interpreter's path, which older Jupyter and VS Code versions fail to start;
* ``conda_hidden``: a conda environment VS Code will not list (no ``conda`` on PATH, or the
  environment lives outside the default ``envs`` folders);
* ``broken_spec``: a kernel folder whose ``kernel.json`` is missing, unreadable or not a kernel
  spec. Jupyter (and jupyter_client's listing) silently leave such a kernel out, so the student
  sees it vanish; here it is listed, state "broken", with the reason.

The torch build is read from ``torch/version.py`` by a tiny child of that interpreter (no
``import torch``: listing ten kernels must not take ten torch imports), run through the one
process runner.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from wizard.core.base.process import ProcessSpec, child_env, parse_json_line, run_process

INSPECT_TIMEOUT_S = 30.0
# What the child reports about its interpreter: the prefix (the environment), whether ipykernel
# and torch are there, and torch/version.py's text (the build's CUDA/HIP without importing torch).
INSPECT_SNIPPET = (
    "import importlib.util, json, os, sys\n"
    "out = {'prefix': sys.prefix, 'python': sys.version.split()[0], 'executable': sys.executable,\n"
    "       'ipykernel': importlib.util.find_spec('ipykernel') is not None,\n"
    "       'conda': os.path.isdir(os.path.join(sys.prefix, 'conda-meta')), 'torch_version_py': None}\n"
    "spec = importlib.util.find_spec('torch')\n"
    "if spec is not None and spec.submodule_search_locations:\n"
    "    path = os.path.join(list(spec.submodule_search_locations)[0], 'version.py')\n"
    "    try:\n"
    "        with open(path, encoding='utf-8') as fh:\n"
    "            out['torch_version_py'] = fh.read(20000)\n"
    "    except OSError as exc:\n"
    "        out['torch_version_py'] = ''\n"
    "        out['torch_error'] = str(exc)\n"
    "print('GSW-ENV ' + json.dumps(out))\n"
)
MARK = "GSW-ENV "


@dataclass
class TorchBuild:
    """torch's version and what it was built for, from ``torch/version.py``."""

    version: str | None
    cuda: str | None = None
    hip: str | None = None

    @property
    def gpu(self) -> bool:
        return bool(self.cuda or self.hip)


@dataclass
class EnvFacts:
    """One interpreter, seen from inside (the :data:`INSPECT_SNIPPET` child)."""

    python_exe: str
    prefix: str | None = None
    python_version: str | None = None
    ipykernel: bool = False
    conda: bool = False
    torch: TorchBuild | None = None
    error: str | None = None  # the interpreter could not be run: why

    @property
    def env_name(self) -> str:
        """The environment's folder name ("venv", "dl-course"), what a display name shows."""
        prefix = Path(self.prefix or Path(self.python_exe).parent.parent)
        name = prefix.name
        if name.lower() in {".venv", "venv", "env", ".env"} and prefix.parent.name:
            return f"{prefix.parent.name}/{name}"
        return name or str(prefix)


@dataclass
class Flag:
    """One problem of a kernel: a message id under ``j.kernel.flag.`` and its severity."""

    id: str
    severity: str  # "fail" | "warn"
    params: dict[str, str] = field(default_factory=dict)


@dataclass
class KernelInfo:
    """A registered kernel, what its interpreter is, and its flags."""

    name: str
    display_name: str
    resource_dir: str
    argv: list[str]
    language: str = "python"
    interpreter: str | None = None  # argv[0] resolved to a file, None when it is not there
    env: EnvFacts | None = None
    flags: list[Flag] = field(default_factory=list)
    broken: str | None = None  # why its kernel.json cannot be used (then it is listed, never dropped)

    @property
    def status(self) -> str:
        if any(f.severity == "fail" for f in self.flags):
            return "fail"
        return "warn" if self.flags else "pass"

    @property
    def state(self) -> str:
        """``status``, or "broken" for a kernel whose spec cannot be read."""
        return "broken" if self.broken else self.status

    def to_json(self) -> dict[str, Any]:
        torch = self.env.torch if self.env is not None else None
        return {
            "name": self.name, "display_name": self.display_name, "resource_dir": self.resource_dir,
            "argv": list(self.argv), "language": self.language, "interpreter": self.interpreter,
            "status": self.status, "state": self.state, "broken": self.broken,
            "python_version": self.env.python_version if self.env else None,
            "prefix": self.env.prefix if self.env else None,
            "ipykernel": self.env.ipykernel if self.env else None,
            "torch": None if torch is None else {"version": torch.version, "cuda": torch.cuda, "hip": torch.hip},
            "flags": [{"id": f.id, "severity": f.severity, "params": f.params} for f in self.flags],
        }


# --------------------------------------------------------------------------------------------
# Reading torch/version.py and an interpreter
# --------------------------------------------------------------------------------------------
_ASSIGN = re.compile(r"^(__version__|cuda|hip)\s*(?::[^=]*)?=\s*(.+?)\s*$", re.M)


def parse_torch_version_py(text: str) -> TorchBuild:
    """``__version__``, ``cuda`` and ``hip`` from torch's generated ``version.py``."""
    found: dict[str, str | None] = {}
    for name, value in _ASSIGN.findall(text):
        value = value.strip()
        if value == "None":
            found[name] = None
        elif len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            found[name] = value[1:-1]
    return TorchBuild(found.get("__version__"), found.get("cuda"), found.get("hip"))


def inspect_python(python_exe: str, timeout: float = INSPECT_TIMEOUT_S) -> EnvFacts:
    """Run :data:`INSPECT_SNIPPET` in ``python_exe``; never raises for the child's sake."""
    env = child_env()
    for name in ("PYTHONHOME", "PYTHONPATH", "PYTHONSTARTUP"):
        env.pop(name, None)
    result = run_process(ProcessSpec([python_exe, "-c", INSPECT_SNIPPET], env, None, timeout,
                                     keep_chars=40000))
    facts = EnvFacts(python_exe=python_exe)
    data = None
    for line in result.stdout.splitlines():
        if line.startswith(MARK):
            data = parse_json_line(line[len(MARK):])
    if not isinstance(data, dict):
        why = result.error or ("timed out" if result.timed_out else result.stderr.strip()[-500:])
        facts.error = why or f"exit status {result.returncode}"
        return facts
    facts.prefix = data.get("prefix")
    facts.python_version = data.get("python")
    facts.ipykernel = bool(data.get("ipykernel"))
    facts.conda = bool(data.get("conda"))
    text = data.get("torch_version_py")
    if isinstance(text, str):
        facts.torch = parse_torch_version_py(text)
    return facts


# --------------------------------------------------------------------------------------------
# Finding the kernel specs
# --------------------------------------------------------------------------------------------
def jupyter_data_dirs(environ: Mapping[str, str] | None = None, os_name: str | None = None) -> list[str]:
    """Jupyter's data folders, first wins (``jupyter --paths``'s order): JUPYTER_DATA_DIR or the
    user's folder, JUPYTER_PATH, this Python's prefix, then the system folders. Used only when
    jupyter_client is not importable; it computes the same list itself."""
    env = os.environ if environ is None else environ
    os_name = os_name or ("windows" if os.name == "nt" else "macos" if sys.platform == "darwin" else "linux")
    home = env.get("HOME") or env.get("USERPROFILE") or str(Path.home())
    if env.get("JUPYTER_DATA_DIR"):
        user = env["JUPYTER_DATA_DIR"]
    elif os_name == "windows":
        user = os.path.join(env.get("APPDATA") or os.path.join(home, "AppData", "Roaming"), "jupyter")
    elif os_name == "macos":
        user = os.path.join(home, "Library", "Jupyter")
    else:
        user = os.path.join(env.get("XDG_DATA_HOME") or os.path.join(home, ".local", "share"), "jupyter")
    dirs = [user]
    dirs += [p for p in (env.get("JUPYTER_PATH") or "").split(os.pathsep) if p]
    dirs.append(os.path.join(sys.prefix, "share", "jupyter"))
    if os_name == "windows":
        dirs.append(os.path.join(env.get("PROGRAMDATA") or r"C:\ProgramData", "jupyter"))
    else:
        dirs += ["/usr/local/share/jupyter", "/usr/share/jupyter"]
    return dirs


def read_kernel_dirs(data_dirs: Sequence[str]) -> dict[str, dict[str, Any]]:
    """``{name: {"resource_dir", "spec"}}`` from ``<dir>/kernels/*/kernel.json`` (first wins,
    as Jupyter does); a folder without a readable ``kernel.json`` is left out."""
    found: dict[str, dict[str, Any]] = {}
    for data_dir in data_dirs:
        kernels = Path(data_dir) / "kernels"
        if not kernels.is_dir():
            continue
        for folder in sorted(kernels.iterdir()):
            name = folder.name.lower()
            spec_file = folder / "kernel.json"
            if name in found or not spec_file.is_file():
                continue
            if _spec_problem(str(spec_file)) is not None:
                continue  # listed as broken by broken_kernels
            try:
                spec = json.loads(spec_file.read_text(encoding="utf-8"))
            except (OSError, ValueError, RecursionError):
                continue
            if isinstance(spec, dict):
                found[name] = {"resource_dir": str(folder), "spec": spec}
    return found


MAX_SPEC_BYTES = 1_000_000


def broken_kernels(data_dirs: Sequence[str], known: Sequence[str]) -> dict[str, str]:
    """``{name: why}`` for the kernel folders of ``data_dirs`` that are not in ``known`` because
    their ``kernel.json`` is missing, unreadable or not a spec object (first folder of a name wins)."""
    seen = {n.lower() for n in known}
    out: dict[str, str] = {}
    for data_dir in data_dirs:
        kernels = os.path.join(data_dir, "kernels")
        try:
            folders = sorted(os.listdir(kernels))
        except OSError:
            continue
        for entry in folders:
            name = entry.lower()
            folder = os.path.join(kernels, entry)
            if name in seen or name in out or not os.path.isdir(folder):
                continue
            seen.add(name)
            why = _spec_problem(os.path.join(folder, "kernel.json"))
            if why is not None:
                out[name] = why
    return out


def _spec_problem(path: str) -> str | None:
    from wizard.core.base.user_files import open_user_file
    from wizard.core.base.user_input import loads_user_json, read_bounded

    try:
        with open_user_file(path) as fh:
            raw, cut = read_bounded(fh, MAX_SPEC_BYTES)
    except FileNotFoundError:
        return "kernel.json is missing"
    except OSError as exc:
        return f"kernel.json cannot be read: {exc.strerror or exc}"
    if cut:
        return "kernel.json is too large"
    try:
        spec = loads_user_json(raw.decode("utf-8", "replace"))
    except ValueError as exc:
        return f"kernel.json is not valid JSON: {str(exc)[:200]}"
    if not isinstance(spec, dict) or not isinstance(spec.get("argv"), list) or not spec.get("argv"):
        return "kernel.json has no argv list"
    return None


def kernel_dirs_searched() -> list[str]:
    """Jupyter's data folders, as jupyter_client computes them when it is there."""
    try:
        from jupyter_core.paths import jupyter_path
    except ImportError:
        return jupyter_data_dirs()
    return list(jupyter_path())


def all_specs() -> dict[str, dict[str, Any]]:
    """Every registered kernel spec, as jupyter_client sees it (else the folders read directly)."""
    try:
        from jupyter_client.kernelspec import KernelSpecManager
    except ImportError:
        return read_kernel_dirs(jupyter_data_dirs())
    manager = KernelSpecManager()
    manager.ensure_native_kernel = False  # the wizard's own Python is not a kernel of the student's
    return manager.get_all_specs()


def resolve_interpreter(argv0: str) -> str | None:
    """``argv[0]`` of a spec as a file: an absolute path that exists, or a name found on PATH."""
    if not argv0:
        return None
    if os.path.isabs(argv0):
        return argv0 if os.path.isfile(argv0) else None
    return shutil.which(argv0)


# --------------------------------------------------------------------------------------------
# The traps
# --------------------------------------------------------------------------------------------
def non_ascii(path: str | None) -> bool:
    return bool(path) and any(ord(ch) > 127 for ch in str(path))


def path_flags(paths: Sequence[str | None], os_name: str) -> list[Flag]:
    """A non-ASCII (Hangul) folder name in a kernel's path: a trap on Windows only."""
    if os_name != "windows":
        return []
    for path in paths:
        if non_ascii(path):
            return [Flag("non_ascii_path", "warn", {"path": str(path)})]
    return []


def conda_flags(env: EnvFacts | None, which_conda: str | None) -> list[Flag]:
    """A conda environment VS Code's Python extension will not list."""
    if env is None or not env.conda or not env.prefix:
        return []
    flags = []
    if which_conda is None:
        flags.append(Flag("conda_not_on_path", "warn", {"prefix": env.prefix}))
    prefix = Path(env.prefix)
    is_base = (prefix / "condabin").is_dir()
    if not is_base and prefix.parent.name != "envs":
        flags.append(Flag("conda_outside_envs", "warn", {"prefix": env.prefix}))
    return flags


def kernel_flags(info: KernelInfo, gpu_machine: bool, os_name: str, which_conda: str | None) -> list[Flag]:
    """Every flag of one kernel (its ``env`` already inspected, or None)."""
    flags: list[Flag] = []
    argv0 = info.argv[0] if info.argv else ""
    if info.interpreter is None:
        flags.append(Flag("interpreter_missing", "fail", {"path": argv0, "name": info.name}))
    elif info.env is not None and info.env.error:
        flags.append(Flag("interpreter_broken", "fail", {"path": argv0, "error": info.env.error[-300:]}))
    if info.env is not None and info.env.torch is not None and gpu_machine and not info.env.torch.gpu:
        flags.append(Flag("cpu_build", "warn", {"version": info.env.torch.version or "?"}))
    flags += path_flags([info.resource_dir, info.interpreter or argv0], os_name)
    flags += conda_flags(info.env, which_conda)
    return flags


def list_kernels(gpu_machine: bool, os_name: str, specs: Mapping[str, Mapping[str, Any]] | None = None,
                 inspect: bool = True) -> list[KernelInfo]:
    """The registered kernels with their interpreters inspected and flagged.

    ``gpu_machine``: this PC has an NVIDIA GPU (the session's detection). ``inspect``: run each
    Python kernel's interpreter once (about 50 ms each) to read its torch build."""
    broken: dict[str, str] = {}
    if specs is None:
        specs = all_specs()
        broken = broken_kernels(kernel_dirs_searched(), list(specs))
    which_conda = shutil.which("conda")
    out = []
    for name in sorted(broken):
        flag = Flag("broken_spec", "fail", {"name": name, "error": broken[name]})
        out.append(KernelInfo(name=name, display_name=name, resource_dir="", argv=[], language="",
                              flags=[flag], broken=broken[name]))
    for name in sorted(specs):
        entry = specs[name]
        spec = entry.get("spec") or {}
        if not isinstance(spec, Mapping):
            spec = {}
        raw_argv = spec.get("argv")
        argv = [str(a) for a in raw_argv] if isinstance(raw_argv, list) else []
        info = KernelInfo(name=name, display_name=str(spec.get("display_name") or name),
                          resource_dir=str(entry.get("resource_dir") or ""), argv=argv,
                          language=str(spec.get("language") or ""))
        info.interpreter = resolve_interpreter(argv[0]) if argv else None
        if inspect and info.interpreter and info.language.lower() == "python":
            info.env = inspect_python(info.interpreter)
        info.flags = kernel_flags(info, gpu_machine, os_name, which_conda)
        out.append(info)
    return sorted(out, key=lambda k: k.name)


__all__ = ["TorchBuild", "EnvFacts", "Flag", "KernelInfo", "parse_torch_version_py", "inspect_python",
           "jupyter_data_dirs", "read_kernel_dirs", "all_specs", "broken_kernels", "kernel_dirs_searched", "resolve_interpreter", "non_ascii", "path_flags",
           "conda_flags", "kernel_flags", "list_kernels"]
