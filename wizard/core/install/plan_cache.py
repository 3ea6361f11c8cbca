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
milliseconds, and a later change of any page is seen the next time. Where the index gives an
``ETag`` (PyPI does), the check asks conditionally, as uv does, and a 304 counts as the same.
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
from typing import Any, Callable, Mapping, Sequence

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


@dataclass(frozen=True)
class Answer:
    """One URL's answer: the SHA-256 of its body and the server's ``ETag`` for it (if any)."""

    sha256: str
    etag: str = ""


def fetch_answers(urls: Sequence[str], session_factory: Callable[[], Any], known: Mapping[str, Answer] | None = None,
                  parallel: int = 4) -> dict[str, Answer] | None:
    """Each URL's :class:`Answer`, or None when any request fails.

    Where ``known`` has an ETag for the URL the request is conditional (``If-None-Match``), as
    uv's own revalidation is: a 304 says the body is the one that ETag named, so PyPI's large
    pages are not sent again. A few threads, each asking for its share of the URLs one after
    another, each request on a connection of its own: a burst of many new connections
    overflows a small server's listen queue (five in Python's own; a dropped SYN costs a
    second), and on a kept-alive connection a server that writes its headers and body apart
    meets the client's delayed ACK (40 ms a request)."""
    import requests

    before = dict(known or {})

    def ask(sess: Any, url: str) -> Answer | None:
        headers = {"Accept": ACCEPT}
        old = before.get(url)
        if old is not None and old.etag:
            headers["If-None-Match"] = old.etag
        try:
            resp = sess.get(url, headers=headers, timeout=FETCH_TIMEOUT)
        except requests.RequestException:
            return None
        if resp.status_code == 304 and old is not None and old.etag:
            return old
        if resp.status_code != 200:
            return None
        return Answer(hashlib.sha256(resp.content).hexdigest(), resp.headers.get("ETag", ""))

    def share(part: Sequence[str]) -> list[Answer | None]:
        out: list[Answer | None] = []
        for url in part:
            with session_factory() as sess:
                got = ask(sess, url)
            if got is None:
                return [None]
            out.append(got)
        return out

    if not urls:
        return None
    n = max(1, min(parallel, len(urls)))
    parts = [list(urls[i::n]) for i in range(n)]
    with ThreadPoolExecutor(max_workers=n) as pool:
        results = list(pool.map(share, parts))
    answers: dict[str, Answer] = {}
    for part, got in zip(parts, results):
        if len(got) != len(part) or any(a is None for a in got):
            return None
        answers.update(zip(part, got))  # type: ignore[arg-type]
    return answers


@dataclass
class CachedPlan:
    """A kept ``pylock.toml`` and the answers it was made from."""

    lock_text: str
    responses: dict[str, Answer]


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
        answers = {}
        for url, entry in responses.items():
            if not isinstance(entry, dict) or not isinstance(entry.get("sha256"), str):
                return None
            answers[str(url)] = Answer(entry["sha256"], str(entry.get("etag") or ""))
        return CachedPlan(lock, answers)

    def store(self, key: str, plan: CachedPlan) -> bool:
        responses = {url: {"sha256": a.sha256, "etag": a.etag} for url, a in plan.responses.items()}
        doc = {"schema": SCHEMA, "lock": plan.lock_text, "responses": responses}
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
        """The index answers every URL exactly as when the plan was made (same body, or a 304
        for the ETag it gave then)."""
        now = fetch_answers(list(plan.responses), session_factory, plan.responses)
        return now is not None and {u: a.sha256 for u, a in now.items()} == \
            {u: a.sha256 for u, a in plan.responses.items()}


__all__ = ["ACCEPT", "Answer", "CachedPlan", "ConsultedUrls", "PlanCache", "fetch_answers", "plan_key"]
