"""Shared test helpers: where the reference captures live, and the language reset."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.torch_env import torch_python  # noqa: F401  (a shared session fixture)
from tests.xvfb import xvfb_display  # noqa: F401  (a shared module fixture)

REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO.parent / "shared" / "reference"
SMI_DIR = REFERENCE / "nvidia-smi"

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def reference_file(*parts: str) -> Path:
    """A file of the shared reference captures; skips the test when they are not beside the repo."""
    path = REFERENCE.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"reference capture {'/'.join(parts)} not available (../shared/reference is absent)")
    return path


@pytest.fixture(autouse=True)
def _english_by_default():
    """Tests start in English; a test that wants Korean sets it."""
    from wizard.core.base.i18n import set_language

    set_language("en")
    yield
    set_language("en")


@pytest.fixture(autouse=True, scope="session")
def _private_data_dir(tmp_path_factory):
    """History snapshots of test runs go to a temporary folder, never the user's data dir."""
    folder = tmp_path_factory.mktemp("gsw-data")
    previous = os.environ.get("GSW_DATA_DIR")
    os.environ["GSW_DATA_DIR"] = str(folder)
    yield folder
    if previous is None:
        os.environ.pop("GSW_DATA_DIR", None)
    else:
        os.environ["GSW_DATA_DIR"] = previous
