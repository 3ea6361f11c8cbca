"""Pasted error texts → findings: every symptom of the reference failure catalogue, collect_env
reports, Korean Windows consoles, CRLF, ANSI colours, notebooks; and no findings from unrelated text."""

from __future__ import annotations

import io
import json
import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.finding_texts import assert_renders
from tests.reference import REFERENCE, reference_file
from wizard.cli.doctor import cmd_explain, explain_json, explain_text, format_explain
from wizard.cli.exit_status import ExitStatus
from wizard.core.base.resources import load_json
from wizard.core.base.user_input import decode_user_bytes
from wizard.core.diagnosis.explain import (
    PatternDataError,
    clean_lines,
    parse_collect_env,
    parse_patterns,
    patterns,
    recognise,
)
from wizard.core.diagnosis.model import has_messages

FAILURE_MODES = REFERENCE / "failure-modes.json"


def _modes() -> list[dict]:
    if not FAILURE_MODES.exists():
        return []
    return json.loads(FAILURE_MODES.read_text(encoding="utf-8"))


def _symptom_cases() -> list:
    cases = [pytest.param(m["id"], s, id=f"{m['id']}-{i}") for m in _modes() for i, s in enumerate(m["symptom"])]
    return cases or [pytest.param(None, None, id="reference-absent")]


def ids(text: str) -> list[str]:
    return [f.id for f in recognise(text)]


# ---------------------------------------------------------------------------------------------
# The reference catalogue
# ---------------------------------------------------------------------------------------------
def test_the_catalogue_has_21_failure_modes():
    modes = _modes()
    if not modes:
        pytest.skip("../shared/reference/failure-modes.json is absent")
    assert len(modes) == 21


@pytest.mark.parametrize("mode_id,symptom", _symptom_cases())
def test_every_symptom_text_is_recognised_as_its_failure_mode(mode_id, symptom):
    if mode_id is None:
        pytest.skip("../shared/reference/failure-modes.json is absent")
    found = recognise(symptom)
    assert mode_id in [f.id for f in found], [(f.id, f.variant) for f in found]
    hit = next(f for f in found if f.id == mode_id)
    # the evidence quotes the text itself (whitespace aside)
    flat = " ".join(symptom.split())
    assert hit.evidence and all(" ".join(line.split()) in flat for line in hit.evidence.splitlines())
    assert_renders(found)


def test_every_symptom_is_recognised_with_windows_line_ends_and_colour():
    modes = _modes()
    if not modes:
        pytest.skip("../shared/reference/failure-modes.json is absent")
    for m in modes:
        for s in m["symptom"]:
            coloured = "\x1b[1;31m" + s.replace("\n", "\x1b[0m\r\n\x1b[31m") + "\x1b[0m\r\n"
            assert m["id"] in ids(coloured), (m["id"], s)


def test_every_pattern_cites_a_catalogue_entry_and_has_messages():
    """Each pattern cites the reference catalogue, or a real error text of tests/data/errors
    (those are checked against their fixture in test_explain_real_errors.py)."""
    known = {m["id"] for m in _modes()}
    for p in patterns():
        if p.src.startswith("real-errors:"):
            assert has_messages(p.id, p.variant), (p.id, p.variant)
            continue
        assert p.src.startswith("failure-modes.json#")
        if known:
            assert p.src.split("#", 1)[1] in known, p.src
        assert has_messages(p.id, p.variant), (p.id, p.variant)
        for fid, severity, variant in p.also:
            assert severity in ("error", "warning", "info")
            assert has_messages(fid, variant), (fid, variant)


def test_pattern_data_is_checked():
    doc = load_json("failure_patterns.json")
    with pytest.raises(PatternDataError):
        parse_patterns({**doc, "schema": "gsw-failure-patterns/2"})
    with pytest.raises(PatternDataError):
        parse_patterns({**doc, "patterns": [{"id": "x", "severity": "error", "regex": "(unclosed"}]})
    with pytest.raises(PatternDataError):
        parse_patterns({**doc, "patterns": [{"id": "x", "severity": "fatal", "regex": "x"}]})


# ---------------------------------------------------------------------------------------------
# What students paste
# ---------------------------------------------------------------------------------------------
def test_korean_cmd_console_bytes_in_cp949():
    text = ("C:\\Users\\김철수>nvidia-smi\r\n'nvidia-smi'은(는) 내부 또는 외부 명령, 실행할 수 있는 프로그램, 또는\r\n"
            "배치 파일이 아닙니다.\r\n")
    data = text.encode("cp949")
    decoded = decode_user_bytes(data)
    assert "김철수" in decoded
    found = recognise(decoded)
    assert found[0].id == "nvidia-smi-not-on-path-windows"
    assert "내부 또는 외부 명령" in found[0].evidence


def test_korean_powershell_output_saved_as_utf16():
    text = ("nvidia-smi : 'nvidia-smi' 용어가 cmdlet, 함수, 스크립트 파일 또는 실행할 수 있는 프로그램 이름으로 "
            "인식되지 않습니다.\r\n")
    for data in (text.encode("utf-16"), text.encode("utf-16-le")):  # with and without the BOM
        assert "nvidia-smi-not-on-path-windows" in ids(decode_user_bytes(data))


def test_won_sign_paths_and_smart_quotes_are_normalised():
    text = "Could not find module ‘C:₩Program Files₩NVIDIA Corporation₩NVSMI₩nvml.dll’ (or one of its dependencies)"
    assert clean_lines(text)[0].startswith("Could not find module 'C:\\Program Files\\")
    assert ids(text)[0] == "nvml-library-not-found"


def test_jupyter_traceback_with_ansi_colours():
    tb = ("\x1b[0;31m---------------------------------------------------------------------------\x1b[0m\n"
          "\x1b[0;31mAssertionError\x1b[0m                            Traceback (most recent call last)\n"
          "Cell \x1b[0;32mIn[3], line 1\x1b[0m\n"
          "\x1b[0;32m----> 1\x1b[0m x \x1b[38;5;241m=\x1b[39m torch\x1b[38;5;241m.\x1b[39mones(\x1b[38;5;241m3\x1b[39m)"
          "\x1b[38;5;241m.\x1b[39mcuda()\n"
          "\x1b[0;31mAssertionError\x1b[0m: Torch not compiled with CUDA enabled")
    (f,) = recognise(tb)
    assert (f.id, f.severity) == ("cpu-only-torch-installed", "error")
    assert f.evidence == "AssertionError: Torch not compiled with CUDA enabled"
    assert f.action is not None and f.action.kind == "reinstall_cuda_build"


def test_colour_codes_that_lost_their_escape_character():
    assert ids("[0;31mRuntimeError[0m: No CUDA GPUs are available") == ["cuda-visible-devices-hides-gpus"]


def test_notebook_file_and_json_escaped_output():
    nb = {"cells": [{"cell_type": "code", "source": ["import torch\n", "torch.zeros(1).cuda()"],
                     "outputs": [{"output_type": "error", "ename": "RuntimeError",
                                  "evalue": "Found no NVIDIA driver on your system. Please check that you have an "
                                            "NVIDIA GPU and installed a driver",
                                  "traceback": ["\x1b[0;31mRuntimeError\x1b[0m: Found no NVIDIA driver on your system."]}]}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    assert ids(json.dumps(nb)) == ["no-nvidia-driver"]
    escaped = json.dumps({"text": "Traceback (most recent call last):\n  File \"x.py\", line 1\n"
                                  "\u001b[31mRuntimeError: CUDA error: no kernel image is available for execution on "
                                  "the device\u001b[0m\nCUDA kernel errors might be asynchronously reported\n"})
    assert "\\n" in escaped and "\\u001b" in escaped
    assert ids(escaped) == ["no-kernel-image-sm-incompatible"]


def test_console_hard_wrapped_at_80_columns():
    message = ("RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your "
               "GPU driver by downloading and installing a new version from the URL")
    wrapped = "\r\n".join(message[i:i + 80] for i in range(0, len(message), 80))
    (f,) = recognise(wrapped)
    assert f.id == "driver-too-old-for-torch-cuda" and f.params["cuda"] == "11.4"
    assert "12.8" not in f.cause("en") and "11.4" in f.cause("en")


def test_progress_bar_carriage_returns():
    text = "Downloading 10%\rDownloading 55%\rDownloading 100%\rERROR: No matching distribution found for torch\n"
    assert ids(text) == ["python-version-unsupported"]


def test_one_finding_per_failure_mode_the_most_severe():
    text = ("torch.cuda.is_available()\nFalse\n>>> torch.__version__\n'2.5.1+cpu'\n"
            "AssertionError: Torch not compiled with CUDA enabled\n")
    found = recognise(text)
    assert [f.id for f in found] == ["cpu-only-torch-installed"]
    assert found[0].severity == "error" and "Torch not compiled" in found[0].evidence


def test_context_decides_between_wsl_and_linux():
    assert ids("student@lab:~$ nvidia-smi\nnvidia-smi: command not found") == ["no-nvidia-driver"]
    wsl = "student@DESKTOP:/mnt/c/Users/kim$ nvidia-smi\nnvidia-smi: command not found"
    assert ids(wsl) == ["wsl2-gpu-setup"]


def test_secure_boot_context_upgrades_the_possible_cause():
    smi = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."
    plain = {f.id: (f.severity, f.variant) for f in recognise(smi)}
    assert plain["nvidia-smi-cannot-communicate"] == ("error", None)
    assert plain["secure-boot-blocks-module"] == ("info", "possible")
    with_sb = {f.id: (f.severity, f.variant) for f in recognise("$ mokutil --sb-state\nSecureBoot enabled\n" + smi)}
    assert with_sb["secure-boot-blocks-module"] == ("warning", None)
    disabled = {f.id: f.severity for f in recognise("$ mokutil --sb-state\nSecureBoot disabled\n" + smi)}
    assert disabled["secure-boot-blocks-module"] == "info"


def test_secure_boot_key_rejection_for_another_module_is_not_nvidia():
    assert ids("modprobe: ERROR: could not insert 'vboxdrv': Key was rejected by service") == []


def test_the_word_nouveau_in_prose_is_not_the_driver():
    assert ids("C'est un nouveau modèle. Art nouveau architecture in Brussels.") == []
    lsmod = "Module                  Size  Used by\nnouveau              2433024  1\nmxm_wmi  12288  1 nouveau\n"
    assert ids(lsmod) == ["nouveau-loaded"]


def test_mismatch_after_a_driver_update_offers_a_restart():
    text = "$ nvidia-smi\nFailed to initialize NVML: Driver/library version mismatch\nNVML library version: 581.15\n"
    (f,) = recognise(text)
    assert f.id == "nvml-driver-library-version-mismatch" and f.action.kind == "restart"
    assert f.evidence.startswith("Failed to initialize NVML")
    assert f.action.label("ko") == "컴퓨터 다시 시작"


def test_cuda_init_errors_by_their_number():
    head = ("UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda "
            "functions before calling NumCudaDevices() that might have already set an error? ")
    after_update = recognise(head + "Error 803: system has unsupported display driver / cuda driver combination")
    assert [(f.id, f.action.kind) for f in after_update] == [("nvml-driver-library-version-mismatch", "restart")]
    unknown = recognise(head + "Error 999: unknown error (Triggered internally at /pytorch/c10/cuda/CUDAFunctions.cpp:109.)")
    assert [(f.id, f.severity, f.variant) for f in unknown] == [("torch-cuda-unavailable", "warning", "text")]
    in_wsl = recognise("Linux-5.15.153.1-microsoft-standard-WSL2-x86_64\n" + head + "Error 999: unknown error")
    assert [f.id for f in in_wsl] == ["wsl2-gpu-setup"]
    assert_renders(after_update + unknown + in_wsl)


def test_params_from_the_text_fill_the_message():
    text = ("UserWarning: \nNVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current "
            "PyTorch installation.\n")
    (f,) = recognise(text)
    assert f.params["sm"] == "sm_120" and f.params["gpu"] == "NVIDIA GeForce RTX 5090"
    oom = recognise("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total "
                    "capacity of 4.00 GiB")
    assert oom[0].params["size"] == "20.00 MiB"


# ---------------------------------------------------------------------------------------------
# collect_env
# ---------------------------------------------------------------------------------------------
COLLECT_ENV_CPU_KO = """Collecting environment information...\r
PyTorch version: 2.5.1+cpu\r
Is debug build: False\r
CUDA used to build PyTorch: None\r
ROCM used to build PyTorch: N/A\r
\r
OS: Microsoft Windows 11 Home (10.0.22631 64비트)\r
GCC version: Could not collect\r
Clang version: Could not collect\r
CMake version: Could not collect\r
Libc version: N/A\r
\r
Python version: 3.12.7 | packaged by Anaconda, Inc. | (main, Oct  4 2024, 13:17:27) [MSC v.1929 64 bit (AMD64)] (64-bit runtime)\r
Python platform: Windows-11-10.0.22631-SP0\r
Is CUDA available: False\r
CUDA runtime version: Could not collect\r
CUDA_MODULE_LOADING set to: N/A\r
GPU models and configuration: GPU 0: NVIDIA GeForce RTX 4060 Laptop GPU\r
Nvidia driver version: 566.36\r
cuDNN version: Could not collect\r
Is XPU available: False\r
HIP runtime version: N/A\r
MIOpen runtime version: N/A\r
Is XNNPACK available: True\r
\r
CPU:\r
Name: 13th Gen Intel(R) Core(TM) i7-13700H\r
\r
Versions of relevant libraries:\r
[pip3] numpy==2.1.3\r
[pip3] torch==2.5.1+cpu\r
[conda] numpy                     2.1.3                    pypi_0    pypi\r
[conda] torch                     2.5.1+cpu                pypi_0    pypi\r
"""

COLLECT_ENV_HEALTHY = """PyTorch version: 2.6.0+cu126
Is debug build: False
CUDA used to build PyTorch: 12.6
ROCM used to build PyTorch: N/A

OS: Ubuntu 22.04.4 LTS (x86_64)
GCC version: (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0
Libc version: glibc-2.35

Python version: 3.11.9 (main, Apr  6 2024, 17:59:24) [GCC 11.4.0] (64-bit runtime)
Python platform: Linux-6.8.0-49-generic-x86_64-with-glibc2.35
Is CUDA available: True
CUDA runtime version: Could not collect
CUDA_MODULE_LOADING set to: LAZY
GPU models and configuration:
GPU 0: NVIDIA GeForce RTX 4090
GPU 1: NVIDIA GeForce RTX 4090

Nvidia driver version: 565.57.01
cuDNN version: Could not collect

Versions of relevant libraries:
[pip3] numpy==2.1.3
[pip3] torch==2.6.0+cu126
[pip3] triton==3.2.0
[conda] Could not collect
"""


def test_collect_env_cpu_build_on_korean_windows():
    lines = clean_lines(COLLECT_ENV_CPU_KO)
    fields = parse_collect_env(lines)
    assert fields["Nvidia driver version"] == "566.36" and fields["CUDA used to build PyTorch"] == "None"
    found = recognise(COLLECT_ENV_CPU_KO)
    assert [f.id for f in found] == ["cpu-only-torch-installed"]
    (f,) = found
    assert (f.severity, f.variant) == ("error", "collect-env")
    assert "CUDA used to build PyTorch: None" in f.evidence and "Is CUDA available: False" in f.evidence
    assert "2.5.1+cpu" in f.cause("ko")
    assert_renders(found)


def test_collect_env_of_a_healthy_machine_has_no_findings():
    fields = parse_collect_env(clean_lines(COLLECT_ENV_HEALTHY))
    assert fields["GPU models and configuration"] == "GPU 0: NVIDIA GeForce RTX 4090; GPU 1: NVIDIA GeForce RTX 4090"
    assert recognise(COLLECT_ENV_HEALTHY) == []


def test_collect_env_driver_too_old_for_the_build_in_wsl():
    text = COLLECT_ENV_HEALTHY.replace("2.6.0+cu126", "2.11.0+cu130").replace("CUDA used to build PyTorch: 12.6",
                                                                               "CUDA used to build PyTorch: 13.0")
    text = text.replace("Linux-6.8.0-49-generic", "Linux-5.15.153.1-microsoft-standard-WSL2")
    text = text.replace("Nvidia driver version: 565.57.01", "Nvidia driver version: 566.36")
    text = text.replace("Is CUDA available: True", "Is CUDA available: False")
    found = {f.id: f for f in recognise(text)}
    f = found["driver-too-old-for-torch-cuda"]
    assert f.severity == "error" and f.params["build"] == "13.0" and f.params["cuda"].startswith("12.")
    assert "Nvidia driver version: 566.36" in f.evidence
    assert f.action.kind == "open_url" and f.action.param("url").startswith("https://")
    assert "wsl2-gpu-setup" in found


def test_collect_env_minor_version_newer_is_a_warning():
    text = COLLECT_ENV_HEALTHY.replace("CUDA used to build PyTorch: 12.6", "CUDA used to build PyTorch: 12.8") \
        .replace("Nvidia driver version: 565.57.01", "Nvidia driver version: 560.35.03")
    (f,) = [f for f in recognise(text) if f.id == "driver-too-old-for-torch-cuda"]
    assert (f.severity, f.variant) == ("warning", "minor")


def test_collect_env_three_cuda_versions():
    text = COLLECT_ENV_HEALTHY.replace("CUDA runtime version: Could not collect", "CUDA runtime version: 11.5.119")
    (f,) = recognise(text)
    assert (f.id, f.severity) == ("cuda-version-confusion", "info")
    assert f.params["toolkit"] == "11.5" and f.params["torch"] == "12.6" and f.params["driver"].startswith("12.")
    assert "CUDA runtime version: 11.5.119" in f.evidence


def test_collect_env_python_too_new_and_32_bit():
    too_new = COLLECT_ENV_HEALTHY.replace("Python version: 3.11.9 (main", "Python version: 3.19.0 (main")
    (f,) = [f for f in recognise(too_new) if f.id == "python-version-unsupported"]
    assert (f.severity, f.variant) == ("error", "too-new") and f.params["python"] == "3.19"
    bits32 = COLLECT_ENV_CPU_KO.replace("(64-bit runtime)", "(32-bit runtime)")
    (g,) = [f for f in recognise(bits32) if f.id == "python-version-unsupported"]
    assert g.variant == "32bit"


def test_collect_env_conda_and_pip_torch():
    text = COLLECT_ENV_HEALTHY.replace(
        "[conda] Could not collect",
        "[conda] pytorch                   2.1.0           py3.11_cuda12.1_cudnn8.9.2_0    pytorch\n"
        "[conda] pytorch-cuda              12.1                 ha16c6d3_5    pytorch")
    (f,) = [f for f in recognise(text) if f.id == "conda-pip-torch-mixed"]
    assert f.params == {"conda": "pytorch 2.1.0 (pytorch)", "pip": "torch 2.6.0+cu126"}
    # pip inside conda shows the same install twice (channel pypi): not a mix
    same = COLLECT_ENV_CPU_KO
    assert "conda-pip-torch-mixed" not in ids(same)


def test_three_cuda_versions_in_prose():
    text = ("nvidia-smi says CUDA Version: 12.4, nvcc --version says Cuda compilation tools, release 11.5, "
            "V11.5.119 and torch.version.cuda is '12.1'")
    (f,) = recognise(text)
    assert f.params["driver"] == "12.4" and f.params["toolkit"] == "11.5" and f.params["torch"] == "12.1"
    newer = "| NVIDIA-SMI 535.54.03   Driver Version: 535.54.03   CUDA Version: 12.2 |\n>>> torch.__version__\n'2.9.0+cu130'"
    found = {f.id: f for f in recognise(newer)}
    assert found["driver-too-old-for-torch-cuda"].severity == "error"
    assert found["driver-too-old-for-torch-cuda"].params == {"cuda": "12.2", "build": "13.0", "driver": "?"}


# ---------------------------------------------------------------------------------------------
# Text that is not a failure
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", [
    "01-windows-wddm-geforce-rtx2080super-591.86.capture.txt",
    "04-linux-4x-a100-sxm4-535.54.03.q-x.xml",
    "07-old-driver-418.43-gtx1660ti.q-x.xml",
])
def test_healthy_nvidia_smi_captures_give_no_findings(name):
    data = reference_file("nvidia-smi", name).read_bytes()
    assert recognise(decode_user_bytes(data)) == []


_NOISE_WORDS = ["NVIDIA", "driver", "CUDA", "torch", "GPU", "version", "error", "failed", "installed", "12.4",
                "565.57.01", "sm_86", "import", "python", "pip", "conda", "memory", "True", "RuntimeError:",
                "Warning:", "laptop", "Windows", "nvidia-smi", "the", "is", "not", "found", "드라이버", "설치",
                "오류", "=", "->", "(", ")", "\n", "\r\n", "\x1b[31m", "\x1b[0m", "'", ">>>"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=400))
def test_random_text_gives_no_findings(text):
    assert recognise(text) == []


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_NOISE_WORDS), max_size=80))
def test_word_salad_of_domain_words_gives_no_findings(words):
    assert recognise(" ".join(words)) == []


_NOISE_ALPHABET = (string.ascii_lowercase.replace("w", "") + string.digits + " .,;:_-+*#[]" + "가나다라마바사아자차카타파하한국어")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_known_symptoms_in_noise_are_still_found(data):
    modes = _modes()
    if not modes:
        pytest.skip("../shared/reference/failure-modes.json is absent")
    mode = data.draw(st.sampled_from(modes))
    symptom = data.draw(st.sampled_from(mode["symptom"]))
    noise = st.lists(st.text(alphabet=_NOISE_ALPHABET, max_size=60), max_size=6)
    before, after = data.draw(noise), data.draw(noise)
    newline = data.draw(st.sampled_from(["\n", "\r\n"]))
    indent = data.draw(st.sampled_from(["", "    ", "\t", ">>> "]))
    colour = data.draw(st.booleans())
    body = symptom.replace("\n", newline + indent)
    if colour:
        body = "\x1b[0;31m" + body + "\x1b[0m"
    text = newline.join(before + [indent + body] + after)
    assert mode["id"] in ids(text)


# ---------------------------------------------------------------------------------------------
# doctor --explain (the helpers the CLI uses)
# ---------------------------------------------------------------------------------------------
def test_explain_text_exit_codes():
    assert explain_text("   \n", "en") == ([], ExitStatus.BAD_INPUT)
    assert explain_text("all good here", "en") == ([], ExitStatus.NOTHING_RECOGNISED)
    findings, code = explain_text("NVMLError_GpuIsLost: GPU is lost", "en")
    assert code == ExitStatus.SUCCESS and findings[0].id == "gpu-is-lost"


def test_format_and_json_in_both_languages():
    findings, _ = explain_text("RuntimeError: No CUDA GPUs are available", "ko")
    text = format_explain(findings, "ko")
    assert "텍스트에서 확인한 내용" in text and "CUDA_VISIBLE_DEVICES" in text and "> RuntimeError" in text
    assert "1. " in text and "2. " in text  # the fix as numbered steps
    doc = explain_json(findings, "en")
    assert doc["schema"] == "gpu-setup-wizard/explain@1.0"
    (item,) = doc["findings"]
    assert item["id"] == "cuda-visible-devices-hides-gpus" and len(item["steps"]) >= 2 and item["scope"] == "text"
    assert format_explain([], "en").startswith("No known error text")


def test_cmd_explain_reads_a_file_and_stdin(tmp_path, capsys, monkeypatch):
    path = tmp_path / "error.txt"
    path.write_bytes("Failed to initialize NVML: Driver/library version mismatch\r\n".encode("utf-16"))
    assert cmd_explain(str(path), "en", as_json=True) == ExitStatus.SUCCESS
    doc = json.loads(capsys.readouterr().out)
    assert doc["findings"][0]["action"]["kind"] == "restart"

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO("hello world\n".encode("utf-8"))))
    assert cmd_explain("-", "en") == ExitStatus.NOTHING_RECOGNISED
    assert "No known error text" in capsys.readouterr().out

    assert cmd_explain(str(tmp_path / "missing.txt"), "en") == ExitStatus.BAD_INPUT
    assert "missing.txt" in capsys.readouterr().err
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    assert cmd_explain(str(empty), "en") == ExitStatus.BAD_INPUT
