"""Unit tests that touch processes, paths, encodings and files, run by the Windows CPython in wine.

They run in the Hangul/cp949 prefix, so a test's temporary folders are under ``C:\\users\\김학생``
and the ANSI code page is 949, as on a Korean student's PC; a test that cannot run on Windows
says why in its skip reason (pytest's summary, kept in the log). pytest and hypothesis go to a
folder of their own (``pip install --target``), so the freezing Python stays as it was.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from wine import Wine, windows_path

TEST_MODULES = [
    # processes, console flags, code pages
    "tests/unit/test_windows_console_flags.py",
    "tests/unit/test_process.py",
    "tests/unit/test_process_steps.py",
    "tests/unit/test_cli_json_output.py",  # --json on a cp949 pipe: a real Windows child
    # paths, files, locks, the ASCII-root rule, deletion
    "tests/unit/test_host.py",
    "tests/unit/test_files_and_schema.py",
    "tests/unit/test_ascii_root.py",
    "tests/unit/test_user_input.py",  # PowerShell's UTF-16, cp949 and BOMs, read from real files
    "tests/unit/test_deletion_rule.py",
    "tests/unit/test_storage_core.py",
    "tests/unit/test_history.py",
    "tests/unit/test_envs.py",  # Windows venv layouts, the path-length preflight
    "tests/unit/test_kernels.py",  # kernel.json folders, Hangul kernel paths
    "tests/unit/test_privacy.py",
    "tests/unit/test_resources.py",
    "tests/unit/test_i18n.py",
    # platform detection, the registry and driver-model readers
    "tests/unit/test_system.py",
    "tests/unit/test_adapters.py",
    "tests/unit/test_pythons.py",
    "tests/unit/test_nvidia_smi.py",
    "tests/unit/test_nvml.py",
]
# Tests left out under Windows, each with why (pytest --deselect; the reasons go to the JSON).
DESELECTED = {
    "tests/unit/test_storage_core.py::test_walk_counts_files_once_follows_no_link_and_survives_a_loop":
        "symbolic links: Windows needs SeCreateSymbolicLinkPrivilege to make them, and those wine makes "
        "do not read back as links",
    "tests/unit/test_storage_core.py::test_documented_cache_defaults_for_each_os":
        "compares a recorded macOS/Linux host's POSIX paths, which the code joins with the running "
        "machine's rules (os.path): backslashes on Windows",
    "tests/unit/test_storage_core.py::test_a_tool_that_does_not_answer_falls_back_to_the_default":
        "uv's answer '/answered/by/uv' is a POSIX path: Windows' Python 3.13 does not call it absolute",
    "tests/unit/test_envs.py::test_own_runtime_is_refused_unless_confirmed":
        "under %TEMP% the Windows path-length preflight (MAX_PATH for torch's deepest file) also "
        "refuses the test's folder, rightly; the test expects the one check alone",
    "tests/unit/test_envs.py::test_existing_targets_lists_venvs_conda_envs_and_the_wizard_folder":
        "lists real folders with os_name='linux': on Windows the POSIX join mixes separators",
}
REQUIREMENTS = ["pytest>=8", "hypothesis", "colorama"]


def prepare(cache: Path, runner: Wine, python: str) -> Path:
    target = cache / "pytest-win"
    if (target / ".complete").exists():
        return target
    wheels = cache / "downloads" / "pytest-wheels"
    res = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--only-binary=:all:", "--platform",
                          "win_amd64", "--python-version", "3.13", "--implementation", "cp", "-d", str(wheels),
                          *REQUIREMENTS], capture_output=True, text=True, timeout=900, check=False)
    if res.returncode != 0:
        raise RuntimeError(f"pip download pytest (win_amd64) failed: {res.stderr[-1500:]}")
    res2 = runner.run([python, "-m", "pip", "install", "-q", "--no-index", "--find-links", windows_path(wheels),
                       "--target", windows_path(target), *REQUIREMENTS], timeout=900)
    if res2.returncode != 0:
        raise RuntimeError(f"pip install --target under wine failed: {res2.stderr.decode(errors='replace')[-1500:]}")
    (target / ".complete").write_text("\n".join(REQUIREMENTS) + "\n", encoding="utf-8")
    return target


def run(runner: Wine, python: str, target: Path, repo: Path, out: Path) -> tuple[bool, str, dict]:
    deselect = [arg for nodeid in DESELECTED for arg in ("--deselect", nodeid)]
    res = runner.run([python, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", *deselect, *TEST_MODULES],
                     extra={"PYTHONPATH": windows_path(target), "QT_QPA_PLATFORM": "offscreen"},
                     timeout=900, cwd=repo)
    text = res.stdout.decode("utf-8", errors="replace") + res.stderr.decode("utf-8", errors="replace")
    (out / "windows-unit-tests.log").write_text(text, encoding="utf-8")
    counts = {k: int(v) for v, k in re.findall(r"(\d+) (passed|failed|skipped|error|errors)", text.splitlines()[-1]
                                               if text.strip() else "")}
    facts = {"modules": TEST_MODULES, "counts": counts, "deselected": DESELECTED, "log": "windows-unit-tests.log"}
    ok = res.returncode == 0 and counts.get("passed", 0) > 0
    return ok, "" if ok else f"pytest exited {res.returncode}: {text.strip().splitlines()[-1:]}", facts
