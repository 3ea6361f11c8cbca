"""Targets, pre-flight checks and refusals, conda names, Windows path length, uv and conda output.

conda: no conda server is reachable from the build machine, so the conda commands are checked
as argv lists and conda's output is read from files in conda's formats
(tests/data/recorded/conda, see create_README.md there) and the recorded ``conda env list
--json`` outputs. uv: its outputs in tests/data/recorded/uv were captured here from uv 0.13.9.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tests.recorded_host import RecordedHost
from wizard.core.base.host import CommandResult
from wizard.core.install import preflight
from wizard.core.install.env_commands import (
    conda_remove_argv,
    create_argvs,
    describe_uv_python_download,
    parse_conda_env_location,
    parse_conda_failure,
    parse_uv_failure,
    parse_uv_python_downloads,
    uv_env,
    uv_python_install_argv,
)
from wizard.core.install.environments import (
    KIND_EXISTING_CONDA,
    KIND_EXISTING_VENV,
    KINDS,
    MARKER_SCHEMA,
    EnvTarget,
    existing_conda_env,
    existing_python,
    existing_targets,
    existing_venv,
    find_uv,
    is_incomplete,
    new_conda_env,
    new_uv_venv,
    new_venv,
    read_incomplete_marker,
    remove_incomplete_marker,
    write_incomplete_marker,
)
from wizard.core.install.parsers import CondaCreateParser
from wizard.core.install.preflight import (
    CHECK_CONDA_BASE,
    CHECK_EXTERNALLY_MANAGED,
    CHECK_OWN_RUNTIME,
    CONFIRMABLE,
    LONG_PATHS_KEY,
    SEVERITY_WARNING,
    TORCH_DEEPEST_MEMBER,
    Check,
    PreflightResult,
    conda_name_problem,
    deepest_path_length,
    max_env_path_length,
    probe_writable,
    unpacked_size,
)
from wizard.core.machine.conda import parse_conda_env_list
from wizard.core.machine.models import CondaInstall, PythonInterpreter

RECORDED = Path(__file__).resolve().parents[1] / "data" / "recorded"
GB = 1000 ** 3


def recorded(*parts: str) -> str:
    return (RECORDED.joinpath(*parts)).read_bytes().decode("utf-8")


def _missing(_path: str) -> str:
    return "missing"


def _writable(_path: str) -> None:
    return None


def checks_by_id(result: PreflightResult) -> dict[str, Check]:
    return {c.id: c for c in result.checks}


# --------------------------------------------------------------------------------------------
# Targets and commands
# --------------------------------------------------------------------------------------------
def test_interpreter_paths_per_kind_and_os():
    assert new_venv("/home/s/envs/dl", "/usr/bin/python3", os_name="linux").python_exe == \
        "/home/s/envs/dl/bin/python"
    win = new_venv("C:\\Users\\김철수\\GPU-Setup-Wizard\\envs\\dl", "C:\\Python312\\python.exe", os_name="windows")
    assert win.python_exe == "C:\\Users\\김철수\\GPU-Setup-Wizard\\envs\\dl\\Scripts\\python.exe"
    conda = CondaInstall(exe="C:\\Users\\김철수\\miniconda3\\Scripts\\conda.exe",
                         base_prefix="C:\\Users\\김철수\\miniconda3")
    t = new_conda_env("torch-cu126", "3.12", conda, os_name="windows")
    assert t.path == "C:\\Users\\김철수\\miniconda3\\envs\\torch-cu126"
    assert t.python_exe == "C:\\Users\\김철수\\miniconda3\\envs\\torch-cu126\\python.exe"  # conda: no Scripts
    assert existing_python("/opt/py/bin/python3.12", os_name="linux").python_exe == "/opt/py/bin/python3.12"


def test_target_json_round_trip():
    t = new_uv_venv("/home/student/a b/환경", "3.12", uv_exe="/x/uv", os_name="linux")
    assert t.python_version == "3.12" and t.base_python is None and t.creator == "uv"
    back = EnvTarget.from_json(json.loads(json.dumps(t.to_json(), ensure_ascii=False)))
    assert back == t
    with pytest.raises(ValueError):
        EnvTarget("sideways", "/x")


def test_create_commands():
    assert create_argvs(new_venv("/e", "/usr/bin/python3.11", os_name="linux")) == \
        [["/usr/bin/python3.11", "-m", "venv", "/e"]]
    uv = create_argvs(new_uv_venv("/e", "3.12", uv_exe="/x/uv", os_name="linux"))
    assert uv == [["/x/uv", "venv", "--no-config", "--allow-existing", "--python", "3.12", "/e"],
                  ["/e/bin/python", "-m", "ensurepip", "--default-pip"]]  # no --seed: that needs PyPI
    conda = CondaInstall(exe="/home/s/miniconda3/bin/conda", base_prefix="/home/s/miniconda3")
    assert create_argvs(new_conda_env("dl", "3.11", conda, os_name="linux")) == \
        [["/home/s/miniconda3/bin/conda", "create", "-n", "dl", "python=3.11", "-y"]]
    assert create_argvs(existing_venv("/e", os_name="linux")) == []
    assert conda_remove_argv("conda", "/p") == ["conda", "env", "remove", "-p", "/p", "-y"]


def test_uv_python_commands_and_mirror():
    assert uv_python_install_argv("uv", "3.12") == ["uv", "python", "install", "3.12"]
    assert uv_python_install_argv("uv", "3.12", "/d", "https://m/pbs") == \
        ["uv", "python", "install", "3.12", "--install-dir", "/d", "--mirror", "https://m/pbs"]
    assert uv_env("https://m/pbs") == {"UV_PYTHON_INSTALL_MIRROR": "https://m/pbs"}
    assert uv_env() == {}


def test_find_uv_uses_the_packaged_binary():
    uv_pkg = pytest.importorskip("uv", reason="the uv package is not installed here")
    found = find_uv()
    assert found is not None and os.path.samefile(found, uv_pkg.find_uv_bin())


# --------------------------------------------------------------------------------------------
# uv output (captured)
# --------------------------------------------------------------------------------------------
def test_uv_download_list_says_what_and_where():
    downloads = parse_uv_python_downloads(recorded("uv", "python_list_downloads_3.12.json"))
    assert [d.key for d in downloads] == ["cpython-3.12.16-linux-x86_64-gnu"]  # pypy/graalpy left out
    assert downloads[0].url.endswith("x86_64-unknown-linux-gnu-install_only_stripped.tar.gz")
    mirrored = parse_uv_python_downloads(recorded("uv", "python_list_downloads_3.12_mirror.json"))
    assert mirrored[0].host == "mirror.example.kr"
    assert mirrored[0].url.startswith("https://mirror.example.kr/python-build-standalone/")


def test_uv_offline_error_is_recognised():
    f = parse_uv_failure(recorded("uv", "python_install_offline_linux.txt"))
    assert f.kind == "offline" and f.host == "github.com"
    assert "UV_PYTHON_INSTALL_MIRROR" in f.message.text("en") and "github.com" in f.message.text("ko")


def test_uv_mirror_refused_names_the_mirror():
    f = parse_uv_failure(recorded("uv", "python_install_mirror_refused.txt"))
    assert f.kind == "refused" and f.host == "127.0.0.1"
    assert f.url.startswith("http://127.0.0.1:9/pbs/")


def test_uv_unknown_version():
    f = parse_uv_failure(recorded("uv", "python_install_no_download.txt"))
    assert f.kind == "not-found" and "cpython-3.99" in f.message.text("en")


# --------------------------------------------------------------------------------------------
# conda output (conda's formats; no conda server here)
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name,location", [
    ("create_linux_ok.txt", "/home/student/miniconda3/envs/dl"),
    ("create_windows_ok.txt", "C:\\Users\\김철수\\miniconda3\\envs\\torch-cu126"),
])
def test_conda_create_output(name, location):
    text = recorded("conda", name)
    assert parse_conda_env_location(text) == location
    parser = CondaCreateParser("create")
    fractions = [p.fraction for p in (parser.feed_line(line) for line in text.splitlines()) if p is not None]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and len(fractions) >= 5


@pytest.mark.parametrize("name,kind,host", [
    ("create_tos_error.txt", "tos", "repo.anaconda.com"),
    ("create_http000_windows.txt", "offline", "repo.anaconda.com"),
    ("create_prefix_exists.txt", "exists", None),
])
def test_conda_failures(name, kind, host):
    f = parse_conda_failure(recorded("conda", name))
    assert f.kind == kind
    assert f.host == host
    assert f.message.text("ko") != f.message.text("en")


def test_new_conda_env_prefix_from_recorded_env_list():
    base, found = parse_conda_env_list(recorded("conda", "env_list_json_linux_info_style.json"))
    conda = CondaInstall(exe=f"{base}/bin/conda", base_prefix=base, envs=found)
    t = new_conda_env("course", "3.11", conda, os_name="linux")
    assert t.path == f"{base}/envs/course"
    names = [e.name for e in found]
    assert conda_name_problem(names[-1], names) is not None  # an existing name is refused
    base_env = next(e for e in found if e.is_base)
    existing = existing_conda_env(base_env, conda, os_name="linux")
    host = RecordedHost(disks={"/": (500 * GB, 1000 * GB)})
    result = preflight.preflight(existing, host, conda_base_prefix=base, writable=_writable, folder_state=_missing)
    assert checks_by_id(result)[CHECK_CONDA_BASE].blocks


# --------------------------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["dl", "torch-2.6_cu126", "course.v2", "딥러닝"])
def test_good_conda_names(name):
    assert conda_name_problem(name) is None


@pytest.mark.parametrize("name,key", [
    ("my env", "install.check.conda_name.chars"), ("a/b", "install.check.conda_name.chars"),
    ("c:d", "install.check.conda_name.chars"), ("x#1", "install.check.conda_name.chars"),
    ("a\\b", "install.check.conda_name.chars"), ("base", "install.check.conda_name.reserved"),
    ("root", "install.check.conda_name.reserved"), ("", "install.check.conda_name.empty"),
    ("dl", "install.check.conda_name.exists"),
])
def test_bad_conda_names(name, key):
    problem = conda_name_problem(name, existing=["dl"])
    assert problem is not None and problem.key == key


def test_max_path_arithmetic():
    limit = max_env_path_length()
    assert limit == 259 - len("\\Lib\\site-packages\\") - TORCH_DEEPEST_MEMBER == 69
    ok = "C:\\Users\\김철수\\GPU-Setup-Wizard\\envs\\torch"
    assert deepest_path_length(ok) <= 259
    assert deepest_path_length("C:\\" + "x" * 66) == 259  # 69 characters: the limit
    assert deepest_path_length("C:\\" + "x" * 67) == 260


LONG = "C:\\Users\\김철수\\Documents\\대학교 3학년 2학기\\딥러닝 실습 과제 모음\\week 03 environment setup\\torch"
REG_LONG_PATHS = ("\r\nHKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Control\\FileSystem\r\n"
                  "    LongPathsEnabled    REG_DWORD    {value}\r\n\r\n")


def _windows_host(long_paths: str | None) -> RecordedHost:
    key = "reg query " + LONG_PATHS_KEY + " /v LongPathsEnabled"
    if long_paths is None:
        result = CommandResult([], 1, "", recorded("windows", "reg_value_not_found.txt"))
    else:
        result = CommandResult([], 0, REG_LONG_PATHS.format(value=long_paths))
    return RecordedHost(os_name="windows", commands={key: result}, disks={"C:\\": (300 * GB, 500 * GB)})


@pytest.mark.parametrize("value,blocks", [(None, True), ("0x0", True), ("0x1", False)])
def test_windows_path_length(value, blocks):
    target = new_venv(LONG, "C:\\Python312\\python.exe", os_name="windows")
    assert deepest_path_length(LONG) > 259
    result = preflight.preflight(target, _windows_host(value), writable=_writable, folder_state=_missing)
    check = checks_by_id(result).get("path-too-long")
    assert (check is not None and check.blocks) == blocks
    if blocks:
        text = check.text("ko")
        assert "LongPathsEnabled" in text and str(max_env_path_length()) in text


def test_short_hangul_path_with_spaces_raises_nothing():
    path = "C:\\Users\\김철수\\GPU Setup Wizard\\envs\\torch 2"
    target = new_venv(path, "C:\\Python312\\python.exe", os_name="windows")
    host = _windows_host(None)
    result = preflight.preflight(target, host, download_bytes=3 * GB, writable=_writable, folder_state=_missing)
    assert result.ok, [c.text() for c in result.blocking]
    assert not [c for c in result.checks if c.severity == SEVERITY_WARNING]
    assert host.calls == []  # short enough: the registry is not even asked


def test_disk_space_same_volume_counts_download_and_unpacked():
    host = RecordedHost(disks={"/": (8 * GB, 100 * GB)})
    target = new_venv("/home/s/GPU-Setup-Wizard/envs/dl", "/usr/bin/python3", os_name="linux")
    # 3 GB download + 6 GB unpacked (2x) does not fit in 8 GB
    short = preflight.preflight(target, host, download_bytes=3 * GB, cache_dir="/home/s/.cache/gsw",
                           writable=_writable, folder_state=_missing)
    check = checks_by_id(short)["disk-space"]
    assert check.blocks and "8.0 GB" in check.text("en") and "GB" in check.text("ko")
    fits = preflight.preflight(target, host, download_bytes=1 * GB, cache_dir="/home/s/.cache/gsw",
                          writable=_writable, folder_state=_missing)
    assert fits.ok


def test_disk_space_separate_volumes_are_checked_separately():
    host = RecordedHost(disks={"/home": (5 * GB, 100 * GB), "/cache": (1 * GB, 10 * GB)})
    target = new_venv("/home/s/env", "/usr/bin/python3", os_name="linux")
    result = preflight.preflight(target, host, download_bytes=2 * GB, unpacked_bytes=4 * GB, cache_dir="/cache/gsw",
                            writable=_writable, folder_state=_missing)
    by_id = checks_by_id(result)
    assert not by_id["disk-space"].blocks  # 4 GB + venv fits in 5 GB
    assert by_id["cache-space"].blocks  # 2 GB download does not fit in 1 GB


def test_new_venv_location_must_be_new_or_empty(tmp_path):
    host = RecordedHost(disks={"/": (100 * GB, 200 * GB)})
    occupied = tmp_path / "과제 폴더"
    occupied.mkdir()
    (occupied / "report.hwp").write_text("x", encoding="utf-8")
    t = new_venv(str(occupied), sys.executable)
    assert checks_by_id(preflight.preflight(t, host))["path-not-empty"].blocks
    empty = tmp_path / "빈 폴더"
    empty.mkdir()
    assert "path-not-empty" not in checks_by_id(preflight.preflight(new_venv(str(empty), sys.executable), host))
    not_venv = existing_venv(str(occupied))
    assert checks_by_id(preflight.preflight(not_venv, host))["not-a-venv"].blocks


def test_writable_probe_really_writes(tmp_path):
    assert probe_writable(str(tmp_path / "new" / "deeper")) is None
    blocker = tmp_path / "a file"
    blocker.write_text("x", encoding="utf-8")
    reason = probe_writable(str(blocker / "env"))
    assert reason is not None and "file" in reason
    host = RecordedHost(disks={"/": (100 * GB, 200 * GB)})
    result = preflight.preflight(new_venv(str(blocker / "env"), sys.executable), host)
    assert checks_by_id(result)["not-writable"].blocks


def test_own_runtime_is_refused_unless_confirmed(tmp_path):
    host = RecordedHost(disks={"/": (100 * GB, 200 * GB)})
    venv = tmp_path / "wizard env"
    venv.mkdir()
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    t = existing_venv(str(venv))
    refused = preflight.preflight(t, host, own_prefixes=[str(venv)])
    assert [c.id for c in refused.blocking] == [CHECK_OWN_RUNTIME]
    assert refused.needs_confirmation
    accepted = preflight.preflight(t, host, own_prefixes=[str(venv)], confirmed=[CHECK_OWN_RUNTIME])
    assert accepted.ok and accepted.get(CHECK_OWN_RUNTIME).confirmed
    assert preflight.preflight(t, host, own_prefixes=[str(tmp_path / "other")]).ok
    # the running interpreter's own environment, picked as an interpreter
    mine = existing_python(sys.executable)
    assert preflight.preflight(mine, host, own_prefixes=[sys.prefix]).get(CHECK_OWN_RUNTIME) is not None


def test_externally_managed_python_is_refused_unless_confirmed():
    host = RecordedHost(disks={"/": (100 * GB, 200 * GB)})
    system = PythonInterpreter(path="/usr/bin/python3", version="3.12.3", externally_managed=True)
    t = existing_python("/usr/bin/python3", os_name="linux")
    result = preflight.preflight(t, host, interpreter=system, own_prefixes=[], writable=_writable)
    check = result.get(CHECK_EXTERNALLY_MANAGED)
    assert check is not None and check.blocks and "PEP 668" in check.text("ko")
    assert preflight.preflight(t, host, interpreter=system, own_prefixes=[], confirmed=CONFIRMABLE).ok
    # a new venv made FROM that Python is fine: the venv is not externally managed
    new = new_venv("/home/s/env", "/usr/bin/python3", os_name="linux")
    assert preflight.preflight(new, host, interpreter=system, own_prefixes=[], writable=_writable,
                          folder_state=_missing).ok


def test_conda_base_by_name():
    host = RecordedHost(disks={"/": (100 * GB, 200 * GB)})
    from wizard.core.machine.models import CondaEnv

    t = existing_conda_env(CondaEnv("base", "/home/s/miniconda3", True), os_name="linux")
    result = preflight.preflight(t, host, own_prefixes=[], writable=_writable, folder_state=_missing)
    assert [c.id for c in result.blocking] == [CHECK_CONDA_BASE]
    assert preflight.preflight(t, host, own_prefixes=[], writable=_writable, folder_state=_missing,
                          confirmed=[CHECK_CONDA_BASE]).ok


def test_new_conda_name_checked_in_preflight():
    host = RecordedHost(disks={"/": (100 * GB, 200 * GB)})
    conda = CondaInstall(exe="/c/bin/conda", base_prefix="/c")
    bad = new_conda_env("my env", "3.12", conda, os_name="linux")
    result = preflight.preflight(bad, host, writable=_writable, folder_state=_missing)
    assert checks_by_id(result)["conda-name"].blocks


def test_every_check_message_exists_in_both_languages():
    from wizard.core.base.i18n import catalogue
    from wizard.core.install import env_commands, environments, preflight

    src = "".join(Path(m.__file__).read_text(encoding="utf-8") for m in (environments, env_commands, preflight))
    import re

    keys = set(re.findall(r'msg\(\s*"(install\.[a-z0-9_.\-]+)"', src))
    assert len(keys) > 20
    missing = [k for k in keys if k not in catalogue()]
    assert not missing, missing
    for kind in KINDS:
        assert f"install.target.{kind}" in catalogue()


# --------------------------------------------------------------------------------------------
# Marker and sizes
# --------------------------------------------------------------------------------------------
def test_incomplete_marker(tmp_path):
    env = tmp_path / "가상 환경"
    env.mkdir()
    assert not is_incomplete(str(env))
    write_incomplete_marker(str(env), {"requirements": ["torch==2.6.0"]})
    data = read_incomplete_marker(str(env))
    assert data["schema"] == MARKER_SCHEMA and data["requirements"] == ["torch==2.6.0"]
    assert is_incomplete(str(env))
    assert remove_incomplete_marker(str(env)) and not remove_incomplete_marker(str(env))


def test_unpacked_size_reads_the_zip_directory(tmp_path):
    import zipfile

    wheel = tmp_path / "x-1.0-py3-none-any.whl"
    deep = "x/" + "d" * 150 + "/f.py"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("x/__init__.py", "A = 1\n" * 1000)
        zf.writestr(deep, b"\0" * 5000)
    total, longest = unpacked_size([wheel])
    assert total == 6000 + 5000 and longest == len(deep)
    assert wheel.stat().st_size < total


def test_describe_uv_python_download_from_recorded_output():
    host = RecordedHost(commands={
        "uv python list 3.12 --only-downloads --output-format json":
            CommandResult([], 0, recorded("uv", "python_list_downloads_3.12_mirror.json")),
        "uv python dir": CommandResult([], 0, "/home/student/.local/share/uv/python\n"),
    })
    download, folder = describe_uv_python_download(host, "/opt/gsw/uv", "3.12", "https://mirror.example.kr/pbs")
    assert download.version == "3.12.16" and download.host == "mirror.example.kr"
    assert folder == "/home/student/.local/share/uv/python"
    from wizard.core.base.i18n import msg

    line = msg("install.uv.download_info", version=download.version, url=download.url, folder=folder).text("ko")
    assert "3.12.16" in line and "mirror.example.kr" in line
    offline = RecordedHost()  # uv missing or failing: the page says it cannot tell, nothing crashes
    assert describe_uv_python_download(offline, "uv", "3.12") == (None, None)


def test_existing_targets_lists_venvs_conda_envs_and_the_wizard_folder(tmp_path):
    base, found = parse_conda_env_list(recorded("conda", "env_list_json_linux_info_style.json"))
    conda = CondaInstall(exe=f"{base}/bin/conda", base_prefix=base, envs=found)
    pythons = [PythonInterpreter(path="/home/s/proj/.venv/bin/python", version="3.11.9", is_venv=True),
               PythonInterpreter(path="/usr/bin/python3", version="3.12.3"),
               PythonInterpreter(path="/home/s/proj/.venv/bin/python", version="3.11.9", is_venv=True)]
    made = tmp_path / "envs" / "torch cu126"
    made.mkdir(parents=True)
    (made / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    (tmp_path / "envs" / "not an env").mkdir()
    targets = existing_targets(pythons, [conda], os_name="linux", extra_roots=[str(tmp_path / "envs")])
    kinds = [(t.kind, t.path) for t in targets]
    assert kinds[0] == (KIND_EXISTING_VENV, "/home/s/proj/.venv")
    assert sum(1 for k in kinds if k[0] == KIND_EXISTING_CONDA) == len(found)
    assert kinds[-1] == (KIND_EXISTING_VENV, str(made))
    assert len(kinds) == 1 + len(found) + 1  # the duplicate venv and the plain folder are left out


def test_proxy_setting_reaches_the_children(tmp_path):
    from wizard.core.install.job import InstallOptions
    from wizard.core.install.runner import InstallJob

    opts = InstallOptions(["x==1"], proxies={"https": "http://proxy.campus.ac.kr:3128"},
                          state_dir=str(tmp_path / "s"), cache_dir=str(tmp_path / "c"))
    job = InstallJob(new_venv(str(tmp_path / "e"), sys.executable), opts, RecordedHost())
    env = job.child_env()
    assert env["HTTPS_PROXY"] == env["https_proxy"] == "http://proxy.campus.ac.kr:3128"
    assert env["PYTHONUTF8"] == "1" and env["PYTHONIOENCODING"] == "utf-8"
    assert env["PIP_CONFIG_FILE"] == os.devnull
