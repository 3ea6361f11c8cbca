"""Verify imports the torch family: every torchvision/torchaudio in the environment is imported
and runs one small op (``torchvision.ops.nms`` on two boxes, a torchaudio Spectrogram), and one
built for another torch fails with a clear check (cause: mismatched builds; fix: reinstall both
from the same index) -- the report's "PyTorch" line fails with it.

The probe is the real one, run by a real CPU torch (tests/torch_env.py). The family packages:

* absent: the torch env as built (no torchvision, no torchaudio);
* present and working: small stand-in packages on PYTHONPATH that do the ops with torch itself
  (no torchvision/torchaudio build for this torch is on this machine's disk);
* broken, as a student meets it: PyPI's torchvision 0.28.0 (built for PyPI's CUDA torch) next
  to the CPU torch 2.13.0+cpu -- ``import torchvision`` raises ``RuntimeError: operator
  torchvision::nms does not exist`` (installed with ``pip --target``; skipped where PyPI cannot
  be reached);
* broken, stand-in: a ``torchvision`` whose import raises that same RuntimeError text, and a
  ``torchaudio`` whose transform gives a wrong shape.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.torch_env import TORCH_SPEC  # noqa: F401  (torch_python is a shared fixture)
from wizard.core.report.document import FAIL
from wizard.core.verify.checklist import VerifyReport
from wizard.core.verify.probe_runner import run_probe

pytestmark = pytest.mark.slow

WORKING_TORCHVISION = '''
__version__ = "0.28.0+stand-in"
from . import ops
'''
WORKING_TORCHVISION_OPS = '''
import torch


def nms(boxes, scores, iou_threshold):
    order = scores.argsort(descending=True).tolist()
    keep = []
    while order:
        i = order.pop(0)
        keep.append(i)
        rest = []
        for j in order:
            x1 = torch.maximum(boxes[i, 0], boxes[j, 0]); y1 = torch.maximum(boxes[i, 1], boxes[j, 1])
            x2 = torch.minimum(boxes[i, 2], boxes[j, 2]); y2 = torch.minimum(boxes[i, 3], boxes[j, 3])
            inter = (x2 - x1).clamp(min=0) * (y2 - y1).clamp(min=0)
            area = lambda b: (b[2] - b[0]) * (b[3] - b[1])
            if float(inter / (area(boxes[i]) + area(boxes[j]) - inter)) <= iou_threshold:
                rest.append(j)
        order = rest
    return torch.tensor(keep, dtype=torch.int64)
'''
WORKING_TORCHAUDIO = '''
__version__ = "2.13.0+stand-in"
from . import transforms
'''
WORKING_TORCHAUDIO_TRANSFORMS = '''
import torch


class Spectrogram(torch.nn.Module):
    def __init__(self, n_fft=400):
        super().__init__()
        self.n_fft = n_fft

    def forward(self, wave):
        window = torch.hann_window(self.n_fft)
        spec = torch.stft(wave, self.n_fft, hop_length=self.n_fft // 2, window=window, return_complex=True)
        return spec.abs() ** 2
'''
# the text torchvision's import gives next to a torch it was not built for (public issue threads)
MISMATCHED_TORCHVISION = '''
__version__ = "0.28.0"
raise RuntimeError("operator torchvision::nms does not exist")
'''
WRONG_TORCHAUDIO_TRANSFORMS = '''
import torch


class Spectrogram(torch.nn.Module):
    def __init__(self, n_fft=400):
        super().__init__()

    def forward(self, wave):
        return torch.zeros(1, 2, 3)
'''


def _package(root: Path, name: str, files: dict[str, str], version: str | None = None) -> None:
    """A package folder; with ``version`` also its dist-info, as pip leaves one."""
    pkg = root / name
    pkg.mkdir(parents=True)
    for rel, text in files.items():
        (pkg / rel).write_text(text, encoding="utf-8")
    if version:
        info = root / f"{name}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8")


def verify(python: Path, path: Path | None = None) -> VerifyReport:
    """The real verify probe in ``python`` (``path`` on its PYTHONPATH), as the wizard reads it."""
    env = {"PYTHONPATH": str(path)} if path is not None else None
    outcome = run_probe(python, "verify.py", ["--skip", "collect_env,tensorflow"], timeout=300, env=env)
    assert outcome.completed, outcome.stderr_tail[-2000:]
    return VerifyReport.from_outcome(outcome, None, str(python))


def test_absent_family_packages_are_skipped_not_failed(torch_python):
    report = verify(torch_python)
    for name in ("torchvision", "torchaudio"):
        check = report.check(name)
        assert check is not None and check.status == "skip"
        assert check.detail_text("en") == f"{name} is not installed in this environment"
        assert check.detail_text("ko") == f"이 환경에는 {name}이(가) 설치되어 있지 않습니다"
    assert report.ok


def test_working_family_packages_are_imported_and_run_one_op(torch_python, tmp_path):
    _package(tmp_path, "torchvision", {"__init__.py": WORKING_TORCHVISION, "ops.py": WORKING_TORCHVISION_OPS})
    _package(tmp_path, "torchaudio", {"__init__.py": WORKING_TORCHAUDIO,
                                      "transforms.py": WORKING_TORCHAUDIO_TRANSFORMS})
    report = verify(torch_python, tmp_path)
    vision, audio = report.check("torchvision"), report.check("torchaudio")
    assert vision.status == "pass" and audio.status == "pass", (vision.evidence, audio.evidence)
    assert vision.detail_text("en") == "torchvision 0.28.0+stand-in: imported, torchvision.ops.nms works"
    assert audio.detail_text("ko") == "torchaudio 2.13.0+stand-in: 불러오기 성공, torchaudio.transforms.Spectrogram 동작"
    assert report.ok


def _assert_mismatch(report: VerifyReport, version: str) -> None:
    check = report.check("torchvision")
    assert check.status == "fail" and check.cause == "family_mismatch" and check.fix == "family_reinstall"
    torch_version = report.versions["torch"]
    assert check.detail_text("en") == (f"`import torchvision` ({version}, next to torch {torch_version}) failed: "
                                       "RuntimeError: operator torchvision::nms does not exist")
    assert check.cause_text("en").startswith("This package was built for another torch than the one in this")
    assert "다른 torch 빌드용" in check.cause_text("ko")
    assert "같은 인덱스" in check.fix_text("ko") and "same index" in check.fix_text("en")
    assert not report.ok
    # the report's checklist: the PyTorch line fails with the cause and the fix
    from wizard.core.report.build import build_report
    from wizard.core.report.inputs import ReportInputs

    for lang in ("ko", "en"):
        doc = build_report(ReportInputs(started_at="2026-12-01T10:00:00+09:00", lang=lang, verify=report),
                           include_private=True)
        line = doc.item("verify_checklist", "pytorch")
        assert line.status == FAIL and "torchvision::nms" in line.value
        assert any("torchvision" in d for d in line.details)


def test_a_torchvision_built_for_another_torch_fails_with_cause_and_fix(torch_python, tmp_path):
    _package(tmp_path, "torchvision", {"__init__.py": MISMATCHED_TORCHVISION}, version="0.28.0")
    _package(tmp_path, "torchaudio", {"__init__.py": WORKING_TORCHAUDIO, "transforms.py": WRONG_TORCHAUDIO_TRANSFORMS})
    report = verify(torch_python, tmp_path)
    _assert_mismatch(report, "0.28.0")
    audio = report.check("torchaudio")
    assert audio.status == "fail" and audio.cause == "family_broken"
    assert "torchaudio.transforms.Spectrogram" in audio.detail_text("en")


def test_pypis_torchvision_beside_a_cpu_torch_is_caught(torch_python, tmp_path):
    """The issue's own case, with the real packages: PyPI's torchvision 0.28.0 next to torch
    2.13.0+cpu. ``pip --target`` keeps the shared torch env as it is."""
    target = tmp_path / "pypi torchvision"
    res = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-compile", "-q",
                          "--disable-pip-version-check", "--target", str(target), "torchvision==0.28.0"],
                         capture_output=True, text=True, timeout=600)
    if res.returncode != 0:
        pytest.skip(f"torchvision 0.28.0 could not be fetched here: {res.stderr[-400:]}")
    report = verify(torch_python, target)
    _assert_mismatch(report, "0.28.0")
