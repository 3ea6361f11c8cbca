"""A course's extra package and a mirror of PyTorch's folder that lacks it: uv plans torch from
the mirror and the extra from the extras' source (PyPI, or a PyPI mirror -- here a second
loopback index); with the mirror alone the refusal names the extra only, and an extras' source
that cannot be reached is named with the package it was asked for.

Real uv against real loopback indexes; the plan is the one the Environment page previews.
"""

from __future__ import annotations

import sys

import pytest

from tests.integration.index_server import LoopbackIndex, free_port, make_wheel
from tests.no_proxy import no_proxy_for_loopback  # noqa: F401  (autouse: loopback without a proxy)
from wizard.app import install as app_install
from wizard.core.base.host import RealHost
from wizard.core.install.environments import find_uv, new_venv
from wizard.core.install.extras import arrange
from wizard.core.install.failure_kind import FailureKind
from wizard.core.install.job import InstallOptions
from wizard.core.install.plan import PlanError
from wizard.core.install.runner import preview_plan

pytestmark = pytest.mark.slow  # real uv resolutions
EXTRA = "tiny-course-extra"


@pytest.fixture()
def uv_exe():
    found = find_uv()
    if not found:
        pytest.skip("uv is not installed (pip install uv)")
    return found


@pytest.fixture()
def indexes(tmp_path):
    """(the PyTorch mirror: torch 1.0.0+cpu, no extra; a PyPI mirror: the extra, and a torch of
    the same version that must not be taken)."""
    wheels = tmp_path / "wheels"
    with LoopbackIndex() as mirror, LoopbackIndex() as pypi:
        mirror.add_wheels([make_wheel(wheels / "m", "torch", "1.0.0+cpu")])
        pypi.add_wheels([make_wheel(wheels / "p", EXTRA, "1.0.0", files={"tiny_course_extra.py": "X = 1\n"}),
                         make_wheel(wheels / "p", "torch", "1.0.0", seed=7)])
        yield mirror, pypi


def plan(tmp_path, uv_exe, mirror: LoopbackIndex, source: str):
    options = InstallOptions(["torch==1.0.0"], mirror.simple_url, installer="uv", uv_exe=uv_exe,
                             uv_cache_dir=str(tmp_path / "uv-cache"), refresh_index=True)
    arrange(options, [EXTRA], source)
    target = new_venv(str(tmp_path / "envs" / "course"), sys.executable)
    return options, lambda: preview_plan(target, options, RealHost())


def test_torch_comes_from_the_mirror_and_the_extra_from_the_extras_source(tmp_path, uv_exe, indexes):
    mirror, pypi = indexes
    options, run = plan(tmp_path, uv_exe, mirror, pypi.simple_url)
    got = run()
    assert got is not None
    where = {f.name: f.url for f in got.files}
    assert where["torch"].startswith(mirror.base) and "+cpu" in where["torch"]
    assert where[EXTRA].startswith(pypi.base)
    words = app_install.sources_text(options, "en")
    assert words.startswith(mirror.simple_url) and EXTRA in words and pypi.simple_url in words


def test_with_the_mirror_alone_the_refusal_names_only_the_missing_extra(tmp_path, uv_exe, indexes):
    mirror, _pypi = indexes
    options, run = plan(tmp_path, uv_exe, mirror, mirror.simple_url)
    assert options.extras_index is None
    with pytest.raises(PlanError) as info:
        run()
    err = info.value
    assert err.kind == "missing-extra" and err.failure_kind == FailureKind.EXTRAS
    assert app_install.plan_blocks(err)
    for lang in ("en", "ko"):
        text = err.message.text(lang)
        assert EXTRA in text and "torch==" not in text and "torchvision" not in text
        assert "https://pypi.org/simple" in text and mirror.simple_url in text


def test_an_extras_source_that_cannot_be_reached_is_named_with_the_package(tmp_path, uv_exe, indexes):
    mirror, _pypi = indexes
    dead = f"http://127.0.0.1:{free_port()}/simple"
    _options, run = plan(tmp_path, uv_exe, mirror, dead)
    with pytest.raises(PlanError) as info:
        run()
    err = info.value
    assert err.kind == "extras-unreachable" and err.failure_kind == FailureKind.EXTRAS, err.output
    ko = err.message.text("ko")
    assert EXTRA in ko and dead in ko and "torch" not in ko.replace("PyTorch", "")


def test_the_extras_source_missing_it_too_says_to_check_the_course(tmp_path, uv_exe, indexes):
    mirror, _pypi = indexes
    with LoopbackIndex() as empty:
        empty.add_wheels([make_wheel(tmp_path / "e", "unrelated", "1.0")])
        _options, run = plan(tmp_path, uv_exe, mirror, empty.simple_url)
        with pytest.raises(PlanError) as info:
            run()
    err = info.value
    assert err.kind == "missing-extra", err.output
    en = err.message.text("en")
    assert EXTRA in en and "course profile" in en and empty.simple_url in en


def test_an_install_says_it_too_and_resume_asks_the_same_extras_source(tmp_path, uv_exe, indexes):
    """The install's own resolve step words it as the preview does; the saved state keeps the
    extras' source, so Resume asks the same indexes (not the mirror alone)."""
    from wizard.core.install.recovery import StateStore
    from wizard.core.install.runner import InstallJob, run_steps

    mirror, _pypi = indexes
    dead = f"http://127.0.0.1:{free_port()}/simple"
    options, _run = plan(tmp_path, uv_exe, mirror, dead)
    options.cache_dir, options.state_dir = str(tmp_path / "cache"), str(tmp_path / "state")
    target = new_venv(str(tmp_path / "envs" / "course"), sys.executable)
    job = InstallJob(target, options, RealHost())
    assert not run_steps(job)
    assert job.failure is not None and job.failure.step_id == "resolve", job.failure and job.failure.detail
    assert job.failure.kind == "extras-unreachable" and EXTRA in job.failure.message.text("ko")
    state = StateStore(tmp_path / "state").load(target.path)
    assert state is not None and state.index_url == mirror.simple_url and state.extras_index == dead
    from wizard.core.install.summary import InstallSummary

    assert InstallSummary.from_json(job.summary()).extras_index == dead  # the report knows both indexes
    again = app_install.resume_request(state).options
    assert again.extras == [EXTRA] and again.extras_index == dead and again.index_url == mirror.simple_url


def test_the_command_line_takes_the_extras_source_and_says_it(tmp_path):
    """``install --extras-index``: the same setting as the window's, said in the "what" line; an
    address without a scheme is refused before anything runs."""
    from pathlib import Path

    from tests.cli_runner import run_cli

    good = str(Path(__file__).resolve().parents[1] / "data" / "courses" / "good.toml")
    env = {"GSW_COMPAT_UPDATE": "0", "NO_PROXY": "*"}
    source = f"http://127.0.0.1:{free_port()}/simple"
    done = run_cli("install", "--venv", str(tmp_path / "env"), "--course", good, "--plan-only", "--lang", "en",
                   "--index-url", "http://127.0.0.1:9/whl", "--extras-index", source, env=env)
    what = [line for line in done.stderr.splitlines() if "torch==" in line and "packaging>=20" in line]
    assert what and "http://127.0.0.1:9/whl" in what[0] and source in what[0], done.stderr
    assert "when not there" in what[0]
    bad = run_cli("install", "--venv", str(tmp_path / "env2"), "--course", good, "--plan-only",
                  "--extras-index", "pypi.org/simple", env=env, data_dir=tmp_path / "data")
    assert bad.returncode == 2 and "is not a web address" in bad.stderr and "Traceback" not in bad.stderr
    assert not (tmp_path / "env2").exists()
