"""The one rule for deleting anything on the student's disk, and the only code that does it.

Why one module: the storage cleanup, Remove of an unfinished install, replacing a kernelspec and
an export's leftovers each used to decide for itself what it may delete, and each got it wrong in
its own way (a symlinked ``partial/`` that led into ``~/Documents``, ``python -m venv .`` in a
project that lost its ``src/``, a stray ``pyvenv.cfg`` that made HOME an environment). Every
deleter now plans with this module and deletes through it. The rule:

1. **Only what the wizard made, or what has the exact shape it expects.** A folder goes only when
   every entry in it is one its shape names -- a venv: ``pyvenv.cfg``, ``bin``/``Scripts``,
   ``lib``/``Lib``, ``lib64``, ``include``, ``share``, ``etc`` and what venv and uv write beside
   them; a conda env: ``conda-meta`` and the folders its package records list; a kernelspec:
   ``kernel.json`` and its logos -- plus the wizard's own marker. One foreign entry (``src/``,
   ``.git``, ``notes.txt``) refuses the whole folder, named. A cache loses only file names the
   cache itself writes; anything else in it stays and is listed as not ours.
2. **Never through a symbolic link.** The folder named and every entry below it are ``lstat``-ed:
   a folder that is a link (a symlinked ``partial/``) is refused; a link inside a tree is removed
   as a link, its target never touched; just before each deletion every folder between the plan's
   root and the entry is checked again to be the same real folder it was when planned.
3. **Never onto another file system without saying so.** A mount point inside a tree refuses the
   plan, naming it.
4. **Never HOME, a parent of HOME, or a file system root.**
5. **Never an environment in use**: the activated one (``VIRTUAL_ENV``, ``CONDA_PREFIX``) or one a
   running process runs from (its executable or working folder inside: a notebook kernel); the
   process is named.
6. **One plan.** The dry run shows the plan; the real run executes that same plan entry by entry
   (each still the same file: same device and inode, still not a link) and reports the bytes of
   the entries it actually deleted, so the dry run and the clean agree.
"""

from __future__ import annotations

import json
import os
import stat
import sys
import threading
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, Sequence

from wizard.core.base.i18n import Message, MessageError, msg

# What `python -m venv` and `uv venv` put in an environment's folder, and what pip installs beside
# them (data files land in share/ and etc/, e.g. jupyter's). Both spellings: Windows uses Scripts/Lib.
VENV_OWN = frozenset({"pyvenv.cfg", "bin", "Scripts", "lib", "Lib", "lib64", "include", "Include", "share",
                      "etc", ".gitignore", "CACHEDIR.TAG", ".lock", "Tools"})
VENV_SIGNS = ("pyvenv.cfg",)
CONDA_META = "conda-meta"
CONDA_ALWAYS = frozenset({CONDA_META, ".nonadmin", "conda-meta.lock"})
# What `ipykernel install` / `jupyter kernelspec install` copy into kernels/<name>/.
KERNELSPEC_OWN = frozenset({"kernel.json", "kernel.js", "logo-32x32.png", "logo-64x64.png", "logo-128x128.png",
                            "logo-svg.svg"})
MAX_CONDA_RECORDS = 5000
MAX_RECORD_BYTES = 64 * 2**20
MAX_TREE_ENTRIES = 2_000_000
SHOW_FOREIGN = 5


class DeletionRefused(MessageError, OSError):
    """A deletion the rule does not allow; the message says which part of the rule and what."""


@dataclass(frozen=True)
class Entry:
    """One thing a plan deletes, as it was when planned (``dev``/``ino`` tell a swap)."""

    path: str
    is_dir: bool
    is_link: bool
    size: int
    dev: int
    ino: int


@dataclass
class Kept:
    """A file in a planned folder that stays, and why (``not_ours``, ``link``, ``not_file`` or the
    caller's own reason)."""

    path: str
    size: int
    reason: str


@dataclass
class DeletePlan:
    """What will be deleted under ``root``, in the order it will be: files and links first
    (deepest first), then each folder once it is empty. ``refused``: nothing will be."""

    root: str
    entries: list[Entry] = field(default_factory=list)
    kept: list[Kept] = field(default_factory=list)
    refused: Message | None = None
    shown: list[str] = field(default_factory=list)  # what a dry run lists (top-level names or files)

    @property
    def bytes(self) -> int:
        return sum(e.size for e in self.entries if not e.is_dir)

    @property
    def files(self) -> list[str]:
        return [e.path for e in self.entries if not e.is_dir]

    def refuse(self, message: Message) -> "DeletePlan":
        self.refused = message
        self.entries = []
        return self


@dataclass
class DeleteResult:
    deleted: list[str] = field(default_factory=list)
    freed: int = 0
    errors: list[str] = field(default_factory=list)
    left: list[str] = field(default_factory=list)  # folders not empty at the end (something new in them)


# --------------------------------------------------------------------------------------------
# Places never deleted
# --------------------------------------------------------------------------------------------
def _real(path: str) -> str:
    return os.path.normcase(os.path.realpath(path))


def _inside(child: str, parent: str) -> bool:
    """``child`` is ``parent`` or below it (both already real and normcased)."""
    return child == parent or child.startswith(parent.rstrip(os.sep) + os.sep)


def home_dir(environ: Mapping[str, str] | None = None) -> str:
    env = os.environ if environ is None else environ
    return env.get("HOME") or env.get("USERPROFILE") or os.path.expanduser("~")


def protected(path: str, environ: Mapping[str, str] | None = None) -> Message | None:
    """Why ``path`` may never be deleted (a root, HOME or a parent of HOME), or None."""
    real = _real(path)
    if os.path.dirname(real) == real or real in ("", os.sep):
        return msg("storage.delete.refused.root", path=path)
    home = _real(home_dir(environ))
    if _inside(home, real):
        return msg("storage.delete.refused.home", path=path)
    return None


def in_use(path: str, environ: Mapping[str, str] | None = None, processes: bool = True) -> Message | None:
    """Why the environment at ``path`` is in use (activated, or a process runs from it), or None."""
    env = os.environ if environ is None else environ
    real = _real(path)
    for name in ("VIRTUAL_ENV", "CONDA_PREFIX"):
        value = env.get(name)
        if value and _inside(_real(value), real):
            return msg("storage.delete.refused.activated", path=path, variable=name)
    if processes:
        for pid, name in processes_in(real):
            return msg("storage.delete.refused.process", path=path, pid=str(pid), name=name)
    return None


def processes_in(real_folder: str) -> list[tuple[int, str]]:
    """Running processes whose executable (as started, or resolved) or working folder is inside
    ``real_folder``. Processes this user may not look at are skipped."""
    try:
        import psutil
    except ImportError:  # psutil is a dependency; without it only the activation check stays
        return []
    found = []
    for proc in psutil.process_iter(["pid", "name", "exe", "cwd", "cmdline"]):
        info = proc.info
        argv0 = (info.get("cmdline") or [None])[0]
        # a venv's python is often a link to the system's: its exe resolves outside, its argv[0] does not
        started = _real(os.path.dirname(argv0)) if isinstance(argv0, str) and os.path.isabs(argv0) else None
        for value in (info.get("exe"), info.get("cwd")):
            if value and _inside(_real(value), real_folder) or started and _inside(started, real_folder):
                found.append((int(info["pid"]), str(info.get("name") or "?")))
                break
    return found


# --------------------------------------------------------------------------------------------
# Shapes
# --------------------------------------------------------------------------------------------
def _names(path: str) -> list[str]:
    with os.scandir(path) as it:
        return sorted(e.name for e in it)


def conda_own(path: str) -> set[str] | None:
    """The top-level names a conda env's package records (``conda-meta/*.json``) list, or None
    when the records cannot all be read (then the folder is not recognisably conda's)."""
    meta = os.path.join(path, CONDA_META)
    try:
        records = [n for n in _names(meta) if n.endswith(".json")]
    except OSError:
        return None
    if len(records) > MAX_CONDA_RECORDS:
        return None
    own = set(CONDA_ALWAYS)
    for name in records:
        full = os.path.join(meta, name)
        try:
            if os.lstat(full).st_size > MAX_RECORD_BYTES:
                return None
            with open(full, encoding="utf-8") as fh:
                data = json.load(fh)
        except (OSError, ValueError, RecursionError):
            return None
        for rel in (data.get("files") if isinstance(data, dict) else None) or []:
            if isinstance(rel, str) and rel:
                own.add(rel.replace("\\", "/").split("/", 1)[0])
    return own


def env_shape(path: str, extra_own: Iterable[str] = ()) -> tuple[bool, list[str]]:
    """(is an environment, the entries that are not part of one). An environment has
    ``pyvenv.cfg``, ``conda-meta`` or one of ``extra_own`` (the wizard's marker)."""
    names = _names(path)
    extra = set(extra_own)
    own = set(VENV_OWN) | extra
    is_env = any(n in names for n in VENV_SIGNS) or any(n in extra for n in names)
    if CONDA_META in names:
        conda = conda_own(path)
        if conda is None:
            return True, [CONDA_META]
        own |= conda
        is_env = True
    if sys.platform == "win32":
        own_cf = {n.casefold() for n in own}
        return is_env, [n for n in names if n.casefold() not in own_cf]
    return is_env, [n for n in names if n not in own]


def _foreign_text(foreign: Sequence[str]) -> str:
    shown = ", ".join(foreign[:SHOW_FOREIGN])
    return shown + (f" (+{len(foreign) - SHOW_FOREIGN})" if len(foreign) > SHOW_FOREIGN else "")


# --------------------------------------------------------------------------------------------
# Planning
# --------------------------------------------------------------------------------------------
def _root_check(plan: DeletePlan, environ: Mapping[str, str] | None) -> os.stat_result | None:
    """The root's own checks: it exists, is a real folder (not a link) and not protected."""
    try:
        st = os.lstat(plan.root)
    except FileNotFoundError:
        plan.refuse(msg("storage.delete.refused.gone", path=plan.root))
        return None
    except OSError as exc:
        plan.refuse(msg("storage.delete.refused.unreadable", path=plan.root, error=exc.strerror or str(exc)))
        return None
    if stat.S_ISLNK(st.st_mode):
        plan.refuse(msg("storage.delete.refused.link", path=plan.root))
        return None
    if not stat.S_ISDIR(st.st_mode):
        plan.refuse(msg("storage.delete.refused.not_folder", path=plan.root))
        return None
    why = protected(plan.root, environ)
    if why is not None:
        plan.refuse(why)
        return None
    return st


def plan_tree(root: str, *, own: Callable[[str], tuple[bool, list[str]]] | None = None,
              environ: Mapping[str, str] | None = None, allow_other_fs: bool = False,
              max_entries: int = MAX_TREE_ENTRIES) -> DeletePlan:
    """The deletion of the folder ``root`` and everything in it. ``own(root)`` says whether it has
    the expected shape and which top-level entries are foreign (default: an environment's shape)."""
    plan = DeletePlan(os.path.abspath(root))
    st = _root_check(plan, environ)
    if st is None:
        return plan
    try:
        is_ours, foreign = (own or env_shape)(plan.root)
    except OSError as exc:
        return plan.refuse(msg("storage.delete.refused.unreadable", path=plan.root, error=exc.strerror or str(exc)))
    if foreign:
        return plan.refuse(msg("storage.delete.refused.foreign", path=plan.root, names=_foreign_text(foreign),
                               count=str(len(foreign))))
    if not is_ours:
        return plan.refuse(msg("storage.delete.refused.not_ours", path=plan.root))
    plan.shown = _names(plan.root)
    files: list[Entry] = []
    dirs: list[Entry] = [Entry(plan.root, True, False, 0, st.st_dev, st.st_ino)]
    stack = [plan.root]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as it:
                children = list(it)
        except OSError as exc:
            return plan.refuse(msg("storage.delete.refused.unreadable", path=folder, error=exc.strerror or str(exc)))
        for child in children:
            if len(files) + len(dirs) > max_entries:
                return plan.refuse(msg("storage.delete.refused.too_many", path=plan.root, count=str(max_entries)))
            cst = os.lstat(child.path)
            if stat.S_ISDIR(cst.st_mode):
                if cst.st_dev != st.st_dev and not allow_other_fs:
                    return plan.refuse(msg("storage.delete.refused.other_fs", path=child.path))
                dirs.append(Entry(child.path, True, False, 0, cst.st_dev, cst.st_ino))
                stack.append(child.path)
            else:
                files.append(Entry(child.path, False, stat.S_ISLNK(cst.st_mode), cst.st_size, cst.st_dev,
                                   cst.st_ino))
    # files first; then folders deepest first, so each is empty when its turn comes
    dirs.sort(key=lambda e: e.path.count(os.sep), reverse=True)
    plan.entries = files + dirs
    return plan


def kernelspec_shape(path: str) -> tuple[bool, list[str]]:
    """(is a kernelspec: has ``kernel.json``, the entries that are not a kernelspec's own)."""
    names = _names(path)
    return "kernel.json" in names, [n for n in names if n not in KERNELSPEC_OWN]


def plan_kernelspec(folder: str, environ: Mapping[str, str] | None = None) -> DeletePlan:
    """The deletion of one kernelspec folder (``kernels/<name>``): only ``kernel.json`` and its
    logos, never a folder that is a link. The one planner for replacing a kernel and for the
    purge removing the kernels of the environments it removes, so both refuse the same folders.
    A foreign entry is named as not part of a kernelspec (not "of an environment")."""
    plan = plan_tree(folder, own=kernelspec_shape, environ=environ)
    if plan.refused is not None and plan.refused.key == "storage.delete.refused.foreign":
        plan.refused = msg("storage.delete.refused.foreign_kernelspec", **dict(plan.refused.params))
    return plan


def plan_files(folder: str, keep: Callable[[str, int], str | None], *,
               environ: Mapping[str, str] | None = None, expect_dev: int | None = None) -> DeletePlan:
    """The deletion of some regular files directly in ``folder`` (a cache's ``files/``): ``keep``
    gives a reason to keep a file (by name and size) or None to delete it. A folder that is a link,
    or on another file system than ``expect_dev``, is refused; links and other non-files stay."""
    plan = DeletePlan(os.path.abspath(folder))
    st = _root_check(plan, environ)
    if st is None:
        return plan
    if expect_dev is not None and st.st_dev != expect_dev:
        return plan.refuse(msg("storage.delete.refused.other_fs", path=plan.root))
    for name in _names(plan.root):
        path = os.path.join(plan.root, name)
        try:
            cst = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISLNK(cst.st_mode):
            plan.kept.append(Kept(path, cst.st_size, "link"))
            continue
        if not stat.S_ISREG(cst.st_mode):
            plan.kept.append(Kept(path, 0, "not_file"))
            continue
        reason = keep(name, cst.st_size)
        if reason:
            plan.kept.append(Kept(path, cst.st_size, reason))
        else:
            plan.entries.append(Entry(path, False, False, cst.st_size, cst.st_dev, cst.st_ino))
            plan.shown.append(name)
    return plan


def plan_own_file(path: str, suffixes: Sequence[str]) -> DeletePlan:
    """The deletion of one file the wizard itself just wrote (an export's ``.part``): a regular
    file, not a link, whose name ends with one of ``suffixes``."""
    full = os.path.abspath(path)
    plan = DeletePlan(os.path.dirname(full))
    try:
        st = os.lstat(full)
    except FileNotFoundError:
        return plan
    except OSError as exc:
        return plan.refuse(msg("storage.delete.refused.unreadable", path=full, error=exc.strerror or str(exc)))
    if not stat.S_ISREG(st.st_mode) or not full.endswith(tuple(suffixes)):
        return plan.refuse(msg("storage.delete.refused.not_ours", path=full))
    plan.entries.append(Entry(full, False, False, st.st_size, st.st_dev, st.st_ino))
    plan.shown.append(os.path.basename(full))
    return plan


def merge(root: str, plans: Sequence[DeletePlan]) -> DeletePlan:
    """Several folders' plans as one (a cache's ``files/`` and ``partial/``); a refused part keeps
    its reason in ``kept`` and the rest still goes."""
    out = DeletePlan(os.path.abspath(root))
    for p in plans:
        out.entries += p.entries
        out.kept += p.kept
        out.shown += [os.path.join(os.path.basename(p.root), n) for n in p.shown]
        if p.refused is not None and p.refused.key != "storage.delete.refused.gone":
            out.kept.append(Kept(p.root, 0, p.refused.key))
    return out


# --------------------------------------------------------------------------------------------
# Executing a plan
# --------------------------------------------------------------------------------------------
def _same(entry_dev: int, entry_ino: int, st: os.stat_result) -> bool:
    return st.st_dev == entry_dev and st.st_ino == entry_ino


def execute(plan: DeletePlan, cancel: threading.Event | None = None) -> DeleteResult:
    """Delete exactly ``plan.entries``, each checked again first (the same file, not turned into a
    link, every folder above it up to the root still the real folder it was). Raises
    :class:`DeletionRefused` for a refused plan; a changed entry is an error line, never followed."""
    if plan.refused is not None:
        raise DeletionRefused(plan.refused)
    result = DeleteResult()
    checked: dict[str, bool] = {}
    known = {e.path: e for e in plan.entries if e.is_dir}

    def parents_ok(path: str) -> bool:
        parent = os.path.dirname(path)
        while _inside(os.path.normcase(parent), os.path.normcase(plan.root)):
            if parent not in checked:
                try:
                    st = os.lstat(parent)
                except OSError:
                    checked[parent] = False
                else:
                    ent = known.get(parent)
                    checked[parent] = (not stat.S_ISLNK(st.st_mode) and stat.S_ISDIR(st.st_mode)
                                       and (ent is None or _same(ent.dev, ent.ino, st)))
            if not checked[parent]:
                return False
            if parent == plan.root:
                break
            parent = os.path.dirname(parent)
        return True

    for entry in plan.entries:
        if cancel is not None and cancel.is_set():
            break
        try:
            st = os.lstat(entry.path)
        except FileNotFoundError:
            continue
        except OSError as exc:
            result.errors.append(f"{entry.path}: {exc.strerror or exc}")
            continue
        if not _same(entry.dev, entry.ino, st) or stat.S_ISLNK(st.st_mode) != entry.is_link or (
                entry.is_dir != stat.S_ISDIR(st.st_mode) and not entry.is_link) or not parents_ok(entry.path):
            result.errors.append(f"{entry.path}: changed since the plan; not deleted")
            continue
        try:
            if entry.is_dir:
                os.rmdir(entry.path)
            else:
                os.unlink(entry.path)
        except OSError as exc:
            if entry.is_dir and os.path.isdir(entry.path) and os.listdir(entry.path):
                result.left.append(entry.path)
            else:
                result.errors.append(f"{entry.path}: {exc.strerror or exc}")
            continue
        result.deleted.append(entry.path)
        result.freed += 0 if entry.is_dir else st.st_size
    return result


__all__ = ["DeletePlan", "DeleteResult", "DeletionRefused", "Entry", "Kept", "VENV_OWN", "KERNELSPEC_OWN",
           "env_shape", "kernelspec_shape", "plan_kernelspec", "conda_own", "protected", "in_use", "processes_in", "home_dir", "plan_tree", "plan_files",
           "plan_own_file", "merge", "execute"]
