"""Import a module on first attribute access, safely from several threads at once.

``requests`` and ``urllib3`` take ~90 ms to import; the window's pages that download things
import the engine at start-up, so the network stack loads when the first download starts,
not when the window opens.

Why not :class:`importlib.util.LazyLoader`: before Python 3.12 it is not thread-safe — the
downloader's parallel workers touched ``requests`` together and one of them saw a half-loaded
module ("module 'requests' has no attribute 'Session'"). :func:`importlib.import_module` holds
the import system's per-module lock, so the first thread imports and the others wait.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from types import ModuleType
from typing import Any, Callable


class _LazyModule:
    """Stands in for a module until its first attribute is read."""

    __slots__ = ("_name", "_module")

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attr: str) -> Any:
        module = self._module
        if module is None:
            module = self._module = importlib.import_module(self._name)
        return getattr(module, attr)

    def __repr__(self) -> str:
        state = "loaded" if self._module is not None else "not loaded yet"
        return f"<lazy module {self._name!r} ({state})>"


def lazy_import(name: str) -> Any:
    """The module ``name`` if it is loaded already, else a stand-in that imports it when used.

    Raises ImportError at once when the module does not exist at all, so a missing
    dependency is reported where it is declared, not at the first download.
    """
    if name in sys.modules:
        return sys.modules[name]
    if importlib.util.find_spec(name) is None:
        raise ImportError(f"No module named {name!r}")
    return _LazyModule(name)


def lazy_exports(module_name: str, sources: dict[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` (PEP 562) that re-exports each name of ``sources`` from the module
    named beside it, imported on first use.

    The application layer re-exports the engine's value types and formatters for the faces
    (they import :mod:`wizard.app` and nothing else of the engine); importing them at the top of
    an app module would load the engine at the window's start-up, which the faces avoid. The
    value is cached on the module after the first read, so later reads are plain attributes."""

    def __getattr__(name: str) -> Any:
        source = sources.get(name)
        if source is None:
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(source), name)
        setattr(sys.modules[module_name], name, value)
        return value

    return __getattr__
