"""Jupyter kernels for real: ipykernel from the registry into a real venv with the CPU torch wheel,
``ipykernel install --user`` into a private Jupyter folder, jupyter_client starting the kernel,
the verification probe run inside it, and the checklist read back.

Slow (a venv, pip, a kernel start and a verification run of tens of seconds each).
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import venv
from pathlib import Path

import psutil
import pytest

from tests import kernel_env
from tests.cli_runner import run_cli
from tests.torch_env import _python_in
from wizard.app import kernels as app_kernels
from wizard.app.session import Session
from wizard.core.verify.kernel_specs import list_kernels

pytestmark = pytest.mark.slow


def _register(python: Path) -> app_kernels.RegisterResult:
    """Registered with consent (ipykernel installed when this is the first test to need it)."""
    result = app_kernels.register(Session(lang="en"), str(python), consent=True)
    assert result.ok, result.to_json()
    return result


def _kernel_processes() -> list[psutil.Process]:
    found = []
    for child in psutil.Process().children(recursive=True):
        try:
            if "ipykernel_launcher" in " ".join(child.cmdline()):
                found.append(child)
        except psutil.Error:
            continue
    return found


def test_register_asks_first_then_installs_ipykernel_and_writes_the_spec(kernel_python, kernel_data_dir):
    session = Session(lang="en")
    from wizard.core.verify.kernel_specs import inspect_python

    if not inspect_python(str(kernel_python)).ipykernel:
        asked = app_kernels.register(session, str(kernel_python), consent=False)
        assert asked.needs_consent and not asked.ok and asked.steps == []
        assert "ipykernel is not installed" in app_kernels.register_text(asked, "en")
        assert not inspect_python(str(kernel_python)).ipykernel  # nothing was changed
        assert not (kernel_data_dir / "kernels").exists()
    result = _register(kernel_python)
    assert result.name.startswith("gsw-dl-course-")
    assert result.display_name == "PyTorch 2.13 (CPU) – dl-course"
    spec = json.loads((kernel_data_dir / "kernels" / result.name / "kernel.json").read_text(encoding="utf-8"))
    assert spec["argv"][0] == str(kernel_python)
    assert spec["display_name"] == result.display_name
    assert inspect_python(str(kernel_python)).ipykernel
    assert Path(result.resource_dir) == kernel_data_dir / "kernels" / result.name
    assert result.warnings == []  # Linux: the Hangul folders are no trap here


def test_a_registered_kernel_carries_the_wizards_mark_and_jupyter_still_lists_it(kernel_python, kernel_data_dir):
    """The purge takes a kernel with its environment only when kernel.json says the wizard
    registered it for that environment: the mark is the environment's prefix as its interpreter
    reports it, ipykernel's own keys stay, and jupyter_client reads the spec as before."""
    from jupyter_client.kernelspec import KernelSpecManager

    from wizard.core.verify.kernel_install import marked_kernelspecs
    from wizard.core.verify.kernel_specs import inspect_python

    result = _register(kernel_python)
    assert result.marked and result.mark_error is None
    folder = kernel_data_dir / "kernels" / result.name
    spec = json.loads((folder / "kernel.json").read_text(encoding="utf-8"))
    prefix = inspect_python(str(kernel_python)).prefix
    assert prefix and spec["metadata"]["gpu_setup_wizard"] == {"env": prefix}
    assert spec["metadata"].get("debugger") is True  # ipykernel's own metadata kept
    assert spec["argv"][0] == str(kernel_python) and spec["display_name"] == result.display_name
    assert sorted(p.name for p in folder.iterdir()) == sorted(  # no temporary file left beside it
        n for n in ("kernel.json", "logo-32x32.png", "logo-64x64.png", "logo-svg.svg") if (folder / n).exists())
    manager = KernelSpecManager()
    manager.ensure_native_kernel = False
    listed = manager.get_all_specs()
    assert result.name in listed, listed
    assert listed[result.name]["spec"]["metadata"]["gpu_setup_wizard"]["env"] == prefix
    ks = manager.get_kernel_spec(result.name)
    assert ks.argv[0] == str(kernel_python) and ks.metadata["gpu_setup_wizard"]["env"] == prefix
    assert [(k.folder, k.argv0, k.env) for k in marked_kernelspecs()] == [(str(folder), str(kernel_python), prefix)]


def test_list_flags_a_cpu_build_on_a_gpu_machine_and_a_deleted_environment(kernel_python, kernel_data_dir, tmp_path):
    result = _register(kernel_python)
    gone_dir = tmp_path / "삭제된 env"
    venv.create(gone_dir, with_pip=False, symlinks=os.name != "nt")
    gone_python = _python_in(gone_dir)
    kernel_env.write_spec(kernel_data_dir, "old-course", str(gone_python), "PyTorch 2.1 (GPU) – old-course")
    shutil.rmtree(gone_dir)

    on_cpu_pc = {k.name: k for k in list_kernels(gpu_machine=False, os_name="linux")}
    ours = on_cpu_pc[result.name]
    assert ours.status == "pass" and ours.flags == []
    assert ours.env.torch.version.startswith("2.13.0") and not ours.env.torch.gpu
    gone = on_cpu_pc["old-course"]
    assert gone.status == "fail" and gone.interpreter is None
    assert [f.id for f in gone.flags] == ["interpreter_missing"]
    assert "kernelspec remove old-course" in app_kernels.flag_fix(gone.flags[0], "en")

    on_gpu_pc = {k.name: k for k in list_kernels(gpu_machine=True, os_name="linux")}
    assert [f.id for f in on_gpu_pc[result.name].flags] == ["cpu_build"]
    assert "CPU build" in app_kernels.flag_text(on_gpu_pc[result.name].flags[0], "en")
    on_windows = {k.name: k for k in list_kernels(gpu_machine=False, os_name="windows")}
    assert "non_ascii_path" in [f.id for f in on_windows[result.name].flags]  # "kernel env 김", "jupyter 데이터"

    listed = run_cli("kernel", "list", "--json")
    assert listed.returncode == 1, listed.stderr  # a broken kernel is there
    doc = json.loads(listed.stdout)
    by_name = {k["name"]: k for k in doc["kernels"]}
    assert by_name["old-course"]["flags"][0]["id"] == "interpreter_missing"
    assert by_name[result.name]["torch"]["cuda"] is None
    refused = run_cli("kernel", "verify", "old-course")
    assert refused.returncode == 1 and "interpreter is gone" in refused.stderr


def test_cli_install_also_points_vscode_at_the_environment(kernel_python, kernel_data_dir, tmp_path):
    _register(kernel_python)  # ipykernel there: the CLI needs no --yes
    project = tmp_path / "과제 1"
    (project / ".vscode").mkdir(parents=True)
    (project / ".vscode" / "settings.json").write_text('{"editor.tabSize": 2}', encoding="utf-8")
    run = run_cli("kernel", "install", "--python", str(kernel_python), "--vscode", str(project))
    assert run.returncode == 0, run.stderr
    assert json.loads((project / ".vscode" / "settings.json").read_text(encoding="utf-8")) == {
        "editor.tabSize": 2, "python.defaultInterpreterPath": str(kernel_python)}
    commented = tmp_path / "commented"
    (commented / ".vscode").mkdir(parents=True)
    text = '{\n  // mine\n  "editor.tabSize": 2\n}\n'
    (commented / ".vscode" / "settings.json").write_text(text, encoding="utf-8")
    refused = run_cli("kernel", "install", "--python", str(kernel_python), "--vscode", str(commented), "--lang", "ko")
    assert refused.returncode == 1 and "주석" in refused.stderr and "Traceback" not in refused.stderr
    assert (commented / ".vscode" / "settings.json").read_text(encoding="utf-8") == text


def test_verify_inside_the_kernel_passes_with_the_cpu_build(kernel_python, kernel_data_dir):
    result = _register(kernel_python)
    # The kernel spec's own variables reach the probe only when it really runs inside the kernel.
    spec_file = kernel_data_dir / "kernels" / result.name / "kernel.json"
    spec = json.loads(spec_file.read_text(encoding="utf-8"))
    spec["env"] = {"PYTORCH_ENABLE_MPS_FALLBACK": "set-by-the-kernel-spec"}
    spec_file.write_text(json.dumps(spec), encoding="utf-8")

    run = run_cli("kernel", "verify", result.name, "--json")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    doc = json.loads(run.stdout)
    assert doc["status"] != "fail" and doc["ok"] and doc["complete"], doc["checks"]
    checks = {c["id"]: c["status"] for c in doc["checks"]}
    assert checks["torch.import"] == "pass" and checks["cpu.matmul"] == "pass"
    assert doc["versions"]["torch"].startswith("2.13.0")
    assert doc["facts"]["python"]["executable"] == str(kernel_python)
    assert doc["facts"]["env"]["PYTORCH_ENABLE_MPS_FALLBACK"] == "set-by-the-kernel-spec"
    assert "ipykernel_launcher" in doc["probe"]["argv"]
    assert doc["kernel"]["name"] == result.name and doc["kernel"]["display_name"] == result.display_name
    assert "Starting kernel " + result.name in run.stderr
    print("\n".join(line for line in run.stderr.splitlines() if line.startswith("…")))
    text = run_cli("kernel", "verify", result.name, "--lang", "ko")
    assert text.returncode == 0 and "[ OK ] PyTorch 불러오기" in text.stdout, text.stdout
    assert text.stdout.startswith(result.name + " – \"" + result.display_name)
    print(text.stdout)


def test_a_cancelled_kernel_check_leaves_no_kernel_running(kernel_python, kernel_data_dir):
    result = _register(kernel_python)
    cancel = threading.Event()
    seen: list[str] = []

    def on_event(event: dict) -> None:
        seen.append(str(event.get("step") or event.get("type")))
        if event.get("step") == "python":  # the probe is running inside the kernel: stop it now
            cancel.set()

    report = app_kernels.verify_in_kernel(Session(lang="en"), result.name, on_event=on_event, cancel=cancel)
    assert "python" in seen
    assert report.outcome.cancelled and not report.ok
    assert _kernel_processes() == []
    already = threading.Event()
    already.set()  # the dialog closed before the kernel had even started
    early = app_kernels.verify_in_kernel(Session(lang="en"), result.name, cancel=already)
    assert early.outcome.cancelled and early.events == []
    assert _kernel_processes() == []


def test_a_kernel_check_past_its_time_is_a_timeout_and_leaves_no_kernel(kernel_python, kernel_data_dir):
    result = _register(kernel_python)
    from wizard.core.verify.kernel_verify import run_verify_in_kernel

    # Half a second: past it while the kernel starts, or while torch is imported inside it.
    report = run_verify_in_kernel(result.name, None, timeout=0.5)
    assert report.outcome.timed_out and not report.outcome.cancelled and not report.ok
    assert report.check("probe").status == "fail"
    assert _kernel_processes() == []


def test_cli_install_refuses_without_yes_and_bad_input_is_plain(kernel_data_dir, tmp_path):
    bare = tmp_path / "bare env"
    venv.create(bare, with_pip=False, symlinks=os.name != "nt")
    run = run_cli("kernel", "install", "--python", str(_python_in(bare)))
    assert run.returncode == 3, run.stderr  # NEEDS_CONFIRM
    assert "ipykernel is not installed" in run.stdout and "--yes" in run.stderr
    assert not (kernel_data_dir / "kernels").exists()
    missing = run_cli("kernel", "install", "--python", str(tmp_path / "nowhere" / "python"))
    assert missing.returncode == 2 and "Traceback" not in missing.stderr
    bad = run_cli("kernel", "install", "--python", str(_python_in(bare)), "--name", "내 커널")
    assert bad.returncode == 2 and "Not a kernel name" in bad.stderr
    nosuch = run_cli("kernel", "verify", "no-such-kernel")
    assert nosuch.returncode == 2 and "No Jupyter kernel named no-such-kernel" in nosuch.stderr
