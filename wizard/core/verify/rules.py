"""The rules that judge the probe's facts: a CPU-only build, a driver too old, no kernel image.

Why a module of its own: each rule is a small function of a :class:`Context` (the probe's merged
facts and checks, what detection saw outside the target environment, and the run itself), so a
newcomer adds a rule here without reading the report. The checks judged here, optionally
cross-checked with :class:`~wizard.core.machine.models.Detection`: a CPU-only build on a machine
with an NVIDIA GPU, a driver too old for the wheel's CUDA, each GPU's compute capability against
``torch.cuda.get_arch_list()`` (the "no kernel image" trap, which ``torch.cuda.is_available()``
does not catch), device counts, why CUDA is unavailable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence

from packaging.version import InvalidVersion, Version

from wizard.core.verify.checks import ORDER, Check
from wizard.core.verify.jetson_guard import guard as jetson_guard
from wizard.core.verify.probe_runner import Event, ProbeOutcome
from wizard.core.verify.variants import rule_torch_variant, rule_uv_cpu_build

if TYPE_CHECKING:
    from wizard.core.machine.models import Detection

_FOUND_VERSION = re.compile(r"found version (\d{4,6})")
_ARCH = re.compile(r"^(sm|compute)_(\d+)([a-z]?)$")


# ------------------------------------------------------------------------------------------
# Facts helpers
# ------------------------------------------------------------------------------------------
def _version(text: Any) -> Version | None:
    if not text:
        return None
    try:
        return Version(str(text))
    except InvalidVersion:
        return None


def cuda_from_found_version(value: int) -> str:
    """12080 → '12.8' (the encoding in "found version 12080" and cuDriverGetVersion)."""
    return f"{value // 1000}.{(value % 1000) // 10}"


def parse_arch_list(items: Iterable[str]) -> tuple[list[tuple[int, int, str]], list[tuple[int, int]]]:
    """``get_arch_list()`` → (cubins as (major, minor, suffix), ptx as (major, minor)).
    'sm_86' → (8, 6, ''); 'sm_90a' → (9, 0, 'a'); 'compute_120' → PTX (12, 0)."""
    cubins: list[tuple[int, int, str]] = []
    ptx: list[tuple[int, int]] = []
    for item in items:
        m = _ARCH.match(str(item).strip().lower())
        if not m:
            continue
        digits = m.group(2)
        if len(digits) < 2:
            continue
        major, minor = int(digits[:-1]), int(digits[-1])
        if m.group(1) == "sm":
            cubins.append((major, minor, m.group(3)))
        else:
            ptx.append((major, minor))
    return cubins, ptx


def arch_coverage(capability: str, arch_list: Sequence[str]) -> tuple[str, str | None]:
    """How a GPU of ``capability`` ('8.9') runs this build: ('sass', 'sm_86') when a cubin of
    the same major and a lower-or-equal minor exists (arch-specific 'a' cubins only on their
    exact capability), ('ptx', 'compute_80') when only PTX can be compiled for it at first use,
    ('none', None) for "no kernel image is available"."""
    try:
        major, minor = (int(x) for x in str(capability).split(".", 1))
    except ValueError:
        return "unknown", None
    cubins, ptx = parse_arch_list(arch_list)
    usable = [(ma, mi, sx) for ma, mi, sx in cubins
              if ma == major and (mi == minor if sx == "a" else mi <= minor)]
    if usable:
        ma, mi, sx = max(usable)
        return "sass", f"sm_{ma}{mi}{sx}"
    jit = [p for p in ptx if p <= (major, minor)]
    if jit:
        ma, mi = max(jit)
        return "ptx", f"compute_{ma}{mi}"
    return "none", None


def _gib(n_bytes: Any) -> str:
    try:
        return f"{float(n_bytes) / 2**30:.1f}"
    except (TypeError, ValueError):
        return "?"


@dataclass
class Context:
    """What the rules read: merged probe facts, the probe's own checks, detection, the run."""

    facts: dict[str, Any]
    probe_checks: list[Check]
    errors: list[Event]
    detection: Detection | None
    outcome: ProbeOutcome | None
    final: bool

    def section(self, name: str) -> dict[str, Any]:
        value = self.facts.get(name)
        return value if isinstance(value, dict) else {}

    @property
    def torch(self) -> dict[str, Any]:
        return self.section("torch")

    @property
    def cuda(self) -> dict[str, Any]:
        return self.section("cuda")

    @property
    def devices(self) -> list[dict[str, Any]]:
        value = self.facts.get("devices")
        return [d for d in value if isinstance(d, dict)] if isinstance(value, list) else []

    @property
    def has_torch(self) -> bool:
        return bool(self.torch.get("version"))

    @property
    def is_cuda_build(self) -> bool:
        return bool(self.torch.get("cuda"))

    @property
    def is_rocm_build(self) -> bool:
        return bool(self.torch.get("hip"))

    @property
    def detected_gpus(self) -> list[Any]:
        if self.detection is None:
            return []
        return list(self.detection.nvidia.gpus)

    @property
    def detection_says_no_gpu(self) -> bool:
        """Detection ran and found no NVIDIA GPU at all (no driver GPU, no PCI adapter)."""
        if self.detection is None:
            return False
        adapters = [a for a in self.detection.system.display_adapters if a.vendor == "nvidia"]
        return not self.detection.nvidia.gpus and not adapters

    @property
    def nvidia_present(self) -> bool:
        """Any sign of an NVIDIA GPU: detection's GPUs or PCI adapters, or a driver library in the env."""
        if self.detected_gpus:
            return True
        if self.detection is not None and any(a.vendor == "nvidia" for a in self.detection.system.display_adapters):
            return True
        return bool(self.section("driver").get("found"))

    @property
    def driver_found(self) -> bool:
        """A working NVIDIA driver: the env's driver library answered, or detection listed GPUs."""
        return bool(self.section("driver").get("found")) or bool(self.detected_gpus)

    def warnings_text(self) -> str:
        texts = [w.get("message", "") for w in self.cuda.get("warnings", []) if isinstance(w, dict)]
        texts += [w.get("message", "") for w in self.torch.get("warnings", []) if isinstance(w, dict)]
        err = self.cuda.get("error")
        if isinstance(err, dict):
            texts.append(str(err.get("message", "")))
        return "\n".join(texts)

    def driver_cuda(self) -> tuple[str | None, str | None]:
        """(the highest CUDA the driver supports, where that came from)."""
        if self.detection is not None and self.detection.nvidia.cuda_version:
            return self.detection.nvidia.cuda_version, "detection"
        drv = self.section("driver")
        if drv.get("cuda_version"):
            return str(drv["cuda_version"]), "driver library"
        m = _FOUND_VERSION.search(self.warnings_text())
        if m:
            return cuda_from_found_version(int(m.group(1))), "torch warning"
        return None, None

    def gpu_name(self) -> str:
        for d in self.devices:
            if d.get("name"):
                return str(d["name"])
        for g in self.detected_gpus:
            if getattr(g, "name", None):
                return str(g.name)
        return "NVIDIA GPU"


Rule = Callable[[Context], Iterable[Check]]


# ------------------------------------------------------------------------------------------
# Rules
# ------------------------------------------------------------------------------------------
def rule_probe_run(ctx: Context) -> Iterable[Check]:
    """The probe itself: did it start, finish, stay within its time; its own faults."""
    out = ctx.outcome
    internal = [e for e in ctx.errors if e.get("id") in ("internal", "bad-arguments")]
    if out is not None and ctx.final:
        kind = out.failure_kind()
        if kind is not None:
            cause = f"probe_{kind}"
            if kind == "failed" and internal:
                cause = "probe_internal"
            if kind in ("crashed", "failed") and not out.events and "SyntaxError" in out.stderr_tail:
                cause = "probe_python_too_old"
            elif kind in ("crashed", "failed") and not out.events:
                # The script's first line of output comes before PyTorch is imported: with none at
                # all the program never ran it (``--python /bin/false``), it did not crash in torch.
                cause = "probe_not_python"
            ended_early = kind in ("crashed", "failed") and cause != "probe_python_too_old"
            yield Check("probe", "fail", cause=cause, fix=cause, source="rule",
                        detail="probe_exit" if ended_early else None,
                        params={"code": out.returncode if out.returncode is not None else "-"},
                        evidence={**out.to_json(), "last_events": out.last_events(5)})
            return
    if internal:
        e = internal[0]
        yield Check("probe", "fail", cause="probe_internal", fix="probe_internal", source="rule",
                    evidence={k: e.get(k) for k in ("id", "exception", "message", "traceback")})


def rule_python(ctx: Context) -> Iterable[Check]:
    py = ctx.section("python")
    if not py:
        return
    version = py.get("version")
    if py.get("bits") == 32:
        yield Check("python", "fail", detail="python_version", params={"version": version, "bits": 32},
                    cause="python_32bit", fix="python_64bit", evidence=py, source="rule")
        return
    yield Check("python", "pass", detail="python_version", params={"version": version, "bits": py.get("bits")},
                evidence={k: py.get(k) for k in ("version", "executable", "platform", "implementation")},
                source="rule")


def rule_cuda_build(ctx: Context) -> Iterable[Check]:
    """Which accelerator this torch was built for. A CPU-only build where an NVIDIA GPU exists
    is the classic Windows mistake (``pip install torch`` from PyPI is CPU-only there)."""
    tv = ctx.torch
    if not ctx.has_torch:
        return
    ev = {k: tv.get(k) for k in ("version", "cuda", "hip", "xpu", "cuda_built", "mps_built")}
    if ctx.is_rocm_build:
        yield Check("cuda.build", "pass", detail="rocm_build", params={"hip": tv.get("hip")}, evidence=ev,
                    source="rule")
        return
    if ctx.is_cuda_build:
        yield Check("cuda.build", "pass", detail="cuda_build", params={"cuda": tv.get("cuda")}, evidence=ev,
                    source="rule")
        return
    if tv.get("xpu"):
        yield Check("cuda.build", "skip", detail="xpu_build", params={"xpu": tv.get("xpu")}, evidence=ev,
                    source="rule")
        return
    if ctx.section("python").get("sys_platform") == "darwin":
        yield Check("cuda.build", "skip", detail="macos_no_cuda", evidence=ev, source="rule")
        return
    driver_cuda, _ = ctx.driver_cuda()
    params = {"version": tv.get("version"), "gpu": ctx.gpu_name(), "driver_cuda": driver_cuda or "?"}
    if ctx.nvidia_present:
        ev["nvidia_seen_by"] = "detection" if ctx.detected_gpus else "driver library"
        yield Check("cuda.build", "fail", detail="cpu_build", params=params, cause="cpu_only_build",
                    fix="install_cuda_build", evidence=ev, source="rule")
    else:
        # the right build for a PC without an NVIDIA GPU: a pass that carries a note (issue 16.11)
        yield Check("cuda.build", "pass", detail="cpu_build", params=params, cause="cpu_only_no_gpu",
                    fix="cpu_only_no_gpu", evidence=ev, source="rule")


def rule_cuda_driver(ctx: Context) -> Iterable[Check]:
    """The wheel's CUDA (torch.version.cuda) against the highest CUDA the driver supports.
    A newer major cannot start; a newer minor of the same major runs through CUDA's minor
    version compatibility, without JIT of newer PTX (failure-modes.json)."""
    if not ctx.is_cuda_build:
        return
    wheel = ctx.torch.get("cuda")
    driver, source = ctx.driver_cuda()
    ev = {"wheel_cuda": wheel, "driver_cuda": driver, "driver_cuda_source": source}
    params = {"wheel_cuda": wheel, "driver_cuda": driver or "?"}
    if driver is None:
        if ctx.detection_says_no_gpu:
            yield Check("cuda.driver", "skip", detail="no_gpu", evidence=ev, source="rule")
        elif ctx.detected_gpus or ctx.nvidia_present:
            yield Check("cuda.driver", "fail", detail="driver_unknown", params=params, cause="no_driver",
                        fix="install_driver", evidence=ev, source="rule")
        else:
            yield Check("cuda.driver", "warn", detail="driver_unknown", params=params, cause="no_driver",
                        fix="install_driver", evidence=ev, source="rule")
        return
    w, d = _version(wheel), _version(driver)
    if w is None or d is None:
        yield Check("cuda.driver", "skip", detail="driver_unknown", params=params, evidence=ev, source="rule")
        return
    if w.major > d.major:
        yield Check("cuda.driver", "fail", detail="driver_versions", params=params, cause="driver_too_old",
                    fix="update_driver", evidence=ev, source="rule")
    elif w.major == d.major and w.minor > d.minor:
        yield Check("cuda.driver", "warn", detail="driver_versions", params=params, cause="driver_minor_older",
                    fix="update_driver", evidence=ev, source="rule")
    else:
        yield Check("cuda.driver", "pass", detail="driver_versions", params=params, evidence=ev, source="rule")


def _unavailable_cause(ctx: Context) -> str:
    text = ctx.warnings_text().lower()
    env = ctx.section("env")
    if "driver on your system is too old" in text:
        return "driver_too_old"
    visible = env.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and (visible.strip() in ("", "-1") or "no cuda gpus are available" in text):
        return "visible_devices_hidden"
    if "found no nvidia driver" in text or not ctx.driver_found:
        return "no_driver"
    if "cudagetdevicecount" in text or "cuda initialization" in text:
        return "cuda_init_failed"
    driver, _ = ctx.driver_cuda()
    w, d = _version(ctx.torch.get("cuda")), _version(driver)
    if w is not None and d is not None and w.major > d.major:
        return "driver_too_old"
    return "cuda_unavailable"


def rule_cuda_available(ctx: Context) -> Iterable[Check]:
    if not ctx.has_torch or "cuda" not in ctx.facts:
        return
    cuda = ctx.cuda
    ev = {k: cuda.get(k) for k in ("is_available", "device_count", "warnings", "error")}
    ev["CUDA_VISIBLE_DEVICES"] = ctx.section("env").get("CUDA_VISIBLE_DEVICES")
    if not (ctx.is_cuda_build or ctx.is_rocm_build):
        yield Check("cuda.available", "skip", detail="cpu_build_short", evidence=ev, source="rule")
        return
    if cuda.get("is_available") and cuda.get("device_count", 0) > 0:
        yield Check("cuda.available", "pass", detail="device_count", params={"count": cuda.get("device_count")},
                    evidence=ev, source="rule")
        return
    cause = _unavailable_cause(ctx)
    driver, _ = ctx.driver_cuda()
    params = {"wheel_cuda": ctx.torch.get("cuda") or ctx.torch.get("hip"), "driver_cuda": driver or "?",
              "visible": ev["CUDA_VISIBLE_DEVICES"] if ev["CUDA_VISIBLE_DEVICES"] is not None else ""}
    if cause == "no_driver" and ctx.detection_says_no_gpu:
        yield Check("cuda.available", "skip", detail="no_gpu", evidence=ev, source="rule")
        return
    status = "fail" if (ctx.nvidia_present or cause != "no_driver") else "warn"
    yield Check("cuda.available", status, detail="unavailable", params=params, cause=cause, fix=cause,
                evidence=ev, source="rule")


def rule_device_count(ctx: Context) -> Iterable[Check]:
    """Detection's GPU count against torch's: CUDA_VISIBLE_DEVICES hides some, or a GPU is lost."""
    if ctx.detection is None or not ctx.detected_gpus or not ctx.cuda.get("is_available"):
        return
    seen = len(ctx.detected_gpus)
    count = int(ctx.cuda.get("device_count") or 0)
    ev = {"torch_device_count": count, "detected_gpus": seen,
          "CUDA_VISIBLE_DEVICES": ctx.section("env").get("CUDA_VISIBLE_DEVICES")}
    params = {"torch": count, "detected": seen}
    if count == seen:
        yield Check("cuda.device_count", "pass", detail="count_match", params=params, evidence=ev, source="rule")
    else:
        cause = "visible_devices_hidden" if ev["CUDA_VISIBLE_DEVICES"] is not None else "device_count_mismatch"
        yield Check("cuda.device_count", "warn", detail="count_mismatch", params=params, cause=cause, fix=cause,
                    evidence=ev, source="rule")


def rule_devices(ctx: Context) -> Iterable[Check]:
    for d in ctx.devices:
        index = d.get("index") if isinstance(d.get("index"), int) else None
        if d.get("error"):
            err = d["error"] if isinstance(d["error"], dict) else {"message": str(d["error"])}
            yield Check("cuda.device", "fail", device=index, cause="runtime_error", fix="runtime_error",
                        evidence=err, source="rule")
            continue
        yield Check("cuda.device", "pass", device=index, detail="device",
                    params={"name": d.get("name"), "cc": d.get("gcn_arch") or d.get("capability"),
                            "memory_gib": _gib(d.get("total_memory")), "sms": d.get("multi_processor_count")},
                    evidence=d, source="rule")


def _arch_fix(capability: str) -> str:
    try:
        major = int(str(capability).split(".")[0])
    except ValueError:
        return "install_matching_build"
    if major >= 10:
        return "no_kernel_image_new_gpu"  # Blackwell: cu128+ wheels, torch >= 2.7
    if major < 7:
        return "no_kernel_image_old_gpu"  # Maxwell/Pascal: dropped from cu128+, still in cu126
    return "install_matching_build"


def rule_arch(ctx: Context) -> Iterable[Check]:
    """Each GPU's compute capability against the build's arch list. torch.cuda.is_available()
    is True on a GPU the wheel has no kernels for; the first kernel then fails with "no kernel
    image is available for execution on the device"."""
    if not (ctx.is_cuda_build or ctx.is_rocm_build) or "cuda" not in ctx.facts:
        return
    arch_list = [str(a) for a in ctx.cuda.get("arch_list") or [] if isinstance(a, str)]
    targets: list[tuple[int | None, str | None, str | None, str]] = []  # index, name, cc, source
    for d in ctx.devices:
        if d.get("error"):
            continue
        cc = d.get("gcn_arch") if ctx.is_rocm_build else d.get("capability")
        targets.append((d.get("index"), d.get("name"), cc, "torch"))
    if not targets and ctx.is_cuda_build:
        # CUDA did not start (driver, visibility): judge the build against the GPUs detection saw
        for g in ctx.detected_gpus:
            if getattr(g, "compute_capability", None):
                targets.append((g.index, g.name, g.compute_capability, "detection"))
    for index, name, cc, source in targets:
        ev = {"capability": cc, "arch_list": arch_list, "capability_source": source, "name": name}
        dev = index if source == "torch" else None
        params = {"name": name or "GPU", "cc": cc or "?", "arch_list": " ".join(arch_list) or "-"}
        if not arch_list or not cc:
            yield Check("cuda.arch", "skip", device=dev, detail="arch_unknown", params=params, evidence=ev,
                        source="rule")
            continue
        if ctx.is_rocm_build:
            base = str(cc).split(":")[0]
            if base in arch_list:
                yield Check("cuda.arch", "pass", device=dev, detail="arch_rocm", params=params, evidence=ev,
                            source="rule")
            else:
                yield Check("cuda.arch", "fail", device=dev, detail="arch_none", params=params,
                            cause="rocm_arch_unsupported", fix="rocm_arch_unsupported", evidence=ev, source="rule")
            continue
        kind, via = arch_coverage(cc, arch_list)
        ev["runs"] = via
        params["via"] = via or "-"
        params["sm"] = "sm_" + str(cc).replace(".", "")
        if kind == "sass":
            yield Check("cuda.arch", "pass", device=dev, detail="arch_sass", params=params, evidence=ev,
                        source="rule")
        elif kind == "ptx":
            yield Check("cuda.arch", "warn", device=dev, detail="arch_ptx", params=params, cause="arch_ptx_only",
                        fix=_arch_fix(cc), evidence=ev, source="rule")
        elif kind == "none":
            yield Check("cuda.arch", "fail", device=dev, detail="arch_none", params=params, cause="no_kernel_image",
                        fix=_arch_fix(cc), evidence=ev, source="rule")
        else:
            yield Check("cuda.arch", "skip", device=dev, detail="arch_unknown", params=params, evidence=ev,
                        source="rule")


TF_LAST_NATIVE_WINDOWS_GPU = Version("2.10.99")  # TensorFlow 2.10 was the last with GPU support on native Windows


def rule_tensorflow_route(ctx: Context) -> Iterable[Check]:
    """Where TensorFlow can use the GPU, said where it matters: on Windows with TensorFlow
    installed (native GPU support ended after 2.10; WSL2 with ``tensorflow[and-cuda]`` is the
    route). A TensorFlow without a GPU on Linux gets its ``[and-cuda]`` fix from the probe's check."""
    tf = next((c for c in ctx.probe_checks if c.id == "tensorflow"), None)
    if tf is None or tf.status == "skip":
        return
    python = ctx.section("python")
    if str(python.get("sys_platform", "")) == "darwin":
        yield from _tensorflow_on_a_mac(tf, str(python.get("machine", "")))
        return
    if not str(python.get("sys_platform", "")).startswith("win"):
        return
    version = tf.evidence.get("version") if isinstance(tf.evidence, dict) else None
    parsed = _version(version)
    gpus = tf.evidence.get("gpus") if isinstance(tf.evidence, dict) else None
    params = {"version": version or "?"}
    ev = {"tensorflow": version, "gpus": gpus, "last_native_windows_gpu": "2.10"}
    if parsed is not None and parsed <= TF_LAST_NATIVE_WINDOWS_GPU and gpus:
        yield Check("tensorflow.route", "pass", detail="tf_route_windows_210", params=params, evidence=ev,
                    source="rule")
        return
    status = "warn" if ctx.nvidia_present else "skip"
    yield Check("tensorflow.route", status, detail="tf_route_windows", params=params,
                cause="tf_windows_native_ended" if status == "warn" else None,
                fix="tf_wsl2" if status == "warn" else None, evidence=ev, source="rule")


def _tensorflow_on_a_mac(tf: Check, machine: str) -> Iterable[Check]:
    """A Mac with Apple silicon: TensorFlow sees the GPU only through Apple's tensorflow-metal
    plugin (resources/tensorflow.json); an Intel Mac's TensorFlow runs on the CPU."""
    ev = tf.evidence if isinstance(tf.evidence, dict) else {}
    params = {"version": str(ev.get("version") or "?")}
    evidence = {"tensorflow": ev.get("version"), "gpus": ev.get("gpus"), "machine": machine}
    if machine != "arm64":
        return
    if ev.get("gpus"):
        yield Check("tensorflow.route", "pass", detail="tf_route_metal", params=params, evidence=evidence,
                    source="rule")
    else:
        yield Check("tensorflow.route", "warn", detail="tf_route_mac", params=params, cause="tf_no_gpu_mac",
                    fix="tf_metal", evidence=evidence, source="rule")


def rule_tensorflow_memory(ctx: Context) -> Iterable[Check]:
    """TensorFlow takes nearly all GPU memory when it starts, unless memory growth is on
    (tf.config.experimental.set_memory_growth, resources/tensorflow.json): next to PyTorch in one
    notebook that reads as "out of memory" in whichever framework comes second. The probe turns it
    on in its child process and reports whether TensorFlow accepted it."""
    tf = next((c for c in ctx.probe_checks if c.id == "tensorflow"), None)
    ev = tf.evidence if tf is not None and isinstance(tf.evidence, dict) else {}
    if not ev.get("gpus") or "memory_growth" not in ev:
        return
    params = {"version": str(ev.get("version") or "?"), "count": str(len(ev.get("gpus") or []))}
    evidence = {"memory_growth": ev.get("memory_growth"), "error": ev.get("memory_growth_error")}
    if ev.get("memory_growth"):
        yield Check("tensorflow.memory", "pass", detail="tf_memory_growth", params=params, evidence=evidence,
                    source="rule")
    else:
        yield Check("tensorflow.memory", "warn", detail="tf_memory_growth_off", params=params,
                    cause="tf_memory_growth_failed", fix="tf_memory_growth", evidence=evidence, source="rule")


def rule_probe_checks(ctx: Context) -> Iterable[Check]:
    """What the probe ran, as it reported it (the last report of each check counts)."""
    latest: dict[tuple[str, int | None], Check] = {}
    for c in ctx.probe_checks:
        latest[c.key] = c
    yield from latest.values()


VERIFY_RULES: list[Rule] = [
    rule_probe_run, rule_python, rule_cuda_build, rule_cuda_driver, rule_cuda_available, rule_device_count,
    rule_devices, rule_arch, rule_tensorflow_route, rule_tensorflow_memory, rule_torch_variant,
    rule_uv_cpu_build, rule_probe_checks,
]


def evaluate(ctx: Context, rules: Sequence[Rule] | None = None) -> list[Check]:
    """All checks, rules first where a rule and the probe speak of the same (id, device)."""
    by_key: dict[tuple[str, int | None], Check] = {}
    for rule in rules or VERIFY_RULES:
        for check in rule(ctx):
            by_key.setdefault(check.key, check)
    order = {cid: i for i, cid in enumerate(ORDER)}
    checks = jetson_guard(ctx, list(by_key.values()))  # never a desktop driver or build on a Jetson
    return sorted(checks, key=lambda c: (order.get(c.id, len(order)), -1 if c.device is None else c.device))
