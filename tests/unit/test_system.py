"""OS, CPU, memory, disk and locale detection on recorded Windows, Linux, WSL and macOS hosts."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.recorded_host import RecordedHost
from wizard.core.base.host import CommandResult, RealHost
from wizard.core.machine.adapters import CIM_COMMAND
from wizard.core.machine.system import (
    default_env_root,
    detect_system,
    parse_cpuinfo_model,
    parse_lscpu_model,
    parse_os_release,
    parse_reg_value,
    parse_ver_output,
    windows_edition_name,
    windows_product_version,
    wsl_version_from_kernel,
)

RECORDED = Path(__file__).resolve().parents[1] / "data" / "recorded"
GIB = 2 ** 30

NT_KEY = r"HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion"
CPU_KEY = r"HKLM\HARDWARE\DESCRIPTION\System\CentralProcessor\0"
INTL_KEY = r"HKCU\Control Panel\International"


def recorded(name: str) -> str:
    """A recorded output, byte for byte (CRLF kept)."""
    return (RECORDED / name).read_bytes().decode("utf-8")


def ok(stdout: str) -> CommandResult:
    return CommandResult([], 0, stdout)


def reg_missing() -> CommandResult:
    return CommandResult([], 1, "", recorded("windows/reg_value_not_found.txt"))


def reg_key(key: str, value: str) -> str:
    return RecordedHost.key_of(["reg", "query", key, "/v", value])


RESOURCES = {"cpu_logical": 20, "cpu_physical": 14, "ram_total": 32 * GIB, "ram_available": 20 * GIB}


# ----------------------------------------------------------------------------- Windows


def windows11_host(**overrides) -> RecordedHost:
    """A Korean student's Windows 11 Pro 23H2 laptop (build 22631), NVIDIA + Intel graphics."""
    host = RecordedHost(
        os_name="windows",
        platform={
            "system": "Windows", "release": "10", "version": "10.0.22631", "machine": "AMD64",
            "node": "DESKTOP-7Q2K9LM", "python_version": "3.12.7", "frozen": True,
            "python_executable": "C:\\Program Files\\GPU-Setup-Wizard\\GPU-Setup-Wizard.exe",
            "win32_ver": ["10", "10.0.22631", "SP0", "Multiprocessor Free"],
            "win32_edition": "Professional",
        },
        commands={
            "cmd /c ver": ok(recorded("windows/ver_win11_23h2.txt")),
            reg_key(NT_KEY, "DisplayVersion"): ok(recorded("windows/reg_displayversion_23h2.txt")),
            reg_key(CPU_KEY, "ProcessorNameString"): ok(recorded("windows/reg_processorname_i7_13700h.txt")),
            reg_key(INTL_KEY, "LocaleName"): ok(recorded("windows/reg_localename_ko.txt")),
            RecordedHost.key_of(CIM_COMMAND): ok(recorded("windows/cim_video_laptop_nvidia_intel.json")),
        },
        env={
            "USERPROFILE": "C:\\Users\\김철수",
            "LOCALAPPDATA": "C:\\Users\\김철수\\AppData\\Local",
            "PROCESSOR_IDENTIFIER": "Intel64 Family 6 Model 186 Stepping 2, GenuineIntel",
            "COMPUTERNAME": "DESKTOP-7Q2K9LM",
        },
        machine_resources=RESOURCES,
        disks={"C:\\": (123 * GIB, 476 * GIB), "D:\\": (900 * GIB, 931 * GIB)},
        home_dir="C:\\Users\\김철수",
    )
    for name, value in overrides.items():
        setattr(host, name, value)
    return host


def test_windows11_23h2_korean_laptop():
    info = detect_system(windows11_host())
    assert info.os == "windows"
    assert info.os_pretty == "Windows 11 Pro 23H2"
    assert info.os_version == "10.0.22631.3880"
    assert info.os_build == "22631"
    assert info.arch == "x86_64"
    assert info.cpu_model == "13th Gen Intel(R) Core(TM) i7-13700H"
    assert (info.cpu_logical_cores, info.cpu_physical_cores) == (20, 14)
    assert (info.ram_total_bytes, info.ram_available_bytes) == (32 * GIB, 20 * GIB)
    assert info.disk_path == "C:\\GPU-Setup-Wizard\\envs"  # a Hangul home: the ASCII root (ascii_root.py)
    assert (info.disk_free_bytes, info.disk_total_bytes) == (123 * GIB, 476 * GIB)
    assert info.locale == "ko-KR"
    assert info.is_admin is False
    assert info.hostname == "DESKTOP-7Q2K9LM"
    assert [(a.vendor, a.pci_id) for a in info.display_adapters] == [("nvidia", "10de:28e0"), ("intel", "8086:a788")]
    assert not info.is_wsl and info.distro_id is None


def test_windows_registry_queried_with_argv_lists():
    host = windows11_host()
    detect_system(host)
    assert ["reg", "query", NT_KEY, "/v", "DisplayVersion"] in host.calls
    assert ["reg", "query", CPU_KEY, "/v", "ProcessorNameString"] in host.calls
    assert ["cmd", "/c", "ver"] in host.calls
    assert all(isinstance(call, list) for call in host.calls)


def test_windows11_from_build_when_ver_fails_and_python_says_10():
    host = windows11_host()
    host.commands["cmd /c ver"] = CommandResult([], None, error="not found")
    info = detect_system(host)
    assert info.os_pretty == "Windows 11 Pro 23H2"
    assert info.os_version == "10.0.22631"
    assert info.os_build == "22631"


def test_windows_env_dir_on_another_drive_with_space():
    info = detect_system(windows11_host(), env_dir="D:\\My Envs\\딥러닝")
    assert info.disk_path == "D:\\My Envs\\딥러닝"
    assert info.disk_free_bytes == 900 * GIB


def test_windows_cpu_falls_back_to_processor_identifier():
    host = windows11_host()
    host.commands[reg_key(CPU_KEY, "ProcessorNameString")] = reg_missing()
    assert detect_system(host).cpu_model == "Intel64 Family 6 Model 186 Stepping 2, GenuineIntel"


def test_windows_lang_env_wins_over_registry():
    host = windows11_host()
    host.env["LANG"] = "en_US.UTF-8"
    info = detect_system(host)
    assert info.locale == "en_US.UTF-8"
    assert ["reg", "query", INTL_KEY, "/v", "LocaleName"] not in host.calls


def windows10_host() -> RecordedHost:
    """Windows 10 22H2 (build 19045), Home Single Language, an edition Python did not name."""
    return RecordedHost(
        os_name="windows",
        platform={"system": "Windows", "release": "10", "version": "10.0.19045", "machine": "AMD64",
                  "node": "LAPTOP-KIM", "win32_ver": ["10", "10.0.19045", "SP0", "Multiprocessor Free"],
                  "win32_edition": ""},
        commands={
            "cmd /c ver": ok(recorded("windows/ver_win10_22h2.txt")),
            reg_key(NT_KEY, "DisplayVersion"): ok(recorded("windows/reg_displayversion_22h2.txt")),
            reg_key(NT_KEY, "EditionID"): ok(recorded("windows/reg_editionid_core.txt")),
            reg_key(CPU_KEY, "ProcessorNameString"): reg_missing(),
            RecordedHost.key_of(CIM_COMMAND): ok(recorded("windows/cim_video_single_nvidia.json")),
        },
        env={"PROCESSOR_IDENTIFIER": "AMD64 Family 25 Model 80 Stepping 0, AuthenticAMD", "LANG": "ko_KR.UTF-8"},
        machine_resources={"cpu_logical": 16, "cpu_physical": 8, "ram_total": 16 * GIB, "ram_available": 9 * GIB},
        disks={"C:\\": (40 * GIB, 237 * GIB)},
        home_dir="C:\\Users\\student",
        admin=True,
    )


def test_windows10_22h2_home_single_language():
    info = detect_system(windows10_host())
    assert info.os_pretty == "Windows 10 Home Single Language 22H2"
    assert info.os_version == "10.0.19045.4651"
    assert info.os_build == "19045"
    assert info.is_admin is True
    assert info.cpu_model == "AMD64 Family 25 Model 80 Stepping 0, AuthenticAMD"
    assert [a.vendor for a in info.display_adapters] == ["nvidia"]
    assert info.locale == "ko_KR.UTF-8"


def test_windows_without_display_version_uses_release_id():
    host = windows10_host()
    host.commands[reg_key(NT_KEY, "DisplayVersion")] = reg_missing()
    host.commands[reg_key(NT_KEY, "ReleaseId")] = ok(
        "\r\nHKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\r\n"
        "    ReleaseId    REG_SZ    1909\r\n\r\n")
    assert detect_system(host).os_pretty == "Windows 10 Home Single Language 1909"


@pytest.mark.parametrize("version, expected", [
    ("10.0.22000", "11"),
    ("10.0.22631.3880", "11"),
    ("10.0.26100", "11"),
    ("10.0.21999", "10"),
    ("10.0.19045.4651", "10"),
    ("10.0", "10"),
    ("6.3.9600", "8.1"),
    ("6.1.7601", "7"),
    ("5.1.2600", None),
    ("", None),
    (None, None),
])
def test_windows_product_version_from_build(version, expected):
    assert windows_product_version(version) == expected


@pytest.mark.parametrize("text, expected", [
    ("\r\nMicrosoft Windows [Version 10.0.22631.3880]\r\n", "10.0.22631.3880"),
    ("\r\nMicrosoft Windows [version 10.0.19045.3086]\r\n", "10.0.19045.3086"),  # French
    ("Microsoft Windows [Versión 10.0.19045.2965]", "10.0.19045.2965"),  # Spanish
    ("Microsoft Windows [Version 6.1.7601]", "6.1.7601"),
    ("'ver' is not recognized as an internal or external command", None),
])
def test_parse_ver_output(text, expected):
    assert parse_ver_output(text) == expected


def test_parse_reg_value():
    assert parse_reg_value(recorded("windows/reg_displayversion_23h2.txt"), "DisplayVersion") == "23H2"
    assert parse_reg_value(recorded("windows/reg_displayversion_23h2.txt"), "ReleaseId") is None
    assert parse_reg_value(recorded("windows/reg_value_not_found.txt"), "DisplayVersion") is None
    text = ("\r\nHKEY_LOCAL_MACHINE\\x\r\n"
            "    ProcessorNameString    REG_SZ    Intel(R) Core(TM) i5-8250U CPU @ 1.60GHz    \r\n")
    assert parse_reg_value(text, "processornamestring") == "Intel(R) Core(TM) i5-8250U CPU @ 1.60GHz"


@pytest.mark.parametrize("edition, expected", [
    ("Professional", "Pro"), ("Core", "Home"), ("CoreSingleLanguage", "Home Single Language"),
    ("Education", "Education"), ("EnterpriseS", "Enterprise LTSC"), ("SomethingNew", "SomethingNew"),
    ("", None), (None, None),
])
def test_windows_edition_name(edition, expected):
    assert windows_edition_name(edition) == expected


def test_windows_server_named_by_build():
    host = windows10_host()
    host.platform.update({"win32_edition": "ServerStandard", "win32_ver": ["2022Server", "10.0.20348", "", ""]})
    host.commands["cmd /c ver"] = ok("\r\nMicrosoft Windows [Version 10.0.20348.2527]\r\n")
    host.commands[reg_key(NT_KEY, "DisplayVersion")] = ok(
        "\r\nHKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\r\n"
        "    DisplayVersion    REG_SZ    21H2\r\n\r\n")
    assert detect_system(host).os_pretty == "Windows Server 2022 Standard 21H2"


# ------------------------------------------------------------------------------- Linux


def sysfs(devices: dict[str, tuple[str, str, str]]) -> tuple[dict[str, list[str]], dict[str, str]]:
    dirs = {"/sys/bus/pci/devices": sorted(devices)}
    files = {}
    for slot, values in devices.items():
        for name, value in zip(("class", "vendor", "device"), values):
            files[f"/sys/bus/pci/devices/{slot}/{name}"] = value + "\n"
    return dirs, files


def ubuntu_host() -> RecordedHost:
    """Ubuntu 22.04 desktop, i9 + RTX 4090 seen through sysfs."""
    dirs, files = sysfs({
        "0000:00:02.0": ("0x030000", "0x8086", "0x4680"),
        "0000:01:00.0": ("0x030000", "0x10de", "0x2684"),
        "0000:01:00.1": ("0x040300", "0x10de", "0x22ba"),
    })
    files.update({
        "/etc/os-release": recorded("linux/os-release_ubuntu2204"),
        "/proc/sys/kernel/osrelease": "6.5.0-35-generic\n",
        "/proc/version": recorded("linux/proc_version_ubuntu2204"),
        "/proc/cpuinfo": recorded("linux/cpuinfo_desktop_i9_13900k"),
        "/usr/share/misc/pci.ids": recorded("linux/pci.ids_excerpt"),
    })
    return RecordedHost(
        os_name="linux",
        platform={"system": "Linux", "release": "6.5.0-35-generic", "machine": "x86_64", "node": "dl-desktop"},
        files=files, dirs=dirs,
        env={"LANG": "ko_KR.UTF-8", "HOME": "/home/student"},
        machine_resources={"cpu_logical": 32, "cpu_physical": 24, "ram_total": 64 * GIB, "ram_available": 50 * GIB},
        disks={"/": (20 * GIB, 100 * GIB), "/home": (700 * GIB, 900 * GIB)},
    )


def test_ubuntu_native_with_nvidia_in_sysfs():
    info = detect_system(ubuntu_host())
    assert info.os == "linux"
    assert info.os_pretty == "Ubuntu 22.04.4 LTS"
    assert (info.distro_id, info.os_version) == ("ubuntu", "22.04")
    assert info.os_build == "6.5.0-35-generic"
    assert info.is_wsl is False and info.wsl_version is None
    assert info.cpu_model == "13th Gen Intel(R) Core(TM) i9-13900K"
    assert info.disk_path == "/home/student/GPU-Setup-Wizard/envs"
    assert info.disk_free_bytes == 700 * GIB  # the /home volume, not /
    assert info.locale == "ko_KR.UTF-8"
    assert info.hostname == "dl-desktop"
    assert [(a.vendor, a.name) for a in info.display_adapters] == [
        ("intel", "Intel Corporation AlderLake-S GT1 [UHD Graphics 770]"),
        ("nvidia", "NVIDIA Corporation AD102 [GeForce RTX 4090]"),
    ]


def test_os_release_falls_back_to_usr_lib():
    host = ubuntu_host()
    host.files["/usr/lib/os-release"] = host.files.pop("/etc/os-release")
    assert detect_system(host).distro_id == "ubuntu"


def test_no_os_release_leaves_distro_unknown():
    host = ubuntu_host()
    del host.files["/etc/os-release"]
    info = detect_system(host)
    assert (info.os_pretty, info.distro_id, info.os_version) == (None, None, None)


def wsl2_host() -> RecordedHost:
    return RecordedHost(
        os_name="linux",
        platform={"system": "Linux", "release": "5.15.153.1-microsoft-standard-WSL2", "machine": "x86_64",
                  "node": "DESKTOP-7Q2K9LM"},
        files={
            "/etc/os-release": recorded("linux/os-release_ubuntu2204"),
            "/proc/sys/kernel/osrelease": "5.15.153.1-microsoft-standard-WSL2\n",
            "/proc/version": recorded("linux/proc_version_wsl2"),
            "/proc/cpuinfo": recorded("linux/cpuinfo_wsl2_i7_13700h"),
            "/dev/dxg": "",
        },
        commands={"lspci -nn": ok(recorded("linux/lspci-nn_wsl2.txt"))},
        env={"WSL_DISTRO_NAME": "Ubuntu-22.04", "LANG": "C.UTF-8"},
        machine_resources={"cpu_logical": 20, "cpu_physical": 10, "ram_total": 15 * GIB, "ram_available": 14 * GIB},
        disks={"/": (950 * GIB, 1007 * GIB)},
    )


def test_wsl2_ubuntu():
    info = detect_system(wsl2_host())
    assert info.is_wsl is True and info.wsl_version == 2
    assert info.os_pretty == "Ubuntu 22.04.4 LTS"
    assert info.os_build == "5.15.153.1-microsoft-standard-WSL2"
    assert info.cpu_model == "13th Gen Intel(R) Core(TM) i7-13700H"
    assert info.cpu_logical_cores == 20
    # WSL2 shows the GPU only as the paravirtual render device
    assert [a.vendor for a in info.display_adapters] == ["other", "other"]


def test_wsl1_from_capital_microsoft_kernel():
    host = wsl2_host()
    host.files["/proc/sys/kernel/osrelease"] = "4.4.0-19041-Microsoft\n"
    host.files["/proc/version"] = recorded("linux/proc_version_wsl1")
    host.platform["release"] = "4.4.0-19041-Microsoft"
    del host.files["/dev/dxg"]
    info = detect_system(host)
    assert info.is_wsl is True and info.wsl_version == 1


def test_wsl2_custom_kernel_detected_by_distro_name_and_dxg():
    host = wsl2_host()
    host.files["/proc/sys/kernel/osrelease"] = "6.6.36-custom\n"
    host.files["/proc/version"] = "Linux version 6.6.36-custom (me@box) #1 SMP\n"
    host.platform["release"] = "6.6.36-custom"
    info = detect_system(host)
    assert info.is_wsl is True and info.wsl_version == 2


@pytest.mark.parametrize("release, expected", [
    ("5.15.153.1-microsoft-standard-WSL2", 2),
    ("4.19.104-microsoft-standard", 2),
    ("6.6.36.3-microsoft-standard-WSL2+", 2),
    ("4.4.0-19041-Microsoft", 1),
    ("6.5.0-35-generic", None),
    ("", None),
    (None, None),
])
def test_wsl_version_from_kernel(release, expected):
    assert wsl_version_from_kernel(release) == expected


def test_fedora_with_amd_from_lspci():
    host = RecordedHost(
        os_name="linux",
        platform={"system": "Linux", "release": "6.8.9-300.fc40.x86_64", "machine": "x86_64", "node": "fedora"},
        files={"/etc/os-release": recorded("linux/os-release_fedora40"),
               "/proc/sys/kernel/osrelease": "6.8.9-300.fc40.x86_64\n",
               "/proc/cpuinfo": ("processor\t: 0\nvendor_id\t: AuthenticAMD\n"
                                 "model name\t: AMD Ryzen 9 7950X 16-Core Processor\n")},
        commands={"lspci -nn": ok(recorded("linux/lspci-nn_fedora_amd.txt"))},
        env={"LC_ALL": "en_US.UTF-8", "LANG": "ko_KR.UTF-8"},
        machine_resources={"cpu_logical": 32, "cpu_physical": 16, "ram_total": 64 * GIB, "ram_available": 60 * GIB},
        disks={"/": (1 * GIB, 2 * GIB)},
    )
    info = detect_system(host)
    assert info.os_pretty == "Fedora Linux 40 (Workstation Edition)"
    assert (info.distro_id, info.os_version) == ("fedora", "40")
    assert info.cpu_model == "AMD Ryzen 9 7950X 16-Core Processor"
    assert info.locale == "en_US.UTF-8"  # LC_ALL overrides LANG
    assert [a.vendor for a in info.display_adapters] == ["amd", "amd"]
    assert not info.is_wsl


def test_linux_aarch64_cpu_from_lscpu():
    host = RecordedHost(
        os_name="linux",
        platform={"system": "Linux", "release": "6.8.0-1009-aws", "machine": "aarch64", "node": "ip-172-31-5-10"},
        files={"/etc/os-release": recorded("linux/os-release_ubuntu2204_arm64_server"),
               "/proc/cpuinfo": recorded("linux/cpuinfo_aarch64_neoverse_n1")},
        commands={"lscpu": ok(recorded("linux/lscpu_aarch64_neoverse_n1.txt"))},
        machine_resources={"cpu_logical": 4, "cpu_physical": 4, "ram_total": 16 * GIB, "ram_available": 15 * GIB},
    )
    info = detect_system(host)
    assert info.arch == "aarch64"
    assert info.cpu_model == "Neoverse-N1"
    assert ["lscpu"] in host.calls
    assert info.disk_free_bytes is None  # no volume recorded: n/a, not 0
    assert info.locale is None


def test_lscpu_and_cpuinfo_parsers():
    assert parse_cpuinfo_model(recorded("linux/cpuinfo_aarch64_neoverse_n1")) is None
    assert parse_lscpu_model("Architecture: aarch64\n  Model name:  Cortex-A72\n") == "Cortex-A72"
    assert parse_lscpu_model("Model name: -\nBIOS Model name: Ampere Altra\n") is None
    assert parse_lscpu_model("") is None


def test_parse_os_release_quoting():
    text = ('NAME="Arch Linux"\nPRETTY_NAME=\'Arch Linux\'\nID=arch\nBUILD_ID=rolling\n'
            '# comment\nVERSION="1 \\"quoted\\" x"\nBROKEN="unterminated\nnot a line\n')
    data = parse_os_release(text)
    assert data["NAME"] == "Arch Linux"
    assert data["PRETTY_NAME"] == "Arch Linux"
    assert data["ID"] == "arch"
    assert data["VERSION"] == '1 "quoted" x'
    assert data["BROKEN"] == "unterminated"
    assert "VERSION_ID" not in data


# ------------------------------------------------------------------------------- macOS


def macos_host(machine: str, translated: CommandResult | None) -> RecordedHost:
    commands = {
        "sw_vers -productVersion": ok("14.5\n"),
        "sw_vers -buildVersion": ok("23F79\n"),
        "sysctl -n machdep.cpu.brand_string": ok("Apple M2\n"),
        "system_profiler SPDisplaysDataType -json": ok(recorded("macos/system_profiler_displays_m2.json")),
        "defaults read -g AppleLocale": ok("ko_KR\n"),
    }
    if translated is not None:
        commands["sysctl -n sysctl.proc_translated"] = translated
    return RecordedHost(
        os_name="macos",
        platform={"system": "Darwin", "release": "23.5.0", "machine": machine, "node": "Kims-MacBook-Air.local",
                  "mac_ver": "14.5"},
        commands=commands,
        machine_resources={"cpu_logical": 8, "cpu_physical": 8, "ram_total": 16 * GIB, "ram_available": 6 * GIB},
        disks={"/": (180 * GIB, 460 * GIB)},
        home_dir="/Users/kim",
    )


def test_macos14_apple_silicon():
    host = macos_host("arm64", translated=None)
    info = detect_system(host)
    assert info.os == "macos"
    assert info.os_pretty == "macOS 14.5"
    assert (info.os_version, info.os_build) == ("14.5", "23F79")
    assert info.arch == "arm64"
    assert info.cpu_model == "Apple M2"
    assert info.locale == "ko_KR"  # no LANG: from the user's defaults
    assert info.disk_path == "/Users/kim/GPU-Setup-Wizard/envs"
    assert [(a.vendor, a.name) for a in info.display_adapters] == [("apple", "Apple M2")]
    assert ["sysctl", "-n", "sysctl.proc_translated"] not in host.calls  # arm64 needs no Rosetta check


def test_macos_rosetta_reports_the_hardware_arch():
    info = detect_system(macos_host("x86_64", translated=ok("1\n")))
    assert info.arch == "arm64"


def test_macos_intel_stays_x86_64():
    # on an Intel Mac the sysctl does not exist: "sysctl: unknown oid 'sysctl.proc_translated'"
    info = detect_system(macos_host("x86_64", translated=CommandResult(
        [], 1, "", "sysctl: unknown oid 'sysctl.proc_translated'\n")))
    assert info.arch == "x86_64"


def test_macos_falls_back_to_platform_version():
    host = macos_host("arm64", translated=None)
    host.commands["sw_vers -productVersion"] = CommandResult([], None, timed_out=True)
    assert detect_system(host).os_pretty == "macOS 14.5"


# -------------------------------------------------------------------------- env folder


def test_default_env_root_uses_host_path_rules():
    assert default_env_root(RecordedHost(os_name="windows", home_dir="C:\\Users\\kim")) == \
        "C:\\Users\\kim\\GPU-Setup-Wizard\\envs"
    assert default_env_root(RecordedHost(os_name="linux", home_dir="/home/a b")) == "/home/a b/GPU-Setup-Wizard/envs"


# ---------------------------------------------------------------------------- RealHost


def test_real_host_linux():
    host = RealHost()
    if host.os_name != "linux":
        pytest.skip("this test describes a Linux build machine")
    info = detect_system(host)
    assert info.os == "linux"
    assert info.os_pretty and info.distro_id
    assert info.cpu_logical_cores is not None and info.cpu_logical_cores >= 1
    assert info.ram_total_bytes is not None and info.ram_total_bytes > 0
    assert info.disk_free_bytes is not None and info.disk_free_bytes > 0
    assert info.disk_path == default_env_root(host)
    assert info.arch and info.os_build
    assert isinstance(info.display_adapters, list)
