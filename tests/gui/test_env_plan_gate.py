"""The Environment page's Install button against a real loopback index: enabled only for a plan
that can run, a click during a re-plan goes on by itself, a mirror that lacks the build offers
the builds it has, and failures are said in the page's language with pip's line only in Details.

Real parts only: pip's dry run, the wheel index client and the install engine against
tests/integration/index_server.py; the pages are the real wizard's, offscreen.
"""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")
pytestmark = [pytest.mark.gui, pytest.mark.slow]  # real pip resolutions against a loopback index

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QWizard  # noqa: E402

from tests.gui.install_driver import WAIT_MS, make_session, open_pages, wait_end, wait_plan  # noqa: E402
from tests.integration.index_server import LoopbackIndex, make_wheel  # noqa: E402
from wizard.ui.pages.base import PageId  # noqa: E402
from wizard.ui.pages.environment.common import MODE_NEW_VENV  # noqa: E402
from wizard.ui.pages.environment.failure import CONNECTION, describe  # noqa: E402
from wizard.ui.pages.install_page import STATE_DONE, STATE_FAILED  # noqa: E402


def assert_readable(qtbot, window) -> None:
    """At the small size (1024x700): no label or button of the shown state clipped or cut."""
    from tests.gui.layout_check import check_window
    from tests.gui.layout_check import describe as describe_problems

    window.resize(1024, 700)
    qtbot.wait(150)
    problems = check_window(window)
    assert not problems, describe_problems(problems)


def test_the_first_click_on_install_after_typing_a_mirror_goes_on_by_itself(qtbot, build, index, root):
    window, env_page, page = open_pages(qtbot, make_session(build), root, None)  # a mirror nobody answers
    env_page.set_mode(MODE_NEW_VENV)
    env_page.venv_path.setText(str(root / "envs" / "첫 클릭"))
    wait_plan(qtbot, env_page)
    assert env_page.plan_error is not None and not env_page.isComplete()
    button = window.button(QWizard.WizardButton.CommitButton)
    assert not button.isEnabled()
    assert_readable(qtbot, window)
    # the student types the working mirror and clicks Install once: the focus leaves the field
    # on the press (editingFinished: a re-plan starts), and the click must not be lost
    env_page.show_settings()
    window.activateWindow()
    env_page.mirror_edit.setFocus()
    qtbot.waitUntil(env_page.mirror_edit.hasFocus, timeout=5000)
    env_page.mirror_edit.selectAll()
    qtbot.keyClicks(env_page.mirror_edit, index.base + "/whl")
    assert not button.isEnabled()  # nothing has been asked yet (editingFinished comes on focus-out)
    env_page.mirror_edit.clearFocus()  # what the press on Install does first
    assert button.isEnabled(), "a re-plan on its way must not disable Install"
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert window.currentId() == PageId.ENVIRONMENT and env_page.go_on
    assert env_page.go_on_label.isVisibleTo(env_page) and "Checking" in env_page.go_on_label.text()
    qtbot.waitUntil(lambda: window.currentId() == PageId.INSTALL, timeout=WAIT_MS)  # on by itself
    assert env_page.plan_error is None and env_page.settings.mirror == index.base + "/whl"
    wait_end(qtbot, page)
    assert page.state == STATE_DONE, page.message


def test_a_mirror_without_the_recommended_build_offers_the_ones_it_has(qtbot, build, root, tmp_path_factory):
    from wizard.core.recommend.inputs import Wishes
    from wizard.core.recommend.recommender import recommend

    best = build.best
    others = [c for c in recommend(build.facts, Wishes(variant=best.variant, newest=True)).candidates
              if c.torch != best.torch and c.torchaudio is None]
    if not others:
        pytest.skip("the recommender knows no other CPU build for this Python")
    other = others[-1]
    d = tmp_path_factory.mktemp("older wheels")
    older = [make_wheel(d, "torch", f"{other.torch}+cpu"),
             make_wheel(d, "torchvision", f"{other.torchvision}+cpu", requires=[f"torch=={other.torch}"])]
    with LoopbackIndex() as idx:
        idx.add_wheels(older)
        window, env_page, page = open_pages(qtbot, make_session(build), root, idx)
        env_page.set_mode(MODE_NEW_VENV)
        env_page.venv_path.setText(str(root / "envs" / "다른 버전"))
        wait_plan(qtbot, env_page)
        assert env_page.plan_error is not None and env_page.plan_error.kind == "no-version"
        assert not env_page.isComplete() and "Ready to install" not in env_page.checks_label.text()
        assert best.torch in env_page.plan_status.text() and "ERROR:" not in env_page.plan_status.text()
        qtbot.waitUntil(lambda: env_page.alternatives is not None, timeout=WAIT_MS)
        assert [(c.torch, c.variant) for c in env_page.alternatives] == [(other.torch, other.variant)]
        assert env_page.alt_label.isVisibleTo(env_page) and "has these builds" in env_page.alt_label.text()
        (button,) = env_page.alt_buttons
        assert other.torch in button.text()
        assert_readable(qtbot, window)
        button.click()  # one click: that build is the choice and the plan is made again
        assert env_page.candidate().torch == other.torch
        wait_plan(qtbot, env_page)
        assert env_page.plan_error is None, env_page.plan_status.text()
        assert {f.name: f.version for f in env_page.plan.files}["torch"].startswith(other.torch)
        assert env_page.isComplete() and f"torch=={other.torch}" in env_page.what_label.text()


def test_failures_in_korean_say_what_happened_without_pip_lines_or_cli_flags(qtbot, build, index, wheels, root):
    """A download cut off by a server that then goes away: Korean headline, the window's own
    advice, pip/engine words in Details only, and the "kept" sentence only with bytes kept."""
    index.drop_after(wheels["torch"].name, 1_000_000, then_down=True)
    session = make_session(build)
    session.lang = "ko"
    window, env_page, page = open_pages(qtbot, session, root, index)
    env_page.set_mode(MODE_NEW_VENV)
    env_page.venv_path.setText(str(root / "envs" / "끊긴 연결"))
    wait_plan(qtbot, env_page)
    assert env_page.isComplete()
    window.button(QWizard.WizardButton.CommitButton).click()
    assert window.currentId() == PageId.INSTALL
    wait_end(qtbot, page)
    assert page.state == STATE_FAILED, page.message
    text = page.message
    assert "연결하지 못했습니다" in text and "127.0.0.1" in text
    assert "--index-url" not in text and "ERROR:" not in text
    assert "[설정 바꾸기]" in text
    assert text.count("남겨 두었습니다") + text.count("남아 있습니다") <= 1  # said once at most
    kept = page.kept_bytes()
    assert (kept > 0) == ("남겨 두었습니다" in text)
    assert page.details_label.text()  # the engine's own words are still there, folded away
    assert not page.details_label.isVisibleTo(page)
    assert_readable(qtbot, window)
    page.details_button.click()
    assert page.details_label.isVisibleTo(page)


def test_the_window_words_a_connection_failure_from_its_kind_without_pip_lines_or_cli_flags():
    """The kind comes from the engine; the window's sentence and advice, the tool's lines in Details."""
    from wizard.core.base.i18n import t

    refused = ("ERROR: Could not find a version that satisfies the requirement torch==2.14.1 "
               "(from versions: none)\nERROR: No matching distribution found for torch==2.14.1\n"
               "WARNING: Retrying ... NewConnectionError: Failed to establish a new connection: "
               "[Errno 111] Connection refused")
    engine = t("install.error.network", "ko", host="download.pytorch.org", detail="x")
    said = describe(CONNECTION, engine, refused, "ko", host="download.pytorch.org")
    assert said.headline == "download.pytorch.org에 연결하지 못했습니다."
    assert "ERROR:" not in said.headline + said.advice and "--index-url" not in said.headline + said.advice
    assert "No matching distribution" in said.details and "--index-url" not in said.details


def test_checks_that_crash_keep_install_off(qtbot, build, index, root, monkeypatch):
    """No answer is coming (the pre-flight itself raised): Install must not stay enabled as if
    the answer were still on its way."""
    def broken(*_args, **_kwargs):
        raise OSError("the disk went away")

    monkeypatch.setattr("wizard.app.install.run_checks", broken)
    window, env_page, _page = open_pages(qtbot, make_session(build), root, index)
    env_page.set_mode(MODE_NEW_VENV)
    env_page.venv_path.setText(str(root / "envs" / "점검 실패"))
    env_page.refresh()
    qtbot.waitUntil(lambda: env_page.checks_failed and not env_page.plan_running, timeout=WAIT_MS)
    assert not env_page.pending() and not env_page.isComplete()
    assert not window.button(QWizard.WizardButton.CommitButton).isEnabled()
    assert "the disk went away" in env_page.checks_label.text()


def test_no_engine_sentence_the_window_shows_has_a_command_line_flag():
    """Every install error sentence of the catalogue that the window shows as it is (the kinds it
    does not word itself), in both languages: no ``--index-url`` (the window has a field)."""
    from wizard.core.base.i18n import catalogue

    keys = [k for k in catalogue() if k.startswith(("install.error.", "install.plan.error."))
            and k != "install.error.network"]  # a connection: the window says it in its own words
    assert len(keys) > 10
    for key in keys:
        for lang in ("ko", "en"):
            assert "--index-url" not in catalogue()[key][lang], (key, lang)


def test_a_gpu_mirror_without_the_chosen_cuda_build_offers_the_other_cuda_build_it_has(tmp_path):
    """An RTX 3060 machine, the chosen build for cu128, a mirror that carries only cu126: the
    cu126 build of the same torch is offered (its own variant folder of the mirror)."""
    from wizard.app.alternatives import builds_on_index
    from wizard.app.install import InstallSettings
    from wizard.core.recommend.inputs import MachineFacts, Wishes
    from wizard.core.recommend.recommender import recommend

    facts = MachineFacts("linux", "x86_64", "3.11", driver_version="570.124", cuda_driver="12.8",
                         gpu_ccs=["8.6"], gpu_names=["NVIDIA GeForce RTX 3060"])
    chosen = next((c for c in recommend(facts, Wishes(newest=True)).candidates if c.variant == "cu128"), None)
    if chosen is None:
        pytest.skip("the compatibility table has no cu128 build for this machine")
    pins = [("torch", chosen.torch), ("torchvision", chosen.torchvision), ("torchaudio", chosen.torchaudio)]
    wheels = [make_wheel(tmp_path, name, f"{version}+cu126") for name, version in pins if version]
    with LoopbackIndex() as idx:
        idx.add_wheels(wheels)
        settings = InstallSettings(mirror=idx.base + "/whl")
        found = builds_on_index(facts, chosen, "3.11", settings, cache_dir=str(tmp_path / "index cache"))
    assert [(c.torch, c.variant) for c in found] == [(chosen.torch, "cu126")]
