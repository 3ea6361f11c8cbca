"""nvidia-smi's outputs for the tests: the real captures of ../shared/reference/nvidia-smi (a test
skips when they are absent) and hand-written outputs in nvidia-smi's exact layouts (table layouts of
drivers 418, 470 and 550+; failure messages from failure-modes.json). Shared by the parser tests,
their property tests and the fuzz seeds."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from wizard.core.machine.models import (
    STATUS_DRIVER_NOT_LOADED,
    STATUS_ERROR,
    STATUS_GPU_LOST,
    STATUS_NO_DEVICES,
    STATUS_NO_DRIVER,
    STATUS_NO_PERMISSION,
    STATUS_VERSION_MISMATCH,
)

REFERENCE = Path(__file__).resolve().parents[2].parent / "shared" / "reference"
FIXTURES = REFERENCE / "nvidia-smi"
CAPTURE_01 = "01-windows-wddm-geforce-rtx2080super-591.86.capture.txt"
XML_04 = "04-linux-4x-a100-sxm4-535.54.03.q-x.xml"
XML_07 = "07-old-driver-418.43-gtx1660ti.q-x.xml"


def fixture_text(name: str) -> str:
    path = FIXTURES / name
    if not path.is_file():
        pytest.skip(f"reference fixture {name} not available (../shared/reference is absent)")
    return path.read_bytes().decode("utf-8")


def capture_sections(text: str) -> dict[tuple[str, str], str]:
    """Slice a capture file as its README says: 80 '#', '# state :: title', '# $ cmd', 80 '#'."""
    lines = text.split("\n")
    bar = "#" * 80
    sections: dict[tuple[str, str], str] = {}
    i = 0
    while i < len(lines):
        title = re.match(r"^# (\w+) :: (.+)$", lines[i + 1]) if i + 1 < len(lines) and lines[i] == bar else None
        if not title:
            i += 1
            continue
        start = next(j for j in range(i + 2, len(lines)) if lines[j] == bar) + 1
        end = next((j for j in range(start, len(lines)) if lines[j] == bar), len(lines))
        sections[(title.group(1), title.group(2).strip())] = "\n".join(lines[start:end]).strip("\n")
        i = end
    return sections


def section(name: str) -> str:
    sections = capture_sections(fixture_text(CAPTURE_01))
    assert name in sections, sorted(sections)
    return sections[name]


# ---------------------------------------------------------------------------------------
# Hand-written outputs, in nvidia-smi's exact layouts
# ---------------------------------------------------------------------------------------

COLAB_T4 = """\
Thu Jan 16 05:10:12 2025       
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  Tesla T4                       Off |   00000000:00:04.0 Off |                    0 |
| N/A   36C    P8              9W /   70W |       0MiB /  15360MiB |      0%      Default |
|                                         |                        |                  N/A |
+-----------------------------------------+------------------------+----------------------+
                                                                                         
+-----------------------------------------------------------------------------------------+
| Processes:                                                                              |
|  GPU   GI   CI        PID   Type   Process name                              GPU Memory |
|        ID   ID                                                               Usage      |
|=========================================================================================|
|  No running processes found                                                             |
+-----------------------------------------------------------------------------------------+
"""

WSL2_4070 = """\
Sat Jan 11 14:02:37 2025       
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 565.77.01              Driver Version: 566.36         CUDA Version: 12.7     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA GeForce RTX 4070 ...    On  |   00000000:01:00.0  On |                  N/A |
| N/A   45C    P8              3W /   80W |     790MiB /   8188MiB |      2%      Default |
|                                         |                        |                  N/A |
+-----------------------------------------+------------------------+----------------------+
                                                                                         
+-----------------------------------------------------------------------------------------+
| Processes:                                                                              |
|  GPU   GI   CI        PID   Type   Process name                              GPU Memory |
|        ID   ID                                                               Usage      |
|=========================================================================================|
|    0   N/A  N/A        33      G   /Xwayland                                   N/A      |
+-----------------------------------------------------------------------------------------+
"""

TWO_GPU_470 = """\
Tue Mar 14 10:02:11 2023       
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 470.182.03   Driver Version: 470.182.03   CUDA Version: 11.4     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                               |                      |               MIG M. |
|===============================+======================+======================|
|   0  NVIDIA GeForce ...  Off  | 00000000:01:00.0  On |                  N/A |
| 30%   45C    P2   112W / 350W |  10240MiB / 24268MiB |     35%      Default |
|                               |                      |                  N/A |
+-------------------------------+----------------------+----------------------+
|   1  NVIDIA GeForce ...  Off  | 00000000:21:00.0 Off |                  N/A |
| 65%   71C    P2   301W / 350W |  22011MiB / 24268MiB |     98%      Default |
|                               |                      |                  N/A |
+-------------------------------+----------------------+----------------------+
                                                                               
+-----------------------------------------------------------------------------+
| Processes:                                                                  |
|  GPU   GI   CI        PID   Type   Process name                  GPU Memory |
|        ID   ID                                                   Usage      |
|=============================================================================|
|    0   N/A  N/A      1432      G   /usr/lib/xorg/Xorg                 35MiB |
|    0   N/A  N/A     20871      C   python                          10201MiB |
|    1   N/A  N/A     20872      C   python                          21999MiB |
+-----------------------------------------------------------------------------+
"""

OLD_418_T4 = """\
Fri Jun 14 08:12:01 2019       
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 418.67       Driver Version: 418.67       CUDA Version: 10.1     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|===============================+======================+======================|
|   0  Tesla T4            Off  | 00000000:00:04.0 Off |                    0 |
| N/A   63C    P0    29W /  70W |    887MiB / 15079MiB |     12%      Default |
+-------------------------------+----------------------+----------------------+
                                                                               
+-----------------------------------------------------------------------------+
| Processes:                                                       GPU Memory |
|  GPU       PID   Type   Process name                             Usage      |
|=============================================================================|
|    0      2307      C   /usr/bin/python3                             877MiB |
+-----------------------------------------------------------------------------+
"""

MIG_A100_470 = """\
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 470.57.02    Driver Version: 470.57.02    CUDA Version: 11.4     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                               |                      |               MIG M. |
|===============================+======================+======================|
|   0  A100-SXM4-40GB      On   | 00000000:36:00.0 Off |                    0 |
| N/A   29C    P0    62W / 400W |     20MiB / 40536MiB |     N/A      Default |
|                               |                      |              Enabled |
+-------------------------------+----------------------+----------------------+

+-----------------------------------------------------------------------------+
| MIG devices:                                                                |
+------------------+----------------------+-----------+-----------------------+
| GPU  GI  CI  MIG |         Memory-Usage |        Vol|         Shared        |
|      ID  ID  Dev |           BAR1-Usage | SM     Unc| CE  ENC  DEC  OFA  JPG|
|                  |                      |        ECC|                       |
|==================+======================+===========+=======================|
|  0    1   0   0  |     10MiB / 20096MiB | 42      0 |  3   0    2    0    0 |
|                  |      0MiB / 32767MiB |           |                       |
+------------------+----------------------+-----------+-----------------------+
|  0    2   0   1  |     10MiB / 20096MiB | 42      0 |  3   0    2    0    0 |
|                  |      0MiB / 32767MiB |           |                       |
+------------------+----------------------+-----------+-----------------------+
"""

Q_TWO_GPUS = """\

==============NVSMI LOG==============

Timestamp                                 : Thu Oct  2 10:00:00 2025
Driver Version                            : 570.86.15
CUDA Version                              : 12.8

Attached GPUs                             : 2
GPU 00000000:01:00.0
    Product Name                          : NVIDIA GeForce RTX 3090
    Product Architecture                  : Ampere
    MIG Mode
        Current                           : N/A
        Pending                           : N/A
    Driver Model
        Current                           : N/A
        Pending                           : N/A
    Serial Number                         : N/A
    GPU UUID                              : GPU-1b2c3d4e-0000-1111-2222-333344445555
    PCI
        Bus Id                            : 00000000:01:00.0
        GPU Link Info
            PCIe Generation
                Max                       : 4
                Current                   : 1
            Link Width
                Max                       : 16x
                Current                   : 8x
    FB Memory Usage
        Total                             : 24576 MiB
        Reserved                          : 310 MiB
        Used                              : 1234 MiB
        Free                              : 23031 MiB
    Temperature
        GPU Current Temp                  : 48 C
    GPU Power Readings
        Power Draw                        : 31.57 W
        Current Power Limit               : 350.00 W
    Processes
        GPU instance ID                   : N/A
        Compute instance ID               : N/A
        Process ID                        : 1607
            Type                          : G
            Name                          : /usr/lib/xorg/Xorg
            Used GPU Memory               : 245 MiB
        GPU instance ID                   : N/A
        Compute instance ID               : N/A
        Process ID                        : 5347
            Type                          : C
            Name                          : Insufficient Permissions
            Used GPU Memory               : 988 MiB

GPU 00000000:02:00.0
    Product Name                          : NVIDIA GeForce RTX 3090
    FB Memory Usage
        Total                             : 24576 MiB
        Used                              : 3 MiB
        Free                              : 24262 MiB
    Power Readings
        Power Draw                        : N/A
        Power Limit                       : 350.00 W
    Processes                             : None
"""

FAILURES = {
    "cannot-communicate": (
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
        "Make sure that the latest NVIDIA driver is installed and running.\n\n",
        None, STATUS_DRIVER_NOT_LOADED,
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
        "Make sure that the latest NVIDIA driver is installed and running."),
    "version-mismatch": (
        "Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 550.144\n",
        18, STATUS_VERSION_MISMATCH,
        "Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 550.144"),
    "version-mismatch-old": (
        "Failed to initialize NVML: Driver/library version mismatch\n",
        18, STATUS_VERSION_MISMATCH, "Failed to initialize NVML: Driver/library version mismatch"),
    "permissions": (
        "Failed to initialize NVML: Insufficient Permissions\n", 4, STATUS_NO_PERMISSION,
        "Failed to initialize NVML: Insufficient Permissions"),
    "permissions-bare": ("Insufficient Permissions\n", None, STATUS_NO_PERMISSION, "Insufficient Permissions"),
    "gpu-lost": (
        "Unable to determine the device handle for gpu 0000:01:00.0: GPU is lost.  "
        "Reboot the system to recover this GPU\n", 15, STATUS_GPU_LOST,
        "Unable to determine the device handle for gpu 0000:01:00.0: GPU is lost.  "
        "Reboot the system to recover this GPU"),
    "no-devices": ("No devices were found\n", 6, STATUS_NO_DEVICES, "No devices were found"),
    "cmd-not-recognised": (
        "'nvidia-smi' is not recognized as an internal or external command,\r\n"
        "operable program or batch file.\r\n", 9009, STATUS_NO_DRIVER,
        "'nvidia-smi' is not recognized as an internal or external command,\n"
        "operable program or batch file."),
    "cmd-not-recognised-ko": (
        "'nvidia-smi'은(는) 내부 또는 외부 명령, 실행할 수 있는 프로그램, 또는\r\n배치 파일이 아닙니다.\r\n",
        9009, STATUS_NO_DRIVER,
        "'nvidia-smi'은(는) 내부 또는 외부 명령, 실행할 수 있는 프로그램, 또는\n배치 파일이 아닙니다."),
    "bash-not-found": ("bash: nvidia-smi: command not found\n", 127, STATUS_NO_DRIVER,
                       "bash: nvidia-smi: command not found"),
    "colab-cpu-runtime": ("/bin/bash: line 1: nvidia-smi: command not found\n", 127, STATUS_NO_DRIVER,
                          "/bin/bash: line 1: nvidia-smi: command not found"),
    "nvml-library": ("pynvml.NVMLError_LibraryNotFound: NVML Shared Library Not Found\n", None, STATUS_NO_DRIVER,
                     "pynvml.NVMLError_LibraryNotFound: NVML Shared Library Not Found"),
    "libnvidia-ml-missing": (
        "NVIDIA-SMI couldn't find libnvidia-ml.so library in your system. Please make sure that the NVIDIA "
        "Display Driver is properly installed and present in your system.\nPlease also try adding directory "
        "that contains libnvidia-ml.so to your system PATH.\n", 12, STATUS_NO_DRIVER,
        "NVIDIA-SMI couldn't find libnvidia-ml.so library in your system. Please make sure that the NVIDIA "
        "Display Driver is properly installed and present in your system.\nPlease also try adding directory "
        "that contains libnvidia-ml.so to your system PATH."),
    "unknown-error": ("Failed to initialize NVML: Unknown Error\n", 255, STATUS_ERROR,
                      "Failed to initialize NVML: Unknown Error"),
}


V13_XML = """<?xml version="1.0" ?>
<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v13.dtd">
<nvidia_smi_log>
\t<driver_version>590.44.01</driver_version>
\t<cuda_version>13.1</cuda_version>
\t<attached_gpus>1</attached_gpus>
\t<gpu id="00000000:61:00.0">
\t\t<product_name>NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition</product_name>
\t\t<product_architecture>Blackwell</product_architecture>
\t\t<mig_devices>
\t\t\tNone
\t\t</mig_devices>
\t\t<fb_memory_usage><total>97887 MiB</total><reserved>637 MiB</reserved><used>65720 MiB</used><free>31531 MiB</free></fb_memory_usage>
\t\t<gpu_power_readings>
\t\t\t<power_state>Requested functionality has been deprecated</power_state>
\t\t\t<average_power_draw>3.97 W</average_power_draw>
\t\t\t<instant_power_draw>3.99 W</instant_power_draw>
\t\t\t<current_power_limit>300.00 W</current_power_limit>
\t\t</gpu_power_readings>
\t\t<cuda_compute_capability><major>12</major><minor>0</minor></cuda_compute_capability>
\t\t<processes>
\t\t\t<process_info>
\t\t\t\t<gpu_instance_id>N/A</gpu_instance_id>
\t\t\t\t<compute_instance_id>N/A</compute_instance_id>
\t\t\t\t<pid>4242</pid>
\t\t\t\t<type>C</type>
\t\t\t\t<process_name>python</process_name>
\t\t\t\t<used_memory>65000 MiB</used_memory>
\t\t\t</process_info>
\t\t</processes>
\t</gpu>
</nvidia_smi_log>
"""
