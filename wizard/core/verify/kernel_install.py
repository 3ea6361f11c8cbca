"""Register an environment as a Jupyter kernel, and point VS Code at it.

Registering is ``<env python> -m ipykernel install --user --name N --display-name D``: the
kernel's ``argv[0]`` is then that interpreter, so the notebook runs the environment the wizard
verified. ipykernel is installed into the environment first when it is missing -- only when
the caller says the student agreed (``consent``): it changes their environment.

VS Code reads ``python.defaultInterpreterPath`` from ``<project>/.vscode/settings.json``. The
file is merged (every other setting kept). VS Code allows comments and trailing commas there
(JSONC); such a file is refused plainly rather than rewritten without them -- the student's
comments are theirs.

A kernel name is letters, digits, ``.``, ``_`` and ``-``, starting with a letter or digit
(:func:`valid_name`): jupyter_client deletes ``kernels/<name>`` before it copies, so ``.`` took
every kernel and ``..`` all of ``~/.local/share/jupyter`` with it. A kernel of the same name that
is not this interpreter's (the student's own ``python3``) is never overwritten silently: the
registration stops and says which interpreter that kernel runs, and only ``replace`` (the CLI's
``--replace``) removes it -- through the one deletion rule (:mod:`wizard.core.base.deletion`:
only a folder with a kernelspec's own files, never through a link) -- before ipykernel installs.

After ipykernel has written the kernelspec, the wizard marks it as its own: ``kernel.json`` gets
``"metadata": {"gpu_setup_wizard": {"env": <the environment's prefix>}}`` (everything else kept;
jupyter_client passes any ``metadata`` through). The uninstaller's purge (``storage --clean
--wizard-envs``) removes a kernelspec only with that mark and only together with the environment
it names: kernels registered before the mark existed, or by hand, are never the purge's to take.

Every child runs through the one process runner, an argv list each.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from wizard.core.base import deletion
from wizard.core.base.files import write_atomic
from wizard.core.base.process import CancelLike, ProcessSpec, child_env, run_process
from wizard.core.install.plan import pip_argv, pip_command
from wizard.core.verify.kernel_specs import EnvFacts, Flag, conda_flags, inspect_python, path_flags

INSTALL_TIMEOUT_S = 900.0
REGISTER_TIMEOUT_S = 120.0
IPYKERNEL_REQUIREMENT = "ipykernel>=6"
# jupyter_client accepts [a-z0-9._-]+ (case-insensitive), "." and ".." included; a name must also
# start with a letter or digit here, so it is never a path step.
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._\-]{0,63}")
VSCODE_KEY = "python.defaultInterpreterPath"
MARKER_KEY = "gpu_setup_wizard"  # kernel.json's metadata.<this>.env: the environment the wizard registered
MAX_SPEC_BYTES = 1_000_000


def kernel_name(env: EnvFacts) -> str:
    """An ASCII kernel name for the environment: ``gsw-<folder>-<6 hex of its prefix>`` (a Hangul
    folder name keeps only the hash; the hash tells two ``venv`` folders apart)."""
    prefix = env.prefix or env.python_exe
    slug = re.sub(r"[^a-z0-9._-]+", "-", Path(prefix).name.lower()).strip("-.")[:30]
    digest = hashlib.sha1(prefix.encode("utf-8", "replace")).hexdigest()[:6]
    return f"gsw-{slug}-{digest}" if slug else f"gsw-{digest}"


def valid_name(name: str) -> bool:
    """A kernel name that is one plain folder name: not ``.``/``..``, no slash, no trailing newline."""
    return isinstance(name, str) and NAME_RE.fullmatch(name) is not None


def torch_label(env: EnvFacts) -> tuple[str, str]:
    """("2.13", "GPU"|"CPU") for the display name; ("", "") without torch."""
    if env.torch is None or not env.torch.version:
        return "", ""
    parts = re.findall(r"\d+", env.torch.version)[:2]
    return ".".join(parts), "GPU" if env.torch.gpu else "CPU"


@dataclass
class StepResult:
    """One child the registration ran: its argv, whether it worked, the end of its output."""

    argv: list[str]
    ok: bool
    returncode: int | None
    output_tail: str = ""
    timed_out: bool = False
    cancelled: bool = False
    error: str | None = None


@dataclass
class RegisterResult:
    """What :func:`register_kernel` did. ``needs_consent``: ipykernel is missing and the caller
    did not say the student agreed to install it (nothing was changed)."""

    name: str
    display_name: str
    env: EnvFacts
    ok: bool = False
    needs_consent: bool = False
    installed_ipykernel: bool = False
    steps: list[StepResult] = field(default_factory=list)
    failed_step: str | None = None  # "inspect" | "ipykernel" | "register"
    resource_dir: str | None = None  # where ipykernel wrote kernel.json
    warnings: list[Flag] = field(default_factory=list)  # the traps this kernel will meet (Hangul path, conda)
    existing: dict[str, str] | None = None  # a kernel of this name that runs another interpreter: {"dir", "python"}
    replaced: str | None = None  # the folder of the kernel that ``replace`` removed first
    marked: bool = False  # kernel.json carries the wizard's mark (the purge may take it with its environment)
    mark_error: str | None = None  # why the mark could not be written (the kernel works; the purge leaves it)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "display_name": self.display_name, "python": self.env.python_exe,
                "prefix": self.env.prefix, "ok": self.ok, "needs_consent": self.needs_consent,
                "installed_ipykernel": self.installed_ipykernel, "failed_step": self.failed_step,
                "resource_dir": self.resource_dir, "existing": self.existing, "replaced": self.replaced,
                "marked": self.marked, "mark_error": self.mark_error,
                "warnings": [{"id": f.id, "severity": f.severity, "params": f.params} for f in self.warnings],
                "steps": [{"argv": s.argv, "ok": s.ok, "returncode": s.returncode, "timed_out": s.timed_out,
                           "cancelled": s.cancelled, "error": s.error, "output_tail": s.output_tail[-3000:]}
                          for s in self.steps]}


def _run(argv: list[str], timeout: float, on_line: Callable[[str], None] | None, cancel: CancelLike) -> StepResult:
    env = child_env()
    for name in ("PYTHONHOME", "PYTHONPATH"):
        env.pop(name, None)
    res = run_process(ProcessSpec(argv, env, None, timeout, merge_stderr=True, keep_chars=20000), on_line, None,
                      cancel)
    return StepResult(res.argv, res.ok, res.returncode, res.stdout, res.timed_out, res.cancelled, res.error)


def ipykernel_install_argv(python_exe: str, python_version: str | None = None,
                           index_url: str | None = None) -> list[str]:
    """pip installing ipykernel into ``python_exe``'s environment (the wizard's pip driving it
    when it can, the environment's own pip otherwise: see :func:`pip_command`), from
    ``index_url`` (a PyPI mirror) or PyPI. pip runs ``--isolated``, so a mirror set in pip's own
    configuration is not seen: the caller names it."""
    index = ["--index-url", index_url] if index_url else []
    return pip_argv(pip_command(python_exe, python_version=python_version), "install", "--no-input",
                    "--progress-bar", "off", *index, IPYKERNEL_REQUIREMENT)


def register_argv(python_exe: str, name: str, display_name: str) -> list[str]:
    return [python_exe, "-m", "ipykernel", "install", "--user", "--name", name, "--display-name", display_name]


INSTALLED_RE = re.compile(r"Installed kernelspec \S+ in (.+?)\s*$", re.M)


def existing_kernel(name: str, python_exe: str, data_dirs: list[str] | None = None) -> dict[str, str] | None:
    """A registered kernel called ``name`` (any case, in any of Jupyter's data folders, first wins)
    that is not ``python_exe``'s: ``{"dir": its folder, "python": its argv[0]}``; None when there
    is none, or it already runs this interpreter (registering again only refreshes it)."""
    from wizard.core.verify.kernel_specs import jupyter_data_dirs

    for data_dir in data_dirs if data_dirs is not None else jupyter_data_dirs():
        kernels = os.path.join(data_dir, "kernels")
        try:
            names = os.listdir(kernels)
        except OSError:
            continue
        for entry in names:
            if entry.lower() != name.lower():
                continue
            folder = os.path.join(kernels, entry)
            argv0 = ""
            try:
                with open(os.path.join(folder, "kernel.json"), encoding="utf-8") as fh:
                    spec = json.loads(fh.read(1_000_000))
                argv0 = str((spec.get("argv") or [""])[0]) if isinstance(spec, dict) else ""
            except (OSError, ValueError, IndexError, TypeError, RecursionError):
                argv0 = ""
            if argv0 and _same_file(argv0, python_exe):
                return None
            return {"dir": folder, "python": argv0 or "?"}
    return None


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b) or os.path.abspath(a) == os.path.abspath(b)
    except OSError:
        return os.path.normcase(os.path.abspath(a)) == os.path.normcase(os.path.abspath(b))


def _read_spec(path: str) -> dict[str, Any] | None:
    """A ``kernel.json`` as an object (bounded, a regular file only), or None."""
    from wizard.core.base.user_files import open_user_file
    from wizard.core.base.user_input import loads_user_json, read_bounded

    try:
        with open_user_file(path) as fh:
            raw, cut = read_bounded(fh, MAX_SPEC_BYTES)
        spec = None if cut else loads_user_json(raw.decode("utf-8", "replace"))
    except (OSError, ValueError):
        return None
    return spec if isinstance(spec, dict) else None


def mark_kernelspec(resource_dir: str, prefix: str) -> None:
    """Add the wizard's mark (``metadata.gpu_setup_wizard.env = prefix``) to the kernel.json
    ipykernel just wrote, keeping every other key. Written to a temporary file in the same
    folder and moved over it (never a half-written spec; the temporary file never stays, so the
    folder keeps a kernelspec's own shape). Raises OSError/ValueError when it cannot."""
    path = os.path.join(resource_dir, "kernel.json")
    spec = _read_spec(path)
    if spec is None:
        raise ValueError(f"{path} is not a kernel spec")
    metadata = spec.get("metadata")
    metadata = dict(metadata) if isinstance(metadata, dict) else {}
    metadata[MARKER_KEY] = {"env": prefix}
    spec["metadata"] = metadata
    write_atomic(path, json.dumps(spec, ensure_ascii=False, indent=1) + "\n", shared=True)


@dataclass(frozen=True)
class MarkedKernel:
    """A kernelspec folder whose kernel.json carries the wizard's mark: the interpreter it runs
    (``argv[0]``) and the environment the mark names."""

    folder: str
    argv0: str
    env: str


def marked_kernelspecs(data_dirs: list[str] | None = None) -> list[MarkedKernel]:
    """Every kernelspec in Jupyter's data folders (``kernel_specs.jupyter_data_dirs``, as
    :func:`existing_kernel` searches) that the wizard marked; each folder once. A folder that is a
    link is listed too (its kernel.json read through it): whoever deletes refuses it, and says so."""
    from wizard.core.verify.kernel_specs import jupyter_data_dirs

    found: list[MarkedKernel] = []
    seen: set[str] = set()
    for data_dir in data_dirs if data_dirs is not None else jupyter_data_dirs():
        kernels = os.path.join(data_dir, "kernels")
        try:
            names = sorted(os.listdir(kernels))
        except OSError:
            continue
        for entry in names:
            folder = os.path.join(kernels, entry)
            key = os.path.normcase(os.path.abspath(folder))
            if key in seen:
                continue
            seen.add(key)
            spec = _read_spec(os.path.join(folder, "kernel.json"))
            if spec is None:
                continue
            meta = spec.get("metadata")
            mark = meta.get(MARKER_KEY) if isinstance(meta, dict) else None
            env = mark.get("env") if isinstance(mark, dict) else None
            argv = spec.get("argv")
            argv0 = argv[0] if isinstance(argv, list) and argv else None
            if isinstance(env, str) and env and isinstance(argv0, str) and argv0:
                found.append(MarkedKernel(folder, argv0, env))
    return found


def remove_kernelspec(folder: str) -> deletion.DeleteResult:
    """Delete one kernelspec folder under the deletion rule: only ``kernel.json`` and its logos,
    never a link. Raises :class:`~wizard.core.base.deletion.DeletionRefused` otherwise."""
    return deletion.execute(deletion.plan_kernelspec(folder))


def _mark(result: RegisterResult) -> None:
    """Mark the kernel just registered as the wizard's, for its environment's prefix as the
    interpreter reported it. A kernel without the mark still works; only the purge leaves it."""
    from wizard.core.verify.kernel_specs import jupyter_data_dirs

    folder = result.resource_dir or os.path.join(jupyter_data_dirs()[0], "kernels", result.name)
    if not result.env.prefix:
        result.mark_error = "the interpreter did not report its prefix"
        return
    try:
        mark_kernelspec(folder, result.env.prefix)
    except (OSError, ValueError) as exc:
        result.mark_error = str(exc)[:300]
        return
    result.marked = True


def register_kernel(python_exe: str, display_name_for: Callable[[EnvFacts], str], *, name: str | None = None,
                    consent: bool = False, on_line: Callable[[str], None] | None = None,
                    cancel: CancelLike = None, os_name: str = "linux", replace: bool = False,
                    index_url: str | None = None) -> RegisterResult:
    """Register ``python_exe`` as a kernel (``--user``). ``display_name_for`` makes the display
    name from the inspected environment (the caller's language). ipykernel is installed first
    when missing, only with ``consent``; without it the result says ``needs_consent``. A
    registered kernel's ``warnings`` are the traps it will meet on ``os_name`` (a Hangul path on
    Windows, a conda environment VS Code will not list). A name that is not :func:`valid_name` is
    refused (``failed_step`` "name"); a kernel of that name running another interpreter stops the
    registration (``failed_step`` "exists", ``existing`` says which) unless ``replace``.

    A registered kernel is then marked as the wizard's (:func:`mark_kernelspec`, ``marked``), so
    the purge takes it with its environment. Kernels registered by versions before the mark
    carry none and are never removed by the purge: nothing tells them from the student's own."""
    env = inspect_python(python_exe)
    result = RegisterResult(name=name or kernel_name(env), display_name=display_name_for(env), env=env)
    if not valid_name(result.name):
        result.failed_step = "name"
        return result
    if env.error:
        result.failed_step = "inspect"
        return result
    result.existing = existing_kernel(result.name, python_exe)
    if result.existing is not None:
        if not replace:
            result.failed_step = "exists"
            return result
        try:
            done = remove_kernelspec(result.existing["dir"])
        except deletion.DeletionRefused as exc:
            result.failed_step = "exists"
            result.steps.append(StepResult([], False, None, error=exc.text("en")))
            return result
        if done.errors or done.left:
            result.failed_step = "exists"
            result.steps.append(StepResult([], False, None, error="; ".join(done.errors + done.left)[:500]))
            return result
        result.replaced = result.existing["dir"]
    if not env.ipykernel:
        if not consent:
            result.needs_consent = True
            return result
        step = _run(ipykernel_install_argv(python_exe, env.python_version, index_url), INSTALL_TIMEOUT_S, on_line,
                    cancel)
        result.steps.append(step)
        if not step.ok:
            result.failed_step = "ipykernel"
            return result
        result.installed_ipykernel = True
    step = _run(register_argv(python_exe, result.name, result.display_name), REGISTER_TIMEOUT_S, on_line, cancel)
    result.steps.append(step)
    result.ok = step.ok
    if not step.ok:
        result.failed_step = "register"
        return result
    found = INSTALLED_RE.search(step.output_tail)
    result.resource_dir = found.group(1) if found else None
    _mark(result)
    result.warnings = path_flags([result.resource_dir, python_exe], os_name) + conda_flags(env, shutil.which("conda"))
    return result


# --------------------------------------------------------------------------------------------
# VS Code
# --------------------------------------------------------------------------------------------
class SettingsRefused(ValueError):
    """The existing settings.json cannot be merged safely: ``reason`` is a message id suffix
    ("jsonc", "not_object", "unreadable"), ``detail`` the parser's words."""

    def __init__(self, reason: str, path: Path, detail: str = "") -> None:
        super().__init__(f"{reason}: {path}: {detail}")
        self.reason = reason
        self.path = path
        self.detail = detail


@dataclass
class SettingsResult:
    path: Path
    changed: bool
    previous: str | None  # the interpreter setting that was there before, if any


def write_vscode_setting(project_dir: str | Path, python_exe: str) -> SettingsResult:
    """Set ``python.defaultInterpreterPath`` in ``<project>/.vscode/settings.json``, keeping
    every other setting. Raises :class:`SettingsRefused` for a file that is not plain JSON
    (comments, trailing commas) or not an object, and OSError for a folder it cannot write."""
    path = Path(project_dir) / ".vscode" / "settings.json"
    data: dict[str, Any] = {}
    if path.exists():
        try:
            text = path.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            raise SettingsRefused("unreadable", path, str(exc)) from exc
        if text.strip():
            try:
                loaded = json.loads(text)
            except ValueError as exc:
                raise SettingsRefused("jsonc", path, str(exc)) from exc
            if not isinstance(loaded, dict):
                raise SettingsRefused("not_object", path, type(loaded).__name__)
            data = loaded
    previous = data.get(VSCODE_KEY)
    if previous == python_exe:
        return SettingsResult(path, False, previous)
    data[VSCODE_KEY] = python_exe
    write_atomic(path, json.dumps(data, ensure_ascii=False, indent=4) + "\n", mkdir=True)
    return SettingsResult(path, True, previous if isinstance(previous, str) else None)


__all__ = ["kernel_name", "valid_name", "torch_label", "StepResult", "RegisterResult", "register_kernel",
           "existing_kernel", "remove_kernelspec", "mark_kernelspec", "marked_kernelspecs", "MarkedKernel",
           "MARKER_KEY",
           "ipykernel_install_argv", "register_argv", "SettingsRefused", "SettingsResult", "write_vscode_setting"]
