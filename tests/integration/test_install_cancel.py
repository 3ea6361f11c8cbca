"""Cancel leaves a working environment or none, and Resume repeats exactly what was started.

Real parts only: the real torch 2.13.0 CPU wheel (``pip download`` finds it on this machine;
skipped where it cannot), a torchvision of the same build made here (a small pure wheel
labelled ``+cpu``: the only torchvision on this machine is PyPI's, which does not import beside
a CPU torch), served by the loopback index under a mirror-like URL, real venvs, real uv and pip.

* cancel during the download stops it (the partial file stays), the environment has no torch
  and the state says so, with Resume and Remove offered; Resume asks for the same pins from the
  same mirror and continues the partial file with a Range request;
* cancel during the installer's step lets it finish (never killed mid-write), the run stops
  before verify, torch and torchvision import; Resume only verifies;
* only ``force_stop()`` kills the installer; the state then says it was killed mid-write, and
  Resume installs the same versions again.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.integration.index_server import LoopbackIndex, make_wheel
from tests.no_proxy import no_proxy_for_loopback  # noqa: F401  (autouse: loopback without a proxy)
from wizard.app.install import new_venv_target, resume_request
from wizard.core.base.host import RealHost
from wizard.core.install.control import AFTER_PARTIAL, AFTER_UNVERIFIED, PHASE_DOWNLOAD, PHASE_INSTALL
from wizard.core.install.job import InstallOptions
from wizard.core.install.recovery import OPTION_REMOVE, OPTION_RESUME, STATUS_CANCELLED, STATUS_COMPLETE, StateStore
from wizard.core.install.runner import InstallJob, StepHooks, run_steps

pytestmark = pytest.mark.slow  # real torch installed into real venvs, several times

REQS = ["torch==2.13.0", "torchvision==0.28.0"]


@pytest.fixture(scope="module")
def torch_wheels(tmp_path_factory):
    d = tmp_path_factory.mktemp("torch-wheels")
    res = subprocess.run([sys.executable, "-m", "pip", "download", "torch==2.13.0", "--only-binary", ":all:",
                          "-d", str(d), "-q"], capture_output=True, text=True, timeout=900)
    if res.returncode != 0 or not list(d.glob("torch-2.13.0*.whl")):
        pytest.skip(f"no torch 2.13.0 wheel here: {(res.stderr or res.stdout)[-300:]}")
    make_wheel(d, "torchvision", "0.28.0+cpu", requires=["torch==2.13.0"],
               files={"torchvision/__init__.py": "import torch\n__version__ = '0.28.0+cpu'\n"})
    return sorted(d.glob("*.whl"))


@pytest.fixture()
def index(torch_wheels):
    with LoopbackIndex() as idx:
        idx.add_wheels(torch_wheels)
        yield idx


@pytest.fixture()
def root(tmp_path):
    base = tmp_path / "김 학생"
    base.mkdir()
    return base


def torch_file(index: LoopbackIndex) -> str:
    return next(name for name in index.files if name.startswith("torch-2.13.0"))


def new_job(root: Path, index: LoopbackIndex, installer: str = "auto") -> InstallJob:
    mirror = index.base + "/whl/cpu"  # a mirror of download.pytorch.org, as the settings make it
    target = new_venv_target(str(root / "envs" / "torch cpu"), sys.executable, installer=installer)
    opts = InstallOptions(list(REQS), mirror, installer=installer, cache_dir=str(root / "cache"),
                          state_dir=str(root / "state"), uv_cache_dir=str(root / "uv cache"))
    return InstallJob(target, opts, RealHost())


def resumed_job(root: Path, job: InstallJob) -> InstallJob:
    state = StateStore(root / "state").load(job.target.path)
    request = resume_request(state, cache_dir=str(root / "cache"), state_dir=str(root / "state"))
    request.options.uv_cache_dir = str(root / "uv cache")
    return InstallJob(request.target, request.options, RealHost())


def imports(job: InstallJob, code: str = "import torch, torchvision; print(torch.__version__)") -> bool:
    res = subprocess.run([job.env_python(), "-c", code], capture_output=True, text=True, timeout=300)
    return res.returncode == 0


def cancel_when_install_starts(job: InstallJob, cancel: threading.Event, seen: dict, force: bool = False,
                               after_s: float = 0.3) -> StepHooks:
    def started(step):
        if step.id == "install":
            seen["outlook"] = job.cancel_outlook()
            threading.Timer(after_s, job.force_stop if force else cancel.set).start()
    return StepHooks(started=started)


def test_cancel_during_download_then_resume_the_same_pins_and_mirror(index, root):
    big = torch_file(index)
    index.throttle(big, 8_000_000)  # ~190 MB at 8 MB/s: time to cancel in the middle
    job = new_job(root, index)
    cancel, seen = threading.Event(), {}

    def watch(p):
        if p.step_id == "download" and p.step and p.step.download and p.step.download.fetched_bytes > 20_000_000 \
                and not cancel.is_set():
            seen["outlook"] = job.cancel_outlook()
            cancel.set()

    assert not run_steps(job, on_progress=watch, cancel=cancel)
    outlook = seen["outlook"]
    assert outlook.running and outlook.phase == PHASE_DOWNLOAD and not outlook.waits
    assert outlook.after == AFTER_PARTIAL and "다운로드" in outlook.text("ko") and "kept" in outlook.text("en")
    assert not job.cancel_outlook().running
    state = StateStore(root / "state").load(job.target.path)
    assert state.status == STATUS_CANCELLED and state.failed_step == "download"
    assert state.options() == [OPTION_RESUME, OPTION_REMOVE]  # not installed: finish or undo
    assert "torch==2.13.0+cpu" in state.pins and "torchvision==0.28.0+cpu" in state.pins
    assert state.index_url == index.base + "/whl/cpu" and state.installer == "uv"
    assert not imports(job, "import torch")
    torch_part = root / "cache" / "partial" / f"{index.files[big].sha256[:40]}.part"
    partial = torch_part.stat().st_size
    assert 0 < partial < index.files[big].size  # what arrived is kept for Resume

    index.throttle(big, None)
    index.reset_counters()
    again = resumed_job(root, job)
    assert again.options.requirements == REQS and again.options.index_url == state.index_url
    assert run_steps(again), again.failure and again.failure.message.text("en")
    s = again.summary()
    assert "resolve" not in s["steps_run"]  # the saved plan: the very pins of the first run
    assert {f"{i['name']}=={i['version']}" for i in s["installed"]} >= {"torch==2.13.0+cpu",
                                                                       "torchvision==0.28.0+cpu"}
    size = index.files[big].size
    assert index.sent_per_get(big) == [(f"bytes={partial}-", size - partial)]  # continued, not restarted
    assert s["downloaded_bytes"] == index.total_file_bytes_served()  # the figure the index counted
    assert imports(again)
    assert StateStore(root / "state").load(job.target.path).status == STATUS_COMPLETE


@pytest.mark.parametrize("installer", ["uv", "pip"])
def test_cancel_during_the_install_step_lets_it_finish(index, root, installer):
    job = new_job(root, index, installer)
    cancel, seen = threading.Event(), {}
    assert not run_steps(job, cancel=cancel, hooks=cancel_when_install_starts(job, cancel, seen))
    outlook = seen["outlook"]
    assert outlook.phase == PHASE_INSTALL and outlook.waits and outlook.after == AFTER_UNVERIFIED
    assert "설치" in outlook.text("ko")
    state = StateStore(root / "state").load(job.target.path)
    # the installer finished writing; the run stopped at the next step, and says so
    assert state.status == STATUS_CANCELLED and state.failed_step == "verify", (state.failed_step, state.error)
    assert state.error_kind == "cancelled" and "install" in state.steps_done
    assert any("allowed to finish" in line for line in job.log_lines)
    assert imports(job)  # a working environment, not a half-written one

    again = resumed_job(root, job)
    assert run_steps(again), again.failure and again.failure.message.text("en")
    s = again.summary()
    assert s["steps_run"][-2:] == ["verify", "finish"] and "install" not in s["steps_run"]
    assert again.options.index_url == state.index_url and s["installer"] == installer


def test_force_stop_kills_the_installer_and_says_so(index, root):
    job = new_job(root, index, "pip")  # pip takes seconds to write torch: the kill lands mid-write
    cancel, seen = threading.Event(), {}
    assert not run_steps(job, cancel=cancel, hooks=cancel_when_install_starts(job, cancel, seen, force=True,
                                                                             after_s=1.0))
    state = StateStore(root / "state").load(job.target.path)
    assert state.status == STATUS_CANCELLED and state.failed_step == "install"
    assert state.error_kind == "killed-mid-write" and "incomplete" in state.error
    assert state.options() == [OPTION_RESUME, OPTION_REMOVE]
    assert any("may be incomplete" in line for line in job.log_lines)

    again = resumed_job(root, job)
    assert run_steps(again), again.failure and again.failure.message.text("en")
    assert "install" in again.summary()["steps_run"]  # the same versions, installed again
    assert imports(again)
    assert os.path.exists(again.env_python())
