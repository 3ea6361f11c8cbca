"""What the downloader reports (:mod:`wizard.core.install.download`): per file, overall, and the
result of a run. Plain data: the page and the CLI render it, the install summary counts it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

MIN_SPAN_S = 0.2  # a shorter window says nothing about a speed


@dataclass
class FileProgress:
    """One file's state in this run; copied into each :class:`DownloadProgress` snapshot."""

    filename: str
    size: int | None
    done: int = 0
    state: str = "waiting"  # waiting | cached | downloading | verifying | done | failed | cancelled
    resumed_from: int = 0
    attempts: int = 0
    fetched: int = 0  # over the network for this file in this run, bytes fetched again included
    best: int = 0  # the furthest byte this run has reached: only bytes past it are progress
    restarts: int = 0  # times the server sent the whole file again when asked to resume
    waiting_for_other: bool = False  # another install is fetching this file into the same cache


@dataclass
class DownloadProgress:
    """A snapshot for the page: overall and per-file. ``speed_bps`` is the speed of real progress
    (new bytes) over the last few seconds, ``network_bps`` of every byte fetched (bytes fetched
    again after a server restarted a file included); ``eta_s`` comes from the first, and is None
    while there is no progress to go by."""

    files: list[FileProgress]
    total_bytes: int  # known sizes
    done_bytes: int  # on disk, fetched + cached + resumed
    fetched_bytes: int  # over the network in this run
    cached_bytes: int
    speed_bps: float
    eta_s: float | None
    elapsed_s: float
    unknown_sizes: int = 0
    network_bps: float = 0.0
    restarts: int = 0

    @property
    def fraction(self) -> float | None:
        """Share of the known bytes on disk; None while no size is known (an indeterminate bar)."""
        if self.total_bytes <= 0:
            return None
        return min(1.0, self.done_bytes / self.total_bytes)

    @property
    def files_done(self) -> int:
        return sum(1 for f in self.files if f.state in ("done", "cached"))


@dataclass
class DownloadResult:
    paths: dict[str, Path]
    downloaded_bytes: int  # fetched over the network in this run
    from_cache_bytes: int  # complete files already in the cache
    resumed_bytes: int  # partial files from an earlier run, continued
    refetched: list[str] = field(default_factory=list)  # files fetched again after a bad hash
    elapsed_s: float = 0.0
    files: list[FileProgress] = field(default_factory=list)


def rates(samples: Sequence[tuple[float, int, int]]) -> tuple[float, float]:
    """(progress speed, network speed) in bytes/s over ``samples`` -- (time, bytes fetched, new
    bytes) from oldest to newest. The first is what the ETA may use: a server that sends a file
    again from byte 0 moves bytes fast and the download not at all, and "436 MB/s, 0:00 left"
    while stuck at 11 MB is what that looked like before."""
    if len(samples) < 2:
        return 0.0, 0.0
    (t0, fetched0, useful0), (t1, fetched1, useful1) = samples[0], samples[-1]
    span = t1 - t0
    if span < MIN_SPAN_S:
        return 0.0, 0.0
    return max(0, useful1 - useful0) / span, max(0, fetched1 - fetched0) / span


def settle_stopped(files: Iterable[FileProgress]) -> None:
    """The states a stopped run leaves: a file that has bytes on disk is ``cancelled`` (kept for
    Resume), one with none is still ``waiting`` (it was never started, or nothing of it arrived:
    "kept for Resume" would promise what is not there). Finished and failed files keep theirs."""
    for fp in files:
        if fp.state in ("waiting", "downloading", "verifying", "cancelled"):
            fp.state = "cancelled" if fp.done > 0 else "waiting"


__all__ = ["DownloadProgress", "DownloadResult", "FileProgress", "rates", "settle_stopped"]
