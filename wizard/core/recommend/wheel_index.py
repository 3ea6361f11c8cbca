"""Ask the package index whether a wheel exists for this Python and platform, before installing.

Why: the bundled table (:mod:`wizard.core.recommend.compat`) can be out of date or wrong for one corner (a
build listed but never uploaded for Windows, a release whose variant list was still an RFC), and
pip's own answer -- "from versions: none" after a long resolve -- is the worst way to learn it.
One GET of the project's simple-index page answers the question in a second.

How:
* The simple API, both flavours: PEP 691 JSON is asked for first through content negotiation,
  and PEP 503 HTML is read when the index (download.pytorch.org, most mirrors) only has that.
* Wheel file names are parsed with :func:`packaging.utils.parse_wheel_filename`, and their tags
  are matched against the target interpreter's tags (this Python's :func:`packaging.tags.sys_tags`
  or tags built for another interpreter's version/OS/arch with :func:`target_tags`).
* Answers are cached in the user cache dir (platformdirs) with their ``ETag`` / ``Last-Modified``,
  so a second check sends a conditional request and gets a small ``304``. The folder is a
  parameter so tests and portable installs choose it.
* No network: the result says "offline, used the bundled table" (or uses the cached copy and
  says from when). The session is the wizard's one HTTP session (:mod:`wizard.core.base.http`):
  the proxy typed in the window, else the environment's (``HTTPS_PROXY``, ``NO_PROXY``...); a
  mirror is just another ``index_url``.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from html.parser import HTMLParser
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence
from urllib.parse import unquote, urljoin, urlsplit

from wizard.core.base.lazy import lazy_import

if TYPE_CHECKING:
    import requests
else:
    requests = lazy_import("requests")  # loads on first use: not at the window's start-up
from packaging.tags import Tag, compatible_tags, cpython_tags, mac_platforms, sys_tags
from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename
from packaging.version import InvalidVersion, Version

from wizard.core.base.files import write_atomic
from wizard.core.base.i18n import t

APP_NAME = "gpu-setup-wizard"
PEP691_JSON = "application/vnd.pypi.simple.v1+json"
PEP691_HTML = "application/vnd.pypi.simple.v1+html"
ACCEPT = f"{PEP691_JSON}, {PEP691_HTML};q=0.2, text/html;q=0.01"
PYPI_SIMPLE = "https://pypi.org/simple"
DEFAULT_TIMEOUT = (5.0, 20.0)  # connect, read: a large index page takes a while on slow links

STATUS_FOUND = "found"  # a wheel for these tags exists
STATUS_MISSING = "missing"  # the page exists, no wheel of that version for these tags
STATUS_NOT_FOUND = "not-found"  # HTTP 404: the index has no page for the project
STATUS_BAD_URL = "bad-url"  # the index address is not a web address (no https://, no host)
STATUS_OFFLINE = "offline"  # no network and no saved copy: the bundled table decides
STATUS_ERROR = "error"  # any other HTTP status or an unreadable page: the bundled table decides


class IndexUnreachable(Exception):
    """No connection (DNS, refused, timeout, proxy down)."""


class IndexHTTPError(Exception):
    def __init__(self, status: int, url: str) -> None:
        super().__init__(f"HTTP {status} for {url}")
        self.status = status
        self.url = url


class IndexPageError(Exception):
    """The page arrived but could not be read (bad JSON, unknown API version)."""


class IndexURLError(Exception):
    """The index address cannot be asked at all: no scheme, another scheme, no host."""


def index_url_problem(url: str) -> str | None:
    """Why ``url`` is not an index address (the catalogue key of the reason), or None when it is one.

    Checked where an address comes in, because both of its users take a scheme-less text for
    something else: requests raises MissingSchema, and pip reads ``download.pytorch.org/whl/cu121``
    as a folder on this machine and looks there for wheels."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    if scheme == "file":  # a mirror copied to a folder or a USB stick (pip reads file:// indexes)
        return None if parts.path not in ("", "/") else "recommend.index.bad_url.host"
    if scheme not in ("http", "https"):
        return "recommend.index.bad_url.scheme"
    if not parts.hostname:
        return "recommend.index.bad_url.host"
    return None


# --------------------------------------------------------------------------------------------
# Pages
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class IndexFile:
    filename: str
    url: str
    requires_python: str | None = None
    yanked: bool = False


@dataclass
class IndexPage:
    url: str
    files: list[IndexFile]
    api: str  # "json" | "html"
    from_cache: bool = False  # the body came from the cache (304, or offline)
    revalidated: bool = False  # the server confirmed the cached copy (304)
    saved_at: str | None = None  # when the cached copy was fetched (ISO 8601, UTC)
    stale: bool = False  # offline: the cached copy was used without asking
    cache_error: str | None = None  # why the answer could not be saved (it is still valid)


class _AnchorParser(HTMLParser):
    """PEP 503: every file is an <a href=...>filename</a>, with optional data-* attributes."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.anchors: list[tuple[dict[str, str | None], str]] = []
        self._current: dict[str, str | None] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self._current = dict(attrs)
            self._text = []

    def handle_data(self, data: str) -> None:
        if self._current is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._current is not None:
            self.anchors.append((self._current, "".join(self._text).strip()))
            self._current = None


def parse_simple_html(text: str, base_url: str) -> list[IndexFile]:
    """Files of a PEP 503 project page."""
    parser = _AnchorParser()
    parser.feed(text)
    parser.close()
    files = []
    for attrs, label in parser.anchors:
        href = attrs.get("href") or ""
        if not href:
            continue
        url = urljoin(base_url, href)
        name = label or unquote(urlsplit(url).path.rsplit("/", 1)[-1])
        files.append(IndexFile(name, url, attrs.get("data-requires-python"),
                               "data-yanked" in attrs))
    return files


def parse_simple_json(data: Any, base_url: str) -> list[IndexFile]:
    """Files of a PEP 691 project page; rejects an API major version other than 1."""
    if not isinstance(data, dict) or not isinstance(data.get("files"), list):
        raise IndexPageError("not a PEP 691 project page")
    api = str((data.get("meta") or {}).get("api-version", "1.0"))
    if api.split(".")[0] != "1":
        raise IndexPageError(f"unsupported simple API version {api}")
    files = []
    for entry in data["files"]:
        if not isinstance(entry, dict) or "filename" not in entry:
            raise IndexPageError("a file entry has no filename")
        yanked = entry.get("yanked", False)
        files.append(IndexFile(entry["filename"], urljoin(base_url, entry.get("url", entry["filename"])),
                               entry.get("requires-python"), bool(yanked)))
    return files


# --------------------------------------------------------------------------------------------
# Tags
# --------------------------------------------------------------------------------------------
def this_python_tags() -> list[Tag]:
    """Tags the running interpreter accepts (the wizard's own Python)."""
    return list(sys_tags())


def _linux_platforms(arch: str, glibc: tuple[int, int]) -> list[str]:
    plats = [f"manylinux_{glibc[0]}_{minor}_{arch}" for minor in range(glibc[1], 4, -1)]
    legacy = {17: "manylinux2014", 12: "manylinux2010", 5: "manylinux1"}
    for minor, name in legacy.items():
        if glibc[1] >= minor:
            plats.append(f"{name}_{arch}")
    plats.append(f"linux_{arch}")
    return plats


def target_tags(python: str, os_name: str, arch: str, *, glibc: tuple[int, int] = (2, 35),
                macos: tuple[int, int] = (15, 0)) -> list[Tag]:
    """Tags a CPython ``python`` ('3.11') on ``os_name``/``arch`` accepts, most specific first.

    For an interpreter the wizard is not running in, the C library and macOS versions are
    assumptions (glibc 2.35 = Ubuntu 22.04; macOS 15); callers that know better pass them.
    """
    major, minor = (int(x) for x in python.split(".")[:2])
    arch = {"amd64": "x86_64", "arm64": "arm64" if os_name in ("macos", "windows") else "aarch64"}.get(
        arch.lower(), arch.lower())
    if os_name == "windows":
        platforms = ["win_amd64" if arch == "x86_64" else f"win_{arch}"]
    elif os_name == "macos":
        platforms = list(mac_platforms(macos, arch))
    else:
        platforms = _linux_platforms(arch, glibc)
    tags = list(cpython_tags((major, minor), platforms=platforms))
    tags += list(compatible_tags((major, minor), interpreter=f"cp{major}{minor}", platforms=platforms))
    return tags


# --------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------
@dataclass
class WheelCheck:
    """One package at one version on one index."""

    package: str
    version: str
    index_url: str
    status: str
    matching: list[str] = field(default_factory=list)  # file names of fitting wheels
    from_cache: bool = False
    revalidated: bool = False
    stale: bool = False
    saved_at: str | None = None
    http_status: int | None = None
    detail: str | None = None
    elapsed_s: float = 0.0
    first_tag: str | None = None  # the most specific tag asked for, for messages

    @property
    def ok(self) -> bool:
        return self.status == STATUS_FOUND

    @property
    def decided_by_table(self) -> bool:
        """True when the network gave no answer and the bundled table stands."""
        return self.status in (STATUS_OFFLINE, STATUS_ERROR)

    def message(self, lang: str | None) -> str:
        index = self.index_url
        if self.status == STATUS_FOUND:
            text = t("recommend.index.found", lang, index=index, package=self.package, version=self.version,
                     file=self.matching[0])
            if self.stale:
                text += " " + t("recommend.index.offline_cached", lang, index=index, date=self.saved_at or "?")
            return text
        if self.status == STATUS_MISSING:
            text = t("recommend.index.missing", lang, index=index, package=self.package, version=self.version,
                     tag=self.first_tag or "?")
            if self.stale:
                text += " " + t("recommend.index.offline_cached", lang, index=index, date=self.saved_at or "?")
            return text
        if self.status == STATUS_NOT_FOUND:
            return t("recommend.index.not_found", lang, index=index, package=self.package)
        if self.status == STATUS_BAD_URL:
            return t(index_url_problem(index) or "recommend.index.bad_url.host", lang, url=index)
        if self.status == STATUS_OFFLINE:
            return t("recommend.index.offline", lang, index=index)
        if self.http_status is not None:
            return t("recommend.index.error", lang, index=index, status=self.http_status)
        return t("recommend.index.bad_page", lang, index=index, detail=self.detail or "?")

    def to_json(self, lang: str | None) -> dict[str, Any]:
        return {"package": self.package, "version": self.version, "index_url": self.index_url,
                "status": self.status, "matching": self.matching[:5], "from_cache": self.from_cache,
                "revalidated": self.revalidated, "stale": self.stale, "message": self.message(lang)}


@dataclass
class CandidateCheck:
    """All packages of one candidate (torch, torchvision, torchaudio)."""

    checks: list[WheelCheck]

    @property
    def status(self) -> str:
        order = (STATUS_BAD_URL, STATUS_MISSING, STATUS_NOT_FOUND, STATUS_ERROR, STATUS_OFFLINE, STATUS_FOUND)
        for status in order:
            if any(c.status == status for c in self.checks):
                return status
        return STATUS_FOUND

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(c.ok for c in self.checks)

    def messages(self, lang: str | None) -> list[str]:
        return list(dict.fromkeys(c.message(lang) for c in self.checks))  # torch and torchvision: one line


# --------------------------------------------------------------------------------------------
# The client
# --------------------------------------------------------------------------------------------
def default_cache_dir() -> Path:
    """``<user cache dir>/gpu-setup-wizard/simple-index`` (platformdirs picks the OS's place)."""
    import platformdirs

    return Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False)) / "simple-index"


def project_url(index_url: str, project: str) -> str:
    """PEP 503: ``<index>/<normalized-name>/`` with the trailing slash."""
    return f"{index_url.rstrip('/')}/{canonicalize_name(project)}/"


class WheelIndex:
    """A simple-index client with an ETag/Last-Modified cache on disk.

    ``session``: a :class:`requests.Session`; the default one is the wizard's
    (:func:`wizard.core.base.http.http_session`: its User-Agent, deadline and retry), with
    ``proxy`` (the one typed in the window) or else the environment's proxy variables.
    ``offline=True`` never touches the network (a user setting).
    """

    def __init__(self, cache_dir: str | os.PathLike[str] | None = None, session: requests.Session | None = None,
                 timeout: float | tuple[float, float] = DEFAULT_TIMEOUT, offline: bool = False,
                 proxy: str | Mapping[str, str] | None = None) -> None:
        from wizard.core.base.http import http_session

        self.cache_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
        self.session = session or http_session(proxy=proxy)
        self.timeout = timeout
        self.offline = offline

    # --- cache ----------------------------------------------------------------------------------
    def _cache_file(self, url: str) -> Path:
        return self.cache_dir / (hashlib.sha256(url.encode("utf-8")).hexdigest()[:32] + ".json")

    def _read_cache(self, url: str) -> dict[str, Any] | None:
        path = self._cache_file(url)
        try:
            with open(path, encoding="utf-8") as fh:
                entry = json.load(fh)
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            # a damaged cache file is not an answer: drop it and ask the server again
            path.unlink(missing_ok=True)
            return None
        if not isinstance(entry, dict) or entry.get("url") != url or not isinstance(entry.get("files"), list):
            return None
        return entry

    def _write_cache(self, url: str, response: requests.Response, page: IndexPage) -> str:
        """Save the parsed file list (not the page): a revalidated check then skips the parsing,
        which is most of the cost of a large index page."""
        saved_at = datetime.now(timezone.utc).replace(microsecond=0).isoformat()
        entry = {"url": url, "etag": response.headers.get("ETag"),
                 "last_modified": response.headers.get("Last-Modified"), "api": page.api,
                 "files": [[f.filename, f.url, f.requires_python, f.yanked] for f in page.files],
                 "saved_at": saved_at}
        write_atomic(self._cache_file(url), json.dumps(entry), suffix=".tmp", mkdir=True)
        return saved_at

    # --- fetching -------------------------------------------------------------------------------
    def fetch(self, index_url: str, project: str) -> IndexPage:
        """The project's page, revalidated against the cache. Raises IndexUnreachable (with no
        usable cache), IndexHTTPError or IndexPageError."""
        if index_url_problem(index_url):
            raise IndexURLError(index_url)
        url = project_url(index_url, project)
        cached = self._read_cache(url)
        if self.offline:
            if cached is None:
                raise IndexUnreachable("offline mode")
            return self._cached_page(url, cached, stale=True)
        headers = {"Accept": ACCEPT}
        if cached:
            if cached.get("etag"):
                headers["If-None-Match"] = cached["etag"]
            if cached.get("last_modified"):
                headers["If-Modified-Since"] = cached["last_modified"]
        try:
            response = self.session.get(url, headers=headers, timeout=self.timeout)
        except (requests.exceptions.InvalidURL, requests.exceptions.MissingSchema,
                requests.exceptions.InvalidSchema) as exc:
            raise IndexURLError(index_url) from exc
        except (requests.ConnectionError, requests.Timeout) as exc:
            if cached is None:
                raise IndexUnreachable(str(exc)) from exc
            return self._cached_page(url, cached, stale=True)
        if response.status_code == 304 and cached is not None:
            return self._cached_page(url, cached, revalidated=True)
        if response.status_code != 200:
            raise IndexHTTPError(response.status_code, url)
        page = self._page(response.url or url, response.text, response.headers.get("Content-Type", ""))
        try:
            page.saved_at = self._write_cache(url, response, page)
        except OSError as exc:
            # a read-only or full cache folder costs the next check a full download, not this answer
            page.cache_error = str(exc)
        return page

    @staticmethod
    def _cached_page(url: str, entry: dict[str, Any], **flags: Any) -> IndexPage:
        files = [IndexFile(f[0], f[1], f[2], bool(f[3])) for f in entry["files"]]
        return IndexPage(url, files, entry.get("api", "html"), from_cache=True, saved_at=entry.get("saved_at"),
                         **flags)

    @staticmethod
    def _page(url: str, body: str, content_type: str, **flags: Any) -> IndexPage:
        ctype = content_type.split(";")[0].strip().lower()
        if ctype == PEP691_JSON:
            try:
                data = json.loads(body)
            except ValueError as exc:
                raise IndexPageError(f"bad JSON: {exc}") from exc
            return IndexPage(url, parse_simple_json(data, url), "json", **flags)
        return IndexPage(url, parse_simple_html(body, url), "html", **flags)

    # --- checking -------------------------------------------------------------------------------
    def check(self, index_url: str, package: str, version: str, tags: Sequence[Tag] | None = None,
              local: str | None = None) -> WheelCheck:
        """Is there a ``package==version`` wheel for ``tags`` (default: this Python) on the index?

        ``local`` ('cu126') prefers files with that local version; files without one (py3-none
        companions, PyPI) also count, files of another local version do not.
        """
        tags = list(tags) if tags is not None else this_python_tags()
        wanted_tags = set(tags)
        start = time.perf_counter()
        result = WheelCheck(package, version, index_url, STATUS_ERROR, first_tag=str(tags[0]) if tags else None)
        try:
            page = self.fetch(index_url, package)
        except IndexUnreachable as exc:
            result.status, result.detail = STATUS_OFFLINE, str(exc)
        except IndexHTTPError as exc:
            result.http_status = exc.status
            result.status = STATUS_NOT_FOUND if exc.status == 404 else STATUS_ERROR
        except IndexPageError as exc:
            result.detail = str(exc)
        except IndexURLError:
            result.status = STATUS_BAD_URL
        else:
            result.from_cache, result.revalidated = page.from_cache, page.revalidated
            result.stale, result.saved_at = page.stale, page.saved_at
            result.matching = _matching(page.files, package, version, wanted_tags, local)
            result.status = STATUS_FOUND if result.matching else STATUS_MISSING
        result.elapsed_s = time.perf_counter() - start
        return result

    def check_candidate(self, candidate: Any, tags: Sequence[Tag] | None = None) -> CandidateCheck:
        """Check torch, torchvision and (if it is pinned) torchaudio of a recommended candidate."""
        local = None if getattr(candidate, "uses_default_index", False) or candidate.kind == "mps" \
            else candidate.variant
        checks = [self.check(candidate.index_url, "torch", candidate.torch, tags, local)]
        for package in ("torchvision", "torchaudio"):
            pinned = getattr(candidate, package, None)
            if pinned:
                checks.append(self.check(candidate.index_url, package, pinned, tags, local))
        return CandidateCheck(checks)


    def builds_on_index(self, candidates: Sequence[Any], index_url_of: Any,
                        tags: Sequence[Tag] | None = None) -> list[Any]:
        """Those of ``candidates`` (the recommender's builds that fit this machine) whose torch
        -- and torchvision/torchaudio when pinned -- the index really has for ``tags``.

        Why: a mirror often carries only a few versions; when the recommended one is missing the
        student needs the ones it does have, not "no matching file". ``index_url_of(candidate)``
        is the index each build would be installed from (the mirror's variant folder). Each
        project page is read once per index. Raises nothing: an index that cannot be read has
        no builds to offer."""
        pages: dict[tuple[str, str], list[IndexFile] | None] = {}
        wanted = set(tags) if tags is not None else set(this_python_tags())

        def files(index_url: str, project: str) -> list[IndexFile] | None:
            key = (index_url, project)
            if key not in pages:
                try:
                    pages[key] = self.fetch(index_url, project).files
                except (IndexUnreachable, IndexHTTPError, IndexPageError, IndexURLError):
                    pages[key] = None
            return pages[key]

        found = []
        for c in candidates:
            index_url = index_url_of(c) or PYPI_SIMPLE
            local = None if getattr(c, "uses_default_index", False) or c.kind == "mps" else c.variant
            pins = [("torch", c.torch)] + [(p, getattr(c, p, None)) for p in ("torchvision", "torchaudio")]
            if all(_matching(files(index_url, project) or [], project, version, wanted, local)
                   for project, version in pins if version):
                found.append(c)
        return found


def _matching(files: Iterable[IndexFile], package: str, version: str, tags: set[Tag],
              local: str | None) -> list[str]:
    want_name = canonicalize_name(package)
    try:
        want = Version(version)
    except InvalidVersion:
        return []
    found = []
    marker = f"-{want.public}"  # a cheap filter before the full parse: the version must appear
    for f in files:
        if f.yanked or not f.filename.endswith(".whl") or marker not in f.filename:
            continue
        try:
            name, ver, _build, file_tags = parse_wheel_filename(f.filename)
        except InvalidWheelFilename:
            continue
        if name != want_name or ver.public != want.public:
            continue
        if want.local is not None and ver.local != want.local:
            continue
        if local is not None and ver.local not in (None, local):
            continue
        if file_tags & tags:
            found.append(f.filename)
    return found
