"""Build the release artefacts in one command, and refuse to produce a bundle that does not start.

    python installers/build.py                      # freeze with this interpreter's PyInstaller
    python installers/build.py --venv build/venv    # ... from a clean venv: pip install ".[package]"
    python installers/build.py --fast-installer     # NSIS without compression (tests, quick looks)

Steps, each one fatal when it fails:
1. freeze ``installers/gpu_setup_wizard.spec`` with PyInstaller (one-folder);
2. run the bundle's self-check (pyqtgraph live plot, resources, probe scripts read by a target
   Python, bundled uv), then delete the self-check executable;
3. run ``--smoke-test`` of both executables (offscreen unless QT_QPA_PLATFORM says otherwise);
4. run the bundled ``gpu-setup-wizard-cli doctor --json`` and check its schema;
5. package: the NSIS installer wherever ``makensis`` exists (on Linux it wraps the Linux bundle:
   that tests the installer script and measures sizes, it is not something to ship), a
   ``.tar.gz`` with the desktop entry on Linux, a zipped ``.app`` on macOS;
6. print the sizes and write them to ``<dist>/build-summary.json``.

Signing: with GSW_SIGN_CERT and GSW_SIGN_KEY (PEM files) set, osslsigncode signs the Windows
executables in the bundle before packaging, and the installer script signs its uninstaller and
itself (GSW_SIGN_TIMESTAMP_URL adds an RFC 3161 timestamp). Without them nothing is signed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
import venv
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bundle_config as cfg  # noqa: E402

SPEC = cfg.INSTALLERS / "gpu_setup_wizard.spec"
NSI = cfg.INSTALLERS / "windows" / "installer.nsi"
MKUNLIST = cfg.INSTALLERS / "windows" / "mkunlist.py"
DESKTOP = cfg.INSTALLERS / "linux" / f"{cfg.APP_ID}.desktop"
IS_WIN = sys.platform == "win32"
IS_MAC = sys.platform == "darwin"
RUN_TIMEOUT = 120  # one smoke test or doctor run; generous for a cold CI disk


class BuildError(RuntimeError):
    """A step failed; the message says which and why."""


def log(message: str) -> None:
    print(f"== {message}", flush=True)


def run(argv: list[str], timeout: float | None = None, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, encoding="utf-8", errors="replace",
                          timeout=timeout, check=False, **kw)


def bundle_env(platform: str | None = None) -> dict[str, str]:
    """Environment for running the bundle: a headless Qt platform, no resource override."""
    env = {k: v for k, v in os.environ.items() if k != "GSW_RESOURCES"}
    env["QT_QPA_PLATFORM"] = platform or os.environ.get("QT_QPA_PLATFORM", "offscreen")
    env.setdefault("GSW_LANG", "en")
    return env


# ------------------------------------------------------------------------------------ venv
def venv_python(venv_dir: Path) -> Path:
    return venv_dir / ("Scripts/python.exe" if IS_WIN else "bin/python")


def ensure_venv(venv_dir: Path, extra: list[str]) -> Path:
    """A venv with the app and the ``package`` extra (PyInstaller, uv) installed from the index."""
    py = venv_python(venv_dir)
    if not py.exists():
        log(f"creating venv {venv_dir}")
        venv.create(venv_dir, with_pip=True, clear=True)
    log("pip install .[package]" + (f" + {' '.join(extra)}" if extra else ""))
    pip = [str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    res = run([*pip, f"{cfg.ROOT}[package]", *extra], timeout=1800)
    if res.returncode != 0:
        raise BuildError(f"pip install failed:\n{res.stdout[-2000:]}{res.stderr[-3000:]}")
    check = run([str(py), "-c", "import PyInstaller, sys; print(PyInstaller.__version__)"], timeout=120)
    if check.returncode != 0:
        raise BuildError("PyInstaller is not in the venv: the project's `package` extra must list it")
    return py


# ---------------------------------------------------------------------------------- freeze
def freeze(python: str, dist: Path, work: Path, clean: bool = False) -> Path:
    """Run PyInstaller on the spec; returns the folder holding the executables."""
    argv = [python, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN",
            "--distpath", str(dist), "--workpath", str(work), str(SPEC)]
    if clean:
        argv.insert(3, "--clean")
    log("PyInstaller " + " ".join(argv[3:]))
    started = time.monotonic()
    res = run(argv, timeout=3600, cwd=cfg.ROOT)
    if res.returncode != 0:
        raise BuildError(f"PyInstaller failed:\n{res.stdout[-3000:]}{res.stderr[-6000:]}")
    log(f"frozen in {time.monotonic() - started:.1f} s")
    return exe_dir(dist)


def exe_dir(dist: Path) -> Path:
    if IS_MAC:
        return dist / cfg.MACOS_APP / "Contents" / "MacOS"
    return dist / cfg.APP_ID


def exe_path(bundle: Path, name: str) -> Path:
    return bundle / cfg.exe_file(name)


# ---------------------------------------------------------------------------------- checks
def self_check(bundle: Path, target_python: str, keep: bool = False) -> dict:
    """Run the bundle self-check (see bundle_self_check.py); delete it afterwards unless ``keep``."""
    exe = exe_path(bundle, cfg.SELF_CHECK_EXE)
    if not exe.exists():
        raise BuildError(f"{exe} is missing: the spec did not build the self-check")
    res = run([str(exe), "--python", target_python], timeout=RUN_TIMEOUT, env=bundle_env())
    try:
        report = json.loads(res.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        raise BuildError(f"bundle self-check printed no report (rc {res.returncode}):\n"
                         f"{res.stdout[-2000:]}{res.stderr[-3000:]}") from None
    if res.returncode != 0 or not report.get("ok"):
        raise BuildError(f"bundle self-check failed (rc {res.returncode}): {json.dumps(report)}\n{res.stderr[-3000:]}")
    if not keep:
        exe.unlink()
        if IS_MAC:  # the .app's ad-hoc signature seals its file list
            resign = run(["codesign", "--force", "--deep", "--sign", "-", str(bundle.parents[1])], timeout=600)
            if resign.returncode != 0:
                raise BuildError(f"codesign after removing the self-check failed: {resign.stderr}")
    return report


def smoke_test(bundle: Path, exe_name: str = cfg.CLI_EXE, platform: str | None = None,
               env: dict[str, str] | None = None) -> float | None:
    """Run ``<exe> --smoke-test``; returns the milliseconds to the first painted page.

    None for the windowed Windows executable, which has no stdout: its exit code is the check.
    """
    exe = exe_path(bundle, exe_name)
    res = run([str(exe), "--smoke-test"], timeout=RUN_TIMEOUT, env=env or bundle_env(platform))
    if res.returncode != 0:
        raise BuildError(f"{exe.name} --smoke-test exited {res.returncode}:\n{res.stdout[-2000:]}{res.stderr[-4000:]}")
    for line in res.stdout.splitlines():
        if line.startswith("smoke-test: first page painted after "):
            return float(line.rsplit(" ", 2)[-2])
    if IS_WIN and exe_name == cfg.GUI_EXE:
        return None
    raise BuildError(f"{exe.name} --smoke-test printed no timing line:\n{res.stdout[-2000:]}")


def doctor_json(bundle: Path) -> dict:
    """The bundled CLI's ``doctor --json``, parsed and schema-checked."""
    exe = exe_path(bundle, cfg.CLI_EXE)
    res = run([str(exe), "doctor", "--json"], timeout=RUN_TIMEOUT, env=bundle_env())
    if res.returncode != 0:
        raise BuildError(f"{exe.name} doctor --json exited {res.returncode}:\n{res.stderr[-4000:]}")
    try:
        doc = json.loads(res.stdout)
    except ValueError as exc:
        raise BuildError(f"{exe.name} doctor --json printed no JSON ({exc}):\n{res.stdout[:1000]}") from None
    if not str(doc.get("schema", "")).startswith("gpu-setup-wizard/doctor@1."):
        raise BuildError(f"doctor --json has an unexpected schema: {doc.get('schema')!r}")
    return doc


# ------------------------------------------------------------------------------- packaging
def find_makensis() -> str | None:
    found = shutil.which("makensis")
    if found:
        return found
    if IS_WIN:
        for base in (os.environ.get("ProgramFiles(x86)"), os.environ.get("ProgramFiles")):
            if base and Path(base, "NSIS", "makensis.exe").is_file():
                return str(Path(base, "NSIS", "makensis.exe"))
    return None


def signing() -> dict[str, str] | None:
    """The signing material from the environment, or None (then nothing is signed)."""
    cert, key = os.environ.get("GSW_SIGN_CERT"), os.environ.get("GSW_SIGN_KEY")
    if not (cert and key):
        return None
    if not shutil.which("osslsigncode"):
        raise BuildError("GSW_SIGN_CERT/GSW_SIGN_KEY are set but osslsigncode is not installed")
    sign = {"SIGN_CERT": str(Path(cert).resolve()), "SIGN_KEY": str(Path(key).resolve())}
    if os.environ.get("GSW_SIGN_TIMESTAMP_URL"):
        sign["SIGN_TIMESTAMP_URL"] = os.environ["GSW_SIGN_TIMESTAMP_URL"]
    return sign


def sign_windows_exes(bundle: Path, sign: dict[str, str]) -> list[str]:
    """Sign the bundle's own .exe files (before they go into the installer)."""
    signed = []
    for exe in sorted(bundle.glob("*.exe")):
        argv = ["osslsigncode", "sign", "-certs", sign["SIGN_CERT"], "-key", sign["SIGN_KEY"],
                "-n", cfg.APP_TITLE, "-h", "sha256", "-in", str(exe), "-out", f"{exe}.signed"]
        if "SIGN_TIMESTAMP_URL" in sign:
            argv[2:2] = ["-ts", sign["SIGN_TIMESTAMP_URL"]]
        res = run(argv, timeout=300)
        if res.returncode != 0:
            raise BuildError(f"signing {exe.name} failed: {res.stdout}{res.stderr}")
        os.replace(f"{exe}.signed", exe)
        signed.append(exe.name)
    return signed


def build_installer(bundle: Path, out_dir: Path, work: Path, version: str, fast: bool = False,
                    makensis: str | None = None, sign: dict[str, str] | None = None) -> Path:
    """Compile installer.nsi over ``bundle``; the uninstall list is generated from the same folder."""
    makensis = makensis or find_makensis()
    if not makensis:
        raise BuildError("makensis not found (Debian: apt-get install nsis; Windows: choco install nsis)")
    work.mkdir(parents=True, exist_ok=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    unlist = work / f"uninstall_list-{version}.nsh"
    res = run([sys.executable, str(MKUNLIST), str(bundle), str(unlist)], timeout=120)
    if res.returncode != 0:
        raise BuildError(f"mkunlist failed: {res.stderr}")
    out = out_dir / f"{cfg.APP_ID}-{version}-setup.exe"
    defines = {
        "VERSION": version,
        "VERSION4": ".".join(map(str, cfg.windows_version(version))),
        "PAYLOAD": str(bundle),
        "UNINSTALL_LIST": str(unlist),
        "OUTFILE": str(out),
        "ICON": str(cfg.ICON_ICO),
        **(sign or {}),
    }
    argv = [makensis, "-V2", "-INPUTCHARSET", "UTF8", *(f"-D{k}={v}" for k, v in defines.items())]
    if fast:
        argv.append("-DFAST")
    argv.append(str(NSI))
    log(f"makensis ({'no compression' if fast else 'LZMA solid'}) -> {out.name}")
    started = time.monotonic()
    res = run(argv, timeout=3600)
    if res.returncode != 0 or not out.is_file():
        raise BuildError(f"makensis failed (rc {res.returncode}):\n{res.stdout[-4000:]}{res.stderr[-4000:]}")
    log(f"installer compiled in {time.monotonic() - started:.1f} s")
    return out


def linux_archive(bundle: Path, out_dir: Path, version: str) -> Path:
    """``<app>-<version>-linux-<arch>.tar.gz``: the bundle folder plus its desktop entry and icon."""
    import platform

    out = out_dir / f"{cfg.APP_ID}-{version}-linux-{platform.machine()}.tar.gz"
    with tarfile.open(out, "w:gz", compresslevel=6) as tar:
        tar.add(bundle, arcname=cfg.APP_ID)
        tar.add(DESKTOP, arcname=f"{cfg.APP_ID}/{DESKTOP.name}")
        tar.add(cfg.ICON_PNG, arcname=f"{cfg.APP_ID}/{cfg.APP_ID}.png")
        tar.add(cfg.ICON_SVG, arcname=f"{cfg.APP_ID}/{cfg.APP_ID}.svg")
    return out


def macos_zip(dist: Path, out_dir: Path, version: str) -> Path:
    """The .app zipped with ditto, which keeps the symlinks and signatures a .app needs."""
    out = out_dir / f"{cfg.APP_ID}-{version}-macos.zip"
    res = run(["ditto", "-c", "-k", "--keepParent", str(dist / cfg.MACOS_APP), str(out)], timeout=1800)
    if res.returncode != 0:
        raise BuildError(f"ditto failed: {res.stderr}")
    return out


# ----------------------------------------------------------------------------------- sizes
def folder_size(folder: Path) -> dict[str, int]:
    """Apparent bytes of the regular files (symlinks not followed), and their count."""
    total = count = 0
    for path in folder.rglob("*"):
        if path.is_file() and not path.is_symlink():
            total += path.stat().st_size
            count += 1
    return {"bytes": total, "files": count}


def mib(n: float) -> str:
    return f"{n / 1048576:.1f} MiB"


# ------------------------------------------------------------------------------------ main
def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--venv", type=Path, help="build from this venv (created, then .[package] installed)")
    p.add_argument("--with", dest="extra", action="append", default=[], metavar="REQ",
                   help="another requirement for the --venv install (repeatable)")
    p.add_argument("--dist", type=Path, default=cfg.ROOT / "dist", help="output folder (default: dist/)")
    p.add_argument("--work", type=Path, default=cfg.ROOT / "build" / "pyinstaller",
                   help="PyInstaller's work folder (default: build/pyinstaller)")
    p.add_argument("--clean", action="store_true", help="empty PyInstaller's cache first")
    p.add_argument("--installer", choices=("auto", "yes", "no"), default="auto",
                   help="compile the NSIS installer: auto = when makensis exists")
    p.add_argument("--fast-installer", action="store_true", help="NSIS without compression")
    p.add_argument("--keep-self-check", action="store_true",
                   help="leave the self-check executable in the bundle (for tests; nothing is packaged then)")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    try:
        if args.venv is not None and Path(sys.prefix).resolve() != args.venv.resolve():
            py = ensure_venv(args.venv.resolve(), args.extra)
            # Go on inside the venv, so PyInstaller and everything it freezes come from there.
            return subprocess.call([str(py), __file__, *argv])
        return build(args)
    except (BuildError, subprocess.TimeoutExpired) as exc:
        print(f"build.py: {exc}", file=sys.stderr)
        return 1


def build(args: argparse.Namespace) -> int:
    version = cfg.app_version()
    dist, work = args.dist.resolve(), args.work.resolve()
    summary: dict = {"version": version, "platform": sys.platform, "python": sys.version.split()[0],
                     "python_executable": sys.executable}
    started = time.monotonic()
    bundle = freeze(sys.executable, dist, work, clean=args.clean)
    summary["freeze_s"] = round(time.monotonic() - started, 1)

    report = self_check(bundle, sys.executable, keep=args.keep_self_check)
    log(f"self-check ok: {json.dumps(report['versions'])}")
    summary["self_check"] = report
    summary["smoke_ms"] = {name: smoke_test(bundle, name) for name in (cfg.GUI_EXE, cfg.CLI_EXE)}
    log(f"smoke test ok: {summary['smoke_ms']}")
    doc = doctor_json(bundle)
    log(f"doctor --json ok: {doc['schema']}, {len(doc.get('findings', []))} findings")

    sign = signing()
    if sign and IS_WIN:
        log(f"signed {', '.join(sign_windows_exes(bundle, sign))}")
    root = dist / cfg.MACOS_APP if IS_MAC else bundle
    summary["bundle"] = {"path": str(root), **folder_size(root)}
    artefacts: dict[str, Path] = {}
    if args.keep_self_check:
        log("not packaged: the bundle still holds the self-check executable (--keep-self-check)")
    elif sys.platform.startswith("linux"):
        artefacts["archive"] = linux_archive(bundle, dist, version)
    elif IS_MAC:
        artefacts["archive"] = macos_zip(dist, dist, version)
    want_installer = not args.keep_self_check and (
        args.installer == "yes" or (args.installer == "auto" and find_makensis()))
    if want_installer:
        if not IS_WIN:
            log("note: this installer wraps the bundle of THIS platform: it tests the script, it is not a release")
        t0 = time.monotonic()
        artefacts["installer"] = build_installer(bundle, dist, work / "nsis", version, fast=args.fast_installer,
                                                 sign=sign)
        summary["makensis_s"] = round(time.monotonic() - t0, 1)
        summary["installer_compression"] = "none" if args.fast_installer else "lzma-solid"
    for kind, path in artefacts.items():
        summary[kind] = {"path": str(path), "bytes": path.stat().st_size}

    (dist / "build-summary.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False), encoding="utf-8")
    print()
    print(f"{cfg.APP_TITLE} {version} ({sys.platform}, Python {summary['python']})")
    print(f"  bundle     {mib(summary['bundle']['bytes']):>11}  {summary['bundle']['files']} files  {root}")
    for kind, path in artefacts.items():
        print(f"  {kind:<10} {mib(path.stat().st_size):>11}  {path}")
    timings = ", ".join(f"{k} {v:.0f} ms" for k, v in summary["smoke_ms"].items() if v is not None)
    print(f"  start-up   {timings} to first page")
    return 0


if __name__ == "__main__":
    sys.exit(main())
