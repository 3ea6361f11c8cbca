"""Interpreter facts: asked once per file, kept while the file is unchanged (issue 17 item 3).

Real files and real interpreters: symlinks to this test's own Python stand for ``/usr/bin/python3``
→ ``python3.11``, a ``pyvenv.cfg`` beside one makes it a venv (same file, another environment), and
the cache is a real file in a temporary folder.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from wizard.core.base.host import RealHost
from wizard.core.machine import pythons
from wizard.core.machine.python_cache import FactsCache, identity

pytestmark = pytest.mark.skipif(os.name == "nt", reason="symlinks")


class CountingHost(RealHost):
    """This machine, counting the interpreters it starts."""

    def __init__(self) -> None:
        super().__init__()
        self.started: list[str] = []

    def run(self, argv, timeout=10.0, env=None):
        self.started.append(str(argv[0]))
        return super().run(argv, timeout, env)


@pytest.fixture
def two_names(tmp_path) -> tuple[str, str]:
    real = os.path.realpath(sys.executable)
    (tmp_path / "bin").mkdir()
    a, b = tmp_path / "bin" / "python3", tmp_path / "bin" / "python3.x"
    a.symlink_to(real)
    b.symlink_to(real)
    return str(a), str(b)


def test_two_names_of_one_file_are_one_candidate(two_names):
    host = RealHost()
    kept = pythons._dedupe_candidates(host, [pythons._Candidate(p, "path") for p in two_names])
    assert [c.path for c in kept] == [two_names[0]]


def test_a_venv_of_the_same_file_stays_a_candidate_of_its_own(two_names, tmp_path):
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text(f"home = {os.path.dirname(os.path.realpath(sys.executable))}\n")
    (venv / "bin" / "python").symlink_to(os.path.realpath(sys.executable))
    host = RealHost()
    kept = pythons._dedupe_candidates(host, [pythons._Candidate(two_names[0], "path"),
                                             pythons._Candidate(str(venv / "bin" / "python"), "common")])
    assert len(kept) == 2
    assert identity(host, two_names[0]) != identity(host, str(venv / "bin" / "python"))


def test_an_unchanged_interpreter_is_asked_once(two_names, tmp_path):
    cache_file = tmp_path / "cache" / "pythons.json"
    host = CountingHost()
    cache = FactsCache(cache_file)
    first, key1 = pythons.query_interpreter(host, two_names[0], "path", cache)
    cache.save()  # the folder is created; the file is written atomically
    # the next run: a new cache read from the file, and the other name of the same file
    again, key2 = pythons.query_interpreter(host, two_names[1], "path", FactsCache(cache_file))
    assert host.started == [two_names[0]]  # one interpreter start for the two runs
    assert first.version == again.version == ".".join(map(str, sys.version_info[:3]))
    assert key1 == key2 is not None


def test_a_changed_file_is_asked_again(two_names, tmp_path):
    cache_file = tmp_path / "pythons.json"
    host = CountingHost()
    cache = FactsCache(cache_file)
    pythons.query_interpreter(host, two_names[0], "path", cache)
    cache.save()
    ident = identity(host, two_names[0])
    doc = json.loads(cache_file.read_text())
    doc["entries"][ident.key]["stamp"][0] -= 1  # as if the executable had been replaced since
    cache_file.write_text(json.dumps(doc))
    pythons.query_interpreter(host, two_names[0], "path", FactsCache(cache_file))
    assert host.started == [two_names[0]] * 2


@pytest.mark.parametrize("content", [b"", b"{not json", b"\xff\xfe\x00", b"[]", b'{"version": 1, "entries": []}',
                                     b'{"version": 1, "entries": {"k": {"stamp": "x", "data": 1}}}',
                                     b'{"version": 99, "entries": {}}'])
def test_a_corrupt_cache_is_ignored_and_replaced(two_names, tmp_path, content):
    cache_file = tmp_path / "pythons.json"
    cache_file.write_bytes(content)
    host = CountingHost()
    cache = FactsCache(cache_file)
    interp, _ = pythons.query_interpreter(host, two_names[0], "path", cache)
    assert interp.version and interp.error is None and host.started == [two_names[0]]
    cache.save()
    assert json.loads(cache_file.read_text())["version"] == 1


def test_a_recorded_host_has_no_identities(two_names):
    from tests.recorded_host import RecordedHost

    assert identity(RecordedHost(os_name="linux"), two_names[0]) is None


def test_pyenv_shims_are_never_run(tmp_path):
    from tests.recorded_host import RecordedHost

    host = RecordedHost(os_name="linux", env={"PYENV_ROOT": str(tmp_path / "pyenv")})
    shim = str(Path(tmp_path / "pyenv" / "shims" / "python3"))
    kept = pythons._dedupe_candidates(host, [pythons._Candidate(shim, "path"),
                                             pythons._Candidate("/usr/bin/python3", "path")])
    assert [c.path for c in kept] == ["/usr/bin/python3"]
