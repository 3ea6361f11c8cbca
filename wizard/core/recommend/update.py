"""A newer compatibility table without a new release of the wizard: a signed manifest, checked.

Why: PyTorch ships a release every couple of months; a table frozen into the wizard goes stale
(StabilityMatrix and ComfyUI Desktop users waited for a new app release to get RTX 50 builds).
So at start-up, at most once a day, the wizard reads a small manifest at a configurable HTTPS
address. The manifest names the data file's address, its sha256, size and ``reviewed_on`` date,
and is signed with an Ed25519 key whose public half ships in ``resources/keys/``; the private key
never enters the repository (the refresh command signs with a key file named on its command line).

Only a file that passes every check is cached and used: the signature over the manifest's exact
bytes, its schema, the file's size and sha256, the file's own validation (:func:`compat.parse`),
its date equal to the manifest's and newer than the table in use. Anything else is refused with a
one-line reason and the built-in table stays in use. The cached copy is checked again (signature
and hash) each time it is loaded, so a file changed on disk after download is refused too.

Every manifest carries an ``expires`` date (signed with the rest): a frozen old manifest -- a
mirror that stopped syncing, or someone replaying the last good one to hold back a newer table --
is noticed, said ("the signed data expired on DATE") and the shipped table is used instead.

The same daily check reads what the package indexes say about the newest releases
(:mod:`wizard.core.recommend.live_index`); :func:`load_active` lays those facts over the table in use
and :class:`DataSource` names all three: the table's date, signed or not, and the index day.

Off with one setting (``UpdateConfig.enabled``), in offline mode, and with ``GSW_COMPAT_UPDATE=0``
(the index reading alone with ``GSW_INDEX_CHECK=0``).
Nothing here imports Qt; the GUI runs :func:`check_for_update` on a worker thread.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlparse

from wizard.core.base.i18n import Message
from wizard.core.recommend import compat as _compat

MANIFEST_SCHEMA = "gsw-compat-manifest/1"
ENV_SWITCH = "GSW_COMPAT_UPDATE"  # "0"/"off": neither check nor use an update
ENV_URL = "GSW_COMPAT_UPDATE_URL"
ENV_CACHE = "GSW_COMPAT_CACHE_DIR"
ENV_INDEX = "GSW_INDEX_CHECK"  # "0": do not read the package indexes at run time
ENV_PYPI_JSON = "GSW_INDEX_PYPI_JSON"  # a mirror of PyPI's JSON API: "https://…/pypi/{name}/json"
ENV_PYTORCH_PAGE = "GSW_INDEX_PYTORCH_PAGE"  # a mirror of the PyTorch index: "https://…/whl/{variant}/torch/"
VALID_DAYS = 120  # a manifest's life: the release workflow signs a new one with every release
MAX_MANIFEST = 16 * 1024
MAX_FILE = 4 * 1024 * 1024
KEY_DIR = Path(__file__).resolve().parents[2] / "resources" / "keys"
FILE_NAME = "compat.json"
MANIFEST_NAME = "compat.manifest.json"
STAMP_NAME = "last-check"
Fetch = Callable[[str, float, int], bytes]  # (url, timeout seconds, max bytes) → body


class UpdateRefused(ValueError):
    """A manifest or file that must not be used; ``code`` picks the one-line reason."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params

    @property
    def message(self) -> Message:
        return Message.of(f"recommend.compat.update.refused.{self.code}", **self.params)


@dataclass(frozen=True)
class UpdateConfig:
    url: str = ""
    enabled: bool = True
    offline: bool = False
    timeout: float = 5.0
    cache_dir: Path | None = None
    public_keys: tuple[bytes, ...] | None = None  # None: the keys in resources/keys
    allow_loopback_http: bool = False  # tests' 127.0.0.1 server only
    index_check: bool = False  # read the package indexes too (on in from_env)
    pypi_json: str = ""  # "": PyPI's JSON API (live_index.PYPI_JSON); a test server's otherwise
    pytorch_page: str = ""  # "": download.pytorch.org's variant pages (live_index.PYTORCH_PAGE)

    @classmethod
    def from_env(cls, **overrides: Any) -> "UpdateConfig":
        """The address from ``GSW_COMPAT_UPDATE_URL`` (empty: none), the user's setting or resources/keys/update.json;
        off by ``GSW_COMPAT_UPDATE=0``, ``GSW_OFFLINE=1`` or ``"enabled": false`` in the setting."""
        env = os.environ
        setting = user_setting()
        off = env.get(ENV_SWITCH, "1").strip().lower() in ("0", "off", "no", "false")
        # GSW_COMPAT_UPDATE_URL set but empty: no address (a classroom's own policy, the test suite)
        url = env[ENV_URL] if ENV_URL in env else str(setting.get("manifest_url") or "") or shipped_url()
        base = cls(url=url.strip(),
                   enabled=not off and setting.get("enabled", True) is not False,
                   offline=env.get("GSW_OFFLINE", "").strip().lower() in ("1", "yes", "on", "true"),
                   cache_dir=Path(env[ENV_CACHE]) if env.get(ENV_CACHE) else None,
                   index_check=env.get(ENV_INDEX, "1").strip().lower() not in ("0", "off", "no", "false"),
                   pypi_json=_template(env.get(ENV_PYPI_JSON, ""), "{name}"),
                   pytorch_page=_template(env.get(ENV_PYTORCH_PAGE, ""), "{variant}"))
        return _replace(base, **overrides)

    @property
    def active(self) -> bool:
        return self.enabled and not self.offline and bool(self.url)

    def folder(self) -> Path:
        if self.cache_dir is not None:
            return self.cache_dir
        import platformdirs

        return Path(platformdirs.user_cache_dir("gpu-setup-wizard", appauthor=False)) / "compat"

    def keys(self) -> tuple[bytes, ...]:
        return self.public_keys if self.public_keys is not None else shipped_public_keys()


def _template(url: str, field_name: str) -> str:
    """A mirror's address with its one ``{name}``/``{variant}`` field; "" (the default) otherwise."""
    url = url.strip()
    ok = url.count("{") == url.count("}") == 1 and field_name in url and url.startswith(("https://", "http://"))
    return url if ok else ""


def user_setting() -> dict[str, Any]:
    """``compat-update.json`` in the user's config folder (``{"enabled": false}`` turns it off)."""
    folder = os.environ.get("GSW_CONFIG_DIR")
    if not folder:
        import platformdirs

        folder = platformdirs.user_config_dir("gpu-setup-wizard", appauthor=False)
    raw = _read_bytes(Path(folder) / "compat-update.json")
    try:
        doc = json.loads(raw) if raw else {}
    except ValueError:
        return {}
    return doc if isinstance(doc, dict) else {}


def shipped_url() -> str:
    raw = _read_bytes(KEY_DIR / "update.json")
    try:
        return str(json.loads(raw).get("manifest_url") or "") if raw else ""
    except (ValueError, AttributeError):
        return ""


def _replace(cfg: UpdateConfig, **changes: Any) -> UpdateConfig:
    from dataclasses import replace

    return replace(cfg, **changes)


@dataclass(frozen=True)
class Manifest:
    url: str
    sha256: str
    size: int
    reviewed_on: str
    created: str
    expires: str


@dataclass(frozen=True)
class DataSource:
    """Which table the recommender used: 'built-in' or 'updated', its date, and why not updated;
    and the day the package indexes last confirmed the newest releases (None: not read)."""

    kind: str
    reviewed_on: str
    refused: Message | None = None
    index_on: str | None = None
    index_newest: tuple[tuple[str, str], ...] = ()  # (project, newest version on PyPI)
    index_added: tuple[str, ...] = ()  # releases the indexes added to the table ("torch 2.16.0")
    index_notes: tuple[Message, ...] = ()  # what the last reading of the indexes could not read

    def text(self, lang: str | None) -> str:
        line = Message.of(f"recommend.compat.source.{self.kind.replace('-', '_')}", date=self.reviewed_on).text(lang)
        if self.index_on:
            line += "" if line.endswith(".") else "."
            newest = ", ".join(f"{name} {ver}" for name, ver in self.index_newest)
            line += " " + Message.of("recommend.compat.source.index", date=self.index_on, newest=newest).text(lang)
            if self.index_added:
                line += " " + Message.of("recommend.compat.source.index_added", date=self.index_on,
                                         releases=", ".join(self.index_added)).text(lang)
        for note in self.index_notes:
            line += " " + note.text(lang)
        return line

    def to_json(self, lang: str | None) -> dict[str, Any]:
        doc: dict[str, Any] = {"kind": self.kind, "reviewed_on": self.reviewed_on}
        if self.refused is not None:
            doc["refused"] = self.refused.text(lang)
        if self.index_on:  # absent: the package indexes were not read (off, offline, never yet)
            doc["index_confirmed_on"] = self.index_on
            doc["index_newest"] = dict(self.index_newest)
            doc["index_added"] = list(self.index_added)
        if self.index_notes:
            doc["index_notes"] = [n.text(lang) for n in self.index_notes]
        return doc


@dataclass
class UpdateResult:
    status: str  # updated | current | refused | failed | off | skipped
    reason: Message | None = None
    reviewed_on: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def text(self, lang: str | None) -> str:
        line = Message.of(f"recommend.compat.update.{self.status}", date=self.reviewed_on or "").text(lang)
        return f"{line} {self.reason.text(lang)}" if self.reason is not None else line


# --------------------------------------------------------------------------------------------
# Keys and signatures (PyNaCl)
# --------------------------------------------------------------------------------------------
def shipped_public_keys() -> tuple[bytes, ...]:
    """Every ``*.pub`` in resources/keys (hex of the 32-byte Ed25519 public key)."""
    keys = []
    for path in sorted(KEY_DIR.glob("*.pub")):
        keys.append(bytes.fromhex(path.read_text(encoding="ascii").split()[0]))
    return tuple(keys)


def read_private_key(path: str | os.PathLike[str]) -> bytes:
    """A 32-byte Ed25519 seed from a file: raw bytes, or hex text."""
    raw = Path(path).read_bytes()
    if len(raw) == 32:
        return raw
    return bytes.fromhex(raw.decode("ascii").strip())


def public_key_of(seed: bytes) -> bytes:
    from nacl.signing import SigningKey

    return bytes(SigningKey(seed).verify_key)


def sign_manifest(data: bytes, file_url: str, seed: bytes, *, created: str | None = None,
                  expires: str | None = None, valid_days: int = VALID_DAYS) -> bytes:
    """The signed manifest for ``data`` served at ``file_url`` (the refresh command's and the
    release workflow's output), good until ``expires`` (default: ``valid_days`` from today)."""
    from datetime import timedelta

    from nacl.signing import SigningKey

    table = json.loads(data)
    now = datetime.now(timezone.utc)
    payload = json.dumps({"schema": MANIFEST_SCHEMA, "url": file_url, "sha256": hashlib.sha256(data).hexdigest(),
                          "size": len(data), "reviewed_on": table["reviewed_on"],
                          "created": created or now.strftime("%Y-%m-%dT%H:%M:%SZ"),
                          "expires": expires or (now.date() + timedelta(days=valid_days)).isoformat()},
                         sort_keys=True)
    sig = SigningKey(seed).sign(payload.encode("utf-8")).signature
    doc = {"payload": payload, "signature": base64.b64encode(sig).decode("ascii"), "alg": "ed25519"}
    return (json.dumps(doc, indent=1) + "\n").encode("utf-8")


def verify_manifest(raw: bytes, keys: tuple[bytes, ...], *, today: str | None = None) -> Manifest:
    """The manifest, if its signature is good under one of ``keys`` and it has not expired by
    ``today`` (the clock's day); else UpdateRefused."""
    from nacl.exceptions import BadSignatureError
    from nacl.signing import VerifyKey

    try:
        doc = json.loads(raw)
    except ValueError:
        raise UpdateRefused("malformed") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("payload"), str):
        raise UpdateRefused("malformed")
    if not doc.get("signature"):
        raise UpdateRefused("unsigned")
    try:
        sig = base64.b64decode(str(doc["signature"]), validate=True)
    except ValueError:
        raise UpdateRefused("bad_signature") from None
    payload = doc["payload"].encode("utf-8")
    for key in keys:
        try:
            VerifyKey(key).verify(payload, sig)
            break
        except (BadSignatureError, ValueError, TypeError):
            continue
    else:
        raise UpdateRefused("bad_signature")
    manifest = _manifest_fields(payload)
    if manifest.expires < (today or date.today().isoformat()):
        raise UpdateRefused("expired", date=manifest.expires)
    return manifest


def _manifest_fields(payload: bytes) -> Manifest:
    try:
        body = json.loads(payload)
        if body.get("schema") != MANIFEST_SCHEMA:
            raise UpdateRefused("schema", schema=str(body.get("schema")))
        date.fromisoformat(str(body["reviewed_on"]))
        expires = date.fromisoformat(str(body["expires"])).isoformat()  # required: a manifest without one never expires
        sha = str(body["sha256"]).lower()
        if len(sha) != 64 or any(c not in "0123456789abcdef" for c in sha):
            raise UpdateRefused("malformed")
        return Manifest(str(body["url"]), sha, int(body["size"]), str(body["reviewed_on"]), str(body.get("created", "")),
                        expires)
    except UpdateRefused:
        raise
    except (ValueError, KeyError, TypeError, AttributeError):
        raise UpdateRefused("malformed") from None


# --------------------------------------------------------------------------------------------
# Checking for an update
# --------------------------------------------------------------------------------------------
def http_fetch(url: str, timeout: float, limit: int) -> bytes:
    """GET ``url`` with ``timeout`` seconds for connect and each read, at most ``limit`` bytes,
    and at most ``4 × timeout`` in all (a server that trickles a byte at a time is cut off too).

    The wizard's HTTP session (:mod:`wizard.core.base.http`); a redirect must stay on https (or on
    plain http to this machine, which only a test's or classroom's own server can be): the table is
    signed, but a downgrade would still tell an observer what is asked for."""
    from wizard.core.base.http import DeadlineExceeded, ResponseTooLarge, http_session

    session = http_session(timeout=(timeout, timeout), deadline_s=4 * timeout, https_only=True,
                           allow_loopback_http=True, max_bytes=limit)
    try:
        with session, session.get(url) as resp:
            if resp.status_code != 200:
                raise OSError(f"HTTP {resp.status_code}")
            return resp.content
    except ResponseTooLarge:
        raise UpdateRefused("too_large") from None
    except DeadlineExceeded as exc:  # named as before: the result says "TimeoutError"
        raise TimeoutError(f"{url}: slower than {4 * timeout:.0f} s in all") from exc


def _check_url(url: str, cfg: UpdateConfig) -> None:
    parts = urlparse(url)
    loopback = parts.hostname in ("127.0.0.1", "localhost", "::1")
    if parts.scheme != "https" and not (cfg.allow_loopback_http and loopback and parts.scheme == "http"):
        raise UpdateRefused("not_https", url=url)


def check_for_update(cfg: UpdateConfig, *, fetch: Fetch | None = None, today: str | None = None,
                     force: bool = False) -> UpdateResult:
    """Look for a newer signed table once a day, and read the package indexes (when
    ``cfg.index_check``); cache and report both. Never raises for bad data."""
    if not cfg.enabled or cfg.offline or not (cfg.url or cfg.index_check):
        return UpdateResult("off")
    today = today or date.today().isoformat()
    folder = cfg.folder()
    stamp = folder / STAMP_NAME
    if not force and _read_text(stamp) == today:
        return UpdateResult("skipped")
    fetch = fetch or http_fetch
    current = active_source(cfg).reviewed_on
    try:
        result = _fetch_and_check(cfg, fetch, current) if cfg.url else UpdateResult("off")
    except UpdateRefused as exc:
        result = UpdateResult("refused", exc.message)
    except (OSError, ValueError) as exc:  # network, timeout, HTTP status (requests' errors are OSErrors)
        result = UpdateResult("failed", Message.of("recommend.compat.update.refused.network", error=type(exc).__name__))
    if cfg.index_check:
        result.extra["index"] = check_indexes(cfg, today)
    from wizard.core.base.files import write_atomic

    try:
        write_atomic(stamp, today, mkdir=True)
    except OSError:
        pass  # no stamp: the next start checks again, which is harmless
    return result


def check_indexes(cfg: UpdateConfig, today: str) -> dict[str, Any]:
    """Read the package indexes (:func:`live_index.read_indexes`) for the variants of the newest
    release in use; the facts are saved beside the signed table and used from the next load."""
    from wizard.core.recommend import live_index

    db, _ = load_active(cfg)
    newest = db.releases[0]
    variants = sorted({v for names in newest.variants.values() for v in names} - {"mps"})
    got = live_index.read_indexes(cfg.folder(), variants, today, pypi_json=cfg.pypi_json or live_index.PYPI_JSON,
                                  pytorch_page=cfg.pytorch_page or live_index.PYTORCH_PAGE, timeout=cfg.timeout)
    reset()
    return {"read": got.facts is not None, "checked_on": (got.facts or {}).get("checked_on"), "notes": got.notes}


def _fetch_and_check(cfg: UpdateConfig, fetch: Fetch, current: str) -> UpdateResult:
    _check_url(cfg.url, cfg)
    raw_manifest = fetch(cfg.url, cfg.timeout, MAX_MANIFEST)
    manifest = verify_manifest(raw_manifest, cfg.keys())
    if manifest.reviewed_on < current:
        raise UpdateRefused("older", date=manifest.reviewed_on, current=current)
    if manifest.reviewed_on == current:
        return UpdateResult("current", reviewed_on=current)
    if manifest.size > MAX_FILE:
        raise UpdateRefused("too_large")
    _check_url(manifest.url, cfg)
    data = fetch(manifest.url, cfg.timeout, MAX_FILE)
    _check_file(data, manifest)
    from wizard.core.base.files import write_atomic

    folder = cfg.folder()
    write_atomic(folder / FILE_NAME, data, mkdir=True)
    write_atomic(folder / MANIFEST_NAME, raw_manifest, mkdir=True)
    reset()
    return UpdateResult("updated", reviewed_on=manifest.reviewed_on)


def _check_file(data: bytes, manifest: Manifest) -> Any:
    """The table, if ``data`` is the file the manifest names and a valid table of its date."""
    from wizard.core.recommend.compat_model import CompatDataError

    if len(data) != manifest.size or hashlib.sha256(data).hexdigest() != manifest.sha256:
        raise UpdateRefused("hash")
    try:
        db = _compat.parse(json.loads(data))
    except (ValueError, CompatDataError) as exc:
        raise UpdateRefused("invalid_table", error=str(exc)[:160]) from None
    if db.reviewed_on != manifest.reviewed_on:
        raise UpdateRefused("malformed")
    return db


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError:
        return None


# --------------------------------------------------------------------------------------------
# Which table is in use
# --------------------------------------------------------------------------------------------
_ACTIVE: dict[str, Any] = {}


def reset() -> None:
    """Forget the table in use (after an update, or in tests)."""
    _ACTIVE.clear()
    _compat.load.cache_clear()


def load_active(cfg: UpdateConfig | None = None) -> tuple[Any, DataSource]:
    """(CompatDB, DataSource): the cached update when it passes every check again (its expiry
    too) and is newer than the built-in table; else the built-in one (with the reason the update
    was refused). Either way, with what the package indexes confirmed laid over it."""
    if "db" in _ACTIVE and cfg is None:
        return _ACTIVE["db"], _ACTIVE["source"]
    use = cfg or UpdateConfig.from_env()
    builtin = _compat.load_builtin()
    db, source = builtin, DataSource("built-in", builtin.reviewed_on)
    if use.enabled:
        folder = use.folder()
        raw_manifest = _read_bytes(folder / MANIFEST_NAME)
        data = _read_bytes(folder / FILE_NAME)
        if raw_manifest is not None and data is not None:
            try:
                cached = _check_file(data, verify_manifest(raw_manifest, use.keys()))
                if cached.reviewed_on > builtin.reviewed_on:
                    db, source = cached, DataSource("updated", cached.reviewed_on)
            except UpdateRefused as exc:
                source = DataSource("built-in", builtin.reviewed_on, exc.message)
        if use.index_check and not use.offline:
            db, source = _with_index_facts(db, source, use.folder())
    if cfg is None:
        _ACTIVE.update(db=db, source=source)
    return db, source


def _with_index_facts(db: Any, source: DataSource, folder: Path) -> tuple[Any, DataSource]:
    """``db`` with the saved index facts laid over it; unchanged when there are none or they do
    not make a valid table (said nowhere: the table in use is still a good one)."""
    from dataclasses import replace

    from wizard.core.recommend import live_index
    from wizard.core.recommend.compat_model import CompatDataError

    facts = live_index.saved_facts(folder)
    source = replace(source, index_notes=tuple(live_index.saved_notes(folder)))
    if facts is None:
        return db, source
    try:
        applied = live_index.apply(db.raw, facts)
        new_db = _compat.parse(applied.data) if applied.added else db
    except (CompatDataError, KeyError, TypeError, ValueError, AttributeError):
        return db, source
    newest = tuple((name, applied.newest[name]) for name in live_index.PACKAGES if name in applied.newest)
    return new_db, replace(source, index_on=str(facts["checked_on"]), index_newest=newest,
                           index_added=tuple(applied.added))


def active_source(cfg: UpdateConfig | None = None) -> DataSource:
    return load_active(cfg)[1]


def _read_bytes(path: Path) -> bytes | None:
    try:
        with open(path, "rb") as fh:
            return fh.read(MAX_FILE + 1)
    except OSError:
        return None


_compat.register_active_loader(lambda: load_active()[0])

__all__ = ["UpdateConfig", "UpdateResult", "UpdateRefused", "DataSource", "Manifest", "check_for_update", "check_indexes",
           "load_active", "active_source", "sign_manifest", "verify_manifest", "read_private_key", "reset"]
