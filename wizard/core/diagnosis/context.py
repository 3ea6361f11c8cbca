"""What the machine adds to a pasted error: ``doctor --explain FILE --python ENV``.

A pasted text alone cannot say which Python has torch, which NumPy sits next to it, or whether
Windows runs with the Korean code page. When the student names the environment, the wizard asks
that interpreter (one short stdlib script: versions from package metadata, never ``import torch``,
so a broken torch cannot hang or crash the question) and the findings use the answers: the exact
interpreter in the command to run, the versions that prove the cause, the Windows variant of a
Triton finding, "torch is installed, but in another Python" for a notebook's missing torch.

Why the student's PYTHONUTF8 comes from the wizard's own environment: the wizard's process runner
turns UTF-8 mode on for every child it starts, so the child cannot report the terminal's setting;
the wizard was started from that terminal and sees it directly. The ANSI code page (949 on Korean
Windows) is the same for both.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, replace
from typing import Any, Iterable

from packaging.version import InvalidVersion, Version

from wizard.core.base.host import Host
from wizard.core.diagnosis.model import Diagnosis

CONTEXT_TIMEOUT = 20.0
PACKAGES = ("torch", "numpy", "triton", "triton-windows", "ipykernel", "tensorflow")
KOREAN_CODE_PAGE = 949
NUMPY2_TORCH = Version("2.3")  # the first torch built against NumPy 2 (runs with 1.x and 2.x)

# Python 3.8 syntax, stdlib only: it runs in the student's interpreter.
CONTEXT_SCRIPT = r"""
import json, sys
out = {"executable": sys.executable, "python": "%d.%d.%d" % tuple(sys.version_info[:3]),
       "platform": sys.platform, "packages": {}}
try:
    from importlib import metadata
except ImportError:
    metadata = None
for name in NAMES:
    try:
        out["packages"][name] = metadata.version(name) if metadata else None
    except (ImportError, LookupError, OSError, ValueError):  # not installed, or broken metadata
        out["packages"][name] = None
if sys.platform == "win32":
    try:
        import ctypes
        out["acp"] = int(ctypes.windll.kernel32.GetACP())
    except (ImportError, AttributeError, OSError):  # no ctypes, or no kernel32 (not real Windows)
        out["acp"] = None
    try:  # the commit limit is RAM plus the page files: what WinError 1455 runs out of
        import ctypes
        class MEMORYSTATUSEX(ctypes.Structure):
            _fields_ = [("length", ctypes.c_ulong), ("load", ctypes.c_ulong)] + [
                (name, ctypes.c_ulonglong) for name in ("ram", "ram_free", "commit_limit", "commit_free",
                                                       "virtual", "virtual_free", "extended")]
        status = MEMORYSTATUSEX()
        status.length = ctypes.sizeof(MEMORYSTATUSEX)
        if ctypes.windll.kernel32.GlobalMemoryStatusEx(ctypes.byref(status)):
            out["memory"] = {"ram": status.ram, "commit_limit": status.commit_limit,
                             "commit_free": status.commit_free}
    except (ImportError, AttributeError, OSError):
        out["memory"] = None
elif sys.platform.startswith("linux"):
    import os, platform
    release = platform.release().lower()
    if "microsoft" in release or os.environ.get("WSL_DISTRO_NAME"):
        out["wsl"] = {"version": 2 if "microsoft-standard" in release or "wsl2" in release else 1,
                      "libcuda": os.path.exists("/usr/lib/wsl/lib/libcuda.so.1")}
    out["jetson"] = os.path.exists("/etc/nv_tegra_release")  # L4T: the driver comes with the OS image
print("GSW-CONTEXT " + json.dumps(out))
""".replace("NAMES", repr(PACKAGES))


class ContextError(ValueError):
    """The named environment could not be asked (no interpreter there, or it failed to answer)."""


@dataclass
class ExplainContext:
    """What the target interpreter and the wizard's own environment say."""

    executable: str
    python: str | None = None  # "3.10.9"
    os: str = "linux"  # 'windows' | 'linux' | 'macos'
    packages: dict[str, str | None] = field(default_factory=dict)  # distribution -> version (None: absent)
    acp: int | None = None  # Windows ANSI code page (949: Korean)
    wsl_version: int | None = None  # 1 or 2 inside WSL, None elsewhere
    wsl_libcuda: bool | None = None  # /usr/lib/wsl/lib/libcuda.so.1 (the Windows driver's) is there
    pythonutf8: str | None = None  # the terminal's PYTHONUTF8, as the wizard was started with it
    ram: int | None = None  # Windows: physical memory, bytes
    commit_limit: int | None = None  # Windows: RAM plus the page files, bytes (what error 1455 exhausts)
    commit_free: int | None = None  # Windows: of that limit, what is not committed yet, bytes
    jetson: bool = False  # a Jetson (L4T): never a driver change, never a desktop CUDA build

    def version(self, name: str) -> str | None:
        return self.packages.get(name)

    @property
    def triton(self) -> str | None:
        return self.version("triton") or self.version("triton-windows")

    @property
    def pagefile(self) -> int | None:
        """The page files' total size in bytes (the commit limit less the RAM), None when unknown."""
        if self.commit_limit is None or self.ram is None:
            return None
        return max(self.commit_limit - self.ram, 0)

    def evidence(self, *names: str) -> str:
        """One line naming the interpreter and the versions asked for ('-' for absent)."""
        parts = [f"{name} {self.version(name) or '-'}" for name in names]
        return f"{self.executable} (Python {self.python or '?'}): " + ", ".join(parts)


def interpreter_of(path: str, host: Host) -> str:
    """The interpreter for ``path``: itself when it is a file, else the one inside the environment
    folder (a venv's Scripts/python.exe or bin/python, a conda env's python.exe or bin/python)."""
    if not host.exists(path):
        raise ContextError(path)
    candidates = (os.path.join(path, "Scripts", "python.exe"), os.path.join(path, "python.exe"),
                  os.path.join(path, "bin", "python3"), os.path.join(path, "bin", "python"))
    # not an environment folder: the interpreter itself (a folder without one fails to run: ContextError)
    return next((c for c in candidates if host.exists(c)), path)


def parse_context(stdout: str, executable: str, pythonutf8: str | None = None) -> ExplainContext:
    """The script's answer (its one ``GSW-CONTEXT`` line) as an :class:`ExplainContext`."""
    line = next((ln for ln in (stdout or "").splitlines() if ln.startswith("GSW-CONTEXT ")), None)
    if line is None:
        raise ContextError(executable)
    try:
        doc = json.loads(line[len("GSW-CONTEXT "):])
    except ValueError as exc:
        raise ContextError(executable) from exc
    if not isinstance(doc, dict):
        raise ContextError(executable)
    platform = str(doc.get("platform") or "")
    os_name = "windows" if platform.startswith("win") else "macos" if platform == "darwin" else "linux"
    packages: dict[Any, Any] = doc["packages"] if isinstance(doc.get("packages"), dict) else {}
    acp = doc.get("acp")
    wsl: dict[str, Any] = doc["wsl"] if isinstance(doc.get("wsl"), dict) else {}
    memory: dict[str, Any] = doc["memory"] if isinstance(doc.get("memory"), dict) else {}

    def size(name: str) -> int | None:
        value = memory.get(name)
        return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None
    return ExplainContext(executable=str(doc.get("executable") or executable), python=doc.get("python"),
                          os=os_name, packages={str(k): (str(v) if v else None) for k, v in packages.items()},
                          acp=acp if isinstance(acp, int) else None, pythonutf8=pythonutf8,
                          wsl_version=wsl.get("version") if wsl.get("version") in (1, 2) else None,
                          wsl_libcuda=wsl.get("libcuda") if isinstance(wsl.get("libcuda"), bool) else None,
                          ram=size("ram"), commit_limit=size("commit_limit"), commit_free=size("commit_free"),
                          jetson=doc.get("jetson") is True)


def gather_explain_context(host: Host, path: str) -> ExplainContext:
    """Ask the interpreter of ``path`` (an interpreter or an environment folder); ContextError when
    there is none or it does not answer."""
    exe = interpreter_of(path, host)
    res = host.run([exe, "-c", CONTEXT_SCRIPT], timeout=CONTEXT_TIMEOUT)
    if not res.ok:
        raise ContextError(exe)
    return parse_context(res.stdout, exe, host.getenv("PYTHONUTF8"))


# ---------------------------------------------------------------------------------------------
# Using it
# ---------------------------------------------------------------------------------------------
def _base(version: str | None) -> Version | None:
    try:
        return Version((version or "").split("+", 1)[0]) if version else None
    except InvalidVersion:
        return None


def _with(f: Diagnosis, variant: str | None, extra: str, **params: Any) -> Diagnosis:
    evidence = "\n".join(x for x in (f.evidence, extra) if x)
    return replace(f, variant=variant, params={**f.params, **params}, evidence=evidence)


def _numpy(f: Diagnosis, ctx: ExplainContext) -> Diagnosis:
    numpy, torch = _base(ctx.version("numpy")), _base(ctx.version("torch"))
    line = ctx.evidence("numpy", "torch")
    if numpy is None:
        return _with(f, "ctx-numpy-missing", line, exe=ctx.executable)
    if numpy.major >= 2 and torch is not None and torch < NUMPY2_TORCH:
        return _with(f, "ctx-numpy2-old-torch", line, exe=ctx.executable, numpy=str(numpy), torch=str(torch))
    return _with(f, f.variant, line)


def _korean(f: Diagnosis, ctx: ExplainContext) -> Diagnosis:
    utf8 = (ctx.pythonutf8 or "").strip() == "1"
    line = f"Windows code page: {ctx.acp or '?'}; PYTHONUTF8={ctx.pythonutf8 if ctx.pythonutf8 is not None else '-'}"
    if utf8:
        # UTF-8 mode already on: only code that names the codec itself still uses it
        return _with(f, "ctx-utf8-on", line)
    return _with(f, f.variant, line)


def _triton(f: Diagnosis, ctx: ExplainContext) -> Diagnosis:
    line = ctx.evidence("torch", "triton", "triton-windows")
    if ctx.os == "windows":
        return _with(f, "windows", line)
    if ctx.triton is None and ctx.version("torch"):
        return _with(f, "ctx-linux-no-triton", line, exe=ctx.executable)
    return _with(f, f.variant, line)


def _torch_missing(f: Diagnosis, ctx: ExplainContext) -> Diagnosis:
    torch = ctx.version("torch")
    line = ctx.evidence("torch", "ipykernel")
    if torch:
        variant = "ctx-notebook-other-python" if f.variant == "notebook" else "ctx-other-python"
        return _with(f, variant, line, exe=ctx.executable, torch=torch)
    return _with(f, f.variant, line)


def _driver_library(f: Diagnosis, ctx: ExplainContext) -> Diagnosis:
    """libcuda.so.1 missing, seen from inside WSL: the Windows driver's copy is what decides."""
    if ctx.wsl_version is None:
        return f
    line = (f"WSL {ctx.wsl_version}; /usr/lib/wsl/lib/libcuda.so.1: "
            f"{'present' if ctx.wsl_libcuda else 'missing' if ctx.wsl_libcuda is False else '?'}")
    if ctx.wsl_version == 1:
        return replace(_with(f, "wsl1", line), id="wsl2-gpu-setup", severity="error")
    if ctx.wsl_libcuda is False:
        return replace(_with(f, "libs-missing", line), id="wsl2-gpu-setup", severity="error")
    return _with(f, f.variant, line)


GIB = 1024 ** 3
SMALL_PAGEFILE = 16 * GIB  # below this, torch's CUDA DLLs in a few DataLoader workers outgrow it


def _gib(n: int) -> str:
    return f"{n / GIB:.1f}".rstrip("0").rstrip(".")


def _pagefile(f: Diagnosis, ctx: ExplainContext) -> Diagnosis:
    """WinError 1455 seen with the machine's memory: a page file that is off or small is the cause
    to fix; a large one means the committed memory is used up (too many workers, other programs)."""
    pagefile, ram, limit = ctx.pagefile, ctx.ram, ctx.commit_limit
    if ctx.os != "windows" or pagefile is None or ram is None or limit is None:
        return f
    free = f"; committed memory free: {_gib(ctx.commit_free)} GB" if ctx.commit_free is not None else ""
    line = f"RAM {_gib(ram)} GB; page file about {_gib(pagefile)} GB; commit limit {_gib(limit)} GB{free}"
    params = {"ram": _gib(ram), "pagefile": _gib(pagefile), "limit": _gib(limit)}
    if pagefile < GIB:
        return _with(f, "ctx-pagefile-off", line, **params)
    if pagefile < SMALL_PAGEFILE:
        return _with(f, "ctx-pagefile-small", line, **params)
    return _with(f, "ctx-pagefile-large", line, **params)


_USES = {
    "windows-pagefile-too-small": _pagefile,
    "libcuda-not-found": _driver_library,
    "wsl2-gpu-setup": _driver_library,
    "numpy-abi-mismatch": _numpy,
    "korean-locale-encoding": _korean,
    "torch-compile-triton-missing": _triton,
    "torch-not-installed": _torch_missing,
}


def apply_context(findings: Iterable[Diagnosis], ctx: ExplainContext) -> list[Diagnosis]:
    """The findings of a pasted text, each refined by what the named environment shows (the order
    and severities stay; only the variant, its parameters and the evidence change)."""
    from wizard.core.diagnosis.board_guard import guard

    out: list[Diagnosis] = []
    for f in (guard(list(findings), "", board=True) if ctx.jetson else findings):
        use = _USES.get(f.id)
        if f.id == "korean-locale-encoding" and ctx.os != "windows":
            use = None
        out.append(use(f, ctx) if use else f)
    return out


__all__ = ["ExplainContext", "ContextError", "CONTEXT_SCRIPT", "interpreter_of", "parse_context",
           "gather_explain_context", "apply_context"]
