"""The command lines that make an environment (venv, uv, conda), and how to read their output.

Why a module of its own: the install steps run these argv lists (the runner adds the UTF-8
environment), the Environment page asks uv what it would download before it starts, and a
failed uv or conda command becomes a :class:`ToolFailure` the page can act on (offline, a wrong
mirror, conda's Terms of Service) instead of a wall of text.

A new Windows PC often has no Python at all: then uv, shipped with the wizard (the ``uv``
package's binary), installs a managed CPython of the version the recommendation needs (``uv
python install``); :func:`describe_uv_python_download` says what it will download and from where
before it starts, and ``UV_PYTHON_INSTALL_MIRROR`` points it at a mirror.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from wizard.core.base.host import Host
from wizard.core.base.i18n import Message, msg
from wizard.core.install.environments import CREATOR_CONDA, CREATOR_UV, EnvTarget

COMMAND_TIMEOUT = 60.0
CONDA_CREATE_TIMEOUT = 1800.0
UV_PYTHON_INSTALL_TIMEOUT = 1800.0


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


def bundled_pip_wheel(venv_path: str) -> str | None:
    """The pip wheel that ships with the Python a venv was made from (ensurepip's ``_bundled``
    folder, or Debian's /usr/share/python-wheels), found from the venv's ``pyvenv.cfg`` without
    starting any interpreter; None when there is none (then ensurepip does the work).

    Why: a venv uv makes has no pip, and a student's next ``pip install`` (a course's
    requirements, Jupyter's ``%pip``) must work in it. uv installs this one file offline with
    the install itself (one more argument), where ``python -m ensurepip`` takes seconds."""
    home = version = None
    try:
        with open(os.path.join(venv_path, "pyvenv.cfg"), encoding="utf-8") as fh:
            for line in fh:
                key, _, value = line.partition("=")
                key, value = key.strip().lower(), value.strip()
                if key == "home":
                    home = value
                elif key in ("version_info", "version") and value:
                    version = ".".join(value.split(".")[:2])
    except OSError:
        return None
    folders = []
    if home:
        if version:
            folders.append(os.path.join(home, os.pardir, "lib", f"python{version}", "ensurepip", "_bundled"))
        folders.append(os.path.join(home, "Lib", "ensurepip", "_bundled"))  # Windows: Lib beside python.exe
    folders.append("/usr/share/python-wheels")  # Debian and Ubuntu keep them here
    for folder in folders:
        try:
            names = sorted(n for n in os.listdir(folder) if n.startswith("pip-") and n.endswith(".whl"))
        except OSError:
            continue
        if names:
            from packaging.version import InvalidVersion, Version

            def by_version(name: str) -> Version:
                try:
                    return Version(name.split("-")[1])
                except (IndexError, InvalidVersion):
                    return Version("0")
            return os.path.normpath(os.path.join(folder, max(names, key=by_version)))
    return None

