"""What goes into the frozen bundle, in one place: names, exclusions, dropped files, version.

The PyInstaller spec, ``build.py`` and the packaging tests all import this module, so the
names the installer, the desktop entry and the tests rely on cannot drift apart. Standard
library only (plus ``packaging``, a dependency of the app, for version numbers): the spec runs it
inside PyInstaller, and the tests and ``build.py`` import it without PyInstaller.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INSTALLERS = ROOT / "installers"

APP_ID = "gpu-setup-wizard"  # folder name, Linux desktop id, platformdirs app name
APP_TITLE = "GPU Setup Wizard"
APP_TITLE_KO = "GPU 환경 설정 마법사"
PUBLISHER = "GPU Setup Wizard contributors"
GUI_EXE = "gpu-setup-wizard"  # windowed on Windows (console=False)
CLI_EXE = "gpu-setup-wizard-cli"  # console subsystem: `gpu-setup-wizard-cli doctor` prints in a terminal
SELF_CHECK_EXE = "bundle-self-check"  # built, run and deleted by build.py; never shipped
MACOS_APP = f"{APP_TITLE}.app"
MACOS_BUNDLE_ID = "io.github.gpu-setup-wizard"
CONTENTS_DIR = "_internal"  # PyInstaller 6's default, spelled out because the tests look inside it

ICON_SVG = ROOT / "wizard" / "resources" / "icons" / "app.svg"
ICON_PNG = ROOT / "wizard" / "resources" / "icons" / "app.png"
ICON_ICO = ROOT / "wizard" / "resources" / "icons" / "app.ico"

# Where the bundle puts what the app finds at run time (wizard/core/base/resources.py):
RESOURCES_DEST = "wizard/resources"  # <_MEIPASS>/wizard/resources (importlib.resources finds it)
PROBE_DEST = "wizard/probe"  # <_MEIPASS>/wizard/probe/*.py, run as files by the TARGET Python
TOOLS_DEST = "bin"  # <_MEIPASS>/bin/uv[.exe] when the uv package is in the build environment

# Python modules left out of the bundle. Each one was checked by building with it excluded and
# running both the wizard's --smoke-test and the bundle self-check (which draws the pyqtgraph
# live plot) in the bundle. NOT excluded, because the bundle then died at start-up:
# PySide6.QtOpenGL / QtOpenGLWidgets (pyqtgraph 0.14 imports them with importlib at import of
# PlotCurveItem) and pydoc (needed by the numpy/pyqtgraph import chain).
EXCLUDED_MODULES = [
    "PySide6.QtNetwork",  # HTTP goes through requests; pyqtgraph does not need it
    "PySide6.QtDBus",
    "PySide6.QtTest",
    "PySide6.QtSvg",  # pyqtgraph wraps it in FailedImport; SVG *icons* use the image plugin, kept
    "PySide6.QtQml",
    "PySide6.QtQuick",
    "tkinter",
    "unittest",
    "pyqtgraph.examples",
    "pyqtgraph.opengl",  # 3-D widgets need PyOpenGL, which the wizard does not use
    "pyqtgraph.jupyter",
    # The IANA zone database (604 of the Windows bundle's 891 files; every file is one more for
    # antivirus to scan on a real Windows start). python-dateutil 4 requires it, but the wizard
    # only uses dateutil through jupyter_client (ISO dates with offsets, the local zone), which
    # never looks a zone up by name; dateutil falls back when tzdata cannot be imported.
    "tzdata",
    # setuptools' pkg_resources: nothing the wizard runs imports it, but once it is in the bundle
    # PyInstaller's runtime hook imports it at every start, before the first line of the wizard
    # (measured under wine: with it come _ssl/libssl, _hashlib/libcrypto (5 MB), pyexpat, _queue,
    # crypt32 and iphlpapi, the DLLs the frozen wizard loaded beyond the bare QWizard's).
    "pkg_resources",
    "setuptools",
]

# Qt's own translations: the wizard speaks Korean and English (English is built into Qt).
KEPT_QT_TRANSLATIONS = ("qt_ko.qm", "qtbase_ko.qm")
# Mesa's software OpenGL (20 MB on Windows): only a fallback for QtQuick / QOpenGLWidget, which
# the wizard does not use; pyqtgraph draws with QPainter.
DROPPED_BINARIES = ("opengl32sw.dll",)


def keep_bundle_entry(dest_name: str) -> bool:
    """False for files of the analysed TOC that the bundle should not carry (see above)."""
    dest = dest_name.replace("\\", "/")
    name = dest.rsplit("/", 1)[-1]
    if "/translations/" in f"/{dest}" and name.endswith(".qm"):
        return name in KEPT_QT_TRANSLATIONS
    return name.lower() not in DROPPED_BINARIES


def app_version() -> str:
    """``wizard.__version__``, read without importing the package (the spec runs in PyInstaller)."""
    text = (ROOT / "wizard" / "__init__.py").read_text(encoding="utf-8")
    match = re.search(r'^__version__\s*=\s*["\']([^"\']+)["\']', text, re.MULTILINE)
    if not match:
        raise RuntimeError("wizard/__init__.py has no __version__")
    return match.group(1)


def windows_version(version: str) -> tuple[int, int, int, int]:
    """The four numbers Windows wants (VERSIONINFO, NSIS VIProductVersion): release part, padded.

    ``1.2`` -> (1, 2, 0, 0); ``0.3.0.dev4`` -> (0, 3, 0, 0). Pre-release tags have no place there.
    """
    from packaging.version import Version  # imported here: build.py bootstraps from a bare Python

    release = list(Version(version).release[:4])
    release += [0] * (4 - len(release))
    if any(n > 0xFFFF for n in release):
        raise ValueError(f"{version}: Windows version numbers are 16-bit")
    return tuple(release)  # type: ignore[return-value]


def version_info_text(version: str, exe_name: str, description: str) -> str:
    """PyInstaller's VSVersionInfo file (the text it ``eval``s) for one executable.

    English and Korean string tables; Explorer's Properties dialog shows the one matching the
    user's language. Why it matters beyond looks: antivirus heuristics trust executables with
    a version resource a little more.
    """
    nums = windows_version(version)

    def table(lang_cp: str, desc: str) -> str:
        strings = {
            "CompanyName": PUBLISHER,
            "FileDescription": desc,
            "FileVersion": version,
            "InternalName": exe_name,
            "LegalCopyright": f"(c) {PUBLISHER}, MIT License",
            "OriginalFilename": f"{exe_name}.exe",
            "ProductName": APP_TITLE,
            "ProductVersion": version,
        }
        body = ",\n          ".join(f"StringStruct({k!r}, {v!r})" for k, v in strings.items())
        return f"StringTable({lang_cp!r}, [\n          {body}])"

    return (
        "# -*- coding: utf-8 -*-\n"
        "# Generated by installers/bundle_config.py; do not edit.\n"
        "VSVersionInfo(\n"
        f"  ffi=FixedFileInfo(filevers={nums}, prodvers={nums}, mask=0x3f, flags=0x0,\n"
        "                    OS=0x40004, fileType=0x1, subtype=0x0, date=(0, 0)),\n"
        "  kids=[\n"
        "    StringFileInfo([\n"
        f"      {table('040904B0', description)},\n"
        f"      {table('041204B0', APP_TITLE_KO)}]),\n"
        "    VarFileInfo([VarStruct('Translation', [1033, 1200, 1042, 1200])])\n"
        "  ]\n"
        ")\n"
    )


def probe_scripts() -> list[Path]:
    """The probe scripts shipped as plain files (the target interpreter runs them)."""
    return sorted((ROOT / "wizard" / "probe").glob("*.py"))


def uv_binary() -> Path | None:
    """The uv executable of the build environment's ``uv`` package, or None when it is absent."""
    try:
        from uv import find_uv_bin
    except ImportError:
        return None
    try:
        path = Path(find_uv_bin())
    except FileNotFoundError:
        return None
    return path if path.is_file() else None


def exe_file(name: str) -> str:
    return f"{name}.exe" if sys.platform == "win32" else name
