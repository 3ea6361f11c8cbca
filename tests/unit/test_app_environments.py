"""The one target rule both faces follow (wizard.app.environments.resolve_target), on real folders
and real interpreters: a folder where the wizard's install stopped continues it, ``--venv`` names
the venv there or a new one, a named interpreter that does not run is refused with its error, a
Python too old for the build is said so, and removing refuses what the wizard did not make."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from wizard.app import environments as app_env
from wizard.app.install import state_store
from wizard.core.base.host import RealHost
from wizard.core.install.environments import new_venv
from wizard.core.install.recovery import EnvState

pytestmark = pytest.mark.slow  # makes venvs


def test_a_folder_where_the_wizards_install_stopped_continues_it(tmp_path):
    store = state_store(str(tmp_path / "state"))
    env = tmp_path / "envs" / "torch-cpu"
    target = new_venv(str(env), sys.executable)
    store.save(EnvState(str(env), target.to_json(), created_by_wizard=True, status="failed",
                        requirements=["torch==2.13.0"]))
    answer = app_env.resolve_target(app_env.TargetChoice(app_env.MODE_NEW_VENV, path=str(env), python=sys.executable),
                                    RealHost(), store)
    assert answer.problem is None and answer.resume_state is not None
    assert answer.target is not None and answer.target.path == str(env)


def test_venv_names_the_environment_there_or_a_new_one(tmp_path):
    existing = tmp_path / "mine"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(existing)], check=True)
    assert app_env.venv_mode(str(existing)) == app_env.MODE_EXISTING
    assert app_env.venv_mode(str(tmp_path / "new one")) == app_env.MODE_NEW_VENV
    choice = app_env.TargetChoice(app_env.venv_mode(str(existing)), path=str(existing), check_python=True)
    answer = app_env.resolve_target(choice, RealHost(), state_store(str(tmp_path / "state")))
    assert answer.problem is None and answer.target is not None and answer.target.kind == "existing-venv"
    assert answer.python_version == f"{sys.version_info[0]}.{sys.version_info[1]}"


def test_a_named_interpreter_that_does_not_run_is_refused_with_why(tmp_path):
    missing = str(tmp_path / "no python here" / "python3")
    choice = app_env.TargetChoice(app_env.MODE_NEW_VENV, path=str(tmp_path / "env"), python=missing, check_python=True)
    answer = app_env.resolve_target(choice, RealHost(), state_store(str(tmp_path / "state")))
    assert answer.target is None and answer.problem is not None
    assert missing in answer.problem.text("en")


def test_the_recommendation_gives_the_python_when_none_is_named(tmp_path):
    choice = app_env.TargetChoice(app_env.MODE_NEW_VENV, path=str(tmp_path / "env"))
    store = state_store(str(tmp_path / "state"))
    assert app_env.resolve_target(choice, RealHost(), store).target is None  # the command line asks again after

    from wizard.core.machine.models import Detection, NvidiaInfo, PythonInterpreter, SystemInfo
    from wizard.core.recommend.choose_python import choose_python

    here = PythonInterpreter(path=sys.executable, version="%d.%d.%d" % sys.version_info[:3], arch="x86_64", bits=64,
                             implementation="CPython", source="current")
    chosen = choose_python(Detection(SystemInfo(os="linux"), NvidiaInfo(), pythons=[here]))
    answer = app_env.resolve_target(choice, RealHost(), store, recommendation=chosen)
    assert answer.target is not None and answer.target.base_python == sys.executable
    assert answer.interpreter is here


def test_no_conda_is_said_before_anything_runs(tmp_path):
    choice = app_env.TargetChoice(app_env.MODE_NEW_CONDA, conda_name="dl", python="3.12")
    answer = app_env.resolve_target(choice, RealHost(), state_store(str(tmp_path / "state")), condas=[])
    assert answer.target is None and answer.problem is not None and answer.problem.key == "install.check.no_conda"


def test_removing_refuses_an_environment_the_wizard_did_not_make(tmp_path):
    env = tmp_path / "theirs"
    env.mkdir()
    (env / "keep.txt").write_text("x", encoding="utf-8")
    store = state_store(str(tmp_path / "state"))
    state = EnvState(str(env), new_venv(str(env), sys.executable).to_json(), created_by_wizard=False)
    outcome = app_env.remove_environment(state, RealHost(), store)
    assert not outcome.ok and outcome.refused and Path(env / "keep.txt").exists()
