"""ProbeStream (the JSON-lines parser both front ends use) and run_probe (the CLI's runner).

The runner tests use small stand-in probe scripts run by this interpreter, so they check the
process handling (streaming order, timeout, cancel, process tree, crash, stderr tail) in a
second or two each, without torch.
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
import threading
import time
from pathlib import Path

import psutil
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.recorded_host import RecordedHost
from wizard.core.base.host import CommandResult
from wizard.core.verify.probe_runner import (
    PROTOCOL,
    ProbeOutcome,
    ProbeStream,
    kill_pid_tree,
    outcome_from_output,
    outcome_from_stream,
    probe_command,
    probe_environment,
    resolve_script,
    run_probe,
    run_probe_with_host,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "probe"


def _line(obj) -> str:
    return json.dumps(obj, ensure_ascii=False) + "\n"


EVENTS = [
    {"event": "progress", "probe": "verify", "step": "start", "protocol": 1},
    {"event": "result", "type": "facts", "section": "python", "data": {"executable": "C:\\Users\\김철수\\env\\python.exe"}},
    {"event": "result", "type": "check", "id": "cpu.matmul", "status": "pass", "evidence": {"rel_error": 1e-7}},
    {"event": "error", "id": "torch-missing", "message": "No module named 'torch'"},
    {"event": "result", "type": "done", "duration_s": 1.0},
]


# ------------------------------------------------------------------------------ ProbeStream
def test_whole_text_in_one_chunk():
    s = ProbeStream()
    out = s.feed("".join(_line(e) for e in EVENTS).encode("utf-8"))
    assert out == EVENTS
    assert s.close() == []
    assert s.garbage_count == 0 and s.truncated is None


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=40), min_size=1, max_size=200))
def test_any_chunking_gives_the_same_events(sizes):
    """Bytes split anywhere, including inside a UTF-8 sequence of a Hangul path."""
    data = "".join(_line(e) for e in EVENTS).encode("utf-8")
    chunks, pos, i = [], 0, 0
    while pos < len(data):
        size = sizes[i % len(sizes)]
        chunks.append(data[pos:pos + size])
        pos += size
        i += 1
    s = ProbeStream()
    assert s.feed_all(chunks) == EVENTS
    assert s.garbage_count == 0


def test_split_multibyte_character_is_not_replaced():
    s = ProbeStream()
    raw = _line({"event": "result", "type": "facts", "section": "x", "data": "김철수"}).encode("utf-8")
    cut = raw.index("김".encode("utf-8")) + 1  # inside the 3-byte sequence
    assert s.feed(raw[:cut]) == []
    (event,) = s.feed(raw[cut:])
    assert event["data"] == "김철수"


def test_garbage_lines_are_kept_aside_not_fatal():
    s = ProbeStream()
    text = ("Warning: some library printed this\n"
            + _line(EVENTS[0])
            + "{not json}\n"
            + "[1, 2, 3]\n"
            + '{"no_event_key": 1}\n'
            + '{"event": "bogus"}\n'
            + "\n   \n"
            + _line(EVENTS[2]))
    out = s.feed(text) + s.close()
    assert out == [EVENTS[0], EVENTS[2]]
    assert s.garbage_count == 5
    assert "Warning: some library printed this" in s.garbage


def test_invalid_utf8_bytes_do_not_stop_the_stream():
    s = ProbeStream()
    out = s.feed("한글".encode("cp949") + b"\n" + _line(EVENTS[0]).encode("utf-8"))
    assert out == [EVENTS[0]]
    assert s.garbage_count == 1


def test_crlf_line_ends():
    s = ProbeStream()
    out = s.feed(_line(EVENTS[0]).replace("\n", "\r\n")) + s.close()
    assert out == [EVENTS[0]]


def test_complete_last_line_without_newline_is_accepted():
    s = ProbeStream()
    s.feed(_line(EVENTS[0]) + json.dumps(EVENTS[-1]))
    assert s.close() == [EVENTS[-1]]
    assert s.truncated is None


def test_truncated_last_line_is_reported():
    s = ProbeStream()
    s.feed(_line(EVENTS[0]) + '{"event": "result", "type": "che')
    assert s.close() == []
    assert s.truncated == '{"event": "result", "type": "che'
    assert s.events == [EVENTS[0]]


def test_overlong_line_is_dropped_and_parsing_resumes():
    s = ProbeStream(max_line_chars=100)
    out = s.feed("x" * 60) + s.feed("y" * 60) + s.feed("z" * 10 + "\n" + _line(EVENTS[0]))
    assert out == [EVENTS[0]]
    assert s.garbage_count == 1 and "over-long" in s.garbage[0]


def test_feed_after_close_is_an_error():
    s = ProbeStream()
    s.close()
    with pytest.raises(ValueError):
        s.feed(b"{}")


def test_recorded_probe_outputs_parse_cleanly():
    for path in sorted(DATA.glob("*.jsonl")):
        s = ProbeStream()
        events = s.feed(path.read_bytes()) + s.close()
        assert events, path.name
        assert s.garbage_count == 0 and s.truncated is None, path.name
        assert events[-1]["type"] == "done", path.name
        assert [e["seq"] for e in events] == list(range(len(events))), path.name


# ------------------------------------------------------------------------------ ProbeOutcome
def _outcome(events, **kw) -> ProbeOutcome:
    return ProbeOutcome(argv=["python"], events=events, **kw)


def test_outcome_failure_kinds():
    done = [EVENTS[0], EVENTS[-1]]
    assert _outcome(done, returncode=0).failure_kind() is None
    assert _outcome(done, returncode=0).ok
    assert _outcome([EVENTS[0]], returncode=-9).failure_kind() == "crashed"
    assert _outcome(done, returncode=1).failure_kind() == "failed"
    assert _outcome([], error="not found").failure_kind() == "not_started"
    assert _outcome([EVENTS[0]], timed_out=True).failure_kind() == "timeout"
    assert _outcome([EVENTS[0]], cancelled=True).failure_kind() == "cancelled"
    newer = [{"event": "progress", "step": "start", "protocol": PROTOCOL + 1}, EVENTS[-1]]
    assert _outcome(newer, returncode=0).failure_kind() == "protocol"


def test_outcome_from_output_and_host():
    text = "".join(_line(e) for e in EVENTS)
    out = outcome_from_output(["py"], text, "some stderr", 0)
    assert out.events == EVENTS and out.completed and out.ok
    assert out.errors == [EVENTS[3]]

    host = RecordedHost(commands={"python -u *": CommandResult(["x"], 0, stdout=text, stderr="")})
    res = run_probe_with_host(host, "/env/bin/python", "verify.py", ["--skip", "collect_env"])
    assert res.completed and res.events == EVENTS
    assert host.calls[0][1] == "-u" and host.calls[0][2].endswith("verify.py")
    missing = run_probe_with_host(RecordedHost(), "/nope/python", "verify.py")
    assert missing.failure_kind() == "not_started"


def test_probe_command_and_environment(monkeypatch):
    argv = probe_command("/env/bin/python", "bench", ["--suite", "quick"])
    assert argv[:2] == ["/env/bin/python", "-u"]
    assert Path(argv[2]).name == "bench.py" and Path(argv[2]).is_file()
    assert argv[3:] == ["--suite", "quick"]
    assert resolve_script("verify.py").is_file()
    monkeypatch.setenv("PYTHONPATH", "/wizard/bundle/lib")
    monkeypatch.setenv("PYTHONHOME", "/wizard/bundle")
    env = probe_environment()
    assert env["PYTHONUTF8"] == "1" and env["PYTHONIOENCODING"] == "utf-8"
    assert "PYTHONPATH" not in env and "PYTHONHOME" not in env


# ------------------------------------------------------------------------------ run_probe
def _script(tmp_path: Path, body: str, name: str = "fake probe 김.py") -> Path:
    path = tmp_path / name
    path.write_text("import json, os, sys, time\n"
                    "def emit(**o):\n"
                    "    sys.stdout.write(json.dumps(o) + '\\n'); sys.stdout.flush()\n"
                    + textwrap.dedent(body), encoding="utf-8")
    return path


def test_run_probe_streams_events_in_order(tmp_path):
    script = _script(tmp_path, """
        emit(event="progress", step="start", protocol=1)
        print("a stray line", flush=True)
        sys.stderr.write("a warning\\n")
        for i in range(3):
            emit(event="result", type="check", id="c%d" % i, status="pass", path="C:\\\\Users\\\\김철수")
        emit(event="result", type="done")
    """)
    seen = []
    out = run_probe(sys.executable, script, timeout=30, on_event=seen.append)
    assert out.ok, out.to_json()
    assert [e.get("id") for e in seen] == [None, "c0", "c1", "c2", None]
    assert seen == out.events
    assert out.events[1]["path"] == "C:\\Users\\김철수"
    assert out.garbage == ["a stray line"]
    assert "a warning" in out.stderr_tail


def test_run_probe_crash_gives_outcome_not_exception(tmp_path):
    script = _script(tmp_path, """
        emit(event="progress", step="start", protocol=1)
        sys.stdout.write('{"event": "result", "type": "ch'); sys.stdout.flush()
        sys.stderr.write("Fatal Python error: Segmentation fault\\n"); sys.stderr.flush()
        os._exit(139)
    """)
    out = run_probe(sys.executable, script, timeout=30)
    assert out.returncode == 139
    assert out.failure_kind() == "crashed"
    assert out.truncated_line == '{"event": "result", "type": "ch'
    assert "Segmentation fault" in out.stderr_tail
    assert len(out.events) == 1


def test_run_probe_missing_interpreter(tmp_path):
    out = run_probe(tmp_path / "no such python", "verify.py", timeout=5)
    assert out.failure_kind() == "not_started" and out.error == "not found"


def _tree_script(tmp_path: Path) -> Path:
    """A probe that starts a child (as collect_env does) and then works forever."""
    return _script(tmp_path, """
        import subprocess
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
        emit(event="progress", step="start", protocol=1, child=child.pid)
        while True:
            emit(event="progress", step="working")
            time.sleep(0.2)
    """)


def _wait_gone(pid: int, seconds: float = 10.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not psutil.pid_exists(pid):
            return True
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.05)
    return False


def test_cancel_kills_the_probe_and_its_children(tmp_path):
    cancel = threading.Event()
    seen = []

    def on_event(e):
        seen.append(e)
        if len(seen) == 3:
            cancel.set()

    start = time.monotonic()
    out = run_probe(sys.executable, _tree_script(tmp_path), timeout=60, on_event=on_event, cancel=cancel)
    assert time.monotonic() - start < 15
    assert out.cancelled and out.failure_kind() == "cancelled"
    assert not out.completed
    child = out.events[0]["child"]
    assert _wait_gone(child), "the probe's child process survived the cancel"


def test_cancel_accepts_a_callable(tmp_path):
    start = time.monotonic()
    out = run_probe(sys.executable, _tree_script(tmp_path), timeout=60,
                    cancel=lambda: time.monotonic() - start > 1.0)
    assert out.cancelled and len(out.events) >= 2


def test_timeout_kills_a_silent_probe(tmp_path):
    script = _script(tmp_path, """
        emit(event="progress", step="start", protocol=1)
        time.sleep(120)
    """)
    start = time.monotonic()
    out = run_probe(sys.executable, script, timeout=1.0)
    assert time.monotonic() - start < 10
    assert out.timed_out and out.failure_kind() == "timeout"
    assert out.events and out.events[0]["step"] == "start"


def test_an_exception_in_on_event_stops_the_probe_and_propagates(tmp_path):
    script = _tree_script(tmp_path)
    holder = {}

    def on_event(e):
        holder.setdefault("child", e.get("child"))
        raise KeyboardInterrupt  # the user pressed Ctrl+C in the CLI

    with pytest.raises(KeyboardInterrupt):
        run_probe(sys.executable, script, timeout=60, on_event=on_event)
    assert _wait_gone(holder["child"])


@pytest.mark.skipif(os.name == "nt", reason="signals")
def test_killed_from_outside_reads_as_crashed(tmp_path):
    script = _script(tmp_path, """
        emit(event="progress", step="start", protocol=1, pid=os.getpid())
        time.sleep(60)
    """)

    def on_event(e):
        os.kill(e["pid"], 9)

    out = run_probe(sys.executable, script, timeout=30, on_event=on_event)
    assert out.returncode == -9
    assert out.failure_kind() == "crashed"


def test_outcome_from_a_stream_fed_by_the_gui():
    """The QProcess path: chunks into a ProbeStream, then the exit status."""
    stream = ProbeStream()
    data = "".join(_line(e) for e in EVENTS[:-1]).encode("utf-8") + b'{"event": "res'
    for i in range(0, len(data), 7):
        stream.feed(data[i:i + 7])
    out = outcome_from_stream(["py", "-u", "verify.py"], stream, 1, "Segmentation fault")
    assert out.events == EVENTS[:-1] and out.truncated_line == '{"event": "res'
    assert out.failure_kind() == "crashed" and "Segmentation" in out.stderr_tail
    cancelled = outcome_from_stream(["py"], ProbeStream(), None, cancelled=True)
    assert cancelled.failure_kind() == "cancelled"


def test_kill_pid_tree_for_a_process_held_elsewhere(tmp_path):
    """The GUI's cancel: it has a pid (QProcess.processId()), not a Popen."""
    import subprocess

    proc = subprocess.Popen([sys.executable, "-u", str(_tree_script(tmp_path))], stdout=subprocess.PIPE)
    first = json.loads(proc.stdout.readline())
    kill_pid_tree(proc.pid, grace_s=1.0)
    assert proc.wait(timeout=10) is not None
    assert _wait_gone(first["child"])
    kill_pid_tree(proc.pid)  # already gone: no error
    proc.stdout.close()
