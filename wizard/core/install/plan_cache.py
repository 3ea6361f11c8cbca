"""A ``uv pip compile`` result kept for the same question, used again only while the index
answers the same.

Why: a warm install spends most of its time planning -- uv asks the index for every page and
``.metadata`` file again (PyPI-style pages say nothing about caching, so uv revalidates them
all) and then resolves. The question is the same (requirements, indexes, interpreter, uv) and,
as long as every answer uv read is the same, so is uv's answer: the resolver is a function of
those. So the first plan is kept with the SHA-256 of every response uv read, and the next run
asks the index for the same URLs itself (all at once) and compares -- the same requests uv
would make, without starting uv or resolving again. One answer that differs, fails or cannot
be fetched, and uv plans as before.

What counts as the same question (:func:`plan_key`): the requirements in order, the index and
extra indexes, ``--only-binary``, uv's network arguments, the uv binary (path, size, mtime) and
the interpreter (its real file, size and mtime, a venv's ``pyvenv.cfg`` version and home) and
the machine facts a wheel tag depends on (OS, architecture, C library version).

Which URLs uv read comes from its ``-v`` log (``... request for: URL``); a plan is kept only
when uv really sent a request for every URL it used (not an answer from its own HTTP cache,
which may be older than the index) and read no wheel itself (no PEP 658 metadata: a range
request into the wheel, which this check would have to download in full). The answers are
fetched once more right after uv (a few kB of pages); the window between the two is
milliseconds, and a later change of any page is seen the next time.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from wizard.core.base.files import write_atomic

SCHEMA = "gpu-setup-wizard/plan-cache@1"
# what uv sends for a simple page (the JSON API first): the same question gets the same answer
ACCEPT = "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.01"
FETCH_TIMEOUT = (5.0, 30.0)
_URL_LINE = re.compile(r"\b(request|response|entry) for: (\S+)\s*$")
_SENT = re.compile(r"\bSending (?:fresh GET |revalidation )?request for: (\S+)\s*$")
_ARCHIVES = (".whl", ".tar.gz", ".zip", ".tar.bz2", ".tgz")


def _file_id(path: str) -> list[Any]:
    """A file's identity: its real path, size and modification time (a new build changes one)."""
    real = os.path.realpath(path)
    try:
        st = os.stat(real)
    except OSError:
        return [real, None, None]
    return [real, st.st_size, st.st_mtime_ns]


def _pyvenv(python: str) -> list[str]:
    """The ``home`` and version lines of the venv ``python`` belongs to (none outside a venv)."""
    cfg = Path(python).parent.parent / "pyvenv.cfg"
    try:
        lines = cfg.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    keep = ("home", "version", "version_info", "implementation")
    return sorted(ln.strip() for ln in lines if ln.partition("=")[0].strip().lower() in keep)


def _machine() -> list[str]:
    """What a wheel's platform tag depends on besides the interpreter."""
    libc = ""
    try:
        libc = os.confstr("CS_GNU_LIBC_VERSION") or ""
    except (AttributeError, ValueError, OSError):
        libc = ""
    return [sys.platform, platform.machine(), libc, platform.mac_ver()[0] if sys.platform == "darwin" else ""]


def plan_key(uv_exe: str, python: str, requirements: Sequence[str], index_url: str | None,
             extra_index_urls: Sequence[str], only_binary: bool, network_args: Sequence[str]) -> str:
    """The SHA-256 naming one planning question (see the module's docstring)."""
    material = {"schema": SCHEMA, "uv": _file_id(uv_exe), "python": _file_id(python), "venv": _pyvenv(python),
                "machine": _machine(), "requirements": list(requirements), "index_url": index_url,
                "extra_index_urls": list(extra_index_urls), "only_binary": bool(only_binary),
                "network": list(network_args)}
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode("utf-8")).hexdigest()


@dataclass
class ConsultedUrls:
    """The URLs uv's ``-v`` log says it used, and which of them it really asked the index for."""

    used: list[str] = field(default_factory=list)
    sent: set[str] = field(default_factory=set)

    def feed(self, line: str) -> None:
        m = _URL_LINE.search(line)
        if m and m.group(2) not in self.used:
            self.used.append(m.group(2))
        s = _SENT.search(line)
        if s:
            self.sent.add(s.group(1))

    def cacheable(self) -> bool:
        """Every URL uv used was asked of the index in this run, and none is an archive."""
        return bool(self.used) and all(u in self.sent for u in self.used) and not any(
            u.split("#", 1)[0].split("?", 1)[0].endswith(_ARCHIVES) for u in self.used)


def fetch_digests(urls: Sequence[str], session_factory: Callable[[], Any],
                  parallel: int = 4) -> dict[str, str] | None:
    """The SHA-256 of the body of each URL, or None when any fails.

    A few threads, each asking for its share of the URLs one after another, each request on a
    connection of its own: a burst of many new connections overflows a small server's listen
    queue (five in Python's own; a dropped SYN costs a second), and on a kept-alive connection
    a server that writes its headers and body apart meets the client's delayed ACK (40 ms a
    request)."""
    import requests

    def share(part: Sequence[str]) -> list[str | None]:
        out: list[str | None] = []
        for url in part:
            with session_factory() as sess:
                try:
                    resp = sess.get(url, headers={"Accept": ACCEPT}, timeout=FETCH_TIMEOUT)
                except requests.RequestException:
                    return [None]
            if resp.status_code != 200:
                return [None]
            out.append(hashlib.sha256(resp.content).hexdigest())
        return out

    if not urls:
        return None
    n = max(1, min(parallel, len(urls)))
    parts = [list(urls[i::n]) for i in range(n)]
    with ThreadPoolExecutor(max_workers=n) as pool:
        results = list(pool.map(share, parts))
    digests: dict[str, str] = {}
    for part, got in zip(parts, results):
        if len(got) != len(part) or any(d is None for d in got):
            return None
        digests.update(zip(part, got))  # type: ignore[arg-type]
    return digests


@dataclass
class CachedPlan:
    """A kept ``pylock.toml`` and the answers it was made from."""

    lock_text: str
    responses: dict[str, str]


class PlanCache:
    """``<root>/<key>.json`` per planning question (the wheel cache's ``plans`` folder). Reading
    or writing it never fails an install: a damaged or unwritable entry only means uv plans."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    def _path(self, key: str) -> Path:
        return self.root / f"{key}.json"

    def load(self, key: str) -> CachedPlan | None:
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            return None
        lock, responses = data.get("lock"), data.get("responses")
        if not isinstance(lock, str) or not isinstance(responses, dict) or not responses:
            return None
        return CachedPlan(lock, {str(k): str(v) for k, v in responses.items()})

    def store(self, key: str, plan: CachedPlan) -> bool:
        doc = {"schema": SCHEMA, "lock": plan.lock_text, "responses": plan.responses}
        try:
            write_atomic(self._path(key), json.dumps(doc), suffix=".tmp", mkdir=True)
        except OSError:
            return False
        return True

    def forget(self, key: str) -> None:
        try:
            self._path(key).unlink()
        except OSError:
            pass

    def still_valid(self, plan: CachedPlan, session_factory: Callable[[], Any]) -> bool:
        """The index answers every URL exactly as when the plan was made."""
        now = fetch_digests(list(plan.responses), session_factory)
        return now is not None and now == plan.responses


__all__ = ["ACCEPT", "CachedPlan", "ConsultedUrls", "PlanCache", "fetch_digests", "plan_key"]
