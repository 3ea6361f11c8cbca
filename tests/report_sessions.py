"""Fixed sessions for the report tests, the Report page tests and its screenshot.

``full_session``: every step ran on a Linux desktop with an RTX 3060 — detection (values as a
3060 with driver 570 reports them), the recommendation computed by the recommender, an install
summary in the install engine's shape, verification and benchmark from the recorded probe outputs
(tests/data/probe), a VRAM estimate, and a what-changed diff between two snapshots. The student's
user name is Hangul (``민지``) and their home folder holds it, so redaction is tested on every
export. ``no_gpu_session``: a laptop without an NVIDIA GPU where verify and benchmark ran with a
CPU build. ``detection_only_session``: nothing but detection ran.
"""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path

from tests.recorded_host import RecordedHost
from wizard.app.session import Session
from wizard.core.install.summary import InstallSummary
from wizard.core.machine.models import (
    STATUS_NO_DRIVER,
    STATUS_OK,
    Detection,
    DisplayAdapter,
    GpuInfo,
    NvidiaInfo,
    PythonInterpreter,
    SourceResult,
    SystemInfo,
)

REPO = Path(__file__).resolve().parents[1]
PROBE = REPO / "tests" / "data" / "probe"
REPORT_DATA = REPO / "tests" / "data" / "report"

USER = "민지"
HOME = f"/home/{USER}"
HOST = "minji-desktop"
GPU_UUID = "GPU-5b3f2c1a-8d4e-4f6a-9b2c-1d0e3f4a5b6c"
STARTED = "2026-11-29T10:00:00+09:00"
NOW = _dt.datetime(2026, 11, 29, 10, 20, 0, tzinfo=_dt.timezone(_dt.timedelta(hours=9)))

SMI_TABLE = f"""\
Sun Nov 29 10:00:03 2026
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 570.133.07             Driver Version: 570.133.07     CUDA Version: 12.8     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA GeForce RTX 3060        Off |   00000000:01:00.0  On |                  N/A |
|  0%   41C    P8             15W /  170W |     545MiB /  12288MiB |      3%      Default |
|                                         |                        |                  N/A |
+-----------------------------------------+------------------------+----------------------+

+-----------------------------------------------------------------------------------------+
| Processes:                                                                              |
|  GPU   GI   CI              PID   Type   Process name                        GPU Memory |
|        ID   ID                                                               Usage      |
|=========================================================================================|
|    0   N/A  N/A            1873      G   /usr/lib/xorg/Xorg                      210MiB |
|    0   N/A  N/A            2240      G   {HOME}/.local/bin/browser               120MiB |
+-----------------------------------------------------------------------------------------+
"""


def probe_events(name: str) -> list[dict]:
    text = (PROBE / name).read_text(encoding="utf-8")
    # the recorded outputs were written for a user "minji"; this session's user is Hangul
    text = text.replace("/home/minji", HOME)
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _host(home: str = HOME, user: str = USER, node: str = HOST) -> RecordedHost:
    return RecordedHost(os_name="linux", env={"HOME": home, "USER": user, "LANG": "ko_KR.UTF-8"},
                        platform={"system": "Linux", "node": node, "machine": "x86_64"}, home_dir=home)


def _system(**kw) -> SystemInfo:
    base = dict(os="linux", os_pretty="Ubuntu 22.04.4 LTS", os_version="22.04", os_build="6.8.0-57-generic",
                distro_id="ubuntu", arch="x86_64", cpu_model="AMD Ryzen 5 5600X 6-Core Processor",
                cpu_physical_cores=6, cpu_logical_cores=12, ram_total_bytes=32 * 2**30,
                ram_available_bytes=24 * 2**30, disk_path=HOME, disk_free_bytes=412 * 2**30,
                disk_total_bytes=931 * 2**30, locale="ko_KR.UTF-8", hostname=HOST)
    base.update(kw)
    return SystemInfo(**base)


def rtx3060_detection() -> Detection:
    from wizard.core.machine.findings import detection_findings

    gpu = GpuInfo(index=0, name="NVIDIA GeForce RTX 3060", uuid=GPU_UUID, serial="1320521012345",
                  pci_bus_id="00000000:01:00.0", compute_capability="8.6", architecture="Ampere",
                  memory_total_mib=12288, memory_used_mib=545, memory_free_mib=11743, temperature_c=41,
                  power_draw_w=15, power_limit_w=170, utilization_gpu_percent=3, pcie_gen_current=4,
                  pcie_width_current=16, pcie_gen_max=4, pcie_width_max=16)
    nv = NvidiaInfo(status=STATUS_OK, driver_version="570.133.07", cuda_version="12.8", nvml_version="12.570.133.07",
                    smi_path="/usr/bin/nvidia-smi", smi_on_path=True, gpus=[gpu],
                    sources=[SourceResult("nvml", driver_version="570.133.07", cuda_version="12.8"),
                             SourceResult("nvidia-smi csv", driver_version="570.133.07")],
                    raw_smi_output=SMI_TABLE)
    system = _system(display_adapters=[DisplayAdapter("nvidia", "NVIDIA GeForce RTX 3060", "10de:2504", "sysfs")])
    pythons = [PythonInterpreter(path=f"{HOME}/miniconda3/bin/python3.11", version="3.11.9", arch="x86_64", bits=64,
                                 implementation="CPython", source="path"),
               PythonInterpreter(path="/usr/bin/python3", version="3.10.12", arch="x86_64", bits=64,
                                 implementation="CPython", source="path", externally_managed=True)]
    d = Detection(system=system, nvidia=nv, pythons=pythons, duration_s=1.2)
    d.findings = detection_findings(d)
    return d


def no_gpu_detection() -> Detection:
    from wizard.core.machine.findings import detection_findings

    nv = NvidiaInfo(status=STATUS_NO_DRIVER, sources=[
        SourceResult("nvml", STATUS_NO_DRIVER, raw_error="NVML Shared Library Not Found"),
        SourceResult("nvidia-smi csv", STATUS_NO_DRIVER, raw_error="nvidia-smi not found")])
    system = _system(os_pretty="Ubuntu 24.04.1 LTS", os_version="24.04", cpu_model="Intel(R) Core(TM) i5-1235U",
                     cpu_physical_cores=10, cpu_logical_cores=12, ram_total_bytes=16 * 2**30,
                     display_adapters=[DisplayAdapter("intel", "Intel Iris Xe Graphics", "8086:46a8", "sysfs")])
    pythons = [PythonInterpreter(path="/usr/bin/python3", version="3.12.3", arch="x86_64", bits=64,
                                 implementation="CPython", source="path", externally_managed=True)]
    d = Detection(system=system, nvidia=nv, pythons=pythons, duration_s=0.8)
    d.findings = detection_findings(d)
    return d


def install_summary(env: str, torch: str, vision: str, index_url: str) -> dict:
    """What ``InstallJob.summary()`` returns after a successful install."""
    return {
        "schema": "gpu-setup-wizard/install@1.0", "ok": True, "status": "complete",
        "env_python": f"{env}/bin/python", "env_path": env, "target_kind": "new-venv",
        "requirements": [f"torch=={torch.split('+')[0]}", f"torchvision=={vision.split('+')[0]}"],
        "index_url": index_url, "installer": "pip", "pip": None, "already_satisfied": False,
        "installed": [{"name": "torch", "version": torch}, {"name": "torchvision", "version": vision}],
        "imports": {"torch": torch}, "downloaded_bytes": 2_900_000_000, "from_cache_bytes": 0, "resumed_bytes": 0,
        "planned_bytes": 2_900_000_000, "cache_dir": f"{HOME}/.cache/gpu-setup-wizard/wheels", "elapsed_s": 312.4,
        "steps_run": ["prepare", "create", "inspect", "resolve", "plan", "download", "install", "verify", "finish"],
        "error": None, "recovery": [],
    }


def _changes(detection: Detection):
    from wizard.core.history.diff import diff_snapshots
    from wizard.core.history.store import BenchHeadline, build_snapshot

    new = build_snapshot(detection, now=NOW)
    old = build_snapshot(detection, now=NOW - _dt.timedelta(days=12))
    new.time, old.time = STARTED, "2026-11-17T21:30:00+09:00"  # as saved, whatever this machine's zone
    old.driver_version = "550.120"
    old.cuda_version = "12.4"
    old.benchmark = {"course_matmul/cuda:0/fp32/5000": BenchHeadline(7400.0, "GFLOP/s")}
    new.benchmark = {"course_matmul/cuda:0/fp32/5000": BenchHeadline(9720.0, "GFLOP/s")}
    return diff_snapshots(old, new)


def full_session(lang: str = "ko") -> Session:
    from wizard.core.recommend.choose_python import choose_python
    from wizard.core.recommend.inputs import Wishes
    from wizard.core.verify.benchmark import BenchReport
    from wizard.core.verify.checklist import VerifyReport
    from wizard.core.vram.estimate import estimate
    from wizard.core.vram.units import GIB

    d = rtx3060_detection()
    s = Session(host=_host(), lang=lang, started_at=STARTED, detection=d)
    choice = choose_python(d, Wishes(torch="2.8", variant="cu128"))  # the course pins torch 2.8
    s.recommendation = choice
    s.candidate = choice.recommendation.best
    env = f"{HOME}/envs/dl"
    s.install = InstallSummary.from_json(
        install_summary(env, "2.8.0+cu128", "0.23.0+cu128", "https://download.pytorch.org/whl/cu128"))
    s.verify = VerifyReport.from_events(probe_events("verify_rtx3060_cu128_linux.jsonl"), detection=d,
                                                   python_exe=f"{env}/bin/python")
    s.bench = BenchReport.from_events(probe_events("bench_rtx3060_quick_linux.jsonl"),
                                                 python_exe=f"{env}/bin/python")
    s.vram = estimate("llama-2-7b", mode="inference", precision="fp16", batch=1,
                                 vram_total_bytes=12288 * 2**20, vram_used_bytes=545 * 2**20)
    assert s.vram.vram_total_bytes < 13 * GIB
    s.vram_chosen = True  # the student set it up on the VRAM page
    s.changes, s.changes_checked = _changes(d), True
    return s


def no_gpu_session(lang: str = "en") -> Session:
    from wizard.core.recommend.choose_python import choose_python
    from wizard.core.verify.benchmark import BenchReport
    from wizard.core.verify.checklist import VerifyReport

    d = no_gpu_detection()
    s = Session(host=_host(), lang=lang, started_at=STARTED, detection=d)
    s.recommendation = choose_python(d)
    s.verify = VerifyReport.from_events(probe_events("verify_cpu_only_no_gpu_linux.jsonl"), detection=d,
                                                   python_exe=f"{HOME}/envs/dl/bin/python")
    s.bench = BenchReport.from_events(probe_events("bench_cpu_only_windows.jsonl"))
    s.changes, s.changes_checked = None, True
    return s


def detection_only_session(lang: str = "en") -> Session:
    return Session(host=_host(), lang=lang, started_at=STARTED, detection=rtx3060_detection())


def colab_smi_text() -> str:
    return (REPORT_DATA / "colab_nvidia_smi.txt").read_text(encoding="utf-8")
