"""The checks on the INSTALLED app, in a fresh wine prefix: user 김학생, code page 949.

Each step function returns ``(ok, reason, facts)``; ``main.py`` times it and writes the JSON.
"""

from __future__ import annotations

import json
import re
import shutil
import statistics
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import screenshot
from wine import Wine, windows_path

APP_DIR = r"AppData\Local\Programs\GPU Setup Wizard"
UNINST_KEY = r"HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\gpu-setup-wizard"
STAND_IN_DIR = "nvidia-smi-stand-in"  # under the Hangul profile: a Hangul path for the process too
STARTUP_TARGET = 1.3  # issue: the wizard's first paint at most 1.3x the bare QWizard's
# Left in the profile by any NSIS per-user install/uninstall, not by the wizard: the uninstaller's
# copy of itself in %TEMP% (NSIS runs it from there, Windows deletes it later), and
# %LOCALAPPDATA%\Programs, Windows' per-user program folder (a known folder, kept empty).
NOT_THE_APP_S = ("AppData/Local/Temp", "AppData/Local/Programs")
APP_ENV = {"GSW_OFFLINE": "1"}  # no network from the app: the CI machine is offline


@dataclass
class Installed:
    runner: Wine
    out: Path
    display: str = ""
    framebuffer: Path | None = None
    facts: dict = field(default_factory=dict)

    @property
    def windows_profile(self) -> str:
        return "C:\\users\\" + self.runner.user

    @property
    def app_dir(self) -> Path:
        return self.runner.profile / APP_DIR.replace("\\", "/")

    def exe(self, name: str) -> str:
        return f"{self.windows_profile}\\{APP_DIR}\\{name}.exe"

    def run_app(self, name: str, args: list[str], extra: dict | None = None, timeout: float = 300):
        env = {**APP_ENV, **(extra or {})}
        if self.display:
            env["DISPLAY"] = self.display
        return self.runner.run([self.exe(name), *args], extra=env, timeout=timeout, cwd=self.runner.profile)


ASCII_ENV_ROOT = "C:\\GPU-Setup-Wizard\\envs"  # the Hangul profile's default root (wizard/core/base/ascii_root.py)


def decode(raw: bytes) -> tuple[str, str]:
    """(text, encoding): a redirected stream of the wizard keeps the Windows code page (what
    PowerShell and cmd decode a pipe with), so cp949 text is expected on stderr; ``--json`` on
    stdout is pure ASCII there (non-ASCII escaped: at once UTF-8 and cp949)."""
    if raw.isascii():
        return raw.decode("ascii"), "ascii"
    try:
        return raw.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return raw.decode("cp949", errors="replace"), "cp949"


def reg_value(runner: Wine, key: str, name: str) -> str | None:
    res = runner.run(["reg", "query", key, "/v", name], timeout=120)
    for line in res.stdout.decode("utf-8", errors="replace").splitlines():
        parts = line.split(None, 2)
        if len(parts) == 3 and parts[0] == name:
            return parts[2].strip()
    return None


def profile_listing(runner: Wine) -> set[str]:
    """Every path under the Windows profile (relative), to compare before and after."""
    root = runner.profile
    return {str(p.relative_to(root)) for p in root.rglob("*")}


# ------------------------------------------------------------------------------------ steps
def install(ctx: Installed, installer: Path) -> tuple[bool, str, dict]:
    ctx.facts["profile_before"] = profile_listing(ctx.runner)
    res = ctx.runner.run([windows_path(installer), "/S"], timeout=600)
    ctx.runner.wait_server()
    missing = [n for n in ("gpu-setup-wizard.exe", "gpu-setup-wizard-cli.exe", "uninstall.exe")
               if not (ctx.app_dir / n).exists()]
    version = reg_value(ctx.runner, UNINST_KEY, "DisplayVersion")
    facts = {"install_dir": ctx.exe("x")[:-6], "display_version": version, "exit_code": res.returncode}
    if res.returncode != 0 or missing or not version:
        return False, f"rc {res.returncode}, missing {missing}, DisplayVersion {version!r}", facts
    return True, "", facts


def doctor(ctx: Installed, stand_in: Path | None) -> tuple[bool, str, dict]:
    extra = {}
    if stand_in is not None:
        folder = ctx.runner.profile / STAND_IN_DIR
        folder.mkdir(exist_ok=True)
        shutil.copy2(stand_in, folder / "nvidia-smi.exe")
        extra["WINEPATH"] = f"{ctx.windows_profile}\\{STAND_IN_DIR}"
    res = ctx.run_app("gpu-setup-wizard-cli", ["doctor", "--json"], extra=extra)
    text, encoding = decode(res.stdout)
    name = "doctor-stand-in" if stand_in else "doctor-no-gpu"
    (ctx.out / f"{name}.json").write_text(text, encoding="utf-8")
    (ctx.out / f"{name}.stderr.txt").write_text(decode(res.stderr)[0], encoding="utf-8")
    facts = {"exit_code": res.returncode, "stdout_encoding": encoding}
    try:
        doc = json.loads(text)
    except ValueError as exc:
        return False, f"rc {res.returncode}, no JSON on stdout ({exc}): {decode(res.stderr)[0][-600:]}", facts
    nvidia = doc.get("nvidia") or {}
    gpus = nvidia.get("gpus") or []
    facts.update(schema=doc.get("schema"), driver_version=nvidia.get("driver_version"),
                 cuda_version=nvidia.get("cuda_version"), gpus=[g.get("name") for g in gpus],
                 findings=[f.get("id") for f in doc.get("findings", [])])
    if not str(doc.get("schema", "")).startswith("gpu-setup-wizard/doctor@1."):
        return False, f"schema {doc.get('schema')!r}", facts
    # --json redirected on Korean Windows: ASCII (escapes), not cp949 bytes a UTF-8 reader garbles
    if encoding != "ascii":
        return False, f"--json on a redirected cp949 stdout is {encoding}, not ASCII", facts
    # the ASCII-root rule: a Hangul profile's environments go under C:\GPU-Setup-Wizard\envs
    facts["default_env_root"] = (doc.get("system") or {}).get("disk_path")
    if facts["default_env_root"] != ASCII_ENV_ROOT:
        return False, f"default environment root {facts['default_env_root']!r}, expected {ASCII_ENV_ROOT!r}", facts
    if stand_in is None:
        ok = not gpus and not nvidia.get("driver_version")
        return ok, "" if ok else f"a GPU without one: {facts}", facts
    gpu = gpus[0] if gpus else {}
    want = {"driver_version": "591.86", "cuda_version": "13.1"}
    wrong = [f"{k}={nvidia.get(k)!r}" for k, v in want.items() if nvidia.get(k) != v]
    if gpu.get("name") != "NVIDIA GeForce RTX 2080 SUPER":
        wrong.append(f"name={gpu.get('name')!r}")
    if gpu.get("memory_total_mib") != 8192:
        wrong.append(f"memory_total_mib={gpu.get('memory_total_mib')!r}")
    if gpu.get("compute_capability") != "7.5":
        wrong.append(f"compute_capability={gpu.get('compute_capability')!r}")
    if "WDDM" not in json.dumps(gpu):
        wrong.append("the driver model (WDDM) is not in the GPU's facts")
    return not wrong, "; ".join(wrong), facts


def smoke(ctx: Installed, lang: str) -> tuple[bool, str, dict]:
    res = ctx.run_app("gpu-setup-wizard", ["--smoke-test", "--lang", lang], timeout=180)
    facts = {"exit_code": res.returncode}
    return res.returncode == 0, "" if res.returncode == 0 else decode(res.stderr)[0][-800:], facts


def shot(ctx: Installed, lang: str, wait_s: float = 90) -> tuple[bool, str, dict]:
    """Start the window (no smoke test), wait until the screen is drawn and still, save it."""
    assert ctx.framebuffer is not None
    env = {**APP_ENV, "DISPLAY": ctx.display}
    proc = ctx.runner.popen([ctx.exe("gpu-setup-wizard"), "--lang", lang], extra=env)
    png = ctx.out / f"screenshot-{lang}.png"
    colours, previous, stable = 0, b"", 0
    deadline = time.monotonic() + wait_s
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            time.sleep(2)
            data = ctx.framebuffer.read_bytes()
            stable = stable + 1 if data == previous else 0
            previous = data
            if stable >= 2:
                colours = screenshot.save(ctx.framebuffer, png)
                if colours > 20:
                    break
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
        ctx.runner.kill_server()
    facts = {"file": png.name, "distinct_colours": colours}
    if not png.exists() or colours <= 20:
        return False, f"no drawn window within {wait_s:.0f} s (rc {proc.returncode})", facts
    return True, "", facts


def self_check(ctx: Installed, self_check_exe: Path, python: str) -> tuple[bool, str, dict]:
    target = ctx.app_dir / self_check_exe.name
    shutil.copy2(self_check_exe, target)
    try:
        res = ctx.run_app(self_check_exe.stem, ["--python", python], extra={"QT_QPA_PLATFORM": "offscreen"})
    finally:
        target.unlink()
    text = decode(res.stdout)[0].strip()
    try:
        report = json.loads(text.splitlines()[-1])
    except (IndexError, ValueError):
        return False, f"rc {res.returncode}, no report: {text[-400:]} {decode(res.stderr)[0][-600:]}", {}
    failed = [k for k, v in report.get("checks", {}).items() if not v] + report.get("errors", [])
    return bool(report.get("ok")), "; ".join(map(str, failed)), {"checks": report.get("checks"),
                                                                  "versions": report.get("versions")}


def first_paint_ms(ctx: Installed, argv: list[str]) -> float | None:
    env = {**APP_ENV, "DISPLAY": ctx.display}
    res = ctx.runner.run(argv, extra=env, timeout=180, cwd=ctx.runner.profile)
    for line in decode(res.stdout)[0].splitlines():
        if line.startswith("smoke-test: first page painted after "):
            return float(line.rsplit(" ", 2)[-2])
    return None


def loaded_dlls(ctx: Installed, argv: list[str]) -> list[str]:
    """The DLLs and .pyd files a start-up loads (wine's +loaddll trace): each is a file the loader
    maps and relocates, and one more for antivirus to scan on Windows."""
    env = {**APP_ENV, "DISPLAY": ctx.display, "WINEDEBUG": "+loaddll"}
    res = ctx.runner.run(argv, extra=env, timeout=180, cwd=ctx.runner.profile)
    names = re.findall(r'Loaded L"([^"]+)"', res.stderr.decode("utf-8", errors="replace"))
    return sorted({n.rsplit("\\", 1)[-1].lower() for n in names})


def startup_ratio(ctx: Installed, bare_exe: Path, rounds: int = 5) -> tuple[bool, str, dict]:
    """The wizard's first paint against the bare QWizard's, alternated, medians compared."""
    wizard_ms, bare_ms = [], []
    first_paint_ms(ctx, [ctx.exe("gpu-setup-wizard-cli"), "--smoke-test"])  # warm the file cache once
    first_paint_ms(ctx, [windows_path(bare_exe)])
    for _ in range(rounds):
        for argv, into in (([ctx.exe("gpu-setup-wizard-cli"), "--smoke-test"], wizard_ms),
                           ([windows_path(bare_exe)], bare_ms)):
            ms = first_paint_ms(ctx, argv)
            if ms is not None:
                into.append(ms)
    dlls = {side: loaded_dlls(ctx, argv) for side, argv in
            (("wizard", [ctx.exe("gpu-setup-wizard-cli"), "--smoke-test"]), ("bare", [windows_path(bare_exe)]))}
    if not wizard_ms or not bare_ms:
        return False, f"no first-paint time (wizard {wizard_ms}, bare {bare_ms})", {}
    ratio = statistics.median(wizard_ms) / statistics.median(bare_ms)
    # A measurement: the step is ok when both sides were timed; whether the target is met goes
    # to the JSON beside it (startup_ratio_met), so a slow wine does not hide the other steps.
    facts = {"wizard_ms": wizard_ms, "bare_ms": bare_ms, "ratio": round(ratio, 3),
             "target": STARTUP_TARGET, "met": ratio <= STARTUP_TARGET,
             "dlls_loaded": {side: len(names) for side, names in dlls.items()},
             "dlls_only_wizard": sorted(set(dlls["wizard"]) - set(dlls["bare"]))}
    return True, "", facts


def upgrade(ctx: Installed, old_installer: Path, new_installer: Path, old_only: str,
            version: str) -> tuple[bool, str, dict]:
    """Uninstall, install the older version, install this one over it."""
    for installer in (old_installer, new_installer):
        res = ctx.runner.run([windows_path(installer), "/S"], timeout=600)
        ctx.runner.wait_server()
        if res.returncode != 0:
            return False, f"{installer.name} /S exited {res.returncode}", {}
        if installer == old_installer and not (ctx.app_dir / old_only).exists():
            return False, "the older version did not install", {}
    got = reg_value(ctx.runner, UNINST_KEY, "DisplayVersion")
    problems = []
    if (ctx.app_dir / old_only).exists():
        problems.append(f"{old_only} of the older version is still there")
    if got != version:
        problems.append(f"DisplayVersion {got!r}, expected {version!r}")
    return not problems, "; ".join(problems), {"display_version": got}


def uninstall(ctx: Installed, made_by_student: set[str]) -> tuple[bool, str, dict]:
    res = ctx.runner.run([f"{ctx.windows_profile}\\{APP_DIR}\\uninstall.exe", "/S"], timeout=600)
    ctx.runner.wait_server()
    after = profile_listing(ctx.runner)
    before = ctx.facts.get("profile_before", set())
    allowed = {*made_by_student, NOT_THE_APP_S[0]}  # these with what is in them; Programs itself only
    left = sorted(p for p in after - before if p != NOT_THE_APP_S[1]
                  and not any(p == m or p.startswith(m + "/") for m in allowed))
    left = [p for p in left if not any(p.startswith(q + "/") for q in left)]  # top-most only
    problems = []
    if ctx.app_dir.exists():
        problems.append("the install folder is still there")
    if reg_value(ctx.runner, UNINST_KEY, "DisplayVersion"):
        problems.append("the uninstall key is still there")
    if left:
        problems.append(f"left in the profile: {left[:8]}")
    return res.returncode == 0 and not problems, "; ".join(problems), {"left": left}
