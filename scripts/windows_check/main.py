"""``scripts/windows-check [OUTDIR]``: build the Windows installer under wine and check the installed app.

On a Debian machine (root: it installs Debian packages and, where apt's wine is older than 10,
makes a Debian 13 chroot for wine 10): a verified Windows CPython freezes the wizard with the
project's spec, makensis builds the installer with the project's script, and the installer is
run silently in a FRESH wine prefix whose Windows user is 김학생 and whose code page is 949.
The installed app then runs ``doctor --json`` (without a GPU, and with a stand-in nvidia-smi.exe
that answers from a real Windows capture), ``--smoke-test`` in Korean and English, a screenshot
of each, the bundle self-check, the start-up ratio against a bare QWizard, the upgrade from an
older version and the uninstall.

Writes ``OUTDIR/windows-check.json`` (every step: name, ok, seconds, reason; installer_bytes;
bundle_files; startup_ratio; screenshots; the test-only files the wine build added) and exits 0
only when every step is ok. Downloads, the chroot, the Windows CPython, the frozen bundles, the
installers and the prefix template are cached in ``GSW_WINDOWS_CHECK_CACHE`` (default
``~/.cache/gpu-setup-wizard-windows-check``), so a second run with unchanged sources is fast.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import app_steps  # noqa: E402
import build_steps  # noqa: E402
import fake_smi  # noqa: E402
import torch_chain  # noqa: E402
import unit_tier  # noqa: E402
import wine  # noqa: E402
import winpython  # noqa: E402

REPO = HERE.parents[1]
CAPTURE = "01-windows-wddm-geforce-rtx2080super-591.86.capture.txt"
HANGUL_USER = "김학생"


class Check:
    """The steps run so far and the facts to write; a failed step does not stop the others
    unless a later step needs what it makes."""

    def __init__(self, out: Path):
        self.out = out
        self.steps: list[dict] = []
        self.data: dict = {"schema": "gpu-setup-wizard/windows-check@1.0", "steps": self.steps}
        self.started = time.monotonic()

    def log(self, message: str) -> None:
        print(f"[{time.monotonic() - self.started:6.0f} s] {message}", flush=True)

    def step(self, name: str, func, *args):
        """Run ``func``; it returns (ok, reason, facts) or a value (ok). Returns the value/facts or None."""
        self.log(f"{name} ...")
        t0 = time.monotonic()
        value, ok, reason, facts = None, False, "", {}
        try:
            value = func(*args)
            if isinstance(value, tuple) and len(value) == 3 and isinstance(value[0], bool):
                ok, reason, facts = value
                value = facts
            else:
                ok = True
        except Exception as exc:  # one line in the JSON, the traceback in the log
            reason = f"{type(exc).__name__}: {exc}"[:3000]
            traceback.print_exc()
        entry = {"name": name, "ok": ok, "seconds": round(time.monotonic() - t0, 1)}
        if not ok:
            entry["reason"] = reason or "failed"
        if facts:
            entry["facts"] = facts
        self.steps.append(entry)
        self.log(f"{name}: {'ok' if ok else 'FAILED ' + entry['reason'][:300]} ({entry['seconds']} s)")
        self.write()
        return value if ok else None

    def skip(self, name: str, reason: str) -> None:
        self.steps.append({"name": name, "ok": False, "seconds": 0.0, "reason": f"not run: {reason}"})

    def write(self) -> None:
        self.data["seconds"] = round(time.monotonic() - self.started, 1)
        self.data["ok"] = bool(self.steps) and all(s["ok"] for s in self.steps)
        tmp = self.out / "windows-check.json.tmp"
        tmp.write_text(json.dumps(self.data, indent=2, ensure_ascii=False, default=sorted), encoding="utf-8")
        tmp.replace(self.out / "windows-check.json")


def setup_wine(cache: Path) -> dict:
    installed = wine.apt_install(wine.HOST_PACKAGES)
    candidate = wine.apt_candidate("wine")
    if wine.wine_major(candidate) >= 10:
        installed += wine.apt_install(["wine", "wine64"])
        wine.ensure_locale(None)
        return {"wine": candidate, "chroot": None, "apt_installed": installed}
    root = cache / "trixie-root"
    wine.ensure_chroot(root)
    return {"wine": (root / ".windows-check-ready").read_text().strip(), "chroot": str(root),
            "apt_installed": installed, "why_chroot": f"apt offers wine {candidate}; the check needs 10 or newer"}


def fresh_prefix(cache: Path, dest: Path, root: Path | None) -> wine.Wine:
    """A copy of the cached Hangul/cp949 prefix template: nothing installed in it yet."""
    template = cache / "prefix-ko-template"
    if not (template / "system.reg").exists():
        shutil.rmtree(template, ignore_errors=True)
        wine.Wine(template, root, user=HANGUL_USER, lang=wine.KOREAN_LOCALE).boot()
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(template, dest, symlinks=True)
    runner = wine.Wine(dest, root, user=HANGUL_USER, lang=wine.KOREAN_LOCALE)
    if not runner.profile.is_dir():
        raise wine.WineError(f"the prefix has no C:\\users\\{HANGUL_USER}")
    return runner


def check_code_page(runner: wine.Wine, python: str) -> tuple[bool, str, dict]:
    res = runner.run([python, "-c", "import ctypes, os; k = ctypes.windll.kernel32; "
                      "print(k.GetACP(), k.GetOEMCP(), ascii(os.environ['USERPROFILE']))"], timeout=120)
    parts = res.stdout.decode("ascii", errors="replace").split()
    facts = {"acp": parts[0] if parts else None, "oemcp": parts[1] if len(parts) > 1 else None,
             "userprofile": f"C:\\users\\{HANGUL_USER}"}
    ok = parts[:2] == ["949", "949"] and HANGUL_USER.encode("unicode_escape").decode() in res.stdout.decode()
    return ok, "" if ok else f"code pages / profile: {res.stdout!r} {res.stderr[-300:]!r}", facts


def main(argv: list[str]) -> int:
    out = Path(argv[0] if argv else "artifacts/windows-check").resolve()
    out.mkdir(parents=True, exist_ok=True)
    cache = Path(os.environ.get("GSW_WINDOWS_CHECK_CACHE", Path.home() / ".cache" / "gpu-setup-wizard-windows-check"))
    cache.mkdir(parents=True, exist_ok=True)
    check = Check(out)
    env = check.step("wine-and-packages", setup_wine, cache)
    if env is None:
        check.write()
        return 1
    check.data["wine"] = env
    root = Path(env["chroot"]) if env["chroot"] else None
    work = out / "work"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    shared = REPO.parent / "shared"  # the recorded captures the unit tests read, when they are beside the repo
    with wine.Mounts(root, [REPO, cache, out, *([shared] if shared.is_dir() else [])]):
        return run_checks(check, cache, work, root)


def run_checks(check: Check, cache: Path, work: Path, root: Path | None) -> int:
    builder = wine.Wine(cache / "build-prefix", root, user="builder", lang="C.UTF-8")
    if not (builder.prefix / "system.reg").exists():
        check.step("build-prefix", builder.boot)
    py = check.step("windows-python", winpython.prepare, REPO, cache, builder, check.log)
    capture = REPO.parent / "shared" / "reference" / "nvidia-smi" / CAPTURE
    capture = Path(os.environ.get("GSW_SMI_CAPTURE", capture))
    stand_in = work / "nvidia-smi.exe"
    check.step("stand-in-nvidia-smi", lambda: fake_smi.build(capture, stand_in, fake_smi.wizard_query_sets(REPO))
               and True)
    chain_wheels = check.step("torch-chain-wheels", torch_chain.download, REPO, cache)
    if py is None:
        check.write()
        return 1
    check.data["windows_python"] = py
    key = build_steps.source_key(REPO, py["python"])
    with wine.Xvfb(builder, work / "fb-build") as x:
        builder.display = x.display
        frozen = check.step("freeze", build_steps.freeze_wizard, REPO, cache, builder, py["python"], key, check.log)
        bare_key = build_steps.source_key(REPO, py["python"], build_steps.BARE_SOURCES)
        bare = check.step("freeze-bare-qwizard", build_steps.freeze_bare, REPO, cache, builder, py["python"],
                          bare_key, check.log)
    if frozen is None:
        check.write()
        return 1
    bundle, summary = frozen
    check.data["build_summary"] = {k: summary.get(k) for k in ("freeze_s", "wine_freeze_s", "smoke_ms", "bundle")}
    # The shims sit at the same place under the bundle's _internal/ as under site-packages/.
    site = "cp313/Lib/site-packages/"
    shim_paths = {f"_internal/{p[len(site):]}" for p in py["shim_files"]
                  if p.startswith(site) and p.lower().endswith(".dll")}
    check.data["test_only_files_in_bundle"] = sorted(p for p in shim_paths if (bundle / p).is_file())
    check.data["test_only_files_in_python"] = py["shim_files"]
    inst = check.step("installers", build_steps.build_installers, REPO, cache, bundle, key, shim_paths, check.log)
    if inst is None:
        check.write()
        return 1
    check.data.update(installer_bytes=inst["installer_bytes"], bundle_files=inst["bundle_files"],
                      installers=inst)
    check.data["cache_pruned"] = [*build_steps.prune(cache, "bundle", key), *build_steps.prune(cache, "installers", key),
                                  *(build_steps.prune(cache, "bare", bare_key) if bare is not None else [])]
    runner = check.step("fresh-hangul-prefix", fresh_prefix, cache, work / "prefix", root)
    if runner is None:
        check.write()
        return 1
    winpy = wine.windows_path(Path(py["python"]))
    check.step("code-page-949", check_code_page, runner, winpy)
    target = check.step("windows-pytest", unit_tier.prepare, cache, runner, winpy)
    if target is not None:
        check.step("windows-unit-tests", unit_tier.run, runner, winpy, target, REPO, check.out)
    with wine.Xvfb(runner, work / "fb-test") as x:
        ctx = app_steps.Installed(runner, check.out, display=x.display, framebuffer=x.framebuffer)
        if check.step("install", app_steps.install, ctx, Path(inst["test_installer"])) is None:
            check.write()
            return 1
        check.step("doctor-no-gpu", app_steps.doctor, ctx, None)
        check.step("doctor-stand-in-nvidia-smi", app_steps.doctor, ctx, work / "nvidia-smi.exe")
        shots = []
        for lang in ("ko", "en"):
            check.step(f"smoke-test-{lang}", app_steps.smoke, ctx, lang)
            if check.step(f"screenshot-{lang}", app_steps.shot, ctx, lang) is not None:
                shots.append(f"screenshot-{lang}.png")
        check.data["screenshots"] = shots
        check.step("bundle-self-check", app_steps.self_check, ctx, bundle / "bundle-self-check.exe",
                   wine.windows_path(Path(py["python"])))
        if bare is not None:
            check.step("startup-ratio", app_steps.startup_ratio, ctx, bare)  # fails above the target
            ratio = check.steps[-1].get("facts") or {}  # the numbers also when the step failed
            check.data["startup_ratio"] = ratio.get("ratio")
            check.data["startup_ratio_target"] = app_steps.STARTUP_TARGET
            check.data["startup_ratio_met"] = bool(ratio.get("met"))
        if chain_wheels is not None:
            check.step("torch-install-verify-kernel-hangul-profile", torch_chain.run, ctx, REPO, chain_wheels,
                       winpy, check.out, app_steps.decode, Path(py["python"]).parents[1], py["shim_files"])
        else:
            check.skip("torch-install-verify-kernel-hangul-profile", "the torch wheels were not downloaded")
        check.step("uninstall", app_steps.uninstall, ctx, {app_steps.STAND_IN_DIR, *torch_chain.MADE_BY_STUDENT})
        check.step("upgrade-from-older-version", app_steps.upgrade, ctx, Path(inst["old_installer"]),
                   Path(inst["test_installer"]), build_steps.OLD_ONLY_FILE, inst["version"])
        check.step("uninstall-purge-after-upgrade", app_steps.purge, ctx,
                   {app_steps.STAND_IN_DIR, *torch_chain.MADE_BY_STUDENT}, winpy)
        runner.kill_server()
    check.write()
    if check.data["ok"]:  # the used prefix (~0.8 GB) stays only when something is to be looked at
        shutil.rmtree(work, ignore_errors=True)
    check.log(f"windows-check: {'ok' if check.data['ok'] else 'FAILED'}; {check.out / 'windows-check.json'}")
    return 0 if check.data["ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
