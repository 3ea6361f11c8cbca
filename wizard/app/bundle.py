"""Bundle use cases: export a finished install's wheels, install a fresh venv from a bundle offline.

``install … --export-bundle DIR`` calls :func:`export_from_job` after the install succeeded (the
wheels come from the wizard's download cache, each re-hashed against the plan);
``install --from-bundle DIR --venv PATH`` and the Environment page's button call
:func:`install_from_bundle`: check every hash, say which machines the bundle serves, make the
venv, and install with pip told to use the bundle's folder and nothing else.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from typing import Any

from wizard.core.base.i18n import Message, msg

BUNDLE_PIP_TIMEOUT_S = 1800.0
_TAGS_PROBE = ("import json\n"
               "try:\n    from packaging import tags\n"
               "except ImportError:\n    from pip._vendor.packaging import tags\n"
               "print(json.dumps([str(t) for t in tags.sys_tags()]))\n")


def export_from_job(job: Any, dest: str) -> Any:
    """The finished ``job``'s wheels (from the download cache) and a manifest, written to ``dest``."""
    from wizard.core.install.bundle import BundleError, export_bundle

    plan = job.plan
    if plan is None or not plan.files:
        raise BundleError(msg("o.bundle.nothing", folder=dest))
    pairs = []
    for f in plan.files:
        path = job.cache.verified(f)
        if path is None:
            raise BundleError(msg("o.bundle.not_cached", file=f.filename))
        pairs.append((path, f))
    from wizard import __version__

    return export_bundle(dest, pairs, [f.pin for f in plan.files if f.requested] or list(job.options.requirements),
                         python=getattr(job.target, "python_version", "") or "", created_by=f"gpu-setup-wizard {__version__}")


def interpreter_tags(host: Any, python_exe: str) -> list[str]:
    """The wheel tags ``python_exe`` accepts (asked of it: its own packaging or pip's)."""
    result = host.run([python_exe, "-c", _TAGS_PROBE], timeout=60)
    try:
        tags = json.loads((result.stdout or "").strip().splitlines()[-1])
    except (ValueError, IndexError):
        return []
    return [str(t) for t in tags] if isinstance(tags, list) else []


@dataclass
class BundleInstall:
    """What an offline install from a bundle did: ok, the messages to show, pip's last lines."""

    ok: bool
    messages: list[Message] = field(default_factory=list)
    env_python: str | None = None
    log: list[str] = field(default_factory=list)


def serves_text(manifest: Any) -> Message:
    """Which machines the bundle serves, from its wheels' tags."""
    from wizard.core.install.bundle import platforms_served, pythons_served

    plats = platforms_served(manifest) or ["any"]
    pys = pythons_served(manifest) or ["any"]
    return msg("o.bundle.serves", files=len(manifest.files), mb=f"{manifest.total_bytes() / 2**20:.1f}",
               platforms=", ".join(plats), pythons=", ".join(pys), reqs=" ".join(manifest.requirements))


def venv_python(path: str) -> str:
    return os.path.join(path, "Scripts", "python.exe") if os.name == "nt" else os.path.join(path, "bin", "python")


def install_from_bundle(host: Any, folder: str, venv_path: str, base_python: str | None = None) -> BundleInstall:
    """Check the bundle, make ``venv_path`` (``base_python -m venv``; an existing venv is used as
    it is) and install the bundle's requirements from its folder alone. BundleError (raised
    before anything is made) for a tampered or foreign bundle; a failure later is in the result."""
    from wizard.core.install.bundle import BundleError, check_bundle, offline_install_argv, serves

    manifest = check_bundle(folder)
    out = BundleInstall(False, [msg("o.bundle.checked", files=len(manifest.files)), serves_text(manifest)])
    base = base_python or sys.executable
    py = venv_python(venv_path)
    exists = os.path.isfile(os.path.join(venv_path, "pyvenv.cfg"))
    # the interpreter the venv is (or will be) made of: a foreign bundle is refused before anything is made
    fits, misfits = serves(manifest, interpreter_tags(host, py if exists else base))
    if not fits:
        raise BundleError(msg("o.bundle.not_for_this", files=", ".join(misfits[:3])))
    if not exists:
        made = host.run([base, "-m", "venv", venv_path], timeout=300)
        if made.returncode != 0:
            out.messages.append(msg("o.bundle.venv_failed", path=venv_path, error=(made.stderr or made.error or "")[-300:]))
            return out
    # the student's pip.conf may name an index: none is read, and none is asked
    env = {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": os.path.abspath(folder), "PIP_CONFIG_FILE": os.devnull}
    done = host.run(offline_install_argv(py, os.path.abspath(folder), manifest.requirements),
                    timeout=BUNDLE_PIP_TIMEOUT_S, env=env)
    out.log = ((done.stdout or "") + (done.stderr or "")).splitlines()[-15:]
    if done.returncode != 0:
        out.messages.append(msg("o.bundle.pip_failed", status=str(done.returncode)))
        return out
    out.ok, out.env_python = True, py
    out.messages.append(msg("o.bundle.installed", path=venv_path, python=py))
    return out


__all__ = ["BundleInstall", "export_from_job", "install_from_bundle", "interpreter_tags", "serves_text", "venv_python"]
