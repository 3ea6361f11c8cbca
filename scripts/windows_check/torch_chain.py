"""The torch chain under the Hangul profile: ``install`` -> ``verify`` -> ``kernel install`` with the
INSTALLED app, from a package index on 127.0.0.1 (the project's test index server), into a new
venv at ``C:\\users\\김학생\\envs\\torch-cpu`` (a path typed by the student is taken as typed; the
default root is the ASCII one, checked by the doctor steps).

The wheels are PyPI's real ``win_amd64`` ones: torch 2.13.0 (cp313) and what it and ipykernel
need on Windows, resolved for Windows by ``uv pip compile --python-platform`` (``pip download
--platform`` evaluates markers for the machine it runs on and would ask for Linux-only CUDA
packages), downloaded once into the cache. The venv's Python is the verified Windows CPython.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

TORCH = "2.13.0"
TORCHVISION = "0.28.0"  # the wizard installs torch with its torchvision (the compatibility table's pair)
REQUIREMENTS = [f"torch=={TORCH}", f"torchvision=={TORCHVISION}", "ipykernel"]
VENV = r"envs\torch-cpu"  # under the Hangul profile
# wine 10 has no GetNumaNodeProcessorMaskEx: torch's Intel OpenMP (libiomp5md.dll) aborts at import
# ("OMP: Error #179") unless its affinity/topology detection is off. Windows has the call; test-only.
WINE_ONLY_ENV = {"KMP_AFFINITY": "disabled", "KMP_TOPOLOGY_METHOD": "flat"}
# What this chain leaves in the profile as the student's: the venv, the registered kernel, the
# wizard's own data (settings, install state, download cache: kept by `uninstall /S`, removed by
# /PURGE), pip's cache from the ipykernel install.
MADE_BY_STUDENT = ("envs", "AppData/Roaming/jupyter", "AppData/Local/gpu-setup-wizard", "AppData/Local/pip",
                   "AppData/Local/uv", "AppData/Roaming/uv",  # uv's own folders: its cache, its state
                   ".ipython")  # IPython's profile folder, made when the kernel registration imports IPython


def download(repo: Path, cache: Path) -> Path:
    """The win_amd64 wheels of torch and ipykernel with their Windows dependencies (cached)."""
    wheels = cache / "downloads" / "torch-chain"
    done = wheels / ".complete"
    if done.exists() and done.read_text(encoding="utf-8").split() == REQUIREMENTS:
        return wheels
    wheels.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(repo))
    from wizard.core.install.environments import find_uv

    uv = find_uv()
    if not uv:
        raise RuntimeError("no uv to resolve the Windows requirement set (pip install uv)")
    (wheels / "req.in").write_text("\n".join(REQUIREMENTS) + "\n", encoding="utf-8")
    res = subprocess.run([uv, "pip", "compile", "--python-platform", "x86_64-pc-windows-msvc", "--python-version",
                          "3.13", "--no-header", "--no-annotate", str(wheels / "req.in"), "-o", str(wheels / "req.txt")],
                         capture_output=True, text=True, timeout=600, check=False)
    if res.returncode != 0:
        raise RuntimeError(f"uv pip compile (windows) failed: {res.stderr[-1500:]}")
    res = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                          "--platform", "win_amd64", "--python-version", "3.13", "--implementation", "cp",
                          "-d", str(wheels), "-r", str(wheels / "req.txt")],
                         capture_output=True, text=True, timeout=1800, check=False)
    if res.returncode != 0:
        raise RuntimeError(f"pip download (win_amd64) failed: {res.stderr[-1500:]}")
    done.write_text("\n".join(REQUIREMENTS) + "\n", encoding="utf-8")
    return wheels


def _tail(raw: bytes, decode) -> str:
    return decode(raw)[0].strip()[-1500:]


SITE = "cp313/Lib/site-packages/"


def shim_numpy(venv_site: Path, python_dir: Path, shim_files: list[str]) -> list[str]:
    """The venv's numpy gets the same wine shims as the freezing Python's (same wheel, numpy
    2.5.5 cp313): wine's ucrtbase stubs crealf & co., which numpy's .pyds import, and the first
    `import numpy` (torch imports it) aborts. Test scaffolding in the test prefix only; listed."""
    copied = []
    for rel in shim_files:
        if rel.startswith(SITE + "numpy/") and (python_dir / rel).is_file():
            target = venv_site / rel[len(SITE):]
            if target.parent.is_dir():
                shutil.copy2(python_dir / rel, target)
                copied.append(rel[len(SITE):])
    return copied


def run(ctx, repo: Path, wheels: Path, python: str, out: Path, decode, python_dir: Path | None = None,
        shim_files: list[str] | None = None) -> tuple[bool, str, dict]:
    """install, verify, kernel install; each child's output is kept in OUTDIR/torch-chain-*.txt."""
    sys.path.insert(0, str(repo))
    from tests.integration.index_server import LoopbackIndex

    venv = f"{ctx.windows_profile}\\{VENV}"
    venv_python = venv + "\\Scripts\\python.exe"
    facts: dict = {"venv": venv, "torch": TORCH, "wheels": len(list(wheels.glob("*.whl")))}
    with LoopbackIndex() as index:
        index.add_wheels(sorted(wheels.glob("*.whl")))
        url = index.simple_url
        steps = [
            ("install", ["install", "--venv", venv, "--python", python, "--torch", TORCH, "--variant", "cpu",
                         "--index-url", url, "--yes"], {}, 2400),
            ("verify", ["verify", "--python", venv_python, "--json"], {}, 900),
            # ipykernel is missing: the wizard installs it (its bundled pip, run by the venv's
            # Python) from the mirror named here, as a student behind a mirror does, then writes
            # the kernel.json under %APPDATA% with its interpreter under C:\users\김학생
            ("kernel-install", ["kernel", "install", "--python", venv_python, "--yes", "--index-url", url], {}, 900),
        ]
        for name, args, extra, timeout in steps:
            res = ctx.run_app("gpu-setup-wizard-cli", args, extra={**WINE_ONLY_ENV, **extra}, timeout=timeout)
            text = decode(res.stdout)[0] + "\n--- stderr ---\n" + decode(res.stderr)[0]
            (out / f"torch-chain-{name}.txt").write_text(text, encoding="utf-8")
            facts[name] = {"exit_code": res.returncode}
            if name == "verify":
                try:
                    report = json.loads(decode(res.stdout)[0])
                    facts[name]["report"] = {k: report.get(k) for k in ("ok", "torch_version", "cuda_available")
                                             if k in report}
                except ValueError:
                    pass
            if res.returncode != 0:
                return False, f"{name} exited {res.returncode}: {_tail(res.stderr, decode)}", facts
            if name == "install" and python_dir is not None:
                site = ctx.runner.c_drive(venv) / "Lib" / "site-packages"
                facts["test_only_files_in_venv"] = shim_numpy(site, python_dir, shim_files or [])
    if not ctx.runner.c_drive(venv).joinpath("pyvenv.cfg").exists():
        return False, "no venv under the Hangul profile", facts
    return True, "", facts


__all__ = ["MADE_BY_STUDENT", "REQUIREMENTS", "TORCH", "WINE_ONLY_ENV", "download", "run"]
