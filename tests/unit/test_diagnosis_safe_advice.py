"""No dangerous advice anywhere: over every real text in tests/data/errors, in both languages,
no finding tells a student to use a Python newer than the one the wizard settles on (one behind the
newest torch's newest Python: the course's other packages lag behind torch; a Python 3.10 user was
once told "create the environment with Python 3.15"), and no text from a Jetson (L4T) board gets a
driver change or a desktop/server CUDA build (the board's driver comes with its OS image).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

from packaging.version import Version

from wizard.core.base.user_input import decode_user_bytes
from wizard.core.diagnosis.board_guard import DESKTOP_ADVICE, UNSAFE_ACTIONS, guard, is_jetson
from wizard.core.diagnosis.context import apply_context, parse_context
from wizard.core.diagnosis.explain import _settled_python, recognise

ERRORS = Path(__file__).resolve().parents[1] / "data" / "errors"
PYTHON = re.compile(r"Python ?(3\.\d{1,2})\b")
DRIVER_CHANGE = re.compile(r"(?i)install (?:the |an? )?(?:latest |newer |current )?(?:NVIDIA )?(?:GPU )?driver\b|"
                           r"nvidia-driver-\d+|apt(?:-get)? install \S*nvidia|update (?:your |the )?(?:NVIDIA )?driver|"
                           r"드라이버를 (?:설치|업데이트)")


NEGATED = re.compile(r"(?i)\b(?:do not|don't|never)\b|하지 마세요|마십시오")


def _advises_a_driver_change(fix: str) -> bool:
    """A line of the fix that tells the student to install or update a driver (a line that says
    not to does not count)."""
    return any(DRIVER_CHANGE.search(line) and not NEGATED.search(line) for line in re.split(r"\n|(?<=\.) ", fix))


def test_the_driver_change_check_tells_advice_from_a_warning():
    assert _advises_a_driver_change("Install the latest NVIDIA driver from nvidia.com.")
    assert _advises_a_driver_change("Run: sudo apt install nvidia-driver-580")
    assert _advises_a_driver_change("NVIDIA 드라이버를 설치하고 다시 시작하세요.")
    assert not _advises_a_driver_change("Do not install an NVIDIA driver from apt: it comes with JetPack.")
    assert not _advises_a_driver_change("NVIDIA 드라이버를 설치하지 마세요.")


def _entries() -> list[dict]:
    return json.loads((ERRORS / "index.json").read_text(encoding="utf-8"))["errors"]


def _text(name: str) -> str:
    return decode_user_bytes((ERRORS / name).read_bytes())


@lru_cache(maxsize=1)
def _safe_python() -> Version:
    """The newest Python the wizard may advise, on any platform it knows."""
    from wizard.core.recommend import compat
    from wizard.core.recommend.inputs import MachineFacts

    kb = compat.load()
    best = Version("3.0")
    for os_name, arch in (("linux", "x86_64"), ("windows", "x86_64"), ("macos", "arm64"), ("linux", "aarch64")):
        platform = MachineFacts(os=os_name, arch=arch, python="3.11").platform
        newest = next((r for r in kb.releases if r.verified and r.pythons_on(platform)), None)
        if newest is not None:
            best = max(best, Version(_settled_python(sorted(newest.pythons_on(platform), key=Version))))
    return best


def test_the_safe_python_is_not_the_newest_torch_supports():
    from wizard.core.recommend import compat
    from wizard.core.recommend.inputs import MachineFacts

    platform = MachineFacts(os="linux", arch="x86_64", python="3.11").platform
    newest = max(Version(p) for r in compat.load().releases for p in r.pythons_on(platform))
    assert _safe_python() < newest


def test_no_finding_advises_a_python_newer_than_the_course_packages_have():
    safe = _safe_python()
    checked = 0
    for e in _entries():
        for f in recognise(_text(e["file"])):
            use = f.params.get("use")
            if use and re.fullmatch(r"3\.\d+", str(use)):
                assert Version(str(use)) <= safe, (e["file"], f.id, use)
            own = str(f.params.get("python") or "")
            for lang in ("en", "ko"):
                for version in PYTHON.findall(f.fix(lang)):
                    if version != own and not own.startswith(version + "."):
                        assert Version(version) <= safe, (e["file"], f.id, lang, f.fix(lang))
                        checked += 1
    assert checked  # the fixes do name Pythons, and every one of them is checked


def test_no_jetson_text_is_told_to_change_its_driver_or_install_a_desktop_cuda_build():
    jetson = [e for e in _entries() if is_jetson(_text(e["file"]))]
    assert len(jetson) >= 4
    for e in jetson:
        for f in recognise(_text(e["file"])):
            assert f.id not in DESKTOP_ADVICE, (e["file"], f.id)
            assert f.action is None or f.action.kind not in UNSAFE_ACTIONS, (e["file"], f.id, f.action.kind)
            for lang in ("en", "ko"):
                assert not _advises_a_driver_change(f.fix(lang)), (e["file"], f.id, lang, f.fix(lang))


def test_the_jetson_finding_says_never_to_change_the_driver():
    (f,) = recognise(_text("b5-jetson-nano-jp46-libcurand.txt"))
    assert f.id == "jetson-torch-mismatch" and f.params["lib"] == "libcurand.so.10" and f.action is None
    assert "nv_tegra_release" in f.fix("en") and "Do not install an NVIDIA driver" in f.fix("en")
    assert "드라이버" in f.fix("ko") and "설치하지 마세요" in f.fix("ko")


def test_on_a_board_the_environment_says_is_a_jetson_a_missing_cuda_library_is_the_jetson_finding():
    """The title alone names no Jetson (a known miss from the text); asked with --python ENV on the
    board, the context script finds /etc/nv_tegra_release and the advice is JetPack's."""
    text = _text("b5-jetson-inference-libcudart-100-title.txt")
    (plain,) = recognise(text)
    assert plain.id == "cuda-libs-not-found" and plain.action is not None
    board = parse_context('GSW-CONTEXT {"executable": "/usr/bin/python3", "python": "3.6.9", "platform": "linux", '
                          '"packages": {"torch": "1.4.0"}, "jetson": true}', "/usr/bin/python3")
    (f,) = apply_context([plain], board)
    assert f.id == "jetson-torch-mismatch" and f.action is None and f.params["lib"] == "libcudart.so.10.0"
    desktop = parse_context('GSW-CONTEXT {"executable": "/usr/bin/python3", "platform": "linux", "packages": {}}',
                            "/usr/bin/python3")
    assert apply_context([plain], desktop)[0].id == "cuda-libs-not-found"


def test_desktop_driver_and_cuda_findings_step_aside_on_a_jetson_board():
    """Real desktop texts (a missing CUDA library with its 'reinstall the CUDA build' action, a
    missing driver), seen on a board: nothing tells it to change the driver or install a desktop
    build; the missing library becomes the Jetson finding."""
    desktop = [f for e in _entries() if e["family"] in ("cuda-libs-not-found", "no-nvidia-driver")
               and not is_jetson(_text(e["file"])) for f in recognise(_text(e["file"]))]
    assert any(f.action is not None and f.action.kind == "reinstall_cuda_build" for f in desktop)
    kept = guard(desktop, "", board=True)
    assert any(f.id == "jetson-torch-mismatch" for f in kept)
    assert all(f.id not in DESKTOP_ADVICE or f.severity == "info" for f in kept)
    assert all(f.action is None or f.action.kind not in UNSAFE_ACTIONS for f in kept)
    for f in kept:
        for lang in ("en", "ko"):
            assert not _advises_a_driver_change(f.fix(lang)), (f.id, lang, f.fix(lang))


OTHER_PROGRAM = re.compile(r"(?i:onnxruntime|ctranslate2|faster[_-]whisper|tensorrt|whisperx|darknet)")


def test_titles_name_the_library_owner():
    """TensorFlow's cuDNN or CUDA libraries are titled TensorFlow's, and a library another program
    (darknet, onnxruntime, ctranslate2) needs is never called PyTorch's."""
    tensorflow = other = 0
    for e in _entries():
        text = _text(e["file"])
        found = recognise(text)
        if e["family"].startswith("tensorflow-") and found:
            tensorflow += 1
            for lang, owner in (("en", "TensorFlow"), ("ko", "TensorFlow")):
                assert owner in found[0].title(lang), (e["file"], found[0].title(lang))
        if OTHER_PROGRAM.search(text):
            other += 1
            for f in found:
                title = f.title("en")
                assert "PyTorch" not in title or "not PyTorch" in title, (e["file"], f.id, title)
    assert tensorflow >= 20 and other >= 2
