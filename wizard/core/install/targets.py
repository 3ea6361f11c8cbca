"""Where PyTorch goes: the target environment, the commands that make it, and the checks first.

Four kinds of target, as students have them: a new venv (made from an interpreter the
detection found, or by uv), an existing venv, a new conda env (``conda create -n NAME
python=X.Y``) and an existing conda env -- plus an interpreter's own environment (a python.org
install on Windows), which is allowed but never silently. A new Windows PC often has no Python
at all: then uv, shipped with the wizard (the ``uv`` package's binary), installs a managed
CPython of the version the recommendation needs (``uv python install``); :func:`uv_python_download`
says what it will download and from where before it starts, and ``UV_PYTHON_INSTALL_MIRROR``
points it at a mirror.

Checks before starting (:func:`preflight`), each a :class:`Check` with words in Korean and
English: free space against the download plus the unpacked size, a writable location, the
Windows path-length limit (torch has files 170 characters deep), conda's name rules, a new
location that is empty. Hangul and spaces in paths are fine and are not flagged. Three targets
are refused unless the user confirms explicitly (a dialog in the GUI, ``--yes`` in the CLI):
the wizard's own runtime, an "externally managed" (PEP 668) system Python, and conda's base.

The wizard marks an environment it creates with :data:`INCOMPLETE_MARKER` until the install
finishes (see :mod:`wizard.core.install.recovery`), so a half-made environment is never mistaken for
a good one -- by the wizard or by a student opening the folder.
"""

from __future__ import annotations

import json
import ntpath
import os
import posixpath
import re
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable, Iterable, Mapping, Sequence
from urllib.parse import urlsplit

from wizard.core.base.host import Host
from wizard.core.machine.models import CondaEnv, CondaInstall, PythonInterpreter
from wizard.core.recommend.recommender import Message, msg
from wizard.core.machine.system import default_env_root, parse_reg_value

KIND_NEW_VENV = "new-venv"
KIND_EXISTING_VENV = "existing-venv"
KIND_NEW_CONDA = "new-conda"
KIND_EXISTING_CONDA = "existing-conda"
KIND_EXISTING_PYTHON = "existing-python"  # an interpreter's own environment (python.org install)
KINDS = (KIND_NEW_VENV, KIND_EXISTING_VENV, KIND_NEW_CONDA, KIND_EXISTING_CONDA, KIND_EXISTING_PYTHON)

CREATOR_VENV = "venv"
CREATOR_UV = "uv"
CREATOR_CONDA = "conda"

INCOMPLETE_MARKER = ".gpu-setup-wizard-incomplete"
MARKER_SCHEMA = "gpu-setup-wizard/incomplete@1.0"

# Windows MAX_PATH is 260 characters including the drive and the terminating NUL.
WINDOWS_MAX_PATH = 259
# The deepest file in a torch wheel, below site-packages: 171 characters, measured on
# torch-2.13.0+cpu (cp311, manylinux_2_28_x86_64): a dist-info license file under
# licenses/third_party/kineto/.../duktape-1.5.2/LICENSE.txt. Windows wheels carry the same tree.
TORCH_DEEPEST_MEMBER = 171
SITE_PACKAGES_WINDOWS = "\\Lib\\site-packages\\"
LONG_PATHS_KEY = r"HKLM\SYSTEM\CurrentControlSet\Control\FileSystem"

# Unpacked size over download size. Measured: torch-2.13.0+cpu wheel 191.8 MB -> 699.3 MB
# unpacked (3.65x, from its zip directory); a CUDA torch 2.14.1 + torchvision environment is
# ~5.6 GB for ~3 GB of wheels (~1.9x). The plan uses this before the download; after it the
# exact unpacked size is read from the wheels' zip directories (:func:`unpacked_size`).
UNPACK_FACTOR = 2.0
NEW_VENV_BYTES = 30 * 1000 * 1000  # an empty venv with pip
NEW_CONDA_BYTES = 250 * 1000 * 1000  # python and its conda dependencies, plus conda's package cache
SPACE_MARGIN_BYTES = 200 * 1000 * 1000

# conda: ``PREFIX_NAME_DISALLOWED_CHARS`` in conda/base/constants.py, and the reserved names.
CONDA_NAME_DISALLOWED = ("/", " ", ":", "#")
CONDA_RESERVED_NAMES = ("base", "root")

COMMAND_TIMEOUT = 60.0
CONDA_CREATE_TIMEOUT = 1800.0
UV_PYTHON_INSTALL_TIMEOUT = 1800.0


# --------------------------------------------------------------------------------------------
# Targets
# --------------------------------------------------------------------------------------------
def _paths_for(os_name: str):
    return ntpath if os_name == "windows" else posixpath


def _current_os() -> str:
    if sys.platform.startswith("win"):
        return "windows"
    return "macos" if sys.platform == "darwin" else "linux"


@dataclass
class EnvTarget:
    """One environment to install into. ``path`` is the venv folder or the conda prefix (for a
    new conda env: where conda is expected to put it; the create step reads the real one).
    ``base_python``: the interpreter a new venv is made from (or the version uv should use).
    ``python_version``: "3.12" for a new conda env or a uv-managed interpreter."""

    kind: str
    path: str
    name: str | None = None
    base_python: str | None = None
    python_version: str | None = None
    creator: str | None = None  # venv | uv | conda for new environments
    conda_exe: str | None = None
    uv_exe: str | None = None
    os_name: str = field(default_factory=_current_os)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown target kind {self.kind!r}")

    @property
    def creates_env(self) -> bool:
        return self.kind in (KIND_NEW_VENV, KIND_NEW_CONDA)

    @property
    def is_conda(self) -> bool:
        return self.kind in (KIND_NEW_CONDA, KIND_EXISTING_CONDA)

    @property
    def python_exe(self) -> str:
        """The environment's interpreter (it may not exist yet)."""
        if self.kind == KIND_EXISTING_PYTHON:
            return self.base_python or self.path
        paths = _paths_for(self.os_name)
        if self.os_name == "windows":
            return paths.join(self.path, "python.exe") if self.is_conda else paths.join(self.path, "Scripts",
                                                                                        "python.exe")
        return paths.join(self.path, "bin", "python")

    @property
    def site_packages_hint(self) -> str:
        """Where packages land (for the path-length check); exact on Windows, indicative elsewhere."""
        paths = _paths_for(self.os_name)
        if self.os_name == "windows":
            return paths.join(self.path, "Lib", "site-packages")
        return paths.join(self.path, "lib", f"python{self.python_version or '3'}", "site-packages")

    def label(self, lang: str | None = None) -> str:
        """'new venv at ...' / 'conda env dl' for the page and the log."""
        from wizard.core.base.i18n import t

        if self.is_conda:
            return t(f"install.target.{self.kind}", lang, name=self.name or self.path, path=self.path)
        return t(f"install.target.{self.kind}", lang, name=self.name or "", path=self.path)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "EnvTarget":
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)


def new_venv(path: str, base_python: str, os_name: str | None = None) -> EnvTarget:
    """A new venv made with ``<base_python> -m venv PATH`` (bundled pip, works offline)."""
    return EnvTarget(KIND_NEW_VENV, path, base_python=base_python, creator=CREATOR_VENV,
                     os_name=os_name or _current_os())


def new_uv_venv(path: str, python: str, uv_exe: str | None = None, os_name: str | None = None) -> EnvTarget:
    """A new venv made by ``uv venv --python PYTHON``; ``python`` is an interpreter path or a
    version ("3.12") that uv finds among its managed interpreters (after ``uv python install``)."""
    is_version = bool(re.fullmatch(r"\d+\.\d+(\.\d+)?", python))
    return EnvTarget(KIND_NEW_VENV, path, base_python=None if is_version else python,
                     python_version=python if is_version else None, creator=CREATOR_UV,
                     uv_exe=uv_exe or find_uv(), os_name=os_name or _current_os())


def existing_venv(path: str, os_name: str | None = None) -> EnvTarget:
    return EnvTarget(KIND_EXISTING_VENV, path, os_name=os_name or _current_os())


def existing_python(python_exe: str, os_name: str | None = None) -> EnvTarget:
    """The environment of an interpreter itself (not a venv): allowed, checked for PEP 668."""
    return EnvTarget(KIND_EXISTING_PYTHON, python_exe, base_python=python_exe, os_name=os_name or _current_os())


def new_conda_env(name: str, python_version: str, conda: CondaInstall, os_name: str | None = None) -> EnvTarget:
    """A new named conda env; its expected prefix is ``<base>/envs/<name>``."""
    os_name = os_name or _current_os()
    paths = _paths_for(os_name)
    base = conda.base_prefix or ""
    prefix = paths.join(base, "envs", name) if base else ""
    return EnvTarget(KIND_NEW_CONDA, prefix, name=name, python_version=python_version, creator=CREATOR_CONDA,
                     conda_exe=conda.exe, os_name=os_name)


def existing_conda_env(env: CondaEnv, conda: CondaInstall | None = None, os_name: str | None = None) -> EnvTarget:
    return EnvTarget(KIND_EXISTING_CONDA, env.prefix, name=env.name, conda_exe=conda.exe if conda else None,
                     os_name=os_name or _current_os())


def existing_targets(pythons: Iterable[PythonInterpreter], condas: Iterable[CondaInstall],
                     os_name: str | None = None, extra_roots: Iterable[str] = ()) -> list[EnvTarget]:
    """The environments a student already has, for the Environment page's list: the venvs
    among the detected interpreters, every conda env, and the venvs in ``extra_roots`` (the
    wizard's own folder, :func:`wizard.core.machine.system.default_env_root`). No duplicates."""
    os_name = os_name or _current_os()
    paths = _paths_for(os_name)
    found: list[EnvTarget] = []
    seen: set[str] = set()

    def add(target: EnvTarget) -> None:
        key = _norm(target.path, os_name)
        if key not in seen:
            seen.add(key)
            found.append(target)

    for interp in pythons:
        if interp.is_venv and not interp.error:
            folder = paths.dirname(interp.path)
            if paths.basename(folder).lower() in ("bin", "scripts"):
                add(existing_venv(paths.dirname(folder), os_name=os_name))
    for conda in condas:
        for env in conda.envs:
            add(existing_conda_env(env, conda, os_name=os_name))
    for root in extra_roots:
        try:
            names = sorted(os.listdir(root))
        except OSError:
            continue
        for name in names:
            folder = paths.join(root, name)
            if os.path.isfile(os.path.join(folder, "pyvenv.cfg")):
                add(existing_venv(folder, os_name=os_name))
    return found


def default_venv_path(host: Host, name: str) -> str:
    """``<home>/GPU-Setup-Wizard/envs/<name>`` (the product folder under the user's home)."""
    from wizard.core.machine.system import host_paths

    return host_paths(host).join(default_env_root(host), name)


def find_uv() -> str | None:
    """The uv binary shipped with the wizard: ``GSW_UV`` when set, next to the executable of a
    frozen bundle, the ``uv`` package's binary (``find_uv_bin()``); else one on PATH."""
    named = os.environ.get("GSW_UV")
    if named and os.path.isfile(named):
        return named
    if getattr(sys, "frozen", False):
        beside = os.path.join(os.path.dirname(sys.executable), "uv.exe" if os.name == "nt" else "uv")
        if os.path.isfile(beside):
            return beside
    try:
        from uv import find_uv_bin  # type: ignore[import-not-found]
    except ImportError:
        find_uv_bin = None
    if find_uv_bin is not None:
        try:
            return os.fspath(find_uv_bin())
        except FileNotFoundError:
            pass
    import shutil

    return shutil.which("uv")


# --------------------------------------------------------------------------------------------
# Commands (argv lists; the runner adds the UTF-8 environment)
# --------------------------------------------------------------------------------------------
def create_argvs(target: EnvTarget) -> list[list[str]]:
    """The commands that create the environment, in order (empty for an existing one)."""
    if not target.creates_env:
        return []
    if target.creator == CREATOR_CONDA:
        if not target.conda_exe or not target.name or not target.python_version:
            raise ValueError("a new conda env needs conda, a name and a Python version")
        return [conda_create_argv(target.conda_exe, target.name, target.python_version)]
    if target.creator == CREATOR_UV:
        uv = target.uv_exe or "uv"
        python = target.base_python or target.python_version
        if not python:
            raise ValueError("uv venv needs an interpreter or a version")
        # no --seed: that would fetch pip from PyPI; ensurepip installs the bundled one offline
        # --allow-existing: the folder already holds the wizard's incomplete marker
        return [[uv, "venv", "--no-config", "--allow-existing", "--python", python, target.path],
                [target.python_exe, "-m", "ensurepip", "--default-pip"]]
    if not target.base_python:
        raise ValueError("a new venv needs the interpreter to make it from")
    return [[target.base_python, "-m", "venv", target.path]]


def conda_create_argv(conda_exe: str, name: str, python_version: str) -> list[str]:
    """``conda create -n NAME python=X.Y -y``: PyTorch comes with pip afterwards, as the
    PyTorch docs advise since their conda channel stopped at 2.5."""
    return [conda_exe, "create", "-n", name, f"python={python_version}", "-y"]


def conda_remove_argv(conda_exe: str, prefix: str) -> list[str]:
    return [conda_exe, "env", "remove", "-p", prefix, "-y"]


def conda_env_list_argv(conda_exe: str) -> list[str]:
    return [conda_exe, "env", "list", "--json"]


def uv_python_install_argv(uv_exe: str, version: str, install_dir: str | None = None,
                           mirror: str | None = None) -> list[str]:
    """``uv python install X.Y`` (a managed CPython). A mirror can also come from the
    ``UV_PYTHON_INSTALL_MIRROR`` variable, which uv reads itself."""
    argv = [uv_exe, "python", "install", version]
    if install_dir:
        argv += ["--install-dir", install_dir]
    if mirror:
        argv += ["--mirror", mirror]
    return argv


def uv_python_find_argv(uv_exe: str, version: str) -> list[str]:
    return [uv_exe, "python", "find", "--managed-python", version]


def uv_python_downloads_argv(uv_exe: str, version: str) -> list[str]:
    return [uv_exe, "python", "list", version, "--only-downloads", "--output-format", "json"]


def uv_python_dir_argv(uv_exe: str) -> list[str]:
    return [uv_exe, "python", "dir"]


def describe_uv_python_download(host: Host, uv_exe: str, version: str,
                                mirror: str | None = None) -> tuple[UvPythonDownload | None, str | None]:
    """What ``uv python install VERSION`` would download, and the folder it installs into,
    for the page to say before it starts. (None, None) parts where uv cannot tell."""
    env = uv_env(mirror)
    listing = host.run(uv_python_downloads_argv(uv_exe, version), timeout=COMMAND_TIMEOUT, env=env)
    downloads = parse_uv_python_downloads(listing.stdout) if listing.ok else []
    folder = host.run(uv_python_dir_argv(uv_exe), timeout=COMMAND_TIMEOUT, env=env)
    lines = [ln.strip() for ln in (folder.stdout or "").splitlines() if ln.strip()] if folder.ok else []
    return (downloads[0] if downloads else None), (lines[-1] if lines else None)


def uv_env(mirror: str | None = None, install_dir: str | None = None) -> dict[str, str]:
    """Variables for a uv child: the mirror and install folder settings, when given."""
    env: dict[str, str] = {}
    if mirror:
        env["UV_PYTHON_INSTALL_MIRROR"] = mirror
    if install_dir:
        env["UV_PYTHON_INSTALL_DIR"] = install_dir
    return env


# --------------------------------------------------------------------------------------------
# Parsing tool output
# --------------------------------------------------------------------------------------------
@dataclass
class UvPythonDownload:
    key: str  # "cpython-3.12.16-linux-x86_64-gnu"
    version: str
    url: str

    @property
    def host(self) -> str:
        return urlsplit(self.url).hostname or ""


def parse_uv_python_downloads(text: str, implementation: str = "cpython") -> list[UvPythonDownload]:
    """``uv python list X.Y --only-downloads --output-format json`` → the downloads uv would use
    (the URL already reflects ``UV_PYTHON_INSTALL_MIRROR``)."""
    try:
        data = json.loads(text or "")
    except ValueError:
        return []
    out = []
    for item in data if isinstance(data, list) else []:
        if not isinstance(item, dict) or item.get("implementation") != implementation or not item.get("url"):
            continue
        if item.get("path"):  # already installed
            continue
        out.append(UvPythonDownload(str(item.get("key", "")), str(item.get("version", "")), str(item["url"])))
    return out


@dataclass
class ToolFailure:
    """Why a uv or conda command failed, in a form the page can act on.

    ``kind``: offline (no DNS / no route), refused (nothing listens: a wrong mirror or proxy),
    http (the server said no: ``status``), not-found (no such Python version / package),
    exists (a conda env of that name), tos (conda channel Terms of Service not accepted),
    other. ``host`` and ``url`` name the server where the output does.
    """

    kind: str
    message: Message
    host: str | None = None
    url: str | None = None
    status: int | None = None
    detail: str = ""


_URL = re.compile(r"https?://[^\s`'\"<>)]+")


def parse_uv_failure(text: str) -> ToolFailure:
    """uv's error chain (``error: ...`` then ``cause: ...`` lines) → a :class:`ToolFailure`."""
    body = text or ""
    urls = _URL.findall(body)
    url = urls[0].rstrip(".,") if urls else None
    host = urlsplit(url).hostname if url else None
    lines = [ln.strip() for ln in body.splitlines() if ln.strip()]
    detail = lines[-1] if lines else ""
    low = body.lower()
    if "no download found for request" in low:
        m = re.search(r"No download found for request:\s*(\S+)", body)
        return ToolFailure("not-found", msg("install.uv.no_download", request=m.group(1) if m else "?"), detail=detail)
    if "dns error" in low or "failed to lookup address" in low or "name or service not known" in low \
            or "no such host is known" in low or "nodename nor servname" in low:
        return ToolFailure("offline", msg("install.uv.offline", host=host or "?"), host, url, detail=detail)
    if "connection refused" in low or "tcp connect error" in low or "actively refused" in low:
        return ToolFailure("refused", msg("install.uv.refused", host=host or "?"), host, url, detail=detail)
    m = re.search(r"status (?:client|server) error \((\d{3})", body) or re.search(r"HTTP status \D*(\d{3})", body)
    if m:
        status = int(m.group(1))
        return ToolFailure("http", msg("install.uv.http", host=host or "?", status=status), host, url, status, detail)
    if "timed out" in low or "operation timed out" in low:
        return ToolFailure("offline", msg("install.uv.offline", host=host or "?"), host, url, detail=detail)
    return ToolFailure("other", msg("install.tool.failed", tool="uv", detail=detail), host, url, detail=detail)


def parse_conda_failure(text: str) -> ToolFailure:
    """conda's error text → a :class:`ToolFailure` (conda prints ``SomethingError: ...``)."""
    body = text or ""
    lines = [ln.strip() for ln in body.splitlines() if ln.strip()]
    error_lines = [ln for ln in lines if re.match(r"^[A-Z][A-Za-z]+(Error|Exception|Exit)\b", ln)]
    detail = error_lines[-1] if error_lines else (lines[-1] if lines else "")
    urls = _URL.findall(body)
    url = urls[0].rstrip(".,") if urls else None
    host = urlsplit(url).hostname if url else None
    if "CondaToSNonInteractiveError" in body or "Terms of Service have not been accepted" in body:
        return ToolFailure("tos", msg("install.conda.tos", host=host or "repo.anaconda.com"), host, url,
                           detail=detail)
    if "prefix already exists" in body or "environment already exists" in body.lower():
        return ToolFailure("exists", msg("install.conda.exists"), detail=detail)
    if "PackagesNotFoundError" in body:
        return ToolFailure("not-found", msg("install.conda.not_found", detail=detail), detail=detail)
    m = re.search(r"CondaHTTPError: HTTP (\d{3})", body)
    if m:
        status = int(m.group(1))
        if status == 0:  # "HTTP 000 CONNECTION FAILED": no connection at all
            return ToolFailure("offline", msg("install.conda.offline", host=host or "?"), host, url, detail=detail)
        return ToolFailure("http", msg("install.conda.http", host=host or "?", status=status), host, url, status,
                           detail)
    if "CondaSSLError" in body or "ProxyError" in body or "Max retries exceeded" in body:
        return ToolFailure("offline", msg("install.conda.offline", host=host or "?"), host, url, detail=detail)
    return ToolFailure("other", msg("install.tool.failed", tool="conda", detail=detail), host, url, detail=detail)


def parse_conda_env_location(text: str) -> str | None:
    """'  environment location: /home/u/miniconda3/envs/dl' in conda create's package plan."""
    m = re.search(r"^\s*environment location:\s*(.+?)\s*$", text or "", re.MULTILINE)
    return m.group(1) if m else None


# conda create's phases in order; the progress parser maps the latest one seen to a fraction.
CONDA_PHASES = (
    ("Retrieving notices", 0.02), ("Collecting package metadata", 0.05), ("Solving environment", 0.2),
    ("Downloading and Extracting Packages", 0.35), ("Preparing transaction", 0.8),
    ("Verifying transaction", 0.85), ("Executing transaction", 0.9), ("To activate this environment", 1.0),
)


# --------------------------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------------------------
SEVERITY_ERROR = "error"  # cannot go on
SEVERITY_CONFIRM = "confirm"  # goes on only when the user confirms explicitly
SEVERITY_WARNING = "warning"
SEVERITY_OK = "ok"

CHECK_OWN_RUNTIME = "own-runtime"
CHECK_EXTERNALLY_MANAGED = "externally-managed"
CHECK_CONDA_BASE = "conda-base"
CONFIRMABLE = (CHECK_OWN_RUNTIME, CHECK_EXTERNALLY_MANAGED, CHECK_CONDA_BASE)


@dataclass
class Check:
    id: str
    severity: str
    message: Message
    confirmed: bool = False

    @property
    def blocks(self) -> bool:
        return self.severity == SEVERITY_ERROR or (self.severity == SEVERITY_CONFIRM and not self.confirmed)

    def text(self, lang: str | None = None) -> str:
        return self.message.text(lang)

    def to_json(self, lang: str | None = None) -> dict[str, Any]:
        return {"id": self.id, "severity": self.severity, "confirmed": self.confirmed, "blocks": self.blocks,
                "text": self.text(lang)}


@dataclass
class PreflightResult:
    checks: list[Check]

    @property
    def ok(self) -> bool:
        return not any(c.blocks for c in self.checks)

    @property
    def blocking(self) -> list[Check]:
        return [c for c in self.checks if c.blocks]

    @property
    def needs_confirmation(self) -> list[Check]:
        return [c for c in self.checks if c.severity == SEVERITY_CONFIRM and not c.confirmed]

    def get(self, check_id: str) -> Check | None:
        return next((c for c in self.checks if c.id == check_id), None)


def conda_name_problem(name: str, existing: Iterable[str] = ()) -> Message | None:
    """Why ``name`` cannot be a new conda env name, or None. conda's own rules (no ``/``,
    space, ``:``, ``#``; not base/root) plus: not empty, not a path, not an existing env."""
    if not name or not name.strip():
        return msg("install.check.conda_name.empty")
    bad = [c for c in CONDA_NAME_DISALLOWED if c in name] + (["\\"] if "\\" in name else [])
    if bad:
        shown = " ".join("space" if c == " " else c for c in bad)
        return msg("install.check.conda_name.chars", name=name, chars=shown)
    if name.lower() in CONDA_RESERVED_NAMES:
        return msg("install.check.conda_name.reserved", name=name)
    if name in (".", ".."):
        return msg("install.check.conda_name.chars", name=name, chars=name)
    if name in set(existing):
        return msg("install.check.conda_name.exists", name=name)
    return None


def windows_long_paths_enabled(host: Host) -> bool | None:
    """``LongPathsEnabled`` = 1 in the registry (None when it cannot be read)."""
    res = host.run(["reg", "query", LONG_PATHS_KEY, "/v", "LongPathsEnabled"], timeout=10)
    if not res.ok:
        # exit code 1 with "unable to find": the value is absent, i.e. the default (off)
        return False if res.returncode == 1 else None
    value = parse_reg_value(res.stdout, "LongPathsEnabled")
    if value is None:
        return None
    try:
        return int(value, 16 if value.lower().startswith("0x") else 10) == 1
    except ValueError:
        return None


def deepest_path_length(env_path: str, deepest_member: int = TORCH_DEEPEST_MEMBER) -> int:
    """Characters of the deepest file the install writes on Windows."""
    return len(env_path.rstrip("\\/")) + len(SITE_PACKAGES_WINDOWS) + deepest_member


def max_env_path_length(deepest_member: int = TORCH_DEEPEST_MEMBER) -> int:
    return WINDOWS_MAX_PATH - len(SITE_PACKAGES_WINDOWS) - deepest_member


def probe_writable(path: str) -> str | None:
    """None when a file can be created at ``path`` (or its nearest existing parent, which is
    where a new folder would go); else the reason. Really writes: permission bits lie on
    Windows and on network drives."""
    probe = os.path.abspath(path)
    while not os.path.exists(probe):
        parent = os.path.dirname(probe)
        if parent == probe:
            return "no existing parent folder"
        probe = parent
    if not os.path.isdir(probe):
        return f"{probe} is a file, not a folder"
    try:
        fd, name = tempfile.mkstemp(prefix=".gsw-write-test-", dir=probe)
    except OSError as exc:
        return exc.strerror or str(exc)
    os.close(fd)
    os.unlink(name)
    return None


def _folder_state(path: str) -> str:
    """'missing', 'empty', 'venv', 'conda', 'file' or 'nonempty' for a local path."""
    if not os.path.exists(path):
        return "missing"
    if not os.path.isdir(path):
        return "file"
    entries = [e for e in os.listdir(path) if e != INCOMPLETE_MARKER]
    if not entries:
        return "empty"
    if os.path.isfile(os.path.join(path, "pyvenv.cfg")):
        return "venv"
    if os.path.isdir(os.path.join(path, "conda-meta")):
        return "conda"
    return "nonempty"


def _norm(path: str, os_name: str) -> str:
    paths = _paths_for(os_name)
    return paths.normcase(paths.normpath(path))


def preflight(target: EnvTarget, host: Host, *, download_bytes: int = 0, unpacked_bytes: int | None = None,
              cache_dir: str | None = None, interpreter: PythonInterpreter | None = None,
              own_prefixes: Sequence[str] | None = None, existing_conda_names: Iterable[str] = (),
              conda_base_prefix: str | None = None, confirmed: Iterable[str] = (),
              writable: Callable[[str], str | None] | None = None,
              folder_state: Callable[[str], str] | None = None,
              deepest_member: int = TORCH_DEEPEST_MEMBER) -> PreflightResult:
    """Every check for ``target`` before anything is downloaded or created.

    ``download_bytes``: what still has to come over the network; ``unpacked_bytes``: what the
    install writes into the environment (default: ``download_bytes`` x :data:`UNPACK_FACTOR`,
    plus the files already cached); ``interpreter``: the target's interpreter as
    :func:`wizard.core.machine.pythons.query_interpreter` described it (for PEP 668 and its prefix);
    ``confirmed``: ids of the refusals the user has explicitly accepted.
    ``writable``/``folder_state`` probe the local file system; tests pass their own.
    """
    writable = writable or probe_writable
    folder_state = folder_state or _folder_state
    confirmed = set(confirmed)
    checks: list[Check] = []
    paths = _paths_for(target.os_name)

    # --- the location ---------------------------------------------------------------------
    if target.kind == KIND_NEW_VENV:
        state = folder_state(target.path)
        if state in ("venv", "conda", "nonempty"):
            checks.append(Check("path-not-empty", SEVERITY_ERROR, msg("install.check.not_empty", path=target.path)))
        elif state == "file":
            checks.append(Check("path-is-file", SEVERITY_ERROR, msg("install.check.is_file", path=target.path)))
    if target.kind == KIND_EXISTING_VENV and folder_state(target.path) != "venv":
        checks.append(Check("not-a-venv", SEVERITY_ERROR, msg("install.check.not_a_venv", path=target.path)))
    if target.kind == KIND_NEW_CONDA:
        problem = conda_name_problem(target.name or "", existing_conda_names)
        if problem is not None:
            checks.append(Check("conda-name", SEVERITY_ERROR, problem))
        if not target.conda_exe:
            checks.append(Check("no-conda", SEVERITY_ERROR, msg("install.check.no_conda")))
    if target.path and target.kind != KIND_EXISTING_PYTHON:
        reason = writable(target.path)
        if reason is not None:
            checks.append(Check("not-writable", SEVERITY_ERROR,
                                msg("install.check.not_writable", path=target.path, reason=reason)))
    if cache_dir:
        reason = writable(cache_dir)
        if reason is not None:
            checks.append(Check("cache-not-writable", SEVERITY_ERROR,
                                msg("install.check.not_writable", path=cache_dir, reason=reason)))

    # --- Windows path length --------------------------------------------------------------
    if target.os_name == "windows" and target.path and target.kind != KIND_EXISTING_PYTHON:
        longest = deepest_path_length(target.path, deepest_member)
        if longest > WINDOWS_MAX_PATH:
            enabled = windows_long_paths_enabled(host)
            if enabled is not True:
                checks.append(Check("path-too-long", SEVERITY_ERROR, msg(
                    "install.check.path_too_long", path=target.path, length=longest, limit=WINDOWS_MAX_PATH,
                    max=max_env_path_length(deepest_member))))

    # --- space ------------------------------------------------------------------------------
    unpacked = int(unpacked_bytes if unpacked_bytes is not None else download_bytes * UNPACK_FACTOR)
    env_need = unpacked + (NEW_CONDA_BYTES if target.kind == KIND_NEW_CONDA else
                           NEW_VENV_BYTES if target.kind == KIND_NEW_VENV else 0)
    env_disk = host.disk_free(target.path) if target.path else None
    cache_disk = host.disk_free(cache_dir) if cache_dir else None
    same_volume = env_disk is not None and cache_disk is not None and env_disk == cache_disk
    if same_volume:
        need = env_need + download_bytes + SPACE_MARGIN_BYTES
        checks.append(_space_check("disk-space", target.path, env_disk, need))
    else:
        if env_disk is not None:
            checks.append(_space_check("disk-space", target.path, env_disk, env_need + SPACE_MARGIN_BYTES))
        if cache_disk is not None and download_bytes:
            checks.append(_space_check("cache-space", cache_dir or "", cache_disk, download_bytes + SPACE_MARGIN_BYTES))
    if env_disk is None and target.path:
        checks.append(Check("disk-space", SEVERITY_WARNING, msg("install.check.space_unknown", path=target.path)))

    # --- refusals ---------------------------------------------------------------------------
    own = [p for p in (list(own_prefixes) if own_prefixes is not None else [sys.prefix]) if p]
    if target.kind == KIND_EXISTING_PYTHON:
        exe = _norm(target.python_exe, target.os_name)
        own_hit = any(exe.startswith(_norm(p, target.os_name) + paths.sep) for p in own)
    else:
        own_hit = any(_norm(target.path, target.os_name) == _norm(p, target.os_name) for p in own)
    if own_hit and not target.creates_env:
        checks.append(Check(CHECK_OWN_RUNTIME, SEVERITY_CONFIRM, msg("install.check.own_runtime", path=target.path),
                            confirmed=CHECK_OWN_RUNTIME in confirmed))
    if interpreter is not None and interpreter.externally_managed and not target.creates_env:
        checks.append(Check(CHECK_EXTERNALLY_MANAGED, SEVERITY_CONFIRM,
                            msg("install.check.externally_managed", python=interpreter.path),
                            confirmed=CHECK_EXTERNALLY_MANAGED in confirmed))
    is_base = target.kind == KIND_EXISTING_CONDA and (
        (target.name or "").lower() in CONDA_RESERVED_NAMES
        or (conda_base_prefix is not None
            and _norm(conda_base_prefix, target.os_name) == _norm(target.path, target.os_name)))
    if is_base:
        checks.append(Check(CHECK_CONDA_BASE, SEVERITY_CONFIRM, msg("install.check.conda_base", path=target.path),
                            confirmed=CHECK_CONDA_BASE in confirmed))
    return PreflightResult(checks)


def _space_check(check_id: str, path: str, disk: tuple[int, int], need: int) -> Check:
    from wizard.core.install.plan import format_bytes

    free = disk[0]
    if free < need:
        return Check(check_id, SEVERITY_ERROR, msg("install.check.space_short", path=path, free=format_bytes(free),
                                                   need=format_bytes(need)))
    return Check(check_id, SEVERITY_OK, msg("install.check.space_ok", path=path, free=format_bytes(free),
                                            need=format_bytes(need)))


def unpacked_size(wheel_paths: Iterable[str | os.PathLike[str]]) -> tuple[int, int]:
    """(bytes the wheels unpack to, the longest member path), read from their zip directories
    (no extraction): the exact figures for the second space and path-length check."""
    import zipfile

    total = 0
    longest = 0
    for path in wheel_paths:
        with zipfile.ZipFile(path) as zf:
            for info in zf.infolist():
                total += info.file_size
                longest = max(longest, len(info.filename))
    return total, longest


# --------------------------------------------------------------------------------------------
# The incomplete marker
# --------------------------------------------------------------------------------------------
def write_incomplete_marker(env_dir: str, note: Mapping[str, Any] | None = None) -> str:
    """Mark a wizard-made environment as not finished. Returns the marker's path."""
    from wizard import __version__

    path = os.path.join(env_dir, INCOMPLETE_MARKER)
    data = {"schema": MARKER_SCHEMA, "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "wizard_version": __version__, **(dict(note) if note else {})}
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(data, fh, ensure_ascii=False, indent=2)
        fh.write("\n")
    return path


def read_incomplete_marker(env_dir: str) -> dict[str, Any] | None:
    path = os.path.join(env_dir, INCOMPLETE_MARKER)
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return {"schema": MARKER_SCHEMA, "unreadable": True}
    return data if isinstance(data, dict) else {"schema": MARKER_SCHEMA, "unreadable": True}


def remove_incomplete_marker(env_dir: str) -> bool:
    try:
        os.unlink(os.path.join(env_dir, INCOMPLETE_MARKER))
    except FileNotFoundError:
        return False
    return True


def is_incomplete(env_dir: str) -> bool:
    return os.path.exists(os.path.join(env_dir, INCOMPLETE_MARKER))


__all__ = [
    "CHECK_CONDA_BASE", "CHECK_EXTERNALLY_MANAGED", "CHECK_OWN_RUNTIME", "CONDA_PHASES", "CONFIRMABLE", "Check",
    "EnvTarget", "INCOMPLETE_MARKER", "KINDS", "KIND_EXISTING_CONDA", "KIND_EXISTING_PYTHON", "KIND_EXISTING_VENV",
    "KIND_NEW_CONDA", "KIND_NEW_VENV", "PreflightResult", "ToolFailure", "UvPythonDownload", "conda_create_argv",
    "conda_env_list_argv", "conda_name_problem", "conda_remove_argv", "create_argvs", "deepest_path_length",
    "default_venv_path", "describe_uv_python_download", "existing_conda_env", "existing_python",
    "existing_targets", "existing_venv", "find_uv", "is_incomplete",
    "max_env_path_length", "new_conda_env", "new_uv_venv", "new_venv", "parse_conda_env_location",
    "parse_conda_failure", "parse_uv_failure", "parse_uv_python_downloads", "preflight", "probe_writable",
    "read_incomplete_marker", "remove_incomplete_marker", "unpacked_size", "uv_env", "uv_python_downloads_argv",
    "uv_python_dir_argv", "uv_python_find_argv", "uv_python_install_argv", "windows_long_paths_enabled",
    "write_incomplete_marker",
]
