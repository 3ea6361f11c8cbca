"""Getting the space back, safely: what may go, what must stay and why, and doing it.

The rules, as the student is promised them:

* an environment goes only when the student confirmed that very environment (the GUI's
  checkbox and confirmation, the CLI's ``--env PATH`` per environment); it must still look like
  an environment (``pyvenv.cfg``, ``conda-meta`` or the wizard's marker), no install may hold it,
  and the wizard's own interpreter's environment is never removed. A conda env the wizard made
  goes through :func:`~wizard.core.install.recovery.remove_environment` (``conda remove``);
* the wizard's download cache loses only files no unfinished install needs: every unfinished
  install's saved plan names its wheels and the partial files Resume continues, and those stay
  (said so, with the install's environment). While an install is running now, every partial
  file stays;
* pip's and uv's caches are cleaned by their own commands (``pip cache purge``, ``uv cache
  clean``), never by deleting their folders: the tools know their own locks and layout;
* the Hugging Face cache is shown, not cleaned: it holds models a notebook may need offline.

A plan (:func:`plan_cleanup`) says all of this before anything happens (``--dry-run``), with the
sizes before and the expected sizes after; :func:`run_cleanup` does it and measures again.

What may be deleted at all is decided by the one rule of :mod:`wizard.core.base.deletion` (only
what the wizard made or what has the exact shape it expects, never through a link, never HOME,
never an environment in use, one plan for the dry run and the clean). Here that means: the
download cache loses only the names it writes itself (wheels and sdists in ``files/``,
``<sha>.part`` and its ``.json`` in ``partial/``), never anything in a ``files/`` or ``partial/``
that is a link; an environment goes only when every entry of its folder is an environment's own
(``python -m venv .`` in a project with ``src/`` is refused, named); pip's and uv's own commands
are asked only for a folder that has their cache's shape (uv's ``CACHEDIR.TAG`` and its bucket
folders; pip's ``http``/``wheels``), so a ``UV_CACHE_DIR`` pointing at a folder of data is never
handed to ``uv cache clean``.

The purge (``storage --clean --wizard-envs``) also removes the Jupyter kernels the wizard
registered for the environments it removes (:func:`with_kernelspecs`): only a kernelspec whose
``kernel.json`` carries the wizard's mark naming that very environment and whose interpreter lies
inside it, only when that environment is itself removed, and only under the same rule (a
kernelspec's own files, never a folder that is a link). The student's own kernels, kernels the
wizard registered before it marked them, and kernels of environments that stay are never touched.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import sys
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

from wizard.core.base import deletion
from wizard.core.base.i18n import Message, msg
from wizard.core.storage.locations import (
    KIND_ENV,
    KIND_PIP,
    KIND_UV,
    KIND_WIZARD_CACHE,
    Location,
    Runner,
    is_environment,
    run_tool,
)
from wizard.core.storage.measure import Usage, measure

METHOD_FILES = "delete files"
METHOD_PIP = "pip cache purge"
METHOD_UV = "uv cache clean"
METHOD_ENV = "remove environment"
METHOD_CONDA = "conda remove"
METHOD_KERNELSPEC = "remove kernelspec"
KIND_KERNELSPEC = "kernelspec"  # a Jupyter kernel the wizard registered for an environment the purge removes
PIP_PURGED = ("http", "http-v2", "wheels")  # what `pip cache purge` empties (pip's cache layout)
PIP_OWN = frozenset({*PIP_PURGED, "selfcheck", "selfcheck.json", ".gitignore"})
UV_OWN = frozenset({"CACHEDIR.TAG", ".gitignore", ".lock"})
UV_BUCKET = re.compile(r"^[a-z][a-z0-9-]*-v\d+$")  # archive-v0, wheels-v5, simple-v16, ...
CACHEDIR_SIGNATURE = b"Signature: 8a477f597d28d172789f06886806bc55"  # https://bford.info/cachedir/
# The names the download cache itself writes (wizard.core.install.cache.WheelCache).
CACHE_FILE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+!-]*\.(whl|tar\.gz|zip|whl\.metadata|metadata)$")
CACHE_PARTIAL = re.compile(r"^[0-9a-f]{40}\.(part|json)$")


@dataclass
class Kept:
    """A file the cleanup leaves, and why (a message id with its parameters)."""

    path: str
    bytes: int
    reason: str  # "unfinished_install" | "install_running" | "lock"
    env_path: str | None = None


@dataclass
class CleanItem:
    """One thing the cleanup would do. ``refused``: a message id saying why it will not."""

    kind: str
    path: str
    method: str
    before: int
    expected_after: int
    files: list[str] = field(default_factory=list)
    kept: list[Kept] = field(default_factory=list)
    refused: str | None = None
    tool: str | None = None  # pip's python or uv, for their own clean commands
    done: bool = False
    after: int | None = None
    error: str | None = None
    refused_params: dict[str, str] = field(default_factory=dict)
    plan: deletion.DeletePlan | None = None  # what the wizard itself deletes (the one plan: dry run and clean)
    freed: int | None = None  # bytes of the entries actually deleted (the wizard's own deletions)
    env_path: str | None = None  # a kernelspec's environment: it goes only once that environment went

    @property
    def expected_freed(self) -> int:
        return 0 if self.refused else max(0, self.before - self.expected_after)

    def refuse(self, message: Message | str, **params: str) -> "CleanItem":
        if isinstance(message, Message):
            self.refused, self.refused_params = message.key, {k: str(v) for k, v in message.params}
        else:
            self.refused, self.refused_params = message, dict(params)
        self.plan = None
        return self

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "path": self.path, "method": self.method, "before": self.before,
                "expected_after": self.expected_after, "files": len(self.files),
                "deletes": list(self.plan.shown) if self.plan is not None else [],
                "kept": [{"path": k.path, "bytes": k.bytes, "reason": k.reason, "env_path": k.env_path}
                         for k in self.kept],
                "refused": self.refused, "refused_params": dict(self.refused_params), "tool": self.tool,
                "done": self.done, "after": self.after, "freed": self.freed, "error": self.error,
                "expected_freed": self.expected_freed, "env_path": self.env_path}


@dataclass
class CleanPlan:
    items: list[CleanItem]

    @property
    def before(self) -> int:
        return sum(i.before for i in self.items)

    @property
    def expected_after(self) -> int:
        return sum(i.before if i.refused else i.expected_after for i in self.items)

    def to_json(self) -> dict[str, Any]:
        return {"before": self.before, "expected_after": self.expected_after,
                "after": sum(i.after if i.after is not None else i.before for i in self.items)
                if any(i.done for i in self.items) else None,
                "items": [i.to_json() for i in self.items]}


# --------------------------------------------------------------------------------------------
# The wizard's download cache
# --------------------------------------------------------------------------------------------
def needed_cache_files(states: Iterable[Any]) -> dict[str, str]:
    """File names of the download cache (``files/<wheel>``, ``partial/<key>.part``) that an
    unfinished install's saved plan needs → that install's environment path."""
    needed: dict[str, str] = {}
    for state in states:
        plan = getattr(state, "plan", None)
        if not isinstance(plan, dict):
            continue
        for f in plan.get("files") or []:
            if not isinstance(f, dict) or f.get("satisfied"):
                continue
            if f.get("filename"):
                needed[os.path.join("files", str(f["filename"]))] = state.env_path
            key = f.get("sha256") or (hashlib.sha256(str(f.get("url", "")).encode("utf-8")).hexdigest())
            needed[os.path.join("partial", f"{key[:40]}.part")] = state.env_path
    return needed


def _reason_for(sub: str, needed: dict[str, str], running: bool) -> Callable[[str, int], str | None]:
    """The keep-reason callback of one cache subfolder, for deletion.plan_files."""
    return lambda name, _size: _cache_reason(sub, name, needed, running)


def _cache_reason(sub: str, name: str, needed: dict[str, str], running: bool) -> str | None:
    """Why a file of the download cache stays (None: it may go)."""
    if name.endswith(".lock"):
        return "lock"
    if not (CACHE_FILE if sub == "files" else CACHE_PARTIAL).match(name):
        return "not_ours"  # a name the cache never writes: someone else's file
    if os.path.join(sub, name) in needed:
        return "unfinished_install"
    if sub == "partial" and running:
        return "install_running"
    return None


def plan_wizard_cache(root: str, unfinished: Sequence[Any], running: bool,
                      environ: Mapping[str, str] | None = None) -> CleanItem:
    """What of the download cache may go: see the module docstring."""
    needed = needed_cache_files(unfinished)
    usage = measure(root)
    item = CleanItem(KIND_WIZARD_CACHE, root, METHOD_FILES, before=usage.bytes, expected_after=usage.bytes)
    if not usage.exists:
        return item.refuse("storage.refused.nothing")
    try:
        root_st = os.lstat(root)
    except OSError as exc:
        return item.refuse("storage.delete.refused.unreadable", path=root, error=exc.strerror or str(exc))
    if not os.path.isdir(root) or os.path.islink(root):
        return item.refuse("storage.delete.refused.link", path=root)
    parts = []
    for sub in ("files", "partial"):
        folder = os.path.join(root, sub)
        if os.path.lexists(folder):
            parts.append(deletion.plan_files(folder, _reason_for(sub, needed, running),
                                             environ=environ, expect_dev=root_st.st_dev))
    plan = deletion.merge(root, parts)
    for kept in plan.kept:
        rel = os.path.relpath(kept.path, root)
        item.kept.append(Kept(kept.path, kept.size, kept.reason, needed.get(rel)))
    item.plan = plan
    item.files = plan.files
    item.expected_after = usage.bytes - plan.bytes
    return item


# --------------------------------------------------------------------------------------------
# pip and uv: their own commands
# --------------------------------------------------------------------------------------------
def tool_cache_shape(kind: str, path: str) -> Message | None:
    """Why ``path`` is not recognisably pip's or uv's cache (so its tool is not asked to clean
    it), or None. uv: a ``CACHEDIR.TAG`` with the standard signature, and only uv's own bucket
    folders beside it; pip: only its ``http``/``wheels``/``selfcheck`` entries."""
    tool = "pip" if kind == KIND_PIP else "uv"
    try:
        names = sorted(os.listdir(path))
    except OSError:
        return None  # not there: refused as "nothing" by the caller
    if os.path.islink(path):
        return msg("storage.delete.refused.link", path=path)
    if kind == KIND_UV:
        tag = os.path.join(path, "CACHEDIR.TAG")
        try:
            with open(tag, "rb") as fh:
                ok = not os.path.islink(tag) and fh.read(len(CACHEDIR_SIGNATURE)) == CACHEDIR_SIGNATURE
        except OSError:
            ok = False
        if names and not ok:
            return msg("storage.refused.not_tool_cache", path=path, tool=tool, why=msg("storage.refused.no_cachedir_tag"))
        foreign = [n for n in names if n not in UV_OWN and not UV_BUCKET.match(n) and not n.startswith(".tmp")]
    else:
        foreign = [n for n in names if n not in PIP_OWN]
    if foreign:
        shown = ", ".join(foreign[:5]) + (f" (+{len(foreign) - 5})" if len(foreign) > 5 else "")
        return msg("storage.refused.not_tool_cache", path=path, tool=tool,
                   why=msg("storage.refused.foreign_entries", names=shown))
    return None


def plan_tool_cache(location: Location) -> CleanItem:
    usage = measure(location.path)
    if location.kind == KIND_PIP:
        purged = sum(measure(os.path.join(location.path, sub)).bytes for sub in PIP_PURGED)
        item = CleanItem(KIND_PIP, location.path, METHOD_PIP, usage.bytes, usage.bytes - purged)
    else:
        item = CleanItem(KIND_UV, location.path, METHOD_UV, usage.bytes, 0)
    item.tool = location.tool
    if not location.tool:
        item.refused = "storage.refused.no_tool"  # never rm -rf a tool's cache behind its back
    elif not usage.exists:
        item.refused = "storage.refused.nothing"
    else:
        why = tool_cache_shape(item.kind, location.path)
        if why is not None:
            item.refuse(why)
    return item


def tool_argv(item: CleanItem, tool: str) -> list[str]:
    return [tool, "-m", "pip", "cache", "purge"] if item.kind == KIND_PIP else [tool, "cache", "clean"]


# --------------------------------------------------------------------------------------------
# Environments
# --------------------------------------------------------------------------------------------
def _same(a: str, b: str) -> bool:
    return os.path.normcase(os.path.realpath(a)) == os.path.normcase(os.path.realpath(b))


def plan_environment(path: str, states: Sequence[Any], busy: Callable[[str], bool],
                     environ: Mapping[str, str] | None = None, processes: bool = True) -> CleanItem:
    """Removing one environment the student confirmed; refused when it is not one, holds
    anything an environment does not, is in use (an install, the activated one, a running
    process) or is the wizard's own. The plan is made here, once: the clean executes it."""
    from wizard.core.install.environments import INCOMPLETE_MARKER

    usage = measure(path)
    item = CleanItem(KIND_ENV, os.path.abspath(path), METHOD_ENV, usage.bytes, 0)
    state = next((s for s in states if _same(s.env_path, path)), None)
    if state is not None and state.created_by_wizard and os.path.isdir(os.path.join(path, "conda-meta")):
        item.method = METHOD_CONDA
    if not usage.exists:
        return item.refuse("storage.refused.gone")
    why = deletion.protected(item.path, environ)
    if why is not None:
        return item.refuse(why)
    if not is_environment(path):
        return item.refuse("storage.refused.not_env")
    if _same(path, sys.prefix) or _same(path, getattr(sys, "base_prefix", sys.prefix)):
        return item.refuse("storage.refused.own_env")
    if busy(path):
        return item.refuse("storage.refused.busy")
    why = deletion.in_use(item.path, environ, processes=processes)
    if why is not None:
        return item.refuse(why)
    plan = deletion.plan_tree(item.path, own=lambda p: deletion.env_shape(p, [INCOMPLETE_MARKER]), environ=environ)
    if plan.refused is not None:
        return item.refuse(plan.refused)
    item.plan = plan
    item.expected_after = max(0, usage.bytes - plan.bytes)
    return item


# --------------------------------------------------------------------------------------------
# The environments the wizard's records say it made (the uninstaller's purge)
# --------------------------------------------------------------------------------------------
IO_REPARSE_TAG_MOUNT_POINT = 0xA0000003  # a junction's reparse tag (Windows' stat module only has the name)
RECORD_SLACK_S = 600.0  # a run that died inside "create" saved its record before the folder was born


def _is_link(path: str) -> bool:
    """A symbolic link, or a Windows junction (a mount-point reparse point: ``mklink /J``)."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISLNK(st.st_mode) or getattr(st, "st_reparse_tag", 0) == IO_REPARSE_TAG_MOUNT_POINT


def linked_folder(path: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The first folder on ``path`` (the folder itself or one above it, up to HOME or the folder
    HOME lies in) that is a symbolic link or a junction, or None. A recorded path is removed
    unattended: another user of a shared root (``C:\\GPU-Setup-Wizard\\envs``) could have put a link
    where this user's environment was. Links at HOME and above are the system's own layout
    (``/home`` -> ``/var/home``), not in another student's reach."""
    home = deletion._real(deletion.home_dir(environ))
    cur = os.path.abspath(path)
    while True:
        if deletion._inside(home, deletion._real(cur)):
            return None
        if _is_link(cur):
            return cur
        parent = os.path.dirname(cur)
        if parent == cur:
            return None
        cur = parent


def _record_time(text: str | None) -> float | None:
    """A record's ISO time as a timestamp; one without a zone is UTC, as the wizard writes them."""
    from datetime import datetime, timezone

    try:
        when = datetime.fromisoformat(str(text)) if text else None
    except ValueError:
        return None
    if when is not None and when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return when.timestamp() if when is not None else None


def born_after_record(birth: float | None, updated_at: str | None, slack: float = RECORD_SLACK_S) -> bool:
    """The folder was created after the wizard last wrote its record of it (with ``slack``): the
    record is stale (its environment was deleted by hand) and the folder now at that path is
    someone else's, e.g. another student's environment of the same default name in the shared
    root. ``birth``: the folder's creation time where the file system keeps one (Windows, macOS;
    None elsewhere: not judged)."""
    recorded = _record_time(updated_at)
    return birth is not None and recorded is not None and birth > recorded + slack


def plan_recorded_environment(path: str, state: Any, states: Sequence[Any], busy: Callable[[str], bool],
                              environ: Mapping[str, str] | None = None) -> CleanItem:
    """Removing an environment because the wizard's record says it made it (``state``): the same
    rule as an environment the student names (:func:`plan_environment`), and then the record must
    still describe that folder: no link on its path, the folder not created after the record."""
    item = plan_environment(path, states, busy, environ)
    if item.refused:
        return item
    link = linked_folder(path, environ)
    if link is not None:
        return item.refuse("storage.delete.refused.link", path=link)
    try:
        birth = getattr(os.lstat(path), "st_birthtime", None)
    except OSError as exc:
        return item.refuse("storage.delete.refused.unreadable", path=path, error=exc.strerror or str(exc))
    if born_after_record(birth, getattr(state, "updated_at", None)):
        return item.refuse("storage.refused.newer_than_record", recorded=str(state.updated_at))
    return item


# --------------------------------------------------------------------------------------------
# The kernels the wizard registered for the environments the purge removes
# --------------------------------------------------------------------------------------------
def runs_in(kernel: Any, env_path: str) -> bool:
    """``kernel`` (a :class:`~wizard.core.verify.kernel_install.MarkedKernel`) is the wizard's
    kernel of the environment at ``env_path``: its mark names that environment and its interpreter
    (``argv[0]``, an absolute path) lies inside it. Folders are compared resolved and
    case-normalised; the interpreter itself is not resolved (a venv's python is a link to the
    system's, which lies outside)."""
    argv0 = str(kernel.argv0)
    if not os.path.isabs(argv0):
        return False
    real_env = deletion._real(env_path)
    return (deletion._real(str(kernel.env)) == real_env
            and deletion._inside(deletion._real(os.path.dirname(argv0)), real_env))


def plan_kernelspec(folder: str, env_path: str, environ: Mapping[str, str] | None = None) -> CleanItem:
    """Removing one kernelspec folder with its environment: the one kernelspec planner of
    :mod:`~wizard.core.base.deletion` (a kernelspec's own files only, the folder not a link), and
    no link on the way to it either (up to HOME, as for a recorded environment)."""
    item = CleanItem(KIND_KERNELSPEC, os.path.abspath(folder), METHOD_KERNELSPEC, 0, 0, env_path=env_path)
    plan = deletion.plan_kernelspec(item.path, environ)
    if plan.refused is not None:
        return item.refuse(plan.refused)
    link = linked_folder(item.path, environ)
    if link is not None:
        return item.refuse("storage.delete.refused.link", path=link)
    item.plan = plan
    item.files = plan.files
    item.before = plan.bytes
    return item


def with_kernelspecs(items: Sequence[CleanItem], kernels: Sequence[Any],
                     environ: Mapping[str, str] | None = None) -> list[CleanItem]:
    """``items`` with, right after each environment that will be removed, the removal of each of
    ``kernels`` (the marked ones) that :func:`runs_in` it. A refused environment keeps its kernels
    (none is planned); an unmarked kernel is never among ``kernels``."""
    out: list[CleanItem] = []
    taken: set[str] = set()
    for item in items:
        out.append(item)
        if item.kind != KIND_ENV or item.refused:
            continue
        for kernel in kernels:
            key = os.path.normcase(os.path.abspath(str(kernel.folder)))
            if key not in taken and runs_in(kernel, item.path):
                taken.add(key)
                out.append(plan_kernelspec(str(kernel.folder), item.path, environ))
    return out


def _env_removed(plan: CleanPlan, item: CleanItem) -> bool:
    """The environment a kernelspec item belongs to was removed in this run."""
    return any(i.kind == KIND_ENV and i.done and i.path == item.env_path for i in plan.items)


# --------------------------------------------------------------------------------------------
# The plan and the run
# --------------------------------------------------------------------------------------------
def plan_cleanup(caches: Sequence[Location], confirmed_envs: Sequence[str], unfinished: Sequence[Any],
                 states: Sequence[Any], busy: Callable[[str], bool], running: bool) -> CleanPlan:
    """The cleanup of ``caches`` (the wizard's, pip's, uv's) and of exactly the environments
    in ``confirmed_envs``; nothing is touched here."""
    items: list[CleanItem] = []
    for loc in caches:
        if loc.kind == KIND_WIZARD_CACHE:
            items.append(plan_wizard_cache(loc.path, unfinished, running))
        elif loc.kind in (KIND_PIP, KIND_UV):
            items.append(plan_tool_cache(loc))
    for path in confirmed_envs:
        items.append(plan_environment(path, states, busy))
    return CleanPlan(items)


def run_cleanup(plan: CleanPlan, remove_env: Callable[[CleanItem], None], runner: Runner = run_tool,
                cancel: threading.Event | None = None, on_item: Callable[[CleanItem], None] | None = None) -> CleanPlan:
    """Carry out the plan, item by item, measuring each folder again afterwards."""
    for item in plan.items:
        if cancel is not None and cancel.is_set():
            break
        if item.refused:
            continue
        if item.kind == KIND_KERNELSPEC and not _env_removed(plan, item):  # its environment stayed: so does it
            item.refuse("storage.refused.kernelspec_env_stays", env=str(item.env_path))
            if on_item is not None:
                on_item(item)
            continue
        try:
            if item.kind in (KIND_WIZARD_CACHE, KIND_KERNELSPEC) and item.plan is not None:
                done = deletion.execute(item.plan, cancel)
                item.freed = done.freed
                if done.errors or (done.left and item.kind == KIND_KERNELSPEC):
                    item.error = "; ".join((done.errors + [f"{p}: not empty" for p in done.left])[:5])
            elif item.kind in (KIND_PIP, KIND_UV):
                code, out = runner(tool_argv(item, str(item.tool)))
                if code != 0:
                    item.error = (out or "").strip()[-500:] or f"exit {code}"
            elif item.kind == KIND_ENV:
                remove_env(item)
        except OSError as exc:
            item.error = f"{type(exc).__name__}: {exc}"
        item.done = item.error is None
        item.after = measure(item.path).bytes
        if on_item is not None:
            on_item(item)
    return plan


def remove_venv_folder(item: CleanItem) -> None:
    """Delete a confirmed environment's folder: exactly the plan the dry run showed (each entry
    checked again just before: still the same file, never through a link)."""
    if item.plan is None:
        raise deletion.DeletionRefused(msg("storage.delete.refused.not_ours", path=item.path))
    done = deletion.execute(item.plan)
    item.freed = done.freed
    if done.errors or done.left:
        raise OSError("; ".join((done.errors + [f"{p}: not empty" for p in done.left])[:5]))


__all__ = ["Kept", "CleanItem", "CleanPlan", "plan_cleanup", "run_cleanup", "needed_cache_files",
           "plan_wizard_cache", "plan_tool_cache", "plan_environment", "remove_venv_folder", "tool_cache_shape",
           "Usage", "linked_folder", "born_after_record", "plan_recorded_environment", "KIND_KERNELSPEC",
           "METHOD_KERNELSPEC", "runs_in", "plan_kernelspec", "with_kernelspecs"]
