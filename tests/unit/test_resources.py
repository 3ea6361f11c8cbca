"""The resources are package data, found the same way in a checkout (here) and a wheel (tests/integration)."""

from __future__ import annotations

from pathlib import Path

import pytest

from wizard.core.base import resources

REPO = Path(__file__).resolve().parents[2]


def test_found_in_checkout():
    assert resources.resources_dir() == REPO / "wizard" / "resources"
    assert resources.probe_path("x.py").parent == REPO / "wizard" / "probe"


def test_override_and_missing(monkeypatch, tmp_path):
    resources.resources_dir.cache_clear()
    try:
        (tmp_path / "i18n").mkdir()
        monkeypatch.setenv("GSW_RESOURCES", str(tmp_path))
        assert resources.resources_dir() == tmp_path
        resources.resources_dir.cache_clear()
        monkeypatch.setenv("GSW_RESOURCES", str(tmp_path / "nowhere"))
        with pytest.raises(resources.ResourceError, match="nowhere"):
            resources.resources_dir()
    finally:
        resources.resources_dir.cache_clear()


def test_packaging_ships_every_package_and_the_data():
    """pyproject finds packages itself and ships the resources as package data."""
    tomllib = pytest.importorskip("tomllib")

    setuptools = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]
    assert setuptools["packages"]["find"]["include"] == ["wizard*"]
    patterns = setuptools["package-data"]["wizard"]
    suffixes = {p.suffix for p in (REPO / "wizard" / "resources").rglob("*") if p.is_file()}
    shipped = {pat.rsplit(".", 1)[-1] for pat in patterns}
    assert {s.lstrip(".") for s in suffixes} <= shipped, suffixes
