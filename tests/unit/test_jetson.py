"""NVIDIA Jetson boards: recognised from real captured texts (tests/data/jetson, sources in its
README) through a recorded host, given NVIDIA's JetPack wheels, and never a driver change."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.recorded_host import RecordedHost
from wizard.app.install import install_source, mirror_applies
from wizard.core.base.host import CommandResult
from wizard.core.base.resources import load_json
from wizard.core.machine.detect import detection_from_smi_text
from wizard.core.machine.jetson import detect_jetson, is_tegra_kernel, parse_l4t_core_version, parse_nv_tegra_release
from wizard.core.machine.models import Detection, PythonInterpreter
from wizard.core.machine.system import detect_system
from wizard.core.recommend.choose_python import choose_python
from wizard.core.recommend.inputs import MachineFacts, Wishes
from wizard.core.recommend.jetson import jetpack_of
from wizard.core.recommend.recommender import Recommendation, recommend

DATA = Path(__file__).resolve().parents[1] / "data" / "jetson"
DPKG = "dpkg-query --showformat=${Version} --show nvidia-l4t-core"


def text(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def uname_release(line: str) -> str:
    return line.split()[2]


def board(files: dict[str, str] | None = None, kernel: str = "5.15.148-tegra", machine: str = "aarch64",
          dpkg: str | None = None) -> RecordedHost:
    commands = {DPKG: CommandResult([], 0, dpkg)} if dpkg is not None else {}
    return RecordedHost(os_name="linux", platform={"system": "Linux", "release": kernel, "machine": machine},
                        files=dict(files or {}), commands=commands)


def never_touches_the_driver(rec: Recommendation) -> None:
    """No driver advice, no command that installs a driver, no server-ARM wheel."""
    kinds = {a.kind for a in rec.advice}
    assert not kinds & {"driver_update", "driver_install"}, kinds
    for a in rec.advice:
        for cmd in a.commands:
            assert "nvidia-driver" not in cmd and "apt" not in cmd.split() and "ubuntu-drivers" not in cmd, cmd
    for c in rec.candidates:
        assert "download.pytorch.org" not in c.index_url, c.index_url
    assert any(a.kind == "jetson_driver" for a in rec.advice)


# ------------------------------------------------------------------------------ parsing


@pytest.mark.parametrize("line, l4t", list(zip(text("nv_tegra_release_lines.txt").splitlines(),
                                                ["32.7.1", "34.1.1", "35.2.1", "35.3.1"])))
def test_nv_tegra_release_lines(line, l4t):
    assert parse_nv_tegra_release(line) == l4t


def test_l4t_core_package_version_and_its_jetpack():
    l4t = parse_l4t_core_version(text("l4t_core_36_4_4.txt"))
    assert l4t == "36.4.4"
    assert jetpack_of(l4t) == "6.2.1"
    assert jetpack_of("36.9.0") == "6"  # a newer R36 not in the table is still JetPack 6


@pytest.mark.parametrize("release, tegra", [
    (uname_release(text("orin_nano_uname.txt")), True),
    (uname_release(text("nano_r32_7_6.txt").splitlines()[1]), True),
    (uname_release(text("igx_orin_hostnamectl.txt").splitlines()[0]), True),
    ("6.5.0-35-generic", False), ("5.15.153.1-microsoft-standard-WSL2", False),
])
def test_tegra_kernels(release, tegra):
    assert is_tegra_kernel(release) is tegra


# ------------------------------------------------------------------------------ detection


def test_jetson_nano_from_its_release_file():
    release, uname = text("nano_r32_7_6.txt").splitlines()
    info = detect_jetson(board({"/etc/nv_tegra_release": release + "\n"}, uname_release(uname)))
    assert info is not None and (info.l4t, info.source) == ("32.7.6", "nv_tegra_release")


def test_orin_without_release_file_from_the_l4t_core_package():
    host = board({"/proc/device-tree/model": "NVIDIA Jetson Orin Nano Developer Kit\x00"},
                 uname_release(text("orin_nano_uname.txt")), dpkg=text("l4t_core_36_4_4.txt"))
    info = detect_jetson(host)
    assert info is not None
    assert (info.l4t, info.model, info.source) == ("36.4.4", "NVIDIA Jetson Orin Nano Developer Kit", "nvidia-l4t-core")


def test_a_tegra_kernel_alone_is_a_jetson_of_unknown_l4t():
    info = detect_jetson(board(kernel=uname_release(text("igx_orin_hostnamectl.txt").splitlines()[0])))
    assert info is not None and info.l4t is None and info.source == "kernel"


def test_not_a_jetson():
    assert detect_jetson(board(kernel="6.5.0-35-generic")) is None  # an ARM server
    release = text("nano_r32_7_6.txt").splitlines()[0]
    assert detect_jetson(board({"/etc/nv_tegra_release": release}, "6.5.0-35-generic", machine="x86_64")) is None
    assert detect_jetson(RecordedHost(os_name="windows")) is None


def test_detect_system_records_the_board():
    host = board({"/proc/device-tree/model": "NVIDIA Jetson Orin Nano Developer Kit\x00"},
                 uname_release(text("orin_nano_uname.txt")), dpkg=text("l4t_core_36_4_4.txt"))
    info = detect_system(host)
    assert (info.jetson_l4t, info.jetson_model) == ("36.4.4", "NVIDIA Jetson Orin Nano Developer Kit")


# ------------------------------------------------------------------------------ recommendation


def orin_detection(python: str = "3.10") -> Detection:
    """The Orin Nano: nvidia-smi as captured, the system from a recorded host."""
    det = detection_from_smi_text(text("orin_nano_jp62_nvidia_smi.txt"))
    host = board({"/proc/device-tree/model": "NVIDIA Jetson Orin Nano Developer Kit\x00"},
                 uname_release(text("orin_nano_uname.txt")), dpkg=text("l4t_core_36_4_4.txt"))
    det.system = detect_system(host)
    det.pythons = [PythonInterpreter("/usr/bin/python3", python, "aarch64", 64, "CPython", source="path")]
    return det


def test_orin_nano_gets_the_jetpack6_wheels_and_no_driver_advice():
    det = orin_detection()
    assert det.nvidia.driver_version == "540.4.0" and det.nvidia.cuda_version == "12.6"
    rec = recommend(MachineFacts.from_detection(det, "3.10"))
    never_touches_the_driver(rec)
    best = rec.best
    assert best is not None
    assert (best.torch, best.torchvision, best.index_url) == ("2.8.0", "0.23.0", "https://pypi.jetson-ai-lab.io/jp6/cu126")
    pip = best.commands().pip[0]
    assert "torch==2.8.0" in pip and "--index-url https://pypi.jetson-ai-lab.io/jp6/cu126" in pip
    assert "JetPack 6.2.1" in rec.advice[0].text("en") and "JetPack 6.2.1" in rec.advice[0].text("ko")



def test_a_mirror_never_stands_in_for_the_jetpack_index():
    """A classroom's mirror of download.pytorch.org or PyPI does not hold the JetPack wheels: the
    Orin keeps its own index (it was sent to ``<mirror>/cu126``, a page that cannot have them),
    while a desktop build still goes to its variant on the mirror."""
    best = recommend(MachineFacts.from_detection(orin_detection(), "3.10")).best
    assert best is not None and not mirror_applies(best)
    for mirror in ("https://mirror.school.ac.kr/whl", "https://mirror.school.ac.kr/pypi/simple"):
        reqs, index = install_source(best, mirror)
        assert index == "https://pypi.jetson-ai-lab.io/jp6/cu126" and "torch==2.8.0" in reqs
    desktop = recommend(MachineFacts("linux", "x86_64", "3.12", "580.65.06", "13.0", ["8.6"])).best
    assert desktop is not None and mirror_applies(desktop)
    assert install_source(desktop, "https://mirror.school.ac.kr/whl")[1] == f"https://mirror.school.ac.kr/whl/{desktop.variant}"

def test_typed_in_orin_is_a_jetson_too():
    """`recommend --os linux --arch aarch64 --gpu 8.7 --driver 540.4.0`: compute capability 8.7 is
    only Orin's integrated GPU. Before, this got download.pytorch.org's server-ARM cu126 wheel and
    `apt install nvidia-driver-580`."""
    facts = MachineFacts("linux", "aarch64", "3.10", "540.4.0", "12.6", ["8.7"])
    assert facts.is_jetson
    rec = recommend(facts)
    never_touches_the_driver(rec)
    # an Orin whose driver says CUDA 12.6 runs L4T 36.4 (JetPack 6): its wheels
    assert rec.best is not None and rec.best.index_url == "https://pypi.jetson-ai-lab.io/jp6/cu126"
    assert "L4T 36.4, JetPack 6" in rec.advice[0].text("en")
    # no CUDA version (nvidia-smi's field reads N/A), but driver 540.4.0 is L4T 36.4's: the same wheels
    rec = recommend(MachineFacts("linux", "aarch64", "3.10", "540.4.0", None, ["8.7"]))
    never_touches_the_driver(rec)
    assert rec.best is not None and rec.best.index_url == "https://pypi.jetson-ai-lab.io/jp6/cu126"
    # nothing says which L4T: the pointer to NVIDIA's list, not a guess
    rec = recommend(MachineFacts("linux", "aarch64", "3.10", None, None, ["8.7"]))
    never_touches_the_driver(rec)
    assert rec.best is None
    assert any(a.kind == "jetson_wheels" and "forums.developer.nvidia.com" in (a.url or "") for a in rec.advice)


def test_server_arm_with_a_discrete_gpu_is_not_a_jetson():
    facts = MachineFacts("linux", "aarch64", "3.12", "580.65.06", "13.0", ["9.0"])
    assert not facts.is_jetson
    rec = recommend(facts)
    assert rec.best is not None and "download.pytorch.org" in rec.best.index_url


def test_orin_with_python_312_is_told_to_use_310():
    facts = MachineFacts("linux", "aarch64", "3.12", "540.4.0", "12.6", ["8.7"], jetson_l4t="36.4.3")
    rec = recommend(facts)
    never_touches_the_driver(rec)
    assert rec.best is None
    py = next(a for a in rec.advice if a.kind == "python")
    assert py.severity == "required" and "3.10" in py.text("en") and "3.10" in py.text("ko")


def test_choose_python_picks_the_boards_310():
    det = orin_detection()
    det.pythons.append(PythonInterpreter("/home/student/.local/bin/python3.12", "3.12.7", "aarch64", 64, "CPython"))
    choice = choose_python(det)
    assert choice.version == "3.10" and choice.recommendation.best is not None


def test_choose_python_without_an_interpreter_installs_the_wheels_python():
    det = orin_detection()
    det.pythons = []
    assert choose_python(det).version == "3.10"


def test_jetpack5_gets_nvidias_wheel_file():
    release = text("nv_tegra_release_lines.txt").splitlines()[2]  # R35.2.1
    host = board({"/etc/nv_tegra_release": release}, "5.10.104-tegra")
    facts = MachineFacts.from_detection(Detection(detect_system(host), detection_from_smi_text(
        text("orin_nano_jp62_nvidia_smi.txt")).nvidia), "3.8")
    rec = recommend(facts)
    never_touches_the_driver(rec)
    wheel = next(a for a in rec.advice if a.kind == "jetson_wheels")
    assert wheel.commands == ["python -m pip install https://developer.download.nvidia.com/compute/redist/jp/v512/"
                              "pytorch/torch-2.1.0a0+41361538.nv23.06-cp38-cp38-linux_aarch64.whl"]


def test_jetson_nano_jetpack4_is_told_the_truth_and_colab():
    release, uname = text("nano_r32_7_6.txt").splitlines()
    host = board({"/etc/nv_tegra_release": release}, uname_release(uname))
    facts = MachineFacts.from_detection(Detection(detect_system(host), detection_from_smi_text(
        text("orin_nano_jp62_nvidia_smi.txt")).nvidia), "3.6")
    rec = recommend(facts, Wishes(torch="2.4"))
    never_touches_the_driver(rec)
    assert rec.best is None
    kinds = [a.kind for a in rec.advice]
    assert "jetson_wheels" in kinds and "colab" in kinds
    assert "1.10.0" in next(a for a in rec.advice if a.kind == "jetson_wheels").text("en")


def test_the_data_cites_a_source_for_every_fact():
    doc = load_json("jetson.json")
    sources = doc["sources"]
    assert all("https://" in s for s in sources.values())
    cited = [k for part in (doc["detection"], doc["jetpack"], doc["driver"], doc["server_arm"]) for k in part["source"]]
    cited += [k for w in doc["wheels"] for k in w["source"]]
    assert cited and set(cited) <= set(sources)


def test_doctor_on_a_jetson_never_says_reinstall_the_driver():
    """The detection of a Jetson Nano (its captured release file, no nvidia-smi, no NVML): the
    driver findings ("reinstall the driver") step aside for the board's own finding."""
    from wizard.core.machine.detect import detect
    from wizard.core.machine.jetson import DRIVER_FIX_FINDINGS

    release, uname = text("nano_r32_7_6.txt").splitlines()
    host = board({"/etc/nv_tegra_release": release + "\n",
                  "/proc/device-tree/model": "NVIDIA Jetson Nano Developer Kit\x00"}, uname_release(uname))
    det = detect(host, pythons=False, conda=False)
    ids = [f.id for f in det.findings]
    assert "jetson-board" in ids and not set(ids) & DRIVER_FIX_FINDINGS, ids
    board_finding = next(f for f in det.findings if f.id == "jetson-board")
    for lang in ("en", "ko"):
        for part in (board_finding.title(lang), board_finding.cause(lang), board_finding.fix(lang)):
            assert part and "{" not in part and not part.startswith("finding."), part
    assert "JetPack 4" in board_finding.cause("en") and "nvidia-driver" in board_finding.fix("ko")


def test_verify_on_a_jetson_never_sends_to_a_desktop_build_or_driver():
    """A CPU-only torch where an NVIDIA GPU is (a recorded run), on the Orin Nano's captured kernel:
    the fix is NVIDIA's JetPack wheels, not download.pytorch.org's +cuXXX build."""
    import json as _json

    from wizard.core.verify.checklist import VerifyReport

    probe = Path(__file__).resolve().parents[1] / "data" / "probe" / "verify_cpu_only_on_gpu_windows.jsonl"

    def run(release: str) -> VerifyReport:
        evs = [_json.loads(line) for line in probe.read_text(encoding="utf-8").splitlines() if line.strip()]
        for e in evs:
            if e.get("type") == "facts" and e.get("section") == "python":
                e["data"].update({"sys_platform": "linux", "system": "Linux", "machine": "aarch64", "release": release})
        return VerifyReport.from_events(evs, python_exe="python3")

    jetson = run(uname_release(text("orin_nano_uname.txt"))).check("cuda.build")
    assert jetson.fix == "jetson_wheels" and jetson.evidence["desktop_fix"] == "install_cuda_build"
    assert "jetson-ai-lab" in jetson.fix_text("en") and "jetson-ai-lab" in jetson.fix_text("ko")
    assert run("6.5.0-35-generic").check("cuda.build").fix == "install_cuda_build"  # an ARM server keeps it
