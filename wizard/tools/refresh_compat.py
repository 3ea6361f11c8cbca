"""Rebuild the release × Python × platform facts of ``resources/compat.json`` from PyPI and the
PyTorch index pages, for a maintainer to review.

    python -m wizard.tools.refresh_compat [--from DIR] [--diff-only] [--out FILE] [--diff FILE]
                                          [--sign-key KEY --file-url URL --manifest OUT]

Why a command and not a hand edit: the table went one release stale (torch 2.15.0 was on PyPI for a
month while compat.json still called it unverified), and the facts that go stale fastest are the
ones a machine can read: which patches exist, which ``cpXY`` tags and platforms their wheels carry,
when they were uploaded, which CUDA build PyPI's own wheel is (``cuda-toolkit==13.2.2`` →
``cu132``), and which variants the PyTorch index serves. Those are rebuilt here. The facts a person
verified against build scripts and NVIDIA's tables (driver floors, the arch list of each variant,
their sources) are never touched: the test suite checks that every other section stays identical.

Sources are read through a *fetcher* (URL → bytes), so the command runs against the network
(``requests`` with a timeout) or against saved pages (``--from DIR``: ``DIR/pypi/torch.json`` and
``DIR/whl/<variant>/torch.html``); a page that cannot be read is said in the diff, never guessed.
A new minor release found on PyPI is reported, not added: its variants and arch lists need a person.
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Callable, Mapping

from packaging.version import InvalidVersion, Version

PYPI_PROJECT = "https://pypi.org/pypi/torch/json"
INDEX_PAGE = "https://download.pytorch.org/whl/{variant}/torch/"
RESOURCE = Path(__file__).resolve().parents[1] / "resources" / "compat.json"
Fetcher = Callable[[str], bytes]
MAX_PAGE_BYTES = 64 * 1024 * 1024  # PyPI's torch JSON is a few MB; an index page well under that

_WHEEL_RE = re.compile(r"^torch-(?P<ver>[0-9][^-+]*)(?:\+(?P<local>[^-]+))?-(?P<py>[^-]+)-(?P<abi>[^-]+)-(?P<plat>[^-]+)\.whl$")
_HREF_RE = re.compile(r"""href=["']?([^"'>\s]+)""", re.I)
_TOOLKIT_RE = re.compile(r"^cuda-toolkit(?:\[[^\]]*\])?\s*==\s*(\d+)\.(\d+)")


class FetchError(OSError):
    """A page could not be read (network, HTTP status, or a missing saved copy)."""


def http_fetcher(timeout: float = 30.0) -> Fetcher:
    """URL → bytes over HTTPS with ``timeout`` seconds for connect and for each read, 4 × that in
    all, at most ``MAX_PAGE_BYTES``, with the wizard's User-Agent (:mod:`wizard.core.base.http`)."""
    import requests

    from wizard.core.base.http import http_session

    session = http_session(timeout=(timeout, timeout), deadline_s=4 * timeout, https_only=True,
                           max_bytes=MAX_PAGE_BYTES)

    def fetch(url: str) -> bytes:
        try:
            resp = session.get(url, headers={"Accept": "application/json, text/html"})
        except requests.RequestException as exc:
            raise FetchError(f"{url}: {exc}") from exc
        if resp.status_code != 200:
            raise FetchError(f"{url}: HTTP {resp.status_code}")
        return resp.content

    return fetch


def dir_fetcher(folder: str | Path) -> Fetcher:
    """URL → bytes from saved copies: ``pypi/torch.json`` and ``whl/<variant>/torch.html``."""
    root = Path(folder)

    def fetch(url: str) -> bytes:
        if url == PYPI_PROJECT:
            path = root / "pypi" / "torch.json"
        else:
            m = re.fullmatch(r"https://download\.pytorch\.org/whl/([^/]+)/torch/", url)
            if not m:
                raise FetchError(f"{url}: no saved copy for this address")
            path = root / "whl" / m.group(1) / "torch.html"
        try:
            return path.read_bytes()
        except OSError as exc:
            raise FetchError(f"{url}: saved copy {path.name} not readable ({exc.strerror or exc})") from exc

    return fetch


# --------------------------------------------------------------------------------------------
# Reading wheel file names
# --------------------------------------------------------------------------------------------
@dataclass
class Wheel:
    version: str
    local: str | None
    python: str | None  # '3.13'; None for py3-none or a free-threaded 't' build
    platform: str | None  # one of compat_model.PLATFORMS, or None
    macos_min: str | None = None


def parse_wheel(filename: str) -> Wheel | None:
    """'torch-2.15.0-cp313-cp313-manylinux_2_28_x86_64.whl' → Wheel; None for a non-wheel."""
    m = _WHEEL_RE.match(filename.rsplit("/", 1)[-1].split("#", 1)[0].replace("%2B", "+"))
    if not m:
        return None
    py_tag, abi = m.group("py"), m.group("abi")
    python = None
    if re.fullmatch(r"cp3\d+", py_tag) and not abi.endswith("t"):
        python = f"3.{py_tag[3:]}"
    plat, macos_min = _platform_of(m.group("plat"))
    return Wheel(m.group("ver"), m.group("local"), python, plat, macos_min)


def _platform_of(tag: str) -> tuple[str | None, str | None]:
    for single in tag.split("."):
        if single.startswith(("manylinux", "linux")):
            if single.endswith("x86_64"):
                return "linux-x86_64", None
            if single.endswith("aarch64"):
                return "linux-aarch64", None
        if single == "win_amd64":
            return "windows-x86_64", None
        if single == "win_arm64":
            return "windows-arm64", None
        m = re.fullmatch(r"macosx_(\d+)_(\d+)_(arm64|x86_64|universal2)", single)
        if m:
            arch = "x86_64" if m.group(3) == "x86_64" else "arm64"
            return f"macos-{arch}", f"{m.group(1)}.{m.group(2)}"
    return None, None


@dataclass
class PatchFacts:
    """What PyPI's files say about one torch patch."""

    uploaded: str | None = None
    pythons: dict[str, set[str]] = field(default_factory=dict)  # platform → {'3.13', …}
    macos_min: str | None = None


def pypi_facts(project: Mapping[str, Any]) -> dict[str, PatchFacts]:
    """patch → PatchFacts from ``/pypi/torch/json`` (its ``releases`` map of file lists)."""
    out: dict[str, PatchFacts] = {}
    for ver, files in (project.get("releases") or {}).items():
        try:
            if Version(ver).is_prerelease:
                continue
        except InvalidVersion:
            continue
        facts = PatchFacts()
        for f in files or []:
            if f.get("yanked"):
                continue
            wheel = parse_wheel(str(f.get("filename", "")))
            if wheel is None or wheel.platform is None:
                continue
            day = str(f.get("upload_time") or "")[:10] or None
            if day and (facts.uploaded is None or day < facts.uploaded):
                facts.uploaded = day
            if wheel.python:
                facts.pythons.setdefault(wheel.platform, set()).add(wheel.python)
            if wheel.macos_min and wheel.platform == "macos-arm64":
                if facts.macos_min is None or Version(wheel.macos_min) < Version(facts.macos_min):
                    facts.macos_min = wheel.macos_min
        if facts.pythons:
            out[ver] = facts
    return out


def pypi_default_cuda(project: Mapping[str, Any]) -> tuple[str, str] | None:
    """(version, 'cu132') from the newest release's Requires-Dist ``cuda-toolkit==13.2.x`` pin."""
    info = project.get("info") or {}
    for req in info.get("requires_dist") or []:
        m = _TOOLKIT_RE.match(str(req))
        if m and "Linux" in str(req):
            return str(info.get("version")), f"cu{m.group(1)}{m.group(2)}"
    return None


def index_versions(html: str) -> dict[str, set[tuple[str, str]]]:
    """Index page → {'2.15.0': {('cu130', 'linux-x86_64'), …}} from its wheel links."""
    out: dict[str, set[tuple[str, str]]] = {}
    for href in _HREF_RE.findall(html):
        wheel = parse_wheel(href)
        if wheel is None or wheel.platform is None:
            continue
        out.setdefault(wheel.version, set()).add((wheel.local or "", wheel.platform))
    return out


# --------------------------------------------------------------------------------------------
# The refresh itself
# --------------------------------------------------------------------------------------------
@dataclass
class Refresh:
    data: dict[str, Any]
    changes: list[str]
    notes: list[str]

    @property
    def changed(self) -> bool:
        return bool(self.changes)


def _sorted_versions(items: set[str] | list[str]) -> list[str]:
    return sorted(items, key=Version)


def refresh(data: Mapping[str, Any], project: Mapping[str, Any] | None,
            pages: Mapping[str, str | None], today: str) -> Refresh:
    """The new table (a deep copy of ``data`` with only release facts changed) and what changed."""
    new = json.loads(json.dumps(data))
    changes: list[str] = []
    notes: list[str] = []
    if project is None:
        notes.append("PyPI JSON not read: release facts left as they were")
        return Refresh(new, changes, notes)
    facts = pypi_facts(project)
    default = pypi_default_cuda(project)
    known = {r["torch"] for r in new["releases"]}
    newest_known = max((Version(m) for m in known))
    for minor in sorted({".".join(v.split(".")[:2]) for v in facts} - known, key=Version):
        if Version(minor) > newest_known:
            notes.append(f"torch {minor} is on PyPI but not in the table: add it by hand (variants, arch lists)")
    for rel in new["releases"]:
        changes += _refresh_release(rel, facts, default, pages, notes)
    read = sorted(v for v, page in pages.items() if page is not None)
    unread = sorted(v for v, page in pages.items() if page is None)
    if unread:
        notes.append("PyTorch index pages not read (variants there left as they were): " + ", ".join(unread))
    if changes:
        new["reviewed_on"] = today
        new["sources"]["pypi-json"] = (f"PyPI JSON API {PYPI_PROJECT} (wheel file names: cp tags, platforms, "
                                       f"upload dates; info.requires_dist of the newest release), read {today} "
                                       "by wizard.tools.refresh_compat")
        if read:
            new["sources"]["pytorch-index"] = (f"download.pytorch.org/whl/<variant>/torch/ index pages ({', '.join(read)}), "
                                               f"read {today} by wizard.tools.refresh_compat")
    return Refresh(new, changes, notes)


def _refresh_release(rel: dict[str, Any], facts: Mapping[str, PatchFacts], default: tuple[str, str] | None,
                     pages: Mapping[str, str | None], notes: list[str]) -> list[str]:
    minor = rel["torch"]
    out: list[str] = []
    on_pypi = [p for p in facts if ".".join(p.split(".")[:2]) == minor]
    for p in _sorted_versions(set(on_pypi) - set(rel["patches"])):
        out.append(f"{minor}: patch {p} is on PyPI but not in the table (not added: its torchvision pairing needs a person)")
    missing = [p for p in rel["patches"] if p not in facts]
    if missing:
        out.append(f"{minor}: patches {missing} not found on PyPI (left in the table)")
        return out
    newest = max(rel["patches"], key=Version)
    pf = facts[newest]
    pythons = _sorted_versions({py for pys in pf.pythons.values() for py in pys})
    if pythons != rel["python"]:
        out.append(f"{minor}: python {rel['python']} -> {pythons} (cp tags of {newest})")
        rel["python"] = pythons
    only_on = {py: sorted(p for p, pys in pf.pythons.items() if py in pys)
               for py in pythons if any(py not in pys for pys in pf.pythons.values())}
    if only_on != rel.get("python_only_on", {}):
        out.append(f"{minor}: python_only_on {rel.get('python_only_on', {})} -> {only_on}")
        rel["python_only_on"] = only_on
    first = facts[min(rel["patches"], key=Version)].uploaded
    if first and first != rel["released"]:
        out.append(f"{minor}: released {rel['released']} -> {first} (first upload)")
        rel["released"] = first
    if pf.macos_min and rel.get("macos_min") is None:
        notes.append(f"{minor}: PyPI's arm64 wheels say macOS {pf.macos_min}; macos_min left unset (a person decides)")
    elif pf.macos_min and pf.macos_min != rel.get("macos_min"):
        out.append(f"{minor}: macos_min {rel.get('macos_min')} -> {pf.macos_min}")
        rel["macos_min"] = pf.macos_min
    out += _refresh_variants(rel, newest, default, pages)
    if rel["confidence"] != "confirmed":
        rel["confidence"] = "confirmed"
        if "pypi-json" not in rel["src"]:
            rel["src"].append("pypi-json")
        out.append(f"{minor}: confidence unverified -> confirmed (every patch's wheels found on PyPI)")
    return out


def _refresh_variants(rel: dict[str, Any], newest: str, default: tuple[str, str] | None,
                      pages: Mapping[str, str | None]) -> list[str]:
    """PyPI's own build and the index pages confirm variants; the rest stay marked unverified."""
    minor = rel["torch"]
    out: list[str] = []
    unverified = rel.setdefault("unverified", {})
    confirmed: set[str] = set()
    if default and default[0] == newest:
        for plat in ("linux-x86_64", "linux-aarch64"):
            if plat in rel["variants"] and default[1] in rel["variants"][plat]:
                if rel["pypi_default"].get(plat) != default[1]:
                    out.append(f"{minor}: pypi_default[{plat}] {rel['pypi_default'].get(plat)} -> {default[1]} "
                               "(Requires-Dist cuda-toolkit pin)")
                    rel["pypi_default"][plat] = default[1]
                confirmed.add(default[1])
        if unverified.pop("pypi_default", None) is not None:
            out.append(f"{minor}: pypi_default now read from PyPI metadata")
    confirmed |= {v for p, v in rel["pypi_default"].items() if p.startswith(("windows", "macos"))}
    flagged: set[str] = set()  # the index page lacks a platform: that outweighs PyPI's copy
    for variant in sorted({v for vs in rel["variants"].values() for v in vs}):
        page = pages.get(variant)
        if page is None or (rel["confidence"] == "confirmed" and variant not in unverified):
            continue  # a confirmed fact is not re-judged from one page
        found = index_versions(page).get(newest, set())
        plats = [p for p, vs in rel["variants"].items() if variant in vs and not p.startswith("macos")]
        absent = [p for p in plats if not any(plat == p for _, plat in found)]
        if absent:
            flagged.add(variant)
            reason = f"not on the {variant} index page for {', '.join(absent)}"
            if unverified.get(variant) != reason:
                unverified[variant] = reason
                out.append(f"{minor}: {variant} {reason}")
        else:
            confirmed.add(variant)
    was_listed_unverified = "variants" in unverified or rel.get("confidence") != "confirmed"
    for variant in sorted({v for vs in rel["variants"].values() for v in vs}):
        if variant in confirmed and variant not in flagged:
            if variant in unverified:
                del unverified[variant]
                out.append(f"{minor}: {variant} confirmed")
        elif was_listed_unverified and variant not in unverified and variant != "cpu":
            unverified[variant] = "listed from the release RFC; not yet seen on the PyTorch index"
            out.append(f"{minor}: {variant} stays unverified (PyTorch index page not read)")
    if not unverified:
        rel.pop("unverified", None)
    return out


# --------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------
def dump(data: Mapping[str, Any]) -> str:
    """The file's own formatting (one-space indent, ASCII escapes), so a diff shows facts only."""
    return json.dumps(data, indent=1, ensure_ascii=True) + "\n"


def read_sources(data: Mapping[str, Any], fetch: Fetcher) -> tuple[Any, dict[str, str | None], list[str]]:
    """(PyPI project JSON or None, {variant: page text or None}, errors)."""
    errors: list[str] = []
    project = None
    try:
        project = json.loads(fetch(PYPI_PROJECT))
    except (FetchError, ValueError) as exc:
        errors.append(f"PyPI: {exc}")
    variants = sorted({v for r in data["releases"] for vs in r["variants"].values() for v in vs
                       if r["confidence"] != "confirmed" or r is data["releases"][-1]} - {"mps"})
    pages: dict[str, str | None] = {}
    for variant in variants:
        try:
            pages[variant] = fetch(INDEX_PAGE.format(variant=variant)).decode("utf-8", "replace")
        except FetchError as exc:
            pages[variant] = None
            errors.append(f"index {variant}: {str(exc)[:200]}")
            if "Name or service" in str(exc) or "resolve" in str(exc).lower():
                for rest in variants[variants.index(variant) + 1:]:
                    pages[rest] = None
                break
    return project, pages, errors


def review_text(result: Refresh, old: str, new: str, errors: list[str]) -> str:
    lines = ["# compat.json refresh", ""]
    lines += ["## Changes"] + [f"- {c}" for c in result.changes] if result.changes else ["## No changes"]
    if result.notes or errors:
        lines += ["", "## Notes"] + [f"- {n}" for n in result.notes + errors]
    diff = list(difflib.unified_diff(old.splitlines(), new.splitlines(), "compat.json (old)", "compat.json (new)",
                                     lineterm="", n=2))
    if diff:
        lines += ["", "## Unified diff", "```diff"] + diff + ["```"]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None, fetch: Fetcher | None = None) -> int:
    parser = argparse.ArgumentParser(prog="refresh-compat", description=__doc__.split("\n\n")[0])
    parser.add_argument("--from", dest="from_dir", help="read saved pages from DIR instead of the network")
    parser.add_argument("--in", dest="src", default=str(RESOURCE), help="the table to refresh")
    parser.add_argument("--out", help="where to write the new table (default: over --in)")
    parser.add_argument("--diff", help="where to write the review text (default: print it)")
    parser.add_argument("--diff-only", action="store_true", help="print the review text, write nothing")
    parser.add_argument("--today", default=date.today().isoformat())
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("--sign-key", help="Ed25519 private key file (32-byte seed, hex or raw): also write a signed manifest")
    parser.add_argument("--file-url", help="the HTTPS address the new table will be served from (for the manifest)")
    parser.add_argument("--manifest", help="where to write the signed manifest (default: next to --out)")
    args = parser.parse_args(argv)
    if args.sign_key and not args.file_url:
        parser.error("--sign-key needs --file-url")
    fetch = fetch or (dir_fetcher(args.from_dir) if args.from_dir else http_fetcher(args.timeout))
    old = Path(args.src).read_text(encoding="utf-8")
    data = json.loads(old)
    project, pages, errors = read_sources(data, fetch)
    result = refresh(data, project, pages, args.today)
    new = dump(result.data)
    _check(new)
    text = review_text(result, dump(data), new, errors)
    if args.diff_only or not args.diff:
        sys.stdout.write(text)
    if args.diff_only:
        return 0
    from wizard.core.base.files import write_atomic

    if args.diff:
        write_atomic(args.diff, text)
    out = Path(args.out or args.src)
    write_atomic(out, new)
    if args.sign_key:
        from wizard.core.recommend.update import read_private_key, sign_manifest

        manifest = Path(args.manifest or out.with_name(out.name + ".manifest.json"))
        write_atomic(manifest, sign_manifest(new.encode("utf-8"), args.file_url, read_private_key(args.sign_key)))
    return 0


def _check(text: str) -> None:
    """The refreshed table must still load (the same validator the wizard uses)."""
    from wizard.core.recommend.compat import parse

    parse(json.loads(text))


if __name__ == "__main__":
    sys.exit(main())
