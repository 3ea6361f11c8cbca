"""The offline classroom bundle end to end: loopback index → ``install --export-bundle`` → the
index stopped and every proxy pointed at a closed port → ``install --from-bundle`` into a fresh
venv → ``import torch`` works there; a tampered, an incomplete or a padded bundle is refused
before anything is made. Real processes, real venvs, real pip."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_runner import run_cli
from tests.integration.index_server import LoopbackIndex, free_port, make_wheel
from wizard.core.install.bundle import MANIFEST, check_bundle, platforms_served, read_manifest

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def fake_torch(tmp_path_factory):
    from wizard.core.recommend.inputs import MachineFacts, Wishes
    from wizard.core.recommend.recommender import recommend

    minor = f"{sys.version_info[0]}.{sys.version_info[1]}"
    best = recommend(MachineFacts("linux", "x86_64", minor), Wishes(torch="2.13.0", variant="cpu")).best
    if best is None or sys.platform != "linux":
        pytest.skip("the recommender offers no torch 2.13 CPU build for this Python/OS")
    d = tmp_path_factory.mktemp("fake torch")
    return [make_wheel(d, "torch", f"{best.torch}+cpu", requires=["typing-extensions>=4"]),
            make_wheel(d, "torchvision", f"{best.torchvision}+cpu", requires=[f"torch=={best.torch}"]),
            make_wheel(d, "typing-extensions", "4.12.2", files={"typing_extensions.py": "X = 1\n"}),
            make_wheel(d, "gsw-course-extra", "1.0")]


def in_root(root: Path) -> dict[str, str]:
    """The wizard's cache and install state inside ``root``, the built-in compatibility table."""
    return {"XDG_CACHE_HOME": str(root / "xdg cache"), "XDG_STATE_HOME": str(root / "xdg state"),
            "GSW_COMPAT_UPDATE": "0"}


def test_bundle_round_trip_with_the_network_off(fake_torch, tmp_path):
    root = tmp_path / "김 학생"
    root.mkdir()
    course = root / "course.toml"
    course.write_text('schema = "gpu-setup-wizard/course@1.0"\n[course]\nname = "Lab"\npackages = ["gsw-course-extra"]\n',
                      encoding="utf-8")
    bundle = root / "USB stick" / "bundle"
    with LoopbackIndex() as idx:
        idx.add_wheels(fake_torch)
        out = run_cli("install", "--venv", str(root / "first env"), "--python", sys.executable, "--torch", "2.13.0",
                      "--variant", "cpu", "--index-url", idx.base + "/whl", "--course", str(course),
                      "--export-bundle", str(bundle), "--json", env=in_root(root))
        assert out.returncode == 0, out.stderr
        assert "Bundle written" in out.stderr and "serves platforms: any" in out.stderr
    manifest = read_manifest(bundle)
    assert {f.name for f in manifest.files} == {"torch", "torchvision", "typing-extensions", "gsw-course-extra"}
    assert all(len(f.sha256) == 64 and f.size > 0 for f in manifest.files)
    assert platforms_served(manifest) == []  # the stand-ins are pure Python: any machine
    # the network is off: the index is gone and every proxy is a closed port
    dead = f"http://127.0.0.1:{free_port()}"
    off = {"HTTP_PROXY": dead, "HTTPS_PROXY": dead, "http_proxy": dead, "https_proxy": dead, "ALL_PROXY": dead,
           "PIP_INDEX_URL": dead + "/simple", "NO_PROXY": ""}
    fresh = root / "fresh env"
    done = run_cli("install", "--from-bundle", str(bundle), "--venv", str(fresh), "--json",
                   env={**in_root(root), **off})
    assert done.returncode == 0, done.stderr
    py = json.loads(done.stdout)["env_python"]
    imported = subprocess.run([py, "-c", "import torch, torchvision, gsw_course_extra; print(torch.__version__)"],
                              capture_output=True, text=True, timeout=60)
    assert imported.returncode == 0 and imported.stdout.strip().startswith("2.13"), imported.stderr
    assert "match their sha256" in done.stderr

    # a tampered wheel: refused before any venv is made
    wheel = next(bundle.glob("torch-*.whl"))
    data = bytearray(wheel.read_bytes())
    data[len(data) // 2] ^= 0xFF
    wheel.write_bytes(bytes(data))
    refused = run_cli("install", "--from-bundle", str(bundle), "--venv", str(root / "never"),
                      env={**in_root(root), **off})
    assert refused.returncode == 2 and "does not match its sha256" in refused.stderr and wheel.name in refused.stderr
    assert not (root / "never").exists() and "Traceback" not in refused.stderr


def test_incomplete_padded_and_foreign_bundles_are_refused(tmp_path):
    d = tmp_path / "b"
    d.mkdir()
    w = make_wheel(d, "gsw-x", "1.0")
    import hashlib

    doc = {"schema": "gpu-setup-wizard/bundle@1.0", "requirements": ["gsw-x==1.0"],
           "files": [{"filename": w.name, "sha256": hashlib.sha256(w.read_bytes()).hexdigest(),
                      "size": w.stat().st_size}]}
    (d / MANIFEST).write_text(json.dumps(doc), encoding="utf-8")
    assert check_bundle(d).files[0].filename == w.name
    make_wheel(d, "gsw-sneaky", "1.0")
    with pytest.raises(ValueError) as info:
        check_bundle(d)
    assert info.value.message.key == "bundle.extra_file"
    next(d.glob("gsw_sneaky*.whl")).unlink()
    w.unlink()
    with pytest.raises(ValueError) as info:
        check_bundle(d)
    assert info.value.message.key == "bundle.missing"
    doc["files"][0]["filename"] = "../escape.whl"
    (d / MANIFEST).write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ValueError) as info:
        check_bundle(d)
    assert info.value.message.key == "bundle.bad_manifest"
    (d / MANIFEST).write_text('{"schema": "gpu-setup-wizard/report@1.0"}', encoding="utf-8")
    with pytest.raises(ValueError) as info:
        check_bundle(d)
    assert "bundle.json" in info.value.text("ko") and info.value.message.key == "bundle.bad_manifest"


def test_a_bundle_for_another_platform_is_refused_before_a_venv_is_made(tmp_path):
    import hashlib

    d = tmp_path / "mac bundle"
    d.mkdir()
    w = make_wheel(d, "gsw-x", "1.0")
    foreign = d / "gsw_x-1.0-cp39-cp39-macosx_11_0_arm64.whl"  # a wheel for another machine
    w.rename(foreign)
    doc = {"schema": "gpu-setup-wizard/bundle@1.0", "requirements": ["gsw-x==1.0"],
           "files": [{"filename": foreign.name, "sha256": hashlib.sha256(foreign.read_bytes()).hexdigest(),
                      "size": foreign.stat().st_size}]}
    (d / MANIFEST).write_text(json.dumps(doc), encoding="utf-8")
    out = run_cli("install", "--from-bundle", str(d), "--venv", str(tmp_path / "never"), "--lang", "ko",
                  env=in_root(tmp_path))
    assert out.returncode == 2 and "이 컴퓨터용이 아닙니다" in out.stderr and foreign.name in out.stderr
    assert not (tmp_path / "never").exists()
