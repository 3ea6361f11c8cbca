"""The Recommend page says which compatibility table it used: built-in, or a signed update."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")

from nacl.signing import SigningKey  # noqa: E402

from tests import scenarios  # noqa: E402
from tests.compat_tables import newer_table  # noqa: E402
from tests.gui.wizard_driver import go_to, open_wizard  # noqa: E402
from wizard.core.recommend import update  # noqa: E402
from wizard.ui.pages.base import PageId  # noqa: E402


@pytest.fixture(autouse=True)
def _fresh_table():
    update.reset()
    yield
    update.reset()


def test_page_names_the_built_in_table(qtbot):
    window = open_wizard(qtbot, scenarios.windows_rtx2080super(), lang="ko")
    go_to(window, PageId.RECOMMEND)
    shown = window.recommend_page.data_source.text()
    assert "내장" in shown and update.active_source().reviewed_on in shown


def test_page_uses_and_names_a_cached_signed_update(qtbot, tmp_path, monkeypatch):
    key = SigningKey.generate()  # throwaway; the page's process trusts it through the key folder
    keys = tmp_path / "keys"
    keys.mkdir()
    (keys / "test.pub").write_text(bytes(key.verify_key).hex())
    monkeypatch.setattr(update, "KEY_DIR", keys)
    cache = tmp_path / "cache"
    cache.mkdir()
    data = newer_table("2099-01-01")
    (cache / update.FILE_NAME).write_bytes(data)
    (cache / update.MANIFEST_NAME).write_bytes(update.sign_manifest(data, "https://example.org/c.json", bytes(key)))
    monkeypatch.setenv(update.ENV_CACHE, str(cache))
    window = open_wizard(qtbot, scenarios.windows_rtx2080super())
    go_to(window, PageId.RECOMMEND)
    page = window.recommend_page
    assert "updated" in page.data_source.text() and "2099-01-01" in page.data_source.text()
    assert page.choice.recommendation.best.torch == "2.99.0"


def test_page_names_the_day_the_indexes_confirmed_and_what_they_added(qtbot, tmp_path, monkeypatch):
    """The facts a check saved (a torch 2.15.1 with its torchvision, on every variant page) are
    laid over the table: the page recommends 2.15.1 and its data line says from where and when."""
    import json

    from tests.compat_tables import pypi_with_patch
    from wizard.core.recommend import live_index

    cache = tmp_path / "cache"
    cache.mkdir()
    plats = ["linux-x86_64", "linux-aarch64", "windows-x86_64"]
    facts = {"checked_on": "2026-12-05", "stale": [], "projects": pypi_with_patch("2.15.1", "0.29.3"),
             "index": {v: {"2.15.0": plats, "2.15.1": plats} for v in ("cu130", "cu132", "cpu")}}
    (cache / live_index.FACTS_NAME).write_text(json.dumps(facts))
    monkeypatch.setenv(update.ENV_CACHE, str(cache))
    monkeypatch.setenv(update.ENV_INDEX, "1")
    monkeypatch.setenv("GSW_COMPAT_UPDATE", "1")
    window = open_wizard(qtbot, scenarios.windows_rtx2080super(), lang="ko")
    go_to(window, PageId.RECOMMEND)
    page = window.recommend_page
    shown = page.data_source.text()
    assert "내장" in shown and "2026-12-05에 패키지 인덱스에서 확인" in shown and "torch 2.15.1" in shown
    assert page.choice.recommendation.best.torch == "2.15.1"
