"""A bundle of several builds (``--variants cpu,cu126``): the loopback index serves different
stand-in wheels under ``/whl/cpu`` and ``/whl/cu126``; the export carries both sets with their
hashes and a per-variant list; the offline install picks the build this machine runs (CPU here,
without an NVIDIA GPU) or the one ``--variant`` names. Real processes, real venvs, real pip."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_runner import run_cli
from tests.integration.index_server import LoopbackIndex, free_port, make_wheel
from wizard.core.install.bundle import check_bundle, read_manifest
from wizard.core.install.cache import sha256_file

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def in_root(root: Path) -> dict[str, str]:
    """The wizard's cache and install state inside ``root``, the built-in compatibility table."""
    return {"XDG_CACHE_HOME": str(root / "xdg cache"), "XDG_STATE_HOME": str(root / "xdg state"),
            "GSW_COMPAT_UPDATE": "0"}


def _installed(py: str, project: str) -> str:
    out = subprocess.run([py, "-c", f"import importlib.metadata as m; print(m.version({project!r}))"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_a_bundle_of_two_builds_carries_both_and_installs_the_right_one_offline(tmp_path):
    from wizard.core.recommend.inputs import MachineFacts, Wishes
    from wizard.core.recommend.recommender import recommend

    minor = f"{sys.version_info[0]}.{sys.version_info[1]}"
    best = recommend(MachineFacts("linux", "x86_64", minor), Wishes(torch="2.13.0", variant="cpu")).best
    if best is None or sys.platform != "linux":
        pytest.skip("the recommender offers no torch 2.13 CPU build for this Python/OS")
    root = tmp_path / "김 학생"
    wheels = {v: root / "wheels" / v for v in ("cpu", "cu126", "shared")}
    for d in wheels.values():
        d.mkdir(parents=True)
    builds = {v: [make_wheel(wheels[v], "torch", f"{best.torch}+{v}", requires=["typing-extensions>=4"]),
                  make_wheel(wheels[v], "torchvision", f"{best.torchvision}+{v}", requires=[f"torch=={best.torch}"])]
              for v in ("cpu", "cu126")}
    shared = make_wheel(wheels["shared"], "typing-extensions", "4.12.2", files={"typing_extensions.py": "X = 1\n"})
    bundle = root / "USB stick" / "bundle"
    with LoopbackIndex() as idx:
        idx.add_wheel(shared)
        for v, files in builds.items():
            idx.add_wheels(files, folder=v)
        out = run_cli("install", "--venv", str(root / "first env"), "--python", sys.executable, "--torch", "2.13.0",
                      "--variant", "cpu", "--index-url", idx.base + "/whl/cpu", "--variants", "cpu,cu126",
                      "--export-bundle", str(bundle), "--json", env=in_root(root))
        assert out.returncode == 0, out.stderr[-3000:]
        # the cu126 wheels came from their own folder, not the one the install used
        cu_gets = [e["path"] for e in idx.log if e["file"] and "cu126" in e["file"]]
        assert cu_gets and all(p.startswith("/files/") for p in cu_gets)
    manifest = check_bundle(bundle)
    on_disk = {f.filename: f.sha256 for f in manifest.files}
    for v, files in builds.items():
        assert sorted(manifest.variant_sets[v]["files"]) == sorted(p.name for p in files)
        for p in files:
            assert on_disk[p.name] == sha256_file(p)  # the index's wheel, hash-checked into the bundle
        assert f"torch=={best.torch}+{v}" in manifest.variant_sets[v]["requirements"]
    assert shared.name in on_disk and manifest.variant_dependencies == "shared"
    assert read_manifest(bundle).variants == ["cpu", "cu126"]

    dead = f"http://127.0.0.1:{free_port()}"
    off = {"HTTP_PROXY": dead, "HTTPS_PROXY": dead, "http_proxy": dead, "https_proxy": dead, "ALL_PROXY": dead,
           "PIP_INDEX_URL": dead + "/simple", "NO_PROXY": ""}
    # this machine has no NVIDIA GPU: the CPU build
    done = run_cli("install", "--from-bundle", str(bundle), "--venv", str(root / "cpu env"), "--json",
                   env={**in_root(root), **off})
    assert done.returncode == 0, done.stderr[-3000:]
    doc = json.loads(done.stdout)
    assert doc["variant"] == "cpu" and "Build for this machine: cpu" in done.stderr
    assert _installed(doc["env_python"], "torch") == f"{best.torch}+cpu"
    # asked for by name: the CUDA build's wheels, offline too
    done = run_cli("install", "--from-bundle", str(bundle), "--venv", str(root / "cuda env"), "--variant", "cu126",
                   "--json", env={**in_root(root), **off})
    assert done.returncode == 0, done.stderr[-3000:]
    doc = json.loads(done.stdout)
    assert _installed(doc["env_python"], "torch") == f"{best.torch}+cu126"
    assert _installed(doc["env_python"], "torchvision") == f"{best.torchvision}+cu126"
    # a build the bundle does not have: a plain message, nothing made
    refused = run_cli("install", "--from-bundle", str(bundle), "--venv", str(root / "never"), "--variant", "cu128",
                      env={**in_root(root), **off})
    assert refused.returncode == 2 and "no cu128 build" in refused.stderr and "Traceback" not in refused.stderr
    assert not (root / "never").exists()
