"""SLOW: the frozen bundle and the Windows installer, end to end (minutes, not seconds).

One build per test run: ``installers/build.py`` in a clean venv under a folder with a Hangul
name and a space (students have ``C:\\Users\\김철수``), or the dist folder named by
``GSW_BUNDLE_DIST`` when an earlier step of the same CI run built it with ``--keep-self-check``.
Then:

- the bundle's layout (resources, probe scripts as files, uv, the exclusions, the icon);
- the bundle self-check (pyqtgraph live plot, probe scripts read by a target Python);
- ``--smoke-test`` of both executables offscreen, and under Xvfb with the real xcb plugin;
- the bundled ``gpu-setup-wizard-cli doctor --json`` against the same command from source;
- the NSIS script compiled over the bundle (no compression: seconds, not minutes), and under
  wine64: silent install, files/shortcut/HKCU keys, upgrade to a newer version, uninstall
  leaving only the user's data, then ``/PURGE``;
- signing hooks with a throw-away certificate (osslsigncode).

Each part skips with the reason when its tool is missing (makensis: Debian ``nsis``; wine64:
``wine64``; Xvfb: ``xvfb``; osslsigncode and openssl). Timings go to
``artifacts/packaging/bundle-test.json``; no test asserts a duration.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.packaging.scripts import WINE, WINESERVER, load_script

REPO = Path(__file__).resolve().parents[2]
INSTALLERS = REPO / "installers"
BUILD_PY = INSTALLERS / "build.py"
ARTIFACTS = REPO / "artifacts" / "packaging"

pytestmark = pytest.mark.slow


build = load_script("gsw_build", BUILD_PY)  # also puts installers/ on sys.path for bundle_config
cfg = build.cfg
mkunlist = load_script("gsw_mkunlist", INSTALLERS / "windows" / "mkunlist.py")

TIMINGS: dict[str, float | str] = {}


def _timed(key: str, argv: list[str], **kw) -> subprocess.CompletedProcess:
    started = time.monotonic()
    res = subprocess.run(argv, capture_output=True, text=True, encoding="utf-8", errors="replace", **kw)
    TIMINGS[key] = round(time.monotonic() - started, 2)
    return res


@pytest.fixture(scope="session", autouse=True)
def _write_timings():
    yield
    if TIMINGS:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        (ARTIFACTS / "bundle-test.json").write_text(json.dumps(TIMINGS, indent=2), encoding="utf-8")


# ------------------------------------------------------------------------------ the build
@dataclass
class Built:
    dist: Path
    bundle: Path  # the folder holding the executables
    summary: dict
    python: str  # the build venv's interpreter: a "target environment" for the probe check
    tmp: Path
    extra: dict = field(default_factory=dict)


@pytest.fixture(scope="session")
def built(tmp_path_factory) -> Built:
    prebuilt = os.environ.get("GSW_BUNDLE_DIST")
    tmp = tmp_path_factory.mktemp("번들 bundle")
    if prebuilt:
        dist = Path(prebuilt).resolve()
    else:
        venv_dir = tmp / "venv"
        started = time.monotonic()
        try:
            py = build.ensure_venv(venv_dir, [])
        except build.BuildError as exc:
            if "pip install failed" in str(exc):
                pytest.skip(f"cannot install the build dependencies from the package index: {str(exc)[-400:]}")
            raise
        TIMINGS["venv_install_s"] = round(time.monotonic() - started, 1)
        dist = tmp / "dist"
        res = _timed("build_py_s", [str(py), str(BUILD_PY), "--dist", str(dist), "--work", str(tmp / "work"),
                                    "--installer", "no", "--keep-self-check"], timeout=3600)
        assert res.returncode == 0, f"build.py failed:\n{res.stdout[-4000:]}\n{res.stderr[-6000:]}"
    summary = json.loads((dist / "build-summary.json").read_text(encoding="utf-8"))
    bundle = build.exe_dir(dist)
    if not build.exe_path(bundle, cfg.SELF_CHECK_EXE).exists():
        pytest.fail(f"{dist} was built without --keep-self-check; the self-check test needs it")
    TIMINGS["bundle_bytes"] = summary["bundle"]["bytes"]
    return Built(dist, bundle, summary, summary["python_executable"], tmp)


def _bundle_run(built: Built, exe: str, *args: str, platform: str = "offscreen", env: dict | None = None,
                key: str | None = None) -> subprocess.CompletedProcess:
    argv = [str(build.exe_path(built.bundle, exe)), *args]
    run_env = env or build.bundle_env(platform)
    if key:
        return _timed(key, argv, env=run_env, timeout=120)
    return subprocess.run(argv, capture_output=True, text=True, encoding="utf-8", errors="replace",
                          env=run_env, timeout=120)


# ---------------------------------------------------------------------------- the bundle
def test_bundle_layout(built):
    internal = built.bundle / cfg.CONTENTS_DIR
    for exe in (cfg.GUI_EXE, cfg.CLI_EXE):
        assert os.access(build.exe_path(built.bundle, exe), os.X_OK), exe
    # resources/ is copied whole and byte for byte
    source = sorted(p.relative_to(REPO / "wizard" / "resources") for p in (REPO / "wizard" / "resources").rglob("*") if p.is_file())
    bundled = sorted(p.relative_to(internal / "wizard" / "resources") for p in (internal / "wizard" / "resources").rglob("*") if p.is_file())
    assert bundled == source
    assert (internal / "wizard" / "resources" / "i18n" / "window.json").read_bytes() == (REPO / "wizard/resources/i18n/window.json").read_bytes()
    # probe scripts are plain source files, because a target interpreter runs them
    probes = cfg.probe_scripts()
    assert probes
    for src in probes:
        assert (internal / "wizard" / "probe" / src.name).read_bytes() == src.read_bytes()
    # uv travels inside the bundle
    uv = internal / cfg.TOOLS_DEST / ("uv.exe" if os.name == "nt" else "uv")
    assert uv.is_file(), "no uv in the bundle: the build environment lacks the uv package (`package` extra)"
    # exclusions and dropped files really are gone; what pyqtgraph needs is there
    names = {p.name for p in internal.rglob("*")}
    for module in ("QtNetwork", "QtSvg", "QtTest", "QtDBus"):
        assert not any(n.startswith(f"{module}.") and n.endswith((".so", ".pyd")) for n in names), module
    assert any(n.startswith("QtOpenGL.") for n in names)
    translations = [p.name for p in internal.rglob("*.qm")]
    assert translations and all(n in cfg.KEPT_QT_TRANSLATIONS for n in translations), translations
    assert "qtbase_ko.qm" in translations  # Qt's own dialogs in Korean (wizard/ui/translations.py)
    assert (internal / "wizard" / "resources" / "fonts" / "GSWSansCJKKR-Regular.otf").is_file()  # the Hangul font
    assert not (set(n.lower() for n in names) & set(cfg.DROPPED_BINARIES))


def test_self_check_draws_the_live_plot_and_finds_the_probes(built):
    res = _bundle_run(built, cfg.SELF_CHECK_EXE, "--python", built.python, key="self_check_s")
    assert res.returncode == 0, res.stdout + res.stderr
    report = json.loads(res.stdout.strip().splitlines()[-1])
    assert report["ok"] and not report["errors"]
    expected = {"frozen", "resources_in_bundle", "probe_scripts_in_bundle", "live_plot_data", "live_plot_painted",
                "qtopengl_loaded", "target_python_reads_probes", "bundled_uv_runs"}
    assert expected <= set(report["checks"]), report["checks"]
    assert all(report["checks"].values()), report["checks"]
    assert report["versions"]["platform"] == "offscreen"


@pytest.mark.parametrize("exe", [cfg.GUI_EXE, cfg.CLI_EXE])
def test_smoke_test_offscreen(built, exe):
    res = _bundle_run(built, exe, "--smoke-test", key=f"smoke_offscreen_{exe}_s")
    assert res.returncode == 0, res.stderr
    assert re.search(r"^smoke-test: first page painted after \d+ ms$", res.stdout, re.MULTILINE), res.stdout




def test_smoke_test_under_xvfb_with_xcb(built, xvfb_display):
    env = {**build.bundle_env("xcb"), "DISPLAY": xvfb_display}
    res = _bundle_run(built, cfg.GUI_EXE, "--smoke-test", env=env, key="smoke_xcb_s")
    assert res.returncode == 0, res.stderr
    assert "smoke-test: first page painted after" in res.stdout
    assert "Could not load the Qt platform plugin" not in res.stderr


def _doctor_from_source() -> dict:
    out = subprocess.run([sys.executable, "-m", "wizard", "doctor", "--json"], cwd=REPO, capture_output=True,
                         text=True, encoding="utf-8", timeout=120, env={**os.environ, "GSW_LANG": "en"})
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_bundled_doctor_json_matches_the_source_run(built):
    res = _bundle_run(built, cfg.CLI_EXE, "doctor", "--json", key="doctor_json_s")
    assert res.returncode == 0, res.stderr
    frozen = json.loads(res.stdout)
    source = _doctor_from_source()
    assert frozen["schema"] == source["schema"]
    assert frozen["generator"] == source["generator"]
    assert frozen["nvidia"]["status"] == source["nvidia"]["status"]
    assert frozen["nvidia"]["gpus"] == source["nvidia"]["gpus"]
    assert [f["id"] for f in frozen["findings"]] == [f["id"] for f in source["findings"]]
    stable = ("os", "os_version", "arch", "cpu_model", "cpu_logical_cores", "ram_total_bytes", "is_wsl")
    assert {k: frozen["system"][k] for k in stable} == {k: source["system"][k] for k in stable}
    # the frozen executable is not a Python: the bundle lists every interpreter except "current"
    current = {p["path"] for p in source["pythons"] if p["source"] == "current"}
    assert {p["path"] for p in frozen["pythons"]} - current == {p["path"] for p in source["pythons"]} - current
    assert all(p["source"] != "current" for p in frozen["pythons"])


def test_bundled_verify_runs_the_probe_with_the_target_python(built, torch_python):
    """The frozen CLI runs verify.py from inside the bundle with ANOTHER interpreter (the target
    environment's), never with itself: the probe path works frozen."""
    res = _bundle_run(built, cfg.CLI_EXE, "verify", "--python", str(torch_python), "--json")
    assert res.returncode == 0, res.stderr[-2000:]
    doc = json.loads(res.stdout)
    checks = {c["id"]: c["status"] for c in doc["checks"]}
    assert checks["torch.import"] == "pass" and checks["cpu.matmul"] == "pass"
    assert doc["python"] == str(torch_python)
    assert doc["probe"]["argv"][0] == str(torch_python)  # run by the target's Python, not the bundle
    script = Path(doc["probe"]["argv"][2])
    assert script.name == "verify.py" and built.bundle in script.parents  # the copy inside the bundle


def test_bundled_cli_reports_the_app_version(built):
    res = _bundle_run(built, cfg.CLI_EXE, "--version")
    assert res.returncode == 0
    assert res.stdout.strip() == f"gpu-setup-wizard {cfg.app_version()}"


# ---------------------------------------------------------------------------- installer
_major, _minor = cfg.windows_version(cfg.app_version())[:2]
OLD, NEW = cfg.app_version(), f"{_major}.{_minor + 1}.0"  # the upgrade goes to a newer version number


def _need_makensis() -> str:
    makensis = build.find_makensis()
    if not makensis:
        pytest.skip("makensis is not installed (Debian package nsis)")
    return makensis


def _payload(built: Built, name: str, marker: str) -> Path:
    """A hard-linked copy of the bundle plus one version-specific file (cheap, same bytes)."""
    dest = built.tmp / name

    def link_or_copy(src: str, dst: str) -> None:
        try:
            os.link(src, dst)
        except OSError:  # another file system (GSW_BUNDLE_DIST elsewhere)
            shutil.copy2(src, dst)

    if not dest.exists():
        shutil.copytree(built.bundle, dest, symlinks=True, copy_function=link_or_copy)
        (dest / cfg.CONTENTS_DIR / marker).write_text(f"{name}\n", encoding="utf-8")
    return dest


@pytest.fixture(scope="module")
def installers(built) -> dict[str, Path]:
    """Two installers over the bundle: the app's version and a newer one, with one file differing."""
    makensis = _need_makensis()
    out, work = built.tmp / "installers", built.tmp / "nsis"
    made = {}
    for version, marker in ((OLD, "only-in-old.txt"), (NEW, "only-in-new.txt")):
        started = time.monotonic()
        made[version] = build.build_installer(_payload(built, f"payload-{version}", marker), out, work, version,
                                              fast=True, makensis=makensis)
        TIMINGS[f"makensis_fast_{version}_s"] = round(time.monotonic() - started, 2)
    TIMINGS["installer_fast_bytes"] = made[NEW].stat().st_size
    return made



def test_installer_is_a_64bit_windows_gui_program(installers):
    data = installers[OLD].read_bytes()
    assert data[:2] == b"MZ"
    pe = int.from_bytes(data[0x3C:0x40], "little")
    assert data[pe:pe + 4] == b"PE\0\0"
    assert int.from_bytes(data[pe + 4:pe + 6], "little") == 0x8664  # x86-64
    optional = pe + 24
    assert int.from_bytes(data[optional:optional + 2], "little") == 0x20B  # PE32+
    assert int.from_bytes(data[optional + 68:optional + 70], "little") == 2  # IMAGE_SUBSYSTEM_WINDOWS_GUI


def test_installer_and_exe_version_resources(built, installers):
    """pefile (from the build venv) reads the installer's VERSIONINFO; PyInstaller loads the exe's."""
    code = r"""
import json, sys
import pefile
import PyInstaller.compat
PyInstaller.compat.win32api = None  # only writing a resource needs it; parsing runs anywhere
from PyInstaller.utils.win32.versioninfo import load_version_info_from_text_file
pe = pefile.PE(sys.argv[1])
ffi = pe.VS_FIXEDFILEINFO[0]
strings = {}  # one VERSIONINFO per installer language, keyed by language id ("0409", "0412")
for file_info in pe.FileInfo:
    for info in file_info:
        for table in getattr(info, "StringTable", []):
            strings[table.LangID.decode()[:4]] = {k.decode(): v.decode() for k, v in table.entries.items()}
vi = load_version_info_from_text_file(sys.argv[2])
raw = vi.toRaw()
print(json.dumps({"ms": ffi.FileVersionMS, "ls": ffi.FileVersionLS, "strings": strings,
                  "exe_raw": len(raw), "exe_kids": [len(k.kids) for k in vi.kids]}))
"""
    check = subprocess.run([built.python, "-c", "import pefile"], capture_output=True, timeout=60)
    if check.returncode != 0:
        pytest.skip("pefile is not in the build venv (add it to the `package` extra)")
    text = built.tmp / "version-info.txt"
    text.write_text(cfg.version_info_text(NEW, cfg.GUI_EXE, cfg.APP_TITLE), encoding="utf-8")
    res = subprocess.run([built.python, "-c", code, str(installers[NEW]), str(text)], capture_output=True,
                         text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    got = json.loads(res.stdout)
    a, b, c, d = cfg.windows_version(NEW)
    assert (got["ms"], got["ls"]) == ((a << 16) | b, (c << 16) | d)
    assert got["strings"]["0409"]["ProductVersion"] == NEW
    assert got["strings"]["0412"]["FileDescription"] == "GPU 환경 설정 마법사 설치 프로그램"
    assert got["exe_raw"] > 200 and got["exe_kids"] == [2, 1]  # en + ko string tables; one Translation


# ------------------------------------------------------------------------------- wine
@dataclass
class WinePrefix:
    root: Path
    env: dict

    @property
    def user_dir(self) -> Path:
        users = [p for p in (self.root / "drive_c" / "users").iterdir() if p.name.lower() != "public"]
        assert len(users) == 1, users
        return users[0]

    @property
    def local(self) -> Path:
        return self.user_dir / "AppData" / "Local"

    @property
    def install_dir(self) -> Path:
        return self.local / "Programs" / cfg.APP_TITLE

    @property
    def shortcut(self) -> Path:
        return (self.user_dir / "AppData" / "Roaming" / "Microsoft" / "Windows" / "Start Menu" / "Programs"
                / f"{cfg.APP_TITLE}.lnk")

    def run(self, key: str, *argv: str) -> subprocess.CompletedProcess:
        started = time.monotonic()
        res = subprocess.run([WINE, *argv], capture_output=True, text=True, errors="replace", env=self.env,
                             timeout=600)
        subprocess.run([WINESERVER, "-w"], env=self.env, timeout=600, check=False)  # uninstallers finish async
        TIMINGS[key] = round(time.monotonic() - started, 2)
        return res

    def reg(self, key: str) -> dict[str, str]:
        res = subprocess.run([WINE, "reg", "query", key], capture_output=True, text=True, errors="replace",
                             env=self.env, timeout=120)
        if res.returncode != 0:
            return {}
        values = {}
        for line in res.stdout.splitlines():
            m = re.match(r"\s+(\S+)\s+(REG_\w+)\s+(.*)$", line.rstrip("\r"))
            if m:
                values[m.group(1)] = m.group(3)
        return values

    def snapshot(self) -> set[str]:
        """Every file and folder of the user profile except the temp folders: NSIS unpacks its
        plugins there, and an uninstaller copies itself there to delete the install folder
        (Windows removes that copy later). wine's %TEMP% is <profile>\\Temp."""
        temps = (self.user_dir / "Temp", self.local / "Temp")
        return {p.relative_to(self.user_dir).as_posix() for p in self.user_dir.rglob("*")
                if not any(p == t or t in p.parents for t in temps)}


UNINST_KEY = r"HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall" + "\\" + cfg.APP_ID
APP_KEY = "HKCU\\Software\\" + cfg.APP_TITLE


@pytest.fixture(scope="module")
def wine(built) -> WinePrefix:
    if not (Path(WINE).exists() and Path(WINESERVER).exists()):
        pytest.skip("wine64 is not installed (Debian package wine64)")
    root = built.tmp / "wine prefix"
    env = {**os.environ, "WINEPREFIX": str(root), "WINEDEBUG": "-all",
           "WINEDLLOVERRIDES": "winemenubuilder.exe=d"}  # no menu entries on the host
    env.pop("DISPLAY", None)
    prefix = WinePrefix(root, env)
    res = prefix.run("wineboot_s", "wineboot", "-i")
    assert res.returncode == 0 and (root / "drive_c").is_dir(), res.stderr[-2000:]
    return prefix


def _installed_files(prefix: WinePrefix) -> set[str]:
    return {p.relative_to(prefix.install_dir).as_posix() for p in prefix.install_dir.rglob("*") if p.is_file()}


def _payload_files(payload: Path) -> set[str]:
    return {p.relative_to(payload).as_posix() for p in payload.rglob("*") if p.is_file()}


def test_wine_install_upgrade_uninstall_purge(built, installers, wine):
    before = wine.snapshot()

    # 1. silent install of the older version
    res = wine.run("wine_install_s", str(installers[OLD]), "/S")
    assert res.returncode == 0, res.stderr[-2000:]
    payload_old = built.tmp / f"payload-{OLD}"
    assert _installed_files(wine) == _payload_files(payload_old) | {"uninstall.exe"}
    assert wine.shortcut.is_file()
    assert "gpu-setup-wizard.exe".encode("utf-16-le") in wine.shortcut.read_bytes() \
        or b"gpu-setup-wizard.exe" in wine.shortcut.read_bytes()
    keys = wine.reg(UNINST_KEY)
    win_dir = "C:\\users\\" + wine.user_dir.name + "\\AppData\\Local\\Programs\\" + cfg.APP_TITLE
    assert keys["DisplayName"] == cfg.APP_TITLE
    assert keys["DisplayVersion"] == OLD
    assert keys["Publisher"] == cfg.PUBLISHER
    assert keys["InstallLocation"] == win_dir
    assert keys["UninstallString"] == f'"{win_dir}\\uninstall.exe"'
    assert keys["QuietUninstallString"] == f'"{win_dir}\\uninstall.exe" /S'
    assert keys["DisplayIcon"] == f"{win_dir}\\gpu-setup-wizard.exe,0"
    assert keys["NoModify"] == "0x1" and keys["NoRepair"] == "0x1"
    assert int(keys["EstimatedSize"], 16) * 1024 >= built.summary["bundle"]["bytes"] * 0.9
    assert wine.reg(APP_KEY)["InstallDir"] == win_dir

    # the wizard's data and environments, outside the install folder
    settings = wine.local / cfg.APP_ID / "settings.json"
    env_marker = wine.user_dir / "GPU-Setup-Wizard" / "envs" / "torch" / "pyvenv.cfg"
    for path in (settings, env_marker):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("user data\n", encoding="utf-8")
    user_data = wine.snapshot() - before - _snapshot_of_install(wine)
    assert len(user_data) == 6, sorted(user_data)  # 2 files, 4 folders

    # 2. upgrade in place to the newer version: old-only files go, new ones come, data stays
    res = wine.run("wine_upgrade_s", str(installers[NEW]), "/S")
    assert res.returncode == 0, res.stderr[-2000:]
    payload_new = built.tmp / f"payload-{NEW}"
    assert _installed_files(wine) == _payload_files(payload_new) | {"uninstall.exe"}
    assert wine.reg(UNINST_KEY)["DisplayVersion"] == NEW
    assert settings.is_file() and env_marker.is_file()

    # 3. silent uninstall: nothing but the user's data remains
    res = wine.run("wine_uninstall_s", str(wine.install_dir / "uninstall.exe"), "/S")
    assert res.returncode == 0, res.stderr[-2000:]
    assert not wine.install_dir.exists()
    assert not wine.shortcut.exists()
    assert wine.reg(UNINST_KEY) == {} and wine.reg(APP_KEY) == {}
    assert wine.snapshot() - before - SHARED == user_data

    # 4. install again, then uninstall with /PURGE: the profile is as before the first install
    res = wine.run("wine_reinstall_s", str(installers[NEW]), "/S")
    assert res.returncode == 0
    res = wine.run("wine_purge_s", str(wine.install_dir / "uninstall.exe"), "/S", "/PURGE")
    assert res.returncode == 0
    assert not settings.exists() and not env_marker.exists()
    assert wine.snapshot() - SHARED == before - SHARED


# Windows' per-user program folder: the first per-user install creates it and, shared by every
# such program, it is never removed (an empty one is normal on Windows).
SHARED = {"AppData/Local/Programs"}


def _snapshot_of_install(wine: WinePrefix) -> set[str]:
    """The profile entries the installer itself created: install folder, shortcut, SHARED."""
    entries = set(SHARED)
    for root in (wine.install_dir, wine.shortcut):
        entries.add(root.relative_to(wine.user_dir).as_posix())
        if root.is_dir():
            entries |= {p.relative_to(wine.user_dir).as_posix() for p in root.rglob("*")}
    return entries


def test_signing_hooks_sign_only_with_a_certificate(tmp_path):
    makensis = _need_makensis()
    for tool in ("osslsigncode", "openssl"):
        if not shutil.which(tool):
            pytest.skip(f"{tool} is not installed (Debian package {tool})")
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    res = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-sha256", "-days", "2", "-nodes",
                          "-subj", "/CN=GPU Setup Wizard test signing", "-addext", "extendedKeyUsage=codeSigning",
                          "-keyout", str(key), "-out", str(cert)], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    payload = tmp_path / "payload"
    (payload / cfg.CONTENTS_DIR).mkdir(parents=True)
    (payload / "gpu-setup-wizard.exe").write_bytes(b"MZ placeholder")
    (payload / cfg.CONTENTS_DIR / "data.txt").write_text("x", encoding="utf-8")
    sign = {"SIGN_CERT": str(cert), "SIGN_KEY": str(key)}
    signed = build.build_installer(payload, tmp_path / "signed", tmp_path / "w1", OLD, fast=True,
                                   makensis=makensis, sign=sign)
    plain = build.build_installer(payload, tmp_path / "plain", tmp_path / "w2", OLD, fast=True, makensis=makensis)

    def verify(path: Path) -> subprocess.CompletedProcess:
        return subprocess.run(["osslsigncode", "verify", "-CAfile", str(cert), "-in", str(path)],
                              capture_output=True, text=True, timeout=60)

    ok = verify(signed)
    assert ok.returncode == 0 and "Signature verification: ok" in ok.stdout, ok.stdout + ok.stderr
    assert verify(plain).returncode != 0


# --------------------------------------------------------------- quick checks, no bundle
def test_uninstall_list_deletes_exactly_the_tree_deepest_folders_first(tmp_path):
    (tmp_path / "_internal" / "a" / "b").mkdir(parents=True)
    (tmp_path / "app.exe").write_bytes(b"")
    (tmp_path / "_internal" / "a" / "b" / "x$y.dll").write_bytes(b"")
    (tmp_path / "_internal" / "a" / "z.txt").write_bytes(b"")
    lines = mkunlist.uninstall_lines(tmp_path)
    assert lines == [
        'Delete "$INSTDIR\\_internal\\a\\b\\x$$y.dll"',
        'Delete "$INSTDIR\\_internal\\a\\z.txt"',
        'Delete "$INSTDIR\\app.exe"',
        'RMDir "$INSTDIR\\_internal\\a\\b"',
        'RMDir "$INSTDIR\\_internal\\a"',
        'RMDir "$INSTDIR\\_internal"',
    ]
    (tmp_path / "bad:name").write_bytes(b"")
    with pytest.raises(ValueError, match="does not allow"):
        mkunlist.uninstall_lines(tmp_path)


def test_windows_version_numbers():
    assert cfg.windows_version("0.1.0") == (0, 1, 0, 0)
    assert cfg.windows_version("1.2") == (1, 2, 0, 0)
    assert cfg.windows_version("0.3.0.dev4") == (0, 3, 0, 0)
    assert cfg.windows_version("2.0.1.7") == (2, 0, 1, 7)
    with pytest.raises(ValueError):
        cfg.windows_version("70000.1")


def test_icons_and_desktop_entry():
    ico = cfg.ICON_ICO.read_bytes()
    assert ico[:4] == b"\0\0\1\0"
    count = int.from_bytes(ico[4:6], "little")
    sizes = {ico[6 + 16 * i] or 256 for i in range(count)}
    assert {16, 32, 48, 256} <= sizes
    png = cfg.ICON_PNG.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(png[16:20], "big") == int.from_bytes(png[20:24], "big") == 256
    desktop = (INSTALLERS / "linux" / f"{cfg.APP_ID}.desktop").read_text(encoding="utf-8")
    assert f"\nExec={cfg.GUI_EXE}\n" in desktop and f"\nIcon={cfg.APP_ID}\n" in desktop
    assert "\nName[ko]=" in desktop
    if shutil.which("desktop-file-validate"):
        res = subprocess.run(["desktop-file-validate", str(INSTALLERS / "linux" / f"{cfg.APP_ID}.desktop")],
                             capture_output=True, text=True, timeout=60)
        assert res.returncode == 0 and not res.stdout.strip(), res.stdout


def test_installer_keeps_and_purges_the_folders_the_wizard_writes():
    """installer.nsi names the wizard's data folders itself; they must be the ones the code uses."""
    from wizard.core.machine.system import PRODUCT_DIR_NAME
    from wizard.core.recommend.wheel_index import APP_NAME

    nsi = (INSTALLERS / "windows" / "installer.nsi").read_text(encoding="utf-8")
    defines = dict(re.findall(r'^!define\s+(\w+)\s+"([^"]*)"', nsi, re.MULTILINE))
    assert defines["APPID"] == APP_NAME == cfg.APP_ID
    assert defines["DATA_DIR"] == "$LOCALAPPDATA\\${APPID}"  # platformdirs, appauthor=False
    assert defines["ENVS_DIR"] == f"$PROFILE\\{PRODUCT_DIR_NAME}"  # default_env_root's parent
    assert defines["APPTITLE"] == cfg.APP_TITLE and defines["EXE"] == f"{cfg.GUI_EXE}.exe"
