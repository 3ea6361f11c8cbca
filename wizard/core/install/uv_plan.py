"""The plan from uv: ``uv pip compile --format pylock.toml`` for the target's interpreter.

Why uv plans by default: it resolves from the index's metadata alone (PEP 658 ``.metadata``
files; no wheel is fetched) in a fraction of a second, needs no pip in the target environment
(so a new venv needs no ensurepip), and its lock file (PEP 751) names each chosen wheel's URL
and sha256 -- what the wizard's own downloader fetches, resumes and checks. For
``--python <target>`` uv lists only the wheel that fits that interpreter.

Isolated like the pip runs: ``--no-config`` (no ``uv.toml``), and the ``UV_*`` variables that
choose packages or indexes are dropped, so a student's settings cannot let another index's
build in. The network settings pass: ``HTTPS_PROXY``/``NO_PROXY`` as always, ``PIP_CERT`` as
``SSL_CERT_FILE``, ``PIP_TRUSTED_HOST`` as ``--allow-insecure-host``. uv's default index
strategy (the first index that has a project gives all its versions) also keeps torch and
torchvision from being picked from two different indexes.
"""

from __future__ import annotations

import os
import re
from typing import Any, Mapping, Sequence
from urllib.parse import unquote, urlsplit

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from wizard.core.base.i18n import msg
from wizard.core.install.plan import PlanError, PlannedFile, index_args, missing_file_error, pip_child_env

PYLOCK_NAME = "pylock.toml"
# uv variables that choose what is installed or from where: never inherited by the wizard's runs
_UV_PACKAGE_VARS = ("UV_INDEX", "UV_INDEX_URL", "UV_DEFAULT_INDEX", "UV_EXTRA_INDEX_URL", "UV_FIND_LINKS",
                    "UV_CONSTRAINT", "UV_OVERRIDE", "UV_BUILD_CONSTRAINT", "UV_INDEX_STRATEGY", "UV_PRERELEASE",
                    "UV_RESOLUTION", "UV_NO_INDEX", "UV_OFFLINE", "UV_CONFIG_FILE", "UV_PYTHON", "UV_SYSTEM_PYTHON",
                    "UV_EXCLUDE_NEWER", "UV_TORCH_BACKEND")


def uv_child_env(base: Mapping[str, str] | None = None, cache_dir: str | None = None) -> dict[str, str]:
    """The environment of the wizard's uv runs: pip's isolation plus no package-choosing ``UV_*``
    variable, the certificate bundle named by ``PIP_CERT``, and ``cache_dir`` as uv's cache."""
    src = os.environ if base is None else base
    env = pip_child_env(base)
    for name in _UV_PACKAGE_VARS:
        env.pop(name, None)
    cert = src.get("PIP_CERT")
    if cert and not env.get("SSL_CERT_FILE"):
        env["SSL_CERT_FILE"] = cert
    if cache_dir:
        env["UV_CACHE_DIR"] = cache_dir
    env["UV_NO_PROGRESS"] = "1"
    return env


def uv_network_args(environ: Mapping[str, str] | None = None) -> list[str]:
    env = os.environ if environ is None else environ
    args: list[str] = []
    for host in (env.get("PIP_TRUSTED_HOST") or "").split():
        args += ["--allow-insecure-host", host]
    return args


def uv_resolve_argv(uv: str, env_python: str, requirements: Sequence[str], index_url: str | None, out_path: str,
                    extra_index_urls: Sequence[str] = (), only_binary: bool = True,
                    environ: Mapping[str, str] | None = None, refresh: bool = False) -> list[str]:
    """``uv pip compile --format pylock.toml -o <out_path> --python <env> -`` (requirements on
    stdin would need a pipe; they go as a file next to the output instead, see
    :func:`write_requirements_in`). ``refresh``: revalidate every cached page with the index
    (``--refresh``), for a question asked again after a failed answer."""
    argv = [uv, "pip", "compile", "--no-config", "--quiet", "--no-header", "--format", "pylock.toml",
            "--python", env_python, "-o", out_path]
    if refresh:
        argv.append("--refresh")
    argv += index_args(index_url, extra_index_urls, only_binary)
    argv += uv_network_args(environ)
    return argv + [requirements_in_path(out_path)]


def requirements_in_path(out_path: str) -> str:
    return os.path.join(os.path.dirname(out_path) or ".", "requirements.in")


def write_requirements_in(out_path: str, requirements: Sequence[str]) -> None:
    """One requirement a line; each passes the one install rule first (a line break or a ``-r``
    inside one would be read by uv as a line of its own: an option, another file)."""
    from wizard.core.base.files import write_atomic
    from wizard.core.install.requirements import checked_requirements

    lines = checked_requirements(requirements)
    write_atomic(requirements_in_path(out_path), "".join(f"{r}\n" for r in lines), mkdir=True)


def _load_toml(text: str) -> dict[str, Any]:
    try:
        import tomllib  # Python 3.11+
    except ImportError:  # 3.10: the TOML reader pip carries (pip is a dependency of the wizard)
        from pip._vendor import tomli as tomllib  # type: ignore[no-redef]
    return tomllib.loads(text)


def parse_pylock(text: str, requirements: Sequence[str]) -> list[PlannedFile]:
    """uv's ``pylock.toml`` → planned files (one wheel per package). ``requested``: named in
    ``requirements``. Raises :class:`PlanError` ('bad-report') on anything unexpected."""
    try:
        data = _load_toml(text)
    except ValueError as exc:
        raise PlanError("bad-report", msg("install.plan.error.bad_report", detail=str(exc)), str(exc)) from exc
    packages = data.get("packages")
    if not isinstance(packages, list):
        raise PlanError("bad-report", msg("install.plan.error.bad_report", detail="no [[packages]]"))
    wanted = set()
    for req in requirements:
        try:
            wanted.add(canonicalize_name(Requirement(req).name))
        except InvalidRequirement:
            continue
    files = []
    for pkg in packages:
        wheels = pkg.get("wheels") if isinstance(pkg, dict) else None
        if not isinstance(wheels, list) or not wheels or not isinstance(wheels[0], dict) or not wheels[0].get("url"):
            raise PlanError("bad-report", msg("install.plan.error.bad_report",
                                              detail=f"no wheel for {pkg!r:.200}"))
        wheel = wheels[0]
        url = str(wheel["url"])
        name = canonicalize_name(str(pkg.get("name", "")))
        sha = (wheel.get("hashes") or {}).get("sha256")
        size = wheel.get("size")
        files.append(PlannedFile(name=name, version=str(pkg.get("version", "")),
                                 filename=unquote(urlsplit(url).path.rsplit("/", 1)[-1]), url=url,
                                 sha256=str(sha).lower() if sha else None,
                                 size=int(size) if isinstance(size, int) else None, requested=name in wanted))
    return files


_NETWORK = ("error sending request", "Failed to fetch", "dns error", "Connection refused", "connection refused",
            "tcp connect error", "timed out", "Could not connect", "certificate", "proxy")


def classify_uv_failure(output: str, index_url: str | None) -> PlanError:
    """What a failed ``uv pip compile`` means, from uv's words."""
    err = _classify_uv(output or "", index_url)
    err.output = output or ""
    return err


def _classify_uv(text: str, index_url: str | None) -> PlanError:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    detail = next((ln for ln in lines if ln.startswith(("error:", "×", "╰─▶"))), lines[-1] if lines else "")
    host_match = re.search(r"https?://([^/:\s'\"`]+)", text)
    host = host_match.group(1) if host_match else (urlsplit(index_url).hostname if index_url else None)
    missing = missing_file_error(text, detail)
    if missing is not None:  # before the network words: uv says "Failed to fetch" for a 404 too
        return missing
    if any(m in text for m in _NETWORK):
        return PlanError("network", msg("install.error.network", host=host or "?", detail=detail), detail, host)
    if "No solution found" in text or "not found in the package registry" in text or "there is no version" in text:
        return PlanError("no-version", msg("install.plan.error.no_version", detail=detail, index=index_url or "PyPI"),
                         detail)
    return PlanError("failed", msg("install.plan.error.failed", detail=detail), detail)


__all__ = ["PYLOCK_NAME", "classify_uv_failure", "parse_pylock", "requirements_in_path", "uv_child_env",
           "uv_network_args", "uv_resolve_argv", "write_requirements_in"]
