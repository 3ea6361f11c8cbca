"""A crashing NVML library is diagnosed, not fatal (issue 15 item 10), with a real crashing library.

The test builds a ``libnvidia-ml.so.1`` whose ``nvmlInitWithFlags`` dereferences a null pointer (the C
compiler; skipped with a reason where there is none) and puts its folder first on LD_LIBRARY_PATH, where
nvidia-ml-py's ``CDLL("libnvidia-ml.so.1")`` finds it. Loaded in-process it kills Python with SIGSEGV
(checked first, so the test would notice a library that does not crash). The wizard's first NVML query
of a run happens in a child process: ``doctor --json``, the GUI's detection use case and the benchmark's
sampler all survive, report the crash as a finding, and never load the library themselves. A second
library that answers (no GPUs) shows the other side: after a good child check the live sampler opens
NVML in-process as before.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from wizard.core.machine.nvml_guard import crash_signal

REPO = Path(__file__).resolve().parents[2]

CRASHING = """
int nvmlInitWithFlags(unsigned int flags) { volatile int *p = (int *)0; return *p + (int)flags; }
int nvmlInit_v2(void) { return nvmlInitWithFlags(0); }
"""
# Enough of NVML for a driver without GPUs: init, versions, a device count of 0, shutdown.
ANSWERING = """
#include <string.h>
int nvmlInitWithFlags(unsigned int flags) { return 0; }
int nvmlInit_v2(void) { return 0; }
int nvmlShutdown(void) { return 0; }
const char *nvmlErrorString(int r) { return "fake NVML error"; }
int nvmlDeviceGetCount_v2(unsigned int *count) { *count = 0; return 0; }
int nvmlSystemGetDriverVersion(char *buf, unsigned int n) { strncpy(buf, "999.99", n); return 0; }
int nvmlSystemGetNVMLVersion(char *buf, unsigned int n) { strncpy(buf, "12.999.99", n); return 0; }
int nvmlSystemGetCudaDriverVersion(int *v) { *v = 12040; return 0; }
int nvmlSystemGetCudaDriverVersion_v2(int *v) { *v = 12040; return 0; }
"""

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="LD_LIBRARY_PATH and ELF libraries")

# What the GUI's Detect page and the benchmark do, in one process: detect through the application
# layer, then open the live sampler; and whether NVML was ever loaded into this process.
USE_CASES = """
import json, sys
import pynvml
from wizard.app.detect import detect_machine
from wizard.app.session import Session
from wizard.core.base.host import RealHost
from wizard.core.machine.nvml_sampler import NvmlSampler
out = {}
if sys.argv[1] == "detect":
    session = Session(host=RealHost(), lang="en")
    detection = detect_machine(session, pythons=False, conda=False)
    out["findings"] = [f.id for f in detection.findings]
    out["nvml"] = [[s.status, s.detail] for s in detection.nvidia.sources if s.source == "nvml"]
sampler = NvmlSampler(RealHost().nvml())
out["sampler_open"] = sampler.open()
out["sampler_error"] = sampler.error
out["nvml_loaded_here"] = pynvml.nvmlLib is not None
sampler.close()
print(json.dumps(out))
"""


def _compiler() -> str:
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        pytest.skip("no C compiler (cc, gcc or clang) to build the fake NVML library")
    return cc


def _library(tmp_path: Path, name: str, source: str) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "nvml.c").write_text(source, encoding="utf-8")
    subprocess.run([_compiler(), "-shared", "-fPIC", "-o", str(folder / "libnvidia-ml.so.1"), str(folder / "nvml.c")],
                   check=True, capture_output=True, timeout=120)
    return folder


def _env(tmp_path: Path, lib: Path) -> dict[str, str]:
    return {**os.environ, "LD_LIBRARY_PATH": f"{lib}{os.pathsep}{os.environ.get('LD_LIBRARY_PATH', '')}",
            "PYTHONPATH": str(REPO), "GSW_DATA_DIR": str(tmp_path / "data"), "GSW_LANG": "en"}


@pytest.fixture
def crashing_lib(tmp_path):
    lib = _library(tmp_path, "crashing", CRASHING)
    env = _env(tmp_path, lib)
    probe = subprocess.run([sys.executable, "-c", "import pynvml; pynvml.nvmlInit()"], env=env,
                           capture_output=True, timeout=60)
    assert probe.returncode == -11, f"the fake library should crash in-process: {probe.returncode} {probe.stderr!r}"
    return env


def _use_cases(env: dict[str, str], what: str) -> dict:
    out = subprocess.run([sys.executable, "-c", USE_CASES, what], env=env, cwd=REPO, capture_output=True,
                         text=True, timeout=180)
    assert out.returncode == 0, f"rc {out.returncode}: {out.stderr[-3000:]}"
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_doctor_json_survives_and_says_nvml_crashed(crashing_lib):
    out = subprocess.run([sys.executable, "-m", "wizard", "doctor", "--json"], env=crashing_lib, cwd=REPO,
                         capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, f"rc {out.returncode}: {out.stderr[-3000:]}"
    assert "Traceback" not in out.stderr
    doc = json.loads(out.stdout)
    nvml = [s for s in doc["nvidia"]["sources"] if s["source"] == "nvml"]
    assert nvml and nvml[0]["detail"] == "nvml-crashed" and "SIGSEGV" in nvml[0]["raw_error"]
    assert any(s["source"].startswith("nvidia-smi") for s in doc["nvidia"]["sources"])  # it went on to nvidia-smi
    finding = next(f for f in doc["findings"] if f["id"] == "nvml-crashed")
    assert "NVML library crashed" in finding["title"] and "Reinstall the NVIDIA driver" in finding["fix"]


def test_doctor_text_says_it_in_korean(crashing_lib):
    out = subprocess.run([sys.executable, "-m", "wizard", "doctor", "--lang", "ko"], env=crashing_lib, cwd=REPO,
                         capture_output=True, text=True, encoding="utf-8", timeout=180)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "NVML 라이브러리가 비정상 종료되었습니다" in out.stdout and "SIGSEGV" in out.stdout


def test_gui_detection_and_the_sampler_survive_and_never_load_nvml(crashing_lib):
    got = _use_cases(crashing_lib, "detect")
    assert "nvml-crashed" in got["findings"]
    assert got["nvml"] == [["error", "nvml-crashed"]]
    assert got["sampler_open"] is False and "crashed" in got["sampler_error"]
    assert got["nvml_loaded_here"] is False


def test_a_sampler_opened_first_checks_in_a_child_too(crashing_lib):
    got = _use_cases(crashing_lib, "sampler")  # the benchmark opens the sampler without a detection before
    assert got["sampler_open"] is False and "crashed" in got["sampler_error"]
    assert got["nvml_loaded_here"] is False


def test_after_a_good_child_check_the_sampler_runs_in_process(tmp_path):
    env = _env(tmp_path, _library(tmp_path, "answering", ANSWERING))
    got = _use_cases(env, "detect")
    assert got["nvml"] == [["no-devices", None]]  # the child's answer, read back
    assert "nvml-crashed" not in got["findings"]
    assert got["sampler_open"] is True and got["nvml_loaded_here"] is True


@pytest.mark.parametrize("code,name", [(-11, "SIGSEGV"), (-6, "SIGABRT"), (139, "SIGSEGV"), (0xC0000005, "0xC0000005"),
                                       (0, None), (1, None), (None, None)])
def test_crash_signal_names(code, name):
    assert crash_signal(code) == name
