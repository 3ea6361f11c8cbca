"""Put this folder on PYTHONPATH and Qt cannot be imported: a machine without PySide6.

The headless tests (tests/integration/test_headless_without_qt.py) run the command line in a
process started this way, so a Qt import anywhere on the headless path, top-level or inside a
function, fails the command instead of passing unnoticed because the wizard's own venv has
PySide6. A meta-path finder, not a stub package: `import PySide6` raises ModuleNotFoundError
exactly as it does where PySide6 was never installed.
"""

from __future__ import annotations

import sys

BLOCKED = ("PySide6", "shiboken6", "pyqtgraph")


class _NoQt:
    """Refuses the blocked top-level packages and everything under them."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name.split(".", 1)[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r} (Qt is blocked for this test)", name=name)
        return None


sys.meta_path.insert(0, _NoQt())
