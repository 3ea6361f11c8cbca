"""Conda installs and their environments, from recorded ``conda`` outputs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.recorded_host import RecordedHost
from wizard.core.base.host import CommandResult, RealHost
from wizard.core.machine.conda import find_conda, install_root, parse_conda_env_list, parse_conda_version
from wizard.core.machine.models import CondaEnv, CondaInstall

RECORDED = Path(__file__).resolve().parents[1] / "data" / "recorded"

MINI = "/home/student/miniconda3"
HOME_W = "C:\\Users\\김철수"
MINI_W = HOME_W + "\\miniconda3"
CONDA_W = MINI_W + "\\Scripts\\conda.exe"


def recorded(name: str) -> str:
    """A recorded output, byte for byte (CRLF kept)."""
    return (RECORDED / name).read_bytes().decode("utf-8")


def ok(stdout: str, stderr: str = "") -> CommandResult:
    return CommandResult([], 0, stdout, stderr)


# ------------------------------------------------------------------------------ parsing


def test_env_list_info_style_with_root_prefix():
    base, envs = parse_conda_env_list(recorded("conda/env_list_json_linux_info_style.json"))
    assert base == MINI
    assert envs == [
        CondaEnv("base", MINI, is_base=True),
        CondaEnv("dl", MINI + "/envs/dl"),
        CondaEnv("torch-cu121", MINI + "/envs/torch-cu121"),
        # created with --prefix outside any envs folder: only its path can name it
        CondaEnv("/home/student/projects/thesis/.conda", "/home/student/projects/thesis/.conda"),
    ]


def test_env_list_envs_only_windows_infers_base():
    base, envs = parse_conda_env_list(recorded("conda/env_list_json_windows_envs_only.json"))
    assert base == MINI_W
    assert [(e.name, e.is_base) for e in envs] == [
        ("base", True), ("dl", False), ("torch-cu121", False), ("D:\\My Projects\\thesis env", False)]
    assert envs[3].prefix == "D:\\My Projects\\thesis env"


def test_env_list_with_envs_details():
    base, envs = parse_conda_env_list(recorded("conda/env_list_json_envs_details.json"))
    assert base == "/Users/student/miniforge3"
    assert [(e.name, e.is_base) for e in envs] == [
        ("base", True), ("mps", False), ("/Users/student/projects/proj-env", False)]


def test_env_list_root_prefix_differs_only_in_case_on_windows():
    text = '{"envs": ["c:\\\\users\\\\kim\\\\miniconda3", "C:\\\\Users\\\\kim\\\\miniconda3\\\\envs\\\\a"], ' \
           '"root_prefix": "C:\\\\Users\\\\kim\\\\miniconda3"}'
    base, envs = parse_conda_env_list(text)
    assert [(e.name, e.is_base) for e in envs] == [("base", True), ("a", False)]


def test_env_list_without_base_in_list():
    """Old conda left the root out of the JSON; nothing can be inferred then."""
    base, envs = parse_conda_env_list('{"envs": ["/opt/anaconda/envs/ipy"]}')
    assert base is None
    assert envs == [CondaEnv("ipy", "/opt/anaconda/envs/ipy")]


def test_env_list_after_a_warning_line():
    text = "==> WARNING: A newer version of conda exists. <==\n" + recorded("conda/env_list_json_envs_details.json")
    assert parse_conda_env_list(text)[0] == "/Users/student/miniforge3"


@pytest.mark.parametrize("text", ["", "Traceback (most recent call last):", "[]", '{"envs": "x"}', "{broken"])
def test_env_list_unreadable_raises_value_error(text):
    with pytest.raises(ValueError):
        parse_conda_env_list(text)


@pytest.mark.parametrize("text, expected", [
    (recorded("conda/version_24_5_0.txt"), "24.5.0"),
    (recorded("conda/version_4_3_30_stderr.txt"), "4.3.30"),
    ("conda 25.1.1\r\n", "25.1.1"),
    ("", None),
    ("'conda' is not recognized as an internal or external command", None),
])
def test_parse_conda_version(text, expected):
    assert parse_conda_version(text) == expected


def test_install_root():
    linux = RecordedHost(os_name="linux")
    windows = RecordedHost(os_name="windows")
    assert install_root(linux, MINI + "/bin/conda") == MINI
    assert install_root(linux, MINI + "/condabin/conda") == MINI
    assert install_root(windows, CONDA_W) == MINI_W
    assert install_root(windows, MINI_W + "\\condabin\\conda.bat") == MINI_W


# ------------------------------------------------------------------------------- Linux


def linux_host() -> RecordedHost:
    """Miniconda (CONDA_EXE and PATH point at it), and a broken /opt/conda that hangs."""
    return RecordedHost(
        os_name="linux",
        env={"CONDA_EXE": MINI + "/bin/conda"},
        on_path={"conda": MINI + "/condabin/conda"},
        files={MINI + "/bin/conda": "", "/opt/conda/bin/conda": ""},
        commands={
            MINI + "/bin/conda --version": ok(recorded("conda/version_24_5_0.txt")),
            MINI + "/bin/conda env list --json": ok(recorded("conda/env_list_json_linux_info_style.json")),
            "/opt/conda/bin/conda --version": CommandResult([], None, timed_out=True, duration_s=30.0),
            "/opt/conda/bin/conda env list --json": CommandResult([], None, timed_out=True, duration_s=60.0),
        },
    )


def test_linux_miniconda_and_a_conda_that_times_out():
    host = linux_host()
    installs = find_conda(host)
    assert len(installs) == 2
    mini, broken = installs
    assert mini.exe == MINI + "/bin/conda"
    assert mini.version == "24.5.0"
    assert mini.base_prefix == MINI
    assert [e.name for e in mini.envs] == ["base", "dl", "torch-cu121", "/home/student/projects/thesis/.conda"]
    assert mini.error is None

    assert broken.exe == "/opt/conda/bin/conda"
    assert broken.version is None and broken.envs == []
    assert broken.error == "conda --version: timed out after 30 s"
    assert broken.base_prefix == "/opt/conda"
    # a conda that hangs on --version is not asked again
    assert ["/opt/conda/bin/conda", "env", "list", "--json"] not in host.calls


def test_linux_same_install_through_condabin_is_asked_once():
    host = linux_host()
    find_conda(host)
    version_calls = [c for c in host.calls if c[1:] == ["--version"]]
    assert version_calls == [[MINI + "/bin/conda", "--version"], ["/opt/conda/bin/conda", "--version"]]


def test_env_list_failure_is_kept_with_the_version():
    host = linux_host()
    host.commands[MINI + "/bin/conda env list --json"] = CommandResult(
        [], 1, "", "CondaError: Run 'conda init' before 'conda activate'\n")
    mini = find_conda(host)[0]
    assert mini.version == "24.5.0"
    assert mini.envs == []
    assert mini.base_prefix == MINI  # from where the executable sits
    assert mini.error == "conda env list --json: exit code 1: CondaError: Run 'conda init' before 'conda activate'"


def test_env_list_garbage_is_an_error_not_a_crash():
    host = linux_host()
    host.commands[MINI + "/bin/conda env list --json"] = ok("# conda environments:\n#\nbase  *  /x\n")
    mini = find_conda(host)[0]
    assert mini.error.startswith("conda env list --json: unreadable output")


def test_old_conda_without_base_in_json_gets_base_from_its_folder():
    host = linux_host()
    host.commands[MINI + "/bin/conda --version"] = ok("", recorded("conda/version_4_3_30_stderr.txt"))
    host.commands[MINI + "/bin/conda env list --json"] = ok(
        '{\n  "envs": [\n    "%s/envs/dl"\n  ]\n}\n' % MINI)
    mini = find_conda(host)[0]
    assert mini.version == "4.3.30"
    assert mini.base_prefix == MINI
    assert mini.envs == [CondaEnv("dl", MINI + "/envs/dl")]


def test_no_conda_anywhere():
    host = RecordedHost(os_name="linux")
    assert find_conda(host) == []
    assert host.calls == []


def test_common_folders_found_without_path_or_conda_exe():
    host = RecordedHost(
        os_name="linux",
        files={"/home/student/miniforge3/bin/conda": ""},
        commands={
            "/home/student/miniforge3/bin/conda --version": ok("conda 24.3.0\n"),
            "/home/student/miniforge3/bin/conda env list --json": ok('{"envs": ["/home/student/miniforge3"]}'),
        },
    )
    assert find_conda(host) == [CondaInstall(
        exe="/home/student/miniforge3/bin/conda", version="24.3.0", base_prefix="/home/student/miniforge3",
        envs=[CondaEnv("base", "/home/student/miniforge3", is_base=True)])]


# ----------------------------------------------------------------------------- Windows


def test_windows_condabin_bat_replaced_by_scripts_exe():
    host = RecordedHost(
        os_name="windows",
        env={"USERPROFILE": HOME_W, "LOCALAPPDATA": HOME_W + "\\AppData\\Local"},
        on_path={"conda": MINI_W + "\\condabin\\conda.bat"},
        files={CONDA_W: ""},
        commands={
            CONDA_W + " --version": ok("conda 24.5.0\r\n"),
            CONDA_W + " env list --json": ok(recorded("conda/env_list_json_windows_envs_only.json")),
        },
        home_dir=HOME_W,
    )
    installs = find_conda(host)
    assert len(installs) == 1
    conda = installs[0]
    assert conda.exe == CONDA_W
    assert conda.version == "24.5.0"
    assert conda.base_prefix == MINI_W
    assert [e.name for e in conda.envs] == ["base", "dl", "torch-cu121", "D:\\My Projects\\thesis env"]
    assert all(call[0] == CONDA_W for call in host.calls)


def test_windows_all_users_anaconda_in_programdata():
    exe = "C:\\ProgramData\\anaconda3\\Scripts\\conda.exe"
    host = RecordedHost(
        os_name="windows",
        env={"ProgramData": "C:\\ProgramData"},
        files={exe: ""},
        commands={exe + " --version": CommandResult([], None, error="not found")},
        home_dir=HOME_W,
    )
    installs = find_conda(host)
    assert [i.exe for i in installs] == [exe]
    assert installs[0].error == "conda --version: not found"
    assert installs[0].base_prefix == "C:\\ProgramData\\anaconda3"


# ----------------------------------------------------------------------------- RealHost


def test_real_host_does_not_fail():
    installs = find_conda(RealHost())
    for install in installs:
        assert isinstance(install, CondaInstall)
        assert install.exe and Path(install.exe).exists()
