"""Storage, the same for the window and the terminal: a survey of what takes space, a cleanup
plan, and the cleanup itself (:mod:`wizard.core.storage` does the work; no Qt here).

Why an app module: the Storage panel and ``gpu-setup-wizard storage`` must list the same
folders with the same sizes and refuse the same things; both call :func:`survey`,
:func:`plan` and :func:`clean`, and the texts both show come from here too.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from wizard.core.base.host import Host, RealHost
from wizard.core.base.i18n import t
from wizard.core.storage import cleanup as core_clean
from wizard.core.storage.cleanup import CleanPlan as CleanPlan  # what plan() answers, for the faces
from wizard.core.storage.locations import (
    KIND_ENV,
    KIND_HF,
    KIND_PIP,
    KIND_UV,
    KIND_WIZARD_CACHE,
    Location,
    Runner,
    environment_locations,
    hf_cache_path,
    pip_location,
    run_tool,
    uv_location,
)
from wizard.core.storage.locations import is_environment as is_environment  # re-exported for the faces
from wizard.core.storage.measure import Usage, measure
from wizard.core.storage.measure import human_size as human_size  # re-exported for the faces

if TYPE_CHECKING:
    from wizard.core.history.store import HistoryStore
    from wizard.core.install.recovery import EnvState, StateStore

SCHEMA = "gpu-setup-wizard/storage@1.0"
KIND_ORDER = (KIND_ENV, KIND_WIZARD_CACHE, KIND_PIP, KIND_UV, KIND_HF)


@dataclass
class Entry:
    location: Location
    usage: Usage

    def to_json(self, lang: str) -> dict[str, Any]:
        return {"kind": self.location.kind, "label": t(f"storage.kind.{self.location.kind}", lang),
                **self.location.to_json(), "usage": self.usage.to_json()}


@dataclass
class StorageReport:
    entries: list[Entry] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(e.usage.bytes for e in self.entries)

    def of_kind(self, kind: str) -> list[Entry]:
        return [e for e in self.entries if e.location.kind == kind]

    @property
    def environments(self) -> list[Entry]:
        return self.of_kind(KIND_ENV)

    @property
    def caches(self) -> list[Location]:
        return [e.location for e in self.entries if e.location.kind != KIND_ENV]

    def to_json(self, lang: str) -> dict[str, Any]:
        return {"schema": SCHEMA, "total_bytes": self.total, "entries": [e.to_json(lang) for e in self.entries]}


def _state_store() -> StateStore:
    from wizard.core.install.recovery import StateStore

    return StateStore()


def _history_store() -> HistoryStore:
    from wizard.core.history.store import HistoryStore

    return HistoryStore()


@dataclass
class Stores:
    """Where the wizard keeps its records (the defaults; tests point them elsewhere through
    the environment, as a student's HOME/XDG would)."""

    state: StateStore = field(default_factory=_state_store)  # the user's unless given
    history: HistoryStore = field(default_factory=_history_store)
    cache_root: str | None = None

    def __post_init__(self) -> None:
        from wizard.core.install.cache import default_cache_root

        self.cache_root = self.cache_root or str(default_cache_root())


def _pip_python(envs: Sequence[Location]) -> str | None:
    """A Python whose pip can be asked: the wizard's own (not in a frozen bundle), else a known env's."""
    if not getattr(sys, "frozen", False) and importlib.util.find_spec("pip") is not None:
        return sys.executable
    for env in envs:
        for rel in ("bin/python", "Scripts/python.exe"):
            exe = os.path.join(env.path, rel)
            if os.path.isfile(exe):
                return exe
    return None


def _history_paths(history: HistoryStore) -> list[str]:
    try:
        entries = history.entries()
    except OSError:
        return []
    return [e.snapshot.env_path for e in entries if e.snapshot.env_path]


def locations(host: Host | None = None, stores: Stores | None = None, environ: Mapping[str, str] | None = None,
              runner: Runner = run_tool, uv: str | None = "auto") -> list[Location]:
    """Every folder the survey measures (the tools asked where theirs are)."""
    from wizard.core.install.environments import find_uv
    from wizard.core.machine.system import default_env_root

    host = host or RealHost()
    stores = stores or Stores()
    environ = os.environ if environ is None else environ
    envs = environment_locations(default_env_root(host), [s.env_path for s in stores.state.all()],
                                 _history_paths(stores.history))
    found = list(envs)
    found.append(Location(KIND_WIZARD_CACHE, str(stores.cache_root), "wizard"))
    found.append(pip_location(_pip_python(envs), environ, runner))
    found.append(uv_location(find_uv() if uv == "auto" else uv, environ, runner))
    path, source = hf_cache_path(environ)
    found.append(Location(KIND_HF, path, source))
    return found


def survey(host: Host | None = None, stores: Stores | None = None, environ: Mapping[str, str] | None = None,
           runner: Runner = run_tool, uv: str | None = "auto", cancel: threading.Event | None = None,
           on_entry: Callable[[Entry], None] | None = None) -> StorageReport:
    """Measure every location (slow on a big cache: the GUI calls this on a worker thread)."""
    report = StorageReport()
    for loc in locations(host, stores, environ, runner, uv):
        if cancel is not None and cancel.is_set():
            break
        entry = Entry(loc, measure(loc.path, cancel=cancel))
        report.entries.append(entry)
        if on_entry is not None:
            on_entry(entry)
    return report


def plan(report: StorageReport, confirmed_envs: Sequence[str], stores: Stores | None = None,
         caches: bool = True) -> core_clean.CleanPlan:
    """The cleanup of the caches (unless ``caches`` is False) and of exactly ``confirmed_envs``."""
    from wizard.core.install.locks import env_busy
    from wizard.core.install.recovery import STATUS_RUNNING

    stores = stores or Stores()
    states = stores.state.all()
    unfinished = [s for s in states if s.status != "complete"]
    running = any(s.status == STATUS_RUNNING for s in states)
    return core_clean.plan_cleanup(report.caches if caches else [], list(confirmed_envs), unfinished, states,
                                   busy=lambda p: env_busy(stores.state.lock_path_for(p)), running=running)


def clean(cleanup: core_clean.CleanPlan, stores: Stores | None = None, host: Host | None = None,
          runner: Runner = run_tool, cancel: threading.Event | None = None,
          on_item: Callable[[core_clean.CleanItem], None] | None = None) -> core_clean.CleanPlan:
    """Carry the plan out; an environment with a wizard record goes through the record's own
    removal (conda's ``remove`` for a conda env it made), its record deleted with it."""
    from wizard.app.environments import remove_environment  # the one removal both faces use

    stores = stores or Stores()
    host = host or RealHost()

    def remove_env(item: core_clean.CleanItem) -> None:
        state = next((s for s in stores.state.all() if core_clean._same(s.env_path, item.path)), None)
        if state is not None and state.created_by_wizard:
            outcome = remove_environment(state, host, stores.state, plan=item.plan)
            if outcome.refused is not None:  # said as this item's error, never reported as done
                raise OSError(outcome.refused)
            item.freed = outcome.freed
            return
        core_clean.remove_venv_folder(item)
        stores.state.delete(item.path)

    return core_clean.run_cleanup(cleanup, remove_env, runner=runner, cancel=cancel, on_item=on_item)


# --------------------------------------------------------------------------------------------
# The environments the wizard made (``storage --clean --wizard-envs``: the uninstaller's purge)
# --------------------------------------------------------------------------------------------
@dataclass
class WizardEnvs:
    """The environments this user's wizard made, as its install records say (wherever they are:
    the profile, the shared ASCII root, a folder the student typed), and the record files that
    could not be read (``(file, why)``: said, never guessed from)."""

    store: str
    states: list[EnvState] = field(default_factory=list)
    unreadable: list[tuple[str, str]] = field(default_factory=list)

    @property
    def paths(self) -> list[str]:
        return [s.env_path for s in self.states]

    def to_json(self) -> dict[str, Any]:
        return {"store": self.store, "environments": self.paths,
                "unreadable": [{"file": f, "error": e} for f, e in self.unreadable]}


def _made_by_wizard(states: Sequence[EnvState]) -> list[EnvState]:
    made: list[EnvState] = []
    seen: set[str] = set()
    for state in states:
        key = os.path.normcase(os.path.abspath(state.env_path))
        if state.created_by_wizard and key not in seen:
            seen.add(key)
            made.append(state)
    return made


def plan_wizard_envs(stores: Stores | None = None, also: Sequence[str] = (),
                     environ: Mapping[str, str] | None = None) -> tuple[core_clean.CleanPlan, WizardEnvs]:
    """The removal of every environment this user's records say the wizard made, and of the
    environments in ``also`` (named one by one, as ``--env``); no cache. Each recorded one goes
    through the rule an environment named with ``--env`` goes through (an environment's shape
    and nothing else in it, never HOME, never in use, never through a link), and its record
    must still describe the folder (no link on its path, the folder not made after the record:
    the shared root holds other users' environments, which no record of this user's names).
    Each environment that will be removed brings the Jupyter kernels the wizard registered for
    it (marked, pointing into it: :func:`~wizard.core.storage.cleanup.with_kernelspecs`), each
    its own item. Whatever fails is in the plan as refused, with why; nothing is deleted here."""
    from wizard.core.install.locks import env_busy
    from wizard.core.verify.kernel_install import marked_kernelspecs
    from wizard.core.verify.kernel_specs import jupyter_data_dirs

    stores = stores or Stores()
    states, unreadable = stores.state.scan()
    found = WizardEnvs(str(stores.state.root), _made_by_wizard(states), unreadable)

    def busy(path: str) -> bool:
        return env_busy(stores.state.lock_path_for(path))

    items = [core_clean.plan_recorded_environment(s.env_path, s, states, busy, environ) for s in found.states]
    planned = {os.path.normcase(os.path.abspath(s.env_path)) for s in found.states}
    for path in also:
        if os.path.normcase(os.path.abspath(path)) not in planned:
            planned.add(os.path.normcase(os.path.abspath(path)))
            items.append(core_clean.plan_environment(path, states, busy, environ))
    if any(i.kind == KIND_ENV and not i.refused for i in items):
        items = core_clean.with_kernelspecs(items, marked_kernelspecs(jupyter_data_dirs(environ)), environ)
    return core_clean.CleanPlan(items), found


def wizard_envs_text(found: WizardEnvs, lang: str) -> str:
    """What the records said: how many environments, from which store, and each record skipped."""
    lines = [t("storage.wizard_envs.heading", lang, count=len(found.states), store=found.store)
             if found.states else t("storage.wizard_envs.none", lang, store=found.store)]
    for file, error in found.unreadable:
        lines.append("    " + t("storage.wizard_envs.unreadable", lang, file=file, error=error))
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# Texts
# --------------------------------------------------------------------------------------------
def size_text(usage: Usage, lang: str) -> str:
    if not usage.exists:
        return t("storage.size.absent", lang)
    text = human_size(usage.bytes)
    if usage.truncated:
        text = t("storage.size.at_least", lang, size=text)
    if usage.errors:
        text += " " + t("storage.size.unreadable", lang, count=usage.errors)
    return text


def report_text(report: StorageReport, lang: str) -> str:
    lines = [t("storage.heading", lang)]
    for kind in KIND_ORDER:
        for e in report.of_kind(kind):
            lines.append(f"  {t(f'storage.kind.{kind}', lang):<28} {size_text(e.usage, lang):>14}  {e.location.path}")
    lines.append(t("storage.total", lang, size=human_size(report.total)))
    lines.append(t("storage.hf_note", lang))
    return "\n".join(lines)


METHOD_KEYS = {core_clean.METHOD_FILES: "storage.method.files", core_clean.METHOD_ENV: "storage.method.env",
               core_clean.METHOD_CONDA: "storage.method.conda",
               core_clean.METHOD_KERNELSPEC: "storage.method.kernelspec"}


def method_text(method: str, lang: str) -> str:
    """How an item is cleaned, in the student's language (the tools' own commands stay as typed)."""
    key = METHOD_KEYS.get(method)
    return t(key, lang) if key else method


def item_text(item: core_clean.CleanItem, lang: str, dry_run: bool) -> list[str]:
    label = t(f"storage.kind.{item.kind}", lang)
    lines = [f"{label}: {item.path}"]
    if item.env_path:  # a kernel the wizard registered: which environment it goes with
        lines.append("    " + t("storage.kernelspec.for_env", lang, env=item.env_path))
    if item.refused:
        return lines + ["    " + t(item.refused, lang, **item.refused_params)]
    sizes = {"before": human_size(item.before), "after": human_size(item.expected_after),
             "freed": human_size(item.expected_freed), "method": method_text(item.method, lang)}
    if dry_run or not item.done:
        lines.append("    " + t("storage.plan.would", lang, **sizes))
    if dry_run and item.plan is not None and item.plan.shown:
        shown = item.plan.shown
        names = ", ".join(shown[:20]) + (f" (+{len(shown) - 20})" if len(shown) > 20 else "")
        lines.append("    " + t("storage.plan.deletes", lang, names=names))
    if not dry_run:
        if item.done:
            freed = item.freed if item.freed is not None else max(0, item.before - (item.after or 0))
            lines.append("    " + t("storage.plan.did", lang, method=sizes["method"], before=sizes["before"],
                                      after=human_size(item.after), freed=human_size(freed)))
        elif item.error:
            lines.append("    " + t("storage.plan.error", lang, error=item.error))
    for kept in item.kept:
        if kept.reason == "lock":
            continue
        if kept.reason.startswith("storage.delete."):  # a whole subfolder the rule refused (a link, a mount)
            lines.append("    " + t(kept.reason, lang, path=kept.path, error="", names="", count=""))
            continue
        lines.append("    " + t(f"storage.kept.{kept.reason}", lang, file=os.path.basename(kept.path),
                                size=human_size(kept.bytes), env=kept.env_path or ""))
    return lines


def plan_text(cleanup: core_clean.CleanPlan, lang: str, dry_run: bool) -> str:
    lines = [t("storage.plan.heading_dry" if dry_run else "storage.plan.heading", lang)]
    for item in cleanup.items:
        lines += item_text(item, lang, dry_run)
    data = cleanup.to_json()
    after = data["after"] if data["after"] is not None else data["expected_after"]
    key = "storage.plan.total_dry" if dry_run else "storage.plan.total"
    lines.append(t(key, lang, before=human_size(data["before"]), after=human_size(after),
                   freed=human_size(max(0, data["before"] - after))))
    return "\n".join(lines)


__all__ = ["Entry", "StorageReport", "Stores", "locations", "survey", "plan", "clean", "report_text",
           "plan_text", "item_text", "size_text", "SCHEMA", "KIND_ORDER", "WizardEnvs", "plan_wizard_envs",
           "wizard_envs_text"]
