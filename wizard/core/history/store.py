"""History: every completed run saved as a small JSON snapshot, so the next run can say what changed.

A snapshot (schema ``gpu-setup-wizard/snapshot@1.0``) keeps what a later comparison needs and no
more: when, the OS build, the driver and the highest CUDA it supports, each GPU (with its UUID,
to tell a new card from the old one), the environment's torch facts, the findings (id, severity,
scope), and the benchmark's headline numbers when a benchmark ran.

Files live in ``<user data dir>/gpu-setup-wizard/history`` (platformdirs; ``GSW_DATA_DIR`` or the
``root`` argument overrides it, for tests and portable installs), one file per run, named by the
UTC time. Writes are atomic and race-free: a complete temporary file in the same folder gets its
final name with :func:`os.link`, which fails when the name is taken, so concurrent saves in the same
second each get their own file, and a crash leaves either the old state or the new file, never half a file. Reading is forgiving: a
corrupt, truncated, foreign or newer-schema file is skipped with a warning and left untouched
(a newer wizard may own it); a folder that cannot be written gives a clear message and the run
goes on.
"""

from __future__ import annotations

import datetime as _dt
import json
import logging
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

from wizard import __version__
from wizard.core.base.files import fsync_dir, replace_file
from wizard.core.base.i18n import Message, MessageError, is_message_json, msg
from wizard.core.base.schema import SchemaError, check_schema
from wizard.core.base.typed import build
from wizard.core.base.user_input import loads_user_json, read_bounded
from wizard.core.diagnosis.facts import TorchFacts
from wizard.core.diagnosis.model import SCOPE_DETECTION, Diagnosis
from wizard.core.machine.models import STATUS_VERSION_MISMATCH, Detection, Finding, to_jsonable

log = logging.getLogger(__name__)

SCHEMA = "gpu-setup-wizard/snapshot"
SCHEMA_VERSION = "1.0"
APP_NAME = "gpu-setup-wizard"
HISTORY_DIR = "history"
FILE_PREFIX = "snapshot-"
FILE_SUFFIX = ".json"
TEMP_PREFIX = ".tmp-"
MAX_FILE_BYTES = 4 * 1024 * 1024  # a snapshot is a few kB; anything this big is not ours
MAX_SAME_SECOND = 10_000  # names tried for saves within one second before giving up


# ---------------------------------------------------------------------------------------------
# Errors that carry their message (translated when shown)
# ---------------------------------------------------------------------------------------------
class HistoryLookupError(MessageError, IndexError):
    """No run with that number; the message says how many there are."""


# ---------------------------------------------------------------------------------------------
# The snapshot
# ---------------------------------------------------------------------------------------------
@dataclass
class GpuSummary:
    index: int
    name: str | None = None
    uuid: str | None = None
    pci_bus_id: str | None = None
    compute_capability: str | None = None
    memory_total_mib: float | None = None

    def key(self) -> str:
        """Identity across runs: the UUID unless masked (all zeros), else the PCI bus id, else index+name."""
        uuid = (self.uuid or "").upper()
        masked = set(uuid.partition("-")[2]) <= {"0", "-"}  # captures shared publicly zero them out
        if uuid and not masked:
            return uuid
        if self.pci_bus_id:
            return self.pci_bus_id.upper()
        return f"{self.index}:{self.name}"


@dataclass
class BenchHeadline:
    """One headline benchmark number. ``spread`` is the run's IQR / median (None: not reported)."""

    value: float
    unit: str
    higher_is_better: bool = True
    spread: float | None = None


@dataclass
class FindingSummary:
    id: str
    severity: str
    variant: str | None = None
    scope: str = SCOPE_DETECTION
    params: dict[str, Any] = field(default_factory=dict)

    def as_finding(self) -> Finding:
        return Finding(self.id, self.severity, dict(self.params), None, self.variant)


@dataclass
class Snapshot:
    time: str  # ISO 8601 with the UTC offset
    os: str = "unknown"
    os_pretty: str | None = None
    os_version: str | None = None
    os_build: str | None = None
    arch: str | None = None
    is_wsl: bool = False
    wsl_version: int | None = None
    nvidia_status: str = "no-driver"
    driver_version: str | None = None
    cuda_version: str | None = None
    pending_driver_version: str | None = None  # the new driver on disk while the old one still runs
    gpus: list[GpuSummary] = field(default_factory=list)
    torch: TorchFacts | None = None
    env_path: str | None = None
    python_version: str | None = None
    findings: list[FindingSummary] = field(default_factory=list)
    scopes: list[str] = field(default_factory=lambda: [SCOPE_DETECTION])
    benchmark: dict[str, BenchHeadline] = field(default_factory=dict)
    generator: str = f"gpu-setup-wizard {__version__}"

    @property
    def when(self) -> _dt.datetime | None:
        try:
            return _dt.datetime.fromisoformat(self.time)
        except (TypeError, ValueError):
            return None

    def finding_ids(self) -> list[str]:
        return [f.id for f in self.findings]

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": f"{SCHEMA}@{SCHEMA_VERSION}",
            "generator": self.generator,
            "time": self.time,
            "system": {"os": self.os, "os_pretty": self.os_pretty, "os_version": self.os_version,
                       "os_build": self.os_build, "arch": self.arch, "is_wsl": self.is_wsl,
                       "wsl_version": self.wsl_version},
            "nvidia": {"status": self.nvidia_status, "driver_version": self.driver_version,
                       "cuda_version": self.cuda_version, "pending_driver_version": self.pending_driver_version,
                       "gpus": to_jsonable(self.gpus)},
            "torch": self.torch.to_json() if self.torch else None,
            "env": {"path": self.env_path, "python_version": self.python_version},
            "findings": to_jsonable(self.findings),
            "scopes": list(self.scopes),
            "benchmark": to_jsonable(self.benchmark),
        }

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> "Snapshot":
        """A snapshot from a checked document. Every value is checked against its type on the way
        in (:mod:`wizard.core.base.typed`), so a file with ``"name": 5`` or ``"params": [1, 2]`` is
        skipped here instead of breaking ``history list/show/diff`` later. Raises ValueError."""
        check_snapshot_schema(doc)
        part = build(_SnapshotDoc, doc)
        for i, finding in enumerate(part.findings or []):
            for name, value in finding.params.items():
                _check_stored_message(value, f"findings[{i}].params.{name}")
        system, nvidia, env = part.system or _SystemPart(), part.nvidia or _NvidiaPart(), part.env or _EnvPart()
        torch = build(TorchFacts, doc["torch"], "torch") if isinstance(doc.get("torch"), Mapping) else None
        return cls(
            time=part.time, os=system.os or "unknown", os_pretty=system.os_pretty, os_version=system.os_version,
            os_build=system.os_build, arch=system.arch, is_wsl=bool(system.is_wsl), wsl_version=system.wsl_version,
            nvidia_status=nvidia.status or "no-driver", driver_version=nvidia.driver_version,
            cuda_version=nvidia.cuda_version, pending_driver_version=nvidia.pending_driver_version,
            gpus=nvidia.gpus, torch=torch, env_path=env.path, python_version=env.python_version,
            findings=part.findings or [], scopes=part.scopes or [SCOPE_DETECTION], benchmark=part.benchmark or {},
            generator=part.generator or "",
        )


def _check_stored_message(value: Any, where: str, depth: int = 0) -> None:
    """A finding parameter stored as a Message (``{"$t": key, "params": {...}}``) must be one, all
    the way down: ``"params": [1, 2]`` inside it broke ``history show`` when the title was rendered
    (found by the fuzz suite). Raises ValueError, which the reader turns into a skipped file."""
    if not is_message_json(value):
        return
    params = value.get("params")
    if not isinstance(value.get("$t"), str) or depth > 8 or not (params is None or isinstance(params, Mapping)):
        raise ValueError(f"{where}: not a stored message")
    for name, inner in (params or {}).items():
        _check_stored_message(inner, f"{where}.{name}", depth + 1)


# The document's shape, for typed loading (the JSON groups what the Snapshot keeps flat).
@dataclass
class _SystemPart:
    os: str | None = None
    os_pretty: str | None = None
    os_version: str | None = None
    os_build: str | None = None
    arch: str | None = None
    is_wsl: bool | None = None
    wsl_version: int | None = None


@dataclass
class _NvidiaPart:
    status: str | None = None
    driver_version: str | None = None
    cuda_version: str | None = None
    pending_driver_version: str | None = None
    gpus: list[GpuSummary] = field(default_factory=list)


@dataclass
class _EnvPart:
    path: str | None = None
    python_version: str | None = None


@dataclass
class _SnapshotDoc:
    time: str
    system: _SystemPart | None = None
    nvidia: _NvidiaPart | None = None
    env: _EnvPart | None = None
    findings: list[FindingSummary] | None = None
    scopes: list[str] | None = None
    benchmark: dict[str, BenchHeadline] | None = None
    generator: str | None = None


def check_snapshot_schema(doc: Any) -> str:
    """The version of a snapshot document; raises :class:`~wizard.core.base.schema.SchemaError` otherwise
    (not ours, another kind, or another major version: a newer wizard wrote it)."""
    return check_schema(doc, SCHEMA, SCHEMA_VERSION)


def _pending_driver(detection: Detection) -> str | None:
    """The driver version waiting for a restart ("NVML library version: 581.15" after an update)."""
    import re

    if detection.nvidia.status != STATUS_VERSION_MISMATCH:
        return None
    for source in detection.nvidia.sources:
        match = re.search(r"NVML library version:\s*(\d+\.\d+(?:\.\d+)?)", source.raw_error or "")
        if match:
            return match.group(1)
    return None


def build_snapshot(detection: Detection, *, findings: Iterable[Finding] | None = None,
                   torch: TorchFacts | None = None, env_path: str | None = None, python_version: str | None = None,
                   benchmark: Mapping[str, BenchHeadline] | None = None, scopes: Iterable[str] | None = None,
                   now: _dt.datetime | None = None) -> Snapshot:
    """A snapshot of this run. ``findings`` default to the detection's; ``scopes`` to the scopes of
    the findings given (detection always)."""
    s, nv = detection.system, detection.nvidia
    items = list(findings if findings is not None else detection.findings)
    summaries = [FindingSummary(f.id, f.severity, f.variant,
                                f.scope if isinstance(f, Diagnosis) else SCOPE_DETECTION,
                                to_jsonable(f.params)) for f in items]
    if scopes is None:
        scopes = [SCOPE_DETECTION] + sorted({x.scope for x in summaries} - {SCOPE_DETECTION, "text"})
        if torch is not None and "torch" not in scopes:
            scopes.append("torch")
    when = (now or _dt.datetime.now(_dt.timezone.utc)).astimezone()
    return Snapshot(
        time=when.isoformat(timespec="seconds"), os=s.os, os_pretty=s.os_pretty, os_version=s.os_version,
        os_build=s.os_build, arch=s.arch, is_wsl=s.is_wsl, wsl_version=s.wsl_version, nvidia_status=nv.status,
        driver_version=nv.driver_version, cuda_version=nv.cuda_version,
        pending_driver_version=_pending_driver(detection),
        gpus=[GpuSummary(g.index, g.name, g.uuid, g.pci_bus_id, g.compute_capability, g.memory_total_mib)
              for g in nv.gpus],
        torch=torch, env_path=env_path or (torch.env_path if torch else None),
        python_version=python_version or (torch.python_version if torch else None),
        findings=summaries, scopes=list(scopes), benchmark=dict(benchmark or {}),
    )


_LOWER_IS_BETTER_UNITS = ("s", "ms", "us", "µs", "sec", "seconds")


def benchmark_headlines(measurements: Iterable[Mapping[str, Any]],
                        wanted: Iterable[str] | None = None) -> dict[str, BenchHeadline]:
    """Headline numbers from the benchmark probe's measurement lines (``id``, ``device``, ``dtype``,
    ``size``, ``value``, ``unit``, ``median_s``, ``iqr_s``); keyed ``id/device[/dtype][/size]``.
    ``wanted`` limits the keys kept."""
    keep = set(wanted) if wanted is not None else None
    out: dict[str, BenchHeadline] = {}
    for m in measurements:
        value = m.get("value")
        if not isinstance(value, (int, float)) or isinstance(value, bool) or value != value:
            continue
        key = "/".join(str(m[k]) for k in ("id", "device", "dtype", "size") if m.get(k) not in (None, ""))
        if keep is not None and key not in keep:
            continue
        unit = str(m.get("unit") or "")
        median, iqr = m.get("median_s"), m.get("iqr_s")
        spread = (float(iqr) / float(median)) if isinstance(median, (int, float)) and median and \
            isinstance(iqr, (int, float)) else None
        out[key] = BenchHeadline(float(value), unit, unit.strip().lower() not in _LOWER_IS_BETTER_UNITS, spread)
    return out


# ---------------------------------------------------------------------------------------------
# The store
# ---------------------------------------------------------------------------------------------
def default_history_dir() -> Path:
    """``GSW_DATA_DIR``/history, else the user data dir (platformdirs) /gpu-setup-wizard/history."""
    override = os.environ.get("GSW_DATA_DIR")
    if override:
        return Path(override) / HISTORY_DIR
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)) / HISTORY_DIR


@dataclass
class HistoryEntry:
    number: int  # 1 = the oldest
    path: Path
    snapshot: Snapshot


@dataclass
class SaveResult:
    path: Path | None
    error: Message | None = None

    @property
    def ok(self) -> bool:
        return self.path is not None


class HistoryStore:
    """The saved snapshots in one folder. ``warnings`` collects what listing had to skip."""

    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        self.root = Path(root) if root is not None else default_history_dir()
        self.warnings: list[Message] = []

    # --- writing -------------------------------------------------------------------------------
    def _candidates(self, snapshot: Snapshot) -> Iterator[Path]:
        """The names this snapshot may take: its UTC second, then ``-2``, ``-3``, … (bounded)."""
        when = snapshot.when or _dt.datetime.now(_dt.timezone.utc)
        if when.tzinfo is None:
            when = when.replace(tzinfo=_dt.timezone.utc)
        stamp = when.astimezone(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        yield self.root / f"{FILE_PREFIX}{stamp}{FILE_SUFFIX}"
        for n in range(2, MAX_SAME_SECOND + 1):
            yield self.root / f"{FILE_PREFIX}{stamp}-{n}{FILE_SUFFIX}"

    def _publish(self, temp: Path, snapshot: Snapshot) -> Path | None:
        """Give the finished temporary file the first free name, without a check-then-write race.

        Why not ``exists()`` then ``os.replace``: twelve processes saving in the same second all
        saw the same name free, and each replace overwrote the one before (12 saves, 2 files).
        ``os.link`` fails when the name exists, so exactly one process gets each name and the
        snapshot appears complete. Where hard links are not supported (FAT, some shares), the
        name is reserved with ``O_CREAT | O_EXCL`` and then replaced. None: every name taken.
        """
        for path in self._candidates(snapshot):
            try:
                os.link(temp, path)
            except FileExistsError:
                continue
            except OSError:  # no hard links here: reserve the name exclusively, then fill it
                try:
                    os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
                except FileExistsError:
                    continue
                try:
                    replace_file(temp, path)
                except OSError:
                    path.unlink(missing_ok=True)  # leave no empty reservation behind
                    raise
                return path
            temp.unlink()
            return path
        return None

    def save(self, snapshot: Snapshot) -> SaveResult:
        """Write ``snapshot`` atomically under a name no other save can take at the same moment.
        Never raises for a file-system problem: the result says it."""
        data = json.dumps(snapshot.to_json(), ensure_ascii=False, indent=1).encode("utf-8")
        temp: Path | None = None
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            fd, name = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=FILE_SUFFIX, dir=self.root)
            temp = Path(name)
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            final = self._publish(temp, snapshot)
            if final is None:
                return SaveResult(None, msg("history.error.no_free_name", dir=self.root))
            temp = None
            fsync_dir(self.root)
            return SaveResult(final)
        except OSError as exc:
            log.warning("history: cannot save a snapshot in %s: %s", self.root, exc)
            return SaveResult(None, msg("history.error.cannot_write", dir=self.root,
                                              error=exc.strerror or exc))
        finally:
            if temp is not None:
                temp.unlink(missing_ok=True)

    # --- reading -------------------------------------------------------------------------------
    def _read(self, path: Path) -> Snapshot | None:
        try:
            with open(path, "rb") as fh:
                data, cut = read_bounded(fh, MAX_FILE_BYTES)  # a device or a huge file costs only the cap
            if cut:
                raise ValueError("file too large")
            doc = loads_user_json(data)  # a 100,000-deep file is refused here, not by a RecursionError
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            self._warn(msg("history.warn.corrupt", file=path.name, error=_short(exc)))
            return None
        try:
            return Snapshot.from_json(doc)
        except SchemaError as exc:
            self._warn(msg("history.warn.foreign", file=path.name, error=str(exc)))
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            self._warn(msg("history.warn.corrupt", file=path.name, error=_short(exc)))
        return None

    def _warn(self, notice: Message) -> None:
        log.warning("history: %s", notice.text("en"))
        self.warnings.append(notice)

    def entries(self) -> list[HistoryEntry]:
        """Every readable snapshot, oldest first, numbered from 1; unreadable files are skipped."""
        self.warnings = []
        try:
            paths = sorted(p for p in self.root.iterdir()
                           if p.name.startswith(FILE_PREFIX) and p.name.endswith(FILE_SUFFIX) and p.is_file())
        except FileNotFoundError:
            return []
        except OSError as exc:
            self._warn(msg("history.warn.cannot_read", dir=self.root, error=exc.strerror or exc))
            return []
        loaded = [(p, s) for p in paths if (s := self._read(p)) is not None]
        far_past = _dt.datetime.min.replace(tzinfo=_dt.timezone.utc)
        loaded.sort(key=lambda ps: (_aware(ps[1].when) or far_past, _sequence(ps[0].name), ps[0].name))
        return [HistoryEntry(i, p, s) for i, (p, s) in enumerate(loaded, 1)]

    def get(self, number: int) -> HistoryEntry:
        """Entry ``number`` (1 = the oldest; -1 = the newest). Raises IndexError with a message."""
        entries = self.entries()
        if not entries:
            raise HistoryLookupError(msg("history.none"))
        if number == 0 or abs(number) > len(entries):
            raise HistoryLookupError(msg("history.index_out_of_range", number=number, count=len(entries)))
        return entries[number - 1] if number > 0 else entries[number]

    def last(self) -> HistoryEntry | None:
        entries = self.entries()
        return entries[-1] if entries else None


def _aware(when: _dt.datetime | None) -> _dt.datetime | None:
    if when is None:
        return None
    return when if when.tzinfo else when.replace(tzinfo=_dt.timezone.utc)


def _sequence(name: str) -> int:
    """'snapshot-20261129T100000Z-3.json' → 3 (the third save in that second); no suffix → 1."""
    stem = name[len(FILE_PREFIX):-len(FILE_SUFFIX)]
    tail = stem.rsplit("-", 1)
    return int(tail[1]) if len(tail) == 2 and tail[1].isdigit() else 1


def _short(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text if len(text) <= 200 else text[:199] + "…"


__all__ = [
    "SCHEMA",
    "SCHEMA_VERSION",
    "Snapshot",
    "GpuSummary",
    "FindingSummary",
    "BenchHeadline",
    "HistoryStore",
    "HistoryEntry",
    "SaveResult",
    "build_snapshot",
    "benchmark_headlines",
    "default_history_dir",
    "check_snapshot_schema",
]
