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
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

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
PIP_PURGED = ("http", "http-v2", "wheels")  # what `pip cache purge` empties (pip's cache layout)


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

    @property
    def expected_freed(self) -> int:
        return 0 if self.refused else max(0, self.before - self.expected_after)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["files"] = len(self.files)
        data["expected_freed"] = self.expected_freed
        return data


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


def _files_under(folder: Path) -> list[tuple[str, int]]:
    out = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return out
    for entry in entries:
        try:
            if entry.is_file(follow_symlinks=False):
                out.append((entry.name, entry.stat(follow_symlinks=False).st_size))
        except OSError:
            continue
    return out


def plan_wizard_cache(root: str, unfinished: Sequence[Any], running: bool) -> CleanItem:
    """What of the download cache may go: see the module docstring."""
    needed = needed_cache_files(unfinished)
    usage = measure(root)
    item = CleanItem(KIND_WIZARD_CACHE, root, METHOD_FILES, before=usage.bytes, expected_after=usage.bytes)
    freed = 0
    for sub in ("files", "partial"):
        for name, size in _files_under(Path(root) / sub):
            rel = os.path.join(sub, name)
            path = os.path.join(root, rel)
            if name.endswith(".lock"):
                item.kept.append(Kept(path, size, "lock"))
            elif rel in needed:
                item.kept.append(Kept(path, size, "unfinished_install", needed[rel]))
            elif sub == "partial" and running:
                item.kept.append(Kept(path, size, "install_running"))
            else:
                item.files.append(path)
                freed += size
    item.expected_after = usage.bytes - freed
    if not usage.exists:
        item.refused = "storage.refused.nothing"
    return item


def _delete_files(item: CleanItem) -> None:
    errors = []
    for path in item.files:
        try:
            os.unlink(path)
        except FileNotFoundError:
            continue
        except OSError as exc:
            errors.append(f"{path}: {exc}")
    if errors:
        item.error = "; ".join(errors[:5])


# --------------------------------------------------------------------------------------------
# pip and uv: their own commands
# --------------------------------------------------------------------------------------------
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
    return item


def tool_argv(item: CleanItem, tool: str) -> list[str]:
    return [tool, "-m", "pip", "cache", "purge"] if item.kind == KIND_PIP else [tool, "cache", "clean"]


# --------------------------------------------------------------------------------------------
# Environments
# --------------------------------------------------------------------------------------------
def _same(a: str, b: str) -> bool:
    return os.path.normcase(os.path.realpath(a)) == os.path.normcase(os.path.realpath(b))


def plan_environment(path: str, states: Sequence[Any], busy: Callable[[str], bool]) -> CleanItem:
    """Removing one environment the student confirmed; refused when it is not one, is in use
    by an install, or is the wizard's own."""
    usage = measure(path)
    item = CleanItem(KIND_ENV, os.path.abspath(path), METHOD_ENV, usage.bytes, 0)
    state = next((s for s in states if _same(s.env_path, path)), None)
    if state is not None and state.created_by_wizard and os.path.isdir(os.path.join(path, "conda-meta")):
        item.method = METHOD_CONDA
    if not usage.exists:
        item.refused = "storage.refused.gone"
    elif not is_environment(path):
        item.refused = "storage.refused.not_env"
    elif _same(path, sys.prefix) or _same(path, getattr(sys, "base_prefix", sys.prefix)):
        item.refused = "storage.refused.own_env"
    elif busy(path):
        item.refused = "storage.refused.busy"
    return item


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
        try:
            if item.kind == KIND_WIZARD_CACHE:
                _delete_files(item)
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
    """Delete a confirmed venv's folder (checked again just before: still an environment)."""
    if not is_environment(item.path):
        raise OSError(f"{item.path} no longer looks like an environment")
    shutil.rmtree(item.path)


__all__ = ["Kept", "CleanItem", "CleanPlan", "plan_cleanup", "run_cleanup", "needed_cache_files",
           "plan_wizard_cache", "plan_tool_cache", "plan_environment", "remove_venv_folder", "Usage"]
