"""Verification: the probe's events (``wizard/probe/verify.py``) → a checklist with causes and fixes.

Two kinds of checks end up in :attr:`VerifyReport.checks`:

* checks the probe ran in the target environment (a kernel launch, a matmul against a float64
  reference, an AMP training step, cuDNN, NCCL, MPS/XPU, TensorFlow, collect_env), taken as the
  probe reported them;
* checks made here from the probe's facts, optionally cross-checked with what detection saw
  outside that environment (:class:`~wizard.core.machine.models.Detection`): a CPU-only build on a
  machine with an NVIDIA GPU, a driver too old for the wheel's CUDA, each GPU's compute
  capability against ``torch.cuda.get_arch_list()`` (the "no kernel image" trap, which
  ``torch.cuda.is_available()`` does not catch), device counts, why CUDA is unavailable.

Every rule is a small function of a :class:`Context`; the report re-evaluates them whenever an
event arrives, so the GUI can show the checklist filling in while the probe runs.

Statuses: ``pass``; ``warn`` (works, but something to know: a driver one minor version behind,
a CPU-only build on a machine without an NVIDIA GPU); ``fail`` (with a cause and a fix);
``skip`` (does not apply here, with the reason as its detail).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence

from packaging.version import InvalidVersion, Version

from wizard.core.base.i18n import catalogue, t
from wizard.core.verify.probe_runner import CancelLike, Event, ProbeOutcome, run_probe

if TYPE_CHECKING:
    from wizard.core.machine.models import Detection

SCHEMA = "gpu-setup-wizard/verify@1.0"
STATUSES = ("pass", "warn", "fail", "skip")
_RANK = {"fail": 3, "warn": 2, "pass": 1, "skip": 0}

# Reading order of the checklist; ids not listed (a newer probe's) go last.
ORDER = (
    "probe", "python", "torch.import", "cuda.build", "cuda.driver", "cuda.available", "cuda.device_count",
    "cuda.device", "cuda.arch", "cuda.kernel", "cuda.matmul.fp32", "cuda.matmul.fp16", "cuda.matmul.bf16",
    "cuda.memory", "cuda.amp_step", "cudnn", "nccl", "mps", "mps.matmul", "xpu", "xpu.matmul",
    "cpu.matmul", "cpu.train_step", "tensorflow", "collect_env",
)

# failure-modes.json ids, so a report links a check to the catalogue of known failures.
FINDING_OF_CAUSE = {
    "cpu_only_build": "cpu-only-torch-installed",
    "cpu_only_no_gpu": "cpu-only-torch-installed",
    "driver_too_old": "driver-too-old-for-torch-cuda",
    "driver_minor_older": "driver-too-old-for-torch-cuda",
    "no_kernel_image": "no-kernel-image-sm-incompatible",
    "no_driver": "no-nvidia-driver",
    "visible_devices_hidden": "cuda-visible-devices-hides-gpus",
    "device_count_mismatch": "cuda-visible-devices-hides-gpus",
    "out_of_memory": "cuda-out-of-memory",
    "low_free_memory": "cuda-out-of-memory",
}

_FOUND_VERSION = re.compile(r"found version (\d{4,6})")
_ARCH = re.compile(r"^(sm|compute)_(\d+)([a-z]?)$")


# ------------------------------------------------------------------------------------------
# One check
# ------------------------------------------------------------------------------------------
@dataclass
class Check:
    """One line of the checklist. Message ids: ``verify.check.<id>.title``,
    ``verify.detail.<detail>``, ``verify.cause.<cause>``, ``verify.fix.<fix>``."""

    id: str
    status: str
    device: int | None = None
    detail: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    cause: str | None = None
    fix: str | None = None
    evidence: dict[str, Any] = field(default_factory=dict)
    source: str = "probe"  # "probe": the probe ran it; "rule": judged here from facts

    @property
    def key(self) -> tuple[str, int | None]:
        return self.id, self.device

    @property
    def finding(self) -> str | None:
        return FINDING_OF_CAUSE.get(self.cause or "")

    def _t(self, key: str, lang: str | None) -> str:
        return t(key, lang, **{k: ("" if v is None else v) for k, v in self.params.items()})

    def title(self, lang: str | None = None) -> str:
        key = f"verify.check.{self.id}.title"
        if key not in catalogue():
            return self.id
        text = t(key, lang)
        return text if self.device is None else f"{text} (GPU {self.device})"

    def detail_text(self, lang: str | None = None) -> str:
        if self.detail:
            return self._t(f"verify.detail.{self.detail}", lang)
        message = self.evidence.get("message") if isinstance(self.evidence, dict) else None
        if self.status == "fail" and message:
            return str(message).strip().splitlines()[0][:300]  # raw evidence: the exception's first line
        if self.cause:
            return self.cause_text(lang)
        return t(f"verify.status.{self.status}", lang)

    def cause_text(self, lang: str | None = None) -> str | None:
        return self._t(f"verify.cause.{self.cause}", lang) if self.cause else None

    def fix_text(self, lang: str | None = None) -> str | None:
        return self._t(f"verify.fix.{self.fix}", lang) if self.fix else None

    def to_json(self, lang: str | None = None) -> dict[str, Any]:
        return {
            "id": self.id, "status": self.status, "detail": self.detail_text(lang), "device": self.device,
            "title": self.title(lang), "cause": self.cause_text(lang), "fix": self.fix_text(lang),
            "cause_id": self.cause, "fix_id": self.fix, "finding": self.finding, "source": self.source,
            "params": self.params, "evidence": self.evidence,
        }

    @classmethod
    def from_event(cls, event: Event) -> "Check | None":
        cid = event.get("id")
        status = event.get("status")
        if not isinstance(cid, str) or status not in STATUSES:
            return None
        device = event.get("device")
        params = event.get("params")
        evidence = event.get("evidence")
        return cls(id=cid, status=status, device=device if isinstance(device, int) else None,
                   detail=_str_or_none(event.get("detail")), params=params if isinstance(params, dict) else {},
                   cause=_str_or_none(event.get("cause")), fix=_str_or_none(event.get("fix")),
                   evidence=evidence if isinstance(evidence, dict) else {}, source="probe")


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


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
        yield Check("cuda.build", "warn", detail="cpu_build", params=params, cause="cpu_only_no_gpu",
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


def rule_probe_checks(ctx: Context) -> Iterable[Check]:
    """What the probe ran, as it reported it (the last report of each check counts)."""
    latest: dict[tuple[str, int | None], Check] = {}
    for c in ctx.probe_checks:
        latest[c.key] = c
    yield from latest.values()


VERIFY_RULES: list[Rule] = [
    rule_probe_run, rule_python, rule_cuda_build, rule_cuda_driver, rule_cuda_available, rule_device_count,
    rule_devices, rule_arch, rule_probe_checks,
]


def evaluate(ctx: Context, rules: Sequence[Rule] | None = None) -> list[Check]:
    """All checks, rules first where a rule and the probe speak of the same (id, device)."""
    by_key: dict[tuple[str, int | None], Check] = {}
    for rule in rules or VERIFY_RULES:
        for check in rule(ctx):
            by_key.setdefault(check.key, check)
    order = {cid: i for i, cid in enumerate(ORDER)}
    return sorted(by_key.values(), key=lambda c: (order.get(c.id, len(order)), -1 if c.device is None else c.device))


def worst(statuses: Iterable[str]) -> str:
    """The overall status: fail > warn > pass > skip (all skipped → skip)."""
    best = "skip"
    for s in statuses:
        if _RANK.get(s, 0) > _RANK[best]:
            best = s
    return best


# ------------------------------------------------------------------------------------------
# The report
# ------------------------------------------------------------------------------------------
@dataclass
class VerifyReport:
    """The checklist, the versions and devices, and collect_env's text for one environment.

    Build it at once with :meth:`from_events` / :meth:`from_outcome`, or incrementally
    (GUI): ``report = VerifyReport(detection=d)``, ``report.feed(event)`` per event, then
    ``report.finish(outcome)``; :attr:`checks` is current after every call.
    """

    detection: Detection | None = None
    python_exe: str | None = None
    events: list[Event] = field(default_factory=list)
    outcome: ProbeOutcome | None = None
    final: bool = False
    _checks: list[Check] | None = field(default=None, repr=False)

    # ---- building ----------------------------------------------------------------------
    @classmethod
    def from_events(cls, events: Iterable[Event], detection: Detection | None = None,
                    python_exe: str | None = None, final: bool = True) -> "VerifyReport":
        report = cls(detection=detection, python_exe=python_exe)
        for e in events:
            report.feed(e)
        report.final = final
        return report

    @classmethod
    def from_outcome(cls, outcome: ProbeOutcome, detection: Detection | None = None,
                     python_exe: str | None = None) -> "VerifyReport":
        report = cls.from_events(outcome.events, detection, python_exe or (outcome.argv[0] if outcome.argv else None))
        report.finish(outcome)
        return report

    def feed(self, event: Event) -> list[Check]:
        """Add one probe event; returns the checks it changed (for a live checklist)."""
        before = {c.key: c for c in self.checks}
        self.events.append(event)
        self._checks = None
        return [c for c in self.checks if before.get(c.key) != c]

    def finish(self, outcome: ProbeOutcome | None) -> None:
        self.outcome = outcome
        self.final = True
        self._checks = None

    # ---- views of the events -----------------------------------------------------------
    @property
    def facts(self) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        for e in self.events:
            if e.get("event") == "result" and e.get("type") == "facts" and isinstance(e.get("section"), str):
                merged[e["section"]] = e.get("data")
        return merged

    @property
    def probe_checks(self) -> list[Check]:
        out = []
        for e in self.events:
            if e.get("event") == "result" and e.get("type") == "check":
                c = Check.from_event(e)
                if c is not None:
                    out.append(c)
        return out

    @property
    def errors(self) -> list[Event]:
        return [e for e in self.events if e.get("event") == "error"]

    @property
    def collect_env(self) -> dict[str, Any] | None:
        for e in reversed(self.events):
            if e.get("event") == "result" and e.get("type") == "collect_env":
                return e
        return None

    @property
    def collect_env_text(self) -> str | None:
        ce = self.collect_env
        return ce.get("text") if ce else None

    def context(self) -> Context:
        return Context(self.facts, self.probe_checks, self.errors, self.detection, self.outcome, self.final)

    @property
    def checks(self) -> list[Check]:
        if self._checks is None:
            self._checks = evaluate(self.context())
        return self._checks

    def check(self, cid: str, device: int | None = None) -> Check | None:
        for c in self.checks:
            if c.id == cid and (device is None or c.device == device):
                return c
        return None

    @property
    def status(self) -> str:
        return worst(c.status for c in self.checks)

    @property
    def ok(self) -> bool:
        """No check failed (warnings allowed)."""
        return self.final and all(c.status != "fail" for c in self.checks)

    def counts(self) -> dict[str, int]:
        out = {s: 0 for s in STATUSES}
        for c in self.checks:
            out[c.status] = out.get(c.status, 0) + 1
        return out

    @property
    def versions(self) -> dict[str, Any]:
        f = self.facts
        tv = f.get("torch") if isinstance(f.get("torch"), dict) else {}
        cuda = f.get("cuda") if isinstance(f.get("cuda"), dict) else {}
        py = f.get("python") if isinstance(f.get("python"), dict) else {}
        driver_cuda, source = self.context().driver_cuda()
        nccl = cuda.get("nccl")
        return {
            "python": py.get("version"), "torch": tv.get("version"), "cuda": tv.get("cuda"), "hip": tv.get("hip"),
            "cudnn": tv.get("cudnn"), "nccl": nccl if isinstance(nccl, str) else None,
            "driver_cuda": driver_cuda, "driver_cuda_source": source,
            "driver": self.detection.nvidia.driver_version if self.detection is not None else None,
            "arch_list": cuda.get("arch_list"), "num_threads": tv.get("num_threads"),
        }

    @property
    def devices(self) -> list[dict[str, Any]]:
        return self.context().devices

    @property
    def tensorflow(self) -> dict[str, Any] | None:
        c = self.check("tensorflow")
        return c.evidence if c else None

    # ---- output ------------------------------------------------------------------------
    def to_json(self, lang: str | None = None) -> dict[str, Any]:
        ce = self.collect_env
        return {
            "schema": SCHEMA,
            "python": self.python_exe,
            "status": self.status,
            "ok": self.ok,
            "complete": self.final and (self.outcome is None or self.outcome.completed),
            "counts": self.counts(),
            "checks": [c.to_json(lang) for c in self.checks],
            "versions": self.versions,
            "devices": self.devices,
            "collect_env": None if ce is None else {"text": ce.get("text"), "returncode": ce.get("returncode"),
                                                    "timed_out": ce.get("timed_out")},
            "facts": {k: v for k, v in self.facts.items()},
            "probe": self.outcome.to_json() if self.outcome is not None else None,
        }

    def to_text(self, lang: str | None = None) -> str:
        """The checklist as plain text (CLI without --json, "copy diagnostics")."""
        marks = {"pass": "[ OK ]", "warn": "[WARN]", "fail": "[FAIL]", "skip": "[SKIP]"}
        lines = [t("verify.report.heading", lang, python=self.python_exe or "?")]
        for c in self.checks:
            lines.append(f"{marks.get(c.status, '[ ?? ]')} {c.title(lang)}: {c.detail_text(lang)}")
            if c.status in ("fail", "warn"):
                if c.cause:
                    lines.append("       " + t("verify.report.cause", lang, text=c.cause_text(lang)))
                if c.fix:
                    lines.append("       " + t("verify.report.fix", lang, text=c.fix_text(lang)))
        counts = self.counts()
        lines.append(t("verify.report.counts", lang, passed=counts["pass"], warned=counts["warn"],
                       failed=counts["fail"], skipped=counts["skip"]))
        return "\n".join(lines)

    def diagnostics(self, lang: str | None = None) -> str:
        """Everything a teaching assistant needs, pasteable: checklist, versions, collect_env."""
        parts = [self.to_text(lang), "", t("verify.report.versions", lang)]
        for k, v in self.versions.items():
            if v not in (None, [], ""):
                parts.append(f"  {k}: {' '.join(v) if isinstance(v, list) else v}")
        text = self.collect_env_text
        if text:
            parts += ["", "python -m torch.utils.collect_env", "```", text.rstrip(), "```"]
        if self.outcome is not None and self.outcome.failure_kind():
            parts += ["", "stderr:", self.outcome.stderr_tail[-3000:]]
        return "\n".join(parts)


def progress_text(event: Event, lang: str | None = None) -> str:
    """A progress event as a line for the status bar ("Importing PyTorch ...")."""
    step = str(event.get("step") or "")
    key = f"verify.step.{step}"
    return t(key, lang) if key in catalogue() else step


def verify_args(skip: Sequence[str] = ()) -> list[str]:
    """The probe's command-line arguments."""
    return ["--skip", ",".join(skip)] if skip else []


def run_verify(python_exe: str, detection: Detection | None = None, *, timeout: float = 300.0,
               on_event: Callable[[Event], None] | None = None, cancel: CancelLike = None,
               skip: Sequence[str] = ()) -> VerifyReport:
    """Run the verification probe in ``python_exe`` and build the report (CLI entry point).
    Never raises for the probe's sake: a probe that cannot start, crashes or times out is
    the report's ``probe`` check."""
    outcome = run_probe(python_exe, "verify.py", verify_args(skip), timeout=timeout, on_event=on_event, cancel=cancel)
    return VerifyReport.from_outcome(outcome, detection, python_exe)
