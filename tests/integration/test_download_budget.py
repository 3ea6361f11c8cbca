"""The downloader never loops for ever (issue 15, item 1).

Against a server that ignores ``Range`` and cuts every GET (``python -m http.server`` behind
flaky Wi-Fi) the downloader used to fetch the first 30 MB again and again -- 86 GB in 240 s for a
202 MB file -- showing "436 MB/s, 0:00 left". Each test here runs the real downloader against a
real server on 127.0.0.1 (:mod:`tests.integration.hostile_server`) that caps its GETs, so a
downloader that would loop ends on a 404 and the test fails on what was fetched, not by hanging.
"""

from __future__ import annotations

import pytest

from tests.integration.hostile_server import HostileServer
from tests.no_proxy import no_proxy_for_loopback  # noqa: F401  (autouse: loopback without a proxy)
from wizard.core.install.cache import WheelCache
from wizard.core.install.download import DEFAULT_MAX_RESTARTS, Downloader
from wizard.core.install.download_errors import DownloadGaveUp, ResumeUnsupported
from wizard.core.install.download_progress import rates
from wizard.core.install.plan import PlannedFile

SIZE = 2_000_000
CUT = 300_000
NAME = "gsw_big-1.0-py3-none-any.whl"


def payload(n: int = SIZE) -> bytes:
    return bytes((i * 7919 + 13) % 251 for i in range(n))


def planned(server: HostileServer, name: str = NAME) -> PlannedFile:
    return PlannedFile("gsw-big", "1.0", name, server.url(name), server.sha256(name), len(server.files[name]))


def test_a_server_that_ignores_range_and_cuts_every_get_stops_with_a_clear_message(tmp_path):
    snaps = []
    with HostileServer({NAME: payload()}, ignore_range=True, cut_after=CUT) as server:
        dl = Downloader(WheelCache(tmp_path / "cache"), backoff_s=(0.01,), progress=snaps.append)
        with pytest.raises(ResumeUnsupported) as info:
            dl.fetch([planned(server)])
    err = info.value
    # one first GET and DEFAULT_MAX_RESTARTS restarts from byte 0; the next one is never made
    assert server.gets[NAME] == DEFAULT_MAX_RESTARTS + 1
    assert server.served[NAME] == (DEFAULT_MAX_RESTARTS + 1) * CUT <= 3 * SIZE
    assert err.kind == "no-resume" and err.host == "127.0.0.1" and err.restarts == DEFAULT_MAX_RESTARTS
    assert err.fetched == server.served[NAME]
    en, ko = err.message.text("en"), err.message.text("ko")
    assert "does not support resuming" in en and NAME in en and "mirror" in en
    assert "이어받기" in ko and NAME in ko
    # every Range request after the first GET was answered from byte 0: counted as restarts
    assert server.ranges[NAME][0] is None and all(r == f"bytes={CUT}-" for r in server.ranges[NAME][1:])
    last = snaps[-1].files[0]
    assert last.state == "failed" and last.restarts == DEFAULT_MAX_RESTARTS and last.best == CUT
    assert last.fetched == server.served[NAME]
    # the bytes it had are kept for a later run against a server that can resume
    assert WheelCache(tmp_path / "cache").partial_size(planned(server)) == CUT


def test_the_same_cuts_with_a_working_range_still_finish_with_every_byte_once(tmp_path):
    with HostileServer({NAME: payload()}, cut_after=CUT) as server:
        result = Downloader(WheelCache(tmp_path / "cache"), backoff_s=(0.01,)).fetch([planned(server)])
        data = server.files[NAME]
    assert result.paths[NAME].read_bytes() == data
    assert server.served[NAME] == SIZE == result.downloaded_bytes  # resumed, nothing fetched twice
    assert server.gets[NAME] == -(-SIZE // CUT)


def test_a_trickle_of_bytes_per_connection_is_not_progress(tmp_path):
    """A few KB per connection used to reset the failure count every time: thousands of
    connections. Only new bytes past MIN_PROGRESS count; the retries run out and it says so."""
    with HostileServer({NAME: payload()}, cut_after=4096) as server:
        dl = Downloader(WheelCache(tmp_path / "cache"), backoff_s=(0.01,), retries=3)
        with pytest.raises(Exception) as info:
            dl.fetch([planned(server)])
    assert server.gets[NAME] == 4  # the first, then three retries without real progress
    assert info.value.kind == "network" and "127.0.0.1" in info.value.message.text("en")


def test_the_byte_budget_stops_a_file_that_keeps_coming_back(tmp_path):
    """Restarts allowed without limit, and each GET reaching further than the last (so every
    attempt is progress): the byte budget -- three times the file's size -- still ends it."""
    with HostileServer({NAME: payload()}, ignore_range=True, cut_after=CUT, cut_grow=CUT) as server:
        dl = Downloader(WheelCache(tmp_path / "cache"), backoff_s=(0.01,), max_restarts=10_000)
        with pytest.raises(ResumeUnsupported) as info:
            dl.fetch([planned(server)])
    # 0.3 + 0.6 + ... MB: the sixth GET crosses 6 MB, long before a seventh could bring it all
    assert server.gets[NAME] == 6
    assert 3 * SIZE < info.value.fetched <= 3 * SIZE + 256 * 1024  # stopped within a chunk of the budget


def test_the_connection_budget_stops_a_file_even_when_each_one_brings_bytes(tmp_path):
    with HostileServer({NAME: payload()}, cut_after=CUT) as server:
        dl = Downloader(WheelCache(tmp_path / "cache"), backoff_s=(0.01,), max_attempts=3)
        with pytest.raises(DownloadGaveUp) as info:
            dl.fetch([planned(server)])
    assert server.gets[NAME] == 3 and info.value.attempts == 3
    assert "3 connections" in info.value.message.text("en")


def test_speed_and_eta_come_from_new_bytes_not_bytes_fetched_again():
    # (time, fetched over the network, new bytes): 30 MB/s moved, nothing gained
    stuck = [(0.0, 0, 11_000_000), (1.0, 30_000_000, 11_000_000), (2.0, 60_000_000, 11_000_000)]
    assert rates(stuck) == (0.0, 30_000_000.0)
    moving = [(0.0, 0, 0), (2.0, 4_000_000, 4_000_000)]
    assert rates(moving) == (2_000_000.0, 2_000_000.0)
    assert rates(moving[:1]) == (0.0, 0.0) and rates([(0.0, 0, 0), (0.1, 10, 10)]) == (0.0, 0.0)


def test_the_eta_is_unknown_while_a_restarting_server_brings_nothing_new(tmp_path):
    """In the run itself: no snapshot after the first restart claims more progress than the
    furthest byte reached, and the ETA never says a finished-looking 0:00."""
    snaps = []
    with HostileServer({NAME: payload()}, ignore_range=True, cut_after=CUT) as server:
        dl = Downloader(WheelCache(tmp_path / "cache"), backoff_s=(0.01,), progress=snaps.append,
                        progress_interval_s=0.01)
        with pytest.raises(ResumeUnsupported):
            dl.fetch([planned(server)])
    for s in snaps:
        assert s.speed_bps <= s.network_bps + 1e-6
        assert s.eta_s is None or s.eta_s > 0
        assert all(f.best <= CUT for f in s.files)


@pytest.mark.slow  # builds a venv for the install it starts
def test_an_install_against_such_a_server_fails_resumably_with_the_message(tmp_path):
    """The whole step loop: the stop is a recorded failure of the download step (Resume and
    Remove offered), with the sentence the CLI and the window show."""
    import sys

    from wizard.core.base.host import RealHost
    from wizard.core.install.environments import new_venv
    from wizard.core.install.job import InstallOptions
    from wizard.core.install.plan import InstallPlan
    from wizard.core.install.recovery import OPTION_RESUME, STATUS_FAILED, StateStore
    from wizard.core.install.runner import InstallJob, run_steps

    target = new_venv(str(tmp_path / "env"), sys.executable)
    opts = InstallOptions(["gsw-big==1.0"], cache_dir=str(tmp_path / "cache"), state_dir=str(tmp_path / "state"),
                          download_backoff_s=(0.01,))
    with HostileServer({NAME: payload()}, ignore_range=True, cut_after=CUT) as server:
        job = InstallJob(target, opts, RealHost(), lang="ko")
        job.plan = InstallPlan(target.python_exe, list(opts.requirements), None, [planned(server)])
        assert not run_steps(job)
    assert job.failure.step_id == "download" and job.failure.kind == "no-resume"
    assert "이어받기" in job.summary()["error"]["message"]
    state = StateStore(tmp_path / "state").load(target.path)
    assert state.status == STATUS_FAILED and state.failed_step == "download" and state.error_kind == "no-resume"
    assert OPTION_RESUME in state.options()
    assert server.served[NAME] <= 3 * SIZE
