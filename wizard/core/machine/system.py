"""What machine is this: OS and version, CPU, memory, free disk, locale, display adapters.

Everything is asked through a :class:`~wizard.core.base.host.Host`, so the same code reads a
student's Windows 11 laptop, a WSL2 distro or a Mac from recorded outputs in the tests.

Rules this module follows, and why:

- Windows 11 still calls itself "10" in many places (``platform.release()`` before Python
  3.12, the registry's ``ProductName``, ``ver``). The only reliable test is the build number:
  22000 and above is Windows 11. So the build is read first and the name derived from it.
- Every value that cannot be read stays ``None`` (printed as n/a); nothing is guessed.
- ``SystemInfo.arch`` is the *hardware* architecture. A Mac with Apple Silicon running this
  program as an x86_64 process under Rosetta reports ``arm64`` here; the x86_64 interpreter
  shows up as such in :func:`wizard.core.machine.pythons.find_pythons` (its own ``arch``).
"""

from __future__ import annotations

import ntpath
import posixpath
import re
import shlex
from types import ModuleType

from wizard.core.base.host import Host
from wizard.core.machine.adapters import list_display_adapters
from wizard.core.machine.models import SystemInfo

PRODUCT_DIR_NAME = "GPU-Setup-Wizard"
"""The product's folder under the user's home; environments go in its ``envs`` folder."""

REG_TIMEOUT = 10.0
CMD_TIMEOUT = 10.0

WINDOWS_11_FIRST_BUILD = 22000

_WIN_NT_KEY = r"HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion"
_WIN_CPU_KEY = r"HKLM\HARDWARE\DESCRIPTION\System\CentralProcessor\0"
_WIN_INTL_KEY = r"HKCU\Control Panel\International"

# ``platform.win32_edition()`` / the registry's EditionID → the name Windows shows the user.
_WINDOWS_EDITIONS = {
    "core": "Home",
    "coren": "Home N",
    "coresinglelanguage": "Home Single Language",
    "corecountryspecific": "Home China",
    "professional": "Pro",
    "professionaln": "Pro N",
    "professionaleducation": "Pro Education",
    "professionalworkstation": "Pro for Workstations",
    "education": "Education",
    "educationn": "Education N",
    "enterprise": "Enterprise",
    "enterprisen": "Enterprise N",
    "enterprises": "Enterprise LTSC",
    "iotenterprise": "IoT Enterprise",
    "iotenterprises": "IoT Enterprise LTSC",
    "serverstandard": "Standard",
    "serverdatacenter": "Datacenter",
}

# Windows Server shares the client's version numbers; its release is named by build.
_WINDOWS_SERVER_RELEASES = {14393: "2016", 17763: "2019", 20348: "2022", 26100: "2025"}

# Windows version numbers before 10 (major.minor → marketing name).
_WINDOWS_LEGACY = {"6.0": "Vista", "6.1": "7", "6.2": "8", "6.3": "8.1"}


def host_paths(host: Host) -> ModuleType:
    """``ntpath`` for a Windows host, ``posixpath`` otherwise.

    The host may not be this machine (a recorded Windows host in a Linux test), so paths are
    joined with the host's rules, never with :mod:`os.path`.
    """
    return ntpath if host.os_name == "windows" else posixpath


def default_env_root(host: Host) -> str:
    """Where the wizard creates environments by default: ``<home>/GPU-Setup-Wizard/envs``, or on
    Windows with a non-ASCII home ``<system drive>\\GPU-Setup-Wizard\\envs`` (why: wizard/core/base/ascii_root.py)."""
    from wizard.core.base.ascii_root import ascii_env_root

    home = host.home()
    return ascii_env_root(host.os_name, home, host.getenv("SystemDrive")) or \
        host_paths(host).join(home, PRODUCT_DIR_NAME, "envs")


# --------------------------------------------------------------------------- pure parsers


def parse_os_release(text: str) -> dict[str, str]:
    """Parse an os-release file (``KEY=value`` lines, shell-style quoting) into a dict."""
    result: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, raw = line.partition("=")
        key = key.strip()
        if not re.fullmatch(r"[A-Za-z0-9_]+", key):
            continue
        try:
            parts = shlex.split(raw, posix=True)
            value = " ".join(parts) if parts else ""
        except ValueError:  # unbalanced quote: keep the text without its quotes
            value = raw.strip().strip("\"'")
        result[key] = value
    return result


def parse_reg_value(text: str, name: str) -> str | None:
    """The data of value ``name`` in ``reg query ... /v name`` output, or None.

    ``reg`` prints ``    <name>    REG_SZ    <data>``; value lines are not translated on
    localized Windows (only error messages are), so this works on Korean Windows too.
    """
    pattern = re.compile(r"^\s*" + re.escape(name) + r"\s+REG_\w+\s+(.*?)\s*$", re.IGNORECASE | re.MULTILINE)
    match = pattern.search(text or "")
    if not match:
        return None
    value = match.group(1).strip()
    return value or None


def parse_ver_output(text: str) -> str | None:
    """``cmd /c ver`` → '10.0.22631.3880'. The word before the number is localized."""
    match = re.search(r"\[[^\]\d]*(\d+\.\d+\.\d+(?:\.\d+)?)\s*\]", text or "")
    return match.group(1) if match else None


def windows_product_version(version: str | None) -> str | None:
    """'10.0.22631' → '11', '10.0.19045' → '10', '6.1.7601' → '7'."""
    if not version:
        return None
    parts = version.split(".")
    if len(parts) < 2:
        return None
    major_minor = f"{parts[0]}.{parts[1]}"
    if major_minor == "10.0":
        build = _int(parts[2]) if len(parts) > 2 else None
        if build is None:
            return "10"
        return "11" if build >= WINDOWS_11_FIRST_BUILD else "10"
    return _WINDOWS_LEGACY.get(major_minor)


def windows_edition_name(edition: str | None) -> str | None:
    """'Professional' → 'Pro', 'CoreSingleLanguage' → 'Home Single Language'."""
    if not edition:
        return None
    return _WINDOWS_EDITIONS.get(edition.strip().lower(), edition.strip())


def parse_cpuinfo_model(text: str) -> str | None:
    """The first ``model name`` in /proc/cpuinfo (x86; most aarch64 kernels have none)."""
    match = re.search(r"^model name\s*:\s*(.+?)\s*$", text or "", re.MULTILINE)
    return match.group(1) if match else None


def parse_lscpu_model(text: str) -> str | None:
    """``Model name:`` from ``lscpu`` (run with LC_ALL=C; newer lscpu indents it)."""
    for match in re.finditer(r"^\s*Model name:\s*(.+?)\s*$", text or "", re.MULTILINE):
        value = match.group(1)
        if value and value != "-":
            return value
    return None


def wsl_version_from_kernel(release: str | None) -> int | None:
    """WSL generation from a kernel release or /proc/version text, or None if not WSL.

    WSL2 kernels say ``microsoft-standard`` (``5.15.153.1-microsoft-standard-WSL2``,
    older ``4.19.104-microsoft-standard``); WSL1 reports a fake kernel with a capital
    ``Microsoft`` (``4.4.0-19041-Microsoft``).
    """
    if not release:
        return None
    low = release.lower()
    if "microsoft" not in low:
        return None
    if "wsl2" in low or "microsoft-standard" in low:
        return 2
    if "Microsoft" in release:
        return 1
    return 2


# ------------------------------------------------------------------------------ detection


def detect_system(host: Host, env_dir: str | None = None) -> SystemInfo:
    """Describe the machine. ``env_dir``: where environments will go (for free disk space)."""
    facts = host.platform_facts()
    info = SystemInfo(os=host.os_name)
    info.arch = _normalise_arch(facts.get("machine"))

    if host.os_name == "windows":
        _windows_os(host, facts, info)
    elif host.os_name == "macos":
        _macos_os(host, facts, info)
    else:
        _linux_os(host, facts, info)

    info.cpu_model = _cpu_model(host)
    res = host.resources() or {}
    info.cpu_logical_cores = _int(res.get("cpu_logical"))
    info.cpu_physical_cores = _int(res.get("cpu_physical"))
    info.ram_total_bytes = _int(res.get("ram_total"))
    info.ram_available_bytes = _int(res.get("ram_available"))

    info.disk_path = env_dir or default_env_root(host)
    disk = host.disk_free(info.disk_path)
    if disk is not None:
        info.disk_free_bytes, info.disk_total_bytes = int(disk[0]), int(disk[1])

    info.locale = _locale(host, facts)
    info.is_admin = bool(host.is_admin())
    info.hostname = _hostname(host, facts)
    info.display_adapters = list_display_adapters(host)
    return info


def _windows_os(host: Host, facts: dict, info: SystemInfo) -> None:
    win32 = list(facts.get("win32_ver") or [])
    version = None
    ver = host.run(["cmd", "/c", "ver"], timeout=CMD_TIMEOUT)
    if ver.ok:
        version = parse_ver_output(ver.stdout)
    if not version and len(win32) > 1 and re.fullmatch(r"\d+\.\d+\.\d+", str(win32[1] or "")):
        version = str(win32[1])
    if not version and re.fullmatch(r"\d+\.\d+\.\d+", str(facts.get("version") or "")):
        version = str(facts["version"])
    info.os_version = version
    parts = version.split(".") if version else []
    build = _int(parts[2]) if len(parts) > 2 else None
    info.os_build = str(build) if build is not None else None

    edition = facts.get("win32_edition") or None
    if not edition:
        edition = _reg_query(host, _WIN_NT_KEY, "EditionID")
    display_version = _reg_query(host, _WIN_NT_KEY, "DisplayVersion")
    if not display_version:
        display_version = _reg_query(host, _WIN_NT_KEY, "ReleaseId")  # Windows 10 before 20H2

    if edition and edition.lower().startswith("server"):
        release = _WINDOWS_SERVER_RELEASES.get(build or -1)
        name = "Windows Server" + (f" {release}" if release else "")
    else:
        product = windows_product_version(version) or (str(win32[0]) if win32 and win32[0] else None)
        name = f"Windows {product}" if product else "Windows"
    pieces = [name, windows_edition_name(edition), display_version]
    info.os_pretty = " ".join(p for p in pieces if p)


def _linux_os(host: Host, facts: dict, info: SystemInfo) -> None:
    release_text = host.read_text("/etc/os-release") or host.read_text("/usr/lib/os-release")
    osr = parse_os_release(release_text) if release_text else {}
    info.distro_id = osr.get("ID") or None
    info.os_version = osr.get("VERSION_ID") or None
    pretty = osr.get("PRETTY_NAME") or " ".join(p for p in (osr.get("NAME"), osr.get("VERSION")) if p)
    info.os_pretty = pretty or None

    osrelease = (host.read_text("/proc/sys/kernel/osrelease") or "").strip()
    kernel = facts.get("release") or osrelease or None
    info.os_build = kernel

    wsl = wsl_version_from_kernel(osrelease or kernel)
    if wsl is None:
        wsl = wsl_version_from_kernel(host.read_text("/proc/version"))
    if wsl is None and (host.exists("/dev/dxg") or host.getenv("WSL_DISTRO_NAME")):
        wsl = 2  # a custom WSL2 kernel without "microsoft" in its name; WSL1 has no own kernel
    if wsl == 1 and host.exists("/dev/dxg"):
        wsl = 2  # the GPU paravirtualization device exists only in WSL2
    info.is_wsl = wsl is not None
    info.wsl_version = wsl
    from wizard.core.machine.jetson import detect_jetson

    board = None if info.is_wsl else detect_jetson(host, kernel)
    if board is not None:  # its driver comes with the L4T image: the recommender must know
        info.jetson_l4t = board.l4t
        info.jetson_model = board.model or ""


def _macos_os(host: Host, facts: dict, info: SystemInfo) -> None:
    sw = host.run(["sw_vers", "-productVersion"], timeout=CMD_TIMEOUT)
    version = sw.stdout.strip() if sw.ok and sw.stdout.strip() else (facts.get("mac_ver") or None)
    info.os_version = version
    build = host.run(["sw_vers", "-buildVersion"], timeout=CMD_TIMEOUT)
    info.os_build = (build.stdout.strip() or None) if build.ok else None
    info.os_pretty = f"macOS {version}" if version else "macOS"
    if info.arch == "x86_64":
        # An x86_64 process on Apple Silicon (Rosetta 2) sees x86_64 everywhere; the kernel
        # tells it so through this sysctl (absent, i.e. an error, on Intel Macs).
        rosetta = host.run(["sysctl", "-n", "sysctl.proc_translated"], timeout=CMD_TIMEOUT)
        if rosetta.ok and rosetta.stdout.strip() == "1":
            info.arch = "arm64"


def _cpu_model(host: Host) -> str | None:
    if host.os_name == "windows":
        name = _reg_query(host, _WIN_CPU_KEY, "ProcessorNameString")
        return name or (host.getenv("PROCESSOR_IDENTIFIER") or "").strip() or None
    if host.os_name == "macos":
        res = host.run(["sysctl", "-n", "machdep.cpu.brand_string"], timeout=CMD_TIMEOUT)
        return (res.stdout.strip() or None) if res.ok else None
    model = parse_cpuinfo_model(host.read_text("/proc/cpuinfo") or "")
    if model:
        return model
    res = host.run(["lscpu"], timeout=CMD_TIMEOUT, env={"LC_ALL": "C"})  # labels are translated
    return parse_lscpu_model(res.stdout) if res.ok else None


def _locale(host: Host, facts: dict) -> str | None:
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = host.getenv(name)
        if value:
            return value
    if facts.get("locale"):
        return str(facts["locale"])
    if host.os_name == "windows":
        return _reg_query(host, _WIN_INTL_KEY, "LocaleName")  # "ko-KR"
    if host.os_name == "macos":
        # Apps started from Finder get no LANG; the user's region lives in the defaults.
        res = host.run(["defaults", "read", "-g", "AppleLocale"], timeout=CMD_TIMEOUT)
        return (res.stdout.strip() or None) if res.ok else None
    return None


def _hostname(host: Host, facts: dict) -> str | None:
    name = facts.get("node") or host.getenv("COMPUTERNAME") or host.getenv("HOSTNAME")
    if not name and host.os_name == "linux":
        name = (host.read_text("/etc/hostname") or "").strip()
    return name or None


def _reg_query(host: Host, key: str, value: str) -> str | None:
    res = host.run(["reg", "query", key, "/v", value], timeout=REG_TIMEOUT)
    return parse_reg_value(res.stdout, value) if res.ok else None


def _normalise_arch(machine: object) -> str | None:
    """Windows says 'AMD64'/'ARM64'; report the names the other systems use."""
    if not machine:
        return None
    value = str(machine)
    return {"amd64": "x86_64", "x64": "x86_64", "arm64": "arm64"}.get(value.lower(), value)


def _int(value: object) -> int | None:
    try:
        return int(value) if value is not None else None  # type: ignore[call-overload]  # int() says what it takes
    except (TypeError, ValueError):
        return None


__all__ = [
    "PRODUCT_DIR_NAME",
    "default_env_root",
    "detect_system",
    "host_paths",
    "parse_cpuinfo_model",
    "parse_lscpu_model",
    "parse_os_release",
    "parse_reg_value",
    "parse_ver_output",
    "windows_edition_name",
    "windows_product_version",
    "wsl_version_from_kernel",
]
