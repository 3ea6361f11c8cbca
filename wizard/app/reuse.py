"""A re-run starts where the last one ended: the environment it verified is offered first, and
the mirror and the build the student chose come back.

Why: a second run that proposes ``torch-cpu-2`` (another 234 MB download) next to a working
``torch-cpu``, with the mirror field empty again and the recommended build instead of the one
the student picked, looks like the first run never happened.

* :func:`last_verified_env` reads the history (the last run whose torch worked, in a folder that
  still exists) and the install states (a complete install the wizard made).
* :class:`Remembered` is a small JSON file in the user's config folder (platformdirs; written
  with ``write_atomic``): the mirror, uv's Python mirror, the proxy, the installer and the
  chosen torch + variant. Reading is forgiving: a missing, damaged or foreign file is "nothing
  remembered", never an error the student sees.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from wizard.app.install import InstallSettings
    from wizard.app.session import Session
    from wizard.core.history.store import HistoryStore
    from wizard.core.install.recovery import StateStore
    from wizard.core.recommend.recommender import Candidate

APP_NAME = "gpu-setup-wizard"
REMEMBERED_FILE = "remembered.json"
REMEMBERED_SCHEMA = "gpu-setup-wizard/remembered@1.0"
MAX_BYTES = 64 * 1024


# --- the environment the last run verified -------------------------------------------------------
@dataclass
class ReuseOffer:
    """An environment to offer first: its folder and Python, the torch in it, and from when."""

    env_path: str
    python_exe: str
    torch: str | None = None
    when: str | None = None
    source: str = "history"  # history (a saved run) | install (a complete install the wizard made)
    verified: bool = False  # Verify's probe saw this torch (its facts carry the Python it ran in)


def env_python(env_path: str) -> str:
    return os.path.join(env_path, "Scripts", "python.exe") if os.name == "nt" else os.path.join(env_path, "bin",
                                                                                                 "python")


def last_verified_env(history: HistoryStore | None = None, states: StateStore | None = None) -> ReuseOffer | None:
    """The environment of the newest saved run whose torch imported (and, when it was checked, ran
    a kernel), if its Python still exists; else the newest complete install the wizard made.
    ``history``: a HistoryStore; ``states``: a StateStore (defaults: the user's)."""
    from wizard.core.history.store import HistoryStore

    history = history if history is not None else HistoryStore()
    for entry in reversed(history.entries()):
        snap = entry.snapshot
        torch = snap.torch
        path = snap.env_path or (torch.env_path if torch is not None else None)
        if torch is None or not torch.installed or not torch.version or torch.kernel_ok is False or not path:
            continue
        if os.path.isfile(env_python(path)):
            # only the verify probe reports the environment's Python: an install-only run has none
            return ReuseOffer(path, env_python(path), torch.version, snap.time, "history",
                              verified=bool(torch.python_version))
    return last_complete_install(states)


def offer_for(history_dir: str | None, states: StateStore | None) -> ReuseOffer | None:
    """:func:`last_verified_env` over the history in ``history_dir`` (None: the user's)."""
    from wizard.core.history.store import HistoryStore

    return last_verified_env(HistoryStore(history_dir), states)


def last_complete_install(states: StateStore | None = None) -> ReuseOffer | None:
    """The newest install the wizard made and finished, whose Python is still there."""
    from wizard.core.install.recovery import STATUS_COMPLETE, StateStore

    states = states if states is not None else StateStore()
    done = [s for s in states.all() if s.status == STATUS_COMPLETE and s.created_by_wizard]
    for state in sorted(done, key=lambda s: s.updated_at, reverse=True):
        py = env_python(state.env_path)
        if os.path.isfile(py):
            pins = getattr(state, "pins", None) or state.requirements
            torch = next((p.split("==", 1)[1] for p in pins if p.lower().startswith("torch==")), None)
            return ReuseOffer(state.env_path, py, torch, state.updated_at, "install")
    return None


# --- what the student set last time --------------------------------------------------------------
@dataclass
class Remembered:
    """The settings and the choice a later run fills in again."""

    mirror: str = ""
    python_mirror: str = ""
    proxy: str = ""
    installer: str = ""
    torch: str = ""
    variant: str = ""

    @property
    def empty(self) -> bool:
        return not any((self.mirror, self.python_mirror, self.proxy, self.torch))


def default_config_dir() -> Path:
    """``GSW_CONFIG_DIR``, else the user config folder (platformdirs) /gpu-setup-wizard."""
    override = os.environ.get("GSW_CONFIG_DIR")
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def load_remembered(folder: str | os.PathLike[str] | None = None) -> Remembered:
    """What was saved last time; an empty :class:`Remembered` for no file or one we cannot read."""
    from wizard.core.base.user_input import loads_user_json, read_bounded

    path = Path(folder) if folder is not None else default_config_dir()
    try:
        with open(path / REMEMBERED_FILE, "rb") as fh:
            data, cut = read_bounded(fh, MAX_BYTES)
        doc = None if cut else loads_user_json(data)
    except (OSError, ValueError, UnicodeDecodeError):
        return Remembered()
    if not isinstance(doc, dict) or doc.get("schema") != REMEMBERED_SCHEMA:
        return Remembered()
    known = {f.name for f in fields(Remembered)}
    return Remembered(**{k: v for k, v in doc.items() if k in known and isinstance(v, str)})


def save_remembered(remembered: Remembered, folder: str | os.PathLike[str] | None = None) -> Path | None:
    """Save for the next run (atomically). None when the folder cannot be written: forgetting
    a mirror is no reason to stop an install."""
    from wizard.core.base.files import write_atomic

    path = Path(folder) if folder is not None else default_config_dir()
    doc = {"schema": REMEMBERED_SCHEMA, **asdict(remembered)}
    try:
        return write_atomic(path / REMEMBERED_FILE, json.dumps(doc, ensure_ascii=False, indent=1), mkdir=True)
    except OSError:
        return None


def without_credentials(url: str) -> str:
    """``http://user:secret@proxy:3128`` → ``http://proxy:3128``: a password is not written to a
    settings file in plain text (the student types it again)."""
    from urllib.parse import urlsplit, urlunsplit

    url = url.strip()
    try:
        parts = urlsplit(url)
    except ValueError:
        return ""
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))


def remember_install(settings: InstallSettings, candidate: Candidate | None, folder: str | os.PathLike[str] | None = None) -> Path | None:
    """The settings (mirror, proxy, installer) and the build of an install that is starting."""
    return save_remembered(Remembered(without_credentials(settings.mirror), without_credentials(settings.python_mirror),
                                      without_credentials(settings.proxy), settings.installer or "",
                                      getattr(candidate, "torch", "") or "", getattr(candidate, "variant", "") or ""),
                           folder)


def remembered_build(session: Session, remembered: Remembered) -> Candidate | None:
    """The build the student chose last time, when it still fits this machine (one of the
    recommender's candidates) and this run has not picked another; else None."""
    choice = session.recommendation
    if not remembered.torch or choice is None or session.candidate is None:
        return None
    rec = choice.recommendation
    if session.candidate is not rec.best:
        return None  # the student picked a build on the Recommend page this run: theirs wins
    if (session.candidate.torch, session.candidate.variant) == (remembered.torch, remembered.variant):
        return None
    from wizard.core.recommend.inputs import Wishes
    from wizard.core.recommend.recommender import recommend

    fitting = recommend(rec.facts, Wishes(torch=remembered.torch, variant=remembered.variant or None)).candidates
    return next((c for c in fitting if (c.torch, c.variant) == (remembered.torch, remembered.variant)), None)


__all__ = ["REMEMBERED_SCHEMA", "Remembered", "ReuseOffer", "default_config_dir", "last_complete_install",
           "last_verified_env", "load_remembered", "offer_for", "remember_install", "remembered_build", "save_remembered",
           "without_credentials"]
