"""How the benchmark probe times one operation (bench.py's parts all call :func:`measure`).

stdlib + torch only, Python 3.8 syntax, imported by bench.py as the top-level module
``_timing`` from its own folder, as ``_common`` is.

The method is torch.utils.benchmark's ``blocked_autorange`` (and triton's ``do_bench``), so
that the probe's numbers and the Timer's agree (benchmarks/bench_probe.py checks it at every
size of the quick sweep):

* inputs exist before the first call; nothing but the operation is inside a timed block;
* a time-based warm-up (the first call and at least one more) also estimates one call's cost;
* blocks of ``k`` calls sized to take ``block_s`` seconds, so that the clock's resolution and
  the loop's own cost vanish (a 256 x 256 CPU matmul takes ~0.2 ms: a block is ~90 calls);
* blocks until ``run_s`` seconds are timed (the Timer's ``min_run_time``) and at least
  ``blocks`` of them: a fast call gets ~10 blocks, a median of many; a block that the OS
  delayed (another process took a core) moves the median little;
* GPU blocks are timed with CUDA events and a synchronize, CPU blocks with ``perf_counter``;
* Python's cyclic garbage collector is off inside the blocks, as ``timeit`` (and so the
  Timer) keeps it off: one collection with torch imported takes ~80 ms, longer than a block.
"""

import gc
import math
import time

import _common as C


def sync_for(torch, dev):
    """The call that waits for ``dev``'s queued work (nothing to wait for on the CPU)."""
    if dev.type == "cuda":
        return lambda: torch.cuda.synchronize(dev)
    if dev.type == "mps":
        return torch.mps.synchronize
    if dev.type == "xpu":
        return torch.xpu.synchronize
    return lambda: None


class gc_paused(object):
    """Python's garbage collector off for the ``with`` block, and back as it was after."""

    def __enter__(self):
        self.was_enabled = gc.isenabled()
        gc.disable()
        return self

    def __exit__(self, *exc):
        if self.was_enabled:
            gc.enable()
        return False


def freeze_imported():
    """Move every object alive now (torch's ~160 000 objects after its import) out of the collector's view.

    Why: with torch imported one full collection walks them all (~80 ms on a laptop core), and
    the interpreter's exit does several; objects made later are still collected as usual.
    No collection first: it would cost that same full walk, for the few cycles an import leaves.
    """
    if hasattr(gc, "freeze"):  # Python 3.7+
        gc.freeze()


def warm_up(fn, sync, first, cfg, on_cpu):
    """Untimed calls after the first: (calls made, the fastest one's seconds or None).

    Time-based: clocks ramp, caches and kernels load; at least one call after the first, then
    until ``warmup_s`` has passed. The fastest call sizes the blocks: one call delayed by the
    OS must not shrink every block to a couple of calls. On the CPU a call that alone takes
    half of ``max_s`` (the course's 5000 x 5000 on a laptop: seconds) was its own warm-up;
    another untimed call would only cost the student time. A GPU always warms up: its first
    call also pays one-time costs (cuBLAS, clocks ramping)."""
    now = time.perf_counter
    n = 0
    fastest = None
    t0 = now()
    while not on_cpu or first < cfg["max_s"] / 2.0:
        c = now()
        fn()
        sync()
        c = now() - c
        fastest = c if fastest is None else min(fastest, c)
        n += 1
        spent = now() - t0
        if spent >= cfg["warmup_s"] or spent + first >= cfg["max_s"] / 3.0:
            break
    return n, fastest


def timed_blocks(torch, fn, sync, k, blocks, use_events):
    """Per-call seconds of ``blocks`` blocks of ``k`` calls each (collector paused)."""
    now = time.perf_counter
    times = []
    with gc_paused():
        for _ in range(blocks):
            if use_events:
                begin = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                begin.record()
                for _ in range(k):
                    fn()
                end.record()
                end.synchronize()
                times.append(begin.elapsed_time(end) / 1000.0 / k)
            else:
                sync()
                b = now()
                for _ in range(k):
                    fn()
                sync()
                times.append((now() - b) / k)
    return times


def measure(torch, fn, dev, cfg):
    """Time ``fn`` on ``dev``: warm-up, block sizing, several blocks; per-call seconds and how
    they were taken. ``cfg``: ``warmup_s``, ``block_s``, ``run_s``, ``blocks`` (>= 3), ``max_s``."""
    sync = sync_for(torch, dev)
    on_cpu = dev.type == "cpu"
    start = time.perf_counter()
    fn()
    sync()
    first = time.perf_counter() - start
    n, fastest = warm_up(fn, sync, first, cfg, on_cpu)
    est = fastest if fastest is not None else first
    k = max(1, min(100000, int(round(cfg["block_s"] / est)))) if est > 0 else 1
    per_block = k * est
    blocks = cfg["blocks"]
    if per_block > 0:
        # as many blocks as fill run_s (the Timer's min_run_time), at least `blocks`, and as
        # many as still fit in the soft limit max_s (never fewer than three)
        blocks = max(blocks, int(math.ceil(cfg.get("run_s", 0.0) / per_block)))
        remaining = cfg["max_s"] - (time.perf_counter() - start)
        blocks = max(3, min(blocks, int(remaining / per_block)))
    use_events = dev.type == "cuda"
    times = []
    own_warmup = on_cpu and n == 0  # the long first CPU call was its own warm-up
    if own_warmup:
        # It ran right after the sweep (threads up, caches warm): it counts as the first of the
        # three samples instead of costing the student a fourth multi-second call.
        times.append(first)
        blocks = max(2, blocks - 1)
    times += timed_blocks(torch, fn, sync, k, blocks, use_events)
    stats = C.summarise_times(times)
    stats.update({"iters_per_block": k, "blocks": len(times), "warmup_calls": 0 if own_warmup else n + 1,
                  "first_call_s": first, "times_s": times,
                  "timer": "cuda_events" if use_events else "perf_counter+sync"})
    return stats
