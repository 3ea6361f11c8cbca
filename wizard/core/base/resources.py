"""The data under ``wizard/resources/`` (tables, catalogues, translations, icons) and the probes.

Both are package data beside this package's modules: a checkout, an installed wheel and a
PyInstaller bundle (which collects them under ``<_MEIPASS>/wizard`` and gives its modules a
``__file__`` there) all have ``wizard/resources`` next to ``wizard/core``. The folder is found from
this module's own path first; :func:`importlib.resources.files` is asked only when that path
has no resources (an unusual importer), because importing it costs 4-6 ms of every start-up
(tempfile, zipfile, shutil), a fifth of what ``doctor --json`` may spend beyond the interpreter's
own start (issue 17). ``GSW_RESOURCES`` points the wizard at another copy of the data, for a
test or for a support engineer trying a corrected table without a new release.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

_MARKER = "i18n"  # a folder every copy of the resources has


class ResourceError(RuntimeError):
    """The resources cannot be found or a file in them cannot be read."""


#: the ``wizard`` package's folder, from this file's path (wizard/core/base/resources.py)
_PACKAGE = Path(__file__).resolve().parents[2]


def _package_dir(name: str) -> Path:
    """``wizard/<name>``: beside the modules when it is there, else where the importer says."""
    here = _PACKAGE / name
    if here.is_dir():
        return here
    from importlib.resources import files  # files() of a package on disk is a pathlib.Path

    return Path(str(files("wizard") / name))


@lru_cache(maxsize=1)
def resources_dir() -> Path:
    """The folder holding the resources; raises :class:`ResourceError` if it is not there."""
    override = os.environ.get("GSW_RESOURCES")
    path = Path(override) if override else _package_dir("resources")
    if not (path / _MARKER).is_dir():
        where = "GSW_RESOURCES" if override else "the wizard package"
        raise ResourceError(f"resources not found at {path} (from {where})")
    return path


def resource_path(*parts: str) -> Path:
    """Path of a file under the resources (it may not exist; callers say what is missing)."""
    return resources_dir().joinpath(*parts)


@lru_cache(maxsize=32)
def load_json(*parts: str) -> Any:
    """Parse a JSON resource once per process."""
    path = resource_path(*parts)
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, ValueError) as exc:
        raise ResourceError(f"cannot read resource {path}: {exc}") from exc


def probe_path(name: str) -> Path:
    """Path of a probe script (``wizard/probe/<name>``), run by a target interpreter as a file."""
    return _package_dir("probe") / name
