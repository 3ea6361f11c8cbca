"""The diagnosis rules: a scenario per rule, from the real nvidia-smi captures where they exist
(../shared/reference/nvidia-smi) and from recorded machines (tests/scenarios.py) otherwise."""

from __future__ import annotations

import re

import pytest

from tests import scenarios
from tests.finding_texts import assert_renders
from tests.recorded_host import RecordedHost
from tests.reference import reference_file
from wizard.core.base.host import CommandResult
from wizard.core.diagnosis.facts import (
    EnvFacts,
    Package,
    TorchFacts,
    cuda_to_variant,
    gather_env_facts,
    parse_conda_list,
    parse_kernel_module_version,
    parse_nvcc_version,
    parse_pip_list,
    parse_sb_state,
    variant_to_cuda,
)
from wizard.core.diagnosis.model import (
    Action,
    Diagnosis,
    action_for,
    driver_vs_build,
    findings_to_json,
    format_diagnoses,
    has_messages,
)
from wizard.core.diagnosis.rules import DIAGNOSIS_RULES, diagnose, register_rule, visible_devices
from wizard.core.machine.adapters import parse_cim_video_controllers
from wizard.core.machine.detect import detect, detection_from_smi_text
from wizard.core.machine.models import (
    STATUS_DRIVER_NOT_LOADED,
    STATUS_GPU_LOST,
    STATUS_NO_DRIVER,
    STATUS_OK,
    Detection,
    DisplayAdapter,
    GpuInfo,
    GpuProcess,
    NvidiaInfo,
    SourceResult,
    SystemInfo,
)

CU126_ARCHS = ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"]
CU128_ARCHS = ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120", "compute_120"]
SMI_FAILED = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."


def run(detection, torch=None, env=None, **kw) -> dict[str, Diagnosis]:
    found = diagnose(detection, torch, env, **kw)
    assert_renders(found)
    ids = [f.id for f in found]
    assert len(ids) == len(set(ids)), ids  # one per failure mode
    order = [{"error": 0, "warning": 1, "info": 2}[f.severity] for f in found]
    assert order == sorted(order)
    return {f.id: f for f in found}


def working(os_name="linux", name="NVIDIA GeForce RTX 2080 SUPER", cc="7.5", driver="566.36", cuda="12.7",
            gpus=1, adapters=(), **gpu_kw) -> Detection:
    nv = NvidiaInfo(status=STATUS_OK, driver_version=driver, cuda_version=cuda,
                    gpus=[GpuInfo(i, name=name, compute_capability=cc, uuid=f"GPU-1111111{i}-2222-3333-4444-555555555555",
                                  memory_total_mib=8192, memory_free_mib=7000, **gpu_kw) for i in range(gpus)],
                    sources=[SourceResult("nvml"), SourceResult("nvidia-smi csv")])
    return Detection(system=SystemInfo(os=os_name, arch="x86_64", display_adapters=list(adapters)), nvidia=nv)


def broken(status, raw="", os_name="linux", adapters=(DisplayAdapter("nvidia", "NVIDIA GeForce RTX 3060", "10de:2504"),),
           **system_kw) -> Detection:
    nv = NvidiaInfo(status=status, sources=[SourceResult("nvidia-smi", status, raw_error=raw or None)])
    return Detection(system=SystemInfo(os=os_name, arch="x86_64", display_adapters=list(adapters), **system_kw),
                     nvidia=nv)


def cuda_torch(version="2.6.0+cu126", cuda="12.6", archs=None, **kw) -> TorchFacts:
    kw.setdefault("python_version", "3.11.9")
    return TorchFacts(version=version, cuda=cuda, is_available=kw.pop("is_available", True),
                      device_count=kw.pop("device_count", 1), arch_list=list(archs or CU126_ARCHS), **kw)


# ---------------------------------------------------------------------------------------------
# Facts: the protocol and its parsers
# ---------------------------------------------------------------------------------------------
def test_torch_facts_from_the_verify_probe_sections():
    sections = {
        "python": {"version": "3.11.9", "bits": 64, "prefix": "C:\\Users\\김철수\\envs\\dl"},
        "env": {"CUDA_VISIBLE_DEVICES": "1", "CONDA_DEFAULT_ENV": "dl"},
        "driver": {"cuda_version": "12.7", "found": True},
        "torch": {"version": "2.6.0+cu126", "cuda": "12.6", "hip": None, "cudnn": 90100},
        "cuda": {"is_available": True, "device_count": 1, "arch_list": CU126_ARCHS,
                 "warnings": [{"category": "UserWarning", "message": "CUDA initialization: something"}]},
        "devices": [{"index": 0, "name": "NVIDIA GeForce RTX 4070 Laptop GPU", "capability": "8.9"}],
    }
    tf = TorchFacts.from_probe_facts(sections, messages=["boom"], kernel_ok=True, installer="pip")
    assert (tf.version, tf.cuda, tf.cudnn, tf.is_available, tf.device_count) == ("2.6.0+cu126", "12.6", "90100", True, 1)
    assert tf.device_ccs == ["8.9"] and tf.device_names == ["NVIDIA GeForce RTX 4070 Laptop GPU"]
    assert tf.env_vars["CUDA_VISIBLE_DEVICES"] == "1" and tf.driver_cuda == "12.7" and tf.python_bits == 64
    assert tf.messages == ["boom", "CUDA initialization: something"]
    assert tf.variant() == "cu126" and tf.base_version == "2.6.0" and not tf.is_cpu_build
    assert TorchFacts.from_json(tf.to_json()) == tf
    # an older or unknown probe: every section optional
    assert TorchFacts.from_probe_facts({}).version is None


def test_torch_facts_from_probe_events():
    facts = lambda section, data: {"event": "result", "type": "facts", "section": section, "data": data}  # noqa: E731
    events = [
        {"event": "progress", "step": "python", "fraction": None},
        facts("python", {"version": "3.12.7", "bits": 64, "prefix": "C:\\envs\\dl"}),
        facts("torch", {"version": "2.6.0+cu126", "cuda": "12.6", "warnings": []}),
        facts("cuda", {"is_available": True, "device_count": 1, "arch_list": CU126_ARCHS, "warnings": []}),
        facts("devices", [{"index": 0, "name": "NVIDIA GeForce RTX 5090", "capability": "12.0"}]),
        {"event": "result", "type": "check", "id": "cuda.kernel", "status": "fail", "device": 0,
         "evidence": {"exception": "RuntimeError",
                      "message": "CUDA error: no kernel image is available for execution on the device"}},
        {"event": "result", "type": "done", "duration_s": 3.2},
    ]
    tf = TorchFacts.from_probe_events(events, installer="pip")
    assert tf.kernel_ok is False and tf.installed and tf.device_ccs == ["12.0"] and tf.installer == "pip"
    assert tf.messages == ["RuntimeError: CUDA error: no kernel image is available for execution on the device"]
    found = run(working(name="NVIDIA GeForce RTX 5090", cc="12.0", driver="576.02", cuda="12.9"), tf)
    assert found["no-kernel-image-sm-incompatible"].severity == "error"
    missing = TorchFacts.from_probe_events([{"event": "error", "id": "torch-missing", "exception": "ModuleNotFoundError",
                                             "message": "No module named 'torch'"}])
    assert missing.installed is False and missing.kernel_ok is None
    assert missing.messages == ["ModuleNotFoundError: No module named 'torch'"]


@pytest.mark.parametrize("version,cuda,hip,variant,cpu", [
    ("2.5.1+cpu", None, None, "cpu", True),
    ("2.11.0", None, None, "cpu", True),  # macOS wheel: no suffix, cuda None
    ("2.11.0", "13.0", None, "cu130", False),  # Linux PyPI CUDA wheel: no suffix
    ("2.6.0+cu124", "12.4", None, "cu124", False),
    ("2.6.0+rocm6.2.4", None, "6.2.41133", "rocm6.2.4", False),
])
def test_torch_variant(version, cuda, hip, variant, cpu):
    tf = TorchFacts(version=version, cuda=cuda, hip=hip)
    assert tf.variant() == variant and tf.is_cpu_build is cpu


def test_arch_list_parsing_keeps_sass_and_ptx_apart():
    tf = TorchFacts(arch_list=["sm_75", "sm_90a", "sm_100", "compute_120", "garbage"])
    assert tf.arch_ccs() == ([(7, 5), (9, 0), (10, 0)], [(12, 0)])
    assert cuda_to_variant("12.6") == "cu126" and variant_to_cuda("cu130") == "13.0" and variant_to_cuda("cpu") is None


def test_package_list_parsers():
    pip = parse_pip_list("torch==2.6.0+cu126\nnumpy==2.1.3\nnvidia_ml_py3==7.352.0\n[pip3] triton==3.2.0\n")
    assert Package("torch", "2.6.0+cu126") in pip and Package("nvidia-ml-py3", "7.352.0") in pip
    assert Package("triton", "3.2.0") in pip
    columns = parse_pip_list("Package    Version\n---------- -----------\ntorch      2.5.1+cpu\n")
    assert columns == [Package("torch", "2.5.1+cpu")]
    conda = parse_conda_list(
        "# packages in environment at C:\\Users\\김철수\\miniconda3\\envs\\dl:\n#\n"
        "# Name                    Version                   Build  Channel\n"
        "pytorch                   2.1.0           py3.11_cuda12.1_cudnn8_0    pytorch\n"
        "pytorch-cuda              12.1                 ha16c6d3_5    pytorch\n"
        "torch                     2.6.0+cu126              pypi_0    pypi\n"
        "python                    3.11.9          h955ad1f_0\n")
    assert Package("pytorch", "2.1.0", "pytorch") in conda and Package("torch", "2.6.0+cu126", "pypi") in conda
    assert Package("python", "3.11.9", "defaults") in conda


def test_small_text_parsers():
    assert parse_nvcc_version("nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 11.5, V11.5.119\n") \
        == "11.5.119"
    assert parse_kernel_module_version(
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.90.07  Fri May 31 09:35:42 UTC 2024\n") == "550.90.07"
    assert parse_kernel_module_version(
        "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.16  Release Build  (dvs-builder@U16)\n") \
        == "570.86.16"
    assert parse_sb_state("SecureBoot enabled\n") is True
    assert parse_sb_state("SecureBoot disabled\n") is False
    assert parse_sb_state("EFI variables are not supported on this system\n") is False
    assert parse_sb_state("") is None


def _linux_env_host(**extra) -> RecordedHost:
    host = scenarios.linux_host()
    host.on_path.update({"mokutil": "/usr/bin/mokutil", "prime-select": "/usr/bin/prime-select", "nvcc": "/usr/bin/nvcc"})
    host.commands.update({
        "mokutil --sb-state": scenarios.ok("SecureBoot enabled\n"),
        "prime-select query": scenarios.ok("intel\n"),
        "nvcc --version": scenarios.ok("nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 11.5, "
                                       "V11.5.119\nBuild cuda_11.5.r11.5/compiler.30672275_0\n"),
        "python -m pip list --format=freeze --disable-pip-version-check": scenarios.ok("torch==2.6.0+cu126\n"),
        "conda list -p /home/student/miniconda3/envs/dl": scenarios.ok(
            "pytorch                   2.1.0           py3.11_cuda12.1_cudnn8_0    pytorch\n"),
    })
    host.dirs["/sys/module/nouveau"] = ["parameters"]
    host.env["CUDA_VISIBLE_DEVICES"] = ""
    for name, value in extra.items():
        setattr(host, name, value)
    return host


def test_gather_env_facts_on_linux_through_the_host():
    facts = gather_env_facts(_linux_env_host(), python_exe="python", conda_exe="conda",
                             conda_prefix="/home/student/miniconda3/envs/dl")
    assert facts.nouveau_loaded is True and facts.nova_core_loaded is False
    assert facts.nvidia_module_loaded is False and facts.kernel_module_version is None
    assert facts.secure_boot is True and facts.secure_boot_evidence == "mokutil --sb-state: SecureBoot enabled"
    assert facts.prime_profile == "intel" and facts.nvcc_version == "11.5.119"
    assert facts.env_vars == {"CUDA_VISIBLE_DEVICES": ""}
    assert facts.torch_in_pip() == [Package("torch", "2.6.0+cu126")]
    assert facts.torch_in_conda() == [Package("pytorch", "2.1.0", "pytorch")]


def test_gather_secure_boot_from_the_efi_variable_without_mokutil():
    host = scenarios.linux_host()
    efivars = "/sys/firmware/efi/efivars"
    host.dirs[efivars] = ["Boot0000-8be4df61-93ca-11d2-aa0d-00e098032b8c", "SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"]
    host.files[f"{efivars}/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"] = "\x06\x00\x00\x00\x01"
    facts = gather_env_facts(host)
    assert facts.secure_boot is True and "SecureBoot-" in facts.secure_boot_evidence
    host.files[f"{efivars}/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"] = "\x06\x00\x00\x00\x00"
    assert gather_env_facts(host).secure_boot is False


def test_gather_in_wsl_reads_the_projected_libraries_and_packages():
    host = scenarios.linux_host()
    host.files["/usr/lib/wsl/lib/libnvidia-ml.so.1"] = ""
    host.commands["dpkg-query*"] = CommandResult([], 1, "nvidia-driver-550 install ok installed\n"
                                                        "libnvidia-compute-550 deinstall ok config-files\n")
    facts = gather_env_facts(host, is_wsl=True)
    assert facts.wsl_libs == ["libnvidia-ml.so.1"]
    assert facts.wsl_linux_driver_packages == ["nvidia-driver-550"]
    assert facts.nouveau_loaded is None and facts.secure_boot is None  # not asked inside WSL


# ---------------------------------------------------------------------------------------------
# One scenario per rule
# ---------------------------------------------------------------------------------------------
def test_driver_library_mismatch_after_update_offers_restart():
    d = detect(scenarios.linux_driver_mismatch(), pythons=False, conda=False)
    found = run(d, env=EnvFacts(kernel_module_version="566.36", nvidia_module_loaded=True))
    f = found["nvml-driver-library-version-mismatch"]
    assert f.severity == "error" and f.action == action_for("restart") and f.action.kind == "restart"
    assert "NVML library version: 581.15" in f.evidence and "566.36" in f.evidence
    assert f.steps("ko")[0].startswith("컴퓨터를 다시 시작")


def test_no_driver_with_an_nvidia_card_offers_the_driver_page():
    adapters = parse_cim_video_controllers(scenarios.recorded("windows/cim_video_no_driver_ko.json"))
    d = broken(STATUS_NO_DRIVER, "nvidia-smi not found", os_name="windows", adapters=adapters)
    found = run(d)
    f = found["no-nvidia-driver"]
    assert f.severity == "error" and f.action.kind == "open_url"
    assert f.action.param("url") == "https://www.nvidia.com/Download/index.aspx"
    assert "{url}" not in f.action.confirm("ko") and "nvidia.com" in f.action.confirm("ko")


def test_gpu_lost_offers_restart():
    found = run(broken(STATUS_GPU_LOST, "Unable to determine the device handle for GPU 0000:01:00.0: GPU is lost."))
    assert found["gpu-is-lost"].action.kind == "restart"


def test_nouveau_holding_the_gpu():
    d = broken(STATUS_DRIVER_NOT_LOADED, SMI_FAILED)
    found = run(d, env=EnvFacts(nouveau_loaded=True, nova_core_loaded=False, nvidia_module_loaded=False))
    f = found["nouveau-loaded"]
    assert f.severity == "error" and f.params["driver"] == "nouveau" and "/sys/module/nouveau" in f.evidence
    assert "nvidia-smi-cannot-communicate" in found
    # the same machine without nouveau: no such finding
    assert "nouveau-loaded" not in run(d, env=EnvFacts(nouveau_loaded=False, nvidia_module_loaded=False))
    # a working driver with a nouveau module for another card is not this failure
    assert "nouveau-loaded" not in run(working(), env=EnvFacts(nouveau_loaded=True))


def test_secure_boot_blocking_the_module_from_gathered_facts():
    host = _linux_env_host()
    host.dirs.pop("/sys/module/nouveau")
    env = gather_env_facts(host)
    d = broken(STATUS_DRIVER_NOT_LOADED, SMI_FAILED)
    f = run(d, env=env)["secure-boot-blocks-module"]
    assert f.severity == "error" and "SecureBoot enabled" in f.evidence and SMI_FAILED in f.evidence
    # Secure Boot with a working driver (signed module) is fine
    assert "secure-boot-blocks-module" not in run(working(), env=env)
    # a rejected key seen in modprobe output decides alone
    env2 = EnvFacts(modprobe_error="modprobe: ERROR: could not insert 'nvidia': Key was rejected by service")
    assert "secure-boot-blocks-module" in run(broken(STATUS_NO_DRIVER), env=env2)


def test_wsl1_has_no_gpu():
    d = broken(STATUS_NO_DRIVER, "nvidia-smi not found", adapters=(), is_wsl=True, wsl_version=1,
               os_build="4.4.0-22621-Microsoft")
    f = run(d)["wsl2-gpu-setup"]
    assert (f.severity, f.variant, f.scope) == ("error", "wsl1", "detection")


def test_wsl2_with_a_linux_driver_inside():
    d = working()
    d.system.is_wsl, d.system.wsl_version = True, 2
    env = EnvFacts(wsl_libs=["libcuda.so.1", "libnvidia-ml.so.1", "nvidia-smi"],
                   wsl_linux_driver_packages=["nvidia-driver-550", "libnvidia-compute-550"])
    f = run(d, env=env)["wsl2-gpu-setup"]
    assert (f.severity, f.variant) == ("error", "linux-driver")
    assert "nvidia-driver-550, libnvidia-compute-550" in f.cause("en")


def test_wsl2_without_the_projected_libcuda():
    d = broken(STATUS_NO_DRIVER, "nvidia-smi not found", adapters=(), is_wsl=True, wsl_version=2)
    f = run(d, env=EnvFacts(wsl_libs=[]))["wsl2-gpu-setup"]
    assert f.variant == "libs-missing"


def test_wsl2_torch_cannot_use_the_gpu():
    d = working()
    d.system.is_wsl, d.system.wsl_version = True, 2
    torch = cuda_torch(is_available=False, device_count=0)
    found = run(d, torch, EnvFacts(wsl_libs=["libcuda.so.1", "libnvidia-ml.so.1"]))
    assert found["wsl2-gpu-setup"].variant == "text"
    assert "torch-cuda-unavailable" not in found  # explained


def test_hybrid_laptop_prime_profile_intel():
    env = gather_env_facts(_linux_env_host())
    d = broken(STATUS_DRIVER_NOT_LOADED, SMI_FAILED,
               adapters=(DisplayAdapter("intel", "Intel Corporation Alder Lake-P GT2"),
                         DisplayAdapter("nvidia", "NVIDIA GeForce RTX 3050 Mobile", "10de:25a2")))
    f = run(d, env=env)["optimus-hybrid-laptop"]
    assert (f.severity, f.variant) == ("error", "prime-intel")
    assert "prime-select on-demand" in f.fix("ko")


def test_hybrid_laptop_on_windows_without_the_nvidia_driver():
    adapters = parse_cim_video_controllers(scenarios.recorded("windows/cim_video_laptop_nvidia_intel.json"))
    found = run(broken(STATUS_NO_DRIVER, "nvml.dll not found", os_name="windows", adapters=adapters))
    f = found["optimus-hybrid-laptop"]
    assert (f.severity, f.variant) == ("info", "windows-no-driver")
    assert "RTX 4060 Laptop GPU" in f.cause("en") and "Intel(R) UHD Graphics" in f.cause("ko")
    assert found["no-nvidia-driver"].severity == "error"


def test_laptop_gpu_note_with_a_working_driver():
    d = working(os_name="windows", name="NVIDIA GeForce RTX 4070 Laptop GPU", cc="8.9", power_limit_w=80.0,
                adapters=[DisplayAdapter("intel", "Intel(R) UHD Graphics")])
    f = run(d)["optimus-hybrid-laptop"]
    assert (f.severity, f.variant) == ("info", "laptop") and "80 W" in f.cause("en")
    assert "optimus-hybrid-laptop" not in run(working(adapters=[DisplayAdapter("intel", "Intel UHD 770")]))


def test_torch_not_installed():
    torch = TorchFacts(installed=False, env_path="/home/student/envs/dl", python_version="3.11.9",
                       messages=["ModuleNotFoundError: No module named 'torch'"])
    f = run(working(), torch)["torch-not-installed"]
    assert f.action.kind == "reinstall_cuda_build" and f.action.param("variant").startswith("cu")
    assert "/home/student/envs/dl" in f.cause("en")


def test_cpu_only_torch_on_an_nvidia_machine_from_a_real_capture():
    text = reference_file("nvidia-smi", "01-windows-wddm-geforce-rtx2080super-591.86.capture.txt").read_bytes().decode(
        "utf-8")
    d = detection_from_smi_text(text)
    d.system = SystemInfo(os="windows", arch="x86_64")
    torch = TorchFacts(version="2.5.1+cpu", cuda=None, is_available=False, device_count=0, python_version="3.12.7")
    f = run(d, torch)["cpu-only-torch-installed"]
    assert f.severity == "error" and f.scope == "torch"
    assert "NVIDIA GeForce RTX 2080 SUPER" in f.cause("en") and "torch.version.cuda = None" in f.evidence
    assert f.action.kind == "reinstall_cuda_build"
    variant = f.action.param("variant")
    assert variant.startswith("cu") and f.action.param("index_url").endswith("/" + variant)
    assert f.action.param("torch") in f.action.label("en") and variant in f.action.confirm("ko")


def test_cpu_only_torch_is_right_without_an_nvidia_gpu_and_on_macos():
    cpu = TorchFacts(version="2.5.1+cpu", cuda=None, is_available=False, python_version="3.12.7")
    no_gpu = broken(STATUS_NO_DRIVER, adapters=(DisplayAdapter("intel", "Intel UHD"),))
    assert "cpu-only-torch-installed" not in run(no_gpu, cpu)
    mac = broken(STATUS_NO_DRIVER, os_name="macos", adapters=(DisplayAdapter("apple", "Apple M2"),))
    assert "cpu-only-torch-installed" not in run(mac, TorchFacts(version="2.11.0", python_version="3.12.7"))


def test_cpu_only_torch_before_the_driver_is_a_warning():
    f = run(broken(STATUS_NO_DRIVER), TorchFacts(version="2.5.1+cpu", python_version="3.12.7"))["cpu-only-torch-installed"]
    assert (f.severity, f.variant) == ("warning", "no-driver-yet")


def test_driver_too_old_for_the_build_from_the_old_driver_capture():
    text = reference_file("nvidia-smi", "07-old-driver-418.43-gtx1660ti.q-x.xml").read_bytes().decode("utf-8")
    d = detection_from_smi_text(text)
    d.system = SystemInfo(os="linux", arch="x86_64")
    found = run(d, cuda_torch(is_available=False, device_count=0))
    f = found["driver-too-old-for-torch-cuda"]
    assert f.severity == "error" and f.params == {"cuda": "10.1", "build": "12.6", "driver": "418.43"}
    assert "driver-predates-gpu" in found  # detection's own finding is kept
    assert f.action.kind == "open_url"  # no CUDA build runs on 418: update the driver
    assert "torch-cuda-unavailable" not in found


def test_driver_too_old_offers_a_build_that_fits():
    d = working(os_name="windows", driver="566.36", cuda="12.7")
    torch = cuda_torch(version="2.11.0+cu130", cuda="13.0", is_available=False, device_count=0)
    f = run(d, torch)["driver-too-old-for-torch-cuda"]
    assert f.severity == "error" and f.action.kind == "switch_variant"
    assert driver_vs_build(variant_to_cuda(f.action.param("variant")), "12.7") is None


def test_driver_one_minor_behind_is_a_warning():
    f = run(working(cuda="12.7"), cuda_torch(version="2.7.0+cu128", cuda="12.8"))["driver-too-old-for-torch-cuda"]
    assert (f.severity, f.variant) == ("warning", "minor")
    assert driver_vs_build("12.6", "12.7") is None and driver_vs_build("13.0", "12.9") == "error"


def test_gpu_not_in_the_build_arch_list():
    d = working(name="NVIDIA GeForce RTX 5090", cc="12.0", driver="576.02", cuda="12.9", os_name="windows")
    found = run(d, cuda_torch(archs=CU126_ARCHS))
    f = found["no-kernel-image-sm-incompatible"]
    assert f.params["sm"] == "sm_120" and "sm_90" in f.params["archs"]
    assert f.action.kind == "switch_variant" and f.action.param("variant") in ("cu128", "cu129", "cu130", "cu132")
    # covered by a cubin of the same major, or by older PTX
    assert "no-kernel-image-sm-incompatible" not in run(d, cuda_torch("2.7.0+cu128", "12.8", CU128_ARCHS))
    ada = working(name="NVIDIA GeForce RTX 4090", cc="8.9")
    assert "no-kernel-image-sm-incompatible" not in run(ada, cuda_torch())  # sm_86 code runs on sm_89
    assert "no-kernel-image-sm-incompatible" not in run(d, cuda_torch(archs=["sm_80", "compute_80"]))


def test_old_gpu_dropped_by_a_new_build():
    d = working(name="NVIDIA GeForce GTX 1080", cc="6.1", driver="581.15", cuda="13.0")
    f = run(d, cuda_torch("2.9.0+cu130", "13.0", ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]))[
        "no-kernel-image-sm-incompatible"]
    assert f.params["sm"] == "sm_61"


@pytest.mark.parametrize("value,gpus,severity,variant", [
    ("", 1, "error", "none"),
    ("-1", 2, "error", "none"),
    ("2", 1, "error", "none"),
    ("0,5", 2, "warning", "bad-entry"),
    ("1", 2, "info", "subset"),
    ("1,0", 2, "info", "order"),
    ("GPU-11111110", 2, "info", "subset"),  # a UUID prefix is fine
])
def test_cuda_visible_devices(value, gpus, severity, variant):
    env = EnvFacts(env_vars={"CUDA_VISIBLE_DEVICES": value})
    f = run(working(gpus=gpus), env=env)["cuda-visible-devices-hides-gpus"]
    assert (f.severity, f.variant) == (severity, variant)
    assert f"CUDA_VISIBLE_DEVICES={value!r}" in f.evidence


def test_cuda_visible_devices_in_the_environment_wins_over_the_wizards():
    env = EnvFacts(env_vars={})
    torch = cuda_torch(env_vars={"CUDA_VISIBLE_DEVICES": ""}, is_available=False, device_count=0)
    found = run(working(), torch, env)
    assert found["cuda-visible-devices-hides-gpus"].scope == "torch"
    assert "torch-cuda-unavailable" not in found
    valid = {"CUDA_VISIBLE_DEVICES": "0", "CUDA_DEVICE_ORDER": "PCI_BUS_ID"}
    assert "cuda-visible-devices-hides-gpus" not in run(working(gpus=2), env=EnvFacts(env_vars={}),
                                                        torch=cuda_torch(env_vars={**valid, "CUDA_VISIBLE_DEVICES": "0,1"}))


def test_fewer_devices_in_torch_than_nvml():
    f = run(working(gpus=2), cuda_torch(device_count=1))["cuda-visible-devices-hides-gpus"]
    assert (f.severity, f.variant) == ("warning", "count")


def test_mig_gpus_are_not_judged_by_index():
    d = detect(scenarios.linux_a100_mig(), pythons=False, conda=False)
    assert "cuda-visible-devices-hides-gpus" not in run(d, env=EnvFacts(env_vars={"CUDA_VISIBLE_DEVICES": "MIG-0"}))


def test_conda_and_pip_torch_mixed():
    mixed = EnvFacts(conda_packages=[Package("pytorch", "2.1.0", "pytorch"), Package("torch", "2.6.0+cu126", "pypi")],
                     pip_packages=[Package("torch", "2.6.0+cu126")])
    f = run(working(), env=mixed)["conda-pip-torch-mixed"]
    assert f.params == {"conda": "pytorch 2.1.0 (pytorch)", "pip": "torch 2.6.0+cu126"}
    assert "conda: pytorch 2.1.0 (pytorch)" in f.evidence and "pip: torch 2.6.0+cu126" in f.evidence
    # conda's own torch shows in pip list too, with the same version: one install, not two
    conda_only = EnvFacts(conda_packages=[Package("pytorch", "2.5.1", "pytorch")],
                          pip_packages=[Package("torch", "2.5.1")])
    assert "conda-pip-torch-mixed" not in run(working(), env=conda_only)
    different = EnvFacts(conda_packages=[Package("pytorch", "2.5.1", "conda-forge")],
                         pip_packages=[Package("torch", "2.6.0+cu126")])
    assert "conda-pip-torch-mixed" in run(working(), env=different)
    pip_only = EnvFacts(conda_packages=[Package("torch", "2.6.0+cu126", "pypi")], pip_packages=[Package("torch", "2.6.0")])
    assert "conda-pip-torch-mixed" not in run(working(), env=pip_only)


def test_unsupported_python_for_a_new_environment():
    f = run(working(), env=EnvFacts(python_version="3.19.1"))["python-version-unsupported"]
    assert (f.severity, f.variant) == ("error", "too-new") and f.params["python"] == "3.19"
    assert re.search(r"python=3\.1\d", f.fix("en"))
    bits = run(working(), env=EnvFacts(python_version="3.12.4", python_bits=32))["python-version-unsupported"]
    assert bits.variant == "32bit"
    assert "python-version-unsupported" not in run(working(), env=EnvFacts(python_version="3.12.4", python_bits=64))
    old = run(working(), env=EnvFacts(python_version="3.9.13"))["python-version-unsupported"]
    assert (old.severity, old.variant) == ("warning", "old-only")


def test_pynvml_shadowing_packages_in_the_environment():
    env = EnvFacts(pip_packages=[Package("nvidia-ml-py3", "7.352.0"), Package("pynvml", "11.5.3"),
                                 Package("nvidia-ml-py", "12.560.30")])
    f = run(working(), env=env)["pynvml-package-conflict"]
    assert f.variant == "env" and f.params["packages"] == "nvidia-ml-py3==7.352.0, pynvml==11.5.3"
    fine = EnvFacts(pip_packages=[Package("pynvml", "12.0.0"), Package("nvidia-ml-py", "12.560.30")])
    assert "pynvml-package-conflict" not in run(working(), env=fine)


def test_the_three_cuda_versions_when_a_toolkit_is_installed():
    f = run(working(cuda="12.4"), cuda_torch("2.5.1+cu121", "12.1"), EnvFacts(nvcc_version="11.5.119"))[
        "cuda-version-confusion"]
    assert f.severity == "info" and f.params == {"driver": "12.4", "toolkit": "11.5", "torch": "12.1"}
    assert "nvcc: release 11.5.119" in f.evidence
    assert "cuda-version-confusion" not in run(working(cuda="12.4"), cuda_torch("2.5.1+cu121", "12.1"), EnvFacts())


def test_little_free_vram_names_the_programs():
    d = working(processes=[GpuProcess(4312, "C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe", 2048.0),
                           GpuProcess(9000, "python.exe", 5000.0)])
    d.nvidia.gpus[0].memory_free_mib = 300
    f = run(d)["cuda-out-of-memory"]
    assert (f.severity, f.variant) == ("warning", "vram-held")
    assert f.params["processes"] == "python.exe, chrome.exe" and "300 MiB" in f.evidence


def test_texts_torch_printed_are_recognised():
    torch = cuda_torch(kernel_ok=False, messages=[
        "RuntimeError: CUDA error: no kernel image is available for execution on the device",
        "FutureWarning: `torch.cuda.amp.autocast(args...)` is deprecated. Please use "
        "`torch.amp.autocast('cuda', args...)` instead.",
        "UserWarning: torch.cuda.is_available() -> False"])
    found = run(working(cc="8.6"), torch)
    assert found["no-kernel-image-sm-incompatible"].scope == "torch"
    assert found["deprecated-torch-cuda-amp"].severity == "info"
    assert "cpu-only-torch-installed" not in found  # a 'possible' guess is not made from torch's own text


def test_unexplained_cuda_failure_gets_the_generic_finding():
    torch = cuda_torch(is_available=False, device_count=0, messages=["UserWarning: CUDA initialization: CUDA unknown error"])
    f = run(working(), torch)["torch-cuda-unavailable"]
    assert f.severity == "error" and "CUDA unknown error" in f.evidence and "2.6.0+cu126" in f.cause("en")
    kernel = run(working(), cuda_torch(kernel_ok=False))["torch-cuda-unavailable"]
    assert kernel.variant == "kernel"
    assert "torch-cuda-unavailable" not in run(working(), cuda_torch(kernel_ok=True))


def test_a_healthy_machine_has_no_problems():
    d = detect(scenarios.windows_rtx2080super(), pythons=False, conda=False)
    torch = cuda_torch("2.9.1+cu130", "13.0", ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"],
                       kernel_ok=True, installer="pip")
    env = EnvFacts(env_vars={}, pip_packages=[Package("torch", "2.9.1+cu130")], python_version="3.12.7")
    found = run(d, torch, env)
    assert [f.severity for f in found.values() if f.severity != "info"] == []


# ---------------------------------------------------------------------------------------------
# The registry, actions and output
# ---------------------------------------------------------------------------------------------
def test_register_rule_adds_once_and_in_place():
    def extra(ctx):
        yield Diagnosis("torch-cuda-unavailable", "warning", {"torch": "x"}, "from a plugin")

    before = list(DIAGNOSIS_RULES)
    try:
        register_rule(extra, before=DIAGNOSIS_RULES[1])
        register_rule(extra)
        assert DIAGNOSIS_RULES.count(extra) == 1 and DIAGNOSIS_RULES.index(extra) == 1
        assert run(working())["torch-cuda-unavailable"].evidence == "from a plugin"
    finally:
        DIAGNOSIS_RULES[:] = before


def test_actions_are_checked_and_translated():
    with pytest.raises(ValueError):
        Action.of("format_disk", "x", "y")
    with pytest.raises(ValueError):
        action_for("reboot_now")
    generic = action_for("reinstall_cuda_build")
    assert generic.params == () and generic.label("ko") == "CUDA용 PyTorch로 다시 설치"
    full = action_for("switch_variant", torch="2.7.1", variant="cu128", index_url="https://download.pytorch.org/whl/cu128")
    assert full.label("en") == "Switch to torch 2.7.1 (cu128)"
    assert "https://download.pytorch.org/whl/cu128" in full.confirm("ko")


def test_every_finding_id_in_the_rules_has_messages():
    import inspect

    from wizard.core.diagnosis import rules as diagnose_module

    source = inspect.getsource(diagnose_module)
    used = set(re.findall(r'Diagnosis\(\s*"([a-z0-9\-]+)"', source))
    assert len(used) >= 15
    for fid in used:
        assert has_messages(fid), fid


def test_text_and_json_output():
    found = diagnose(broken(STATUS_GPU_LOST, "GPU is lost"))
    lines = format_diagnoses(found, "ko")
    assert lines[0].startswith("[문제]") and any(ln.strip().startswith(">") and "GPU is lost" in ln for ln in lines)
    assert any(ln.strip().startswith("[마법사가 할 수 있는 일] 컴퓨터 다시 시작") for ln in lines)
    (doc,) = findings_to_json(found, "en")
    assert doc["action"]["kind"] == "restart" and doc["steps"] and doc["scope"] == "detection"
    assert visible_devices("0,1", working(gpus=2).nvidia.gpus) == (2, None)
