"""A class of generated-but-realistic students, each report made by the real report builder.

Why generated this way: the class view must be tested on what students really hand in, so every
report here is ``wizard.app.report.export_json`` of a :class:`~wizard.app.session.Session` with a
detection built like a real one (a GPU of ``wizard/resources/gpus.json``, its memory and compute
capability, a driver and its CUDA version, the detection's own findings) and a verification read
from the recorded probe outputs of tests/data/probe (every check passes; a CPU build on a GPU
laptop; a driver too old for the build; an RTX 50 card with a cu126 build; a PC without an NVIDIA
GPU), an install summary in the install engine's shape, sometimes a VRAM choice, sometimes no
verification at all. Students have Korean or English names, Windows, Ubuntu, WSL or macOS, and
their user names are in their home folders, so redaction is exercised on every file.

:func:`write_class` also writes the files a TA's folder really holds besides: a re-upload (same
bytes), a second export of the same run, a truncated file, a doctor JSON, a report of a future
major version, wrong types in ``facts``, an empty file, and a report whose GPU name and file name
are HTML.
"""

from __future__ import annotations

import datetime as _dt
import json
import random
from dataclasses import dataclass
from pathlib import Path

from tests.recorded_host import RecordedHost
from tests.report_sessions import PROBE
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
NOW = _dt.datetime(2026, 12, 1, 9, 0, 0, tzinfo=_dt.timezone(_dt.timedelta(hours=9)))
INJECTION = '<script>alert("gpu")</script><img src=x onerror=alert(1)>'

NAMES = [("kim", "민지"), ("lee", "서준"), ("park", "지우"), ("choi", "하윤"), ("jung", "도윤"), ("kang", "서연"),
         ("cho", "예준"), ("yoon", "지호"), ("jang", "수아"), ("lim", "시우"), ("han", "지민"), ("oh", "주원"),
         ("seo", "하은"), ("shin", "건우"), ("kwon", "채원"), ("hwang", "우진"), ("ahn", "유나"), ("song", "현우"),
         ("alex", "alex"), ("maria", "maria"), ("john", "john"), ("yuki", "yuki"), ("omar", "omar"),
         ("jeon", "다은"), ("hong", "민준"), ("ko", "소율"), ("moon", "태윤"), ("yang", "서윤"), ("son", "준서"),
         ("bae", "지안"), ("baek", "은우"), ("heo", "하린"), ("nam", "시윤"), ("noh", "예린"), ("ha", "선우"),
         ("ryu", "아린")]

# (driver, the highest CUDA it supports) as students' PCs have them
DRIVERS_NEW = [("570.133.07", "12.8"), ("576.52", "12.9"), ("575.64.03", "12.9"), ("580.82.07", "13.0")]
DRIVERS_OLD = [("550.120", "12.4"), ("551.86", "12.4"), ("535.183.01", "12.2")]


@dataclass(frozen=True)
class Profile:
    """What happened on one student's PC."""

    id: str
    verify_file: str | None  # tests/data/probe file; None: the student never ran verify
    gpu: bool  # an NVIDIA GPU in the PC
    torch: str  # the build in the environment
    index_url: str


PROFILES = {
    "ok": Profile("ok", "verify_rtx3060_cu128_linux.jsonl", True, "2.8.0+cu128",
                  "https://download.pytorch.org/whl/cu128"),
    "cpu_on_gpu": Profile("cpu_on_gpu", "verify_cpu_only_on_gpu_windows.jsonl", True, "2.5.1+cpu",
                          "https://download.pytorch.org/whl/cpu"),
    "driver_old": Profile("driver_old", "verify_driver_too_old_linux.jsonl", True, "2.11.0+cu130",
                          "https://download.pytorch.org/whl/cu130"),
    "blackwell_cu126": Profile("blackwell_cu126", "verify_rtx5090_cu126_windows.jsonl", True, "2.6.0+cu126",
                               "https://download.pytorch.org/whl/cu126"),
    "no_gpu": Profile("no_gpu", "verify_cpu_only_no_gpu_linux.jsonl", False, "2.13.0+cpu",
                      "https://download.pytorch.org/whl/cpu"),
    "not_verified": Profile("not_verified", None, True, "2.8.0+cu128", "https://download.pytorch.org/whl/cu128"),
}
# 36 students: most are fine, the rest fail the ways a real class does
CLASS_PLAN = (["ok"] * 15 + ["cpu_on_gpu"] * 5 + ["driver_old"] * 4 + ["blackwell_cu126"] * 3 + ["no_gpu"] * 6
              + ["not_verified"] * 3)


def nvidia_gpus() -> list[dict]:
    doc = json.loads((REPO / "wizard" / "resources" / "gpus.json").read_text(encoding="utf-8"))
    return [g for g in doc["gpus"] if not g["name"].startswith("Apple")]


def _gpu_name(spec: dict) -> str:
    name = spec["name"].split(" (")[0]
    return name if name.startswith(("NVIDIA", "Tesla")) else "NVIDIA " + name


@dataclass(frozen=True)
class Student:
    file_stem: str
    user: str
    os: str  # windows | linux | wsl | macos
    profile: Profile
    gpu: dict | None  # a gpus.json entry
    driver: tuple[str, str] | None
    started_at: str
    lang: str
    vram_choice: bool = False
    gpu_name_override: str | None = None


def plan_class(count: int = len(CLASS_PLAN), seed: int = 14) -> list[Student]:
    """``count`` students (the plan repeats past 36), the same for the same seed."""
    rng = random.Random(seed)
    gpus = nvidia_gpus()
    blackwell = [g for g in gpus if g["compute_capability"] == "12.0"]
    consumer = [g for g in gpus if g["compute_capability"] != "12.0" and g["name"].startswith("GeForce")]
    out = []
    for i in range(count):
        pid = CLASS_PLAN[i % len(CLASS_PLAN)]
        profile = PROFILES[pid]
        family, given = NAMES[i % len(NAMES)]
        suffix = "" if i < len(NAMES) else f"{i // len(NAMES) + 1}"
        os_name = rng.choice(["windows", "windows", "windows", "linux", "wsl"])
        if pid in ("cpu_on_gpu", "blackwell_cu126"):
            os_name = "windows"
        elif pid == "driver_old":
            os_name = "linux"
        elif pid == "no_gpu":
            os_name = rng.choice(["windows", "linux", "macos"])
        gpu = None
        if profile.gpu:
            gpu = rng.choice(blackwell if pid == "blackwell_cu126" else consumer)
        driver = None
        if gpu is not None:
            driver = rng.choice(DRIVERS_OLD if pid == "driver_old" else DRIVERS_NEW)
        when = NOW - _dt.timedelta(days=rng.randint(0, 6), minutes=rng.randint(0, 600), seconds=i)
        out.append(Student(f"{2026000 + i}_{family}{suffix}", given, os_name, profile, gpu, driver,
                           when.isoformat(timespec="seconds"), "ko" if rng.random() < 0.7 else "en",
                           vram_choice=rng.random() < 0.3))
    return out


def _home(s: Student) -> str:
    if s.os == "windows":
        return f"C:\\Users\\{s.user}"
    return f"/Users/{s.user}" if s.os == "macos" else f"/home/{s.user}"


def _host(s: Student) -> RecordedHost:
    home = _home(s)
    system = {"windows": "Windows", "macos": "Darwin"}.get(s.os, "Linux")
    env = {"USERPROFILE" if s.os == "windows" else "HOME": home, "USERNAME" if s.os == "windows" else "USER": s.user}
    return RecordedHost(os_name="windows" if s.os == "windows" else ("macos" if s.os == "macos" else "linux"),
                        env=env, platform={"system": system, "node": f"{s.user}-pc", "machine": "x86_64"},
                        home_dir=home)


_OS_TEXT = {"windows": ("windows", "Windows 11 Home 23H2", "10.0.22631"),
            "linux": ("linux", "Ubuntu 22.04.4 LTS", "22.04"),
            "wsl": ("linux", "Ubuntu 24.04.1 LTS (WSL2)", "24.04"),
            "macos": ("macos", "macOS 14.6 Sonoma", "14.6")}


def detection_of(s: Student) -> Detection:
    from wizard.core.machine.findings import detection_findings

    os_id, pretty, version = _OS_TEXT[s.os]
    home = _home(s)
    adapters = []
    if s.gpu is not None:
        gpu_name = s.gpu_name_override or _gpu_name(s.gpu)
        mib = int(s.gpu["vram_gb"] * 1024)
        gpu = GpuInfo(index=0, name=gpu_name, uuid=f"GPU-{abs(hash(s.file_stem)) % 10**8:08d}-1111-2222-3333-444455556666",
                      compute_capability=s.gpu["compute_capability"], architecture=s.gpu.get("architecture"),
                      memory_total_mib=mib, memory_used_mib=min(600, mib // 10), memory_free_mib=mib - min(600, mib // 10))
        driver, cuda = s.driver or ("570.133.07", "12.8")
        nv = NvidiaInfo(status=STATUS_OK, driver_version=driver, cuda_version=cuda, gpus=[gpu], smi_on_path=True,
                        sources=[SourceResult("nvml", driver_version=driver, cuda_version=cuda)])
        adapters.append(DisplayAdapter("nvidia", gpu_name, "10de:0000", "sysfs"))
    else:
        nv = NvidiaInfo(status=STATUS_NO_DRIVER, sources=[SourceResult("nvml", STATUS_NO_DRIVER,
                                                                       raw_error="NVML Shared Library Not Found")])
        adapters.append(DisplayAdapter("intel", "Intel Iris Xe Graphics", "8086:46a8", "sysfs"))
    system = SystemInfo(os=os_id, os_pretty=pretty, os_version=version, arch="x86_64", cpu_model="Intel(R) Core(TM) i5",
                        cpu_physical_cores=6, cpu_logical_cores=12, ram_total_bytes=16 * 2**30,
                        ram_available_bytes=10 * 2**30, disk_path=home, disk_free_bytes=200 * 2**30,
                        disk_total_bytes=512 * 2**30, locale="ko_KR.UTF-8", hostname=f"{s.user}-pc",
                        display_adapters=adapters)
    pythons = [PythonInterpreter(path=f"{home}/miniconda3/bin/python3.11", version="3.11.9", arch="x86_64", bits=64,
                                 implementation="CPython", source="path")]
    d = Detection(system=system, nvidia=nv, pythons=pythons, duration_s=1.0)
    d.findings = detection_findings(d)
    return d


def _events(s: Student) -> list[dict]:
    text = (PROBE / s.profile.verify_file).read_text(encoding="utf-8")  # type: ignore[operator]
    home = json.dumps(_home(s))[1:-1]  # as it stands inside the JSON text
    for recorded in ("/home/minji", "/home/jisoo", "/home/student"):
        text = text.replace(recorded, home)
    if s.gpu is not None:  # the probe saw this student's card
        for recorded in ("NVIDIA GeForce RTX 3060", "NVIDIA GeForce RTX 5090"):
            text = text.replace(recorded, json.dumps(s.gpu_name_override or _gpu_name(s.gpu))[1:-1])
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _install(s: Student, env: str) -> dict:
    torch = s.profile.torch
    vision = {"2.8.0": "0.23.0", "2.5.1": "0.20.1", "2.11.0": "0.26.0", "2.6.0": "0.21.0", "2.13.0": "0.28.0"}
    base, _, tag = torch.partition("+")
    tv = vision.get(base, "0.23.0") + (f"+{tag}" if tag else "")
    sep = "\\" if s.os == "windows" else "/"
    return {"schema": "gpu-setup-wizard/install@1.0", "ok": True, "status": "complete",
            "env_python": f"{env}{sep}python", "env_path": env, "target_kind": "venv",
            "requirements": [f"torch=={base}", f"torchvision=={tv.split('+')[0]}"], "index_url": s.profile.index_url,
            "installer": "uv" if s.os != "windows" else "pip", "pip": None, "already_satisfied": False,
            "installed": [{"name": "torch", "version": torch}, {"name": "torchvision", "version": tv}],
            "imports": {"torch": torch}, "downloaded_bytes": 2_500_000_000, "from_cache_bytes": 0, "resumed_bytes": 0,
            "planned_bytes": 2_500_000_000, "cache_dir": f"{_home(s)}{sep}.cache{sep}gpu-setup-wizard", "elapsed_s": 250.0,
            "steps_run": ["prepare", "create", "resolve", "download", "install", "verify", "finish"],
            "error": None, "recovery": []}


def session_of(s: Student) -> Session:
    from wizard.core.verify.checklist import VerifyReport
    from wizard.core.vram.estimate import estimate

    d = detection_of(s)
    session = Session(host=_host(s), lang=s.lang, started_at=s.started_at, detection=d)
    sep = "\\" if s.os == "windows" else "/"
    env = f"{_home(s)}{sep}envs{sep}dl"
    if s.profile.id != "no_gpu" or s.os != "macos":
        session.install = InstallSummary.from_json(_install(s, env))
    if s.profile.verify_file is not None:
        session.verify = VerifyReport.from_events(_events(s), detection=d, python_exe=f"{env}{sep}python")
    if s.vram_choice:
        total = int(s.gpu["vram_gb"] * 2**30) if s.gpu else None
        session.vram = estimate("gpt2", mode="train", precision="fp16", batch=8, vram_total_bytes=total)
        session.vram_chosen = True
    return session


def report_json(s: Student, now: _dt.datetime = NOW) -> str:
    from wizard.app.report import export_json

    return export_json(session_of(s), now=now)


def write_class(folder: Path, count: int = len(CLASS_PLAN), extras: bool = True) -> list[Path]:
    """The students' reports (``count``) and, with ``extras``, the usual junk of a shared folder."""
    folder.mkdir(parents=True, exist_ok=True)
    students = plan_class(count)
    written = []
    for s in students:
        path = folder / f"{s.file_stem}.json"
        path.write_text(report_json(s), encoding="utf-8")
        written.append(path)
    if extras:
        written += write_extras(folder, students)
    return written


def write_extras(folder: Path, students: list[Student]) -> list[Path]:
    first = (folder / f"{students[0].file_stem}.json").read_text(encoding="utf-8")
    doc = json.loads(first)
    bad_types = json.loads(first)
    bad_types["facts"]["gpus"] = [{"name": "RTX", "vram_bytes": "lots"}]
    future = dict(doc, schema="gpu-setup-wizard/report@2.0")
    hostile = Student("zz_hostile", "eve", "linux", PROFILES["ok"], nvidia_gpus()[8], DRIVERS_NEW[0],
                      (NOW - _dt.timedelta(hours=1)).isoformat(timespec="seconds"), "en", gpu_name_override=INJECTION)
    files = {
        f"{students[0].file_stem} (1).json": first,  # uploaded twice
        f"{students[1].file_stem}-again.json": report_json(students[1], NOW + _dt.timedelta(minutes=5)),
        "truncated.json": first[: len(first) // 2],
        "doctor.json": json.dumps({"schema": "gpu-setup-wizard/doctor@1.0", "system": {}, "nvidia": {}}),
        "future.json": json.dumps(future),
        "wrong-types.json": json.dumps(bad_types),
        "empty.json": "",
        '<img src=x onerror=alert(2)>.json': report_json(hostile),
    }
    out = []
    for name, text in files.items():
        path = folder / name
        path.write_text(text, encoding="utf-8")
        out.append(path)
    return out


__all__ = ["plan_class", "write_class", "write_extras", "report_json", "session_of", "INJECTION", "NOW",
           "CLASS_PLAN"]
