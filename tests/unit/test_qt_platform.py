"""Before the window: can Qt open one here? The check is given the machine (environment, OS,
library finder, display test), so a machine that lacks a library is a finder that says so; the
real ``python -m wizard`` runs in a child without a display and must print the message, not
Qt's abort."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from wizard.cli import qt_platform
from wizard.cli.exit_status import ExitStatus
from wizard.cli.qt_platform import GUI_LIBRARIES, XCB_LIBRARIES, candidate_platforms, check, library_loads

REPO = Path(__file__).resolve().parents[2]


def _qt_dir() -> Path | None:
    import importlib.util

    spec = importlib.util.find_spec("PySide6")  # found, not imported: this module stays Qt-free
    return Path(spec.origin).parent / "Qt" if spec and spec.origin else None


QT_DIR = _qt_dir()


def everything_but(*absent: str):
    """A finder for a machine that has every library except ``absent``."""
    return lambda soname: soname not in absent


def answers(_display: str) -> bool:
    return True


def test_no_display_says_what_to_do():
    message = check({"HOME": "/home/student"}, system="linux", find=everything_but(), display_answers=answers)
    assert message is not None and message.key == "window.check.no_display"
    for lang, words in (("en", ("ssh -X", "gpu-setup-wizard doctor", "no display")), ("ko", ("ssh -X", "화면", "doctor"))):
        text = message.text(lang)
        assert all(w in text for w in words), text
    # an empty DISPLAY is no display either (what `DISPLAY= python -m wizard` gives)
    assert check({"DISPLAY": ""}, system="linux", find=everything_but()).key == "window.check.no_display"


def test_missing_xcb_libraries_name_exactly_their_packages():
    finder = everything_but("libxcb-cursor.so.0", "libxcb-icccm.so.4", "libxcb-keysyms.so.1")
    message = check({"DISPLAY": ":0"}, system="linux", find=finder, display_answers=answers, has_apt=True)
    assert message.key == "window.check.missing_apt"
    assert message.param("command") == "sudo apt-get install libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1"
    text = message.text("ko")
    assert "sudo apt-get install libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1" in text and "라이브러리" in text
    assert "libxcb-cursor.so.0" in message.text("en")


def test_without_apt_the_libraries_are_named():
    message = check({"DISPLAY": ":0"}, system="linux", find=everything_but("libxcb-cursor.so.0"),
                    display_answers=answers, has_apt=False)
    assert message.key == "window.check.missing" and "libxcb-cursor.so.0" in message.text("en")
    assert "apt-get" not in message.text("en")


def test_gui_libraries_are_needed_even_offscreen():
    message = check({"QT_QPA_PLATFORM": "offscreen"}, system="linux", find=everything_but("libEGL.so.1"),
                    has_apt=True)
    assert message.key == "window.check.missing_apt" and message.param("command") == "sudo apt-get install libegl1"
    assert check({"QT_QPA_PLATFORM": "offscreen"}, system="linux", find=everything_but()) is None


def test_a_display_that_does_not_answer():
    message = check({"DISPLAY": ":42"}, system="linux", find=everything_but(), display_answers=lambda d: False)
    assert message.key == "window.check.display_silent" and ":42" in message.text("en")


def test_everything_there_means_no_message():
    assert check({"DISPLAY": ":0"}, system="linux", find=everything_but(), display_answers=answers) is None


def test_wayland_session_falls_back_to_x11_and_reports_x11_first():
    env = {"WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"}
    assert candidate_platforms(env) == ["wayland", "xcb"]
    # wayland's libraries missing, X11 fine: Qt falls back, no message
    assert check(env, system="linux", find=everything_but("libwayland-client.so.0"), display_answers=answers) is None
    # both missing: the X11 line (the README's) is the one printed
    both = everything_but("libwayland-client.so.0", "libxcb-cursor.so.0")
    message = check(env, system="linux", find=both, display_answers=answers, has_apt=True)
    assert message.param("command") == "sudo apt-get install libxcb-cursor0"


def test_qt_qpa_platform_list_and_options():
    assert candidate_platforms({"QT_QPA_PLATFORM": "wayland;xcb"}) == ["wayland", "xcb"]
    assert candidate_platforms({"QT_QPA_PLATFORM": "offscreen:fontengine=freetype"}) == ["offscreen"]
    assert check({"QT_QPA_PLATFORM": "xcb"}, system="linux", find=everything_but()).key == "window.check.no_display"
    assert check({"QT_QPA_PLATFORM": "vnc"}, system="linux", find=everything_but()) is None


def test_windows_and_macos_are_not_checked():
    for system in ("win32", "darwin"):
        assert check({}, system=system, find=everything_but(*[lib.soname for lib in GUI_LIBRARIES])) is None


def test_the_real_finder_finds_a_library_and_misses_a_made_up_one():
    assert library_loads("libc.so.6")
    assert not library_loads("libgsw-no-such-library.so.0")


@pytest.mark.skipif(not (QT_DIR and (QT_DIR / "plugins" / "platforms" / "libqxcb.so").is_file()),
                    reason="PySide6's Linux xcb plugin is not installed here")
@pytest.mark.parametrize("binary", ["plugins/platforms/libqxcb.so", "lib/libQt6XcbQpa.so.6", "lib/libQt6Gui.so.6",
                                    "lib/libQt6DBus.so.6"])
def test_the_list_is_the_plugins_own(binary):
    """Every library the xcb plugin and the Qt libraries it pulls in link against (readelf's
    NEEDED, the list ldd walks) is in the check's list, except Qt's own, the C/C++ runtime, and
    two that come with packages already named (libgthread: libglib2.0-0; zlib: every system)."""
    import shutil

    if not shutil.which("readelf"):
        pytest.skip("readelf (binutils) is not installed")
    out = subprocess.run(["readelf", "-d", str(QT_DIR / binary)], capture_output=True, text=True, timeout=60).stdout
    needed = {line.split("[", 1)[1].rstrip("]") for line in out.splitlines() if "(NEEDED)" in line}
    assert needed, out
    known = {lib.soname for lib in GUI_LIBRARIES + XCB_LIBRARIES}
    known |= {"libstdc++.so.6", "libm.so.6", "libgcc_s.so.1", "libc.so.6", "libgthread-2.0.so.0", "libz.so.1"}
    assert {n for n in needed - known if not n.startswith("libQt6")} == set()


def test_readme_apt_line_names_every_package():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    start = readme.index("sudo apt-get install libxcb")
    line = readme[start:readme.index("```", start)].replace("\\\n", " ")
    packages = set(line.split()[3:])
    assert {lib.package for lib in GUI_LIBRARIES + XCB_LIBRARIES} <= packages, packages


def run_wizard(env_changes: dict[str, str | None], *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONUTF8": "1"}
    for name, value in env_changes.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return subprocess.run([sys.executable, "-m", "wizard", *args], cwd=REPO, env=env, capture_output=True,
                          text=True, encoding="utf-8", timeout=120)


@pytest.mark.parametrize("lang,words", [("en", "no display"), ("ko", "화면(디스플레이)이 없습니다")])
def test_python_m_wizard_without_a_display_prints_the_message_not_a_qt_abort(lang, words):
    out = run_wizard({"DISPLAY": "", "WAYLAND_DISPLAY": None, "QT_QPA_PLATFORM": None, "GSW_LANG": lang})
    assert out.returncode == ExitStatus.BAD_INPUT, (out.returncode, out.stderr)
    assert out.returncode != -signal.SIGABRT
    assert words in out.stderr and "ssh -X" in out.stderr
    assert "qt.qpa" not in out.stderr and "Traceback" not in out.stderr and out.stdout == ""


def test_the_headless_commands_are_not_checked():
    out = run_wizard({"DISPLAY": "", "WAYLAND_DISPLAY": None, "QT_QPA_PLATFORM": None}, "doctor", "--help")
    assert out.returncode == 0 and "doctor" in out.stdout


def test_the_xcb_check_reaches_no_x_server(tmp_path):
    # a display number nothing listens on: libxcb's own connect fails, as Qt's would
    assert not qt_platform.x_display_answers(":187")


def test_python_m_wizard_with_a_display_nobody_serves():
    out = run_wizard({"DISPLAY": ":187", "WAYLAND_DISPLAY": None, "QT_QPA_PLATFORM": None, "GSW_LANG": "en"})
    if "missing here" in out.stderr:
        pytest.skip("this machine lacks Qt's xcb libraries; the message names them instead")
    assert out.returncode == ExitStatus.BAD_INPUT, (out.returncode, out.stderr)
    assert "the display :187 does not answer" in out.stderr and "qt.qpa" not in out.stderr
