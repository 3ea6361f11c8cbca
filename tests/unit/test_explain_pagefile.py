"""WinError 1455 in context: the Windows page file's size, as the context script reports it
(GlobalMemoryStatusEx: the commit limit is the RAM plus the page files), decides the advice.

The script's Windows branch cannot run on this machine; its answer is the one ``GSW-CONTEXT`` line
it prints, read here as the wizard reads it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from wizard.core.base.user_input import decode_user_bytes
from wizard.core.diagnosis.context import CONTEXT_SCRIPT, apply_context, parse_context
from wizard.core.diagnosis.explain import recognise

ERRORS = Path(__file__).resolve().parents[1] / "data" / "errors"
GIB = 1024 ** 3
EXE = "C:\\Users\\student\\venv\\Scripts\\python.exe"


def _answer(ram_gib: float, pagefile_gib: float, free_gib: float = 1.0) -> str:
    doc = {"executable": EXE, "python": "3.11.9", "platform": "win32", "acp": 949,
           "packages": {"torch": "2.5.1+cu121"},
           "memory": {"ram": int(ram_gib * GIB), "commit_limit": int((ram_gib + pagefile_gib) * GIB),
                      "commit_free": int(free_gib * GIB)}}
    return "GSW-CONTEXT " + json.dumps(doc)


def _pagefile_finding(answer: str):
    text = decode_user_bytes((ERRORS / "b4-win1455-yolov7-detectron-ops.txt").read_bytes())
    (found,) = [f for f in apply_context(recognise(text), parse_context(answer, EXE))
                if f.id == "windows-pagefile-too-small"]
    return found


def test_the_context_script_asks_windows_for_the_commit_limit():
    assert "GlobalMemoryStatusEx" in CONTEXT_SCRIPT and '"commit_limit"' in CONTEXT_SCRIPT
    ctx = parse_context(_answer(16, 4, 2), EXE)
    assert ctx.ram == 16 * GIB and ctx.commit_limit == 20 * GIB and ctx.commit_free == 2 * GIB
    assert ctx.pagefile == 4 * GIB
    # a Linux answer (no memory) and a malformed one leave it unknown
    linux = parse_context('GSW-CONTEXT {"executable": "/x/python", "platform": "linux", "packages": {}}', "/x/python")
    assert linux.pagefile is None
    bad = parse_context(_answer(16, 4).replace('"ram": ', '"ram": -'), EXE)
    assert bad.ram is None and bad.pagefile is None


def test_a_small_page_file_is_the_cause_to_fix():
    f = _pagefile_finding(_answer(16, 2.5))
    assert f.variant == "ctx-pagefile-small" and f.params["pagefile"] == "2.5" and f.params["limit"] == "18.5"
    assert "RAM 16 GB; page file about 2.5 GB" in f.evidence
    assert "2.5 GB" in f.cause("en") and "32 GB" in f.fix("en")
    assert "2.5GB" in f.cause("ko") and "시스템이 관리하는 크기" in f.fix("ko")


def test_a_page_file_that_is_off_is_turned_on():
    f = _pagefile_finding(_answer(8, 0))
    assert f.variant == "ctx-pagefile-off"
    assert "off" in f.cause("en") and "Automatically manage" in f.fix("en")
    assert "꺼져" in f.cause("ko")


def test_a_large_page_file_points_at_the_workers_not_at_a_bigger_page_file():
    f = _pagefile_finding(_answer(32, 48))
    assert f.variant == "ctx-pagefile-large" and f.params["pagefile"] == "48"
    assert "num_workers" in f.fix("en") and "not the first thing" in f.fix("en")
    assert "num_workers" in f.fix("ko")


def test_without_windows_memory_the_finding_is_unchanged():
    text = decode_user_bytes((ERRORS / "b4-win1455-yolov7-detectron-ops.txt").read_bytes())
    plain = recognise(text)
    linux = parse_context('GSW-CONTEXT {"executable": "/x/python", "platform": "linux", "packages": {}}', "/x/python")
    assert [(f.id, f.variant, f.evidence) for f in apply_context(plain, linux)] == \
        [(f.id, f.variant, f.evidence) for f in plain]


def test_every_variant_has_both_languages_and_no_placeholder_left():
    for ram, pagefile in ((8, 0), (16, 2.5), (32, 48)):
        f = _pagefile_finding(_answer(ram, pagefile))
        for lang in ("en", "ko"):
            for text in (f.title(lang), f.cause(lang), f.fix(lang)):
                assert text and not re.search(r"\{\w+\}", text), (f.variant, lang, text)
