"""Can Qt open a window here? Asked before the QApplication exists.

Why: when Qt cannot load its platform plugin it prints "could not load the Qt platform plugin
"xcb"" (or "xcb-cursor0 or libxcb-cursor0 is needed") and aborts the process with signal 6. A
student who followed the README on a plain Debian/Ubuntu desktop sees only that, and installing
the one package it names is not enough (libxcb-icccm4, libxcb-keysyms1 and others are missing
too). Over SSH without ``-X``, or on a server, there is no display at all and Qt aborts the same
way. So the window's start first checks, without Qt and without running anything:

* on Linux, that a display exists (``DISPLAY``/``WAYLAND_DISPLAY``) unless ``QT_QPA_PLATFORM``
  names a platform that needs none (``offscreen``, ``vnc`` …);
* that the shared libraries Qt's GUI module and the chosen platform plugin link against load
  (the list is the plugins' ``NEEDED`` entries in the PySide6 wheel: ``readelf -d
  PySide6/Qt/plugins/platforms/libqxcb.so``, ``libQt6XcbQpa.so.6``, ``libQt6Gui.so.6``,
  ``libQt6DBus.so.6``, ``libqwayland.so``), naming exactly the Debian/Ubuntu packages missing
  in one ``apt-get`` line;
* for X11, that the display answers (``xcb_connect``), since Qt aborts on that too.

A library "is there" when the dynamic loader can load it (``ctypes.CDLL``): that is what Qt's
own loading will do a moment later, so it sees ``LD_LIBRARY_PATH`` and a bundle's own copies,
which ``ldconfig -p`` does not; it runs no subprocess and costs about a millisecond.

Everything the check asks of the machine is a parameter (the environment, the OS, the library
finder, the display test, whether apt-get exists), so the tests give it a machine that lacks a
library instead of uninstalling one. Qt-free: it runs in the command-line face.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping

from wizard.core.base.i18n import Message, msg

#: ``find(soname) -> bool``: whether the library loads here
LibraryFinder = Callable[[str], bool]
#: ``reachable(display) -> bool``: whether an X server answers at ``display``
DisplayTest = Callable[[str], bool]


@dataclass(frozen=True)
class Library:
    """A shared library Qt needs, and the Debian/Ubuntu package that has it."""

    soname: str
    package: str


#: what libQt6Gui and libQt6DBus (which QtGui links) load on every platform
GUI_LIBRARIES = (
    Library("libEGL.so.1", "libegl1"), Library("libGL.so.1", "libgl1"),
    Library("libfontconfig.so.1", "libfontconfig1"), Library("libfreetype.so.6", "libfreetype6"),
    Library("libxkbcommon.so.0", "libxkbcommon0"), Library("libglib-2.0.so.0", "libglib2.0-0"),
    Library("libdbus-1.so.3", "libdbus-1-3"), Library("libX11.so.6", "libx11-6"),
)
#: what the xcb platform plugin (libqxcb.so, libQt6XcbQpa.so.6) loads
XCB_LIBRARIES = (
    Library("libxcb.so.1", "libxcb1"), Library("libX11-xcb.so.1", "libx11-xcb1"),
    Library("libxkbcommon-x11.so.0", "libxkbcommon-x11-0"), Library("libxcb-cursor.so.0", "libxcb-cursor0"),
    Library("libxcb-icccm.so.4", "libxcb-icccm4"), Library("libxcb-util.so.1", "libxcb-util1"),
    Library("libxcb-image.so.0", "libxcb-image0"), Library("libxcb-keysyms.so.1", "libxcb-keysyms1"),
    Library("libxcb-randr.so.0", "libxcb-randr0"), Library("libxcb-render-util.so.0", "libxcb-render-util0"),
    Library("libxcb-render.so.0", "libxcb-render0"), Library("libxcb-shm.so.0", "libxcb-shm0"),
    Library("libxcb-sync.so.1", "libxcb-sync1"), Library("libxcb-xfixes.so.0", "libxcb-xfixes0"),
    Library("libxcb-shape.so.0", "libxcb-shape0"), Library("libxcb-xkb.so.1", "libxcb-xkb1"),
)
#: what the wayland platform plugin (libqwayland.so, libQt6WaylandClient.so.6) loads
WAYLAND_LIBRARIES = (
    Library("libwayland-client.so.0", "libwayland-client0"), Library("libwayland-cursor.so.0", "libwayland-cursor0"),
)
PLATFORM_LIBRARIES: dict[str, tuple[Library, ...]] = {"xcb": XCB_LIBRARIES, "wayland": WAYLAND_LIBRARIES}
#: platforms that draw without a display server
NO_DISPLAY_PLATFORMS = frozenset({"offscreen", "minimal", "minimalegl", "vnc", "linuxfb", "eglfs", "vkkhrdisplay"})


def qt_library_dirs() -> list[Path]:
    """Folders with libraries that come with Qt itself (a wheel's or a bundle's copies)."""
    dirs: list[Path] = []
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        dirs.append(Path(frozen))
        dirs.append(Path(frozen) / "PySide6" / "Qt" / "lib")
    import importlib.util

    spec = importlib.util.find_spec("PySide6")  # finds the package without importing Qt
    if spec is not None and spec.origin:
        dirs.append(Path(spec.origin).parent / "Qt" / "lib")
    return dirs


def library_loads(soname: str) -> bool:
    """Can the dynamic loader load ``soname`` here (system folders, LD_LIBRARY_PATH, Qt's own)?"""
    try:
        ctypes.CDLL(soname)
        return True
    except OSError:
        return any((folder / soname).is_file() for folder in qt_library_dirs())


def x_display_answers(display: str) -> bool:
    """Does an X server answer at ``display``? (libxcb's own connect, as Qt's xcb plugin does.)"""
    try:
        xcb = ctypes.CDLL("libxcb.so.1")
    except OSError:
        return False  # the library check has already named libxcb1
    xcb.xcb_connect.restype = ctypes.c_void_p
    xcb.xcb_connect.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int)]
    xcb.xcb_connection_has_error.argtypes = [ctypes.c_void_p]
    xcb.xcb_disconnect.argtypes = [ctypes.c_void_p]
    conn = xcb.xcb_connect(display.encode(), None)
    try:
        return bool(conn) and xcb.xcb_connection_has_error(conn) == 0
    finally:
        if conn:
            xcb.xcb_disconnect(conn)  # a failed connection is an object too and must be freed


def candidate_platforms(environ: Mapping[str, str]) -> list[str]:
    """The platform plugins Qt will try, in order: ``QT_QPA_PLATFORM``'s list
    (``"wayland;xcb"``, options after ``:`` dropped), else what this session has."""
    chosen = environ.get("QT_QPA_PLATFORM", "").strip()
    if chosen:
        return [p.split(":", 1)[0].strip() for p in chosen.split(";") if p.strip()]
    names = []
    if environ.get("WAYLAND_DISPLAY"):
        names.append("wayland")
    if environ.get("DISPLAY"):
        names.append("xcb")
    return names


def missing_libraries(libraries: tuple[Library, ...], find: LibraryFinder) -> list[Library]:
    return [lib for lib in libraries if not find(lib.soname)]


def _missing_message(platform: str, missing: list[Library], has_apt: bool) -> Message:
    libraries = ", ".join(lib.soname for lib in missing)
    if has_apt:
        packages = " ".join(dict.fromkeys(lib.package for lib in missing))
        return msg("window.check.missing_apt", platform=platform, libraries=libraries,
                   command=f"sudo apt-get install {packages}")
    return msg("window.check.missing", platform=platform, libraries=libraries)


def check(environ: Mapping[str, str] | None = None, system: str | None = None,
          find: LibraryFinder = library_loads, display_answers: DisplayTest = x_display_answers,
          has_apt: bool | None = None) -> Message | None:
    """What stops Qt from opening the window here, as a message; None when nothing does."""
    environ = os.environ if environ is None else environ
    system = sys.platform if system is None else system
    if not system.startswith("linux"):
        return None  # Windows and macOS always have their platform plugin's libraries
    has_apt = shutil.which("apt-get") is not None if has_apt is None else has_apt
    platforms = candidate_platforms(environ)
    if not platforms:
        return msg("window.check.no_display")
    gui_missing = missing_libraries(GUI_LIBRARIES, find)
    if gui_missing:
        return _missing_message(platforms[0], gui_missing + missing_libraries(
            PLATFORM_LIBRARIES.get(platforms[0], ()), find), has_apt)
    problems: dict[str, Message] = {}
    for platform in platforms:
        if platform in NO_DISPLAY_PLATFORMS or platform not in PLATFORM_LIBRARIES:
            return None  # no display server needed, or a platform this check does not know
        if platform == "wayland" and not environ.get("WAYLAND_DISPLAY"):
            problems[platform] = msg("window.check.no_display")
            continue
        if platform == "xcb" and not environ.get("DISPLAY"):
            problems[platform] = msg("window.check.no_display")
            continue
        missing = missing_libraries(PLATFORM_LIBRARIES[platform], find)
        if missing:
            problems[platform] = _missing_message(platform, missing, has_apt)
        elif platform == "xcb" and not display_answers(environ["DISPLAY"]):
            problems[platform] = msg("window.check.display_silent", display=environ["DISPLAY"])
        else:
            return None  # Qt can use this one
    # every platform Qt would try fails: X11's problem first (the README's apt line is for it)
    return problems.get("xcb") or next(iter(problems.values()))


__all__ = ["Library", "LibraryFinder", "DisplayTest", "GUI_LIBRARIES", "XCB_LIBRARIES", "WAYLAND_LIBRARIES",
           "PLATFORM_LIBRARIES", "library_loads", "x_display_answers", "candidate_platforms", "missing_libraries",
           "check"]
