"""The newest releases, read from the package indexes themselves at run time.

Why: the compatibility table ships with the wizard and the signed update follows releases of the
wizard; PyTorch and TensorFlow publish on their own days. What an index *can* say -- which torch,
torchvision, torchaudio and TensorFlow versions exist, which Pythons and platforms their wheels
carry, which variants the PyTorch index serves -- is read here, so a new release is recommended the
day it appears, and the recommendation says "confirmed from the index on DATE". What an index
cannot say (the architectures of each variant, driver minimums, known failures) stays with the
shipped table or the signed update (:mod:`wizard.core.recommend.update`).

How:
* PyPI's JSON API (``/pypi/<name>/json``) for the four projects, and the PyTorch index's PEP 503
  pages (``/whl/<variant>/torch/``) for the variants of the newest release in the table.
* Every page goes through the wizard's one HTTP session (:mod:`wizard.core.base.http`) and is kept
  in the user cache dir with its ``ETag`` / ``Last-Modified``; the next check sends a conditional
  request and a ``304`` costs a few hundred bytes. Cache files are written atomically and checked
  against their sha256 when read back.
* No network, a page too large, malformed or hostile: that source is skipped with a one-line
  note, the last good copy (if any) is used and said to be from its day, and the table stands.
* The facts read are saved as a small ``live-index.json``; :func:`apply` lays them over a table:
  a newer patch of a known minor, or a new minor whose variants the index pages show (its arch
  lists are taken from the previous minor's and marked as assumed until signed data covers it).
  Nothing is added that the indexes did not confirm.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Mapping

from packaging.utils import InvalidWheelFilename, parse_wheel_filename
from packaging.version import InvalidVersion, Version

from wizard.core.base.files import write_atomic
from wizard.core.base.i18n import Message

PACKAGES = ("torch", "torchvision", "torchaudio", "tensorflow")
PYPI_JSON = "https://pypi.org/pypi/{name}/json"
PYTORCH_PAGE = "https://download.pytorch.org/whl/{variant}/torch/"
MAX_JSON = 48 * 1024 * 1024  # PyPI's torch JSON is a few MB; far more is not a project page
MAX_PAGE = 16 * 1024 * 1024
FACTS_NAME = "live-index.json"
NOTES_NAME = "live-index-notes.json"  # what the last check could not read, said with the table
PAGES_DIR = "index-pages"
SOURCE_ID = "live-index"
_PIN_RE = re.compile(r"^torch\s*==\s*([0-9]+\.[0-9]+\.[0-9]+)\s*(?:;|$)")
_TOOLKIT_RE = re.compile(r"^cuda-toolkit(?:\[[^\]]*\])?\s*==\s*(\d+)\.(\d+)")


class SourceUnreadable(Exception):
    """One page could not be read or understood (a short English detail); ``network``: no answer."""

    def __init__(self, detail: str, *, network: bool = False) -> None:
        super().__init__(detail)
        self.network = network


@dataclass
class Fetched:
    body: bytes
    state: str  # fresh | revalidated | stale (the network failed; the saved copy was used)
    saved_at: str


# --------------------------------------------------------------------------------------------
# Pages with validators
# --------------------------------------------------------------------------------------------
class PageCache:
    """GET with ``If-None-Match`` / ``If-Modified-Since`` against copies in ``folder``."""

    def __init__(self, folder: Path, *, timeout: float = 5.0, proxy: str | None = None) -> None:
        from wizard.core.base.http import http_session

        self.folder = folder
        self.network_down = False  # after one page got no answer, the rest are not waited for
        # plain http only to this machine (a test's or a classroom's own mirror), as the signed update
        self.session = http_session(timeout=(timeout, timeout), deadline_s=6 * timeout, https_only=True,
                                    allow_loopback_http=True, max_bytes=MAX_JSON, proxy=proxy)

    def close(self) -> None:
        self.session.close()

    def _paths(self, url: str) -> tuple[Path, Path]:
        name = hashlib.sha256(url.encode("utf-8")).hexdigest()[:32]
        return self.folder / f"{name}.body", self.folder / f"{name}.meta.json"

    def saved(self, url: str) -> tuple[bytes, dict[str, Any]] | None:
        body_path, meta_path = self._paths(url)
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            body = body_path.read_bytes()
        except (OSError, ValueError):
            return None
        if not isinstance(meta, dict) or meta.get("url") != url or hashlib.sha256(body).hexdigest() != meta.get("sha256"):
            return None  # torn or changed on disk: not an answer
        return body, meta

    def get(self, url: str, limit: int) -> Fetched:
        import requests

        from wizard.core.base.http import ResponseTooLarge

        saved = self.saved(url)
        if self.network_down:
            if saved is None:
                raise SourceUnreadable(f"{url}: no answer from the network", network=True)
            return Fetched(saved[0], "stale", str(saved[1].get("saved_at", "")))
        headers = {"Accept": "application/json, text/html;q=0.5"}
        if saved is not None:
            if saved[1].get("etag"):
                headers["If-None-Match"] = str(saved[1]["etag"])
            if saved[1].get("last_modified"):
                headers["If-Modified-Since"] = str(saved[1]["last_modified"])
        try:
            with self.session.get(url, headers=headers) as resp:
                status = resp.status_code
                body = resp.content if status == 200 else b""
                etag, modified = resp.headers.get("ETag"), resp.headers.get("Last-Modified")
        except ResponseTooLarge:
            raise SourceUnreadable(f"{url}: larger than {limit // (1024 * 1024)} MB") from None
        except (requests.RequestException, OSError) as exc:
            self.network_down = True
            if saved is None:
                raise SourceUnreadable(f"{url}: {type(exc).__name__}", network=True) from None
            return Fetched(saved[0], "stale", str(saved[1].get("saved_at", "")))
        if status == 304 and saved is not None:
            return Fetched(saved[0], "revalidated", str(saved[1].get("saved_at", "")))
        if status != 200:
            raise SourceUnreadable(f"{url}: HTTP {status}")
        if len(body) > limit:
            raise SourceUnreadable(f"{url}: larger than {limit // (1024 * 1024)} MB")
        now = datetime.now(timezone.utc).replace(microsecond=0).isoformat()
        meta = {"url": url, "etag": etag, "last_modified": modified, "saved_at": now,
                "sha256": hashlib.sha256(body).hexdigest()}
        body_path, meta_path = self._paths(url)
        try:
            write_atomic(body_path, body, mkdir=True)
            write_atomic(meta_path, json.dumps(meta), mkdir=True)
        except OSError:
            pass  # a read-only cache costs the next check a full download, not this answer
        return Fetched(body, "fresh", now)


# --------------------------------------------------------------------------------------------
# Reading what the pages say
# --------------------------------------------------------------------------------------------
def platform_of(tag: str) -> str | None:
    """A wheel's platform tag → one of the table's platforms (None: one the table has no use for)."""
    if tag.startswith(("manylinux", "linux")):
        return "linux-x86_64" if tag.endswith("x86_64") else "linux-aarch64" if tag.endswith("aarch64") else None
    if tag == "win_amd64":
        return "windows-x86_64"
    if tag == "win_arm64":
        return "windows-arm64"
    m = re.fullmatch(r"macosx_\d+_\d+_(arm64|x86_64|universal2)", tag)
    if m:
        return "macos-x86_64" if m.group(1) == "x86_64" else "macos-arm64"
    return None


def wheel_facts(filename: str) -> tuple[str, str | None, str | None, set[str]] | None:
    """'torch-2.15.0+cu130-cp313-cp313-manylinux_2_28_x86_64.whl' → ('2.15.0', 'cu130', '3.13', {'linux-x86_64'})."""
    name = filename.rsplit("/", 1)[-1].split("#", 1)[0].replace("%2B", "+").replace("%2b", "+")
    if not name.endswith(".whl"):
        return None
    try:
        _project, ver, _build, tags = parse_wheel_filename(name)
    except (InvalidWheelFilename, InvalidVersion):
        return None
    pythons = {f"3.{t.interpreter[3:]}" for t in tags
               if re.fullmatch(r"cp3\d+", t.interpreter) and not t.abi.endswith("t")}
    plats = {p for p in (platform_of(t.platform) for t in tags) if p}
    python = min(pythons, key=Version) if pythons else None
    return ver.public, ver.local, python, plats


def pypi_project(body: bytes) -> dict[str, Any]:
    """PyPI JSON → {"version", "pin" (torch==X in requires_dist), "cuda", "releases": {ver: {...}}}."""
    try:
        doc = json.loads(body)
    except ValueError:
        raise SourceUnreadable("not JSON") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("info"), dict) or not isinstance(doc.get("releases"), dict):
        raise SourceUnreadable("not a PyPI project document")
    info = doc["info"]
    requires = [str(r) for r in (info.get("requires_dist") or []) if isinstance(r, str)]
    pin = next((m.group(1) for m in (_PIN_RE.match(r) for r in requires) if m), None)
    cuda = next((f"cu{m.group(1)}{m.group(2)}" for r in requires if "Linux" in r
                 for m in [_TOOLKIT_RE.match(r)] if m), None)
    releases: dict[str, dict[str, Any]] = {}
    for ver, files in doc["releases"].items():
        try:
            if Version(str(ver)).is_prerelease or not isinstance(files, list):
                continue
        except InvalidVersion:
            continue
        pythons: dict[str, set[str]] = {}
        uploaded = None
        wheels = 0
        for f in files:
            if not isinstance(f, dict) or f.get("yanked"):
                continue
            facts = wheel_facts(str(f.get("filename", "")))
            if facts is None:
                continue
            wheels += 1
            day = str(f.get("upload_time") or "")[:10] or None
            uploaded = day if day and (uploaded is None or day < uploaded) else uploaded
            for plat in facts[3]:
                if facts[2]:
                    pythons.setdefault(plat, set()).add(facts[2])
        if wheels:  # a py3-none wheel (torchvision of late) counts, with no Pythons of its own
            releases[str(ver)] = {"uploaded": uploaded, "pythons": {p: sorted(v, key=Version) for p, v in pythons.items()}}
    newest = max(releases, key=Version) if releases else None
    return {"version": newest, "info_version": str(info.get("version") or ""), "pin": pin, "cuda": cuda,
            "releases": releases}


def index_page(body: bytes, url: str) -> dict[str, list[str]]:
    """A PEP 503 (or PEP 691 JSON) page → {'2.15.0': ['linux-x86_64', ...]} for its torch wheels."""
    from wizard.core.recommend.wheel_index import IndexPageError, parse_simple_html, parse_simple_json

    text = body.decode("utf-8", "replace")
    if text.lstrip().startswith("{"):  # a mirror that answers in PEP 691 JSON
        try:
            files = parse_simple_json(json.loads(text), url)
        except (ValueError, IndexPageError) as exc:
            raise SourceUnreadable(f"not a simple-index page ({str(exc)[:80]})") from None
    elif "<a" in text.lower():
        files = parse_simple_html(text, url)
    else:
        raise SourceUnreadable("no links on the page")
    out: dict[str, set[str]] = {}
    for f in files:
        facts = wheel_facts(f.filename)
        if facts is not None and not f.yanked and f.filename.startswith("torch-"):
            out.setdefault(facts[0], set()).update(facts[3])
    return {v: sorted(p) for v, p in out.items()}


# --------------------------------------------------------------------------------------------
# Reading the indexes
# --------------------------------------------------------------------------------------------
@dataclass
class LiveResult:
    facts: dict[str, Any] | None
    notes: list[Message] = field(default_factory=list)


def read_indexes(folder: Path, variants: list[str], today: str, *, pypi_json: str = PYPI_JSON,
                 pytorch_page: str = PYTORCH_PAGE, timeout: float = 5.0) -> LiveResult:
    """Read the four projects and the variants' pages; save and return the facts. Never raises for
    the network or a bad page: those become notes, and the source is left out of the facts."""
    cache = PageCache(folder / PAGES_DIR, timeout=timeout)
    notes: list[Message] = []
    facts: dict[str, Any] = {"checked_on": today, "projects": {}, "index": {}, "stale": []}
    no_network = False
    unread: list[tuple[str, str]] = []  # (source, why): said once, in one note
    try:
        for name in PACKAGES:
            url = pypi_json.format(name=name)
            try:
                got = cache.get(url, MAX_JSON)
                facts["projects"][name] = pypi_project(got.body)
            except SourceUnreadable as exc:
                unread.append((f"PyPI {name}", str(exc)[:160]))
                if exc.network and name == "torch":
                    no_network = True
                    break  # no network and no saved copy: do not wait out every other address
                continue
            if got.state == "stale":
                facts["stale"].append(f"PyPI {name} ({got.saved_at[:10]})")
        for variant in variants:
            if no_network:
                break
            url = pytorch_page.format(variant=variant)
            try:
                got = cache.get(url, MAX_PAGE)
                facts["index"][variant] = index_page(got.body, url)
            except SourceUnreadable as exc:
                unread.append((f"download.pytorch.org {variant}", str(exc)[:160]))
                continue
            if got.state == "stale":
                facts["stale"].append(f"{variant} ({got.saved_at[:10]})")
    finally:
        cache.close()
    if len(unread) == 1:
        notes.append(Message.of("recommend.compat.index.unread", source=unread[0][0], error=unread[0][1]))
    elif unread:  # one line for many pages (a blocked host fails them all), the first reason as the example
        shown = ", ".join(s for s, _ in unread[:4]) + (", …" if len(unread) > 4 else "")
        notes.append(Message.of("recommend.compat.index.unread_many", count=len(unread), sources=shown,
                                error=unread[0][1]))
    result = LiveResult(None, notes)
    if "torch" in facts["projects"]:
        if facts["stale"]:
            notes.append(Message.of("recommend.compat.index.stale", sources=", ".join(facts["stale"])))
            before = saved_facts(folder)  # the day the indexes last answered, not today
            facts["checked_on"] = str(before["checked_on"]) if before else min(
                [today] + [s.rsplit("(", 1)[-1].rstrip(")") for s in facts["stale"]])
        result.facts = facts
    try:
        if result.facts is not None:
            write_atomic(folder / FACTS_NAME, json.dumps(facts, sort_keys=True), mkdir=True)
        write_atomic(folder / NOTES_NAME, json.dumps({"day": today, "notes": [n.to_json() for n in notes]}), mkdir=True)
    except OSError:
        pass
    return result


def saved_notes(folder: Path) -> list[Message]:
    """The notes of the last check (pages it could not read), for the line that names the data."""
    try:
        doc = json.loads((folder / NOTES_NAME).read_text(encoding="utf-8"))
        return [Message.from_json(n) for n in doc["notes"] if isinstance(n, dict)][:6]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return []


def saved_facts(folder: Path) -> dict[str, Any] | None:
    """The facts the last check saved (None when there are none or they are not readable)."""
    try:
        doc = json.loads((folder / FACTS_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or not isinstance(doc.get("projects"), dict) or not isinstance(doc.get("index"), dict):
        return None
    if not isinstance(doc["projects"].get("torch"), dict) or not re.fullmatch(r"\d{4}-\d\d-\d\d", str(doc.get("checked_on"))):
        return None
    return doc


# --------------------------------------------------------------------------------------------
# Laying the facts over a table
# --------------------------------------------------------------------------------------------
@dataclass
class Applied:
    data: dict[str, Any]
    added: list[str]  # "torch 2.16.0" for each release the indexes added
    newest: dict[str, str]  # project → newest version on PyPI


def _minor(v: str) -> str:
    return ".".join(v.split(".")[:2])


def _companion(facts: Mapping[str, Any], project: str, patch: str) -> tuple[bool, str | None]:
    """(known, version): the newest ``project`` pins ``torch==patch`` → (True, its version)."""
    doc = facts["projects"].get(project)
    if isinstance(doc, dict) and doc.get("pin") == patch and doc.get("version"):
        return True, str(doc["version"])
    return False, None


def apply(data: Mapping[str, Any], facts: Mapping[str, Any]) -> Applied:
    """``data`` (a table's JSON) with what the indexes confirmed laid over it; never removes a fact."""
    new: dict[str, Any] = copy.deepcopy(dict(data))
    torch = facts["projects"]["torch"]
    newest = {name: str(doc["version"]) for name, doc in facts["projects"].items()
              if isinstance(doc, dict) and doc.get("version")}
    releases = {p: r for p, r in (torch.get("releases") or {}).items() if isinstance(r, dict)}
    table = sorted(new["releases"], key=lambda r: Version(r["torch"]))
    last = table[-1]
    added = _confirm_variants(last, facts)
    day = str(facts["checked_on"])
    candidates = sorted((p for p in releases if Version(p) > Version(max(last["patches"], key=Version))), key=Version)
    for patch in candidates:
        known_tv, tv = _companion(facts, "torchvision", patch)
        if not known_tv:
            continue  # torchvision for it not out yet: its pairing is not something to guess
        known_ta, ta = _companion(facts, "torchaudio", patch)
        if _minor(patch) == last["torch"]:
            if not _on_every_index(last, patch, facts):
                continue  # a build of it not (yet) on the PyTorch index: not recommended before it is
            rel = last
            prev_ta = rel["torchaudio"][max(rel["patches"], key=Version)]
            rel["patches"].append(patch)
        else:
            rel = _new_minor(new, last, patch, releases[patch], facts, day)
            if rel is None:
                continue
            prev_ta = None
        rel["torchvision"][patch] = tv
        rel["torchaudio"][patch] = ta if known_ta else prev_ta
        _pythons(rel, releases[patch])
        if SOURCE_ID not in rel["src"]:
            rel["src"].append(SOURCE_ID)
        added.append(f"torch {patch}")
        last = rel
    if added or SOURCE_ID in last["src"]:
        new.setdefault("sources", {})[SOURCE_ID] = (
            f"PyPI JSON API and download.pytorch.org index pages, read by the wizard on {day}")
    return Applied(new, added, newest)


def _confirm_variants(rel: dict[str, Any], facts: Mapping[str, Any]) -> list[str]:
    """Variants the table still marks unverified that the index pages now serve, for every
    platform the release lists them on, at its newest patch: no longer marked ("torch 2.15 cu130")."""
    unverified = rel.get("unverified")
    if not isinstance(unverified, dict):
        return []
    newest = max(rel["patches"], key=Version)
    listed = {v for names in rel["variants"].values() for v in names}
    confirmed = []
    for variant in sorted(set(unverified) & listed - {"mps"}):
        plats = [p for p, names in rel["variants"].items() if variant in names]
        if all(p in (facts["index"].get(variant) or {}).get(newest, []) for p in plats):
            del unverified[variant]
            confirmed.append(f"torch {rel['torch']} {variant}")
    if "variants" in unverified and all(v == "mps" or _on_every_index_for(rel, v, newest, facts) for v in listed):
        del unverified["variants"]  # the release's whole list was from an announcement: now all seen
    if confirmed and SOURCE_ID not in rel["src"]:
        rel["src"].append(SOURCE_ID)
    return confirmed


def _on_every_index_for(rel: Mapping[str, Any], variant: str, patch: str, facts: Mapping[str, Any]) -> bool:
    plats = [p for p, names in rel["variants"].items() if variant in names]
    return all(p in (facts["index"].get(variant) or {}).get(patch, []) for p in plats)


def _on_every_index(rel: Mapping[str, Any], patch: str, facts: Mapping[str, Any]) -> bool:
    """Every variant the release lists (but the PyPI-only mps) has ``patch`` on its index page."""
    for plat, names in rel["variants"].items():
        for variant in names:
            if variant != "mps" and plat not in (facts["index"].get(variant) or {}).get(patch, []):
                return False
    return True


def _pythons(rel: dict[str, Any], facts: Mapping[str, Any]) -> None:
    by_plat = {p: list(v) for p, v in (facts.get("pythons") or {}).items() if p in rel["variants"]}
    if not by_plat:
        return
    pythons = sorted({py for pys in by_plat.values() for py in pys}, key=Version)
    rel["python"] = pythons
    rel["python_only_on"] = {py: sorted(p for p, pys in by_plat.items() if py in pys)
                             for py in pythons if any(py not in pys for pys in by_plat.values())}


def _new_minor(new: dict[str, Any], prev: dict[str, Any], patch: str, pypi: Mapping[str, Any],
               facts: Mapping[str, Any], day: str) -> dict[str, Any] | None:
    """A release entry for a minor the table does not know: only the variants the index pages show
    for ``patch`` on each platform; CUDA arch lists assumed from ``prev`` and marked so."""
    minor = _minor(patch)
    on_pypi = set((pypi.get("pythons") or {}).keys())
    variants: dict[str, list[str]] = {}
    for plat, names in prev["variants"].items():
        kept = [v for v in names if (v == "mps" and plat in on_pypi)
                or plat in (facts["index"].get(v) or {}).get(patch, [])]
        if kept:
            variants[plat] = kept
    if not any(v != "cpu" for vs in variants.values() for v in vs):
        return None  # no GPU build confirmed yet (index pages unread or not yet uploaded)
    assumed = f"assumed from torch {prev['torch']}: the index lists files, not architectures (until signed data covers {minor})"
    for entry in new["cuda_archs"]:
        rng = entry["torch"]
        if rng.get("to") == prev["torch"] and any(entry["variant"] in vs for vs in variants.values()):
            rng["to"] = minor
            entry.setdefault("unverified", {}).update({plat: assumed for plat in entry["archs"]})
            if SOURCE_ID not in entry["src"]:
                entry["src"].append(SOURCE_ID)
    cuda = facts["projects"]["torch"].get("cuda")
    default = {p: v for p, v in prev["pypi_default"].items() if v in variants.get(p, [])}
    for plat in ("linux-x86_64", "linux-aarch64"):
        if cuda and cuda in variants.get(plat, []) and facts["projects"]["torch"].get("info_version") == patch:
            default[plat] = cuda
    rel = {"torch": minor, "released": pypi.get("uploaded") or day, "patches": [patch], "python": list(prev["python"]),
           "python_only_on": {}, "torchvision": {}, "torchaudio": {}, "variants": variants, "pypi_default": default,
           "macos_min": prev.get("macos_min"), "confidence": "confirmed", "src": [SOURCE_ID],
           "notes": f"Read from PyPI and the PyTorch index on {day}; not yet in the reviewed table."}
    if prev.get("torchaudio_separate"):
        rel["torchaudio_separate"] = prev["torchaudio_separate"]
    if rel["macos_min"] is None:
        del rel["macos_min"]
    new["releases"].append(rel)
    return rel


__all__ = ["PACKAGES", "PYPI_JSON", "PYTORCH_PAGE", "PageCache", "LiveResult", "Applied", "SourceUnreadable",
           "read_indexes", "saved_facts", "saved_notes", "apply", "pypi_project", "index_page", "wheel_facts"]
