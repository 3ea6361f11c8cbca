"""A re-run and the last run's choices: the mirror of last time comes back and is said with its
address, but the build of last time never replaces the recommendation by itself -- it is offered,
one click away.

Real parts: the real wizard offscreen, the remembered-settings file in the student's config
folder, pip's dry run against a port on 127.0.0.1 nobody listens on (nothing reaches the internet).
"""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")
pytestmark = [pytest.mark.gui, pytest.mark.slow]  # real pip resolutions (against a closed loopback port)

from tests.gui.install_driver import make_session, wait_plan  # noqa: E402
from tests.integration.index_server import free_port  # noqa: E402
from wizard.app import reuse  # noqa: E402
from wizard.ui.main_wizard import SetupWizard  # noqa: E402
from wizard.ui.pages.base import PageId  # noqa: E402
from wizard.ui.pages.environment_page import register_install_pages  # noqa: E402


def test_the_last_runs_build_is_offered_and_the_recommendation_stays_the_choice(qtbot, build, root):
    from wizard.core.recommend.inputs import Wishes
    from wizard.core.recommend.recommender import recommend

    best = build.best
    others = [c for c in recommend(build.facts, Wishes(variant=best.variant, newest=True)).candidates
              if c.torch != best.torch]
    if not others:
        pytest.skip("the recommender knows no other CPU build for this Python")
    older = others[-1]
    mirror = f"http://127.0.0.1:{free_port()}/whl"
    assert reuse.save_remembered(reuse.Remembered(mirror=mirror, torch=older.torch, variant=older.variant))

    session = make_session(build)
    window = SetupWizard(session)
    qtbot.addWidget(window)
    env_page, _install_page = register_install_pages(window)
    env_page.cache_dir = str(root / "cache")
    env_page.state_dir = str(root / "state")
    window.setStartId(PageId.ENVIRONMENT)
    window.show()
    window.restart()
    assert window.currentId() == PageId.ENVIRONMENT

    # the recommendation's build is the choice; the mirror came back, said with its address
    assert (session.candidate.torch, session.candidate.variant) == (best.torch, best.variant)
    assert env_page.settings.mirror == mirror and env_page.mirror_edit.text() == mirror
    what = env_page.what_label.text()
    assert f"torch=={best.torch}" in what and mirror in what
    assert f"PyTorch {older.torch}" in what and "keeps the recommended build" in what
    # last time's build: offered, one click away
    button = env_page.last_build_button
    assert button.isVisibleTo(env_page) and older.torch in button.text()
    button.click()
    assert (session.candidate.torch, session.candidate.variant) == (older.torch, older.variant)
    assert not button.isVisibleTo(env_page)
    assert f"torch=={older.torch}" in env_page.what_label.text()
    assert "keeps the recommended build" not in env_page.what_label.text()
    wait_plan(qtbot, env_page)  # (the answers for the dead port come back before the window goes)


def test_the_last_run_is_read_once_and_this_runs_own_mirror_wins(build, root, tmp_path):
    """LastRun on its own (no window): a mirror given for this run is kept and nothing is said
    about the last one; the note names the last run's mirror only while the field still holds it;
    a second show reads nothing again (the student's own changes stay)."""
    from wizard.app import install as app_install
    from wizard.app.install import InstallSettings
    from wizard.ui.pages.environment.reuse_view import LastRun

    remembered = "http://127.0.0.1:9/whl"
    assert reuse.save_remembered(reuse.Remembered(mirror=remembered, proxy="http://proxy.example:3128"))
    store = app_install.state_store(str(tmp_path / "state"))
    session = make_session(build)

    given = InstallSettings(mirror="http://mirror.example/whl")
    last = LastRun()
    assert not last.apply(session, given, store)  # this run's own setting wins
    assert given.mirror == "http://mirror.example/whl" and not given.proxy
    assert last.note(given.mirror, session.candidate, "en") == ""

    settings = InstallSettings()
    last = LastRun()
    assert last.apply(session, settings, store)
    assert (settings.mirror, settings.proxy) == (remembered, "http://proxy.example:3128")
    assert remembered in last.note(settings.mirror, session.candidate, "en")
    assert last.note("http://another.example/whl", session.candidate, "en") == ""  # the student typed another
    settings.mirror = ""
    assert not last.apply(session, settings, store) and settings.mirror == ""  # once per page
