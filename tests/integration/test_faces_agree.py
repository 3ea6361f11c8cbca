"""One scenario through each face, compared: the window (its pages driven offscreen) and the
command line (``python -m wizard``, run in this process by tests/cli_runner.py) must make the same
decisions, because both call the same use cases in :mod:`wizard.app`.

Compared: the recommendation (its JSON), the install plan (requirements, index URL, target)
and the exported report JSON (minus the times of day). Scenarios: this machine with no GPU (a
CPU build), a recorded Windows machine with an RTX 3060, a mirror of the PyTorch index (the
loopback index of tests/integration/index_server.py), and a course's pinned torch version.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pytestqt")

from tests import fake_nvml, scenarios  # noqa: E402
from tests.cli_runner import run_cli  # noqa: E402
from tests.gui.wizard_driver import go_to, open_wizard  # noqa: E402
from tests.integration.index_server import LoopbackIndex, make_wheel  # noqa: E402
from wizard.core.base.host import RealHost  # noqa: E402
from wizard.ui.pages.base import PageId  # noqa: E402
from wizard.ui.pages.environment.common import MODE_NEW_VENV  # noqa: E402

pytestmark = pytest.mark.gui
WAIT_MS = 120_000
PINNED = ("2.13.0", "cpu")  # the course's pin (compat data knows it)


# --- the two faces ------------------------------------------------------------------------------
# --- recommendation -----------------------------------------------------------------------------
def gui_recommendation(qtbot, host: Any, requested: tuple[str, str] | None = None) -> dict[str, Any]:
    window = open_wizard(qtbot, host)
    window.next()  # GPU & driver
    if requested:  # the way a course (or a diagnosis action) pins the build
        window.model.session.requested_build = {"torch": requested[0], "variant": requested[1]}
    window.next()  # Recommendation
    page = window.recommend_page
    return {"recommendation": page.choice.recommendation.to_json("en"),
            "chosen": page.selected.to_json("en") if page.selected else None}


def test_no_gpu_the_same_cpu_build(qtbot, student_home):
    gui = gui_recommendation(qtbot, RealHost())
    done = run_cli("recommend", "--json")
    assert done.exit_status == 0, done.stderr
    cli = done.json
    assert gui["recommendation"] == cli
    assert cli["candidates"][0]["variant"] == "cpu"  # this machine has no NVIDIA GPU


def rtx3060_windows() -> Any:
    """The recorded Windows desktop of tests/scenarios.py (driver 591.86, WDDM) with its card
    made an RTX 3060 12 GB (Ampere, compute capability 8.6), the card most of the class has.
    nvidia-smi and NVML answer from the same description, as in every scenario."""
    desc = copy.deepcopy(fake_nvml.rtx2080super_windows())
    gpu = desc["gpus"][0]
    gpu.update(name="NVIDIA GeForce RTX 3060", compute_capability=(8, 6), architecture="AMPERE",
               memory_mib={"total": 12288, "reserved": 205, "used": 1296, "free": 10787})
    host = scenarios.windows_rtx2080super(nvml_module=fake_nvml.FakeNvml(desc))
    smi = scenarios.SYSTEM32_SMI
    host.commands[host.key_of(scenarios.nvidia_smi.query_argv(smi))] = scenarios.ok(scenarios.smi_csv(desc))
    host.commands[host.key_of([smi])] = scenarios.ok(scenarios.smi_table_header(desc))
    return host


def test_recorded_rtx3060_windows_the_same_cuda_build(qtbot, student_home, tmp_path):
    from wizard.core.machine.detect import detect
    from wizard.core.machine.doctor import detection_to_json

    host = rtx3060_windows()
    gui = gui_recommendation(qtbot, host)
    assert gui["recommendation"]["machine"]["gpu_ccs"] == ["8.6"]
    # the CLI face reads the same machine as the doctor JSON the student would hand in
    doctor = tmp_path / "doctor.json"
    doctor.write_text(json.dumps(detection_to_json(detect(host), "en")), encoding="utf-8")
    done = run_cli("recommend", "--from-doctor", str(doctor), "--json")
    assert done.exit_status == 0, done.stderr
    cli = done.json
    assert gui["recommendation"] == cli
    assert cli["candidates"][0]["kind"] == "cuda"
    # and the command run on that machine itself (the recorded host injected) says the same
    direct = run_cli("recommend", "--json", host=rtx3060_windows())
    assert direct.exit_status == 0, direct.stderr
    assert direct.json == cli


def test_a_pinned_version_the_same_build(qtbot, student_home):
    """The course pins torch: the window takes the pin as the requested build, the command line
    as ``--torch``/``--variant``; the build both go on with is the same."""
    gui = gui_recommendation(qtbot, RealHost(), requested=PINNED)
    done = run_cli("recommend", "--torch", PINNED[0], "--variant", PINNED[1], "--json")
    assert done.exit_status == 0, done.stderr
    cli = done.json["candidates"][0]
    # (the reasons differ in words only: one says "you asked for", the other "the course asks for")
    chosen = {k: v for k, v in gui["chosen"].items() if k not in ("reasons",)}
    assert chosen == {k: v for k, v in cli.items() if k not in ("reasons",)}
    assert (cli["torch"], cli["variant"]) == PINNED


# --- the install plan -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def pinned_wheels(tmp_path_factory) -> list[Path]:
    """Tiny stand-in wheels of the pinned build, served by the loopback index as the mirror."""
    d = tmp_path_factory.mktemp("faces wheels")
    return [make_wheel(d, "torch", f"{PINNED[0]}+cpu", requires=["typing-extensions>=4"]),
            make_wheel(d, "torchvision", "0.28.0+cpu", requires=[f"torch=={PINNED[0]}"]),
            make_wheel(d, "typing-extensions", "4.12.2", files={"typing_extensions.py": "X = 1\n"})]


def gui_plan(qtbot, mirror: str, venv: Path) -> dict[str, Any]:
    """The Environment page's plan for a new venv from this Python, with the mirror set."""
    from tests.gui.install_driver import wait_plan

    window = open_wizard(qtbot, RealHost())
    window.next()
    window.model.session.requested_build = {"torch": PINNED[0], "variant": PINNED[1]}
    window.next()  # Recommendation
    window.next()  # Environment
    env = window.environment_page
    env.settings.mirror = mirror
    env.set_mode(MODE_NEW_VENV)
    combo = env.python_combo
    this = next(i for i in range(combo.count()) if (combo.itemData(i) or ("",))[1] == sys.executable)
    combo.setCurrentIndex(this)
    env.venv_path.setText(str(venv))
    env.refresh()
    wait_plan(qtbot, env)
    assert env.plan is not None, env.plan_error and env.plan_error.message.text("en")
    options = env.options()
    return {"requirements": options.requirements, "index_url": options.index_url,
            "target": env.target.to_json(), "files": sorted(f.filename for f in env.plan.files)}


def test_a_mirror_and_a_pinned_version_give_the_same_plan(qtbot, student_home, pinned_wheels):
    venv = student_home / "envs" / "딥러닝 환경"
    with LoopbackIndex() as index:
        index.add_wheels(pinned_wheels)
        mirror = index.base + "/whl"
        gui = gui_plan(qtbot, mirror, venv)
        done = run_cli("install", "--venv", str(venv), "--python", sys.executable,
                       "--torch", PINNED[0], "--variant", PINNED[1], "--index-url", mirror,
                       "--plan-only", "--json")
    assert done.exit_status == 0, done.stdout + done.stderr
    doc = done.json
    cli = {"requirements": doc["requirements"], "index_url": doc["index_url"], "target": doc["target"],
           "files": sorted(f["filename"] for f in doc["files"])}
    assert gui == cli
    assert cli["index_url"] == mirror + "/cpu"  # the mirror replaced download.pytorch.org
    assert cli["requirements"][0] == f"torch=={PINNED[0]}"


# --- the report -----------------------------------------------------------------------------------
TIMES = ("generated_at", "date", "started_at", "time")


def without_times(doc: Any) -> Any:
    """The report document with the times of day taken out (the two faces run seconds apart)."""
    if isinstance(doc, dict):
        return {k: without_times(v) for k, v in doc.items() if k not in TIMES}
    if isinstance(doc, list):
        return [without_times(v) for v in doc]
    return doc


def test_no_gpu_the_same_report(qtbot, student_home):
    """The steps ``report`` runs without a window -- detection, the recommendation, the
    comparison with the last saved run -- give the same report as the window after the same
    steps (its Report page, opened from the Recommendation page)."""
    window = open_wizard(qtbot, RealHost())
    go_to(window, PageId.RECOMMEND)
    qtbot.waitUntil(lambda: window.model.session.changes_checked, timeout=WAIT_MS)
    page = window.report_page
    page.refresh()
    gui = json.loads(page.text("json").decode("utf-8"))
    done = run_cli("report", "--format", "json")
    assert done.exit_status == 0, done.stderr
    cli = done.json
    diff = differences(without_times(gui), without_times(cli))
    assert not diff, "\n".join(diff)


def differences(a: Any, b: Any, where: str = "") -> list[str]:
    """Where two documents differ, as paths (a readable failure instead of a wall of JSON)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b)) for d in differences(a.get(k), b.get(k), f"{where}/{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f"{where}[{i}]")]
    return [] if a == b else [f"{where}: {a!r} != {b!r}"]


# --- where it goes: the default folder and resuming -----------------------------------------------
def test_an_unfinished_install_is_resumed_by_both_faces(qtbot, student_home, pinned_wheels):
    """An install the wizard started and did not finish: pointing either face at its folder
    continues it (the same target, from the saved state), instead of starting another."""
    from wizard.core.install.environments import new_venv
    from wizard.core.install.recovery import STATUS_FAILED, EnvState, StateStore

    venv = student_home / "envs" / "중단된 환경"
    saved = new_venv(str(venv), sys.executable).to_json()
    StateStore().save(EnvState(env_path=str(venv), target=saved, created_by_wizard=True, status=STATUS_FAILED,
                               failed_step="download"))
    with LoopbackIndex() as index:
        index.add_wheels(pinned_wheels)
        mirror = index.base + "/whl"
        window = open_wizard(qtbot, RealHost())
        window.next()
        window.next()  # Recommendation
        window.next()  # Environment
        env = window.environment_page
        env.settings.mirror = mirror
        env.set_mode(MODE_NEW_VENV)
        env.venv_path.setText(str(venv))
        env.refresh()
        assert env.resume_state is not None and env.target.to_json() == saved
        done = run_cli("install", "--venv", str(venv), "--torch", PINNED[0], "--variant", PINNED[1],
                       "--index-url", mirror, "--plan-only", "--json")
    assert done.exit_status == 0, done.stdout + done.stderr
    assert done.json["target"] == saved


def test_the_default_folder_is_numbered_when_taken(qtbot, student_home):
    """The window proposes ``~/GPU-Setup-Wizard/envs/torch-<variant>``, and ``-2`` when that folder
    holds something that is not the wizard's own unfinished install (the app layer decides)."""
    from wizard.app.install import default_venv_path, state_store

    window = open_wizard(qtbot, RealHost())
    window.next()
    window.next()  # Recommendation
    first = default_venv_path(window.model.session.host, window.model.session.candidate, state_store())
    Path(first).mkdir(parents=True)
    (Path(first) / "notes.txt").write_text("someone else's", encoding="utf-8")
    window.next()  # Environment
    shown = window.environment_page.venv_path.text()
    assert shown == first + "-2"
    assert Path(first).name == f"torch-{window.model.session.candidate.variant}"
