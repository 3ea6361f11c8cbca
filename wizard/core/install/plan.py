"""The exact set of files an install needs, known before a byte of it is downloaded.

Why resolve first: a CUDA PyTorch install is 2-4 GB. The student should see what will come
(packages, sizes, total) and whether the disk holds it before anything starts, and the
downloader needs exact URLs and hashes to fetch, resume and verify the files itself.

How: the target environment's own pip answers ``pip install --dry-run --ignore-installed
--report FILE`` against the chosen index. It evaluates markers for that interpreter, and
thanks to PEP 658 metadata files (download.pytorch.org, PyPI) it resolves without downloading
a wheel. ``--ignore-installed`` makes the report list every file of the full set, with exact
versions *including the local part* (``torch 2.13.0+cu126``): "already satisfied" is then
decided here by comparing exact versions with what is installed, because pip itself would call
an installed ``2.13.0+cpu`` a match for ``torch==2.13.0`` and keep the wrong build.

pip's configuration is isolated for these runs (``--isolated`` and ``PIP_CONFIG_FILE`` set to
the null device, :func:`pip_isolation_args`): a student's ``pip.conf`` or ``PIP_EXTRA_INDEX_URL``
could otherwise let PyPI's build win (the very thing ``--index-url`` is for). The network
settings given as ``PIP_PROXY``/``PIP_CERT``/``PIP_TRUSTED_HOST``/``PIP_TIMEOUT`` are passed on as
options, and ``HTTPS_PROXY``/``NO_PROXY`` keep working as they always do.
"""

from __future__ import annotations

import json
import os
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable, Mapping, Sequence
from urllib.parse import unquote, urlsplit

from packaging.utils import canonicalize_name

from wizard.core.base.host import Host, child_env
from wizard.core.base.i18n import Message, msg
from wizard.core.base.schema import check_schema, split_schema
from wizard.core.install.failure_kind import FailureKind, says_network

PLAN_SCHEMA = "gpu-setup-wizard/install-plan@1.0"
RESOLVE_TIMEOUT = 900.0  # a large resolution over a slow link; pip's own retries sit inside it
INSPECT_TIMEOUT = 120.0
HEAD_TIMEOUT = (5.0, 15.0)
# Network settings survive the isolation (as options); package-source settings do not.
_PIP_NETWORK_OPTIONS = (("PIP_PROXY", "--proxy"), ("PIP_CERT", "--cert"), ("PIP_CLIENT_CERT", "--client-cert"))
# An environment's own pip that may plan: one that resolves from PEP 658 metadata (23.3). An
# older one (Python 3.11's bundled 23.2.1) downloads every wheel in a dry run -- the install
# would fetch everything twice while reporting once -- so it is refused with the fix (issue 15).
MIN_PIP = (23, 3)
# The wizard's own pip drives the target (``--python``) from this version: it resolves from
# PEP 658 metadata without downloading the wheels (pip 23.2 still fetched them in a dry run).
# Declared as a dependency of the wizard (pyproject.toml), so an installed wizard always has it;
# ``uv pip install --dry-run`` is no substitute: it prints the versions it would install, but not
# the file URLs, sizes and hashes the downloader fetches and checks.
WIZARD_PIP_MIN = (23, 3)
WIZARD_PIP_REQUIREMENT = "pip>=23.3"

# Lists installed distributions as JSON; runs on Python 3.8+ in the target environment.
INSTALLED_SCRIPT = (
    "import json, sys\n"
    "from importlib import metadata as m\n"
    "out = {}\n"
    "for d in m.distributions():\n"
    "    name = d.metadata['Name']\n"
    "    if name: out[name] = d.version\n"
    "print(json.dumps({'gsw_installed': 1, 'python': '%d.%d.%d' % sys.version_info[:3], "
    "'prefix': sys.prefix, 'packages': out}))\n"
)


class PlanError(Exception):
    """Resolution failed. ``kind``: 'no-version', 'network', 'no-pip', 'old-pip', 'bad-report',
    'failed'. ``message`` says it in words; ``host`` names the server for network failures."""

    def __init__(self, kind: str, message: Message, detail: str = "", host: str | None = None,
                 output: str = "") -> None:
        super().__init__(message.text("en"))
        self.kind = kind
        self.message = message
        self.detail = detail
        self.host = host
        self.output = output  # the tool's whole output, where the classifier read it

    @property
    def failure_kind(self) -> FailureKind:
        """What the faces say about it (connection, no build, ...): the engine's reason, mapped once."""
        return FailureKind.of(self.kind)


@dataclass
class PlannedFile:
    """One distribution of the resolved set and the file that provides it."""

    name: str  # canonical project name ("torch")
    version: str  # exact, with the local part ("2.13.0+cu126")
    filename: str
    url: str
    sha256: str | None  # from the index; None when the index gives none
    size: int | None = None  # bytes; None until a HEAD (or the download) tells
    requested: bool = False  # named by the user (torch, torchvision), not a dependency
    satisfied: bool = False  # this exact version is already installed in the target
    installed_version: str | None = None  # what the target has now, when it has something

    @property
    def pin(self) -> str:
        return f"{self.name}=={self.version}"

    @property
    def host(self) -> str:
        return urlsplit(self.url).hostname or ""


@dataclass
class InstallPlan:
    """The resolved set for one environment. ``files`` holds every distribution; the ones
    not ``satisfied`` are what the install fetches and installs."""

    env_python: str
    requirements: list[str]
    index_url: str | None
    files: list[PlannedFile] = field(default_factory=list)
    python_version: str | None = None
    pip_version: str | None = None
    installed_before: dict[str, str] = field(default_factory=dict)

    @property
    def to_install(self) -> list[PlannedFile]:
        return [f for f in self.files if not f.satisfied]

    @property
    def already_satisfied(self) -> bool:
        return bool(self.files) and not self.to_install

    @property
    def total_bytes(self) -> int:
        """Known bytes to fetch (files with an unknown size count 0; see ``unknown_sizes``)."""
        return sum(f.size or 0 for f in self.to_install)

    @property
    def unknown_sizes(self) -> int:
        return sum(1 for f in self.to_install if f.size is None)

    def pins(self) -> list[str]:
        """Exact pins of what is to be installed, for ``--no-deps`` from the cache."""
        return [f.pin for f in self.to_install]

    def replaces(self) -> list[PlannedFile]:
        """Files that change a package the environment already has (another version/build)."""
        return [f for f in self.to_install if f.installed_version is not None]

    def summary_lines(self, lang: str | None) -> list[str]:
        from wizard.core.base.i18n import t

        lines = []
        for f in self.files:
            size = format_bytes(f.size) if f.size is not None else t("install.plan.size_unknown", lang)
            state = t("install.plan.satisfied", lang) if f.satisfied else size
            lines.append(f"  {f.name} {f.version}  {state}")
        lines.append(t("install.plan.total", lang, count=len(self.to_install), size=format_bytes(self.total_bytes)))
        return lines

    def to_json(self) -> dict[str, Any]:
        return {"schema": PLAN_SCHEMA, "env_python": self.env_python, "requirements": list(self.requirements),
                "index_url": self.index_url, "python_version": self.python_version, "pip_version": self.pip_version,
                "already_satisfied": self.already_satisfied, "total_bytes": self.total_bytes,
                "unknown_sizes": self.unknown_sizes, "installed_before": dict(self.installed_before),
                "files": [asdict(f) for f in self.files]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "InstallPlan":
        check_schema(data, *split_schema(PLAN_SCHEMA))  # a SchemaError is a ValueError
        files = [PlannedFile(**{k: v for k, v in f.items() if k in PlannedFile.__dataclass_fields__})
                 for f in data.get("files", [])]
        return cls(env_python=data["env_python"], requirements=list(data.get("requirements", [])),
                   index_url=data.get("index_url"), files=files, python_version=data.get("python_version"),
                   pip_version=data.get("pip_version"), installed_before=dict(data.get("installed_before", {})))


# --------------------------------------------------------------------------------------------
# Commands
# --------------------------------------------------------------------------------------------
def pip_child_env(base: Mapping[str, str] | None = None, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for the wizard's pip runs: UTF-8, no version check, no prompts, no
    configuration file, and none of the bundle's own Python paths."""
    env = child_env(base)
    for name in ("PYTHONHOME", "PYTHONPATH", "PYTHONSTARTUP"):
        env.pop(name, None)  # a bundle's own paths must not leak into the student's Python
    env.update(PIP_ENV)
    if extra:
        env.update(extra)
    return env


PIP_ENV = {"PIP_CONFIG_FILE": os.devnull, "PIP_NO_INPUT": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1",
           "PYTHONUNBUFFERED": "1"}  # lines arrive as they are printed, not when a pipe buffer fills


def pip_isolation_args(environ: Mapping[str, str] | None = None) -> list[str]:
    """``--isolated`` (no ``PIP_*`` variables, no user config) plus the network settings the
    student set as variables, passed on as options."""
    env = os.environ if environ is None else environ
    args = ["--isolated"]
    for var, option in _PIP_NETWORK_OPTIONS:
        if env.get(var):
            args += [option, env[var]]
    for host in (env.get("PIP_TRUSTED_HOST") or "").split():
        args += ["--trusted-host", host]
    return args


def wizard_pip(pip_init: str | None = None) -> list[str] | None:
    """``[<the wizard's python>, -m, pip]`` when the wizard runs from a Python whose pip can
    drive another interpreter (``--python``, pip >= 22.3) and resolves from metadata alone
    (pip >= 23.3: older ones download every wheel even in a dry run -- 2.5 GB for a plan).
    None in a frozen bundle or without such a pip. ``pip_init``: the ``pip/__init__.py`` to
    read the version from (default: the one this Python imports)."""
    if getattr(sys, "frozen", False):
        return None
    if pip_init is None:
        import importlib.util

        spec = importlib.util.find_spec("pip")
        if spec is None or not spec.origin:
            return None
        pip_init = spec.origin
    version = _read_pip_version(pip_init)
    if version is None or version < WIZARD_PIP_MIN:
        return None
    return [sys.executable, "-m", "pip"]


def _read_pip_version(init_path: str) -> tuple[int, ...] | None:
    """pip's ``__version__`` read from its ``__init__.py`` (no import: importing pip is slow)."""
    try:
        with open(init_path, encoding="utf-8") as fh:
            text = fh.read(4000)
    except OSError:
        return None
    m = re.search(r"__version__\s*=\s*[\"'](\d+)\.(\d+)", text)
    return (int(m.group(1)), int(m.group(2))) if m else None


PIP_WHEEL_ENV = "GSW_PIP_WHEEL"


def bundled_pip_wheel() -> str | None:
    """A pip wheel shipped with a frozen wizard (``resources/pip/pip-*.whl``, or the file named
    by ``GSW_PIP_WHEEL``): any interpreter runs pip straight from it (``python pip.whl/pip``),
    so a bundle resolves with a current pip even where the environment's own is old."""
    named = os.environ.get(PIP_WHEEL_ENV)
    if named:
        return named if os.path.isfile(named) else None
    try:
        from wizard.core.base.resources import resource_path

        folder = resource_path("pip")
    except (OSError, RuntimeError):
        return None
    wheels = sorted(folder.glob("pip-*.whl")) if folder.is_dir() else []
    return str(wheels[-1]) if wheels else None


def pip_command(env_python: str, mode: str = "auto", python_version: str | None = None) -> list[str]:
    """How to run pip for ``env_python``, best first: the wizard's own pip driving it with
    ``--python`` (``mode`` 'auto'/'wizard'; target Python >= 3.9); a bundled pip wheel run by the
    target (``mode`` 'auto'/'bundled'); the target's own pip (``mode`` 'target', and the rest)."""
    too_old = python_version is not None and _version_tuple(python_version) < (3, 9)
    if mode in ("auto", "wizard") and not too_old:
        mine = wizard_pip()
        if mine is not None:
            return [*mine, "--python", env_python]
    if mode in ("auto", "bundled") and not too_old:
        wheel = bundled_pip_wheel()
        if wheel is not None:
            return [env_python, os.path.join(wheel, "pip")]
    return [env_python, "-m", "pip"]


def _version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", text)[:2])


def pip_argv(pip_cmd: Sequence[str], *args: str, environ: Mapping[str, str] | None = None) -> list[str]:
    """``<pip command> --isolated --disable-pip-version-check [network options] <args>``.
    (``--isolated`` ignores ``PIP_*`` variables, so the version check is switched off here.)"""
    return [*pip_cmd, *pip_isolation_args(environ), "--disable-pip-version-check", *args]


def resolve_argv(pip_cmd: Sequence[str], requirements: Sequence[str], index_url: str | None, report_path: str,
                 extra_index_urls: Sequence[str] = (), only_binary: bool = True,
                 retries: int = 2, timeout_s: int = 30, extra_args: Sequence[str] = ()) -> list[str]:
    """``<python> -m pip install --dry-run --ignore-installed --report FILE ...``.

    ``only_binary``: wheels only, so resolving never builds a source distribution (and the
    offline install never needs a compiler).
    """
    argv = pip_argv(pip_cmd, "install", "--dry-run", "--ignore-installed", "--report", report_path,
                    "--no-input", "--progress-bar", "off", "--retries", str(retries), "--timeout", str(timeout_s))
    argv += index_args(index_url, extra_index_urls, only_binary)
    from wizard.core.install.requirements import checked_requirements

    return argv + list(extra_args) + checked_requirements(requirements)  # the one install rule (a guard)


def index_args(index_url: str | None, extra_index_urls: Sequence[str] = (), only_binary: bool = True) -> list[str]:
    """Where to look and what to take, in the words pip and ``uv pip`` share: ``--index-url``,
    each ``--extra-index-url``, ``--only-binary :all:`` (one place, so both resolvers see the
    same indexes)."""
    args: list[str] = ["--index-url", index_url] if index_url else []
    for url in extra_index_urls:
        args += ["--extra-index-url", url]
    if only_binary:
        args += ["--only-binary", ":all:"]
    return args


def installed_argv(env_python: str) -> list[str]:
    return [env_python, "-I", "-c", INSTALLED_SCRIPT]


def pip_version_argv(pip_cmd: Sequence[str]) -> list[str]:
    return [*pip_cmd, "--isolated", "--version"]


# --------------------------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------------------------
def parse_pip_report(text: str) -> tuple[list[PlannedFile], dict[str, Any]]:
    """pip's installation report (format version 1) → planned files and the report's
    ``environment`` markers. Raises :class:`PlanError` ('bad-report') on anything else."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise PlanError("bad-report", msg("install.plan.error.bad_report", detail=str(exc)), str(exc)) from exc
    if not isinstance(data, dict) or not isinstance(data.get("install"), list):
        raise PlanError("bad-report", msg("install.plan.error.bad_report", detail="no 'install' list"))
    version = str(data.get("version", ""))
    if version.split(".")[0] != "1":
        raise PlanError("bad-report", msg("install.plan.error.bad_report", detail=f"report version {version!r}"))
    files: list[PlannedFile] = []
    for item in data["install"]:
        meta = item.get("metadata") or {}
        info = item.get("download_info") or {}
        url = info.get("url")
        if not url or not meta.get("name") or not meta.get("version"):
            raise PlanError("bad-report", msg("install.plan.error.bad_report",
                                              detail=f"incomplete entry {item!r:.200}"))
        archive = info.get("archive_info") or {}
        sha = (archive.get("hashes") or {}).get("sha256")
        if not sha and isinstance(archive.get("hash"), str) and archive["hash"].startswith("sha256="):
            sha = archive["hash"].split("=", 1)[1]
        filename = urlsplit(url).path.rsplit("/", 1)[-1]
        files.append(PlannedFile(name=canonicalize_name(meta["name"]), version=str(meta["version"]),
                                 filename=unquote(filename), url=url, sha256=sha.lower() if sha else None,
                                 requested=bool(item.get("requested"))))
    return files, dict(data.get("environment") or {})


def parse_installed(text: str) -> tuple[dict[str, str], str | None]:
    """Output of :data:`INSTALLED_SCRIPT` → ({canonical name: version}, python version)."""
    for line in reversed((text or "").splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                data = json.loads(line)
            except ValueError:
                continue
            if isinstance(data, dict) and data.get("gsw_installed") == 1:
                pkgs: dict[str, str] = {canonicalize_name(k): str(v) for k, v in (data.get("packages") or {}).items()}
                return pkgs, data.get("python")
    raise ValueError("no package list in the output")


def parse_pip_version(text: str) -> tuple[int, ...] | None:
    """'pip 23.2.1 from ... (python 3.11)' → (23, 2, 1)."""
    m = re.search(r"\bpip (\d+)\.(\d+)(?:\.(\d+))?", text or "")
    if not m:
        return None
    return tuple(int(x) for x in m.groups() if x is not None)


def mark_satisfied(files: Iterable[PlannedFile], installed: Mapping[str, str]) -> None:
    """Set ``satisfied``/``installed_version``: satisfied only by the *exact* version string."""
    from packaging.version import InvalidVersion, Version

    for f in files:
        have = installed.get(f.name)
        f.installed_version = have
        if have is None:
            f.satisfied = False
            continue
        try:
            f.satisfied = Version(have) == Version(f.version) and Version(have).local == Version(f.version).local
        except InvalidVersion:
            f.satisfied = have == f.version


_HOST_IN_ERROR = re.compile(r"(?:host='([^']+)'|https?://([^/:\s'\"]+))")


def classify_pip_failure(output: str, index_url: str | None) -> PlanError:
    """What a failed resolution means, from pip's own words (its last ERROR lines)."""
    err = _classify_pip(output or "", index_url)
    err.output = output or ""
    return err


def missing_file_error(text: str, detail: str) -> PlanError | None:
    """The resolver was answered 404/403/410 for a file the index lists (uv and pip read a wheel
    for its metadata when the index gives none): the file is missing, not the connection."""
    from urllib.parse import unquote

    from wizard.core.install.failure_kind import missing_file_in_output

    found = missing_file_in_output(text)
    if found is None:
        return None
    status, url = found
    host = urlsplit(url).hostname or "?"
    name = unquote(url.rstrip("/").rsplit("/", 1)[-1])
    said = msg("install.plan.error.missing_file", host=host, status=status, file=name)
    return PlanError("missing-file", said, detail, host)


def _classify_pip(text: str, index_url: str | None) -> PlanError:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    errors = [ln for ln in lines if ln.startswith("ERROR:")]
    detail = errors[-1] if errors else (lines[-1] if lines else "")
    index_host = urlsplit(index_url).hostname if index_url else None
    network = says_network(text)  # the one list of the tools' words (failure_kind)
    if "No module named pip" in text:
        return PlanError("no-pip", msg("install.plan.error.no_pip"), detail)
    missing = missing_file_error(text, detail)
    if missing is not None:
        return missing
    if "no such option: --dry-run" in text or "no such option: --report" in text:
        return PlanError("old-pip", msg("install.plan.error.old_pip"), detail)
    if "Could not find a version that satisfies" in text or "No matching distribution found" in text:
        if network:
            host = _first_host(text) or index_host
            return PlanError("network", msg("install.error.network", host=host or "?", detail=detail), detail, host)
        return PlanError("no-version", msg("install.plan.error.no_version", detail=detail, index=index_url or "PyPI"),
                         detail)
    if network:
        host = _first_host(text) or index_host
        return PlanError("network", msg("install.error.network", host=host or "?", detail=detail), detail, host)
    return PlanError("failed", msg("install.plan.error.failed", detail=detail), detail)


def _first_host(text: str) -> str | None:
    for m in _HOST_IN_ERROR.finditer(text):
        host = m.group(1) or m.group(2)
        if host:
            return host
    return None


# --------------------------------------------------------------------------------------------
# Sizes
# --------------------------------------------------------------------------------------------
def fill_sizes(files: Sequence[PlannedFile], session: Any = None, parallel: int = 8,
               timeout: tuple[float, float] = HEAD_TIMEOUT, proxy: Mapping[str, str] | str | None = None) -> None:
    """Ask the server for each file's size (``HEAD``; Content-Length) where it is unknown.

    PEP 503 pages carry no sizes; a HEAD per file costs a round trip, done several at once.
    A server that does not answer leaves the size unknown (the plan says so; the download
    learns it). Local ``file:`` URLs are measured on disk. ``proxy``: the one typed in the window
    (the download's); the session is the wizard's (:mod:`wizard.core.base.http`) unless given.
    """
    import requests

    from wizard.core.base.http import http_session, set_proxy

    sess = session or http_session(timeout=timeout)
    if proxy:
        set_proxy(sess, proxy)
    todo = [f for f in files if f.size is None and not f.satisfied]

    def one(f: PlannedFile) -> None:
        parts = urlsplit(f.url)
        if parts.scheme == "file":
            from urllib.request import url2pathname

            try:
                f.size = os.path.getsize(url2pathname(parts.path))
            except OSError:
                f.size = None
            return
        try:
            resp = sess.head(f.url, allow_redirects=True, timeout=timeout)
        except requests.RequestException:
            return
        if resp.ok and resp.headers.get("Content-Length", "").isdigit():
            f.size = int(resp.headers["Content-Length"])

    if not todo:
        return
    with ThreadPoolExecutor(max_workers=max(1, min(parallel, len(todo)))) as pool:
        list(pool.map(one, todo))


# --------------------------------------------------------------------------------------------
# One call for callers that do not stream (tests, scripts)
# --------------------------------------------------------------------------------------------
def inspect_installed(host: Host, env_python: str,
                      timeout: float = INSPECT_TIMEOUT) -> tuple[dict[str, str], str | None]:
    """What the target environment has installed (name → version) and its Python version."""
    res = host.run(installed_argv(env_python), timeout=timeout)
    if not res.ok:
        raise PlanError("failed", msg("install.plan.error.inspect", python=env_python,
                                      detail=(res.stderr or res.error or "").strip()[-300:]))
    return parse_installed(res.stdout)


def format_bytes(n: int | float | None) -> str:
    """1536 → '1.5 KB'; decimal units, as download sizes are usually shown."""
    if n is None:
        return "?"
    value = float(n)
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if abs(value) < 1000 or unit == "TB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} TB"


__all__ = [
    "InstallPlan", "PLAN_SCHEMA", "PlanError", "PlannedFile", "classify_pip_failure", "fill_sizes", "format_bytes",
    "index_args", "inspect_installed", "installed_argv", "mark_satisfied", "parse_installed", "parse_pip_report",
    "parse_pip_version", "pip_argv", "pip_child_env", "pip_command", "pip_isolation_args", "pip_version_argv",
    "bundled_pip_wheel", "resolve_argv", "wizard_pip", "WIZARD_PIP_MIN", "WIZARD_PIP_REQUIREMENT",
]
