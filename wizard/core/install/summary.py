"""A finished install, typed: what the session keeps, the history saves and the report reads.

:meth:`wizard.core.install.job.InstallJob.summary` prints the same facts as the command line's
JSON document (schema ``gpu-setup-wizard/install@1.0``); :meth:`InstallSummary.from_json` is the
one place that document becomes typed again, so everything after the install reads fields
(``summary.env_python``), never string keys that a typo turns into ``None``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping


@dataclass(frozen=True)
class InstalledPackage:
    name: str
    version: str


@dataclass(frozen=True)
class InstallFailure:
    """Why an install stopped: the step, the reason's kind, the message in the install's language."""

    step: str | None = None
    kind: str | None = None
    message: str | None = None
    host: str | None = None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


@dataclass(frozen=True)
class InstallSummary:
    ok: bool = False
    status: str | None = None
    env_python: str | None = None
    env_path: str | None = None
    target_kind: str | None = None  # "new-venv", "existing-venv", "new-conda", ...
    requirements: tuple[str, ...] = ()
    index_url: str | None = None
    extras_index: str | None = None  # a course's extras' source, asked after index_url
    installer: str | None = None
    pip: str | None = None
    already_satisfied: bool = False
    installed: tuple[InstalledPackage, ...] = ()
    imports: Mapping[str, str] = field(default_factory=dict)
    downloaded_bytes: int = 0
    from_cache_bytes: int = 0
    resumed_bytes: int = 0
    planned_bytes: int = 0
    cache_dir: str | None = None
    elapsed_s: float = 0.0
    steps_run: tuple[str, ...] = ()
    error: InstallFailure | None = None
    recovery: tuple[str, ...] = ()

    def version_of(self, name: str) -> str | None:
        """The installed version of ``name`` (case-insensitive), or None."""
        wanted = name.lower()
        return next((p.version for p in self.installed if p.name.lower() == wanted), None)

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> "InstallSummary":
        """The install document (``InstallJob.summary()``, or one read back) as typed facts;
        anything of the wrong type reads as absent, never as a crash."""
        error = doc.get("error")
        installed = tuple(InstalledPackage(str(p.get("name") or ""), str(p.get("version") or ""))
                          for p in doc.get("installed") or [] if isinstance(p, Mapping) and p.get("name"))
        imports = doc.get("imports")
        elapsed = doc.get("elapsed_s")
        return cls(
            ok=doc.get("ok") is True, status=_text(doc.get("status")), env_python=_text(doc.get("env_python")),
            env_path=_text(doc.get("env_path")), target_kind=_text(doc.get("target_kind")),
            requirements=tuple(str(r) for r in doc.get("requirements") or [] if r),
            index_url=_text(doc.get("index_url")), extras_index=_text(doc.get("extras_index")),
            installer=_text(doc.get("installer")), pip=_text(doc.get("pip")),
            already_satisfied=doc.get("already_satisfied") is True, installed=installed,
            imports={str(k): str(v) for k, v in imports.items()} if isinstance(imports, Mapping) else {},
            downloaded_bytes=_int(doc.get("downloaded_bytes")), from_cache_bytes=_int(doc.get("from_cache_bytes")),
            resumed_bytes=_int(doc.get("resumed_bytes")), planned_bytes=_int(doc.get("planned_bytes")),
            cache_dir=_text(doc.get("cache_dir")),
            elapsed_s=float(elapsed) if isinstance(elapsed, (int, float)) and not isinstance(elapsed, bool) else 0.0,
            steps_run=tuple(str(s) for s in doc.get("steps_run") or []),
            error=InstallFailure(_text(error.get("step")), _text(error.get("kind")), _text(error.get("message")),
                                 _text(error.get("host"))) if isinstance(error, Mapping) else None,
            recovery=tuple(str(r) for r in doc.get("recovery") or []))
