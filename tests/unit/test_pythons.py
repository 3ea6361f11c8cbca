"""Finding Python interpreters: py launcher, PATH, common folders, uv; one query each."""

from __future__ import annotations

import ast
import json
import sys
import sysconfig
from collections import Counter
from pathlib import Path

import pytest

from tests.recorded_host import RecordedHost
from wizard.core.base.host import CommandResult, RealHost
from wizard.core.machine.pythons import (
    QUERY_ARGS,
    QUERY_SCRIPT,
    find_pythons,
    is_store_alias,
    parse_py_launcher,
    parse_query_output,
    parse_uv_python_list,
    query_interpreter,
)

RECORDED = Path(__file__).resolve().parents[1] / "data" / "recorded"

HOME_W = "C:\\Users\\김철수"
LOCAL_W = HOME_W + "\\AppData\\Local"
PY312_W = LOCAL_W + "\\Programs\\Python\\Python312\\python.exe"
PY311_W = LOCAL_W + "\\Programs\\Python\\Python311\\python.exe"
PY39_32_W = LOCAL_W + "\\Programs\\Python\\Python39-32\\python.exe"
PY310_W = "C:\\Program Files\\Python310\\python.exe"
ANACONDA_W = HOME_W + "\\anaconda3\\python.exe"
PY38_W = "C:\\Python38\\python.exe"
UV_W = HOME_W + "\\AppData\\Roaming\\uv\\python\\cpython-3.12.4-windows-x86_64-none\\python.exe"
STORE_PY = LOCAL_W + "\\Microsoft\\WindowsApps\\python.exe"
STORE_PY3 = LOCAL_W + "\\Microsoft\\WindowsApps\\python3.exe"

QUERY_KEYS = {"gsw_python_query", "executable", "realpath", "prefix", "version", "machine", "bits",
              "implementation", "venv", "externally_managed"}


def recorded(name: str) -> str:
    """A recorded output, byte for byte (CRLF kept)."""
    return (RECORDED / name).read_bytes().decode("utf-8")


def query_ok(version: str, executable: str, prefix: str, *, realpath: str | None = None, machine: str = "x86_64",
             bits: int = 64, venv: bool = False, externally_managed: bool = False) -> CommandResult:
    """What the query script prints for an interpreter (its format is checked on this
    machine's real interpreter in test_query_script_output_format)."""
    data = {"gsw_python_query": 1, "executable": executable, "realpath": realpath or executable,
            "prefix": prefix, "version": version, "machine": machine, "bits": bits,
            "implementation": "CPython", "venv": venv, "externally_managed": externally_managed}
    return CommandResult([], 0, json.dumps(data) + "\n")


def timed_out() -> CommandResult:
    return CommandResult([], None, timed_out=True, duration_s=20.0)


def queries(results: dict[str, CommandResult]) -> dict[str, CommandResult]:
    """Command patterns for the query of each interpreter path."""
    return {f"{path} *": result for path, result in results.items()}


def executables_run(host: RecordedHost) -> Counter:
    return Counter(call[0] for call in host.calls if call[1:] == QUERY_ARGS)


# ------------------------------------------------------------------------- py launcher


def test_py_launcher_new_format():
    paths = parse_py_launcher(recorded("windows/py-0p_launcher311.txt"))
    assert paths == [PY312_W, PY311_W, PY310_W, PY39_32_W, ANACONDA_W]


def test_py_launcher_old_format_separate_streams():
    text = recorded("windows/py-0p_launcher39_stdout.txt") + "\n" + recorded("windows/py-0p_launcher39_stderr.txt")
    assert parse_py_launcher(text) == [
        HOME_W + "\\AppData\\Local\\Programs\\Python\\Python310\\python.exe",
        "C:\\Program Files (x86)\\Python38-32\\python.exe",
    ]


def test_py_launcher_old_format_as_console_shows_it():
    """The default's trailing ' *' is not part of the path."""
    assert parse_py_launcher(recorded("windows/py-0p_launcher39_console.txt")) == [
        HOME_W + "\\AppData\\Local\\Programs\\Python\\Python310\\python.exe",
        "C:\\Program Files (x86)\\Python38-32\\python.exe",
    ]


@pytest.mark.parametrize("text", [
    "", "No Installed Pythons Found!\n", "No installed Pythons found!\r\n",
    "Installed Pythons found by py Launcher for Windows\n\nCan't find a Default Python.\n\n",
])
def test_py_launcher_nothing_installed(text):
    assert parse_py_launcher(text) == []


def test_py_launcher_executable_args_and_install_dir_only():
    text = (" -V:Custom/3.12      D:\\Tools\\Py 3.12\\python.exe -X utf8\r\n"
            " -V:Other/1.0        D:\\Portable Python\r\n")
    assert parse_py_launcher(text) == ["D:\\Tools\\Py 3.12\\python.exe", "D:\\Portable Python\\python.exe"]


@pytest.mark.parametrize("path, expected", [
    (STORE_PY, True),
    (STORE_PY3, True),
    ("c:/users/kim/appdata/local/microsoft/windowsapps/PYTHON.EXE", True),
    (LOCAL_W + "\\Microsoft\\WindowsApps\\python3.12.exe", False),
    (LOCAL_W + "\\Microsoft\\WindowsApps\\PythonSoftwareFoundation.Python.3.12_qbz5n2kfra8p0\\python.exe", False),
    (PY312_W, False),
])
def test_store_alias(path, expected):
    assert is_store_alias(path) is expected


# ------------------------------------------------------------------------------ Windows


def windows_host(frozen: bool = False) -> RecordedHost:
    """Windows 11 with Hangul user name: python.org 3.12/3.11/3.9-32 per user, 3.10 in Program
    Files, Anaconda (hangs), C:\\Python38, a uv Python, and the Store's stubs on PATH."""
    commands = queries({
        PY312_W: query_ok("3.12.7", PY312_W, LOCAL_W + "\\Programs\\Python\\Python312", machine="AMD64"),
        PY311_W: query_ok("3.11.9", PY311_W, LOCAL_W + "\\Programs\\Python\\Python311", machine="AMD64"),
        PY310_W: query_ok("3.10.11", PY310_W, "C:\\Program Files\\Python310", machine="AMD64"),
        PY39_32_W: query_ok("3.9.13", PY39_32_W, LOCAL_W + "\\Programs\\Python\\Python39-32", machine="AMD64",
                            bits=32),
        ANACONDA_W: timed_out(),
        PY38_W: query_ok("3.8.10", PY38_W, "C:\\Python38", machine="AMD64"),
        UV_W: query_ok("3.12.4", UV_W, UV_W.rsplit("\\", 1)[0], machine="AMD64"),
        STORE_PY: CommandResult([], 9009, "", recorded("windows/store_alias_python.txt")),
        STORE_PY3: CommandResult([], 9009, "", recorded("windows/store_alias_python.txt")),
    })
    commands["C:\\Windows\\py.exe -0p"] = CommandResult([], 0, recorded("windows/py-0p_launcher311.txt"))
    exe = "C:\\Program Files\\GPU-Setup-Wizard\\GPU-Setup-Wizard.exe" if frozen else PY312_W
    return RecordedHost(
        os_name="windows",
        platform={"python_executable": exe, "frozen": frozen, "machine": "AMD64"},
        commands=commands,
        on_path={"py": "C:\\Windows\\py.exe", "python": STORE_PY, "python3": STORE_PY3},
        env={"LOCALAPPDATA": LOCAL_W, "APPDATA": HOME_W + "\\AppData\\Roaming", "USERPROFILE": HOME_W},
        dirs={
            LOCAL_W + "\\Programs\\Python": ["Launcher", "Python311", "Python312", "Python39-32"],
            "C:\\": ["Intel", "Program Files", "Program Files (x86)", "Python38", "Users", "Windows"],
            "C:\\Program Files": ["Common Files", "NVIDIA Corporation", "Python310"],
            HOME_W + "\\AppData\\Roaming\\uv\\python": [".lock", "cpython-3.12.4-windows-x86_64-none"],
        },
        files={path: "" for path in (PY312_W, PY311_W, PY39_32_W, PY310_W, PY38_W, UV_W)},
        home_dir=HOME_W,
    )


def test_windows_finds_each_python_once_newest_first():
    host = windows_host()
    found = find_pythons(host)
    assert [(p.path, p.version, p.source) for p in found] == [
        (PY312_W, "3.12.7", "current"),
        (UV_W, "3.12.4", "uv"),
        (PY311_W, "3.11.9", "py-launcher"),
        (PY310_W, "3.10.11", "py-launcher"),
        (PY39_32_W, "3.9.13", "py-launcher"),
        (PY38_W, "3.8.10", "common"),
        (ANACONDA_W, None, "py-launcher"),
    ]
    assert found[4].bits == 32
    assert found[-1].error == "timed out after 20 s"
    assert all(p.error is None for p in found[:-1])
    # each candidate was run exactly once, whatever number of places listed it
    assert set(executables_run(host).values()) == {1}


def test_windows_store_alias_is_never_run():
    host = windows_host()
    find_pythons(host)
    assert not any("WindowsApps" in call[0] for call in host.calls)


def test_windows_query_is_an_argv_list_with_the_space_path_intact():
    host = windows_host()
    find_pythons(host)
    assert [PY310_W, *QUERY_ARGS] in host.calls


def test_frozen_bundle_executable_is_not_queried():
    host = windows_host(frozen=True)
    found = find_pythons(host)
    assert not any(call[0].endswith("GPU-Setup-Wizard.exe") for call in host.calls)
    assert "current" not in {p.source for p in found}
    # the same interpreter is still found where the launcher lists it
    assert (PY312_W, "py-launcher") in {(p.path, p.source) for p in found}


def test_windows_old_launcher_streams_are_both_read():
    host = windows_host()
    host.commands["C:\\Windows\\py.exe -0p"] = CommandResult(
        [], 0, recorded("windows/py-0p_launcher39_stdout.txt"), recorded("windows/py-0p_launcher39_stderr.txt"))
    py310_user = LOCAL_W + "\\Programs\\Python\\Python310\\python.exe"
    host.commands[f"{py310_user} *"] = query_ok("3.10.11", py310_user, py310_user.rsplit("\\", 1)[0])
    found = find_pythons(host)
    assert (py310_user, "py-launcher") in {(p.path, p.source) for p in found}
    x86 = next(p for p in found if p.path == "C:\\Program Files (x86)\\Python38-32\\python.exe")
    assert x86.error == "not found"  # nothing recorded for it: the host says "not found"


# -------------------------------------------------------------------------------- Linux

VENV = "/home/student/GPU-Setup-Wizard/envs/course/bin/python"
PYENV_39 = "/home/student/.pyenv/versions/3.9.18/bin/python"
UV_312 = "/home/student/.local/share/uv/python/cpython-3.12.4-linux-x86_64-gnu/bin/python3.12"
UV_312_DIR_EXE = "/home/student/.local/share/uv/python/cpython-3.12.4-linux-x86_64-gnu/bin/python3"


def linux_host() -> RecordedHost:
    """Ubuntu 22.04: the wizard runs from a venv on the system 3.10; pyenv, uv, a broken shim,
    a wrapper script called python, and a 3.13 on a network mount that hangs."""
    commands = queries({
        VENV: query_ok("3.10.12", VENV, "/home/student/GPU-Setup-Wizard/envs/course",
                       realpath="/usr/bin/python3.10", venv=True, externally_managed=True),
        "/usr/bin/python3": query_ok("3.10.12", "/usr/bin/python3", "/usr", realpath="/usr/bin/python3.10",
                                     externally_managed=True),
        "/usr/bin/python3.10": query_ok("3.10.12", "/usr/bin/python3.10", "/usr", externally_managed=True),
        "/usr/local/bin/python3.13": timed_out(),
        "/home/student/.pyenv/shims/python3.9": CommandResult(
            [], 127, "", recorded("python/pyenv_shim_not_installed_stderr.txt")),
        "/home/student/bin/python": CommandResult([], 0, recorded("python/not_a_python_stdout.txt")),
        PYENV_39: query_ok("3.9.18", PYENV_39, "/home/student/.pyenv/versions/3.9.18",
                           realpath="/home/student/.pyenv/versions/3.9.18/bin/python3.9"),
        UV_312: query_ok("3.12.4", UV_312, UV_312.rsplit("/bin/", 1)[0]),
        UV_312_DIR_EXE: query_ok("3.12.4", UV_312_DIR_EXE, UV_312.rsplit("/bin/", 1)[0], realpath=UV_312),
    })
    commands["/home/student/.local/bin/uv python list --only-installed --output-format json"] = CommandResult(
        [], 0, recorded("python/uv_python_list_linux.json"))
    return RecordedHost(
        os_name="linux",
        platform={"python_executable": VENV, "frozen": False, "machine": "x86_64"},
        commands=commands,
        on_path={"python3": "/usr/bin/python3", "python": "/home/student/bin/python",
                 "python3.10": "/usr/bin/python3.10", "python3.9": "/home/student/.pyenv/shims/python3.9",
                 "uv": "/home/student/.local/bin/uv"},
        dirs={
            "/usr/bin": ["perl", "python3", "python3-config", "python3.10", "python3.10-config"],
            "/usr/local/bin": ["pip3", "python3.13", "python3.13-config"],
            "/home/student/.pyenv/versions": ["3.9.18"],
            "/home/student/.local/share/uv/python": [".lock", "cpython-3.12.4-linux-x86_64-gnu"],
        },
        files={path: "" for path in ("/usr/local/bin/python3.13", PYENV_39, UV_312_DIR_EXE)},
    )


def test_linux_candidates_deduplicated_and_sorted():
    host = linux_host()
    found = find_pythons(host)
    summary = [(p.path, p.version, p.source) for p in found]
    assert summary[:4] == [
        (UV_312, "3.12.4", "uv"),
        (VENV, "3.10.12", "current"),
        ("/usr/bin/python3", "3.10.12", "path"),
        (PYENV_39, "3.9.18", "common"),
    ]
    failed = {p.path: p.error for p in found[4:]}
    assert all(p.version is None for p in found[4:])
    assert set(failed) == {"/home/student/bin/python", "/usr/local/bin/python3.13"}
    # pyenv's shim is a bash script that starts pyenv (and exits 127 for a version not installed):
    # never run; the version behind it is found under ~/.pyenv/versions (issue 17).
    assert "/home/student/.pyenv/shims/python3.9" not in executables_run(host)
    assert failed["/usr/local/bin/python3.13"] == "timed out after 20 s"
    assert failed["/home/student/bin/python"].startswith("unexpected output: 'Usage: python")
    assert set(executables_run(host).values()) == {1}


def test_linux_pep668_marker_applies_to_system_python_not_to_a_venv_on_it():
    found = {p.path: p for p in find_pythons(linux_host())}
    assert found["/usr/bin/python3"].externally_managed is True
    assert found["/usr/bin/python3"].is_venv is False
    assert found[VENV].is_venv is True
    assert found[VENV].externally_managed is False
    assert found[PYENV_39].externally_managed is False


def test_linux_config_scripts_are_not_candidates():
    host = linux_host()
    find_pythons(host)
    assert not any(call[0].endswith("-config") for call in host.calls)


def test_parse_uv_python_list():
    assert parse_uv_python_list(recorded("python/uv_python_list_linux.json")) == [UV_312, "/usr/bin/python3.10"]
    assert parse_uv_python_list("error: unexpected argument '--output-format' found") == []
    assert parse_uv_python_list('{"path": "/x"}') == []


BREW_PREFIX = "/opt/homebrew/opt/python@3.13/Frameworks/Python.framework/Versions/3.13"
BREW_REAL = "/opt/homebrew/Cellar/python@3.13/3.13.0/Frameworks/Python.framework/Versions/3.13/bin/python3.13"
CLT_PREFIX = "/Library/Developer/CommandLineTools/Library/Frameworks/Python3.framework/Versions/3.9"


def test_macos_clt_stub_skipped_and_framework_found():
    fw = "/Library/Frameworks/Python.framework/Versions/3.12/bin/python3"
    host = RecordedHost(
        os_name="macos",
        platform={"python_executable": "/Applications/GPU Setup Wizard.app/Contents/MacOS/GPU Setup Wizard",
                  "frozen": True, "machine": "arm64"},
        on_path={"python3": "/usr/bin/python3"},
        dirs={"/Library/Frameworks/Python.framework/Versions": ["3.12", "Current"],
              "/opt/homebrew/bin": ["python3", "python3.13", "pip3"]},
        files={fw: "", "/opt/homebrew/bin/python3": "", "/opt/homebrew/bin/python3.13": ""},
        commands=queries({
            fw: query_ok("3.12.4", fw, "/Library/Frameworks/Python.framework/Versions/3.12", machine="arm64"),
            "/opt/homebrew/bin/python3": query_ok("3.13.0", "/opt/homebrew/bin/python3", BREW_PREFIX,
                                                  realpath=BREW_REAL, machine="arm64", externally_managed=True),
            "/opt/homebrew/bin/python3.13": query_ok("3.13.0", "/opt/homebrew/bin/python3.13", BREW_PREFIX,
                                                     realpath=BREW_REAL, machine="arm64", externally_managed=True),
        }),
        home_dir="/Users/kim",
    )
    found = find_pythons(host)
    assert [(p.path, p.version) for p in found] == [("/opt/homebrew/bin/python3", "3.13.0"), (fw, "3.12.4")]
    assert not any(call[0] == "/usr/bin/python3" for call in host.calls)
    assert found[0].externally_managed is True


def test_macos_clt_python_kept_when_tools_installed():
    host = RecordedHost(
        os_name="macos",
        platform={"python_executable": "", "frozen": False},
        on_path={"python3": "/usr/bin/python3"},
        files={"/Library/Developer/CommandLineTools/usr/bin/python3": ""},
        commands=queries({"/usr/bin/python3": query_ok("3.9.6", "/usr/bin/python3", CLT_PREFIX)}),
        home_dir="/Users/kim",
    )
    assert [p.version for p in find_pythons(host)] == ["3.9.6"]


def test_nothing_found():
    assert find_pythons(RecordedHost(os_name="linux", platform={"frozen": True})) == []


# ------------------------------------------------------------------------- query script


def test_parse_query_output_skips_noise_before_the_json():
    line = query_ok("3.11.4", "/x/python", "/x").stdout
    assert parse_query_output("sitecustomize: hello\n" + line)["version"] == "3.11.4"
    assert parse_query_output('{"version": "3.11"}\n') is None  # not our script's object
    assert parse_query_output("{not json\n") is None
    assert parse_query_output("") is None


def test_query_script_is_old_python_syntax():
    """No f-strings or newer syntax: an old interpreter must still report its version."""
    ast.parse(QUERY_SCRIPT, feature_version=(3, 4))
    assert "\n" not in QUERY_SCRIPT


def test_query_script_output_format_on_this_interpreter():
    interp, key = query_interpreter(RealHost(), sys.executable, "current")
    assert interp.error is None
    res = RealHost().run([sys.executable, *QUERY_ARGS])
    assert set(json.loads(res.stdout)) == QUERY_KEYS
    assert key is not None and key[1]  # resolved executable and prefix


# ----------------------------------------------------------------------------- RealHost


def test_real_host_finds_this_interpreter_with_its_version():
    found = find_pythons(RealHost())
    current = [p for p in found if p.source == "current"]
    assert len(current) == 1
    me = current[0]
    assert me.path == sys.executable
    assert me.version == "{}.{}.{}".format(*sys.version_info[:3])
    assert me.bits == (64 if sys.maxsize > 2 ** 32 else 32)
    assert me.is_venv == (sys.prefix != sys.base_prefix)
    marker = Path(sysconfig.get_path("stdlib")) / "EXTERNALLY-MANAGED"
    assert me.externally_managed == (marker.is_file() and sys.prefix == sys.base_prefix)
    assert me.error is None
