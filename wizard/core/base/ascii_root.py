"""Where new environments go when the user's home folder has non-ASCII letters on Windows.

The rule, and why. On Windows a Korean student's home is often ``C:\\Users\\김학생``. Python 3,
venv, uv and pip handle such a path, but tools later in the chain do not:

- PyTorch's C++/CUDA extension builds (``torch.utils.cpp_extension``) write ``build.ninja`` in the
  ANSI code page and hand the paths to MSVC and nvcc, which fail on non-ASCII include or
  source paths; ``torch.compile`` compiles with the same MSVC chain from the environment's
  ``include`` folder;
- TorchScript's ``torch.jit.load``/``save`` open files with narrow C strings (a path outside the
  ANSI code page is "not found");
- conda's installers refuse a non-ASCII prefix, and its activation scripts mangle one on PATH;
- Jupyter and VS Code often fail to start a kernel whose interpreter path is not ASCII.

So on Windows, when the home folder is not ASCII, the wizard's environments go under
``<system drive>\\GPU-Setup-Wizard\\envs`` instead (a standard user may create a folder at the
root of the system drive; Anaconda's own advice is ``C:\\anaconda`` for the same reason), and the
wizard says where and why (:func:`wizard.app.environments.env_root_note`). A path the student
types is taken as typed. Linux and macOS keep environments under the home: their tools take
UTF-8 paths.
"""

from __future__ import annotations

import ntpath

ASCII_ROOT_DIR = "GPU-Setup-Wizard"
DEFAULT_SYSTEM_DRIVE = "C:"


def needs_ascii_root(os_name: str, path: str) -> bool:
    """True when ``path`` would be a Windows environment path that tools in the chain break on."""
    return os_name == "windows" and not path.isascii()


def ascii_env_root(os_name: str, home: str, system_drive: str | None) -> str | None:
    """``<system drive>\\GPU-Setup-Wizard\\envs`` when the Windows ``home`` is not ASCII, else None.

    ``system_drive``: the ``SystemDrive`` variable (``C:``); anything that is not a drive letter
    and a colon falls back to ``C:``."""
    if not needs_ascii_root(os_name, home):
        return None
    drive = (system_drive or "").strip().rstrip("\\/")
    if not (len(drive) == 2 and drive[1] == ":" and drive[0].isascii() and drive[0].isalpha()):
        drive = DEFAULT_SYSTEM_DRIVE
    return ntpath.join(drive.upper() + "\\", ASCII_ROOT_DIR, "envs")


__all__ = ["ASCII_ROOT_DIR", "DEFAULT_SYSTEM_DRIVE", "ascii_env_root", "needs_ascii_root"]
