"""The install job takes only requirements that pass the one rule
(:mod:`wizard.core.install.requirements`): a hostile one -- from a resumed state file, a course,
or any caller -- stops the job in its first step, before the venv is made."""

from __future__ import annotations

import sys

import pytest

from tests.integration.index_server import make_wheel
from wizard.core.base.host import RealHost
from wizard.core.install.environments import new_venv
from wizard.core.install.job import InstallOptions
from wizard.core.install.runner import InstallJob, run_steps

pytestmark = pytest.mark.slow  # makes venvs


@pytest.mark.parametrize("bad", ["gsw-evil @ {uri}", "{path}", "--find-links={folder}", "-r{folder}/r.txt",
                                 "gsw-x==1.0\n--index-url http://127.0.0.1:9/simple"])
def test_a_job_with_a_requirement_from_outside_an_index_makes_nothing(tmp_path, bad):
    evil = make_wheel(tmp_path / "elsewhere", "gsw-evil", "6.6")
    req = bad.format(uri=evil.as_uri(), path=evil, folder=evil.parent)
    env = tmp_path / "env"
    opts = InstallOptions(["gsw-x==1.0", req], "http://127.0.0.1:9/simple", installer="pip",
                          cache_dir=str(tmp_path / "cache"), state_dir=str(tmp_path / "state"))
    job = InstallJob(new_venv(str(env), sys.executable), opts, RealHost())
    assert not run_steps(job)
    assert not env.exists(), "the venv was made before the requirement was refused"
    assert job.failure is not None and job.failure.kind == "requirement"
    for lang in ("en", "ko"):
        assert "\n" not in job.failure.message.text(lang)


def test_the_plan_preview_refuses_before_running_pip(tmp_path):
    """``install --plan-only`` and the Environment page's preview: a PlanError in one line, and
    the resolver never runs (a Host that records what it ran sees nothing)."""
    from wizard.app.install import plan_install

    ran = []

    class Recording(RealHost):
        def run(self, argv, *args, **kwargs):
            ran.append(list(argv))
            return super().run(argv, *args, **kwargs)

    evil = make_wheel(tmp_path / "elsewhere", "gsw-evil", "6.6")
    opts = InstallOptions(["gsw-x==1.0", f"gsw-evil @ {evil.as_uri()}"], "http://127.0.0.1:9/simple", installer="pip")
    out = plan_install(new_venv(str(tmp_path / "env"), sys.executable), opts, Recording())
    assert out.plan is None and out.error is not None and out.error.kind == "requirement"
    assert "gsw-evil" in out.error.message.text("ko") and not ran


def test_uv_requirements_file_and_restore_take_only_what_passes(tmp_path):
    from wizard.core.install.recovery import restore_plan
    from wizard.core.install.requirements import RequirementRefused
    from wizard.core.install.uv_plan import requirements_in_path, write_requirements_in

    lock = str(tmp_path / "pylock.toml")
    with pytest.raises(RequirementRefused):
        write_requirements_in(lock, ["torch==2.6.0", "x==1\n--find-links /elsewhere"])
    write_requirements_in(lock, ["torch==2.6.0", "numpy>=1.26; python_version >= '3.9'"])
    assert open(requirements_in_path(lock), encoding="utf-8").read().count("\n") == 2
    plan = restore_plan("numpy==1.26.4\nevil==1@file:///x\n", {})
    assert plan.reinstall == ["numpy==1.26.4"] and "evil==1@file:///x" in plan.not_restorable
