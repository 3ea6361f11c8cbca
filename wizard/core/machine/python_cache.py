"""What each interpreter said about itself, kept between runs, keyed by the file it runs.

Why: starting an interpreter is most of a detection (issue 17: 20 queries, 0.65–1.1 s without a
GPU). An interpreter's version, architecture and prefix change only when its executable does, so
the answer is kept under the executable's real path and reused while the file's mtime and size
(and, for a venv, its ``pyvenv.cfg``'s) are unchanged. Two names of one file (``/usr/bin/python3``
and ``python3.11``) have one identity, so they are asked once.

The cache is a convenience, never a source of truth: it lives in the user cache folder
(platformdirs), is written with :func:`~wizard.core.base.files.write_atomic`, and a missing,
corrupt or foreign file is ignored (and replaced on the next write). Only the real file system has
identities; a recorded or fake host gets none, and its interpreters are queried as before.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wizard.core.base.host import Host, RealHost

APP_NAME = "gpu-setup-wizard"
CACHE_FILE = "pythons.json"
CACHE_VERSION = 1
MAX_ENTRIES = 200  # a machine with more interpreters than this is not the usual case: the oldest go


@dataclass(frozen=True)
class Identity:
    """One interpreter as the file system knows it: the real executable and, for a venv, its config.
    ``stamp`` changes whenever either file changes."""

    key: str
    stamp: tuple[int, int, int]


def real_file_system(host: Host) -> bool:
    """True when ``host`` looks at this machine's files (so os.stat and realpath tell the truth)."""
    return isinstance(host, RealHost) and type(host).exists is RealHost.exists


def _venv_config(path: str) -> str | None:
    """The ``pyvenv.cfg`` Python finds for an executable invoked as ``path`` (its folder or the one above)."""
    folder = os.path.dirname(os.path.abspath(path))
    for candidate in (os.path.join(folder, "pyvenv.cfg"), os.path.join(os.path.dirname(folder), "pyvenv.cfg")):
        if os.path.isfile(candidate):
            return candidate
    return None


def identity(host: Host, path: str) -> Identity | None:
    """The identity of the interpreter at ``path``, or None (not the real file system, or no such file)."""
    if not real_file_system(host):
        return None
    try:
        real = os.path.realpath(path)
        st = os.stat(real)
        cfg = _venv_config(path)
        cfg_mtime = os.stat(cfg).st_mtime_ns if cfg else 0
    except OSError:
        return None
    key = real + ("\0" + os.path.realpath(cfg) if cfg else "")
    return Identity(os.path.normcase(key), (st.st_mtime_ns, st.st_size, cfg_mtime))


def default_cache_path() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False)) / CACHE_FILE


class FactsCache:
    """The query answers by identity, read once and written once per detection (when something changed)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_cache_path()
        self._entries: dict[str, dict[str, Any]] = {}
        self._dirty = False
        self.hits = 0
        self._load()

    def _load(self) -> None:
        try:
            doc = json.loads(self.path.read_bytes()[: 4 * 1024 * 1024])
        except (OSError, ValueError):  # missing, unreadable, not JSON: start empty
            return
        if not isinstance(doc, dict) or doc.get("version") != CACHE_VERSION or not isinstance(doc.get("entries"), dict):
            return
        for key, entry in doc["entries"].items():
            if (isinstance(entry, dict) and isinstance(entry.get("data"), dict) and isinstance(entry.get("stamp"), list)
                    and len(entry["stamp"]) == 3 and all(isinstance(v, int) for v in entry["stamp"])):
                self._entries[key] = entry

    def get(self, ident: Identity | None) -> dict[str, Any] | None:
        """The answer kept for ``ident`` while its files are unchanged, else None."""
        if ident is None:
            return None
        entry = self._entries.get(ident.key)
        if entry is None or tuple(entry["stamp"]) != ident.stamp:
            return None
        self.hits += 1
        return dict(entry["data"])

    def put(self, ident: Identity | None, data: dict[str, Any]) -> None:
        if ident is None:
            return
        self._entries[ident.key] = {"stamp": list(ident.stamp), "data": data}
        self._dirty = True

    def save(self) -> None:
        """Write the cache if it changed; a failure to write only costs the next run its speed."""
        if not self._dirty:
            return
        from wizard.core.base.files import write_atomic

        entries = dict(list(self._entries.items())[-MAX_ENTRIES:])
        try:
            write_atomic(self.path, json.dumps({"version": CACHE_VERSION, "entries": entries}), mkdir=True)
            self._dirty = False
        except OSError as exc:
            import logging  # only here: doctor's start-up has no other use for it (issue 17)

            logging.getLogger(__name__).info("interpreter cache not written (%s): %s", self.path, exc)


__all__ = ["FactsCache", "Identity", "identity", "real_file_system", "default_cache_path", "CACHE_VERSION"]
