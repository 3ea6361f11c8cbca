"""wine for the Windows check: which wine, the Debian packages, a chroot when apt's wine is old.

Debian 12's wine 8.0 cannot start the Rust-built ``uv.exe`` (no ``bcryptprimitives.dll``) and
has no ``KERNEL32.CopyFile2``; Debian 13's wine 10.0 has both. So when the host's apt offers a
wine older than 10, wine (with Xvfb and a Korean locale) runs from a Debian 13 chroot made with
debootstrap and kept in the cache; the host's folders the check uses are bind-mounted into it at
the same paths, so a path means the same file inside and outside.

wine takes the Windows user name from ``$USER`` and the code pages from ``$LANG``: a prefix made
with ``USER=김학생 LANG=ko_KR.UTF-8`` has ``C:\\users\\김학생`` and ANSI/OEM code page 949, as a
Korean Windows does (the glibc locale must exist, or wine falls back to code page 1252 and
mangles the user name).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

HOST_PACKAGES = ["nsis", "gcc-mingw-w64-x86-64", "binutils-mingw-w64-x86-64", "osslsigncode", "xvfb", "xauth",
                 "debootstrap", "locales"]
WINE_PACKAGES = ["wine", "wine64", "xvfb", "xauth", "locales"]
CHROOT_SUITE = "trixie"
MIRROR = "http://deb.debian.org/debian"
KOREAN_LOCALE = "ko_KR.UTF-8"
OVERRIDES = "winemenubuilder.exe=d;winedbg.exe=d;mscoree=;mshtml="  # no host menus, no debugger hang,
# no Mono/Gecko download prompts


class WineError(RuntimeError):
    """The wine environment could not be set up; the message says what to do."""


def sh(argv: list[str], timeout: float = 1800, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, errors="replace", timeout=timeout, check=False, **kw)


def apt_candidate(package: str) -> str | None:
    out = sh(["apt-cache", "policy", package]).stdout
    match = re.search(r"Candidate:\s*(\S+)", out)
    return match.group(1) if match and match.group(1) != "(none)" else None


def wine_major(version: str | None) -> int:
    match = re.match(r"(?:\d+:)?(\d+)", version or "")
    return int(match.group(1)) if match else 0


def apt_install(packages: list[str], root: Path | None = None) -> list[str]:
    """Install what is missing (in ``root``'s chroot when given); returns what was installed."""
    prefix = ["chroot", str(root)] if root else []
    missing = [p for p in packages if sh([*prefix, "dpkg", "-s", p]).returncode != 0]
    if missing:
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        res = sh([*prefix, "apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing], env=env)
        if res.returncode != 0:
            sh([*prefix, "apt-get", "update", "-qq"], env=env)
            res = sh([*prefix, "apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing], env=env)
        if res.returncode != 0:
            raise WineError(f"apt-get install {' '.join(missing)} failed: {res.stderr[-1500:]}")
    return missing


def ensure_locale(root: Path | None = None) -> None:
    prefix = ["chroot", str(root)] if root else []
    if "ko_KR.utf8" not in sh([*prefix, "locale", "-a"]).stdout:
        res = sh([*prefix, "localedef", "-i", "ko_KR", "-f", "UTF-8", KOREAN_LOCALE])
        if res.returncode not in (0, 1):  # 1: warnings only
            raise WineError(f"localedef {KOREAN_LOCALE} failed: {res.stderr[-800:]}")


def ensure_chroot(root: Path) -> None:
    """A Debian 13 chroot with wine 10, Xvfb and the Korean locale (debootstrap, cached)."""
    stamp = root / ".windows-check-ready"
    if stamp.exists():
        return
    if not (root / "usr" / "bin" / "apt-get").exists():
        shutil.rmtree(root, ignore_errors=True)
        res = sh(["debootstrap", "--variant=minbase", CHROOT_SUITE, str(root), MIRROR], timeout=3600)
        if res.returncode != 0:
            raise WineError(f"debootstrap {CHROOT_SUITE} failed: {res.stdout[-1500:]}{res.stderr[-1500:]}")
    with Mounts(root, []):
        apt_install(WINE_PACKAGES, root)
        ensure_locale(root)
    stamp.write_text(sh(["chroot", str(root), "wine", "--version"]).stdout.strip() + "\n", encoding="utf-8")


class Mounts:
    """Bind-mount /proc, /dev, /sys, /tmp and ``paths`` into ``root`` at the same paths; undo on exit."""

    def __init__(self, root: Path | None, paths: list[Path]):
        self.root = root
        self.paths = [Path("/proc"), Path("/sys"), Path("/dev"), Path("/dev/pts"), Path("/tmp"),
                      *sorted({p.resolve() for p in paths})]
        self.mounted: list[Path] = []

    def __enter__(self) -> Mounts:
        if self.root is None:
            return self
        for path in self.paths:
            target = self.root / str(path).lstrip("/")
            target.mkdir(parents=True, exist_ok=True)
            if sh(["mountpoint", "-q", str(target)]).returncode == 0:
                continue
            res = sh(["mount", "--bind", str(path), str(target)])
            if res.returncode != 0:
                self.__exit__()
                raise WineError(f"mount --bind {path} failed: {res.stderr.strip()}")
            self.mounted.append(target)
        return self

    def __exit__(self, *exc) -> None:
        for target in reversed(self.mounted):
            sh(["umount", "-l", str(target)])
        self.mounted.clear()


@dataclass
class Wine:
    """One wine prefix, run on the host or in the chroot; every call waits for its own process."""

    prefix: Path
    root: Path | None = None  # the chroot, or None for the host's wine
    user: str = "builder"
    lang: str = "C.UTF-8"
    display: str | None = None
    extra_env: dict[str, str] = field(default_factory=dict)

    def env(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        runtime = self.prefix.parent / f".xdg-{self.prefix.name}"
        runtime.mkdir(mode=0o700, parents=True, exist_ok=True)
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": os.environ.get("HOME", "/root"),
               "USER": self.user, "LOGNAME": self.user, "LANG": self.lang, "LC_ALL": self.lang,
               "WINEPREFIX": str(self.prefix), "WINEDEBUG": "-all", "WINEDLLOVERRIDES": OVERRIDES,
               "XDG_RUNTIME_DIR": str(runtime), **self.extra_env, **(extra or {})}
        if self.display:
            env["DISPLAY"] = self.display
        return env

    def argv(self, argv: list[str], extra: dict[str, str] | None = None) -> list[str]:
        env = [f"{k}={v}" for k, v in self.env(extra).items()]
        base = ["chroot", str(self.root)] if self.root else []
        return [*base, "env", "-i", *env, *argv]

    def run(self, argv: list[str], extra: dict[str, str] | None = None, timeout: float = 600,
            cwd: Path | None = None) -> subprocess.CompletedProcess:
        """``wine argv...`` with stdin from /dev/null and stdout/stderr as pipes (a Windows
        CPython needs pipes: without them init_sys_streams fails), as bytes."""
        inner = ["sh", "-c", 'cd "$0" && exec "$@"', str(cwd or self.prefix), "wine", *argv]
        return subprocess.run(self.argv(inner, extra), stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=timeout, check=False)

    def popen(self, argv: list[str], extra: dict[str, str] | None = None) -> subprocess.Popen:
        return subprocess.Popen(self.argv(["wine", *argv], extra), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def wait_server(self, timeout: float = 120) -> None:
        try:
            subprocess.run(self.argv(["wineserver", "-w"]), timeout=timeout, check=False, capture_output=True)
        except subprocess.TimeoutExpired:
            pass

    def kill_server(self) -> None:
        subprocess.run(self.argv(["wineserver", "-k"]), timeout=60, check=False, capture_output=True)

    def boot(self) -> None:
        res = subprocess.run(self.argv(["wine", "wineboot", "-i"]), capture_output=True, timeout=600, check=False)
        self.wait_server()
        if not (self.prefix / "system.reg").exists():
            raise WineError(f"wineboot failed: {res.stderr.decode(errors='replace')[-1500:]}")

    def c_drive(self, windows_path: str) -> Path:
        """The Linux path of a ``C:\\...`` path in this prefix."""
        rest = windows_path[2:].lstrip("\\").replace("\\", "/")
        return self.prefix / "drive_c" / rest

    @property
    def profile(self) -> Path:
        return self.prefix / "drive_c" / "users" / self.user


def windows_path(path: Path) -> str:
    """A Linux path as wine sees it (drive Z: is the root folder)."""
    return "Z:" + str(path.resolve()).replace("/", "\\")


class Xvfb:
    """One Xvfb for the check's GUI runs, with its framebuffer in a file (for screenshots)."""

    def __init__(self, runner: Wine, fbdir: Path):
        self.runner, self.fbdir = runner, fbdir
        self.proc: subprocess.Popen | None = None
        self.display = ""

    def __enter__(self) -> Xvfb:
        self.fbdir.mkdir(parents=True, exist_ok=True)
        number = next(n for n in range(90, 200) if not Path(f"/tmp/.X11-unix/X{n}").exists()
                      and not Path(f"/tmp/.X{n}-lock").exists())
        self.display = f":{number}"
        argv = ["Xvfb", self.display, "-screen", "0", "1280x800x24", "-nolisten", "tcp", "-fbdir", str(self.fbdir)]
        self.proc = subprocess.Popen(self.runner.argv(argv), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while not Path(f"/tmp/.X11-unix/X{number}").exists():
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise WineError("Xvfb did not start")
            time.sleep(0.1)
        return self

    def __exit__(self, *exc) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()

    @property
    def framebuffer(self) -> Path:
        return self.fbdir / "Xvfb_screen0"
