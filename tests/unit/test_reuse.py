"""What a re-run takes over from the last one (wizard.app.reuse): the environment to offer first,
and the build chosen last time -- only while it still fits and this run has not picked another."""

from __future__ import annotations

import os
import sys
import venv

import pytest

from wizard.app import history as app_history
from wizard.app import reuse
from wizard.app.session import Session
from wizard.core.history.store import HistoryStore
from wizard.core.install.recovery import STATUS_CANCELLED, STATUS_COMPLETE, EnvState, StateStore
from wizard.core.install.summary import InstallSummary
from wizard.core.machine.models import Detection, NvidiaInfo, SystemInfo
from wizard.core.recommend.choose_python import PythonChoice
from wizard.core.recommend.inputs import MachineFacts, Wishes
from wizard.core.recommend.recommender import recommend

MINOR = f"{sys.version_info[0]}.{sys.version_info[1]}"


def session_with(wishes: Wishes | None = None) -> Session:
    session = Session(lang="ko")
    session.detection = Detection(SystemInfo(os="linux"), NvidiaInfo())
    rec = recommend(MachineFacts("linux", "x86_64", MINOR), wishes or Wishes(variant="cpu"))
    session.recommendation = PythonChoice(MINOR, None, rec)
    session.candidate = rec.best
    return session


def test_the_build_chosen_last_time_comes_back_while_it_fits(tmp_path):
    session = session_with()
    best = session.candidate
    older = [c for c in session.recommendation.recommendation.candidates if c.torch != best.torch][-1]
    remembered = reuse.Remembered(mirror="https://mirror.example.org/whl", torch=older.torch, variant="cpu")
    again = reuse.remembered_build(session, remembered)
    assert again is not None and (again.torch, again.variant) == (older.torch, "cpu")
    # a build the recommender no longer offers here is not taken back
    assert reuse.remembered_build(session, reuse.Remembered(torch="1.0.0", variant="cpu")) is None
    # this run's own pick on the Recommend page wins
    session.candidate = older
    assert reuse.remembered_build(session, reuse.Remembered(torch=best.torch, variant="cpu")) is None


@pytest.mark.slow  # two real venvs
def test_the_last_verified_environment_is_offered_if_it_still_exists(tmp_path):
    env = tmp_path / "envs" / "torch-cpu"
    venv.create(env, with_pip=False)
    history, states = HistoryStore(tmp_path / "history"), StateStore(tmp_path / "state")
    assert reuse.last_verified_env(history, states) is None  # nothing happened yet
    run = session_with()
    run.install = InstallSummary.from_json({"env_path": str(env),
                                            "installed": [{"name": "torch", "version": "2.13.0+cpu"}]})
    app_history.save_snapshot(run, history)
    offer = reuse.last_verified_env(history, states)
    assert offer is not None and offer.env_path == str(env) and offer.torch == "2.13.0+cpu"
    assert not offer.verified  # installed, but Verify did not run in that run: said as "installed"
    assert os.path.samefile(offer.python_exe, reuse.env_python(str(env)))
    # the folder was deleted since: not offered; a complete install the wizard made still is
    other = tmp_path / "envs" / "torch-cpu-2"
    venv.create(other, with_pip=False)
    states.save(EnvState(str(other), {"kind": "new-venv", "path": str(other)}, created_by_wizard=True,
                         status=STATUS_COMPLETE, requirements=["torch==2.13.0"]))
    states.save(EnvState(str(tmp_path / "unfinished"), {"kind": "new-venv", "path": str(tmp_path / "unfinished")},
                         created_by_wizard=True, status=STATUS_CANCELLED))
    import shutil

    shutil.rmtree(env)
    offer = reuse.last_verified_env(history, states)
    assert offer is not None and offer.env_path == str(other) and offer.source == "install"
    assert offer.torch == "2.13.0"


def test_a_proxy_password_is_not_remembered(tmp_path):
    from wizard.app.install import InstallSettings

    settings = InstallSettings(mirror="https://mirror.example.org/whl", proxy="http://kim:s3cret@proxy.campus:3128")
    reuse.remember_install(settings, None, tmp_path)
    text = (tmp_path / reuse.REMEMBERED_FILE).read_text(encoding="utf-8")
    assert "s3cret" not in text and "kim" not in text
    assert reuse.load_remembered(tmp_path).proxy == "http://proxy.campus:3128"
