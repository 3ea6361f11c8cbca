"""The kernel engine's fast parts: torch/version.py, names, the traps, reading kernel folders, VS Code's file.

The slow, real-kernel tests are tests/integration/test_kernels.py.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from wizard.app.kernels import display_name, flag_fix, flag_text
from wizard.core.verify.kernel_install import (
    VSCODE_KEY,
    SettingsRefused,
    kernel_name,
    register_argv,
    valid_name,
    write_vscode_setting,
)
from wizard.core.verify.kernel_specs import (
    EnvFacts,
    TorchBuild,
    conda_flags,
    inspect_python,
    jupyter_data_dirs,
    list_kernels,
    parse_torch_version_py,
    path_flags,
    read_kernel_dirs,
)

# torch/version.py as the wheels write it (2.13.0+cpu from this machine's wheel; the CUDA and ROCm
# variants as their wheels spell them).
CPU_VERSION_PY = """from typing import Optional

__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip', 'xpu']
__version__ = '2.13.0+cpu'
debug = False
cuda: Optional[str] = None
git_version = '0123456789abcdef'
hip: Optional[str] = None
xpu: Optional[str] = None
"""


def test_torch_version_py_says_the_build():
    assert parse_torch_version_py(CPU_VERSION_PY) == TorchBuild("2.13.0+cpu", None, None)
    cuda = parse_torch_version_py(CPU_VERSION_PY.replace("'2.13.0+cpu'", "'2.7.1+cu128'").replace(
        "cuda: Optional[str] = None", "cuda: Optional[str] = '12.8'"))
    assert cuda.version == "2.7.1+cu128" and cuda.cuda == "12.8" and cuda.gpu
    rocm = parse_torch_version_py("__version__ = '2.5.1+rocm6.2'\ncuda = None\nhip = '6.2.41133'\n")
    assert rocm.hip == "6.2.41133" and rocm.gpu
    assert parse_torch_version_py("") == TorchBuild(None)


def test_kernel_names_are_ascii_and_tell_two_venv_folders_apart():
    a = kernel_name(EnvFacts("x", prefix="/home/김철수/수업"))
    b = kernel_name(EnvFacts("x", prefix="/home/kim/dl course"))
    c = kernel_name(EnvFacts("x", prefix="/home/kim/other/dl course"))
    assert a.startswith("gsw-") and a.isascii() and valid_name(a)
    assert b.startswith("gsw-dl-course-") and valid_name(b) and b != c
    assert not valid_name("내 커널") and not valid_name("a b")
    assert register_argv("/p/python", "n", "d") == ["/p/python", "-m", "ipykernel", "install", "--user", "--name",
                                                      "n", "--display-name", "d"]


def test_display_name_says_the_build_and_the_environment():
    env = EnvFacts("/e/venv/bin/python", prefix="/home/kim/dl/venv", python_version="3.11.7",
                   torch=TorchBuild("2.7.1+cu128", "12.8"))
    assert display_name(env, "en") == "PyTorch 2.7 (GPU) – dl/venv"
    env.torch = TorchBuild("2.13.0+cpu")
    assert display_name(env, "ko") == "PyTorch 2.13 (CPU) – dl/venv"
    env.torch = None
    assert display_name(env, "en") == "Python 3.11.7 – dl/venv"


def test_a_hangul_path_is_a_trap_on_windows_only():
    flags = path_flags([r"C:\Users\김철수\AppData\Roaming\jupyter\kernels\dl"], "windows")
    assert [f.id for f in flags] == ["non_ascii_path"]
    assert "Hangul" in flag_text(flags[0], "en") and "한글" in flag_text(flags[0], "ko")
    assert path_flags([r"C:\Users\kim\AppData\Roaming\jupyter\kernels\dl"], "windows") == []
    assert path_flags(["/home/김철수/.local/share/jupyter/kernels/dl"], "linux") == []


def test_conda_environments_vs_code_will_not_see(tmp_path):
    named = tmp_path / "miniconda3" / "envs" / "dl"
    loose = tmp_path / "projects" / "dl-env"
    for prefix in (named, loose):
        (prefix / "conda-meta").mkdir(parents=True)
    on_path = "/opt/miniconda3/bin/conda"
    assert conda_flags(EnvFacts("p", prefix=str(named), conda=True), on_path) == []
    assert [f.id for f in conda_flags(EnvFacts("p", prefix=str(loose), conda=True), on_path)] == ["conda_outside_envs"]
    ids = [f.id for f in conda_flags(EnvFacts("p", prefix=str(named), conda=True), None)]
    assert ids == ["conda_not_on_path"]
    assert conda_flags(EnvFacts("p", prefix=str(loose), conda=False), None) == []  # a venv: not conda's


def test_kernel_folders_read_without_jupyter_client(tmp_path):
    user, system = tmp_path / "user", tmp_path / "system"
    for base, display in ((user, "mine"), (system, "theirs")):
        folder = base / "kernels" / "DL"
        folder.mkdir(parents=True)
        (folder / "kernel.json").write_text(json.dumps({"argv": ["python"], "display_name": display}), "utf-8")
    (user / "kernels" / "broken").mkdir()
    (user / "kernels" / "broken" / "kernel.json").write_text("{not json", "utf-8")
    found = read_kernel_dirs([str(user), str(system)])
    assert list(found) == ["dl"] and found["dl"]["spec"]["display_name"] == "mine"  # the first folder wins
    dirs = jupyter_data_dirs({"JUPYTER_DATA_DIR": str(user), "JUPYTER_PATH": str(system)}, "linux")
    assert dirs[:2] == [str(user), str(system)]
    windows = jupyter_data_dirs({"APPDATA": r"C:\Users\김\AppData\Roaming", "HOME": "x"}, "windows")
    assert windows[0].endswith("jupyter") and "AppData" in windows[0]


def test_listing_inspects_each_interpreter_and_flags_a_deleted_one(tmp_path):
    specs = {
        "here": {"resource_dir": str(tmp_path / "here"), "spec": {"argv": [sys.executable, "-m", "ipykernel_launcher"],
                                                                  "display_name": "Here", "language": "python"}},
        "gone": {"resource_dir": str(tmp_path / "gone"), "spec": {"argv": [str(tmp_path / "deleted" / "python")],
                                                                  "display_name": "Gone", "language": "python"}},
    }
    kernels = {k.name: k for k in list_kernels(gpu_machine=True, os_name="linux", specs=specs)}
    here = kernels["here"]
    assert here.interpreter == sys.executable and here.env is not None and here.env.error is None
    assert here.env.prefix == sys.prefix
    assert kernels["gone"].status == "fail" and [f.id for f in kernels["gone"].flags] == ["interpreter_missing"]
    assert "kernelspec remove gone" in flag_fix(kernels["gone"].flags[0], "en")
    assert kernels["gone"].to_json()["flags"][0]["params"]["name"] == "gone"


def test_inspecting_something_that_is_not_python_says_why(tmp_path):
    fake = tmp_path / "python"
    fake.write_text("not a program", encoding="utf-8")
    facts = inspect_python(str(fake))
    assert facts.error and facts.torch is None


# ---- VS Code ----------------------------------------------------------------------------------
def test_vscode_setting_is_written_then_merged_never_clobbered(tmp_path):
    project = tmp_path / "수업 project"
    first = write_vscode_setting(project, "/envs/dl/bin/python")
    settings = project / ".vscode" / "settings.json"
    assert first.changed and first.path == settings
    assert json.loads(settings.read_text("utf-8")) == {VSCODE_KEY: "/envs/dl/bin/python"}
    settings.write_text(json.dumps({"editor.fontSize": 15, VSCODE_KEY: "/old/python", "files.exclude": {"x": True}}),
                        "utf-8")
    merged = write_vscode_setting(project, "/envs/dl/bin/python")
    assert merged.changed and merged.previous == "/old/python"
    assert json.loads(settings.read_text("utf-8")) == {"editor.fontSize": 15, VSCODE_KEY: "/envs/dl/bin/python",
                                                       "files.exclude": {"x": True}}
    again = write_vscode_setting(project, "/envs/dl/bin/python")
    assert not again.changed
    assert [p.name for p in settings.parent.iterdir()] == ["settings.json"]  # no temporary file left


@pytest.mark.parametrize("text, reason", [
    ('{\n  // my font\n  "editor.fontSize": 15\n}\n', "jsonc"),
    ('{"editor.fontSize": 15,}\n', "jsonc"),
    ('["not", "an", "object"]', "not_object"),
])
def test_vscode_setting_refuses_a_file_it_cannot_merge_and_leaves_it(tmp_path, text, reason):
    settings = tmp_path / ".vscode" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(text, "utf-8")
    with pytest.raises(SettingsRefused) as refused:
        write_vscode_setting(tmp_path, "/envs/dl/bin/python")
    assert refused.value.reason == reason
    assert settings.read_text("utf-8") == text
    from wizard.core.base.i18n import t

    message = t(f"kernels.vscode.refused.{reason}", "ko", path=str(settings), detail=refused.value.detail)
    assert "그대로 두었습니다" in message


def test_an_empty_settings_file_is_just_filled(tmp_path):
    settings = tmp_path / ".vscode" / "settings.json"
    settings.parent.mkdir()
    settings.write_text("\n", "utf-8")
    assert write_vscode_setting(tmp_path, "C:\\envs\\dl\\python.exe").changed
    assert json.loads(Path(settings).read_text("utf-8")) == {VSCODE_KEY: "C:\\envs\\dl\\python.exe"}


def test_ipykernel_comes_from_the_mirror_the_student_named_not_always_pypi():
    """pip runs --isolated (pip's own settings unseen): a mirror is passed on, in this order:
    asked for, this run's course-extras source, PIP_INDEX_URL, else PyPI."""
    from wizard.app import kernels as app_kernels
    from wizard.app.install import EnvTarget, InstallOptions, InstallRequest
    from wizard.app.session import Session
    from wizard.core.verify.kernel_install import ipykernel_install_argv

    argv = ipykernel_install_argv("/env/bin/python", "3.12", "https://mirror.example.kr/pypi/simple")
    assert argv[argv.index("--index-url") + 1] == "https://mirror.example.kr/pypi/simple"
    assert "--index-url" not in ipykernel_install_argv("/env/bin/python", "3.12")
    session = Session()
    assert app_kernels.ipykernel_index(session, environ={}) is None
    assert app_kernels.ipykernel_index(session, environ={"PIP_INDEX_URL": "https://a.kr/simple"}) == "https://a.kr/simple"
    options = InstallOptions(requirements=["torch"], index_url="https://mirror.kr/whl/cpu",
                             extras_index="https://pypi.mirror.kr/simple")
    session.install_request = InstallRequest(EnvTarget(kind="new-venv", path="/env"), options)
    assert app_kernels.ipykernel_index(session, environ={"PIP_INDEX_URL": "x"}) == "https://pypi.mirror.kr/simple"
    assert app_kernels.ipykernel_index(session, "https://asked.kr/simple") == "https://asked.kr/simple"


def test_kernel_install_refuses_an_index_that_is_no_address(tmp_path):
    from tests.cli_runner import run_cli

    out = run_cli("kernel", "install", "--python", sys.executable, "--index-url", "mirror.kr/simple", "--yes",
                  lang="ko")
    assert out.exit_status == 2 and "mirror.kr/simple" in out.stderr and "Traceback" not in out.stderr
