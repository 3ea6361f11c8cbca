"""Nothing left half-broken: what the wizard did to each environment, and how to undo or finish it.

A Ctrl+C, a crash or a dropped network in the middle of a 3 GB install must leave a state the
wizard can explain and act on. So for every environment it touches, the wizard keeps a state
file (:class:`EnvState`, under the user state dir, one per environment path) saying what it
created, which steps finished, the resolved plan, and -- for an environment that existed
before -- where its ``pip freeze`` was saved before anything changed. From that:

* **Resume** re-runs the job; finished steps are skipped, the saved plan is reused (so it
  works offline from the cache), and the download cache keeps every finished and partial file.
* **Remove** deletes only what the wizard created (a new venv or conda env it made), and only
  under the one deletion rule (:mod:`wizard.core.base.deletion`): the folder is recognisably that
  environment (the incomplete marker, ``pyvenv.cfg`` or ``conda-meta``) and holds nothing an
  environment does not (a folder the student chose that held other things is never deleted),
  it is not in use (activated, or a running process inside), and nothing is deleted through a link.
* **Restore** puts an existing environment's previous packages back: what the install added
  is uninstalled, what it replaced is reinstalled at the saved version.

A state that says "running" while nobody holds the environment's lock (:mod:`~wizard.core.install.locks`)
is from a run that died without a word (killed, a power cut, a disk too full to take the state
file): the store reads it as failed -- interrupted -- so Resume is offered, never a spinner.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Mapping

from packaging.utils import canonicalize_name

from wizard.core.base import deletion
from wizard.core.base.files import replace_file, write_atomic
from wizard.core.base.host import Host
from wizard.core.base.i18n import msg
from wizard.core.base.schema import check_schema, split_schema
from wizard.core.install.env_commands import conda_remove_argv
from wizard.core.install.environments import INCOMPLETE_MARKER, EnvTarget
from wizard.core.install.locks import EnvLock, env_busy

STATE_SCHEMA = "gpu-setup-wizard/env-state@1.0"
APP_NAME = "gpu-setup-wizard"

STATUS_RUNNING = "running"
STATUS_FAILED = "failed"
STATUS_CANCELLED = "cancelled"
STATUS_COMPLETE = "complete"

OPTION_RESUME = "resume"
OPTION_REMOVE = "remove"
OPTION_RESTORE = "restore"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def default_state_dir() -> Path:
    """``<user state dir>/gpu-setup-wizard/envs``."""
    import platformdirs

    return Path(platformdirs.user_state_dir(APP_NAME, appauthor=False)) / "envs"


def env_key(path: str) -> str:
    """A file name for an environment path (normalised, so ``C:\\X`` and ``c:/x/`` agree)."""
    norm = os.path.normcase(os.path.normpath(os.path.abspath(path))) if path else ""
    return hashlib.sha256(norm.encode("utf-8")).hexdigest()[:20]


@dataclass
class EnvState:
    """What the wizard knows about one environment it worked on."""

    env_path: str
    target: dict[str, Any]
    created_by_wizard: bool = False
    status: str = STATUS_RUNNING
    steps_done: list[str] = field(default_factory=list)
    failed_step: str | None = None
    error: str | None = None
    error_kind: str | None = None
    requirements: list[str] = field(default_factory=list)
    index_url: str | None = None  # the index or mirror actually asked (None: PyPI)
    extras: list[str] = field(default_factory=list)  # a course's extra packages among the requirements
    extras_index: str | None = None  # where they come from when the index lacks them (extras.py)
    pins: list[str] = field(default_factory=list)  # the exact set the plan chose ("torch==2.13.0+cpu")
    installer: str | None = None  # pip or uv, as the run used it
    current_step: str | None = None  # the step under way while status is "running"
    plan: dict[str, Any] | None = None
    freeze_file: str | None = None  # pip freeze of an existing env, saved before any change
    python_installed: str | None = None  # a managed CPython uv installed for this env (kept on Remove)
    started_at: str = field(default_factory=_now)
    updated_at: str = field(default_factory=_now)
    schema: str = STATE_SCHEMA

    def env_target(self) -> EnvTarget:
        return EnvTarget.from_json(self.target)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "EnvState":
        check_schema(data, *split_schema(STATE_SCHEMA))  # a SchemaError is a ValueError
        # the fields every reader acts on (paths compared, targets rebuilt, removals allowed) must
        # have their types: a hand-edited or damaged record is unreadable, never half-believed
        if not isinstance(data.get("env_path"), str) or not data["env_path"]:
            raise ValueError("env_path is not a path")
        if not isinstance(data.get("target"), dict):
            raise ValueError("target is not an object")
        if not isinstance(data.get("created_by_wizard", False), bool):
            raise ValueError("created_by_wizard is not true or false")
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)

    def options(self) -> list[str]:
        """What the page offers for this state: resume, remove, restore (in that order)."""
        if self.status == STATUS_COMPLETE:
            return []
        out = [OPTION_RESUME]
        if self.created_by_wizard:
            out.append(OPTION_REMOVE)
        if self.freeze_file and not self.created_by_wizard and _changed_since_freeze(self):
            out.append(OPTION_RESTORE)
        return out


def _changed_since_freeze(state: EnvState) -> bool:
    """An install step started (something may have changed); before that, nothing to restore."""
    return "install" in state.steps_done or state.failed_step == "install" or (
        state.status in (STATUS_CANCELLED, STATUS_FAILED) and state.failed_step in ("install", "verify", "finish"))


class StateStore:
    """One JSON file per environment under ``root`` (default: the user state dir)."""

    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        self.root = Path(root) if root is not None else default_state_dir()

    def path_for(self, env_path: str) -> Path:
        return self.root / f"{env_key(env_path)}.json"

    def freeze_path_for(self, env_path: str) -> Path:
        return self.root / f"{env_key(env_path)}.freeze.txt"

    def lock_path_for(self, env_path: str) -> Path:
        return self.root / "locks" / f"{env_key(env_path)}.lock"

    def lock(self, env_path: str) -> EnvLock:
        """The environment's install lock (held by :func:`~wizard.core.install.runner.run_steps`)."""
        return EnvLock(self.lock_path_for(env_path), env_path)

    def _settled(self, state: EnvState) -> EnvState:
        """A "running" state whose lock nobody holds: the run died; say so (resumable)."""
        if state.status == STATUS_RUNNING and not env_busy(self.lock_path_for(state.env_path)):
            state.status = STATUS_FAILED
            state.error_kind = "interrupted"
            state.error = msg("install.error.interrupted").text("en")
        return state

    def load(self, env_path: str) -> EnvState | None:
        try:
            with open(self.path_for(env_path), encoding="utf-8") as fh:
                data = json.load(fh)
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            return None  # unreadable: treated as no record; the marker still protects the folder
        try:
            return self._settled(EnvState.from_json(data))
        except (TypeError, ValueError, AttributeError):
            return None

    def save(self, state: EnvState) -> None:
        state.updated_at = _now()
        write_atomic(self.path_for(state.env_path), json.dumps(state.to_json(), ensure_ascii=False, indent=2),
                     suffix=".tmp", mkdir=True)

    def delete(self, env_path: str) -> None:
        self.path_for(env_path).unlink(missing_ok=True)
        self.freeze_path_for(env_path).unlink(missing_ok=True)

    def move(self, state: EnvState, new_path: str) -> None:
        """The environment turned out to live elsewhere (conda chose the prefix)."""
        old = state.env_path
        if env_key(old) == env_key(new_path):
            state.env_path = new_path
            self.save(state)
            return
        old_freeze = self.freeze_path_for(old)
        state.env_path = new_path
        if old_freeze.exists():
            replace_file(old_freeze, self.freeze_path_for(new_path))
            state.freeze_file = str(self.freeze_path_for(new_path))
        self.save(state)
        self.path_for(old).unlink(missing_ok=True)

    def all(self) -> list[EnvState]:
        """Every recorded environment (for "unfinished installs" on the Environment page);
        unreadable records are left out (:meth:`scan` names them)."""
        return self.scan()[0]

    def scan(self) -> tuple[list[EnvState], list[tuple[str, str]]]:
        """Every readable record, and ``(file, why)`` for each record file that could not be
        read (not JSON, another schema, a field of the wrong type) or a store that cannot be
        listed: a caller that acts on "every environment the wizard made" says what it skipped."""
        out: list[EnvState] = []
        bad: list[tuple[str, str]] = []
        if not self.root.exists():
            return out, bad
        try:
            files = sorted(p for p in self.root.iterdir() if p.name.endswith(".json"))
        except OSError as exc:
            return out, [(str(self.root), exc.strerror or str(exc))]
        for path in files:
            try:
                with open(path, encoding="utf-8") as fh:
                    data = json.load(fh)
                if not isinstance(data, dict):
                    raise ValueError("not a JSON object")
                out.append(self._settled(EnvState.from_json(data)))
            except OSError as exc:
                bad.append((str(path), exc.strerror or str(exc)))
            except (ValueError, TypeError, AttributeError) as exc:
                bad.append((str(path), f"{type(exc).__name__}: {exc}"[:300]))
        return out, bad

    def unfinished(self) -> list[EnvState]:
        return [s for s in self.all() if s.status != STATUS_COMPLETE]


# --------------------------------------------------------------------------------------------
# Remove
# --------------------------------------------------------------------------------------------
class RemoveRefused(Exception):
    """Remove would delete something the wizard did not create. ``message``: the deletion rule's
    reason as a Message (render it in the student's language), when the rule refused."""

    def __init__(self, text: str, message: Any = None) -> None:
        super().__init__(text)
        self.message = message


@dataclass
class RemoveResult:
    removed: list[str]
    method: str  # "rmtree" | "conda" | "nothing"
    detail: str = ""
    freed: int = 0  # bytes of the files the wizard itself deleted (conda's own removal not counted)


def _env_shape(path: str) -> tuple[bool, list[str]]:
    """An environment's shape (the marker counts as its own); an empty folder the wizard began is one."""
    is_env, foreign = deletion.env_shape(path, [INCOMPLETE_MARKER])
    return (is_env or not os.listdir(path)), foreign


def looks_like_our_env(path: str) -> bool:
    """The folder is an environment (or the start of one), holds nothing else, and is a real
    folder, not a link: not someone's documents."""
    if not os.path.isdir(path) or os.path.islink(path):
        return False
    try:
        is_env, foreign = _env_shape(path)
    except OSError:
        return False
    return is_env and not foreign


def plan_removal(path: str, environ: Mapping[str, str] | None = None) -> deletion.DeletePlan:
    """The deletion of the environment folder ``path`` under the one rule (see the module docstring)."""
    plan = deletion.DeletePlan(os.path.abspath(path))
    why = deletion.in_use(path, environ) if os.path.isdir(path) else None
    if why is not None:
        return plan.refuse(why)
    return deletion.plan_tree(path, own=_env_shape, environ=environ)


def remove_environment(state: EnvState, host: Host, store: StateStore | None = None,
                       timeout: float = 600.0, plan: deletion.DeletePlan | None = None) -> RemoveResult:
    """Delete the environment the wizard created (and its state record). Refuses otherwise.
    ``plan``: the deletion a dry run already showed (the storage cleanup), executed as it is;
    without one (or after conda removed what it knows) it is made here."""
    if not state.created_by_wizard:
        raise RemoveRefused(f"{state.env_path} was not created by the wizard")
    path = state.env_path
    target = state.env_target()
    if not os.path.exists(path):
        if store is not None:
            store.delete(path)
        return RemoveResult([], "nothing")
    if plan is None or plan.refused is not None:
        plan = plan_removal(path)
    if plan.refused is not None:
        raise RemoveRefused(plan.refused.text("en"), plan.refused)
    method, detail, freed = "rmtree", "", 0
    if target.is_conda and target.conda_exe:
        res = host.run(conda_remove_argv(target.conda_exe, path), timeout=timeout)
        method = "conda"
        detail = (res.stderr or res.stdout or res.error or "").strip()[-500:]
        plan = plan_removal(path) if os.path.lexists(path) else None  # what conda left, planned again
        if plan is not None and plan.refused is not None:
            raise RemoveRefused(plan.refused.text("en"), plan.refused)
    if plan is not None and os.path.lexists(path):  # conda leaves the folder behind when files were in use; venvs always
        done = deletion.execute(plan)
        freed = done.freed
        if done.errors or done.left:
            raise OSError("; ".join((done.errors + [f"{p}: not empty" for p in done.left])[:5]))
    if store is not None:
        store.delete(path)
    return RemoveResult([path], method, detail, freed)


# --------------------------------------------------------------------------------------------
# Restore
# --------------------------------------------------------------------------------------------
_FREEZE_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._\-]*)==([^\s;#]+)")


def parse_freeze(text: str) -> tuple[dict[str, str], list[str]]:
    """``pip freeze`` → ({canonical name: version} for ``name==version`` lines, other lines).

    The other lines (``name @ file:///...`` from conda, ``-e git+...``) cannot be reinstalled
    from an index; Restore reports them instead of guessing.
    """
    pins: dict[str, str] = {}
    other: list[str] = []
    for raw in (text or "").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = _FREEZE_PIN.match(line)
        if m:
            pins[canonicalize_name(m.group(1))] = m.group(2)
        else:
            other.append(line)
    return pins, other


@dataclass
class RestorePlan:
    uninstall: list[str]  # added by the install
    reinstall: list[str]  # "name==old_version" for what it replaced or removed
    not_restorable: list[str]  # freeze lines that are not name==version

    @property
    def empty(self) -> bool:
        return not self.uninstall and not self.reinstall


def restore_plan(freeze_text: str, installed_now: Mapping[str, str]) -> RestorePlan:
    """What to do to get from ``installed_now`` back to the frozen set."""
    before, other = parse_freeze(freeze_text)
    now: dict[str, str] = {canonicalize_name(k): v for k, v in installed_now.items()}
    other_names = {canonicalize_name(re.split(r"[\s@=<>!~;]", o, maxsplit=1)[0]) for o in other}
    uninstall = sorted(n for n in now if n not in before and n not in other_names)
    wanted = sorted(f"{n}=={v}" for n, v in before.items() if now.get(n) != v)
    # the one install rule (requirements.py): a pin that fails it is reported, never passed to pip
    from wizard.core.install.requirements import first_refusal

    reinstall = [r for r in wanted if first_refusal([r]) is None]
    return RestorePlan(uninstall, reinstall, other + [r for r in wanted if r not in reinstall])


def restore_argvs(pip_cmd: list[str], plan: RestorePlan, find_links: str | None = None,
                  extra_index_urls: list[str] | None = None) -> list[list[str]]:
    """The pip commands for a :class:`RestorePlan` (``pip_cmd``: ``[python, -m, pip]`` or the
    wizard's pip with ``--python``). The reinstall runs with the student's own pip configuration
    (their packages came from their indexes), plus the wizard's cache and the index the install
    used (which also carries the common dependencies it may have replaced)."""
    argvs: list[list[str]] = []
    if plan.uninstall:
        argvs.append([*pip_cmd, "uninstall", "-y", *plan.uninstall])
    if plan.reinstall:
        argv = [*pip_cmd, "install", "--no-deps", "--no-input"]
        if find_links:
            argv += ["--find-links", find_links]
        for url in extra_index_urls or []:
            argv += ["--extra-index-url", url]
        argvs.append(argv + plan.reinstall)
    return argvs


__all__ = [
    "EnvState", "OPTION_REMOVE", "OPTION_RESTORE", "OPTION_RESUME", "RemoveRefused", "RemoveResult", "RestorePlan",
    "STATE_SCHEMA", "STATUS_CANCELLED", "STATUS_COMPLETE", "STATUS_FAILED", "STATUS_RUNNING", "StateStore",
    "default_state_dir", "env_key", "looks_like_our_env", "parse_freeze", "plan_removal", "remove_environment",
    "restore_argvs",
    "restore_plan",
]
