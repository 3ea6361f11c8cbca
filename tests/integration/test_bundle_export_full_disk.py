"""``--export-bundle`` onto a full disk (red-team finding 19): the copy fails with the disk's own
error, and no half-copied ``*.whl.part`` (nor a manifest) is left in the bundle folder. A real
1 MB tmpfs; mounting one needs root, so elsewhere the test is skipped."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

from tests.integration.index_server import make_wheel
from wizard.core.install.bundle import MANIFEST, export_bundle

pytestmark = pytest.mark.skipif(sys.platform != "linux" or os.geteuid() != 0, reason="mounting a tmpfs needs root")


@pytest.fixture
def small_disk(tmp_path):
    mnt = tmp_path / "small disk"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mnt)], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)


def test_a_full_disk_leaves_no_part_file(tmp_path, small_disk):
    small = make_wheel(tmp_path / "cache", "gsw-small", "1.0")
    big = make_wheel(tmp_path / "cache", "gsw-big", "1.0", payload_bytes=3 * 2**20)
    planned = [(w, SimpleNamespace(filename=w.name, sha256=hashlib.sha256(w.read_bytes()).hexdigest(), name=n,
                                   version="1.0")) for w, n in ((small, "gsw-small"), (big, "gsw-big"))]
    dest = small_disk / "bundle"
    with pytest.raises(OSError) as info:
        export_bundle(dest, planned, ["gsw-small==1.0", "gsw-big==1.0"])
    assert info.value.errno == 28  # ENOSPC: the disk's own reason, which the command line shows
    left = sorted(p.name for p in dest.iterdir())
    assert not [n for n in left if n.endswith(".part")], left
    assert MANIFEST not in left  # a folder without bundle.json is no bundle
