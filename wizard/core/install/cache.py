"""The download cache: finished wheels the installer reads offline, partial ones it never sees.

Finished, verified files are reused by every later run (re-running after a driver update fetches
0 bytes); partial files are kept across a cancel or a crash, so Resume continues them.

Several installs may share one cache at once: each file is fetched under its own lock
(:meth:`WheelCache.lock_path`, in the partial folder so an installer never sees it), and the
``verified.json`` index is read-modify-written under a lock too. The index only saves re-hashing:
failing to write it (a full disk) costs a re-hash next time, never the install.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from pathlib import Path
from typing import Any, Protocol

from wizard.core.base.files import write_atomic
from wizard.core.install.download_errors import DownloadCancelled
from wizard.core.install.locks import cache_file_lock

log = logging.getLogger(__name__)

APP_NAME = "gpu-setup-wizard"
HASH_BLOCK = 4 * 1024 * 1024


class FileLike(Protocol):
    """What the downloader reads of a planned file (:class:`wizard.core.install.plan.PlannedFile`, a
    bundle's frozen ``VariantFile``): read-only, so a frozen dataclass is one too."""

    @property
    def filename(self) -> str: ...
    @property
    def url(self) -> str: ...
    @property
    def sha256(self) -> str | None: ...
    @property
    def size(self) -> int | None: ...


def default_cache_root() -> Path:
    """``<user cache dir>/gpu-setup-wizard/downloads`` (platformdirs picks the OS's place)."""
    import platformdirs

    return Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False)) / "downloads"


def sha256_file(path: str | os.PathLike[str], cancel: threading.Event | None = None) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while True:
            if cancel is not None and cancel.is_set():
                raise DownloadCancelled()
            block = fh.read(HASH_BLOCK)
            if not block:
                break
            digest.update(block)
    return digest.hexdigest()


class WheelCache:
    """Finished, verified files in ``<root>/files`` (a flat folder: ``--find-links`` points at
    it), partial downloads in ``<root>/partial`` (never seen by an installer), and a small
    ``verified.json`` remembering each file's hash with its size and mtime, so a later run does
    not re-hash 2 GB to know a file is good."""

    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        self.root = Path(root) if root is not None else default_cache_root()
        self.files_dir = self.root / "files"
        self.partial_dir = self.root / "partial"
        self._index_path = self.root / "verified.json"
        self._lock = threading.Lock()

    def ensure(self) -> None:
        self.files_dir.mkdir(parents=True, exist_ok=True)
        self.partial_dir.mkdir(parents=True, exist_ok=True)

    def path(self, filename: str) -> Path:
        return self.files_dir / filename

    def partial(self, f: FileLike) -> Path:
        key = f.sha256 or hashlib.sha256(f.url.encode("utf-8")).hexdigest()
        return self.partial_dir / f"{key[:40]}.part"

    def lock_path(self, f: FileLike) -> Path:
        """The lock a fetch of ``f`` holds (beside its partial file, named like it)."""
        return self.partial(f).with_suffix(".lock")

    def partial_size(self, f: FileLike) -> int:
        try:
            return self.partial(f).stat().st_size
        except OSError:
            return 0

    # --- the verified index -----------------------------------------------------------------
    def _read_index(self) -> dict[str, Any]:
        try:
            with open(self._index_path, encoding="utf-8") as fh:
                data = json.load(fh)
        except FileNotFoundError:
            return {}
        except (OSError, ValueError):
            return {}  # a damaged index only costs a re-hash
        return data if isinstance(data, dict) else {}

    def _write_index(self, data: dict[str, Any]) -> None:
        write_atomic(self._index_path, json.dumps(data), suffix=".tmp", mkdir=True)

    def record(self, filename: str, sha256: str) -> None:
        """Remember a verified file's hash. Best effort: an OSError (a full disk, a folder made
        read-only) is logged and costs only a re-hash on the next run."""
        try:
            st = self.path(filename).stat()
            with self._lock, cache_file_lock(self.root / "verified.lock"):
                data = self._read_index()
                data[filename] = {"sha256": sha256, "size": st.st_size, "mtime_ns": st.st_mtime_ns}
                self._write_index(data)
        except OSError as exc:
            log.warning("could not record %s in the cache index: %s", filename, exc)

    def unpacked(self, filename: str) -> tuple[int, int] | None:
        """(unpacked bytes, longest member path) remembered for a verified file, or None."""
        try:
            st = self.path(filename).stat()
        except OSError:
            return None
        with self._lock:
            entry = self._read_index().get(filename)
        if isinstance(entry, dict) and entry.get("size") == st.st_size and entry.get("mtime_ns") == st.st_mtime_ns \
                and isinstance(entry.get("unpacked"), list) and len(entry["unpacked"]) == 2:
            return int(entry["unpacked"][0]), int(entry["unpacked"][1])
        return None

    def remember_unpacked(self, filename: str, unpacked: int, longest: int) -> None:
        """Keep a verified file's unpacked figures beside its hash (reading a 2 GB wheel's zip
        directory again costs a re-run a third of a second). Best effort, like :meth:`record`."""
        try:
            with self._lock, cache_file_lock(self.root / "verified.lock"):
                data = self._read_index()
                if isinstance(data.get(filename), dict):
                    data[filename]["unpacked"] = [unpacked, longest]
                    self._write_index(data)
        except OSError as exc:
            log.warning("could not record %s in the cache index: %s", filename, exc)

    def known_size(self, f: FileLike) -> int | None:
        """The size of the cached file when the index says it was verified with this very hash
        (no hashing, no request); None otherwise. The plan uses it instead of asking the server."""
        if not f.sha256:
            return None
        try:
            st = self.path(f.filename).stat()
        except OSError:
            return None
        with self._lock:
            entry = self._read_index().get(f.filename)
        if isinstance(entry, dict) and entry.get("sha256") == f.sha256 and entry.get("size") == st.st_size \
                and entry.get("mtime_ns") == st.st_mtime_ns:
            return st.st_size
        return None

    def verified(self, f: FileLike, cancel: threading.Event | None = None) -> Path | None:
        """The cached file when it is there and matches the plan's hash (and size), else None."""
        path = self.path(f.filename)
        try:
            st = path.stat()
        except OSError:
            return None
        if f.size is not None and st.st_size != f.size:
            return None
        with self._lock:
            entry = self._read_index().get(f.filename)
        if isinstance(entry, dict) and entry.get("size") == st.st_size and entry.get("mtime_ns") == st.st_mtime_ns:
            known = entry.get("sha256")
            if f.sha256 is None or known == f.sha256:
                return path
            return None
        actual = sha256_file(path, cancel)
        if f.sha256 is not None and actual != f.sha256:
            return None
        self.record(f.filename, actual)
        return path


__all__ = ["FileLike", "WheelCache", "default_cache_root", "sha256_file", "HASH_BLOCK"]
