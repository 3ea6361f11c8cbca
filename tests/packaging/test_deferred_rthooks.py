"""installers/deferred_rthooks.py: the bundle's multiprocessing and traitlets runtime hooks run
when their module is first imported, not before every first paint.

The hook is run here by this Python as PyInstaller would run it (a script before the app's
first line), with hook texts of the same shape as PyInstaller's: real imports, real modules.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "installers"))

import deferred_rthooks  # noqa: E402

# pyinstaller-hooks-contrib's pyi_rth_traitlets.py, as it is
TRAITLETS_HOOK = '''import traitlets.traitlets


def _disabled_deprecation_warnings(method, cls, method_name, msg):
    pass


traitlets.traitlets._deprecated_method = _disabled_deprecation_warnings
'''
# the shape of PyInstaller's pyi_rth_multiprocessing.py: a function that imports and patches
MULTIPROCESSING_HOOK = '''def _pyi_rthook():
    import sys
    import multiprocessing
    import multiprocessing.spawn
    from subprocess import _args_from_interpreter_flags

    multiprocessing.process.ORIGINAL_DIR = None

    def _freeze_support():
        return "diverted"

    multiprocessing.freeze_support = multiprocessing.spawn.freeze_support = _freeze_support


_pyi_rthook()
del _pyi_rthook
'''


def _scripts(tmp_path: Path) -> list[tuple]:
    hooks = {"pyi_rth_multiprocessing": MULTIPROCESSING_HOOK, "pyi_rth_traitlets": TRAITLETS_HOOK,
             "pyi_rth_pyside6": "import os\n"}
    scripts = [("pyiboot01_bootstrap", str(tmp_path / "boot.py"), "PYSOURCE")]
    for name, text in hooks.items():
        (tmp_path / f"{name}.py").write_text(text, encoding="utf-8")
        scripts.append((name, str(tmp_path / f"{name}.py"), "PYSOURCE"))
    return [*scripts, ("launcher", str(tmp_path / "launcher.py"), "PYSOURCE")]


def test_the_deferred_hooks_leave_the_scripts_for_one_hook_in_their_place(tmp_path):
    scripts = _scripts(tmp_path)
    hook = deferred_rthooks.write_hook(scripts, tmp_path)
    assert hook is not None and hook.is_file()
    names = [e[0] for e in deferred_rthooks.drop_deferred(scripts, hook)]
    assert names == ["pyiboot01_bootstrap", deferred_rthooks.HOOK_NAME, "pyi_rth_pyside6", "launcher"]
    kept = [e for e in scripts if e[0] not in deferred_rthooks.DEFERRED]
    assert deferred_rthooks.write_hook(kept, tmp_path / "none") is None  # nothing to defer: nothing written
    assert deferred_rthooks.drop_deferred(kept, None) == kept


def test_each_hook_runs_when_its_module_is_first_imported_and_not_before(tmp_path):
    hook = deferred_rthooks.write_hook(_scripts(tmp_path), tmp_path)
    code = ("import runpy, sys\n"
            f"runpy.run_path({str(hook)!r}, run_name='__main__')\n"
            "print('at start', sorted(m for m in ('multiprocessing', 'traitlets', 'subprocess') if m in sys.modules))\n"
            "import traitlets\n"
            "import traitlets.traitlets as tt\n"
            "print('traitlets patched', tt._deprecated_method.__name__)\n"
            "print('multiprocessing before its import', 'multiprocessing' in sys.modules)\n"
            "import multiprocessing, multiprocessing.spawn\n"
            "print('multiprocessing patched', multiprocessing.freeze_support(), multiprocessing.spawn.freeze_support(),"
            " multiprocessing.process.ORIGINAL_DIR)\n"
            "loader = multiprocessing.__spec__.loader\n"
            "print('loader', loader.is_package('multiprocessing'), type(loader).__name__)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "at start []",
        "traitlets patched _disabled_deprecation_warnings",
        "multiprocessing before its import False",
        "multiprocessing patched diverted diverted None",
        "loader True _GswDeferredLoader",
    ]
