"""Verify a PyTorch environment from inside it: ``python verify.py [--skip collect_env,tensorflow]``.

Run as a file by the target environment's interpreter (stdlib + torch only, Python 3.8
syntax, torch 2.0+). Prints one JSON object per line on stdout:

* ``{"event": "progress", "step": ..., "fraction": ...}`` while it works;
* ``{"event": "result", "type": "facts", "section": ..., "data": {...}}``: what it found
  (python, env, driver, torch, devices);
* ``{"event": "result", "type": "check", "id": ..., "status": "pass"|"warn"|"fail"|"skip",
  "device": ..., "evidence": {...}, "cause": id, "fix": id, "detail": id, "params": {...}}``:
  what it ran; ``cause``/``fix``/``detail`` are message ids the wizard translates;
* ``{"event": "result", "type": "collect_env", ...}``: ``python -m torch.utils.collect_env``;
* ``{"event": "error", "id": ...}``: torch missing or broken, or a fault of this script;
* ``{"event": "result", "type": "done"}`` last, so a reader can tell a finished run from a
  killed one.

The checks here are the ones that need running code. Judgements that compare facts (is this
GPU's compute capability in the build's arch list? is the driver new enough for the wheel's
CUDA? a CPU-only build on a machine with an NVIDIA GPU?) are made by the wizard from the facts,
where they can also use what the wizard detected outside this environment.
"""

import argparse
import importlib.util
import os
import sys
import time

sys.dont_write_bytecode = True  # leave no __pycache__ in the wizard's (maybe read-only) folder
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common as C  # noqa: E402  (needs the path above)
from _models import ModelChecks  # noqa: E402  (the same folder)

# Relative Frobenius error ||C - ref|| / ||ref|| allowed for an n x n matmul (n = 256) against a
# float64 reference computed from the same (already rounded) inputs. The expected errors are
# about 1e-6 (fp32: accumulation of 256 products at eps 1.2e-7), 3e-4 (fp16: output rounding at
# 2^-11) and 2e-3 (bf16: 2^-8). Each limit is ten times or more above that, and the fp32 limit
# is below what TF32 gives (about 3e-4), so "fp32" silently computed in TF32 fails the check.
TOLERANCE = {"fp32": 1e-4, "fp16": 5e-3, "bf16": 2e-2}
MATMUL_N = 256
LOW_FREE_FRACTION = 0.10  # less free GPU memory than this share of the total: other programs hold it

# The torch family: packages with compiled operators built against one torch build each. One
# from another index (PyPI's torchvision beside a CPU torch from download.pytorch.org) imports
# badly or not at all, so each one installed here is imported and runs one small operation.
FAMILY = ("torchvision", "torchaudio")
# Texts of a package built for another torch (public issue threads): the operator registry
# misses its ops, its C++ library does not load, or a symbol of torch's is not there.
MISMATCH_MARKS = ("torchvision::", "torchaudio::", "no such operator", "couldn't load custom c++ ops",
                  "undefined symbol", "procedure could not be found", "specified procedure could not",
                  "version mismatch", "compiled against", "incompatible")
FAMILY_OPS = {"torchvision": "torchvision.ops.nms", "torchaudio": "torchaudio.transforms.Spectrogram"}


def parse_args(argv):
    p = argparse.ArgumentParser(description="GPU setup wizard: verification probe")
    p.add_argument("--skip", default="", help="comma list of parts to leave out: collect_env,tensorflow,amp,tiny_bert")
    p.add_argument("--collect-env-timeout", type=float, default=120.0)
    p.add_argument("--tensorflow-timeout", type=float, default=120.0)
    return p.parse_args(argv)


def _rel_error(torch, out, ref):
    out = out.detach().to("cpu", torch.float64)
    ref = ref.detach().to("cpu", torch.float64)
    denom = torch.linalg.norm(ref).item()
    err = torch.linalg.norm(out - ref).item()
    return err / denom if denom else err


def _inputs(torch, n, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, n, generator=g), torch.randn(n, n, generator=g)


class Verifier(ModelChecks):
    def __init__(self, ch, args):
        self.ch = ch
        self.args = args
        self.skip = set(s.strip() for s in args.skip.split(",") if s.strip())
        self.torch = None
        self.cuda_devices = 0
        self.cuda_warnings = []
        self.kernel_ok = {}
        self.steps = []

    # ---------------------------------------------------------------- small helpers
    def progress(self, step):
        self.steps.append(step)
        self.ch.progress(step)

    def guarded(self, check_id, fn, device=None, fix=None):
        """Run one check; an exception becomes this check failing with the exception's text."""
        try:
            fn()
        except Exception as exc:
            cause = C.classify_error(exc)
            self.ch.check(check_id, "fail", evidence=C.exc_info(exc), cause=cause, fix=fix or cause,
                          device=device)

    # ---------------------------------------------------------------- the run
    def run(self):
        ch = self.ch
        self.progress("python")
        ch.facts("python", C.python_facts())
        ch.facts("env", C.env_facts())
        self.progress("driver")
        driver = C.driver_facts()
        ch.facts("driver", driver)

        self.progress("import_torch")
        torch, import_facts = C.import_torch(ch)
        if torch is not None:
            self.torch = torch
            facts = C.torch_version_facts(torch)
            facts.update(import_facts)
            ch.facts("torch", facts)
            ch.check("torch.import", "pass", evidence={"version": facts["version"], "file": facts.get("file"),
                                                       "import_s": facts.get("import_s")},
                     detail="torch_version", params={"version": facts["version"]})
            self.guarded("cpu.matmul", self.check_cpu_matmul)
            self.guarded("cpu.train_step", self.check_cpu_train_step)
            self.family_section()
            self.cuda_section()
            self.mps_section()
            self.xpu_section()
            if "tiny_bert" not in self.skip:
                self.guarded("model.tiny_bert", self.check_tiny_bert)
        if "tensorflow" not in self.skip:
            self.progress("tensorflow")
            self.check_tensorflow(driver)
        if torch is not None and "collect_env" not in self.skip:
            self.progress("collect_env")
            self.collect_env()
        ch.done(steps=self.steps)

    # ---------------------------------------------------------------- CPU
    def check_cpu_matmul(self):
        torch = self.torch
        self.progress("cpu.matmul")
        a, b = _inputs(torch, MATMUL_N)
        start = time.perf_counter()
        out = a @ b
        elapsed = time.perf_counter() - start
        err = _rel_error(torch, out, a.double() @ b.double())
        ok = err <= TOLERANCE["fp32"]
        self.ch.check("cpu.matmul", "pass" if ok else "fail",
                      evidence={"n": MATMUL_N, "dtype": "fp32", "rel_error": err, "tolerance": TOLERANCE["fp32"],
                                "seconds": elapsed, "threads": torch.get_num_threads()},
                      cause=None if ok else "wrong_result", fix=None if ok else "reinstall_torch",
                      detail="rel_error", params={"error": "%.1e" % err, "limit": "%.0e" % TOLERANCE["fp32"]})

    def _train_steps(self, device, steps, amp_dtype=None, scaler=None):
        """A few SGD steps of a small MLP; returns evidence. With ``amp_dtype`` the forward pass
        runs under ``torch.amp.autocast`` (the current API; ``torch.cuda.amp`` is deprecated)."""
        torch = self.torch
        g = torch.Generator().manual_seed(1)
        model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10)).to(device)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        x = torch.randn(32, 64, generator=g).to(device)
        y = torch.randint(0, 10, (32,), generator=g).to(device)
        before = model[0].weight.detach().clone()
        losses, out_dtype, caught = [], None, []
        with C.captured_warnings(caught):
            for _ in range(steps):
                opt.zero_grad(set_to_none=True)
                if amp_dtype is not None:
                    with torch.amp.autocast(device_type=device.type, dtype=amp_dtype):
                        out = model(x)
                        loss = torch.nn.functional.cross_entropy(out, y)
                    out_dtype = str(out.dtype).replace("torch.", "")
                else:
                    out = model(x)
                    loss = torch.nn.functional.cross_entropy(out, y)
                    out_dtype = str(out.dtype).replace("torch.", "")
                if scaler is not None:
                    scaler.scale(loss).backward()
                    scaler.step(opt)
                    scaler.update()
                else:
                    loss.backward()
                    opt.step()
                losses.append(float(loss.detach().float().cpu().item()))
        changed = not torch.equal(before.cpu(), model[0].weight.detach().cpu())
        finite = all(v == v and abs(v) != float("inf") for v in losses)
        evidence = {"losses": losses, "params_changed": changed, "output_dtype": out_dtype,
                    "warnings": caught,
                    "deprecation_warnings": [w["message"] for w in caught if w["category"] == "FutureWarning"]}
        if scaler is not None:
            evidence["grad_scale"] = float(scaler.get_scale())
        return evidence, finite and changed

    def check_cpu_train_step(self):
        self.progress("cpu.train_step")
        evidence, ok = self._train_steps(self.torch.device("cpu"), steps=2)
        self.ch.check("cpu.train_step", "pass" if ok else "fail", evidence=evidence,
                      cause=None if ok else "train_step_failed", fix=None if ok else "reinstall_torch",
                      detail="train_step" if ok else None, params={"loss": "%.3f" % evidence["losses"][-1]})

    # ---------------------------------------------------------------- torchvision, torchaudio
    def family_section(self):
        """Import every torch-family package installed here and run one small op of each; a
        package that is not installed is a skip, one that fails says whether it looks like a
        build made for another torch."""
        for name in FAMILY:
            try:
                spec = importlib.util.find_spec(name)
            except (ImportError, ValueError):
                spec = None
            if spec is None:
                self.ch.check(name, "skip", evidence={"installed": False}, detail="family_absent",
                              params={"name": name})
                continue
            self.progress(name)
            self.check_family(name)

    def check_family(self, name):
        torch = self.torch
        params = {"name": name, "version": _dist_version(name) or "?", "torch": torch.__version__,
                  "op": FAMILY_OPS[name]}
        stage = "import"
        caught = []
        try:
            with C.captured_warnings(caught):
                module = importlib.import_module(name)
                params["version"] = str(getattr(module, "__version__", params["version"]))
                stage = "op"
                result = (_torchvision_op if name == "torchvision" else _torchaudio_op)(torch, module)
        except Exception as exc:
            text = "%s: %s" % (type(exc).__name__, exc)
            mismatch = any(mark in text.lower() for mark in MISMATCH_MARKS)
            evidence = C.exc_info(exc)
            evidence.update({"stage": stage, "warnings": caught})
            params["error"] = text.strip().splitlines()[0][:300] if text.strip() else type(exc).__name__
            self.ch.check(name, "fail", evidence=evidence,
                          cause="family_mismatch" if mismatch else "family_broken", fix="family_reinstall",
                          detail="family_import_failed" if stage == "import" else "family_op_failed", params=params)
            return
        ok = result is True
        self.ch.check(name, "pass" if ok else "fail", evidence={"version": params["version"], "op": params["op"],
                                                                "result": result, "warnings": caught},
                      detail="family_ok" if ok else "family_op_failed",
                      cause=None if ok else "family_broken", fix=None if ok else "family_reinstall",
                      params=dict(params, error="%s gave %r" % (params["op"], result)))

    # ---------------------------------------------------------------- CUDA (and ROCm, via torch.cuda)
    def cuda_section(self):
        torch = self.torch
        ch = self.ch
        self.progress("cuda.init")
        info = {"arch_list": [], "is_available": False, "device_count": 0}
        with C.captured_warnings(self.cuda_warnings):
            info["arch_list"] = C.safe(torch.cuda.get_arch_list, default=[])
            try:
                info["is_available"] = bool(torch.cuda.is_available())
                info["device_count"] = int(torch.cuda.device_count())
            except Exception as exc:  # a broken driver can raise here instead of returning False
                info["error"] = C.exc_info(exc)
            if info["is_available"]:
                try:
                    start = time.perf_counter()
                    torch.cuda.init()  # runs torch's own sm_XX / cubin checks, which warn
                    info["init_s"] = round(time.perf_counter() - start, 3)
                except Exception as exc:
                    info["init_error"] = C.exc_info(exc)
        info["warnings"] = self.cuda_warnings
        info["nccl"] = self._nccl_version()
        ch.facts("cuda", info)
        self.cuda_devices = info["device_count"] if info["is_available"] else 0

        devices = []
        for i in range(self.cuda_devices):
            devices.append(self._device_props(i))
        ch.facts("devices", devices)

        if not (torch.version.cuda or torch.version.hip):
            return  # CPU-only build: the wizard explains it from the facts; nothing to run
        if not self.cuda_devices:
            return  # is_available() False: the wizard explains why from the warnings and the driver
        for i in range(self.cuda_devices):
            dev = torch.device("cuda", i)
            self.guarded("cuda.kernel", lambda: self.check_kernel(dev), device=i)
            if not self.kernel_ok.get(i):
                for cid in ("cuda.matmul.fp32", "cuda.matmul.fp16", "cuda.memory"):
                    ch.check(cid, "skip", device=i, detail="kernel_failed")
                continue
            for dtype in ("fp32", "fp16", "bf16"):
                self.guarded("cuda.matmul." + dtype, lambda: self.check_cuda_matmul(dev, dtype), device=i)
            self.guarded("cuda.memory", lambda: self.check_memory(dev), device=i)
        first = torch.device("cuda", 0)
        if self.kernel_ok.get(0):
            if "amp" not in self.skip:
                self.guarded("cuda.amp_step", lambda: self.check_amp(first), device=0)
            self.guarded("cudnn", lambda: self.check_cudnn(first), device=0)
        self.check_nccl(info["nccl"])

    def _nccl_version(self):
        torch = self.torch
        if not torch.version.cuda:
            return None
        try:
            v = torch.cuda.nccl.version()
        except Exception as exc:  # Windows and macOS wheels have no NCCL
            return {"error": "%s: %s" % (type(exc).__name__, exc)}
        if isinstance(v, tuple):
            return ".".join(str(x) for x in v)
        if isinstance(v, int):  # torch < 1.9 style 2708 → 2.7.8; kept for odd builds
            return "%d.%d.%d" % (v // 1000, (v % 1000) // 100, v % 100)
        return str(v)

    def _device_props(self, i):
        torch = self.torch
        entry = {"index": i, "backend": "rocm" if torch.version.hip else "cuda"}
        try:
            p = torch.cuda.get_device_properties(i)
        except Exception as exc:
            entry["error"] = C.exc_info(exc)
            return entry
        entry.update({
            "name": p.name,
            "capability": "%d.%d" % (p.major, p.minor),
            "total_memory": int(p.total_memory),  # bytes; the attribute is total_memory, not total_mem
            "multi_processor_count": int(p.multi_processor_count),
            "gcn_arch": getattr(p, "gcnArchName", None) if torch.version.hip else None,
            "is_integrated": bool(getattr(p, "is_integrated", False)),
            "uuid": str(getattr(p, "uuid", "")) or None,
            "l2_cache_size": getattr(p, "L2_cache_size", None),
        })
        entry["bf16_supported"] = C.safe(lambda: bool(torch.cuda.is_bf16_supported()))
        return entry

    def check_kernel(self, dev):
        torch = self.torch
        self.progress("cuda.kernel")
        caught = []
        with C.captured_warnings(caught):
            value = (torch.ones(1, device=dev) + 1).item()
            torch.cuda.synchronize(dev)
        ok = value == 2.0
        self.kernel_ok[dev.index] = ok
        self.ch.check("cuda.kernel", "pass" if ok else "fail", device=dev.index,
                      evidence={"value": value, "warnings": caught},
                      cause=None if ok else "wrong_result", fix=None if ok else "reinstall_torch",
                      detail="kernel_ok" if ok else None)

    def check_cuda_matmul(self, dev, dtype):
        torch = self.torch
        self.progress("cuda.matmul." + dtype)
        tdtype = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[dtype]
        if dtype == "bf16" and not torch.cuda.is_bf16_supported():
            self.ch.check("cuda.matmul.bf16", "skip", device=dev.index, detail="bf16_unsupported")
            return
        a, b = _inputs(torch, MATMUL_N, seed=2)
        a, b = a.to(tdtype), b.to(tdtype)  # the reference uses the same rounded inputs
        previous = torch.get_float32_matmul_precision()
        torch.set_float32_matmul_precision("highest")  # fp32 means IEEE fp32 here, not TF32
        try:
            out = a.to(dev) @ b.to(dev)
            torch.cuda.synchronize(dev)
        finally:
            torch.set_float32_matmul_precision(previous)
        err = _rel_error(torch, out, a.double() @ b.double())
        tol = TOLERANCE[dtype]
        ok = err <= tol
        cause = None
        if not ok:
            cause = "tf32_forced" if (dtype == "fp32" and os.environ.get("NVIDIA_TF32_OVERRIDE", "") not in ("", "0")) \
                else "wrong_result"
        self.ch.check("cuda.matmul." + dtype, "pass" if ok else "fail", device=dev.index,
                      evidence={"n": MATMUL_N, "dtype": dtype, "rel_error": err, "tolerance": tol,
                                "reference": "float64 on the CPU"},
                      cause=cause, fix=None if ok else ("unset_tf32_override" if cause == "tf32_forced" else "update_driver"),
                      detail="rel_error", params={"error": "%.1e" % err, "limit": "%.0e" % tol})

    def check_memory(self, dev):
        torch = self.torch
        self.progress("cuda.memory")
        free, total = torch.cuda.mem_get_info(dev)
        x = torch.empty(64 * 1024 * 1024 // 4, dtype=torch.float32, device=dev)
        torch.cuda.synchronize(dev)
        allocated = torch.cuda.memory_allocated(dev)
        reserved = torch.cuda.memory_reserved(dev)
        del x
        torch.cuda.empty_cache()
        low = total > 0 and free < LOW_FREE_FRACTION * total
        self.ch.check("cuda.memory", "warn" if low else "pass", device=dev.index,
                      evidence={"free_bytes": free, "total_bytes": total,
                                "allocated_bytes_with_64mib": allocated, "reserved_bytes_with_64mib": reserved},
                      cause="low_free_memory" if low else None, fix="close_gpu_programs" if low else None,
                      detail="memory", params={"free_gib": "%.1f" % (free / 2.0 ** 30),
                                               "total_gib": "%.1f" % (total / 2.0 ** 30)})

    def check_amp(self, dev):
        torch = self.torch
        self.progress("cuda.amp_step")
        if hasattr(torch.amp, "GradScaler"):  # torch >= 2.3
            scaler = torch.amp.GradScaler("cuda")
            api = "torch.amp.GradScaler('cuda')"
        else:  # torch 2.0-2.2 has only this spelling; it is deprecated from 2.4 on, not before
            scaler = torch.cuda.amp.GradScaler()
            api = "torch.cuda.amp.GradScaler()"
        # GradScaler starts at 65536 and skips a step whose gradients overflowed, halving the scale:
        # a few steps are needed before one is certain to apply.
        evidence, ok = self._train_steps(dev, steps=5, amp_dtype=torch.float16, scaler=scaler)
        ok = ok and evidence["output_dtype"] == "float16"
        evidence["autocast"] = "torch.amp.autocast(device_type='cuda', dtype=torch.float16)"
        evidence["scaler"] = api
        self.ch.check("cuda.amp_step", "pass" if ok else "fail", device=dev.index, evidence=evidence,
                      cause=None if ok else "train_step_failed", fix=None if ok else "reinstall_torch",
                      detail="amp_step" if ok else None, params={"scale": "%g" % evidence["grad_scale"]})

    def check_cudnn(self, dev):
        torch = self.torch
        self.progress("cudnn")
        if not torch.backends.cudnn.is_available():
            self.ch.check("cudnn", "fail" if torch.version.cuda else "skip", device=dev.index,
                          evidence={"version": torch.backends.cudnn.version()},
                          cause="cudnn_missing" if torch.version.cuda else None,
                          fix="reinstall_torch" if torch.version.cuda else None)
            return
        g = torch.Generator().manual_seed(3)
        x = torch.randn(2, 3, 32, 32, generator=g)
        w = torch.randn(8, 3, 3, 3, generator=g)
        out = torch.nn.functional.conv2d(x.to(dev), w.to(dev), padding=1)
        torch.cuda.synchronize(dev)
        ref = torch.nn.functional.conv2d(x.double(), w.double(), padding=1)
        err = _rel_error(torch, out, ref)
        tol = 1e-2  # cuDNN may run fp32 convolutions in TF32 (torch.backends.cudnn.allow_tf32 is on by default)
        ok = err <= tol
        version = torch.backends.cudnn.version()
        self.ch.check("cudnn", "pass" if ok else "fail", device=dev.index,
                      evidence={"version": version, "rel_error": err, "tolerance": tol,
                                "enabled": bool(torch.backends.cudnn.enabled)},
                      cause=None if ok else "wrong_result", fix=None if ok else "reinstall_torch",
                      detail="cudnn_version", params={"version": version})

    def check_nccl(self, nccl):
        if isinstance(nccl, str):
            self.ch.check("nccl", "pass", evidence={"version": nccl}, detail="nccl_version", params={"version": nccl})
        else:
            # Windows and macOS builds ship no NCCL: single-GPU training does not need it.
            self.ch.check("nccl", "skip", evidence={"version": None, "error": (nccl or {}).get("error")},
                          detail="nccl_absent")

    # ---------------------------------------------------------------- Apple MPS, Intel XPU
    def mps_section(self):
        torch = self.torch
        mps = getattr(torch.backends, "mps", None)
        if mps is None or not (sys.platform == "darwin" or C.safe(mps.is_built) is True):
            return
        self.progress("mps")
        built = C.safe(mps.is_built)
        available = C.safe(mps.is_available)
        if available is not True:
            self.ch.check("mps", "fail", evidence={"built": built, "available": available},
                          cause="mps_unavailable", fix="update_macos")
            return
        self.ch.check("mps", "pass", evidence={"built": built, "available": available}, detail="mps_available")
        self.guarded("mps.matmul", lambda: self._other_matmul("mps", torch.device("mps")))

    def xpu_section(self):
        torch = self.torch
        xpu = getattr(torch, "xpu", None)
        if xpu is None or not getattr(torch.version, "xpu", None):
            return
        self.progress("xpu")
        available = C.safe(xpu.is_available)
        count = C.safe(xpu.device_count) if available is True else 0
        names = [C.safe(lambda i=i: xpu.get_device_name(i)) for i in range(count if isinstance(count, int) else 0)]
        if available is not True:
            self.ch.check("xpu", "fail", evidence={"available": available, "version": torch.version.xpu},
                          cause="xpu_unavailable", fix="intel_gpu_driver")
            return
        self.ch.check("xpu", "pass", evidence={"available": True, "devices": names}, detail="xpu_devices",
                      params={"count": len(names)})
        self.guarded("xpu.matmul", lambda: self._other_matmul("xpu", torch.device("xpu", 0)))

    def _other_matmul(self, name, dev):
        torch = self.torch
        a, b = _inputs(torch, MATMUL_N, seed=2)
        out = a.to(dev) @ b.to(dev)
        sync = getattr(getattr(torch, name, None), "synchronize", None)
        if sync is not None:
            sync()
        err = _rel_error(torch, out, a.double() @ b.double())
        tol = 1e-3  # Metal and oneDNN may use reduced-precision fp32 paths; still far from a wrong result
        ok = err <= tol
        self.ch.check(name + ".matmul", "pass" if ok else "fail",
                      evidence={"n": MATMUL_N, "rel_error": err, "tolerance": tol},
                      cause=None if ok else "wrong_result", fix=None if ok else "reinstall_torch",
                      detail="rel_error", params={"error": "%.1e" % err, "limit": "%.0e" % tol})

    # ---------------------------------------------------------------- collect_env
    def collect_env(self):
        res = C.run_child([sys.executable, "-m", "torch.utils.collect_env"], timeout=self.args.collect_env_timeout)
        self.ch.result("collect_env", text=C.clip(res["stdout"]), stderr=C.clip(res["stderr"], 4000),
                       returncode=res["returncode"], timed_out=res["timed_out"], duration_s=res["duration_s"])
        ok = res["returncode"] == 0 and bool(res["stdout"].strip())
        self.ch.check("collect_env", "pass" if ok else "warn",
                      evidence={"returncode": res["returncode"], "timed_out": res["timed_out"],
                                "duration_s": res["duration_s"]},
                      cause=None if ok else "collect_env_failed", detail="collect_env" if ok else None,
                      params={"seconds": "%.1f" % res["duration_s"]})


def _dist_version(name):
    """The installed distribution's version (importlib.metadata, no import of the package)."""
    try:
        from importlib import metadata
        return metadata.version(name)
    except Exception:  # not installed as a distribution (a folder on PYTHONPATH), or no metadata
        return None


def _torchvision_op(torch, tv):
    """torchvision.ops.nms on two overlapping boxes (a compiled op): True, or what it kept."""
    boxes = torch.tensor([[0.0, 0.0, 10.0, 10.0], [1.0, 1.0, 11.0, 11.0]])
    scores = torch.tensor([0.9, 0.8])
    keep = tv.ops.nms(boxes, scores, 0.5)  # IoU 81/119 = 0.68 > 0.5: the second box goes
    return [int(i) for i in keep.tolist()] == [0] or keep.tolist()


def _torchaudio_op(torch, ta):
    """A torchaudio transform (Spectrogram) on a short signal: True, or the shape it gave."""
    wave = torch.sin(torch.arange(400, dtype=torch.float32) * 0.1).unsqueeze(0)
    spec = ta.transforms.Spectrogram(n_fft=64)(wave)
    return tuple(spec.shape) == (1, 33, 13) or list(spec.shape)


def main(argv=None):
    ch = C.Channel("verify")
    C.install_hooks(ch)
    try:
        args = parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as exc:  # argparse's own exit; a wizard/probe version mismatch
        ch.error("bad-arguments", message="invalid arguments: %s" % (sys.argv[1:] if argv is None else argv))
        return int(exc.code or 2)
    ch.progress("start", protocol=C.PROTOCOL, args=vars(args))
    try:
        Verifier(ch, args).run()
    except SystemExit:
        raise
    except Exception as exc:  # a fault of this script: say so, as JSON
        ch.error("internal", **C.exc_info(exc))
        ch.done(aborted=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
