"""``gpu-setup-wizard storage`` end to end, on a private home: real pip and uv caches filled from
a local index, real environments in the default folder, a real unfinished install state
whose partial download must survive, and an environment nobody confirmed that must survive.

Everything runs as the student runs it: the CLI in a child process, its stdin not a terminal.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import threading
import venv
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.integration.index_server import make_wheel
from wizard.core.install.environments import find_uv

pytestmark = [pytest.mark.slow, pytest.mark.skipif(os.name == "nt", reason="paths below are POSIX")]

REPO = Path(__file__).resolve().parents[2]


class _CachingIndex:
    """A one-project PEP 503 index on 127.0.0.1 that sends ``Cache-Control: max-age`` with its
    files, as PyPI does: pip keeps such a download in its http cache (the loopback index of the
    install tests sends no cache headers, so pip caches nothing from it)."""

    def __init__(self, wheel: Path) -> None:
        data = wheel.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        page = (f'<html><body><a href="/files/{wheel.name}#sha256={digest}">{wheel.name}</a></body></html>').encode()

        class Handler(BaseHTTPRequestHandler):
            def _reply(self, with_body: bool) -> None:
                body = data if self.path.startswith("/files/") else page
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream" if body is data else "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "max-age=31536000, public")
                self.end_headers()
                if with_body:
                    self.wfile.write(body)

            def do_GET(self) -> None:  # noqa: N802 (http.server's names)
                self._reply(True)

            def do_HEAD(self) -> None:  # noqa: N802 (uv asks HEAD first)
                self._reply(False)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def simple_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/simple/"

    def __enter__(self) -> "_CachingIndex":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture()
def home(student_home):
    """The student's home and the environment of the tools started in it: no PIP_/UV_/HF_/GSW_
    setting of the developer's, so every default the tools and the wizard pick lies inside it."""
    h = student_home
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PIP_", "UV_", "HF_", "XDG_", "GSW_", "HUGGINGFACE"))}
    env.update({"HOME": str(h), "XDG_CACHE_HOME": str(h / ".cache"), "XDG_STATE_HOME": str(h / ".local/state"),
                "XDG_DATA_HOME": str(h / ".local/share"), "XDG_CONFIG_HOME": str(h / ".config"),
                "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PYTHONPATH": str(REPO)})
    return h, env


def _run(argv, env, timeout=300):
    return subprocess.run([str(a) for a in argv], env=env, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def _storage(env, *args):
    res = _run([sys.executable, "-m", "wizard", "storage", *args], env)
    return res


def _entries(doc):
    return {(e["kind"], e["path"]): e for e in doc["entries"]}


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink()) if path.exists() else 0


def test_storage_survey_dry_run_and_a_safe_clean(home, tmp_path):
    h, env = home
    uv = find_uv()
    envs = h / "GPU-Setup-Wizard" / "envs"
    kept_env, removed_env = envs / "kept-env", envs / "removed-env"
    venv.create(removed_env, with_pip=False)
    wheel = make_wheel(tmp_path / "wheels", "gswstoragepkg", "1.0", payload_bytes=300_000)
    with _CachingIndex(wheel) as index:
        # pip's cache: a real download (pip caches plain-http responses only from a trusted host)
        res = _run([sys.executable, "-m", "pip", "download", "--no-deps", "-d", tmp_path / "dl",
                    "--index-url", index.simple_url, "--trusted-host", "127.0.0.1", "gswstoragepkg"], env)
        assert res.returncode == 0, res.stderr
        if uv:
            res = _run([uv, "venv", "--python", sys.executable, kept_env], env)
            assert res.returncode == 0, res.stderr
            res = _run([uv, "pip", "install", "--python", kept_env / "bin" / "python", "--index-url",
                        index.simple_url, "gswstoragepkg"], env)
            assert res.returncode == 0, res.stderr
        else:
            venv.create(kept_env, with_pip=False)
    pip_cache = h / ".cache" / "pip"
    assert _size(pip_cache) > 300_000

    # the wizard's download cache, and an unfinished install whose partial Resume needs
    cache = h / ".cache" / "gpu-setup-wizard" / "downloads"
    sha = hashlib.sha256(b"a wheel still downloading").hexdigest()
    partial = cache / "partial" / f"{sha[:40]}.part"
    partial.parent.mkdir(parents=True)
    partial.write_bytes(b"p" * 123_456)
    stray = cache / "files" / "old-0.1-py3-none-any.whl"
    stray.parent.mkdir(parents=True)
    stray.write_bytes(b"s" * 50_000)
    from wizard.core.install.recovery import EnvState, env_key

    state_dir = h / ".local/state" / "gpu-setup-wizard" / "envs"
    state_dir.mkdir(parents=True)
    resumable = h / "GPU-Setup-Wizard" / "envs" / "half-done"
    state = EnvState(env_path=str(resumable), target={"kind": "new-venv", "path": str(resumable)},
                     created_by_wizard=True, status="failed", failed_step="download",
                     plan={"files": [{"name": "torch", "version": "2.13.0", "filename": "torch-2.13.0-py3-none-any.whl",
                                      "url": "http://127.0.0.1:1/torch.whl", "sha256": sha, "satisfied": False}]})
    (state_dir / f"{env_key(str(resumable))}.json").write_text(json.dumps(state.to_json()), encoding="utf-8")

    # 1. the survey
    res = _storage(env, "--json")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    by = _entries(doc)
    assert ("env", str(kept_env)) in by and ("env", str(removed_env)) in by
    assert ("env", str(resumable)) in by  # known from the install state, not there: size says so
    assert by[("env", str(resumable))]["usage"]["exists"] is False
    pip_entry = by[("pip_cache", str(pip_cache))]
    assert pip_entry["source"] == "tool" and pip_entry["usage"]["bytes"] == _size(pip_cache)
    if uv:
        uv_entry = by[("uv_cache", str(h / ".cache" / "uv"))]
        assert uv_entry["source"] == "tool" and uv_entry["usage"]["bytes"] > 300_000
    assert by[("wizard_cache", str(cache))]["usage"]["bytes"] == 123_456 + 50_000
    assert by[("hf_cache", str(h / ".cache" / "huggingface" / "hub"))]["usage"]["exists"] is False

    # 2. a dry run changes nothing and says what would go
    before = {p: _size(p) for p in (pip_cache, h / ".cache" / "uv", cache, kept_env, removed_env)}
    res = _storage(env, "--dry-run", "--json", "--env", str(removed_env))
    assert res.returncode == 0, res.stderr
    plan = json.loads(res.stdout)["cleanup"]
    assert plan["expected_after"] < plan["before"]
    items = {i["kind"]: i for i in plan["items"]}
    assert items["wizard_cache"]["expected_after"] == 123_456
    assert [k["reason"] for k in items["wizard_cache"]["kept"]] == ["unfinished_install"]
    assert items["env"]["path"] == str(removed_env) and items["env"]["refused"] is None
    assert {p: _size(p) for p in before} == before
    text = _storage(env, "--dry-run", "--lang", "ko").stdout
    assert "미리 보기" in text and "유지" in text and "pip cache purge" in text

    # 3. an environment without a terminal and without --yes: refused, nothing touched
    res = _storage(env, "--clean", "--env", str(removed_env))
    assert res.returncode == 3, (res.stdout, res.stderr)
    assert {p: _size(p) for p in before} == before

    # 4. --clean: the caches only; the partial and both environments survive
    res = _storage(env, "--clean", "--json")
    assert res.returncode == 0, (res.stdout, res.stderr)
    done = {i["kind"]: i for i in json.loads(res.stdout)["cleanup"]["items"]}
    assert done["pip_cache"]["done"] and done["pip_cache"]["after"] < 300_000
    assert partial.stat().st_size == 123_456 and not stray.exists()
    if uv:
        assert done["uv_cache"]["done"] and _size(h / ".cache" / "uv") < 300_000
    assert (kept_env / "pyvenv.cfg").exists() and (removed_env / "pyvenv.cfg").exists()

    # 5. the confirmed environment goes; the other stays
    res = _storage(env, "--clean", "--env", str(removed_env), "--yes")
    assert res.returncode == 0, (res.stdout, res.stderr)
    assert not removed_env.exists() and (kept_env / "pyvenv.cfg").exists()
    assert partial.exists()
    print(_storage(env, "--dry-run").stdout)


def test_env_must_be_an_environment_and_needs_clean(home, tmp_path):
    h, env = home
    docs = tmp_path / "my documents"
    docs.mkdir()
    (docs / "thesis.txt").write_text("keep me", encoding="utf-8")
    res = _storage(env, "--clean", "--env", str(docs), "--yes")
    assert res.returncode == 2 and "thesis" not in res.stderr and (docs / "thesis.txt").exists()
    res = _storage(env, "--env", str(docs))
    assert res.returncode == 2 and "--clean" in res.stderr
