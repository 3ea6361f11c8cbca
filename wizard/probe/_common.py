"""Shared helpers of the probe scripts (verify.py, bench.py).

Constraints, because these files run inside the student's environment, not the wizard's:

* stdlib + torch only, Python 3.8 syntax, torch 2.0 and newer; never ``import wizard``.
* The scripts import this file as the top-level module ``_common`` from their own folder,
  which each script puts first on ``sys.path`` (Python does that too, unless started with
  ``-I`` or ``-P``).
* stdout carries one JSON object per line and nothing else. Stray output of libraries
  (a C library's printf, a ``print`` in a package) is moved to stderr, so it can never
  break a line of the protocol. Lines are ASCII (``\\uXXXX`` escapes), so no console code
  page can garble them.
* Torch is imported inside a guard: missing, broken or crashing torch becomes an event.
"""

import contextlib
import ctypes
import io
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
import traceback
import warnings

PROTOCOL = 1
MAX_TEXT = 20000  # characters of one captured text kept in an event (collect_env is ~5-10k)
MAX_TRACEBACK = 8000

# Environment variables that change what torch does with the GPU, reported as evidence.
ENV_VARS = (
    "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "CUDA_MODULE_LOADING", "CUDA_LAUNCH_BLOCKING",
    "NVIDIA_TF32_OVERRIDE", "PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF", "HIP_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "PYTORCH_ENABLE_MPS_FALLBACK",
    "CONDA_DEFAULT_ENV", "VIRTUAL_ENV",
)


def clip(text, limit=MAX_TEXT):
    """Keep the end of a long text (the end of a log says what went wrong)."""
    if text is None:
        return None
    text = str(text)
    if len(text) <= limit:
        return text
    return "[... %d characters cut ...]\n" % (len(text) - limit) + text[-limit:]


def jsonable(obj, depth=0):
    """Anything → something json.dumps accepts, with NaN/inf as None (the JSON has no NaN)."""
    if depth > 20:
        return str(obj)
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, int):
        return int(obj)
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return dict((str(k), jsonable(v, depth + 1)) for k, v in obj.items())
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [jsonable(v, depth + 1) for v in obj]
    if isinstance(obj, bytes):
        return obj.decode("utf-8", "replace")
    return str(obj)


def exc_info(exc):
    """An exception as evidence: type, message, traceback text (never printed bare)."""
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return {
        "exception": type(exc).__name__,
        "message": clip(str(exc), 4000),
        "traceback": clip(tb, MAX_TRACEBACK),
    }


class Channel(object):
    """The JSON-lines channel to the wizard.

    On construction the real stdout is duplicated for the protocol and file descriptor 1
    (and ``sys.stdout``) are pointed at stderr, so nothing else can write to the protocol.
    """

    def __init__(self, probe):
        self.probe = probe
        self.seq = 0
        self.t0 = time.monotonic()
        self.closed = False
        self._out = None
        try:
            sys.stdout.flush()
            fd = os.dup(sys.stdout.fileno())
            os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
            self._out = io.open(fd, "w", encoding="ascii", errors="backslashreplace", newline="\n")
            sys.stdout = sys.stderr
        except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
            self._out = sys.stdout  # no real descriptors (embedded interpreter): share stdout

    def emit(self, event, **fields):
        obj = {"event": event, "probe": self.probe, "seq": self.seq,
               "t": round(time.monotonic() - self.t0, 4)}
        obj.update(fields)
        self.seq += 1
        try:
            line = json.dumps(jsonable(obj), ensure_ascii=True, allow_nan=False, separators=(",", ":"))
        except (TypeError, ValueError) as exc:  # a bug in this script: still one valid line
            line = json.dumps({"event": "error", "probe": self.probe, "seq": obj["seq"], "id": "internal",
                               "exception": type(exc).__name__, "message": str(exc)})
        if self.closed:
            return
        try:
            self._out.write(line + "\n")
            self._out.flush()
        except (BrokenPipeError, OSError, ValueError):
            # Nobody reads any more (the wizard closed or cancelled): stop working at once,
            # instead of keeping a GPU busy for a reader that is gone.
            self.closed = True
            raise SystemExit(3)

    # The three kinds of lines -------------------------------------------------------------
    def progress(self, step, fraction=None, **fields):
        self.emit("progress", step=step, fraction=fraction, **fields)

    def result(self, type_, **fields):
        self.emit("result", type=type_, **fields)

    def error(self, id_, **fields):
        self.emit("error", id=id_, **fields)

    # Conveniences --------------------------------------------------------------------------
    def facts(self, section, data):
        self.result("facts", section=section, data=data)

    def check(self, id_, status, evidence=None, cause=None, fix=None, device=None, params=None, detail=None):
        """One verification outcome. ``cause``/``fix`` are message ids the wizard translates
        (``verify.cause.<id>`` / ``verify.fix.<id>``); ``detail`` is a message id too, with
        ``params`` filling it. Evidence is raw: numbers, versions, exception texts."""
        self.result("check", id=id_, status=status, device=device, evidence=evidence or {},
                    cause=cause, fix=fix, detail=detail, params=params or {})

    def done(self, **fields):
        self.result("done", duration_s=round(time.monotonic() - self.t0, 3), **fields)


def install_hooks(channel):
    """Uncaught exceptions (here or in a thread) become one ``error`` line, never a bare traceback."""

    def hook(exc_type, exc, tb):
        if issubclass(exc_type, KeyboardInterrupt):
            return
        info = {"exception": exc_type.__name__, "message": clip(str(exc), 4000),
                "traceback": clip("".join(traceback.format_exception(exc_type, exc, tb)), MAX_TRACEBACK)}
        try:
            channel.error("internal", **info)
        except SystemExit:
            pass

    sys.excepthook = hook
    if hasattr(sys, "unraisablehook"):
        pass  # unraisable exceptions are printed to stderr, which the wizard keeps
    try:
        import threading

        def thread_hook(args):
            hook(args.exc_type, args.exc_value, args.exc_traceback)

        threading.excepthook = thread_hook
    except (ImportError, AttributeError):
        pass


@contextlib.contextmanager
def captured_warnings(into):
    """Collect warnings (torch reports the sm_XX and driver problems as UserWarnings)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            yield caught
        finally:
            for w in caught:
                into.append({"category": w.category.__name__, "message": clip(str(w.message), 4000)})


def python_facts():
    return {
        "version": platform.python_version(),
        "implementation": platform.python_implementation(),
        "executable": sys.executable,
        "prefix": sys.prefix,
        "bits": 64 if sys.maxsize > 2 ** 32 else 32,
        "platform": platform.platform(),
        "system": platform.system(),
        "machine": platform.machine(),
        "release": platform.release(),
        "sys_platform": sys.platform,
        "cpu_count": os.cpu_count(),
        "cpu_model": cpu_model(),
    }


def cpu_model():
    """The CPU's name, for the benchmark's label (best effort, stdlib only)."""
    try:
        if sys.platform.startswith("linux"):
            with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
                for line in fh:
                    if line.lower().startswith("model name"):
                        return line.split(":", 1)[1].strip()
        elif sys.platform == "darwin":
            out = subprocess.run(["sysctl", "-n", "machdep.cpu.brand_string"], stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, timeout=5)
            text = out.stdout.decode("utf-8", "replace").strip()
            if text:
                return text
    except (OSError, subprocess.SubprocessError):
        pass
    return platform.processor() or None


def env_facts():
    return dict((name, os.environ.get(name)) for name in ENV_VARS if name in os.environ)


def driver_facts():
    """The CUDA version the installed NVIDIA driver supports, read from the driver library
    (cuDriverGetVersion needs no cuInit, so it answers even when torch's CUDA init fails).
    This is the number in "found version 12080" and in nvidia-smi's "CUDA Version"."""
    if sys.platform == "darwin":
        return {"library": None, "found": False, "cuda_version": None, "error": "macos"}
    names = ["nvcuda.dll"] if os.name == "nt" else ["libcuda.so.1", "libcuda.so"]
    last_error = None
    for name in names:
        try:
            lib = ctypes.WinDLL(name) if os.name == "nt" else ctypes.CDLL(name)
        except OSError as exc:
            last_error = str(exc)
            continue
        value = ctypes.c_int(0)
        try:
            rc = lib.cuDriverGetVersion(ctypes.byref(value))
        except (AttributeError, OSError) as exc:
            return {"library": name, "found": True, "cuda_version": None, "error": str(exc)}
        if rc != 0:
            return {"library": name, "found": True, "cuda_version": None, "error": "CUresult %d" % rc}
        v = value.value
        return {"library": name, "found": True, "cuda_version": "%d.%d" % (v // 1000, (v % 1000) // 10),
                "cuda_version_int": v, "error": None}
    return {"library": names[0], "found": False, "cuda_version": None, "error": last_error}


def import_torch(channel):
    """(torch, facts) or (None, None) after emitting why. The import's warnings are kept."""
    caught = []
    start = time.monotonic()
    try:
        with captured_warnings(caught):
            import torch  # noqa: F401  (the point of the whole probe)
    except ImportError as exc:
        missing = getattr(exc, "name", None) == "torch"
        info = exc_info(exc)
        info["warnings"] = caught
        channel.error("torch-missing" if missing else "torch-import", **info)
        channel.check("torch.import", "fail", evidence=info,
                      cause="torch_missing" if missing else "torch_import_failed",
                      fix="install_torch" if missing else "reinstall_torch")
        return None, None
    except Exception as exc:  # a broken install raises anything: OSError (DLL), AttributeError, ...
        info = exc_info(exc)
        info["warnings"] = caught
        channel.error("torch-import", **info)
        channel.check("torch.import", "fail", evidence=info, cause="torch_import_failed", fix="reinstall_torch")
        return None, None
    import torch

    return torch, {"import_s": round(time.monotonic() - start, 3), "warnings": caught,
                   "file": getattr(torch, "__file__", None)}


def torch_version_facts(torch):
    """Versions and build flags; every attribute is optional on some torch version or build."""
    v = getattr(torch, "version", None)
    facts = {
        "version": getattr(torch, "__version__", None),
        "cuda": getattr(v, "cuda", None),
        "hip": getattr(v, "hip", None),
        "xpu": getattr(v, "xpu", None),
        "git_version": getattr(v, "git_version", None),
        "debug": getattr(v, "debug", None),
        "num_threads": safe(torch.get_num_threads),
        "num_interop_threads": safe(torch.get_num_interop_threads),
        "mkl": safe(lambda: torch.backends.mkl.is_available()),
        "mkldnn": safe(lambda: torch.backends.mkldnn.is_available()),
        "openmp": safe(lambda: torch.backends.openmp.is_available()),
        "cuda_built": safe(lambda: torch.backends.cuda.is_built()),
        "mps_built": safe(lambda: torch.backends.mps.is_built()),
        "cudnn": safe(lambda: torch.backends.cudnn.version()),
        "cudnn_available": safe(lambda: torch.backends.cudnn.is_available()),
        "float32_matmul_precision": safe(torch.get_float32_matmul_precision),
    }
    facts["variant"] = torch_variant()
    facts["dist_installer"] = torch_installer()
    try:
        facts["config"] = clip(torch.__config__.show(), 6000)
    except Exception as exc:  # only informative
        facts["config"] = "unavailable: %s" % exc
    return facts


def torch_installer():
    """Which tool installed torch (its dist-info's INSTALLER: 'pip', 'uv', 'conda'), or None."""
    try:
        import importlib.metadata as metadata
    except ImportError:
        return None
    try:
        return (metadata.distribution("torch").read_text("INSTALLER") or "").strip() or None
    except (metadata.PackageNotFoundError, OSError, ValueError):
        return None


def torch_variant():
    """The wheel variant torch was installed as (PEP 825: ``torch-*.dist-info/variant.json``, one
    label with its ``namespace :: feature :: value`` properties; the null variant has none), and
    the installer that put it there; None for an ordinary wheel."""
    try:
        import importlib.metadata as metadata
    except ImportError:  # Python 3.7 and older: no variant-aware installer runs there
        return None
    try:
        dist = metadata.distribution("torch")
        text = dist.read_text("variant.json")
        installer = (dist.read_text("INSTALLER") or "").strip() or None
    except (metadata.PackageNotFoundError, OSError, ValueError):
        return None
    if not text:
        return None
    try:
        doc = json.loads(text)
    except ValueError:
        return {"label": None, "properties": [], "installer": installer, "error": "unreadable variant.json"}
    variants = doc.get("variants") if isinstance(doc, dict) else None
    labels = list(variants) if isinstance(variants, dict) else []
    label = labels[0] if len(labels) == 1 else None
    props = []
    for namespace, features in sorted(((variants or {}).get(label) or {}).items()):
        for feature, values in sorted((features or {}).items()):
            for value in values if isinstance(values, list) else [values]:
                props.append("%s :: %s :: %s" % (namespace, feature, value))
    return {"label": label, "properties": props, "installer": installer, "schema": doc.get("$schema")}


def safe(fn, default=None):
    """Call ``fn`` for an optional fact: an exception means "not reported", kept as text."""
    try:
        return fn()
    except Exception as exc:
        return default if default is not None else {"error": "%s: %s" % (type(exc).__name__, exc)}


def child_env():
    env = dict(os.environ)
    env["PYTHONUTF8"] = "1"
    env["PYTHONIOENCODING"] = "utf-8"
    env.setdefault("PIP_DISABLE_PIP_VERSION_CHECK", "1")
    return env


def run_child(argv, timeout, env=None):
    """Run a helper command of this interpreter (collect_env, the TensorFlow lister): argv
    list, no shell, a timeout that kills it, output decoded as UTF-8 with replacement."""
    start = time.monotonic()
    kwargs = {}
    if os.name == "nt":
        kwargs["creationflags"] = getattr(subprocess, "CREATE_NO_WINDOW", 0)
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=env or child_env(), **kwargs)
    except OSError as exc:
        return {"argv": argv, "returncode": None, "stdout": "", "stderr": str(exc), "timed_out": False,
                "duration_s": 0.0}
    timed_out = False
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        proc.kill()
        try:
            out, err = proc.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            out, err = b"", b""
    return {"argv": argv, "returncode": None if timed_out else proc.returncode,
            "stdout": (out or b"").decode("utf-8", "replace"), "stderr": (err or b"").decode("utf-8", "replace"),
            "timed_out": timed_out, "duration_s": round(time.monotonic() - start, 3)}


# --------------------------------------------------------------------------- statistics
def summarise_times(times):
    """Median and interquartile range (p75 - p25, linear interpolation as numpy and
    torch.utils.benchmark.Measurement compute them)."""
    ordered = sorted(times)
    med = statistics.median(ordered)
    if len(ordered) >= 2:
        q1, _, q3 = statistics.quantiles(ordered, n=4, method="inclusive")
    else:
        q1 = q3 = ordered[0]
    return {"median_s": med, "q1_s": q1, "q3_s": q3, "iqr_s": q3 - q1, "min_s": ordered[0], "max_s": ordered[-1]}


def is_oom(exc):
    """torch.cuda.OutOfMemoryError (1.13+) or the older RuntimeError text."""
    name = type(exc).__name__
    return name == "OutOfMemoryError" or "out of memory" in str(exc).lower()


def classify_error(exc):
    """A CUDA/torch exception → the cause id the wizard explains."""
    text = str(exc)
    low = text.lower()
    if "no kernel image is available" in low or "is not compatible with the current pytorch" in low:
        return "no_kernel_image"
    if is_oom(exc):
        return "out_of_memory"
    if "driver on your system is too old" in low or "driver version is insufficient" in low:
        return "driver_too_old"
    if "not compiled with cuda" in low:
        return "cpu_only_build"
    if "no cuda gpus are available" in low:
        return "no_cuda_devices"
    return "runtime_error"
