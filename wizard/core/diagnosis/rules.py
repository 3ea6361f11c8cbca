"""Diagnose what is wrong: a rule per known failure mode, reading the detection, the target
environment's torch (:class:`~wizard.core.diagnosis.facts.TorchFacts`) and machine facts
(:class:`~wizard.core.diagnosis.facts.EnvFacts`), each producing a :class:`Diagnosis`.

A diagnosis is a :class:`~wizard.core.machine.models.Finding` (stable id from the failure catalogue,
severity, evidence quoted, cause and fix from the message catalogue) plus, where a fix is
safe and the wizard can do it, an :class:`Action`: reinstall the recommended CUDA build in
place of a CPU build, switch to a variant that has this GPU's kernels, open the driver page,
or restart. Actions are proposals: the front end asks before doing anything.

The detection rules of :mod:`wizard.core.machine.findings` run first, unchanged; the rules here add
what needs the environment or the machine facts. More rules can be added with
:func:`register_rule` (the verification step does, for what only it knows). Rules only read
their inputs; :func:`wizard.core.diagnosis.facts.gather_env_facts` does the probing.

The types (:class:`Diagnosis`, :class:`Action`, :class:`DiagnosisInput`) live in
:mod:`wizard.core.diagnosis.model`, shared with the paste explainer whose recognisers the rules
use.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from packaging.version import InvalidVersion, Version

from wizard.core.base.i18n import msg
from wizard.core.diagnosis.explain import cuda_version_params, python_support, recognise
from wizard.core.diagnosis.facts import EnvFacts, TorchFacts, variant_to_cuda
from wizard.core.diagnosis.model import (
    ACTION_REINSTALL,
    ACTION_SWITCH,
    SCOPE_DETECTION,
    SCOPE_ENV,
    SCOPE_TORCH,
    SEVERITY_ORDER,
    Diagnosis,
    DiagnosisInput,
    Rule,
    action_for,
    candidate_action,
    driver_vs_build,
)
from wizard.core.machine.models import STATUS_DRIVER_NOT_LOADED, STATUS_NO_DRIVER, STATUS_OK, Detection

LOW_FREE_VRAM = 0.10  # less free GPU memory than this share: other programs hold it (as the verify probe)
LAPTOP_NAME = re.compile(r"Laptop GPU|Max-Q|\bMobile\b|\d{3,4}M\b")


# ---------------------------------------------------------------------------------------------
# Rules
# ---------------------------------------------------------------------------------------------
_NVML_LIBRARY = re.compile(r"NVML library version:\s*(\d+\.\d+(?:\.\d+)?)")


def rule_detection(ctx: DiagnosisInput) -> Iterable[Diagnosis]:
    """The detection findings (wizard.core.machine.findings), with their actions."""
    from wizard.core.machine.findings import detection_findings

    for f in detection_findings(ctx.detection):
        action = None
        evidence = f.evidence
        if f.id == "nvml-driver-library-version-mismatch":
            action = action_for("restart")
            module = ctx.env.kernel_module_version if ctx.env else None
            library = _NVML_LIBRARY.search(evidence or "")
            if module and library and module != library.group(1):
                evidence = (evidence or "") + f"\n/proc/driver/nvidia/version: {module}; NVML library: {library.group(1)}"
        elif f.id == "gpu-is-lost":
            action = action_for("restart")
        elif f.id == "no-nvidia-driver" and f.severity == "error":
            action = action_for("open_driver_page")
        d = Diagnosis.from_finding(f, action, SCOPE_DETECTION)
        d.evidence = evidence
        yield d


def rule_kernel_module(ctx: DiagnosisInput) -> Iterable[Diagnosis]:
    """Linux: nouveau / nova_core holding the GPU, Secure Boot refusing the unsigned module."""
    env, d = ctx.env, ctx.detection
    if env is None or d.system.os != "linux" or d.system.is_wsl or not ctx.has_nvidia():
        return
    status = d.nvidia.status
    raw = next((s.raw_error for s in d.nvidia.sources if s.raw_error), None)
    if status != STATUS_OK and (env.nouveau_loaded or env.nova_core_loaded):
        module = "nova_core" if env.nova_core_loaded and not env.nouveau_loaded else "nouveau"
        evidence = "\n".join(x for x in (f"/sys/module/{module}", raw) if x)
        yield Diagnosis("nouveau-loaded", "error", {"driver": module}, evidence, scope=SCOPE_ENV)
    rejected = env.modprobe_error and "Key was rejected" in env.modprobe_error
    not_loaded = status == STATUS_DRIVER_NOT_LOADED or (
        env.nvidia_module_loaded is False and status != STATUS_OK)
    if rejected or (env.secure_boot and not_loaded):
        evidence = "\n".join(x for x in (env.secure_boot_evidence, env.modprobe_error, raw) if x)
        yield Diagnosis("secure-boot-blocks-module", "error", {}, evidence, scope=SCOPE_ENV)


def rule_wsl(ctx: DiagnosisInput) -> Iterable[Diagnosis]:
    """WSL: version 1 has no GPU; Linux drivers inside shadow the Windows driver's libraries."""
    system = ctx.detection.system
    if not system.is_wsl:
        return
    if system.wsl_version == 1:
        yield Diagnosis("wsl2-gpu-setup", "error", {}, f"WSL{system.wsl_version} ({system.os_build or '?'})",
                        "wsl1", scope=SCOPE_DETECTION)
        return
    env = ctx.env
    if env is not None and env.wsl_linux_driver_packages:
        packages = ", ".join(env.wsl_linux_driver_packages)
        yield Diagnosis("wsl2-gpu-setup", "error", {"packages": packages}, "dpkg: " + packages, "linux-driver",
                        scope=SCOPE_ENV)
        return
    if env is not None and env.wsl_libs is not None and "libcuda.so.1" not in env.wsl_libs:
        yield Diagnosis("wsl2-gpu-setup", "error", {}, "/usr/lib/wsl/lib: " + (", ".join(env.wsl_libs) or "-"),
                        "libs-missing", scope=SCOPE_ENV)
        return
    torch = ctx.torch
    if torch is not None and torch.cuda and torch.is_available is False:
        yield Diagnosis("wsl2-gpu-setup", "warning", {}, _torch_evidence(torch), "text", scope=SCOPE_TORCH)


def _laptop_name(ctx: DiagnosisInput) -> str | None:
    names = [g.name for g in ctx.detection.nvidia.gpus if g.name]
    names += [a.name for a in ctx.detection.system.display_adapters if a.vendor == "nvidia" and a.name]
    return next((n for n in names if LAPTOP_NAME.search(n)), None)


def rule_hybrid_laptop(ctx: DiagnosisInput) -> Iterable[Diagnosis]:
    """Optimus laptops: the PRIME profile on Linux, the NVIDIA driver next to the integrated one on
    Windows, and what a laptop GPU means for the numbers."""
    d, env = ctx.detection, ctx.env
    adapters = d.system.display_adapters
    igpu = next((a for a in adapters if a.vendor in ("intel", "amd")), None)
    if env is not None and (env.prime_profile or "").lower() in ("intel", "integrated"):
        yield Diagnosis("optimus-hybrid-laptop", "error", {"profile": env.prime_profile},
                        f"prime-select query: {env.prime_profile}", "prime-intel", scope=SCOPE_ENV)
        return
    nvidia_adapter = next((a for a in adapters if a.vendor == "nvidia"), None)
    if d.nvidia.status == STATUS_NO_DRIVER and d.system.os == "windows" and nvidia_adapter and igpu:
        gpu = nvidia_adapter.name or nvidia_adapter.pci_id or "NVIDIA"
        yield Diagnosis("optimus-hybrid-laptop", "info", {"gpu": gpu, "igpu": igpu.name or igpu.vendor},
                        f"{gpu} ({nvidia_adapter.pci_id or '?'}); {igpu.name or igpu.vendor}", "windows-no-driver",
                        scope=SCOPE_DETECTION)
        return
    laptop = _laptop_name(ctx)
    if laptop is not None and d.nvidia.status == STATUS_OK:
        limits = [g.power_limit_w for g in d.nvidia.gpus if g.power_limit_w]
        power = f"{limits[0]:.0f} W" if limits else msg("common.na")
        yield Diagnosis("optimus-hybrid-laptop", "info", {"gpu": laptop, "power": power},
                        laptop + (f" ({igpu.name})" if igpu and igpu.name else ""), "laptop", scope=SCOPE_DETECTION)


def _torch_evidence(torch: TorchFacts) -> str:
    parts = [f"torch {torch.version or '?'}", f"torch.version.cuda = {torch.cuda}"]
    if torch.is_available is not None:
        parts.append(f"torch.cuda.is_available() = {torch.is_available}")
    if torch.device_count is not None:
        parts.append(f"torch.cuda.device_count() = {torch.device_count}")
    return "\n".join(parts)


def rule_torch_installed(ctx: DiagnosisInput) -> Iterable[Diagnosis]:
    torch = ctx.torch
    if torch is None or torch.installed:
        return
    candidate = ctx.best_cuda() if ctx.has_nvidia() else None
    yield Diagnosis("torch-not-installed", "warning", {"env": torch.env_path or "?"},
                    "\n".join(torch.messages[:2]) or "ModuleNotFoundError: No module named 'torch'",
                    action=candidate_action(ACTION_REINSTALL, candidate) if ctx.has_nvidia() else None,
                    scope=SCOPE_TORCH)


def rule_cpu_only_torch(ctx: DiagnosisInput) -> Iterable[Diagnosis]:
    """A CPU-only build on a machine with an NVIDIA GPU (torch.version.cuda None is authoritative)."""
    torch, d = ctx.torch, ctx.detection
    if torch is None or not torch.is_cpu_build or d.system.os == "macos" or not ctx.has_nvidia():
        return
    driver_ok = d.nvidia.status == STATUS_OK
    candidate = ctx.best_cuda()
    gpu = next((g.name for g in d.nvidia.gpus if g.name), None) or next(
        (a.name for a in d.system.display_adapters if a.vendor == "nvidia" and a.name), "NVIDIA")
    evidence = _torch_evidence(torch) + f"\n{gpu}" + (f", driver {d.nvidia.driver_version}" if driver_ok else "")
    yield Diagnosis("cpu-only-torch-installed", "error" if driver_ok else "warning",
                    {"torch": torch.version, "gpu": gpu}, evidence, None if driver_ok else "no-driver-yet",
                    action=candidate_action(ACTION_REINSTALL, candidate), scope=SCOPE_TORCH)


def rule_driver_too_old(ctx: DiagnosisInput) -> Iterable[Diagnosis]:
    """torch.version.cuda against the highest CUDA the driver supports."""
    torch = ctx.torch
    if torch is None or not torch.cuda:
        return
    driver_cuda = ctx.driver_cuda()
    severity = driver_vs_build(torch.cuda, driver_cuda)
    if severity is None:
        return
    candidate = ctx.best_cuda()
    fits = candidate is not None and driver_vs_build(variant_to_cuda(candidate.variant) or "99.0", driver_cuda) is None
    action = candidate_action(ACTION_SWITCH, candidate) if fits else action_for("open_driver_page")
    driver = ctx.detection.nvidia.driver_version or "?"
    evidence = (f"torch {torch.version}: torch.version.cuda = {torch.cuda}\n"
                f"driver {driver}: CUDA ≤ {driver_cuda}")
    yield Diagnosis("driver-too-old-for-torch-cuda", severity,
                    {"cuda": driver_cuda, "build": torch.cuda, "driver": driver}, evidence,
                    None if severity == "error" else "minor", action=action, scope=SCOPE_TORCH)


def rule_arch_coverage(ctx: DiagnosisInput) -> Iterable[Diagnosis]:
    """Each GPU's compute capability against torch.cuda.get_arch_list() (the rule torch's
    _check_cubins uses: a same-major kernel at or below the GPU's minor, or older PTX)."""
    from wizard.core.recommend.compat_model import parse_cc, sm_name

    torch = ctx.torch
    if torch is None or not torch.cuda or not torch.arch_list:
        return
    cubins, ptx = torch.arch_ccs()
    for name, text in ctx.gpu_ccs():
        try:
            cc = parse_cc(text)
        except ValueError:
            continue
        if any(c[0] == cc[0] and c[1] <= cc[1] for c in cubins) or any(p <= cc for p in ptx):
            continue
        archs = " ".join(str(a) for a in torch.arch_list)
        yield Diagnosis("no-kernel-image-sm-incompatible", "error", {"gpu": name, "sm": sm_name(cc), "archs": archs},
                        f"{name}: {sm_name(cc)}\ntorch.cuda.get_arch_list() = {archs}",
                        action=candidate_action(ACTION_SWITCH, ctx.best_cuda()), scope=SCOPE_TORCH)
        return


def _visible_value(ctx: DiagnosisInput) -> tuple[str | None, str | None]:
    """(CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER) as the environment's process saw them, else the wizard's."""
    for source in ((ctx.torch.env_vars if ctx.torch else None), (ctx.env.env_vars if ctx.env else None)):
        if source is not None and ("CUDA_VISIBLE_DEVICES" in source or "CUDA_DEVICE_ORDER" in source):
            return source.get("CUDA_VISIBLE_DEVICES"), source.get("CUDA_DEVICE_ORDER")
    return None, None


def visible_devices(value: str, gpus: list[Any]) -> tuple[int, str | None]:
    """How many GPUs CUDA_VISIBLE_DEVICES lets through, and the first bad entry (CUDA stops there)."""
    count = 0
    for raw in value.split(","):
        entry = raw.strip()
        if not entry:
            return count, entry
        if re.fullmatch(r"-?\d+", entry):
            if int(entry) < 0 or int(entry) >= len(gpus):
                return count, entry
        elif entry.upper().startswith(("GPU-", "MIG-")):
            if not any((g.uuid or "").upper().startswith(entry.upper()) for g in gpus):
                return count, entry
        else:
            return count, entry
        count += 1
    return count, None


def rule_visible_devices(ctx: DiagnosisInput) -> Iterable[Diagnosis]:
    """CUDA_VISIBLE_DEVICES hiding GPUs (empty, -1, an index or UUID that does not exist)."""
    value, order = _visible_value(ctx)
    gpus = ctx.detection.nvidia.gpus
    torch = ctx.torch
    scope = SCOPE_TORCH if torch is not None and "CUDA_VISIBLE_DEVICES" in torch.env_vars else SCOPE_ENV
    if any((g.mig_mode or "").lower() == "enabled" for g in gpus):
        return  # MIG instances are addressed by MIG UUIDs; NVML's GPU count means something else
    if value is None:
        # torch reports 0 devices whenever CUDA fails to start; only a smaller, non-zero count says "hidden"
        if torch is not None and torch.is_available and torch.device_count and gpus \
                and ctx.detection.nvidia.status == STATUS_OK and torch.cuda and torch.device_count < len(gpus):
            yield Diagnosis("cuda-visible-devices-hides-gpus", "warning",
                            {"value": msg("common.na"), "visible": torch.device_count, "total": len(gpus)},
                            f"NVML: {len(gpus)} GPU(s); torch.cuda.device_count() = {torch.device_count}",
                            "count", scope=SCOPE_TORCH)
        return
    evidence = f"CUDA_VISIBLE_DEVICES={value!r}" + (f", CUDA_DEVICE_ORDER={order}" if order else "")
    if not gpus:
        if value.strip() in ("", "-1"):
            yield Diagnosis("cuda-visible-devices-hides-gpus", "error", {"value": value, "visible": 0, "total": "?"},
                            evidence, "none", scope=scope)
        return
    visible, bad = visible_devices(value, gpus)
    params = {"value": value, "visible": visible, "total": len(gpus), "bad": bad if bad is not None else ""}
    if visible == 0:
        yield Diagnosis("cuda-visible-devices-hides-gpus", "error", params, evidence, "none", scope=scope)
    elif bad is not None:
        yield Diagnosis("cuda-visible-devices-hides-gpus", "warning", params, evidence, "bad-entry", scope=scope)
    elif visible < len(gpus):
        yield Diagnosis("cuda-visible-devices-hides-gpus", "info", params, evidence, "subset", scope=scope)
    elif len(gpus) > 1 and (order or "").upper() != "PCI_BUS_ID":
        yield Diagnosis("cuda-visible-devices-hides-gpus", "info", params, evidence, "order", scope=scope)


def _base(version: str) -> str:
    return version.split("+", 1)[0]


def rule_conda_pip_mix(ctx: DiagnosisInput) -> Iterable[Diagnosis]:
    """torch from a conda channel and from pip in one environment (pip list also shows conda's
    own torch, so only a pip-channel row or a different version proves a second install)."""
    env = ctx.env
    if env is None or env.conda_packages is None:
        return
    native = [p for p in env.torch_in_conda() if p.channel != "pypi"]
    pypi = [p for p in env.torch_in_conda() if p.channel == "pypi"]
    pip = env.torch_in_pip()
    installer_pip = ctx.torch is not None and ctx.torch.installer == "pip"
    other = pypi or [p for p in pip if native and _base(p.version) != _base(native[0].version)]
    if not native or not (other or installer_pip):
        return
    rows = [f"conda: {p.name} {p.version} ({p.channel})" for p in native + pypi]
    rows += [f"pip: {p.name} {p.version}" for p in pip]
    second = other[0].version if other else (ctx.torch.version if ctx.torch else "?")
    yield Diagnosis("conda-pip-torch-mixed", "error",
                    {"conda": f"{native[0].name} {native[0].version} ({native[0].channel})", "pip": f"torch {second}"},
                    "\n".join(rows), scope=SCOPE_ENV)


def rule_python(ctx: DiagnosisInput) -> Iterable[Diagnosis]:
    """The target environment's Python against the wheels that exist (the compatibility table)."""
    python = ctx.python
    os_name = ctx.detection.system.os
    if not python or os_name not in ("windows", "linux", "macos"):
        return
    bits = (ctx.torch.python_bits if ctx.torch else None) or (ctx.env.python_bits if ctx.env else None)
    verdict = python_support(python, os_name, ctx.detection.system.arch or "x86_64", bits)
    if verdict is None:
        return
    severity, variant, params = verdict
    # an installed, working torch is proof enough that wheels exist: then only the old-only note
    if ctx.torch is not None and ctx.torch.installed and ctx.torch.version and severity == "error" and variant != "32bit":
        return
    scope = SCOPE_TORCH if ctx.torch is not None and ctx.torch.python_version else SCOPE_ENV
    yield Diagnosis("python-version-unsupported", severity, params,
                    f"Python {python}" + (f" ({bits}-bit)" if bits else ""), variant, scope=scope)


def rule_pynvml_dists(ctx: DiagnosisInput) -> Iterable[Diagnosis]:
    """Packages in the environment that shadow NVIDIA's nvidia-ml-py (gpustat/nvitop break)."""
    env = ctx.env
    if env is None or not env.pip_packages:
        return
    bad = []
    for p in env.pip_packages:
        if p.name == "nvidia-ml-py3":
            bad.append(p)
        elif p.name == "pynvml":
            try:
                old = Version(p.version) < Version("12")  # 12+ is a wrapper around nvidia-ml-py
            except InvalidVersion:
                old = True
            if old:
                bad.append(p)
    if bad:
        names = ", ".join(f"{p.name}=={p.version}" for p in bad)
        yield Diagnosis("pynvml-package-conflict", "warning", {"packages": names}, "pip: " + names, "env",
                        scope=SCOPE_ENV)


def rule_cuda_versions(ctx: DiagnosisInput) -> Iterable[Diagnosis]:
    """The three CUDA versions side by side, when a toolkit (nvcc) is installed to confuse them."""
    env = ctx.env
    if env is None or not env.nvcc_version:
        return
    toolkit = ".".join(env.nvcc_version.split(".")[:2])
    driver = ctx.detection.nvidia.cuda_version
    build = ctx.torch.cuda if ctx.torch else None
    known = [x for x in (driver, toolkit, build) if x]
    if len(known) < 2 or len(set(known)) == 1:
        return
    evidence = "\n".join(x for x in (f"nvidia-smi: CUDA Version {driver}" if driver else None,
                                      f"nvcc: release {env.nvcc_version}",
                                      f"torch.version.cuda = {build}" if build else None) if x)
    yield Diagnosis("cuda-version-confusion", "info", cuda_version_params(driver, toolkit, build), evidence,
                    scope=SCOPE_TORCH if build else SCOPE_ENV)


def rule_vram_held(ctx: DiagnosisInput) -> Iterable[Diagnosis]:
    """Little free GPU memory before anything ran: other programs hold it (CUDA out of memory soon)."""
    for g in ctx.detection.nvidia.gpus:
        total = g.memory_total_mib
        free = g.memory_free_mib
        if free is None and total is not None and g.memory_used_mib is not None:
            free = total - g.memory_used_mib
        if not total or free is None or free / total >= LOW_FREE_VRAM:
            continue
        holders = sorted((p for p in g.processes if p.name), key=lambda p: -(p.used_memory_mib or 0))[:3]
        names = ", ".join(p.name.replace("\\", "/").rsplit("/", 1)[-1] for p in holders if p.name) or msg("common.na")
        yield Diagnosis("cuda-out-of-memory", "warning",
                        {"gpu": g.name or f"GPU {g.index}", "free": f"{free:.0f}", "total": f"{total:.0f}",
                         "processes": names},
                        f"GPU {g.index}: {free:.0f} MiB free of {total:.0f} MiB", "vram-held", scope=SCOPE_DETECTION)


def rule_torch_messages(ctx: DiagnosisInput) -> Iterable[Diagnosis]:
    """The failure texts torch itself printed (warnings, exceptions), recognised as pasted text is."""
    torch = ctx.torch
    if torch is None or not torch.messages:
        return
    system = ctx.detection.system
    for f in recognise("\n".join(torch.messages)):
        f.scope = SCOPE_TORCH
        if f.variant == "possible":
            continue  # the facts decide those, not a guess from one line
        if f.id == "wsl2-gpu-setup" and system.os == "linux" and not system.is_wsl:
            continue  # detection knows this is not WSL
        yield f


DIAGNOSIS_RULES: list[Rule] = [
    rule_detection,
    rule_kernel_module,
    rule_wsl,
    rule_hybrid_laptop,
    rule_torch_installed,
    rule_cpu_only_torch,
    rule_driver_too_old,
    rule_arch_coverage,
    rule_visible_devices,
    rule_conda_pip_mix,
    rule_python,
    rule_pynvml_dists,
    rule_cuda_versions,
    rule_vram_held,
    rule_torch_messages,
]


def register_rule(rule: Rule, *, before: Rule | None = None) -> None:
    """Add a rule (e.g. from the verification step); ``before`` places it ahead of another.
    Registering the same rule twice does nothing."""
    if rule in DIAGNOSIS_RULES:
        return
    if before is not None and before in DIAGNOSIS_RULES:
        DIAGNOSIS_RULES.insert(DIAGNOSIS_RULES.index(before), rule)
    else:
        DIAGNOSIS_RULES.append(rule)


# torch cannot use the GPU, and one of these says why; otherwise the generic finding does.
_EXPLAINS_UNAVAILABLE = frozenset({
    "no-nvidia-driver", "nvidia-smi-cannot-communicate", "nvml-driver-library-version-mismatch", "gpu-is-lost",
    "nvidia-no-devices", "nvidia-timeout", "nvml-no-permission", "nvidia-error", "driver-too-old-for-torch-cuda",
    "cuda-visible-devices-hides-gpus", "wsl2-gpu-setup", "nouveau-loaded", "secure-boot-blocks-module",
    "optimus-hybrid-laptop", "cpu-only-torch-installed", "torch-not-installed", "no-kernel-image-sm-incompatible",
    "cuda-out-of-memory", "conda-pip-torch-mixed", "driver-predates-gpu",
})


def _unexplained_unavailable(ctx: DiagnosisInput, found: list[Diagnosis]) -> Diagnosis | None:
    torch = ctx.torch
    if torch is None or not torch.installed or not (torch.cuda or torch.hip):
        return None
    broken = torch.is_available is False or (torch.is_available and torch.kernel_ok is False)
    if not broken or not ctx.has_nvidia():
        return None
    if any(f.id in _EXPLAINS_UNAVAILABLE and f.severity in ("error", "warning") for f in found):
        return None
    evidence = _torch_evidence(torch) + ("\n" + "\n".join(torch.messages[:3]) if torch.messages else "")
    return Diagnosis("torch-cuda-unavailable", "error", {"torch": torch.version or "?"}, evidence,
                     "kernel" if torch.is_available else None, scope=SCOPE_TORCH)


def diagnose(detection: Detection, torch: TorchFacts | None = None, env: EnvFacts | None = None, *,
             python_version: str | None = None, rules: list[Rule] | None = None) -> list[Diagnosis]:
    """Every diagnosis, most severe first; one per failure-mode id (the most severe, then the first)."""
    ctx = DiagnosisInput(detection, torch, env, python_version)
    found: list[Diagnosis] = []
    index: dict[str, int] = {}

    def add(f: Diagnosis) -> None:
        if f.id in index:
            i = index[f.id]
            if SEVERITY_ORDER.get(f.severity, 9) < SEVERITY_ORDER.get(found[i].severity, 9):
                found[i] = f
            return
        index[f.id] = len(found)
        found.append(f)

    for rule in rules if rules is not None else DIAGNOSIS_RULES:
        for f in rule(ctx):
            add(f)
    fallback = _unexplained_unavailable(ctx, found)
    if fallback is not None:
        add(fallback)
    return sorted(found, key=lambda f: SEVERITY_ORDER.get(f.severity, 9))


def _with_variant_rules() -> None:
    """The wheel-variant resolver's failures (rules_variants.py), ahead of the general CPU-only rule."""
    from wizard.core.diagnosis.rules_variants import rule_variant_cpu_fallback

    register_rule(rule_variant_cpu_fallback, before=rule_cpu_only_torch)


_with_variant_rules()

__all__ = ["DIAGNOSIS_RULES", "register_rule", "diagnose", "visible_devices"]
