"""scripts/sign-compat, run as the release workflow runs it, with a throwaway key.

The private key never enters the repository: every key here is made for the test. What the
script writes must be what an installed wizard accepts (the same verify and load path), and a
key that is not the shipped one must fail the release instead of publishing a manifest that no
wizard would accept.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.compat_tables import newer_table
from wizard.core.recommend import update
from wizard.core.recommend.inputs import MachineFacts
from wizard.core.recommend.recommender import recommend

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "sign-compat"
WORKFLOW = ROOT / ".github" / "workflows" / "release.yml"
FILE_URL = "https://github.com/example/gsw/releases/download/v9.9.9/compat.json"


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})


@pytest.fixture
def throwaway(tmp_path: Path) -> tuple[Path, Path, bytes]:
    """(seed file, a keys folder holding its public half, the public key)."""
    seed = tmp_path / "secret" / "key.hex"
    seed.parent.mkdir()
    made = run("--new-key", str(seed))
    assert made.returncode == 0, made.stderr
    public = bytes.fromhex(made.stdout.strip())
    keys = tmp_path / "keys"
    keys.mkdir()
    (keys / "throwaway.pub").write_text(public.hex() + "  throwaway test key\n")
    return seed, keys, public


def test_new_key_is_private_to_its_owner(throwaway):
    seed, _keys, public = throwaway
    assert len(bytes.fromhex(seed.read_text().strip())) == 32 and len(public) == 32
    if os.name == "posix":
        assert stat.S_IMODE(seed.stat().st_mode) == 0o600


def test_signed_pair_is_what_an_installed_wizard_uses(throwaway, tmp_path):
    seed, keys, public = throwaway
    table = tmp_path / "compat.json"
    table.write_bytes(newer_table("2099-01-01"))
    out = tmp_path / "release-assets"
    done = run("--table", str(table), "--key-file", str(seed), "--keys", str(keys), "--file-url", FILE_URL,
               "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "expires" in done.stdout
    assert (out / "compat.json").read_bytes() == table.read_bytes()  # byte for byte: the hash is over these
    manifest = update.verify_manifest((out / "compat.manifest.json").read_bytes(), (public,))
    assert manifest.url == FILE_URL and manifest.reviewed_on == "2099-01-01" and manifest.expires > "2026-12-01"
    # as the wizard finds them after a download: the cached pair is used by the recommender
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / update.FILE_NAME).write_bytes((out / "compat.json").read_bytes())
    (cache / update.MANIFEST_NAME).write_bytes((out / "compat.manifest.json").read_bytes())
    cfg = update.UpdateConfig(url="", cache_dir=cache, public_keys=(public,))
    db, source = update.load_active(cfg)
    assert source.kind == "updated" and source.reviewed_on == "2099-01-01"
    rtx4090 = MachineFacts(os="linux", arch="x86_64", python="3.13", driver_version="580.95", cuda_driver="13.0",
                           gpu_ccs=["8.9"], gpu_names=["NVIDIA GeForce RTX 4090"])
    assert recommend(rtx4090, kb=db).best.torch == "2.99.0"


def test_key_from_the_environment_as_the_workflow_passes_it(throwaway, tmp_path):
    seed, keys, _public = throwaway
    out = tmp_path / "out"
    done = run("--key-env", "TEST_SIGNING_KEY", "--keys", str(keys), "--file-url", FILE_URL, "--out", str(out),
               env={"TEST_SIGNING_KEY": seed.read_text().strip()})
    assert done.returncode == 0, done.stderr
    assert json.loads((out / "compat.json").read_bytes())["reviewed_on"]  # the shipped table by default
    empty = run("--key-env", "TEST_SIGNING_KEY", "--keys", str(keys), "--file-url", FILE_URL, "--out",
                str(tmp_path / "none"), env={"TEST_SIGNING_KEY": ""})
    assert empty.returncode != 0 and "TEST_SIGNING_KEY" in empty.stderr and "Traceback" not in empty.stderr
    assert not (tmp_path / "none").exists()


def test_a_key_that_is_not_the_shipped_one_fails_the_release(throwaway, tmp_path):
    seed, _keys, _public = throwaway
    out = tmp_path / "out"
    done = run("--key-file", str(seed), "--file-url", FILE_URL, "--out", str(out))  # the shipped keys folder
    assert done.returncode == 2 and "not the key the wizard ships" in done.stderr and "Traceback" not in done.stderr
    assert not out.exists()


@pytest.mark.parametrize("case", ["bad-table", "http-url", "bad-key"])
def test_refusals_write_nothing(throwaway, tmp_path, case):
    seed, keys, _public = throwaway
    table = tmp_path / "compat.json"
    table.write_bytes(newer_table())
    url = FILE_URL
    if case == "bad-table":
        doc = json.loads(table.read_bytes())
        doc["releases"][0]["variants"] = {"linux-x86_64": ["cu999"]}
        table.write_text(json.dumps(doc))
    elif case == "http-url":
        url = FILE_URL.replace("https", "http")
    else:
        seed.write_text("not hex")
    out = tmp_path / "out"
    done = run("--table", str(table), "--key-file", str(seed), "--keys", str(keys), "--file-url", url, "--out", str(out))
    assert done.returncode == 2 and done.stderr.startswith("sign-compat: ") and "Traceback" not in done.stderr
    assert not out.exists()


def test_stamp_url_writes_the_address(tmp_path):
    target = tmp_path / "update.json"
    target.write_bytes((ROOT / "wizard" / "resources" / "keys" / "update.json").read_bytes())
    url = "https://github.com/example/gsw/releases/latest/download/compat.manifest.json"
    assert run("--stamp-url", url, "--update-json", str(target)).returncode == 0
    assert json.loads(target.read_text())["manifest_url"] == url
    assert run("--stamp-url", "http://example.org/m.json", "--update-json", str(target)).returncode == 2


def test_a_source_checkout_asks_no_one_and_a_release_asks_its_own_repository():
    """A checkout does not know its repository: no invented address (a stranger's server asked
    every day); the release workflow stamps the repository it builds in, and that is active."""
    assert update.shipped_url() == ""
    text = WORKFLOW.read_text(encoding="utf-8")
    stamped = re.search(r"--stamp-url \"(https://github\.com/\$\{\{ github\.repository \}\}/releases/latest/"
                        r"download/compat\.manifest\.json)\"", text)
    assert stamped, "the release must stamp its own repository's manifest address"
    assert update.UpdateConfig(url="https://github.com/o/r/releases/latest/download/compat.manifest.json").active


def test_the_release_workflow_signs_uploads_and_stamps():
    """The workflow's data job runs this script with the secret, and publish uploads both files."""
    text = WORKFLOW.read_text(encoding="utf-8")
    assert "secrets.COMPAT_SIGNING_KEY" in text
    assert "scripts/sign-compat --key-env COMPAT_SIGNING_KEY" in text
    assert "releases/download/${TAG}/compat.json" in text
    assert "artifacts/compat-data/compat.json" in text and "artifacts/compat-data/compat.manifest.json" in text
    assert "--stamp-url \"https://github.com/${{ github.repository }}/releases/latest/download/compat.manifest.json\"" in text
    assert re.search(r"needs: \[build, data\]", text)
