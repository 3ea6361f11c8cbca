"""SLOW: the uninstaller's /PURGE asks the app to remove its environments, under wine (issue 23).

``installer.nsi`` compiled over a two-file payload: a dummy GUI exe and a mingw-built stand-in for
``gpu-setup-wizard-cli.exe`` that writes the command line it was given, and whether the app's
files and the user's data were still there when it ran, to a log outside the profile, then exits
with the status the test asks for. Checked in a fresh wine prefix: a plain ``/S`` uninstall does
not run it; ``/S /PURGE`` runs ``storage --clean --wizard-envs --yes`` before the program files
and the data folder go, and the uninstall finishes when the app fails.

What the real command then deletes is tests/integration/test_storage_wizard_envs.py's part; the
whole chain (the installed app under a Hangul profile, ``C:\\GPU-Setup-Wizard\\envs``) is
scripts/windows-check's ``uninstall-purge-after-upgrade`` step.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.packaging.scripts import WINE, WINESERVER, load_script

REPO = Path(__file__).resolve().parents[2]
INSTALLERS = REPO / "installers"
MINGW = shutil.which("x86_64-w64-mingw32-gcc")

pytestmark = pytest.mark.slow


build = load_script("gsw_build_purge", INSTALLERS / "build.py")
cfg = build.cfg

# The stand-in CLI: one line per run, "<argv...>|app=<0/1>|data=<0/1>", UTF-8, then exit GSW_STANDIN_EXIT.
STAND_IN = r"""
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>

static int exists(const wchar_t *path) { return GetFileAttributesW(path) != INVALID_FILE_ATTRIBUTES; }

int wmain(int argc, wchar_t **argv) {
    wchar_t log[MAX_PATH], local[MAX_PATH], me[MAX_PATH], path[MAX_PATH], code[16];
    if (!GetEnvironmentVariableW(L"GSW_STANDIN_LOG", log, MAX_PATH)) return 90;
    GetEnvironmentVariableW(L"LOCALAPPDATA", local, MAX_PATH);
    GetModuleFileNameW(NULL, me, MAX_PATH);
    wchar_t *slash = wcsrchr(me, L'\\');
    if (slash) *slash = 0;
    FILE *f = _wfopen(log, L"ab");
    if (!f) return 91;
    for (int i = 1; i < argc; i++) {
        char buf[1024];
        int n = WideCharToMultiByte(CP_UTF8, 0, argv[i], -1, buf, sizeof buf, NULL, NULL);
        if (n > 0) fprintf(f, "%s%s", i > 1 ? " " : "", buf);
    }
    swprintf(path, MAX_PATH, L"%ls\\gpu-setup-wizard.exe", me);
    fprintf(f, "|app=%d", exists(path));
    swprintf(path, MAX_PATH, L"%ls\\gpu-setup-wizard\\settings.json", local);
    fprintf(f, "|data=%d\n", exists(path));
    fclose(f);
    return GetEnvironmentVariableW(L"GSW_STANDIN_EXIT", code, 16) ? _wtoi(code) : 0;
}
"""


def _tools() -> str:
    makensis = build.find_makensis()
    if not makensis:
        pytest.skip("makensis is not installed (Debian package nsis)")
    if MINGW is None:
        pytest.skip("mingw-w64 (Debian gcc-mingw-w64-x86-64) is not installed")
    if not (Path(WINE).exists() and Path(WINESERVER).exists()):
        pytest.skip("wine64 is not installed (Debian package wine64)")
    return makensis


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    makensis = _tools()
    tmp = tmp_path_factory.mktemp("purge")
    payload = tmp / "payload"
    payload.mkdir()
    (tmp / "standin.c").write_text(STAND_IN, encoding="utf-8")
    res = subprocess.run([MINGW, "-municode", "-O1", "-o", str(payload / f"{cfg.CLI_EXE}.exe"), str(tmp / "standin.c")],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    shutil.copy2(payload / f"{cfg.CLI_EXE}.exe", payload / f"{cfg.GUI_EXE}.exe")  # any exe: never started here
    installer = build.build_installer(payload, tmp / "out", tmp / "nsis", cfg.app_version(), fast=True,
                                      makensis=makensis)
    prefix = tmp / "wine prefix"
    log = tmp / "cli-runs.log"
    env = {**os.environ, "WINEPREFIX": str(prefix), "WINEDEBUG": "-all", "WINEDLLOVERRIDES": "winemenubuilder.exe=d",
           "GSW_STANDIN_LOG": "Z:" + str(log).replace("/", "\\")}
    env.pop("DISPLAY", None)
    res = subprocess.run([WINE, "wineboot", "-i"], env=env, capture_output=True, text=True, errors="replace",
                         timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    yield installer, prefix, log, env
    subprocess.run([WINESERVER, "-k"], env=env, timeout=60, check=False)


def _run(env: dict, *argv: str, **extra: str) -> subprocess.CompletedProcess:
    res = subprocess.run([WINE, *argv], env={**env, **extra}, capture_output=True, text=True, errors="replace",
                         timeout=600)
    subprocess.run([WINESERVER, "-w"], env=env, timeout=600, check=False)  # the uninstaller runs on from %TEMP%
    return res


def _profile(prefix: Path) -> Path:
    users = [p for p in (prefix / "drive_c" / "users").iterdir() if p.name.lower() != "public"]
    assert len(users) == 1, users
    return users[0]


def test_purge_runs_the_app_s_removal_first_and_survives_its_failure(setup):
    installer, prefix, log, env = setup
    profile = _profile(prefix)
    install_dir = profile / "AppData" / "Local" / "Programs" / cfg.APP_TITLE
    data = profile / "AppData" / "Local" / cfg.APP_ID
    envs_dir = profile / "GPU-Setup-Wizard" / "envs" / "torch"

    def install_with_user_data() -> None:
        assert _run(env, str(installer), "/S").returncode == 0
        assert (install_dir / f"{cfg.CLI_EXE}.exe").is_file()
        for folder in (data, envs_dir):
            folder.mkdir(parents=True, exist_ok=True)
        (data / "settings.json").write_text("{}\n", encoding="utf-8")
        (envs_dir / "pyvenv.cfg").write_text("home = C:\\Python313\n", encoding="utf-8")

    # a plain uninstall keeps the user's environments: the app is not asked to remove any
    install_with_user_data()
    assert _run(env, str(install_dir / "uninstall.exe"), "/S").returncode == 0
    assert not install_dir.exists() and (data / "settings.json").is_file() and (envs_dir / "pyvenv.cfg").is_file()
    assert not log.exists()

    # /PURGE: the app runs first, with its files and the data (its install records) still there;
    # it fails here (exit 1), and the uninstall goes on to delete the program and both folders
    install_with_user_data()
    res = _run(env, str(install_dir / "uninstall.exe"), "/S", "/PURGE", GSW_STANDIN_EXIT="1")
    assert res.returncode == 0, res.stderr[-2000:]
    runs = log.read_text(encoding="utf-8").splitlines()
    assert len(runs) == 1, runs
    argv, app, data_then = runs[0].split("|")
    assert re.fullmatch(r"storage --clean --wizard-envs --yes --lang (ko|en)", argv), argv
    assert (app, data_then) == ("app=1", "data=1")
    assert not install_dir.exists()
    assert not data.exists() and not (profile / "GPU-Setup-Wizard").exists()

    # the command it ran is one the app parses
    from wizard.cli.parser import build_parser

    args = build_parser("en").parse_args(argv.split())
    assert args.wizard_envs and args.clean and args.yes and args.handler is not None
