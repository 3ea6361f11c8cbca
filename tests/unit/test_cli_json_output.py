"""``--json`` on a stream that is not UTF-8 (a redirected stdout on Korean Windows is cp949): every
non-ASCII character is a JSON escape, so the bytes are at once valid UTF-8 (RFC 8259) and cp949
(what PowerShell 5.1 decodes a program's output with); on a UTF-8 stream Hangul stays readable."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

DOC = {"home": "C:\\Users\\김학생", "note": "새 환경"}
CODE = ("import json, sys; from wizard.cli.common import print_json, setup_streams; "
        "setup_streams(); print_json(json.loads(sys.argv[1]))")


def _json_bytes(encoding: str) -> bytes:
    env = {**os.environ, "PYTHONIOENCODING": encoding, "PYTHONUTF8": "0"}
    res = subprocess.run([sys.executable, "-c", CODE, json.dumps(DOC)], capture_output=True, env=env,
                         timeout=60, check=False)
    assert res.returncode == 0, res.stderr.decode(errors="replace")
    return res.stdout


@pytest.mark.parametrize("encoding", ["cp949", "cp1252", "ascii"])
def test_json_on_a_legacy_code_page_is_ascii_and_keeps_the_values(encoding):
    raw = _json_bytes(encoding)
    assert raw.isascii(), raw[:200]
    assert json.loads(raw.decode("utf-8")) == DOC  # a UTF-8 reader (cmd's `> file`, Python, jq)
    assert json.loads(raw.decode("cp949")) == DOC  # PowerShell 5.1 on Korean Windows


def test_json_on_utf8_stays_readable():
    raw = _json_bytes("utf-8")
    assert "김학생".encode() in raw
    assert json.loads(raw.decode("utf-8")) == DOC
