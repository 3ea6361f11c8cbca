"""The System page's Storage dialog, offscreen, on a private home with real folders.

Two environments in the default folder, the wizard's download cache with a file no install needs
and a partial an unfinished install (a real state file) needs. The survey runs on a worker
thread; environments are never ticked by the wizard; the one the student ticks and confirms
goes, the other stays; a "no" to the confirmation removes nothing; the partial stays.
"""

from __future__ import annotations

import hashlib
import json

import pytest

pytest.importorskip("pytestqt")

from tests import scenarios  # noqa: E402
from tests.gui.wizard_driver import open_wizard  # noqa: E402
from wizard.core.install.recovery import EnvState, StateStore  # noqa: E402
from wizard.ui.pages import storage_panel  # noqa: E402


@pytest.fixture()
def home(student_home, monkeypatch):
    """The student's home with what the panel lists: two environments, a half-done install with
    its partial download, a stray cached wheel; every tool's own cache at its default place."""
    h = student_home
    for name in ("PIP_CACHE_DIR", "UV_CACHE_DIR", "HF_HOME", "HF_HUB_CACHE", "GSW_DATA_DIR", "PIP_FIND_LINKS"):
        monkeypatch.delenv(name, raising=False)
    envs = h / "GPU-Setup-Wizard" / "envs"
    for name in ("keep-me", "remove-me"):
        (envs / name / "lib").mkdir(parents=True)
        (envs / name / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
        (envs / name / "lib" / "big.bin").write_bytes(b"e" * 200_000)
    cache = h / ".cache" / "gpu-setup-wizard" / "downloads"
    sha = hashlib.sha256(b"resume me").hexdigest()
    (cache / "partial").mkdir(parents=True)
    (cache / "files").mkdir(parents=True)
    partial = cache / "partial" / f"{sha[:40]}.part"
    partial.write_bytes(b"p" * 70_000)
    stray = cache / "files" / "old-0.1-py3-none-any.whl"
    stray.write_bytes(b"s" * 30_000)
    half = envs / "half-done"
    StateStore().save(EnvState(env_path=str(half), target={"kind": "new-venv", "path": str(half)},
                               created_by_wizard=True, status="failed",
                               plan={"files": [{"filename": "torch-2.13.0-py3-none-any.whl", "url": "http://x/t",
                                                "sha256": sha, "satisfied": False}]}))
    return {"envs": envs, "partial": partial, "stray": stray}


def _dialog(qtbot, window):
    page = window.system_page
    assert page.storage_button.text() == "저장 공간…"
    page.storage_button.click()
    dialog = page.storage_dialog
    qtbot.waitUntil(lambda: dialog.busy_with is None, timeout=60000)
    return dialog


def test_storage_dialog_removes_only_the_ticked_and_confirmed_environment(qtbot, home, monkeypatch):
    asked: list[str] = []
    answers = [False, True]
    monkeypatch.setattr(storage_panel, "ask_confirm",
                        lambda parent, title, text, lang: asked.append(text) or answers.pop(0))
    window = open_wizard(qtbot, scenarios.windows_rtx3060(), lang="ko")
    dialog = _dialog(qtbot, window)
    assert dialog.windowTitle() == "저장 공간"
    keep, remove = str(home["envs"] / "keep-me"), str(home["envs"] / "remove-me")
    rows = [dialog.tree.topLevelItem(i) for i in range(dialog.tree.topLevelItemCount())]
    assert [r.text(2) for r in rows if r.text(0) == "환경"][:2] == [keep, remove]
    assert dialog.confirmed_envs() == []  # nothing is ticked for the student
    assert any(r.text(0) == "마법사 내려받기 캐시" and "97.7 KiB" in r.text(1) for r in rows)

    dialog.env_item(remove).setCheckState(0, storage_panel.Qt.CheckState.Checked)
    dialog.preview_button.click()
    qtbot.waitUntil(lambda: dialog.busy_with is None, timeout=60000)
    text = dialog.output.toPlainText()
    assert "미리 보기" in text and remove in text and keep not in text.split("유지")[0].split("환경:")[-1]
    assert (home["envs"] / "remove-me").exists() and home["stray"].exists()  # a preview deletes nothing

    dialog.clean_button.click()  # the first answer is "no"
    qtbot.waitUntil(lambda: dialog.busy_with is None, timeout=60000)
    assert (home["envs"] / "remove-me").exists() and home["stray"].exists()
    dialog.clean_button.click()  # now "yes"
    qtbot.waitUntil(lambda: dialog.busy_with is None and not (home["envs"] / "remove-me").exists(), timeout=60000)
    qtbot.waitUntil(lambda: dialog.busy_with is None, timeout=60000)
    assert remove in asked[1] and keep not in asked[1]
    assert (home["envs"] / "keep-me" / "lib" / "big.bin").exists()
    assert home["partial"].stat().st_size == 70_000 and not home["stray"].exists()
    assert json.dumps(dialog.last_plan.to_json())
    assert dialog.env_item(remove) is None and dialog.env_item(keep) is not None  # measured again

    window.model.set_language("en")
    assert window.system_page.storage_button.text() == "Storage…"
    assert dialog.clean_button.text() == "Clean up…"
    dialog.close()
