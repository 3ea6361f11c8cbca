"""CPU-vs-GPU benchmark, run inside the target environment: ``python bench.py --suite quick``.

stdlib + torch only, Python 3.8 syntax, torch 2.0+; one JSON object per line on stdout (see
verify.py for the line kinds). Each measurement is a ``{"event": "result", "type":
"measurement", "id", "device", "dtype", "size", "median_s", "iqr_s", "value", "unit", ...}``
line; a part that cannot run here is a ``"type": "skip"`` line with a ``reason`` message id.

Timing: ``_timing.measure`` (torch.utils.benchmark's blocked_autorange method, see that
module): inputs are allocated before timing, a time-based warm-up, blocks of calls sized to
``--block-s``, several blocks give a median and an IQR. The CPU runs with all of torch's threads
(``torch.get_num_threads()``), reported with the results - the torch Timer's default of one
thread under-reports a CPU by its core count.
"""

import argparse
import gc
import os
import sys
import time

sys.dont_write_bytecode = True  # leave no __pycache__ in the wizard's (maybe read-only) folder
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common as C  # noqa: E402
import _timing as T  # noqa: E402

MIB = 1024 * 1024
COURSE_N = 5000  # the course's "5000 x 5000 matmul, CPU vs GPU" line
MLP_LAYERS = (1000, 2000, 1000, 10)  # the course's small MLP

SUITES = {
    # sizes: matrix sizes of the GFLOP/s-vs-size sweep; dtype_n: size of the dtype comparison
    # (doubled once when an fp32 call takes under 5 ms); bytes: device copy; transfer: host<->device.
    # Timing (_timing.measure): blocks of block_s seconds until run_s seconds and at least `blocks`
    # blocks are timed (a fast call: ~10 blocks of ~100 calls, a median of many), max_s a soft cap.
    "quick": {"cpu_sweep": [256, 512, 1024, 2048], "gpu_sweep": [256, 512, 1024, 2048, 4096],
              "dtype_n": 4096, "d2d_bytes": 256 * MIB, "transfer_bytes": 64 * MIB, "mlp_batch": 512,
              "warmup_s": 0.03, "block_s": 0.015, "run_s": 0.15, "blocks": 5, "max_s": 1.5, "budget_s": 90.0},
    "full": {"cpu_sweep": [256, 512, 1024, 2048, 4096], "gpu_sweep": [256, 512, 1024, 2048, 4096, 8192],
             "dtype_n": 8192, "d2d_bytes": 1024 * MIB, "transfer_bytes": 256 * MIB, "mlp_batch": 512,
             "warmup_s": 0.05, "block_s": 0.025, "run_s": 0.35, "blocks": 7, "max_s": 4.0, "budget_s": 300.0},
}
PARTS = ("cpu_matmul", "gpu_init", "gpu_matmul", "course", "copy", "transfer", "mlp")
# Why a part did not run: message ids the wizard translates (bench.skip.<reason>).
SKIP_REASONS = ("time_budget", "out_of_memory", "dtype_failed", "no_gpu", "cpu_only_build", "cuda_unavailable",
                "device_cpu_requested", "tf32_needs_ampere", "bf16_unsupported", "pinned_refused", "gpu_failed")


def parse_args(argv):
    p = argparse.ArgumentParser(description="GPU setup wizard: benchmark probe")
    p.add_argument("--suite", choices=sorted(SUITES), default="quick")
    p.add_argument("--device", choices=("auto", "cpu"), default="auto",
                   help="auto: CPU and every usable GPU backend; cpu: the CPU parts only")
    p.add_argument("--only", default="", help="comma list of parts: " + ",".join(PARTS))
    p.add_argument("--max-size", type=int, default=None,
                   help="cap every matrix size (and the course's 5000) - for quick checks and tests")
    p.add_argument("--sizes", default=None, help="comma list of matrix sizes for both sweeps (default: the suite's)")
    p.add_argument("--max-bytes", type=int, default=None, help="cap copy and transfer buffer sizes")
    p.add_argument("--mlp-batch", type=int, default=None)
    p.add_argument("--block-s", type=float, default=None, help="seconds per timed block")
    p.add_argument("--blocks", type=int, default=None, help="at least this many timed blocks per measurement (>= 3)")
    p.add_argument("--run-s", type=float, default=None, help="seconds of timed blocks per measurement")
    p.add_argument("--max-s", type=float, default=None, help="soft time limit of one measurement")
    p.add_argument("--budget-s", type=float, default=None, help="stop starting new parts after this")
    p.add_argument("--threads", type=int, default=None, help="CPU threads (default: torch's own)")
    return p.parse_args(argv)


class OutOfMemory(Exception):
    pass


class PlainSGD(object):
    """Plain SGD (no momentum, no weight decay): ``p -= lr * p.grad``, the update
    torch.optim.SGD does with its defaults, written out. Importing torch.optim loads
    torch._dynamo (some 800 modules, seconds on a laptop) - longer than the measurement.
    ``param_groups`` and ``step()`` are what torch.amp.GradScaler needs of an optimizer."""

    def __init__(self, torch, params, lr):
        self.torch = torch
        self.params = [p for p in params if p.requires_grad]
        self.lr = lr
        self.param_groups = [{"params": self.params, "lr": lr}]

    def zero_grad(self):
        for p in self.params:
            p.grad = None

    def step(self):
        with self.torch.no_grad():
            for p in self.params:
                if p.grad is not None:
                    p.add_(p.grad, alpha=-self.lr)


class Bench(object):
    def __init__(self, ch, args, torch):
        self.ch = ch
        self.args = args
        self.torch = torch
        cfg = dict(SUITES[args.suite])
        for key, value in (("block_s", args.block_s), ("run_s", args.run_s), ("blocks", args.blocks), ("max_s", args.max_s),
                           ("budget_s", args.budget_s), ("mlp_batch", args.mlp_batch)):
            if value is not None:
                cfg[key] = value
        cfg["blocks"] = max(3, int(cfg["blocks"]))
        if args.sizes:
            sizes = [int(x) for x in args.sizes.split(",") if x.strip()]
            cfg["cpu_sweep"] = cfg["gpu_sweep"] = sizes
        self.cfg = cfg
        self.only = set(s.strip() for s in args.only.split(",") if s.strip())
        self.t0 = time.monotonic()
        self.parts_total = 0
        self.parts_done = 0

    # ---------------------------------------------------------------- plumbing
    def wanted(self, part):
        return not self.only or part in self.only

    def cap(self, n):
        return min(n, self.args.max_size) if self.args.max_size else n

    def cap_bytes(self, n):
        return min(n, self.args.max_bytes) if self.args.max_bytes else n

    def over_budget(self):
        return time.monotonic() - self.t0 > self.cfg["budget_s"]

    def step(self, name):
        self.parts_done += 1
        frac = min(1.0, float(self.parts_done) / self.parts_total) if self.parts_total else None
        self.ch.progress(name, fraction=frac)

    def skip(self, id_, device, dtype, reason, **params):
        self.ch.result("skip", id=id_, device=device, dtype=dtype, reason=reason, params=params)

    def measure(self, fn, dev):
        """Time ``fn`` on ``dev`` with this suite's settings (see _timing.measure)."""
        return T.measure(self.torch, fn, dev, self.cfg)

    def emit(self, id_, dev, dtype, size, stats, value, unit, **extra):
        fields = dict(stats)
        fields.update(extra)
        self.ch.result("measurement", id=id_, device=self.dev_name(dev), dtype=dtype, size=size,
                       value=value, unit=unit, **fields)

    @staticmethod
    def dev_name(dev):
        return "cpu" if dev.type == "cpu" else "%s:%d" % (dev.type, dev.index or 0)

    def free_memory(self, dev):
        gc.collect()
        if dev.type == "cuda":
            self.torch.cuda.empty_cache()

    def with_oom_retry(self, dev, size, minimum, run, shrink):
        """Run ``run(size)``; on out-of-memory free everything and try a smaller size."""
        requested = size
        while True:
            try:
                return run(size), size, requested
            except Exception as exc:
                if not C.is_oom(exc):
                    raise
                self.free_memory(dev)
                smaller = shrink(size)
                if smaller < minimum:
                    raise OutOfMemory(str(exc))
                size = smaller

    # ---------------------------------------------------------------- matmul
    def matmul_at(self, dev, dtype_name, n, precision=None, id_="matmul"):
        torch = self.torch
        tdtype = {"fp32": torch.float32, "tf32": torch.float32, "fp16": torch.float16,
                  "bf16": torch.bfloat16}[dtype_name]

        def run(size):
            a = torch.randn(size, size, device=dev, dtype=tdtype)
            b = torch.randn(size, size, device=dev, dtype=tdtype)
            # zeros, not empty: the first call must not pay the page faults of a fresh buffer
            out = torch.zeros(size, size, device=dev, dtype=tdtype)
            previous = torch.get_float32_matmul_precision()
            # "highest" = IEEE fp32, "high" = TF32 allowed; the one switch that works on torch
            # 2.0 through the newer fp32_precision API without mixing the two.
            torch.set_float32_matmul_precision(precision or "highest")
            try:
                return self.measure(lambda: torch.matmul(a, b, out=out), dev)
            finally:
                torch.set_float32_matmul_precision(previous)
                del a, b, out

        stats, size, requested = self.with_oom_retry(dev, n, 128, run, lambda s: s // 2)
        self.free_memory(dev)
        flops = 2.0 * size ** 3
        extra = {"flops": flops}
        if size != requested:
            extra["size_requested"] = requested
        if dev.type == "cpu":
            extra["threads"] = torch.get_num_threads()
        self.emit(id_, dev, dtype_name, size, stats, flops / stats["median_s"] / 1e9, "GFLOP/s", **extra)
        return stats

    def cpu_matmul(self, cpu):
        for n in sorted(set(self.cap(s) for s in self.cfg["cpu_sweep"])):
            if self.over_budget():
                self.skip("matmul", "cpu", "fp32", "time_budget", size=n)
                continue
            self.step("matmul.cpu.%d" % n)
            self.matmul_at(cpu, "fp32", n)

    def gpu_matmul(self, dev, props):
        torch = self.torch
        name = self.dev_name(dev)
        largest = None
        for n in sorted(set(self.cap(s) for s in self.cfg["gpu_sweep"])):
            if self.over_budget():
                self.skip("matmul", name, "fp32", "time_budget", size=n)
                continue
            self.step("matmul.%s.%d" % (name, n))
            try:
                largest = (n, self.matmul_at(dev, "fp32", n))
            except OutOfMemory:
                self.skip("matmul", name, "fp32", "out_of_memory", size=n)
        # The dtype comparison runs at one size for all dtypes; on a fast card (an fp32 call of
        # the sweep's largest size under 5 ms) at twice that, so tensor cores reach full speed.
        n = self.cap(self.cfg["dtype_n"])
        if largest is not None and largest[0] >= n and largest[1]["median_s"] < 0.005 and not self.args.max_size:
            n *= 2
        major = props.get("major", 0)
        is_cuda = dev.type == "cuda"
        plans = [("fp32", "highest", True, None),
                 ("tf32", "high", is_cuda and not torch.version.hip and major >= 8, "tf32_needs_ampere"),
                 ("fp16", "highest", True, None),
                 ("bf16", "highest", (C.safe(lambda: torch.cuda.is_bf16_supported()) is True) if is_cuda else True,
                  "bf16_unsupported")]
        for dtype_name, precision, supported, reason in plans:
            if not supported:
                self.skip("matmul_dtype", name, dtype_name, reason, size=n)
                continue
            if self.over_budget():
                self.skip("matmul_dtype", name, dtype_name, "time_budget", size=n)
                continue
            self.step("matmul.%s.%s" % (name, dtype_name))
            try:
                self.matmul_at(dev, dtype_name, n, precision=precision, id_="matmul_dtype")
            except OutOfMemory:
                self.skip("matmul_dtype", name, dtype_name, "out_of_memory", size=n)
            except Exception as exc:
                if dtype_name == "fp32" or is_cuda:
                    raise
                # MPS/XPU: a dtype this backend or OS version lacks (bf16 before macOS 14)
                self.skip("matmul_dtype", name, dtype_name, "dtype_failed", size=n,
                          error="%s: %s" % (type(exc).__name__, exc))

    def course(self, devices):
        """The course's line, as students know it: 5000 x 5000 fp32 matmul, CPU vs GPU."""
        n = self.cap(COURSE_N)
        for dev in devices:
            name = self.dev_name(dev)
            if self.over_budget():
                self.skip("course_matmul", name, "fp32", "time_budget", size=n)
                continue
            self.step("course.%s" % name)
            try:
                self.matmul_at(dev, "fp32", n, precision="highest", id_="course_matmul")
            except OutOfMemory:
                self.skip("course_matmul", name, "fp32", "out_of_memory", size=n)

    # ---------------------------------------------------------------- memory traffic
    def copy_d2d(self, dev):
        torch = self.torch
        name = self.dev_name(dev)
        if self.over_budget():
            self.skip("copy_d2d", name, None, "time_budget")
            return
        self.step("copy.%s" % name)

        def run(nbytes):
            x = torch.empty(nbytes // 4, dtype=torch.float32, device=dev).fill_(1.0)
            y = torch.empty_like(x)
            try:
                return self.measure(lambda: y.copy_(x), dev)
            finally:
                del x, y

        try:
            stats, nbytes, requested = self.with_oom_retry(dev, self.cap_bytes(self.cfg["d2d_bytes"]), 16 * MIB,
                                                           run, lambda s: s // 2)
        except OutOfMemory:
            self.skip("copy_d2d", name, None, "out_of_memory")
            return
        self.free_memory(dev)
        extra = {"bytes": nbytes}
        if nbytes != requested:
            extra["size_requested"] = requested
        # a copy reads N bytes and writes N bytes; decimal GB/s like the spec sheets
        self.emit("copy_d2d", dev, "fp32", nbytes, stats, 2.0 * nbytes / stats["median_s"] / 1e9, "GB/s", **extra)

    def transfers(self, dev):
        torch = self.torch
        name = self.dev_name(dev)
        nbytes = self.cap_bytes(self.cfg["transfer_bytes"])
        try:
            device_buf = torch.empty(nbytes, dtype=torch.uint8, device=dev)
            pageable = torch.ones(nbytes, dtype=torch.uint8)
        except Exception as exc:
            if not C.is_oom(exc):
                raise
            for id_ in ("h2d_pageable", "d2h_pageable", "h2d_pinned", "d2h_pinned"):
                self.skip(id_, name, None, "out_of_memory")
            return
        pinned = None
        try:
            pinned = pageable.pin_memory()
        except Exception as exc:  # page-locked memory can be refused (limits, WSL)
            pinned_error = "%s: %s" % (type(exc).__name__, exc)
        plans = [("h2d_pageable", lambda: device_buf.copy_(pageable)),
                 ("d2h_pageable", lambda: pageable.copy_(device_buf))]
        if pinned is not None:
            plans += [("h2d_pinned", lambda: device_buf.copy_(pinned, non_blocking=True)),
                      ("d2h_pinned", lambda: pinned.copy_(device_buf, non_blocking=True))]
        else:
            self.skip("h2d_pinned", name, None, "pinned_refused", error=pinned_error)
            self.skip("d2h_pinned", name, None, "pinned_refused", error=pinned_error)
        for id_, fn in plans:
            if self.over_budget():
                self.skip(id_, name, None, "time_budget")
                continue
            self.step("%s.%s" % (id_, name))
            stats = self.measure(fn, dev)
            self.emit(id_, dev, "uint8", nbytes, stats, nbytes / stats["median_s"] / 1e9, "GB/s", bytes=nbytes)
        del device_buf, pageable, pinned
        self.free_memory(dev)

    # ---------------------------------------------------------------- training loop
    def mlp(self, dev, amp=False):
        torch = self.torch
        name = self.dev_name(dev)
        dtype_name = "amp_fp16" if amp else "fp32"
        if self.over_budget():
            self.skip("mlp_train", name, dtype_name, "time_budget")
            return
        self.step("mlp.%s.%s" % (name, dtype_name))
        batch = int(self.cfg["mlp_batch"])
        layers = []
        for i in range(len(MLP_LAYERS) - 1):
            layers.append(torch.nn.Linear(MLP_LAYERS[i], MLP_LAYERS[i + 1]))
            if i < len(MLP_LAYERS) - 2:
                layers.append(torch.nn.ReLU())
        model = torch.nn.Sequential(*layers).to(dev)
        opt = PlainSGD(torch, model.parameters(), lr=0.01)
        x = torch.randn(batch, MLP_LAYERS[0], device=dev)
        y = torch.randint(0, MLP_LAYERS[-1], (batch,), device=dev)
        loss_fn = torch.nn.functional.cross_entropy
        scaler = None
        if amp:
            scaler = torch.amp.GradScaler("cuda") if hasattr(torch.amp, "GradScaler") else torch.cuda.amp.GradScaler()

        def train_step():
            opt.zero_grad()
            if amp:
                with torch.amp.autocast(device_type=dev.type, dtype=torch.float16):
                    loss = loss_fn(model(x), y)
                scaler.scale(loss).backward()
                scaler.step(opt)
                scaler.update()
            else:
                loss = loss_fn(model(x), y)
                loss.backward()
                opt.step()

        caught = []
        with C.captured_warnings(caught):
            stats = self.measure(train_step, dev)
        params = sum(p.numel() for p in model.parameters())
        extra = {"batch": batch, "params": params, "samples_per_s": batch / stats["median_s"],
                 "layers": list(MLP_LAYERS), "warnings": caught[:5]}
        if dev.type == "cpu":
            extra["threads"] = torch.get_num_threads()
        self.emit("mlp_train", dev, dtype_name, batch, stats, 1.0 / stats["median_s"], "steps/s", **extra)
        del model, opt, x, y
        self.free_memory(dev)

    # ---------------------------------------------------------------- GPU start-up cost
    def gpu_init(self, dev):
        """First CUDA call and first matmul, timed once: why the first step of a notebook is slow."""
        torch = self.torch
        name = self.dev_name(dev)
        start = time.perf_counter()
        torch.cuda.init()
        torch.empty(1, device=dev)
        torch.cuda.synchronize(dev)
        init_s = time.perf_counter() - start
        start = time.perf_counter()
        a = torch.randn(1024, 1024, device=dev)
        (a @ a).sum().item()
        first_s = time.perf_counter() - start
        for id_, value in (("cuda_init", init_s), ("first_matmul", first_s)):
            self.ch.result("measurement", id=id_, device=name, dtype="fp32" if id_ == "first_matmul" else None,
                           size=1024 if id_ == "first_matmul" else None, median_s=value, iqr_s=0.0, value=value,
                           unit="s", blocks=1, iters_per_block=1)
        del a

    # ---------------------------------------------------------------- the run
    def gpu_devices(self):
        torch = self.torch
        found = []
        if self.args.device == "cpu":
            return found, "device_cpu_requested"
        reason = "no_gpu"
        if torch.version.cuda or torch.version.hip:
            caught = []  # the warnings themselves are the verify probe's business
            with C.captured_warnings(caught):
                # an is_available() that raises means "no usable GPU" here, as it returns False
                available = C.safe(torch.cuda.is_available) is True
            if available:
                found.append(torch.device("cuda", 0))
            else:
                reason = "cuda_unavailable"
        else:
            reason = "cpu_only_build"
            mps = getattr(torch.backends, "mps", None)
            if mps is not None and C.safe(mps.is_available) is True:
                found.append(torch.device("mps"))
            elif getattr(torch, "xpu", None) is not None and C.safe(torch.xpu.is_available) is True:
                found.append(torch.device("xpu", 0))
        return found, reason

    def gpu_part(self, name, fn):
        """Run one GPU part. A GPU fault (no kernel image, a lost device, a driver error) ends
        the GPU side with an ``error`` line and skips the rest of it; the CPU side goes on."""
        if self.gpu_error is not None:
            self.skip(name, "gpu", None, "gpu_failed")
            return
        try:
            fn()
        except Exception as exc:
            info = C.exc_info(exc)
            info["cause"] = C.classify_error(exc)
            info["part"] = name
            self.ch.error("gpu-failed", **info)
            self.gpu_error = info
            self.skip(name, "gpu", None, "gpu_failed")

    def run(self):
        torch = self.torch
        ch = self.ch
        if self.args.threads:
            torch.set_num_threads(self.args.threads)
        cpu = torch.device("cpu")
        gpus, no_gpu_reason = self.gpu_devices()
        gpu = gpus[0] if gpus else None
        self.gpu_error = None
        props = {}
        if gpu is not None and gpu.type == "cuda" and self.wanted("gpu_init"):
            self.gpu_part("cuda_init", lambda: self.gpu_init(gpu))  # first, or the start-up cost is already paid
        if gpu is not None and gpu.type == "cuda":
            try:
                p = torch.cuda.get_device_properties(gpu)
                props = {"name": p.name, "major": p.major, "minor": p.minor,
                         "capability": "%d.%d" % (p.major, p.minor), "total_memory": int(p.total_memory),
                         "multi_processor_count": int(p.multi_processor_count)}
                props["free_memory"], _ = torch.cuda.mem_get_info(gpu)
            except Exception as exc:
                props.setdefault("error", "%s: %s" % (type(exc).__name__, exc))
        elif gpu is not None:
            props = {"name": gpu.type.upper()}
        facts = C.torch_version_facts(torch)
        facts.pop("config", None)
        ch.facts("bench", {"suite": self.args.suite, "config": self.cfg, "torch": facts,
                           "threads": torch.get_num_threads(), "cpu": C.python_facts().get("cpu_model"),
                           "cpu_count": os.cpu_count(),
                           "gpu": dict(props, device=self.dev_name(gpu)) if gpu is not None else None,
                           "no_gpu_reason": None if gpu is not None else no_gpu_reason,
                           "max_size": self.args.max_size})

        cpu_sweep = len(set(self.cap(s) for s in self.cfg["cpu_sweep"]))
        gpu_sweep = len(set(self.cap(s) for s in self.cfg["gpu_sweep"])) + 4
        self.parts_total = (cpu_sweep * self.wanted("cpu_matmul") + 2 * self.wanted("course")
                            + 2 * self.wanted("mlp"))
        if gpu is not None:
            self.parts_total += (gpu_sweep * self.wanted("gpu_matmul") + self.wanted("copy")
                                 + 4 * self.wanted("transfer") + self.wanted("mlp"))

        if self.wanted("cpu_matmul"):
            self.cpu_matmul(cpu)
        if gpu is None:
            for id_, dtype in (("matmul", "fp32"), ("matmul_dtype", None), ("copy_d2d", None), ("h2d_pinned", None),
                               ("mlp_train", "fp32")):
                self.skip(id_, "gpu", dtype, no_gpu_reason)
        if gpu is not None and self.wanted("gpu_matmul"):
            self.gpu_part("matmul", lambda: self.gpu_matmul(gpu, props))
        if self.wanted("course"):
            self.course([cpu])
            if gpu is not None:
                self.gpu_part("course_matmul", lambda: self.course([gpu]))
        if gpu is not None and gpu.type == "cuda":
            if self.wanted("copy"):
                self.gpu_part("copy_d2d", lambda: self.copy_d2d(gpu))
            if self.wanted("transfer"):
                self.gpu_part("transfer", lambda: self.transfers(gpu))
        if self.wanted("mlp"):
            self.mlp(cpu)
            if gpu is not None:
                self.gpu_part("mlp_train", lambda: self.mlp(gpu))
                if gpu.type == "cuda":
                    self.gpu_part("mlp_train", lambda: self.mlp(gpu, amp=True))
        ch.progress("done", fraction=1.0)


def main(argv=None):
    ch = C.Channel("bench")
    C.install_hooks(ch)
    try:
        args = parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as exc:
        ch.error("bad-arguments", message="invalid arguments: %s" % (sys.argv[1:] if argv is None else argv))
        return int(exc.code or 2)
    ch.progress("start", protocol=C.PROTOCOL, args=vars(args))
    ch.facts("python", C.python_facts())
    torch, _ = C.import_torch(ch)
    if torch is None:
        ch.done(aborted=True)
        return 0  # the error line says why; the probe itself did its job
    T.freeze_imported()  # every later collection (and the exit) skips torch's own objects
    try:
        Bench(ch, args, torch).run()
    except SystemExit:
        raise
    except Exception as exc:  # a CUDA fault mid-run: the results so far stand, the error is reported
        info = C.exc_info(exc)
        info["cause"] = C.classify_error(exc)
        ch.error("bench-failed", **info)
        ch.done(aborted=True)
        return 1
    ch.done()
    return 0


if __name__ == "__main__":
    sys.exit(main())
