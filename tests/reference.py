"""The shared reference captures beside the repository (``../shared/reference``): real
nvidia-smi outputs, the failure catalogue, the VRAM figures. Tests read them from there; they are
never copied into the project. A test whose capture is absent is skipped, not failed."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO.parent / "shared" / "reference"
SMI_DIR = REFERENCE / "nvidia-smi"


def reference_file(*parts: str) -> Path:
    """A file of the shared reference captures; skips the test when they are not beside the repo."""
    path = REFERENCE.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"reference capture {'/'.join(parts)} not available (../shared/reference is absent)")
    return path
