"""Resume after ENOSPC inside pip: the disk pre-flight counts what the resume overwrites (issue 15 item 11).

pip unpacks a wheel straight into site-packages; when the disk fills half-way, a half-written ``torch/``
stays behind. Resuming installs torch again over it, so those bytes are not needed twice; before the
fix the pre-flight asked for the whole unpacked size on top of them and refused the resume on a disk
that had room for it. A real venv (``python -m venv``), a real half-unpacked package folder, the real
pre-flight; only the volume's free space is fixed by the host, so the verdict does not depend on this
machine's disk.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from wizard.core.base.host import RealHost
from wizard.core.install.environments import existing_python, existing_venv, new_venv
from wizard.core.install.preflight import SPACE_MARGIN_BYTES, preflight, replaced_bytes

pytestmark = pytest.mark.slow  # builds a venv (python -m venv, without pip: quick, but a venv all the same)

MB = 1000 * 1000
PARTIAL = 48 * MB  # what pip had unpacked of torch when the disk filled


class _FixedFreeSpace(RealHost):
    """This machine, with a volume of a given free space (what the disk looked like after ENOSPC)."""

    def __init__(self, free: int) -> None:
        super().__init__()
        self.free = free

    def disk_free(self, path):
        return self.free, 10 * self.free


@pytest.fixture
def half_installed_venv(tmp_path) -> Path:
    env = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True, timeout=120)
    site = next(env.glob("lib/python3*/site-packages")) if os.name != "nt" else env / "Lib" / "site-packages"
    torch = site / "torch" / "lib"
    torch.mkdir(parents=True)
    for i in range(4):  # real bytes, as pip wrote them (not a sparse file)
        (torch / f"libtorch_part{i}.so").write_bytes(os.urandom(PARTIAL // 4))
    (site / "torch-2.13.0.dist-info").mkdir()
    (site / "torch-2.13.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: torch\n")
    (site / "numpy").mkdir()  # another package, complete, not reinstalled: it keeps its space
    (site / "numpy" / "core.so").write_bytes(os.urandom(2 * MB))
    return env


def test_the_half_unpacked_package_counts_as_free_space(half_installed_venv):
    target = existing_venv(str(half_installed_venv))
    unpacked = 700 * MB  # torch 2.13.0 + torchvision unpacked
    # The disk has the room for the resume only if the half-written torch is written over, not beside.
    host = _FixedFreeSpace(unpacked + SPACE_MARGIN_BYTES - PARTIAL // 2)
    before = preflight(target, host, unpacked_bytes=unpacked)
    assert before.get("disk-space").blocks  # what the resume met before the fix
    after = preflight(target, host, unpacked_bytes=unpacked, replacing=["torch", "torchvision"])
    assert not after.get("disk-space").blocks, after.get("disk-space").text("en")
    note = after.get("space-replaced")
    assert note is not None and "48" in note.text("en") and note.text("ko")


def test_only_the_packages_being_installed_are_counted(half_installed_venv):
    target = existing_venv(str(half_installed_venv))
    torch_only = replaced_bytes(target, ["torch"])
    assert PARTIAL <= torch_only < PARTIAL + MB  # torch/ and its dist-info, not numpy
    assert replaced_bytes(target, ["torchvision"]) == 0
    assert replaced_bytes(target, ["NumPy"]) >= 2 * MB  # names are compared as wheels spell them
    assert replaced_bytes(target, []) == 0


def test_a_resume_into_the_wizards_own_new_venv_counts_it_too(half_installed_venv):
    # The wizard resumes its own environment as a new venv (the folder is ours, half made).
    target = new_venv(str(half_installed_venv), sys.executable)
    assert replaced_bytes(target, ["torch"]) >= PARTIAL


def test_nothing_is_counted_for_a_bare_interpreter_or_a_missing_folder(tmp_path):
    assert replaced_bytes(existing_python(sys.executable), ["torch"]) == 0
    assert replaced_bytes(existing_venv(str(tmp_path / "nowhere")), ["torch"]) == 0
