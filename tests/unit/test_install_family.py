"""The plan's own checks that need no index: one build for the torch family, uv's lock file read
right, and what a cancel would do at each step (the sentence the window shows before it asks)."""

from __future__ import annotations

import pytest

from wizard.core.install.control import (
    AFTER_NOTHING,
    AFTER_PARTIAL,
    AFTER_UNVERIFIED,
    PHASE_DOWNLOAD,
    PHASE_IDLE,
    PHASE_INSTALL,
    PHASE_PREPARING,
)
from wizard.core.install.environments import new_venv
from wizard.core.install.family import family_problem, index_origin
from wizard.core.install.job import InstallOptions
from wizard.core.install.plan import PlanError, PlannedFile
from wizard.core.install.recovery import EnvState
from wizard.core.install.runner import InstallJob
from wizard.core.install.uv_plan import classify_uv_failure, parse_pylock, uv_child_env, uv_resolve_argv

CPU = "https://download.pytorch.org/whl/cpu"
PYPI_FILES = "https://files.pythonhosted.org/packages/ab/cd"


def wheel(name: str, version: str, base: str, tag: str = "cp311-cp311-manylinux_2_28_x86_64") -> PlannedFile:
    filename = f"{name}-{version}-{tag}.whl"
    return PlannedFile(name, version, filename, f"{base}/{filename}", "0" * 64)


def test_a_matching_family_from_one_index_passes():
    files = [wheel("torch", "2.13.0+cpu", CPU), wheel("torchvision", "0.28.0+cpu", CPU),
             wheel("numpy", "2.4.6", PYPI_FILES)]  # dependencies may come from anywhere
    assert family_problem(files) is None
    # a pure-Python companion may carry no build label
    assert family_problem([wheel("torch", "2.13.0+cpu", CPU),
                           wheel("torchvision", "0.28.0", CPU, "py3-none-any")]) is None


def test_pypi_torchvision_next_to_a_cpu_torch_is_refused_in_both_languages():
    err = family_problem([wheel("torch", "2.13.0+cpu", CPU), wheel("torchvision", "0.28.0", PYPI_FILES)])
    assert isinstance(err, PlanError) and err.kind == "family-mismatch"
    assert "files.pythonhosted.org" in err.message.text("en") and "download.pytorch.org/whl/cpu" in err.detail
    assert "인덱스" in err.message.text("ko") and "torchvision" in err.message.text("ko")


def test_another_variant_folder_or_build_label_is_refused():
    cu = "https://download.pytorch.org/whl/cu126"
    assert family_problem([wheel("torch", "2.13.0+cpu", CPU), wheel("torchvision", "0.28.0+cu126", cu)]).kind \
        == "family-mismatch"
    # one mirror serving both builds: the labels tell them apart
    mirror = "http://127.0.0.1:9/files"
    err = family_problem([wheel("torch", "2.13.0+cpu", mirror), wheel("torchvision", "0.28.0+cu126", mirror)])
    assert err is not None and "0.28.0+cu126" in err.message.text("en")
    # PyPI's compiled torchvision (no label) from the same mirror as a CPU torch: the nms failure
    assert family_problem([wheel("torch", "2.13.0+cpu", mirror), wheel("torchvision", "0.28.0", mirror)]) is not None


def test_a_torchvision_of_another_release_is_refused():
    err = family_problem([wheel("torch", "2.13.0+cpu", CPU), wheel("torchvision", "0.27.0+cpu", CPU)])
    assert err is not None and "0.28.0" in err.message.text("en") and "0.27.0+cpu" in err.message.text("ko")


def test_index_origin_knows_the_variant_folder():
    assert index_origin(f"{CPU}/torch-2.13.0%2Bcpu-cp311.whl") == "download.pytorch.org/whl/cpu"
    assert index_origin("http://127.0.0.1:8080/files/x.whl") == "127.0.0.1:8080"


PYLOCK = '''lock-version = "1.0"
created-by = "uv"
requires-python = ">=3.11"

[[packages]]
name = "Typing_Extensions"
version = "4.16.0"
wheels = [{ url = "http://127.0.0.1:1/files/typing_extensions-4.16.0-py3-none-any.whl", hashes = { sha256 = "AB12" } }]

[[packages]]
name = "torch"
version = "2.13.0+cpu"
wheels = [{ url = "http://127.0.0.1:1/files/torch-2.13.0%2Bcpu-cp311-cp311-manylinux_2_28_x86_64.whl", size = 191794682, hashes = { sha256 = "cd34" } }]
'''


def test_uvs_lock_file_becomes_the_plan():
    files = parse_pylock(PYLOCK, ["torch==2.13.0"])
    assert [(f.name, f.version, f.requested) for f in files] == [("typing-extensions", "4.16.0", False),
                                                                 ("torch", "2.13.0+cpu", True)]
    torch = files[1]
    assert torch.filename == "torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl"
    assert torch.size == 191794682 and torch.sha256 == "cd34" and files[0].sha256 == "ab12"
    assert files[0].size is None  # an HTML index gives no size: the plan step asks (or the cache knows)


def test_a_lock_file_without_wheels_is_a_bad_report():
    with pytest.raises(PlanError) as info:
        parse_pylock('lock-version = "1.0"\n[[packages]]\nname = "x"\nversion = "1"\nsdist = { url = "u" }\n', [])
    assert info.value.kind == "bad-report"
    with pytest.raises(PlanError):
        parse_pylock("not toml = = =", [])


def test_uv_runs_are_isolated_and_keep_the_network_settings():
    env = uv_child_env({"UV_INDEX_URL": "https://elsewhere/simple", "UV_EXTRA_INDEX_URL": "x", "PIP_CERT": "/ca.pem",
                        "HTTPS_PROXY": "http://proxy:3128", "PATH": "/usr/bin"}, "/cache dir")
    assert "UV_INDEX_URL" not in env and "UV_EXTRA_INDEX_URL" not in env
    assert env["SSL_CERT_FILE"] == "/ca.pem" and env["HTTPS_PROXY"] == "http://proxy:3128"
    assert env["UV_CACHE_DIR"] == "/cache dir"
    argv = uv_resolve_argv("uv", "/env/bin/python", ["torch==2.13.0"], CPU, "/w/pylock.toml",
                           environ={"PIP_TRUSTED_HOST": "mirror.local"})
    assert argv[:3] == ["uv", "pip", "compile"] and "--no-config" in argv
    assert argv[argv.index("--index-url") + 1] == CPU and argv[argv.index("--python") + 1] == "/env/bin/python"
    assert argv[argv.index("--allow-insecure-host") + 1] == "mirror.local" and argv[-1] == "/w/requirements.in"


def test_uv_failures_are_classified():
    no_version = ("  × No solution found when resolving dependencies:\n"
                  "  ╰─▶ Because there is no version of torch==9.9 and you require torch==9.9, we can conclude ...\n")
    assert classify_uv_failure(no_version, CPU).kind == "no-version"
    offline = ("error: Request failed after 3 retries\n  Caused by: Failed to fetch: `http://127.0.0.1:9/simple/torch/`\n"
               "  Caused by: error sending request for url\n  Caused by: tcp connect error: Connection refused\n")
    err = classify_uv_failure(offline, "http://127.0.0.1:9/simple")
    assert err.kind == "network" and err.host == "127.0.0.1" and "127.0.0.1" in err.message.text("ko")


def test_a_404_after_a_retry_is_a_missing_file_even_with_the_url_wrapped():
    """uv's words when its first request failed and the retry was answered 404 (seen in a loaded
    test run): the chain wraps, so the URL is on the line after "for url"."""
    wrapped = ("error: Request failed after 1 retry in 1.9s\n"
               "  cause: Failed to fetch:\n"
               "         http://127.0.0.1:41275/files/gsw_gone-1.0-py3-none-any.whl\n"
               "  cause: HTTP status client error (404 Not Found) for url\n"
               "         (http://127.0.0.1:41275/files/gsw_gone-1.0-py3-none-any.whl)\n")
    err = classify_uv_failure(wrapped, "http://127.0.0.1:41275/simple")
    assert err.kind == "missing-file" and err.host == "127.0.0.1"
    assert "gsw_gone-1.0-py3-none-any.whl" in err.message.text("en") and "404" in err.message.text("en")


def _job(tmp_path) -> InstallJob:
    target = new_venv(str(tmp_path / "env"), "python3")
    return InstallJob(target, InstallOptions(["torch==2.13.0"], state_dir=str(tmp_path / "s"),
                                             cache_dir=str(tmp_path / "c")))


@pytest.mark.parametrize("step, done, phase, waits, after", [
    ("resolve", [], PHASE_PREPARING, False, AFTER_NOTHING),
    ("create", [], PHASE_PREPARING, True, AFTER_NOTHING),
    ("download", ["plan"], PHASE_DOWNLOAD, False, AFTER_PARTIAL),
    ("install", ["download"], PHASE_INSTALL, True, AFTER_UNVERIFIED),
    ("verify", ["install"], "verify", False, AFTER_UNVERIFIED),
])
def test_what_a_cancel_does_at_each_step(tmp_path, step, done, phase, waits, after):
    job = _job(tmp_path)
    assert job.cancel_outlook().phase == PHASE_IDLE and not job.cancel_outlook().running
    job.running, job.current_step = True, step
    job.state = EnvState(str(tmp_path / "env"), {}, steps_done=list(done))
    out = job.cancel_outlook()
    assert (out.running, out.step_id, out.phase, out.waits, out.after) == (True, step, phase, waits, after)
    assert out.text("en") != out.text("ko") and out.text("ko")  # said in both languages
    if waits:
        assert "finish" in out.text("en") or "created" in out.text("en")


def test_auto_installer_is_uv_when_found_and_pip_otherwise(monkeypatch):
    import wizard.core.install.environments as envs

    monkeypatch.setattr(envs, "find_uv", lambda: "/opt/uv")
    assert InstallOptions(["x"]).resolved_installer() == "uv"
    monkeypatch.setattr(envs, "find_uv", lambda: None)
    assert InstallOptions(["x"]).resolved_installer() == "pip"
    assert InstallOptions(["x"], installer="pip").resolved_installer() == "pip"
