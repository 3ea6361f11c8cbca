"""The one process runner (wizard.core.base.process) with real child processes.

Every child is this interpreter (``sys.executable -c ...``), so the tests need nothing but
Python and psutil. Waits are on conditions (a line arrived, a pid is gone), never on a fixed
sleep.
"""

from __future__ import annotations

import os
import sys
import threading
import time

import psutil
import pytest

from wizard.core.base.process import (
    LineDecoder,
    ProcessSpec,
    child_env,
    is_cancelled,
    kill_tree,
    parse_json_line,
    run_process,
)

PY = sys.executable
# A child that starts a grandchild, prints the grandchild's pid, then works forever.
TREE = ("import subprocess, sys, time; "
        "c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)']); "
        "print(c.pid, flush=True); time.sleep(120)")


def _gone(pid: int, seconds: float = 10.0) -> bool:
    """True once ``pid`` no longer runs (gone or a zombie waiting for its parent)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.02)
    return False


# ------------------------------------------------------------------------------ decoding
def test_korean_split_across_reads_decodes_whole():
    """A child writes Hangul one byte per write; every character is split across reads."""
    code = ("import sys, time\n"
            "data = '설치 완료: 가상 환경 김철수\\n'.encode('utf-8')\n"
            "for i in range(len(data)):\n"
            "    sys.stdout.buffer.write(data[i:i + 1]); sys.stdout.buffer.flush(); time.sleep(0.001)\n")
    lines: list[str] = []
    result = run_process(ProcessSpec([PY, "-c", code], timeout_s=60), lines.append)
    assert result.ok, result
    assert lines == ["설치 완료: 가상 환경 김철수"]
    assert result.stdout == "설치 완료: 가상 환경 김철수\n"


def test_line_decoder_any_chunking_and_cp949_fallback():
    data = "첫 줄\r\n둘째 줄\n".encode("utf-8") + "윈도우 메시지\r\n".encode("cp949") + b"50%\r60%"
    for size in (1, 2, 3, 5, 7, 64):
        d = LineDecoder(fallback="utf-8")
        lines: list[str] = []
        for i in range(0, len(data), size):
            lines += d.feed(data[i:i + size])
        lines += d.flush()
        assert lines == ["첫 줄", "둘째 줄", "윈도우 메시지", "50%", "60%"], size
    strict = LineDecoder(utf8_only=True)
    (line,) = strict.feed("한글".encode("cp949") + b"\n")
    assert "\ufffd" in line and "한" not in line  # the protocol is UTF-8: no guessing


def test_line_decoder_drops_an_overlong_line_and_resumes():
    d = LineDecoder(max_line=10, drop_overlong=True)
    assert d.feed(b"x" * 20) == []
    assert d.feed(b"yyy\nok\n") == ["ok"]
    assert d.dropped == ["x" * 20]


def test_parse_json_line():
    assert parse_json_line(' {"event": "result", "n": 1} ') == {"event": "result", "n": 1}
    assert parse_json_line("[1, 2]") is None
    assert parse_json_line('{"event": "res') is None
    assert parse_json_line("a stray print") is None


# ------------------------------------------------------------------------------ streaming
def test_lines_stream_in_order_while_the_child_runs(tmp_path):
    """Each line arrives while the child runs: it writes the next only after our callback
    has seen this one (and said so with a marker file)."""
    code = ("import sys, os, time\n"
            "for i in range(5):\n"
            "    print('line', i, flush=True)\n"
            "    while not os.path.exists(os.path.join(sys.argv[1], str(i))): time.sleep(0.01)\n")
    seen: list[str] = []

    def on_line(line: str) -> None:
        seen.append(line)
        (tmp_path / str(len(seen) - 1)).touch()  # let the child write the next line

    result = run_process(ProcessSpec([PY, "-c", code, str(tmp_path)], timeout_s=60), on_line)
    assert result.ok and seen == [f"line {i}" for i in range(5)]


def test_stdout_and_stderr_separate_or_merged():
    code = "import sys; print('out', flush=True); sys.stderr.write('오류\\n'); sys.stderr.flush(); print('end')"
    out: list[str] = []
    err: list[str] = []
    result = run_process(ProcessSpec([PY, "-c", code], timeout_s=60), out.append, err.append)
    assert out == ["out", "end"] and err == ["오류"] and result.stderr == "오류\n"
    merged: list[str] = []
    result = run_process(ProcessSpec([PY, "-c", code], timeout_s=60, merge_stderr=True), merged.append)
    assert sorted(merged) == sorted(["out", "오류", "end"]) and result.ok


def test_utf8_is_forced_and_the_environment_is_passed():
    code = "import os, sys; print(sys.flags.utf8_mode, os.environ['PYTHONIOENCODING'], os.environ['GSW_X'])"
    env = child_env(extra={"GSW_X": "값"})
    env.pop("PYTHONUTF8", None)
    result = run_process(ProcessSpec([PY, "-c", code], env=env, timeout_s=60))
    assert result.stdout.split() == ["1", "utf-8", "값"]


def test_cwd_is_honoured(tmp_path):
    folder = tmp_path / "내 폴더 with space"
    folder.mkdir()
    result = run_process(ProcessSpec([PY, "-c", "import os; print(os.getcwd())"], cwd=str(folder), timeout_s=60))
    assert os.path.samefile(result.stdout.strip(), folder)


# ------------------------------------------------------------------------------ endings
def test_exit_codes_come_back():
    assert run_process(ProcessSpec([PY, "-c", "pass"], timeout_s=60)).returncode == 0
    failed = run_process(ProcessSpec([PY, "-c", "raise SystemExit(3)"], timeout_s=60))
    assert failed.returncode == 3 and not failed.ok and not failed.timed_out


def test_a_missing_executable_is_a_clear_error():
    result = run_process(ProcessSpec(["definitely-not-a-program-gsw", "--version"], timeout_s=5))
    assert result.not_found and result.error == "not found"
    assert result.returncode is None and not result.ok
    assert result.argv == ["definitely-not-a-program-gsw", "--version"]


def test_timeout_kills_the_child_and_its_grandchild():
    pids: list[int] = []
    start = time.monotonic()
    result = run_process(ProcessSpec([PY, "-c", TREE], timeout_s=1.5), lambda line: pids.append(int(line)))
    assert result.timed_out and result.returncode is None and not result.ok
    assert time.monotonic() - start < 15
    assert pids and _gone(pids[0]), "the grandchild survived the timeout"


def test_cancel_token_stops_the_tree_promptly():
    cancel = threading.Event()
    pids: list[int] = []

    def on_line(line: str) -> None:
        pids.append(int(line))
        cancel.set()

    start = time.monotonic()
    result = run_process(ProcessSpec([PY, "-c", TREE], timeout_s=60), on_line, cancel=cancel)
    assert result.cancelled and result.returncode is None and not result.ok
    assert time.monotonic() - start < 15
    assert _gone(pids[0])


def test_cancel_from_another_thread_and_a_callable_token():
    cancel = threading.Event()
    started = threading.Event()
    threading.Thread(target=lambda: started.wait(30) and cancel.set(), daemon=True).start()
    result = run_process(ProcessSpec([PY, "-c", "print('up', flush=True); import time; time.sleep(120)"],
                                     timeout_s=60), lambda _line: started.set(), cancel=cancel)
    assert result.cancelled
    assert is_cancelled(lambda: True) and not is_cancelled(None)
    result = run_process(ProcessSpec([PY, "-c", "import time; time.sleep(120)"], timeout_s=60), cancel=lambda: True)
    assert result.cancelled


def test_an_exception_in_a_callback_stops_the_child_and_propagates():
    pids: list[int] = []

    def on_line(line: str) -> None:
        pids.append(int(line))
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_process(ProcessSpec([PY, "-c", TREE], timeout_s=60), on_line)
    assert _gone(pids[0])


def test_kill_tree_by_pid_for_a_process_held_elsewhere():
    import subprocess

    proc = subprocess.Popen([PY, "-c", TREE], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    grandchild = int(proc.stdout.readline())
    kill_tree(proc.pid, grace_s=1.0)
    assert proc.wait(timeout=10) is not None
    assert _gone(grandchild)
    kill_tree(proc.pid)  # already gone: not an error
    proc.stdout.close()
