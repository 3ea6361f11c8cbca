"""Find the data under ``resources/`` the same way from a checkout, a wheel and a bundle.

Why a function and not a constant: the three layouts put the folder in different places,
and a test (or a support engineer) can point ``GSW_RESOURCES`` at another copy.

Lookup order:
1. ``GSW_RESOURCES`` environment variable, when set;
2. a PyInstaller bundle: ``<sys._MEIPASS>/resources``;
3. a source checkout: ``<repo>/resources`` next to the ``wizard`` package;
4. an installed wheel: the data-only package ``wizard/_resources``.
"""

from __future__ import annotations

import json
import os
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

_MARKER = "i18n"  # a folder every copy of resources/ has


class ResourceError(RuntimeError):
    """resources/ cannot be found or a file in it cannot be read."""


def _candidates() -> list[Path]:
    found: list[Path] = []
    override = os.environ.get("GSW_RESOURCES")
    if override:
        found.append(Path(override))
    meipass = getattr(sys, "_MEIPASS", None)
    if meipass:
        found.append(Path(meipass) / "resources")
    package_dir = Path(__file__).resolve().parent.parent  # .../wizard
    found.append(package_dir.parent / "resources")  # source checkout
    found.append(package_dir / "_resources")  # installed wheel
    return found


@lru_cache(maxsize=1)
def resources_dir() -> Path:
    """The folder holding the resources; raises :class:`ResourceError` if none is found."""
    tried = _candidates()
    for path in tried:
        if (path / _MARKER).is_dir():
            return path
    raise ResourceError("resources/ not found; looked in: " + ", ".join(str(p) for p in tried))


def resource_path(*parts: str) -> Path:
    """Path of a file under resources/ (it may not exist; callers say what is missing)."""
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
    """Path of a probe script (``wizard/probe/<name>``), run by a target interpreter as a file.

    In a bundle the scripts are copied as data to ``<_MEIPASS>/wizard/probe``; in a checkout
    and a wheel they sit next to this package.
    """
    meipass = getattr(sys, "_MEIPASS", None)
    if meipass:
        candidate = Path(meipass) / "wizard" / "probe" / name
        if candidate.is_file():
            return candidate
    return Path(__file__).resolve().parent.parent / "probe" / name
