"""A hostile ``bundle.json`` installs nothing from outside the bundle (red-team finding 1, 13).

Every attack edits the manifest of a valid, hash-checked bundle the way a shared USB stick can
be edited: a direct ``file://`` or ``http://`` requirement, a plain path, a ``--find-links``
option, ``-r FILE``, ``--index-url``, the same inside ``variant_sets``, and manifests of the wrong
shape. Each must be refused before the venv is made, in one line in the student's language,
and the code outside the bundle must never be importable anywhere. Real pip, real venvs, a
real loopback HTTP server for the network case.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_runner import run_cli
from tests.integration.index_server import LoopbackIndex, make_wheel
from wizard.core.install.bundle import MANIFEST, BundleError


def _bundle(root: Path, requirements, **extra) -> tuple[Path, Path]:
    """A valid one-wheel bundle of gsw-x 1.0 (its manifest's requirements replaced), and a wheel
    of gsw-evil outside it."""
    d = root / "USB stick" / "bundle"
    w = make_wheel(d, "gsw-x", "1.0")
    evil = make_wheel(root / "elsewhere", "gsw-evil", "6.6")
    doc = {"schema": "gpu-setup-wizard/bundle@1.0", "requirements": requirements,
           "files": [{"filename": w.name, "sha256": hashlib.sha256(w.read_bytes()).hexdigest(),
                      "size": w.stat().st_size, "name": "gsw-x", "version": "1.0"}], **extra}
    (d / MANIFEST).write_text(json.dumps(doc), encoding="utf-8")
    return d, evil


def _install(bundle: Path, venv: Path, variant: str | None = None):
    from wizard.app.bundle import install_from_bundle
    from wizard.core.base.host import RealHost

    return install_from_bundle(RealHost(), str(bundle), str(venv), sys.executable, variant=variant)


def _refused(bundle: Path, venv: Path, variant: str | None = None) -> BundleError:
    with pytest.raises(BundleError) as info:
        _install(bundle, venv, variant)
    assert not venv.exists(), "the venv was made before the bundle was refused"
    for lang in ("en", "ko"):
        text = info.value.text(lang)
        assert text.strip() and "\n" not in text
    return info.value


ATTACKS = {
    "file-url": lambda evil, served: ["gsw-x==1.0", f"gsw-evil @ {evil.as_uri()}"],
    "plain-path": lambda evil, served: ["gsw-x==1.0", str(evil)],
    "find-links": lambda evil, served: ["gsw-x==1.0", f"--find-links={evil.parent}", "gsw-evil"],
    "http-url": lambda evil, served: ["gsw-x==1.0", f"gsw-evil @ {served}"],
    "requirements-file": lambda evil, served: ["gsw-x==1.0", "-r", str(evil.parent / "reqs.txt")],
    "index-url": lambda evil, served: ["gsw-x==1.0", "--index-url", "http://127.0.0.1:9/simple", "gsw-evil"],
    "not-in-bundle": lambda evil, served: ["gsw-x==1.0", "gsw-evil"],
    "wrong-version": lambda evil, served: ["gsw-x==2.0"],
}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_a_requirement_from_outside_the_bundle_is_refused_before_the_venv(tmp_path, attack):
    with LoopbackIndex() as idx:
        evil_dir = tmp_path / "elsewhere"
        evil = make_wheel(evil_dir, "gsw-evil", "6.6")
        (evil_dir / "reqs.txt").write_text("gsw-evil\n", encoding="utf-8")
        idx.add_wheels([evil])
        bundle, _ = _bundle(tmp_path, ATTACKS[attack](evil, idx.file_url(evil.name)))
        venv = tmp_path / "new env"
        exc = _refused(bundle, venv)
        assert not [e for e in idx.log if e["method"] == "GET"], "the bundle install reached the network"
    assert exc.message.key in ("bundle.bad_requirement", "bundle.requirement_not_listed")


def test_the_same_attacks_inside_variant_sets_are_refused(tmp_path):
    bundle, evil = _bundle(tmp_path, ["gsw-x==1.0"])
    doc = json.loads((bundle / MANIFEST).read_text(encoding="utf-8"))
    files = [doc["files"][0]["filename"]]
    doc["variants"] = ["cpu"]
    doc["variant_sets"] = {"cpu": {"files": files, "requirements": ["gsw-x==1.0", f"gsw-evil @ {evil.as_uri()}"]}}
    (bundle / MANIFEST).write_text(json.dumps(doc), encoding="utf-8")
    _refused(bundle, tmp_path / "v1", variant="cpu")
    doc["variant_sets"] = {"cpu": {"files": files, "requirements": ["gsw-x==1.0", "--no-index", str(evil)]}}
    (bundle / MANIFEST).write_text(json.dumps(doc), encoding="utf-8")
    _refused(bundle, tmp_path / "v2", variant="cpu")


@pytest.mark.parametrize("case", ["variant-set-not-object", "requirements-a-string", "no-files", "no-requirements",
                                  "variant-files-a-string", "file-not-a-wheel", "files-not-objects",
                                  "duplicate-file"])
def test_a_malformed_manifest_is_one_line_before_the_venv(tmp_path, case):
    bundle, _ = _bundle(tmp_path, ["gsw-x==1.0"])
    doc = json.loads((bundle / MANIFEST).read_text(encoding="utf-8"))
    if case == "variant-set-not-object":
        doc["variant_sets"] = {"cpu": "x"}
    elif case == "requirements-a-string":
        doc["requirements"] = "gsw-x"
    elif case == "no-files":
        doc["files"], doc["requirements"] = [], []
    elif case == "no-requirements":
        doc["requirements"] = []
    elif case == "variant-files-a-string":
        doc["variant_sets"] = {"cpu": {"files": doc["files"][0]["filename"], "requirements": ["gsw-x==1.0"]}}
    elif case == "file-not-a-wheel":
        src = bundle / doc["files"][0]["filename"]
        src.rename(bundle / "setup.py")
        doc["files"][0]["filename"] = "setup.py"
    elif case == "files-not-objects":
        doc["files"] = ["gsw_x-1.0-py3-none-any.whl"]
    elif case == "duplicate-file":
        doc["files"] = doc["files"] * 2
    (bundle / MANIFEST).write_text(json.dumps(doc), encoding="utf-8")
    venv = tmp_path / "new env"
    _refused(bundle, venv, variant="cpu" if "variant" in case else None)


def test_the_command_line_refuses_in_one_line_and_makes_nothing(tmp_path):
    bundle, evil = _bundle(tmp_path, ["gsw-x==1.0", f"gsw-evil @ {evil_uri(tmp_path)}"])
    venv = tmp_path / "never"
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_STATE_HOME": str(tmp_path / "state"), "GSW_COMPAT_UPDATE": "0"}
    out = run_cli("install", "--from-bundle", str(bundle), "--venv", str(venv), "--variant", "cpu", lang="ko", env=env)
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert "gsw-evil" in out.stderr and "거부" in out.stderr
    assert not venv.exists()


def evil_uri(root: Path) -> str:
    return (root / "elsewhere" / "gsw_evil-6.6-py3-none-any.whl").as_uri()


def test_a_good_bundle_installs_exactly_its_hash_checked_files(tmp_path):
    """The listed files and their dependencies from the bundle, nothing else; a file changed after
    the check (the stick is still plugged in) is caught by pip's own hash check."""
    d = tmp_path / "b"
    x = make_wheel(d, "gsw-x", "1.0", requires=["gsw-y>=1"])
    y = make_wheel(d, "gsw-y", "1.0")
    files = [{"filename": w.name, "sha256": hashlib.sha256(w.read_bytes()).hexdigest(), "size": w.stat().st_size}
             for w in (x, y)]
    (d / MANIFEST).write_text(json.dumps({"schema": "gpu-setup-wizard/bundle@1.0", "requirements": ["gsw-x==1.0"],
                                          "files": files}), encoding="utf-8")
    from wizard.core.install.bundle import check_bundle, hashed_requirement_lines, offline_install_argv

    lines = hashed_requirement_lines(d, check_bundle(d).files)
    assert len(lines) == 2 and all(" @ file:" in line and "--hash=sha256:" in line for line in lines)
    argv = offline_install_argv(sys.executable, str(tmp_path / "r.txt"))
    assert "--require-hashes" in argv and "--no-index" in argv and "--find-links" not in argv
    venv = tmp_path / "env"
    result = _install(d, venv)
    assert result.ok, result.log
    got = subprocess.run([result.env_python, "-c", "import gsw_x, gsw_y; print('ok')"], capture_output=True, text=True,
                         timeout=60)
    assert got.stdout.strip() == "ok", got.stderr


def test_a_file_changed_after_the_check_is_caught_by_pip(tmp_path):
    from wizard.app.bundle import install_from_bundle
    from wizard.core.base.host import RealHost

    d = tmp_path / "b"
    x = make_wheel(d, "gsw-x", "1.0")
    (d / MANIFEST).write_text(json.dumps({"schema": "gpu-setup-wizard/bundle@1.0", "requirements": ["gsw-x==1.0"],
                                          "files": [{"filename": x.name, "size": x.stat().st_size,
                                                     "sha256": hashlib.sha256(x.read_bytes()).hexdigest()}]}),
                          encoding="utf-8")

    class SwapsTheWheel(RealHost):
        """Replaces the wheel between the wizard's check and pip's install."""

        def run(self, argv, *args, **kwargs):
            if "--require-hashes" in argv:
                make_wheel(tmp_path / "other", "gsw-x", "1.0", files={"gsw_x/__init__.py": "EVIL = 1\n"}).replace(x)
            return super().run(argv, *args, **kwargs)

    result = install_from_bundle(SwapsTheWheel(), str(d), str(tmp_path / "env"), sys.executable)
    assert not result.ok and any("HASH" in line.upper() for line in result.log), result.log
