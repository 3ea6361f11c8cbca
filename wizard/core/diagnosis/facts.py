"""What the diagnosis reads besides detection: the target environment's torch, and machine facts
that detection does not collect (kernel modules, Secure Boot, WSL libraries, package lists).

Why a protocol of its own: the verification engine that runs torch inside the student's
environment is separate, and the diagnosis must not depend on how it is built. It reads
:class:`TorchFacts`, a small dataclass any source can fill: the verify probe's fact sections
(:meth:`TorchFacts.from_probe_facts`), a saved snapshot, or a test. :class:`EnvFacts` is filled by
:func:`gather_env_facts` through the host object, so tests feed recorded outputs.

Nothing here judges; :mod:`wizard.core.diagnosis.rules` does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from typing import Any, Iterable, Mapping

from wizard.core.base.host import Host

GATHER_TIMEOUT = 10.0
LIST_TIMEOUT = 60.0  # `conda list` on a cold cache takes tens of seconds

# Environment variables that change which GPUs CUDA shows (failure mode cuda-visible-devices-hides-gpus).
VISIBILITY_VARS = ("CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER")

WSL_LIB_DIR = "/usr/lib/wsl/lib"
WSL_LIBS = ("libcuda.so.1", "libnvidia-ml.so.1", "nvidia-smi")
# Linux driver packages that must not be inside WSL: they shadow the libraries the Windows
# driver projects into /usr/lib/wsl/lib (NVIDIA's CUDA on WSL user guide: do not install a Linux
# display driver inside WSL 2).
WSL_FORBIDDEN_PACKAGES = ("nvidia-driver-*", "libnvidia-compute-*", "cuda-drivers", "cuda-drivers-*")

_LOCAL = re.compile(r"\+(?P<local>[A-Za-z0-9_.]+)$")
_SM = re.compile(r"^(?P<kind>sm|compute)_(?P<num>\d{2,3})[a-z]?$")
_NVCC = re.compile(r"release (?P<short>\d+\.\d+), V(?P<full>\d+\.\d+(?:\.\d+)?)")
_KERNEL_MODULE = re.compile(r"Kernel Module\s+(?:for\s+\S+\s+)?(?P<version>\d+\.\d+(?:\.\d+)?)")


# ---------------------------------------------------------------------------------------------
# torch, as the target environment reports it
# ---------------------------------------------------------------------------------------------
@dataclass
class TorchFacts:
    """What torch in the target environment says about itself.

    ``installed`` False: ``import torch`` failed with "No module named torch". ``messages`` holds the
    error and warning texts torch produced (exceptions, UserWarnings): the diagnosis recognises
    the known failure texts in them as :mod:`wizard.core.diagnosis.explain` does for pasted text.
    ``env_vars`` are the variables the environment's process saw (CUDA_VISIBLE_DEVICES may be set
    by a conda activate script, so the wizard's own environment is not enough).
    """

    version: str | None = None  # torch.__version__, "2.6.0+cu126"
    cuda: str | None = None  # torch.version.cuda, "12.6"; None for CPU and ROCm builds
    hip: str | None = None  # torch.version.hip
    is_available: bool | None = None
    device_count: int | None = None
    arch_list: list[str] = field(default_factory=list)  # torch.cuda.get_arch_list(): sm_XX, compute_XX
    device_ccs: list[str] = field(default_factory=list)  # per device, "8.9"
    device_names: list[str] = field(default_factory=list)
    cudnn: str | None = None
    installer: str | None = None  # "pip" | "conda"
    python_version: str | None = None  # the environment's interpreter, "3.11.9"
    python_bits: int | None = None
    env_path: str | None = None  # sys.prefix of the environment
    env_vars: dict[str, str] = field(default_factory=dict)
    driver_cuda: str | None = None  # cuDriverGetVersion inside the environment, "12.8"
    kernel_ok: bool | None = None  # a real kernel ran on the GPU and gave the right answer
    messages: list[str] = field(default_factory=list)
    installed: bool = True
    wheel_variant: dict[str, Any] | None = None  # a variant wheel's label and properties (verify probe; rules_variants)

    # --- derived -----------------------------------------------------------------------------
    @property
    def base_version(self) -> str | None:
        """'2.6.0+cu126' → '2.6.0'."""
        return None if not self.version else self.version.split("+", 1)[0].strip()

    @property
    def local_tag(self) -> str | None:
        """'2.6.0+cu126' → 'cu126'; None for PyPI wheels without a local version."""
        match = _LOCAL.search(self.version or "")
        return match.group("local") if match else None

    @property
    def is_cpu_build(self) -> bool:
        """torch.version.cuda (and .hip) None is authoritative; '+cpu' is only a hint."""
        return self.installed and bool(self.version) and self.cuda is None and self.hip is None

    def variant(self) -> str | None:
        """The build variant name the compatibility table uses: 'cu126', 'cpu', 'rocm6.2', or None."""
        if not self.installed or not self.version:
            return None
        tag = self.local_tag
        if tag and (tag == "cpu" or tag.startswith("cu") or tag.startswith("rocm")):
            return tag
        if self.cuda:
            return cuda_to_variant(self.cuda)
        if self.hip:
            return None
        return "cpu"

    def arch_ccs(self) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        """(cubins, ptx) compute capabilities from the arch list ('sm_90a' counts as sm_90)."""
        cubins: list[tuple[int, int]] = []
        ptx: list[tuple[int, int]] = []
        for item in self.arch_list:
            match = _SM.match(str(item).strip().lower())
            if not match:
                continue
            num = match.group("num")
            cc = (int(num[:-1]), int(num[-1]))
            (cubins if match.group("kind") == "sm" else ptx).append(cc)
        return sorted(set(cubins)), sorted(set(ptx))

    # --- conversion --------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> "TorchFacts | None":
        if not isinstance(data, Mapping):
            return None
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    @classmethod
    def from_probe_facts(cls, sections: Mapping[str, Any], messages: Iterable[str] = (),
                         installed: bool = True, kernel_ok: bool | None = None,
                         installer: str | None = None) -> "TorchFacts":
        """Facts from the verify probe's ``{"type": "facts", "section": ..., "data": ...}`` lines,
        given as ``{section: data}`` ("python", "env", "driver", "torch", "cuda", "devices").

        Every key is optional, so an older or newer probe still maps; ``messages`` are the texts
        of its error events and captured warnings.
        """
        py = _mapping(sections.get("python"))
        torch = _mapping(sections.get("torch"))
        cuda = _mapping(sections.get("cuda"))
        driver = _mapping(sections.get("driver"))
        env = _mapping(sections.get("env"))
        devices = [d for d in sections.get("devices") or [] if isinstance(d, Mapping)]
        texts = list(messages)
        for warning in list(torch.get("warnings") or []) + list(cuda.get("warnings") or []):
            text = warning.get("message") if isinstance(warning, Mapping) else warning
            if text:
                texts.append(str(text))
        for key in ("error", "init_error"):
            err = cuda.get(key)
            if isinstance(err, Mapping) and err.get("message"):
                texts.append(f"{err.get('exception', 'Error')}: {err['message']}")
        cudnn = torch.get("cudnn")
        return cls(
            version=_str_or_none(torch.get("version")),
            cuda=_str_or_none(torch.get("cuda")),
            hip=_str_or_none(torch.get("hip")),
            is_available=cuda.get("is_available") if isinstance(cuda.get("is_available"), bool) else None,
            device_count=cuda.get("device_count") if isinstance(cuda.get("device_count"), int) else None,
            arch_list=[str(a) for a in cuda.get("arch_list") or [] if isinstance(a, str)],
            device_ccs=[str(d["capability"]) for d in devices if d.get("capability")],
            device_names=[str(d["name"]) for d in devices if d.get("name")],
            cudnn=str(cudnn) if isinstance(cudnn, (int, str)) else None,
            installer=installer,
            python_version=_str_or_none(py.get("version")),
            python_bits=py.get("bits") if isinstance(py.get("bits"), int) else None,
            env_path=_str_or_none(py.get("prefix")),
            env_vars={str(k): str(v) for k, v in env.items() if v is not None},
            driver_cuda=_str_or_none(driver.get("cuda_version")),
            kernel_ok=kernel_ok,
            messages=texts,
            installed=installed,
            wheel_variant=dict(torch["variant"]) if isinstance(torch.get("variant"), Mapping) else None,
        )


    @classmethod
    def from_probe_events(cls, events: Iterable[Mapping[str, Any]], installer: str | None = None) -> "TorchFacts":
        """Facts from the verify probe's JSON-line events as they arrived (the documented protocol:
        ``facts`` results, ``check`` results, ``error`` events), so the verify report's ``events``
        feed the diagnosis without this module knowing the report's classes.

        ``installed`` is False after a ``torch-missing`` error; ``kernel_ok`` comes from the
        ``cuda.kernel`` checks (all passed → True, one failed → False, none ran → None); the texts of
        error events and failed checks' exceptions join the messages.
        """
        sections: dict[str, Any] = {}
        messages: list[str] = []
        kernel: list[str] = []
        installed = True
        for e in events:
            kind = e.get("event")
            if kind == "error":
                installed = installed and e.get("id") != "torch-missing"
                if e.get("message"):
                    messages.append(f"{e.get('exception') or 'Error'}: {e['message']}")
            elif kind == "result" and e.get("type") == "facts" and isinstance(e.get("section"), str):
                sections[e["section"]] = e.get("data")
            elif kind == "result" and e.get("type") == "check":
                evidence: Mapping[str, Any] = e["evidence"] if isinstance(e.get("evidence"), Mapping) else {}
                if e.get("id") == "cuda.kernel" and e.get("status") in ("pass", "fail"):
                    kernel.append(str(e["status"]))
                if e.get("status") == "fail" and evidence.get("message"):
                    text = f"{evidence.get('exception') or 'Error'}: {evidence['message']}"
                    if text not in messages:
                        messages.append(text)
                for w in evidence.get("warnings") or []:
                    text = str(w.get("message") or "") if isinstance(w, Mapping) else str(w or "")
                    if text and str(text) not in messages:
                        messages.append(str(text))
        kernel_ok = None if not kernel else all(k == "pass" for k in kernel)
        return cls.from_probe_facts(sections, messages, installed=installed, kernel_ok=kernel_ok, installer=installer)


def cuda_to_variant(cuda: str) -> str | None:
    """'12.6' → 'cu126'; '11.8' → 'cu118'; '13.0' → 'cu130'."""
    match = re.match(r"^(\d+)\.(\d+)", str(cuda).strip())
    return f"cu{match.group(1)}{match.group(2)}" if match else None


def variant_to_cuda(variant: str) -> str | None:
    """'cu126' → '12.6'; 'cu130' → '13.0'; anything else → None."""
    match = re.match(r"^cu(\d{2})(\d)$", str(variant).strip())
    return f"{int(match.group(1))}.{match.group(2)}" if match else None


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _str_or_none(value: Any) -> str | None:
    return str(value) if isinstance(value, (str, int, float)) and str(value) else None


# ---------------------------------------------------------------------------------------------
# Package lists
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Package:
    name: str
    version: str
    channel: str | None = None  # conda: "pytorch", "conda-forge", "pypi" (pip-installed inside conda)


_PIP_FREEZE = re.compile(r"^(?:\[pip3?\]\s*)?(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*(?P<version>\S+)\s*$")
_PIP_COLUMNS = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s+(?P<version>\d[^\s]*)(?:\s+\S.*)?$")
_CONDA_ROW = re.compile(r"^(?:\[conda\]\s*)?(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s+(?P<version>\d[^\s]*)"
                        r"(?:\s+(?P<build>\S+))?(?:\s+(?P<channel>\S+))?\s*$")


def _canon(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def parse_pip_list(text: str) -> list[Package]:
    """``pip list`` in freeze (``name==1.0``), columns or collect_env (``[pip3] name==1.0``) form."""
    out: list[Package] = []
    for raw in (text or "").splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", "Package ", "-")):
            continue
        match = _PIP_FREEZE.match(line) or (None if line.startswith("[") else _PIP_COLUMNS.match(line))
        if match:
            out.append(Package(_canon(match.group("name")), match.group("version")))
    return out


def parse_conda_list(text: str) -> list[Package]:
    """``conda list`` rows (``name version build [channel]``; also collect_env's ``[conda]`` lines).

    A row without a channel comes from the environment's default channel (``defaults``); pip
    installs show the channel ``pypi`` (old conda versions: the build ``<pip>``).
    """
    out: list[Package] = []
    for raw in (text or "").splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "Could not collect" in line:
            continue
        if "==" in line:  # a pip freeze line in a mixed paste
            continue
        match = _CONDA_ROW.match(line)
        if match:
            channel = match.group("channel") or ("pypi" if (match.group("build") or "").startswith(("pypi", "<pip>"))
                                                 else "defaults")
            out.append(Package(_canon(match.group("name")), match.group("version"), channel))
    return out


def parse_nvcc_version(text: str) -> str | None:
    """``nvcc --version`` → '11.5.119' (the full release), or None."""
    match = _NVCC.search(text or "")
    return match.group("full") if match else None


def parse_kernel_module_version(text: str) -> str | None:
    """``/proc/driver/nvidia/version`` → the loaded kernel module's version ('550.90.07')."""
    match = _KERNEL_MODULE.search(text or "")
    return match.group("version") if match else None


def parse_sb_state(text: str) -> bool | None:
    """``mokutil --sb-state`` → True ('SecureBoot enabled'), False ('disabled'), None (other)."""
    low = (text or "").lower()
    if "secureboot enabled" in low:
        return True
    if "secureboot disabled" in low or "not supported" in low or "efi variables are not supported" in low:
        return False
    return None


# ---------------------------------------------------------------------------------------------
# Machine facts detection does not collect
# ---------------------------------------------------------------------------------------------
@dataclass
class EnvFacts:
    """Facts about the machine and the target environment that only the diagnosis needs.

    ``None`` means "not checked" (another OS, a command missing); a rule never guesses from it.
    """

    env_vars: dict[str, str] = field(default_factory=dict)  # the wizard's own process, VISIBILITY_VARS only
    nouveau_loaded: bool | None = None
    nova_core_loaded: bool | None = None
    nvidia_module_loaded: bool | None = None  # /proc/driver/nvidia/version exists
    kernel_module_version: str | None = None
    secure_boot: bool | None = None
    secure_boot_evidence: str | None = None
    modprobe_error: str | None = None
    prime_profile: str | None = None  # `prime-select query`: "nvidia" | "on-demand" | "intel"
    wsl_libs: list[str] | None = None  # which of WSL_LIBS exist in /usr/lib/wsl/lib
    wsl_linux_driver_packages: list[str] = field(default_factory=list)
    nvcc_version: str | None = None
    nvcc_path: str | None = None
    pip_packages: list[Package] | None = None  # the target environment's `pip list`
    conda_packages: list[Package] | None = None  # the target environment's `conda list`
    python_version: str | None = None  # the target environment's interpreter
    python_bits: int | None = None

    def torch_in_pip(self) -> list[Package]:
        return [p for p in self.pip_packages or [] if p.name == "torch"]

    def torch_in_conda(self) -> list[Package]:
        return [p for p in self.conda_packages or [] if p.name in ("pytorch", "torch")]


def gather_env_facts(host: Host, *, is_wsl: bool = False, python_exe: str | None = None,
                     conda_exe: str | None = None, conda_prefix: str | None = None) -> EnvFacts:
    """Probe what the diagnosis rules need, through ``host`` (every command with a timeout).

    ``python_exe`` / ``conda_exe`` + ``conda_prefix`` name the target environment whose package
    lists are read (for a conda and pip mix); without them the lists stay unknown.
    """
    facts = EnvFacts(env_vars={k: v for k in VISIBILITY_VARS if (v := host.getenv(k)) is not None})
    if host.os_name == "linux":
        _linux_facts(host, facts, is_wsl)
    facts.nvcc_path = host.which("nvcc") or _cuda_path_nvcc(host)
    if facts.nvcc_path:
        res = host.run([facts.nvcc_path, "--version"], timeout=GATHER_TIMEOUT)
        if res.ok:
            facts.nvcc_version = parse_nvcc_version(res.stdout)
    if python_exe:
        res = host.run([python_exe, "-m", "pip", "list", "--format=freeze", "--disable-pip-version-check"],
                       timeout=LIST_TIMEOUT)
        if res.ok:
            facts.pip_packages = parse_pip_list(res.stdout)
    if conda_exe and conda_prefix:
        res = host.run([conda_exe, "list", "-p", conda_prefix], timeout=LIST_TIMEOUT)
        if res.ok:
            facts.conda_packages = parse_conda_list(res.stdout)
    return facts


def _cuda_path_nvcc(host: Host) -> str | None:
    root = host.getenv("CUDA_PATH") or host.getenv("CUDA_HOME")
    if not root:
        return None
    sep = "\\" if host.os_name == "windows" else "/"
    exe = root.rstrip("\\/") + sep + "bin" + sep + ("nvcc.exe" if host.os_name == "windows" else "nvcc")
    return exe if host.exists(exe) else None


def _linux_facts(host: Host, facts: EnvFacts, is_wsl: bool) -> None:
    if is_wsl:
        facts.wsl_libs = [name for name in WSL_LIBS if host.exists(f"{WSL_LIB_DIR}/{name}")]
        res = host.run(["dpkg-query", "-W", "-f", "${Package} ${Status}\\n", *WSL_FORBIDDEN_PACKAGES],
                       timeout=GATHER_TIMEOUT)
        # dpkg-query exits 1 when a pattern matches nothing; the listed rows still count
        for line in (res.stdout or "").splitlines():
            parts = line.split()
            if len(parts) >= 2 and line.rstrip().endswith("install ok installed"):
                facts.wsl_linux_driver_packages.append(parts[0])
        return  # no kernel module, nouveau or Secure Boot inside WSL: the Windows driver does it
    facts.nouveau_loaded = host.exists("/sys/module/nouveau")
    facts.nova_core_loaded = host.exists("/sys/module/nova_core")
    version_text = host.read_text("/proc/driver/nvidia/version")
    facts.nvidia_module_loaded = version_text is not None
    facts.kernel_module_version = parse_kernel_module_version(version_text or "")
    if host.which("mokutil"):
        res = host.run(["mokutil", "--sb-state"], timeout=GATHER_TIMEOUT)
        text = (res.stdout or "") + (res.stderr or "")
        facts.secure_boot = parse_sb_state(text)
        if facts.secure_boot is not None:
            facts.secure_boot_evidence = "mokutil --sb-state: " + text.strip().splitlines()[0]
    if facts.secure_boot is None:
        facts.secure_boot, facts.secure_boot_evidence = _efivar_secure_boot(host)
    if host.which("prime-select"):
        res = host.run(["prime-select", "query"], timeout=GATHER_TIMEOUT)
        if res.ok and res.stdout.strip():
            facts.prime_profile = res.stdout.strip().splitlines()[-1].strip()


_EFIVARS = "/sys/firmware/efi/efivars"


def _efivar_secure_boot(host: Host) -> tuple[bool | None, str | None]:
    """Secure Boot from the EFI variable (4 attribute bytes, then 1 = on), for machines without mokutil."""
    for name in host.listdir(_EFIVARS):
        if not name.startswith("SecureBoot-"):
            continue
        data = host.read_text(f"{_EFIVARS}/{name}")
        if data is not None and len(data) >= 5:
            value = ord(data[4])
            return value == 1, f"{_EFIVARS}/{name}: {value}"
    return None, None


__all__ = [
    "TorchFacts", "EnvFacts", "Package", "gather_env_facts", "parse_pip_list", "parse_conda_list",
    "parse_nvcc_version", "parse_kernel_module_version", "parse_sb_state", "cuda_to_variant",
    "variant_to_cuda", "VISIBILITY_VARS",
]
