"""Fixtures of the window's tests (tests/gui/): what several page tests set up the same way."""

from __future__ import annotations

import pytest

try:  # the Environment and Install pages' fixtures (Qt; a test module without Qt skips itself)
    from tests.gui.install_driver import build, index, root, wheels  # noqa: F401
except ImportError:
    pass


@pytest.fixture
def history_dir(tmp_path, monkeypatch):
    """An empty history of the student's runs (``GSW_DATA_DIR``), so a page that compares with
    the last run sees none of the developer's own."""
    folder = tmp_path / "data"
    monkeypatch.setenv("GSW_DATA_DIR", str(folder))
    return folder
