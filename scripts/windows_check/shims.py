"""The test scaffolding that lets a Windows CPython, PySide6 and numpy run under wine.

None of this is product code and none of it may reach a release (a release is frozen on a
Windows runner). Each function returns the files it added or changed, so the check can list
them in its JSON: a bundle frozen under wine carries them, which is why such a bundle is a test
artefact only.

Why each one exists (measured under Debian's wine 8.0 and wine 10.0):
- ``icuuc.dll``: Qt6Core.dll imports the ICU that ships with Windows 10 (unversioned names); wine
  has none. A forwarder maps each name Qt imports to the versioned ICU 78 DLL of PyPI's
  ``icu4py`` wheel.
- ``zpi-ms-win-crt-math-l1-1-0.dll``: wine's ucrtbase leaves C99 complex helpers (``crealf``,
  ``cpowf``...) as stubs that abort, and numpy's .pyd files import them. wine resolves
  ``api-ms-win-crt-*`` through its API-set table, so a same-named DLL is never loaded: the import
  is renamed in the .pyd (same length) and a DLL of the new name implements the helpers and
  forwards the rest to ucrtbase.
- ``sitecustomize.py`` (wine 8 only): wine 8 has no ``KERNEL32.CopyFile2``, which Python 3.12+'s
  ``shutil.copy2`` calls.
- ``DLLs/_wmi.pyd`` renamed: ``platform`` calls WMI through it, which hits wine's unimplemented
  ``propsys.VariantToString``; without the module ``platform`` falls back to the registry.
"""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

MINGW_GCC = "x86_64-w64-mingw32-gcc"
COMPLEX_OWN = ("crealf", "cimagf", "cabsf", "cargf", "cexpf", "cpowf", "creal", "cimag", "cabs", "carg")
CRT_MATH = b"api-ms-win-crt-math-l1-1-0.dll"
CRT_MATH_SHIM = b"zpi-ms-win-crt-math-l1-1-0.dll"

_COMPLEX_C = r"""
#include <math.h>
typedef struct { float v[2]; } fcx;   /* MSVC _Fcomplex: 8 bytes, returned in a register */
typedef struct { double v[2]; } dcx;  /* MSVC _Dcomplex: 16 bytes, passed by reference */
float crealf(fcx z) { return z.v[0]; }
float cimagf(fcx z) { return z.v[1]; }
float cabsf(fcx z) { return hypotf(z.v[0], z.v[1]); }
float cargf(fcx z) { return atan2f(z.v[1], z.v[0]); }
fcx cexpf(fcx z) { float r = expf(z.v[0]); fcx o = {{r * cosf(z.v[1]), r * sinf(z.v[1])}}; return o; }
fcx cpowf(fcx x, fcx y) {
  if (x.v[0] == 0.f && x.v[1] == 0.f) {
    fcx o = {{0.f, 0.f}};
    if (y.v[0] == 0.f && y.v[1] == 0.f) o.v[0] = 1.f;
    return o;
  }
  float lr = logf(hypotf(x.v[0], x.v[1])), th = atan2f(x.v[1], x.v[0]);
  fcx e = {{y.v[0] * lr - y.v[1] * th, y.v[1] * lr + y.v[0] * th}};
  return cexpf(e);
}
double creal(dcx z) { return z.v[0]; }
double cimag(dcx z) { return z.v[1]; }
double cabs(dcx z) { return hypot(z.v[0], z.v[1]); }
double carg(dcx z) { return atan2(z.v[1], z.v[0]); }
void _pei386_runtime_relocator(void) {}  /* -nostdlib: no mingw start-up code to relocate */
int __stdcall DllMain(void *h, unsigned r, void *p) { return 1; }
"""

_SITECUSTOMIZE = '''\
# wine 8 has no KERNEL32.CopyFile2, which shutil.copy2 uses on Windows from Python 3.12: drop it
# so shutil falls back to its portable copy. Test scaffolding of scripts/windows-check.
import _winapi
if hasattr(_winapi, "CopyFile2"):
    del _winapi.CopyFile2
'''


class ShimError(RuntimeError):
    """A shim could not be built; the message says which and why."""


def _run(argv: list[str]) -> str:
    res = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False)
    if res.returncode != 0:
        raise ShimError(f"{' '.join(argv[:2])} failed: {res.stderr[-2000:]}")
    return res.stdout


def pe_imports(dll: Path) -> dict[str, list[str]]:
    """Imported names per imported DLL (lower-case DLL names), read from the PE import directory.

    A small reader of its own: mingw's objdump stops after the first entries of the import
    tables delvewheel rewrites (numpy's), and pefile is not on a fresh Debian machine.
    """
    data = dll.read_bytes()
    pe = struct.unpack_from("<I", data, 0x3C)[0]
    if data[pe:pe + 4] != b"PE\0\0":
        raise ShimError(f"{dll.name} is not a PE file")
    n_sections, opt_size = struct.unpack_from("<H", data, pe + 6)[0], struct.unpack_from("<H", data, pe + 20)[0]
    opt = pe + 24
    if struct.unpack_from("<H", data, opt)[0] != 0x20B:
        raise ShimError(f"{dll.name} is not a 64-bit PE file")
    import_rva = struct.unpack_from("<I", data, opt + 112 + 8)[0]  # data directory 1: imports
    sections = [struct.unpack_from("<IIII", data, opt + opt_size + 40 * i + 8) for i in range(n_sections)]

    def offset(rva: int) -> int:
        for vsize, vaddr, rsize, raw in sections:
            if vaddr <= rva < vaddr + max(vsize, rsize):
                return rva - vaddr + raw
        raise ShimError(f"{dll.name}: RVA {rva:#x} is in no section")

    def cstr(rva: int) -> str:
        start = offset(rva)
        return data[start:data.index(b"\0", start)].decode("ascii", "replace")

    imports: dict[str, list[str]] = {}
    desc = offset(import_rva) if import_rva else None
    while desc is not None:
        lookup, _stamp, _chain, name_rva, first_thunk = struct.unpack_from("<IIIII", data, desc)
        if name_rva == 0:
            break
        names = imports.setdefault(cstr(name_rva).lower(), [])
        thunk = offset(lookup or first_thunk)
        while (entry := struct.unpack_from("<Q", data, thunk)[0]) != 0:
            if not entry & (1 << 63):  # by name, not by ordinal
                names.append(cstr((entry & 0x7FFFFFFF) + 2))
            thunk += 8
        desc += 20
    return imports


def icu_forwarder(qtcore: Path, icu_libs: Path, dest: Path, work: Path) -> list[Path]:
    """Build ``icuuc.dll`` (forwarders to icu4py's ICU 78) and copy it with its DLLs into ``dest``."""
    work.mkdir(parents=True, exist_ok=True)
    names = sorted(set(pe_imports(qtcore).get("icuuc.dll", [])))
    if not names:
        return []  # this Qt does not import the system ICU: nothing to shim
    uc = next(iter(sorted(icu_libs.glob("icuuc78-*.dll"))), None)
    if uc is None:
        raise ShimError(f"no icuuc78-*.dll in {icu_libs} (the icu4py win_amd64 wheel)")
    added = [dest / "icuuc78.dll"]
    shutil.copy2(uc, added[0])  # a stable name for the forwarders
    for extra in [*icu_libs.glob("icudt78-*.dll"), *icu_libs.glob("msvcp140-*.dll")]:
        shutil.copy2(extra, dest / extra.name)  # icuuc78 imports these by their hashed names
        added.append(dest / extra.name)
    (work / "icuuc.def").write_text(
        "LIBRARY icuuc.dll\nEXPORTS\n" + "".join(f"  {n} = icuuc78.{n}_78\n" for n in names), encoding="ascii")
    (work / "stub.c").write_text("int __stdcall DllMain(void*h,unsigned r,void*p){return 1;}\n", encoding="ascii")
    _run([MINGW_GCC, "-shared", "-nostdlib", "-e", "DllMain", "-o", str(dest / "icuuc.dll"),
          str(work / "stub.c"), str(work / "icuuc.def")])
    return [dest / "icuuc.dll", *added]


def crt_math_shim(site_packages: Path, work: Path) -> list[Path]:
    """Rename numpy's crt-math import where it uses a stubbed complex helper; add the shim DLL."""
    work.mkdir(parents=True, exist_ok=True)
    patched: list[Path] = []
    names: set[str] = set()
    for pyd in sorted((site_packages / "numpy").rglob("*.pyd")):
        imported = pe_imports(pyd).get(CRT_MATH.decode(), [])
        if not set(imported) & set(COMPLEX_OWN):
            continue
        data = pyd.read_bytes()
        if data.count(CRT_MATH) != 1:
            raise ShimError(f"{pyd.name}: expected one {CRT_MATH.decode()} import, found {data.count(CRT_MATH)}")
        pyd.write_bytes(data.replace(CRT_MATH, CRT_MATH_SHIM))
        patched.append(pyd)
        names.update(imported)
    if not patched:
        return []
    forwards = sorted(names - set(COMPLEX_OWN))
    (work / "crtmath.c").write_text(_COMPLEX_C, encoding="ascii")
    (work / "crtmath.def").write_text(
        f"LIBRARY {CRT_MATH_SHIM.decode()}\nEXPORTS\n" + "".join(f"  {n}\n" for n in COMPLEX_OWN)
        + "".join(f"  {n} = ucrtbase.{n}\n" for n in forwards), encoding="ascii")
    dll = work / CRT_MATH_SHIM.decode()
    _run([MINGW_GCC, "-O2", "-fno-builtin", "-shared", "-nostdlib", "-e", "DllMain", "-o", str(dll),
          str(work / "crtmath.c"), str(work / "crtmath.def"), "-lucrtbase", "-lkernel32"])
    added = list(patched)
    for folder in sorted({p.parent for p in patched}):
        shutil.copy2(dll, folder / dll.name)
        added.append(folder / dll.name)
    return added


def copyfile2_shim(site_packages: Path) -> list[Path]:
    path = site_packages / "sitecustomize.py"
    path.write_text(_SITECUSTOMIZE, encoding="utf-8")
    return [path]


def disable_wmi(python_dir: Path) -> list[Path]:
    wmi = python_dir / "DLLs" / "_wmi.pyd"
    if wmi.exists():
        wmi.rename(wmi.with_suffix(".pyd.disabled"))
        return [wmi]
    return []
