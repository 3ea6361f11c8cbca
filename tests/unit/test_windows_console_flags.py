"""No child process of the windowed wizard may open a console window on Windows.

A console program (python.exe, uv.exe, nvidia-smi.exe) started by a GUI-subsystem program gets
a console window of its own unless CREATE_NO_WINDOW is passed. The process runner always passes
it; the Jupyter kernel is started by jupyter_client, which adds it only when the parent is
``pythonw.exe`` -- and the frozen wizard is ``gpu-setup-wizard.exe``.
"""

from __future__ import annotations

from wizard.core.base.process import popen_flags
from wizard.core.verify.kernel_verify import kernel_popen_flags

WINDOWS_CREATE_NO_WINDOW = 0x08000000  # winbase.h


def test_the_kernel_gets_no_console_window_on_windows():
    assert kernel_popen_flags("nt") == {"creationflags": WINDOWS_CREATE_NO_WINDOW}


def test_the_kernel_gets_no_windows_flag_elsewhere():
    # POSIX Popen refuses any creationflags (ValueError), so nothing may leak there.
    assert kernel_popen_flags("posix") == {}


def test_the_kernel_flags_match_the_process_runner_s():
    # The same flag as every other child, so a GUI start shows no window for any of them.
    runner = popen_flags()
    if "creationflags" in runner:  # on Windows
        assert runner["creationflags"] & WINDOWS_CREATE_NO_WINDOW
        assert kernel_popen_flags()["creationflags"] == WINDOWS_CREATE_NO_WINDOW
    else:
        assert kernel_popen_flags() == {}
