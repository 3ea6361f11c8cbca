"""``doctor --explain FILE --python ENV``: the findings of a pasted text use what the named
environment shows. The environments here are real virtual environments asked by a real
subprocess; the packages in them are distribution metadata (what pip leaves in site-packages and
what the context script reads), so no torch download is needed to test a "torch 2.2 with NumPy 2"
environment.
"""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.cli_runner import run_cli
from wizard.cli.exit_status import ExitStatus
from wizard.core.base.host import RealHost
from wizard.core.base.user_input import decode_user_bytes
from wizard.core.diagnosis.context import ContextError, ExplainContext, apply_context, gather_explain_context
from wizard.core.diagnosis.explain import recognise

pytestmark = pytest.mark.slow  # makes venvs

ROOT = Path(__file__).resolve().parents[2]
ERRORS = ROOT / "tests" / "data" / "errors"


def _paste(name: str) -> str:
    return decode_user_bytes((ERRORS / name).read_bytes())


def _venv(where: Path, packages: dict[str, str]) -> Path:
    """A real venv (no pip) whose site-packages holds the metadata of ``packages``."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True, timeout=120)
    purelib = sysconfig.get_path("purelib", vars={"base": str(where), "platbase": str(where)})
    for name, version in packages.items():
        info = Path(purelib) / f"{name.replace('-', '_')}-{version}.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8")
    return where


@pytest.fixture(scope="module")
def old_torch_numpy2(tmp_path_factory) -> Path:
    return _venv(tmp_path_factory.mktemp("ctx") / "env torch22", {"torch": "2.2.2", "numpy": "2.1.0"})


def test_the_context_comes_from_the_named_environment(old_torch_numpy2):
    ctx = gather_explain_context(RealHost(), str(old_torch_numpy2))
    assert ctx.version("torch") == "2.2.2" and ctx.version("numpy") == "2.1.0"
    assert ctx.version("triton") is None and ctx.python == "%d.%d.%d" % sys.version_info[:3]
    assert Path(ctx.executable).resolve().is_relative_to(old_torch_numpy2.resolve()) or \
        str(old_torch_numpy2) in ctx.executable
    assert ctx.os == {"win32": "windows", "darwin": "macos"}.get(sys.platform, "linux")
    with pytest.raises(ContextError):
        gather_explain_context(RealHost(), str(old_torch_numpy2 / "no-such-python"))


def test_numpy2_with_an_old_torch_gets_the_exact_command(old_torch_numpy2):
    ctx = gather_explain_context(RealHost(), str(old_torch_numpy2))
    plain = recognise(_paste("numpy-not-available-codeformer-zh.txt"))
    (top, *_) = apply_context(plain, ctx)
    assert (top.id, top.variant) == ("numpy-abi-mismatch", "ctx-numpy2-old-torch")
    assert top.params["numpy"] == "2.1.0" and top.params["torch"] == "2.2.2"
    for lang in ("en", "ko"):
        assert f'"{ctx.executable}" -m pip install "numpy<2"' in top.fix(lang)
        assert "2.2.2" in top.cause(lang)
    assert "numpy 2.1.0, torch 2.2.2" in top.evidence and plain[0].evidence in top.evidence
    # the same paste, an environment whose torch is new enough: the general advice stays
    newer = ExplainContext(ctx.executable, ctx.python, ctx.os, {"torch": "2.5.1", "numpy": "2.1.0"})
    assert apply_context(plain, newer)[0].variant == plain[0].variant


def test_a_notebook_without_torch_when_the_environment_has_it(old_torch_numpy2):
    ctx = gather_explain_context(RealHost(), str(old_torch_numpy2))
    (top, *_) = [f for f in apply_context(recognise(_paste("notebook-no-torch-jupyter-windows.txt")), ctx)
                 if f.severity != "info"]
    assert (top.id, top.variant) == ("torch-not-installed", "ctx-notebook-other-python")
    for lang in ("en", "ko"):
        assert f'"{ctx.executable}" -m ipykernel install --user --name dl' in top.fix(lang)
    (plain,) = apply_context(recognise(_paste("no-torch-conda-env-deepmod2.txt")), ctx)
    assert plain.variant == "ctx-other-python" and "torch 2.2.2" in plain.cause("en")


def test_the_code_page_and_utf8_mode_decide_the_korean_advice():
    found = recognise(_paste("cp949-decode-ksponspeech-pandas.txt"))
    on = ExplainContext("C:\\venv\\Scripts\\python.exe", "3.11.9", "windows", acp=949, pythonutf8="1")
    off = ExplainContext("C:\\venv\\Scripts\\python.exe", "3.11.9", "windows", acp=949, pythonutf8=None)
    (with_utf8,) = apply_context(found, on)
    (without,) = apply_context(found, off)
    assert with_utf8.variant == "ctx-utf8-on" and 'encoding="utf-8"' in with_utf8.fix("ko")
    assert without.variant == "decode" and "PYTHONUTF8" in without.fix("en")
    assert "Windows code page: 949" in without.evidence
    linux = ExplainContext("/usr/bin/python3", "3.12.3", "linux")
    assert apply_context(found, linux) == found  # no Windows code page to speak of


def test_triton_advice_follows_the_machine():
    generic = recognise(_paste("triton-missing-hidream-comfyui.txt"))
    assert generic[0].variant is None  # the text alone does not say Windows
    win = ExplainContext("C:\\ComfyUI\\python.exe", "3.12.7", "windows", {"torch": "2.6.0+cu126"})
    assert apply_context(generic, win)[0].variant == "windows"
    linux = ExplainContext("/home/student/venv/bin/python", "3.12.3", "linux", {"torch": "2.6.0+cu126"})
    (top,) = apply_context(generic, linux)
    assert top.variant == "ctx-linux-no-triton" and "pip show triton" in top.fix("en")


def test_doctor_explain_with_python_end_to_end(old_torch_numpy2):
    paste = str(ERRORS / "numpy-not-available-codeformer-zh.txt")
    done = run_cli("doctor", "--explain", paste, "--python", str(old_torch_numpy2), "--json")
    assert done.returncode == ExitStatus.SUCCESS, done.stderr
    (top, *_) = json.loads(done.stdout)["findings"]
    assert top["id"] == "numpy-abi-mismatch" and any('-m pip install "numpy<2"' in s for s in top["steps"])
    bad = run_cli("doctor", "--explain", paste, "--python", str(old_torch_numpy2 / "missing"), "--lang", "ko")
    assert bad.returncode == ExitStatus.BAD_INPUT
    assert bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr and "파이썬" in bad.stderr


def test_inside_wsl_the_windows_drivers_library_decides(old_torch_numpy2):
    """A missing libcuda.so.1 seen from WSL: WSL 1 has no GPU at all; in WSL 2 the Windows driver puts
    the library in /usr/lib/wsl/lib. The script reports WSL only inside WSL (this machine is not)."""
    import platform

    real = gather_explain_context(RealHost(), str(old_torch_numpy2))
    if "microsoft" not in platform.release().lower():
        assert real.wsl_version is None and real.wsl_libcuda is None
    paste = recognise(_paste("libcuda-dlopen-cuda-python.txt"))
    assert paste[0].id == "libcuda-not-found"
    wsl1 = ExplainContext("/home/student/venv/bin/python", "3.12.3", "linux", wsl_version=1)
    wsl2_missing = ExplainContext("/home/student/venv/bin/python", "3.12.3", "linux", wsl_version=2,
                                  wsl_libcuda=False)
    wsl2_fine = ExplainContext("/home/student/venv/bin/python", "3.12.3", "linux", wsl_version=2, wsl_libcuda=True)
    assert (apply_context(paste, wsl1)[0].id, apply_context(paste, wsl1)[0].variant) == ("wsl2-gpu-setup", "wsl1")
    (missing, *_) = apply_context(paste, wsl2_missing)
    assert (missing.id, missing.variant, missing.severity) == ("wsl2-gpu-setup", "libs-missing", "error")
    assert "/usr/lib/wsl/lib/libcuda.so.1: missing" in missing.evidence
    assert apply_context(paste, wsl2_fine)[0].id == "libcuda-not-found"
    native = ExplainContext("/usr/bin/python3", "3.12.3", "linux")
    assert apply_context(paste, native) == paste
