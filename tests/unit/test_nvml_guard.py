"""The NVML crash guard's pieces: the child's answer survives its trip through JSON, and the guard
only stands in for the real bindings (the crash itself: tests/integration/test_nvml_crash.py)."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import pytest

from tests import fake_nvml
from tests.recorded_host import RecordedHost
from wizard.core.base.host import RealHost
from wizard.core.base.typed import build
from wizard.core.machine import nvml_guard
from wizard.core.machine.models import SourceResult
from wizard.core.machine.nvml import query_nvml


@pytest.mark.parametrize("description", [fake_nvml.rtx2080super_windows, fake_nvml.a100_mig_linux,
                                         fake_nvml.gtx1660ti_418])
def test_the_childs_answer_reads_back_exactly(description):
    result = query_nvml(fake_nvml.FakeNvml(description()))
    line = json.dumps(dataclasses.asdict(result))  # what nvml_child prints
    assert build(SourceResult, json.loads(line), "nvml") == result


def test_only_the_real_bindings_go_through_the_child():
    assert nvml_guard.uses_real_bindings(RealHost())
    assert not nvml_guard.uses_real_bindings(RecordedHost(os_name="linux"))

    class WithFake(RealHost):
        def nvml(self):
            return fake_nvml.FakeNvml(fake_nvml.rtx2080super_windows())

    assert not nvml_guard.uses_real_bindings(WithFake())


def test_a_fake_host_is_asked_in_process_and_leaves_no_verdict():
    nvml_guard.reset_for_tests()
    host = RecordedHost(os_name="linux", nvml_module=fake_nvml.FakeNvml(fake_nvml.rtx2080super_windows()))
    result = nvml_guard.query(host, 5.0)
    assert result.status == "ok" and result.gpus
    assert nvml_guard.in_process_refused() is None


def test_no_library_means_nothing_to_crash(tmp_path, monkeypatch):
    monkeypatch.setattr(nvml_guard, "_LINUX_DIRS", (str(tmp_path),))
    monkeypatch.setenv("LD_LIBRARY_PATH", str(tmp_path / "empty"))
    if not sys.platform.startswith("linux"):
        pytest.skip("the Linux loader's folders")
    cache = Path("/etc/ld.so.cache")
    known = not cache.exists() or b"libnvidia-ml.so.1" in cache.read_bytes()  # no cache: cannot tell, ask
    assert nvml_guard.library_may_load() == known
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "libnvidia-ml.so.1").write_bytes(b"")  # one on LD_LIBRARY_PATH: the child asks
    assert nvml_guard.library_may_load()


SAME_ANSWER = """
import sys
from wizard.core.base.host import RealHost
from wizard.core.machine import nvml_guard
if nvml_guard.library_may_load():
    print("library"); sys.exit(0)
quick = nvml_guard.query(RealHost(), 5.0)
imported = "pynvml" in sys.modules
real = nvml_guard.query_in_process(RealHost())  # the bindings themselves, to compare with
print(imported, (quick.status, quick.raw_error, quick.detail) == (real.status, real.raw_error, real.detail))
"""


def test_without_a_library_the_answer_is_the_bindings_own_without_importing_them():
    import os
    import subprocess

    out = subprocess.run([sys.executable, "-c", SAME_ANSWER], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    assert out.returncode == 0, out.stderr
    if out.stdout.strip() == "library":
        pytest.skip("this machine has an NVML library")
    assert out.stdout.split() == ["False", "True"]
