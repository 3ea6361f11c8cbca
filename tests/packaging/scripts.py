"""What the packaging tests share: the installers' scripts loaded as modules (they are scripts
under installers/, not a package), and where Debian's wine puts its two programs."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

WINE = "/usr/lib/wine/wine64"
WINESERVER = "/usr/lib/wine/wineserver"


def load_script(name: str, path: Path) -> ModuleType:
    """``path`` imported as the module ``name`` (registered in ``sys.modules`` first, so its
    dataclasses and its own imports resolve)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
