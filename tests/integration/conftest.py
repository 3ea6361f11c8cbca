"""Fixtures of the integration tests (real processes, real servers on 127.0.0.1)."""

from __future__ import annotations

import os
import signal

import pytest

from tests.integration.hung_smi import alive, fake_smi, smi_pids, wizard_env


@pytest.fixture
def hung_smi(tmp_path):
    """(env with the hanging nvidia-smi first on PATH, its pid file); kills leftovers afterwards."""
    pid_file = tmp_path / "smi-pids"
    fake_smi(tmp_path / "bin", pid_file)
    yield wizard_env(tmp_path, tmp_path / "bin"), pid_file
    for pid in smi_pids(pid_file):  # only what the test itself started, by pid
        if alive(pid):
            os.kill(pid, signal.SIGKILL)
