"""resources/ is found from a source checkout (the wheel case is in tests/integration)."""

from __future__ import annotations

from pathlib import Path

import pytest

from wizard.core import resources

REPO = Path(__file__).resolve().parents[2]


def test_found_in_checkout():
    assert resources.resources_dir() == REPO / "resources"
    assert resources.probe_path("x.py").parent == REPO / "wizard" / "probe"


def test_override_and_missing(monkeypatch, tmp_path):
    resources.resources_dir.cache_clear()
    try:
        (tmp_path / "i18n").mkdir()
        monkeypatch.setenv("GSW_RESOURCES", str(tmp_path))
        assert resources.resources_dir() == tmp_path
        resources.resources_dir.cache_clear()
        monkeypatch.setattr(resources, "_candidates", lambda: [tmp_path / "nowhere"])
        with pytest.raises(resources.ResourceError, match="nowhere"):
            resources.resources_dir()
    finally:
        resources.resources_dir.cache_clear()


def test_bundle_layout(monkeypatch, tmp_path):
    """A PyInstaller bundle puts resources under sys._MEIPASS; that copy wins over the checkout."""
    (tmp_path / "resources" / "i18n").mkdir(parents=True)
    monkeypatch.setattr("sys._MEIPASS", str(tmp_path), raising=False)
    monkeypatch.delenv("GSW_RESOURCES", raising=False)
    resources.resources_dir.cache_clear()
    try:
        assert resources.resources_dir() == tmp_path / "resources"
    finally:
        resources.resources_dir.cache_clear()


def test_packaging_lists_every_package():
    """pyproject names packages explicitly (for the resources mapping): none may be forgotten."""
    tomllib = pytest.importorskip("tomllib")

    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]["packages"])
    actual = {".".join(p.parent.relative_to(REPO).parts) for p in (REPO / "wizard").rglob("__init__.py")}
    assert actual <= listed, actual - listed
