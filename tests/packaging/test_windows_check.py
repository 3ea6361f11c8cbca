"""The pieces of ``scripts/windows-check`` that can be checked without a Windows build.

The check itself takes many minutes (it freezes the wizard under wine); these tests keep its
parts honest on every run: the stand-in nvidia-smi answers what the wizard parses, byte for
byte from the capture; the PE import reader finds what a real DLL imports; the signature gate
refuses a Windows CPython not signed by the PSF; screenshots decode. Parts needing mingw, wine or
osslsigncode skip with the reason when the tool is missing.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts" / "windows_check"))

import fake_smi  # noqa: E402
import screenshot  # noqa: E402
import shims  # noqa: E402
import wine  # noqa: E402
import winpython  # noqa: E402

from tests.packaging.scripts import WINE  # noqa: E402
from wizard.core.machine import nvidia_smi  # noqa: E402

CAPTURE = REPO.parent / "shared" / "reference" / "nvidia-smi" / "01-windows-wddm-geforce-rtx2080super-591.86.capture.txt"
MINGW = shutil.which("x86_64-w64-mingw32-gcc")
needs_capture = pytest.mark.skipif(not CAPTURE.exists(), reason="the recorded Windows nvidia-smi capture is not here")
needs_mingw = pytest.mark.skipif(MINGW is None, reason="mingw-w64 (Debian gcc-mingw-w64-x86-64) is not installed")


def _answers():
    return fake_smi.answers(CAPTURE.read_text(encoding="ascii"), fake_smi.wizard_query_sets(REPO))


@needs_capture
def test_stand_in_csv_is_what_the_wizard_parses():
    by_argv = {a.argv: a for a in _answers()}
    answer = by_argv[tuple(nvidia_smi.query_argv("nvidia-smi")[1:])]
    assert answer.exit_code == 0
    assert " MiB" not in answer.stdout and " %" not in answer.stdout  # nounits
    parsed = nvidia_smi.parse_csv(answer.stdout, nvidia_smi.QUERY_FIELDS)
    gpu = parsed.gpus[0]
    assert (gpu.name, gpu.memory_total_mib, gpu.compute_capability) == ("NVIDIA GeForce RTX 2080 SUPER", 8192, "7.5")
    assert parsed.driver_version == "591.86"
    assert "WDDM" in answer.stdout


@needs_capture
def test_stand_in_table_is_the_capture_byte_for_byte():
    capture = CAPTURE.read_text(encoding="ascii")
    table = next(a for a in _answers() if a.argv == ())
    assert table.stdout in capture
    assert table.stdout.startswith("Mon Jun 22 23:04:18 2026")
    assert table.stdout.endswith("+\n")  # the section separator is not part of the output
    assert nvidia_smi.parse_table(table.stdout).cuda_version == "13.1"


@needs_capture
def test_stand_in_refuses_a_field_the_capture_lacks_like_nvidia_smi():
    csv_text = fake_smi.sections(CAPTURE.read_text(encoding="ascii"))["query-gpu (csv, what the exporter parses)"]
    answer = fake_smi.csv_answer(csv_text, ["index", "no.such.field"])
    assert answer.exit_code == 2
    assert answer.stdout.startswith('Field "no.such.field" is not a valid field to query.')


@pytest.mark.slow
@needs_capture
@needs_mingw
@pytest.mark.skipif(not Path(WINE).exists(), reason=f"wine is not installed ({WINE}, Debian package wine64)")
def test_stand_in_exe_prints_the_answer_with_crlf_under_wine(tmp_path):
    exe = tmp_path / "nvidia-smi.exe"
    found = fake_smi.build(CAPTURE, exe, fake_smi.wizard_query_sets(REPO))
    env = {**os.environ, "WINEPREFIX": str(tmp_path / "prefix"), "WINEDEBUG": "-all",
           "WINEDLLOVERRIDES": wine.OVERRIDES}
    argv = list(nvidia_smi.query_argv(str(exe)))
    res = subprocess.run([WINE, *argv], capture_output=True, stdin=subprocess.DEVNULL, env=env, timeout=300)
    want = next(a for a in found if a.argv == tuple(argv[1:]))
    assert res.returncode == 0, res.stderr[-500:]
    assert res.stdout == want.stdout.replace("\n", "\r\n").encode("ascii")


def test_xwd_framebuffer_becomes_a_png(tmp_path):
    width, height = 3, 2
    pixels = [0xFF0000, 0x00FF00, 0x0000FF, 0xFFFFFF, 0x000000, 0x123456]
    header = struct.pack(">25I", 100 + 4, 7, 2, 24, width, height, 0, 0, 32, 0, 32, 32, width * 4, 4,
                         0xFF0000, 0x00FF00, 0x0000FF, 8, 0, 0, width, height, 0, 0, 0)
    xwd = tmp_path / "Xvfb_screen0"
    xwd.write_bytes(header + b"fb\0\0" + struct.pack(f"<{len(pixels)}I", *pixels))
    png = tmp_path / "shot.png"
    assert screenshot.save(xwd, png) >= 5
    data = png.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    idat = data[data.index(b"IDAT") + 4:data.index(b"IEND") - 8]
    rows = zlib.decompress(idat)
    assert rows[:10] == b"\0" + bytes([255, 0, 0, 0, 255, 0, 0, 0, 255])
    assert rows[10 + 1 + 6:10 + 1 + 9] == bytes([0x12, 0x34, 0x56])


@needs_mingw
def test_pe_import_reader_lists_a_real_dll_s_imports(tmp_path):
    src = tmp_path / "x.c"
    src.write_text("#include <windows.h>\n__declspec(dllexport) int f(void) { return (int) GetTickCount(); }\n")
    dll = tmp_path / "x.dll"
    subprocess.run([MINGW, "-shared", "-o", str(dll), str(src)], check=True, capture_output=True, timeout=300)
    imports = shims.pe_imports(dll)
    assert "GetTickCount" in imports["kernel32.dll"]


def test_wine_version_parsing():
    assert wine.wine_major("8.0~repack-4") == 8
    assert wine.wine_major("10.0~repack-6") == 10
    assert wine.wine_major(None) == 0


@needs_mingw
@pytest.mark.skipif(not (shutil.which("osslsigncode") and shutil.which("openssl")), reason="osslsigncode/openssl missing")
def test_signature_gate_refuses_a_python_not_signed_by_the_psf(tmp_path):
    src = tmp_path / "p.c"
    src.write_text("int main(void) { return 0; }\n")
    exe = tmp_path / "python.exe"
    subprocess.run([MINGW, "-o", str(exe), str(src)], check=True, capture_output=True, timeout=300)
    with pytest.raises(winpython.PythonError, match="digest missing"):
        winpython.verify_signature(exe)
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
                    "/O=Python Software Foundation Ltd/CN=Python Software Foundation", "-keyout", str(tmp_path / "k.pem"),
                    "-out", str(tmp_path / "c.pem")], check=True, capture_output=True, timeout=120)
    signed = tmp_path / "signed.exe"
    subprocess.run(["osslsigncode", "sign", "-certs", str(tmp_path / "c.pem"), "-key", str(tmp_path / "k.pem"),
                    "-in", str(exe), "-out", str(signed)], check=True, capture_output=True, timeout=120)
    with pytest.raises(winpython.PythonError, match="not signed by the Python Software Foundation"):
        winpython.verify_signature(signed)


def test_release_payload_drops_the_shims_by_place_not_by_name(tmp_path):
    # icu4py and numpy ship the same hashed msvcp140-<hash>.dll: the ICU shim's copy in PySide6/
    # is test scaffolding, numpy's own copy is part of the app and must stay in the release.
    import build_steps

    bundle = tmp_path / "bundle"
    for rel in ("_internal/PySide6/msvcp140-a4c2.dll", "_internal/numpy.libs/msvcp140-a4c2.dll",
                "_internal/PySide6/icuuc.dll", "bundle-self-check.exe", "gpu-setup-wizard.exe"):
        (bundle / rel).parent.mkdir(parents=True, exist_ok=True)
        (bundle / rel).write_bytes(b"MZ")
    dest = tmp_path / "payload"
    dropped = build_steps._copy_payload(bundle, dest, {"_internal/PySide6/msvcp140-a4c2.dll",
                                                       "_internal/PySide6/icuuc.dll", "bundle-self-check.exe"})
    assert sorted(dropped) == ["_internal/PySide6/icuuc.dll", "_internal/PySide6/msvcp140-a4c2.dll",
                               "bundle-self-check.exe"]
    assert (dest / "_internal/numpy.libs/msvcp140-a4c2.dll").is_file()
    assert (dest / "gpu-setup-wizard.exe").is_file()


def test_the_bundle_runs_without_tzdata():
    """installers/bundle_config.py leaves tzdata (604 files) out: what the wizard uses of dateutil
    (through jupyter_client) works when tzdata cannot be imported, in a real interpreter."""
    sys.path.insert(0, str(REPO / "installers"))
    import bundle_config

    assert "tzdata" in bundle_config.EXCLUDED_MODULES
    code = ("import sys; sys.modules['tzdata'] = None\n"
            "import datetime, json\n"
            "from jupyter_client.jsonutil import extract_dates, json_default\n"
            "from dateutil.tz import tzlocal\n"
            "d = extract_dates({'t': '2026-12-06T03:04:05.123456+09:00'})['t']\n"
            "assert d.utcoffset() == datetime.timedelta(hours=9), d\n"
            "now = datetime.datetime.now(tzlocal())\n"
            "print(json.dumps({'t': json_default(d), 'local': now.utcoffset() is not None}))\n"
            "assert 'tzdata' not in [m for m in sys.modules if sys.modules[m] is not None]\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert res.returncode == 0, res.stderr[-2000:]
    assert '"local": true' in res.stdout


def test_what_the_bundle_leaves_out_the_wizard_never_imports():
    """pkg_resources/setuptools stay out of the bundle (their runtime hook would import them, and
    ssl, hashlib and pyexpat with them, before every first paint): the wizard up to its first
    paint imports none of them, in a real interpreter."""
    sys.path.insert(0, str(REPO / "installers"))
    import bundle_config

    left_out = {"pkg_resources", "setuptools", "tzdata"}
    assert left_out <= set(bundle_config.EXCLUDED_MODULES)
    code = ("import atexit, sys, runpy\n"
            f"atexit.register(lambda: print('LOADED', sorted(m for m in {sorted(left_out)!r} if m in sys.modules)))\n"
            "sys.argv = ['gpu-setup-wizard', '--smoke-test', '--lang', 'en']\n"
            "runpy.run_module('wizard', run_name='__main__')\n")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "GSW_OFFLINE": "1"}
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env,
                         check=False)
    assert "painted after" in res.stdout, res.stderr[-2000:]
    assert "LOADED []" in res.stdout, res.stdout[-2000:]


def test_the_purge_check_sees_what_purge_took_and_what_it_left(tmp_path):
    """The /PURGE step's verdict (app_steps.purge_problems) on a prefix's folders as the
    uninstaller would leave them: right, half done, and too much (the look-alike taken)."""
    import app_steps

    runner = wine.Wine(tmp_path / "prefix", user="김학생")
    made = [app_steps.PURGE_ENV, "C:\\users\\김학생\\envs\\torch-cpu"]
    assert runner.c_drive(app_steps.PURGE_ENV) == tmp_path / "prefix/drive_c/GPU-Setup-Wizard/envs/purge-check"
    for path in made:
        runner.c_drive(path).mkdir(parents=True)
        (runner.c_drive(path) / "pyvenv.cfg").write_text("home = C:\\Python313\n", encoding="utf-8")
    look_alike = app_steps.plant_look_alike(runner)
    assert look_alike == runner.c_drive(app_steps.NOT_THE_WIZARDS)
    assert (look_alike / "pyvenv.cfg").is_file() and (look_alike / "Scripts").is_dir()
    for rel in app_steps.PURGED_FROM_PROFILE:
        (runner.profile / rel).mkdir(parents=True)
    before = app_steps.purge_problems(runner, made, [app_steps.NOT_THE_WIZARDS])
    assert len(before) == 4 and all("still" in p for p in before), before
    for path in made:
        shutil.rmtree(runner.c_drive(path))
    assert app_steps.purge_problems(runner, made, [app_steps.NOT_THE_WIZARDS]) == [
        f"{rel} is still in the profile" for rel in app_steps.PURGED_FROM_PROFILE]
    for rel in app_steps.PURGED_FROM_PROFILE:
        shutil.rmtree(runner.profile / rel)
    assert app_steps.purge_problems(runner, made, [app_steps.NOT_THE_WIZARDS]) == []
    shutil.rmtree(look_alike)
    assert app_steps.purge_problems(runner, made, [app_steps.NOT_THE_WIZARDS]) == [
        f"{app_steps.NOT_THE_WIZARDS}, which the wizard did not make, was deleted"]


def test_the_purge_check_sees_the_torch_chain_s_kernel_taken_or_left(tmp_path):
    """The torch chain registers its venv's kernel (``kernel install``, default name
    gsw-torch-cpu-<6 hex>) under %APPDATA%\\jupyter\\kernels; after /PURGE that folder must be
    gone with the venv. The student's other kernels are not the chain's and are not looked for."""
    import app_steps

    runner = wine.Wine(tmp_path / "prefix", user="김학생")
    kernels = runner.profile / "AppData" / "Roaming" / "jupyter" / "kernels"
    assert app_steps.chain_kernels(runner) == []  # no Jupyter folder at all
    for name in ("gsw-torch-cpu-0a1b2c", "python3", "gsw-other-123456"):
        (kernels / name).mkdir(parents=True)
        (kernels / name / "kernel.json").write_text("{}", encoding="utf-8")
    found = app_steps.chain_kernels(runner)
    assert found == ["AppData/Roaming/jupyter/kernels/gsw-torch-cpu-0a1b2c"]
    assert app_steps.purge_problems(runner, [], [], found) == [
        f"the kernel {found[0]} the wizard registered for a purged environment is still there"]
    shutil.rmtree(kernels / "gsw-torch-cpu-0a1b2c")
    assert app_steps.purge_problems(runner, [], [], found) == []
    (kernels / "gsw-torch-cpu-0a1b2c").symlink_to(tmp_path, target_is_directory=True)  # a link left is left
    assert len(app_steps.purge_problems(runner, [], [], found)) == 1
    assert app_steps.chain_kernels(runner) == found


def test_the_purge_check_s_commands_are_ones_the_app_parses():
    """What app_steps.purge asks the installed app (an install into the ASCII root, a dry run of
    the purge) parses with the wizard's own parser."""
    import app_steps
    import torch_chain

    from wizard.cli.parser import build_parser

    parser = build_parser("en")
    args = parser.parse_args(app_steps.purge_install_argv("C:\\py\\python.exe", torch_chain.TORCH))
    assert args.venv == app_steps.PURGE_ENV and args.yes and args.index_url == app_steps.UNREACHABLE_INDEX
    args = parser.parse_args(app_steps.PURGE_DRY_RUN_ARGV)
    assert args.wizard_envs and args.dry_run and args.json
    assert app_steps.PURGE_ENV.startswith(app_steps.ASCII_ENV_ROOT + "\\")


def test_the_start_up_ratio_fails_the_check_above_its_target():
    """Medians compared (one slow start of five does not decide); above 1.3x is a failure with
    both medians in the reason; a side that never painted is a failure, not a ratio."""
    import app_steps

    met, reason, ratio = app_steps.startup_verdict([592, 549, 555, 568, 658], [450, 451, 422, 527, 435])
    assert met and reason == "" and round(ratio, 3) == 1.262  # the numbers of one real run
    met, reason, ratio = app_steps.startup_verdict([700, 690, 2400, 705, 710], [450, 451, 422, 527, 435])
    assert not met and round(ratio, 2) == 1.57 and "705 ms" in reason and "450 ms" in reason and "1.3x" in reason
    assert app_steps.startup_verdict([500, 520, 4000], [450, 460, 470])[0]  # an outlier on the wizard's side
    met, reason, ratio = app_steps.startup_verdict([], [450])
    assert not met and ratio is None and "no first-paint time" in reason
