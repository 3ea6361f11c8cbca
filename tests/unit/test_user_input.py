"""The one decoder, the size cap, the JSON depth limit and typed loading (wizard.core.base)."""

from __future__ import annotations

import codecs
import io
import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.reference import SMI_DIR
from wizard.core.base.typed import DocumentTypeError, build
from wizard.core.base.user_input import (
    MAX_JSON_DEPTH,
    UserInputError,
    decode_user_bytes,
    json_depth,
    loads_user_json,
    read_bounded,
    read_user_text,
)

TEXT = "Driver Version: 560.94   CUDA Version: 12.6\nC:\\Users\\김철수> nvidia-smi\n"


@pytest.mark.parametrize("data", [
    codecs.BOM_UTF16_LE + TEXT.encode("utf-16-le"),
    codecs.BOM_UTF16_BE + TEXT.encode("utf-16-be"),
    codecs.BOM_UTF8 + TEXT.encode("utf-8"),
    TEXT.encode("utf-8"),
    TEXT.encode("utf-16-le"),  # no BOM (Out-File -Encoding Unicode through some tools)
    TEXT.encode("utf-16-be"),
    TEXT.encode("cp949"),
], ids=["utf16le-bom", "utf16be-bom", "utf8-bom", "utf8", "utf16le", "utf16be", "cp949"])
def test_every_encoding_windows_writes_decodes_to_the_same_text(data):
    assert decode_user_bytes(data) == TEXT


def test_the_decoder_never_raises_on_garbage():
    for data in (b"\xff", b"\xff\xfe\x00", bytes(range(256)) * 3, b"\x00" * 7):
        assert isinstance(decode_user_bytes(data), str)


def test_there_is_one_decoder_of_user_files():
    """--explain's old decoder is gone: every reader (CLI, Report page, history) imports this one."""
    from pathlib import Path

    from wizard.core.diagnosis import explain

    assert not hasattr(explain, "decode_pasted")
    wizard_dir = Path(__file__).resolve().parents[2] / "wizard"
    homes = [p.relative_to(wizard_dir).as_posix() for p in wizard_dir.rglob("*.py")
             if "def decode_user_bytes" in p.read_text(encoding="utf-8")]
    assert homes == ["core/base/user_input.py"]


def test_read_bounded_stops_at_the_cap_on_an_endless_stream():
    class Endless(io.RawIOBase):
        reads = 0

        def readable(self) -> bool:
            return True

        def read(self, n: int = -1) -> bytes:
            Endless.reads += 1
            assert Endless.reads < 1000  # bounded: the reader must stop on its own
            return b"\0" * (n if n > 0 else 4096)

    data, cut = read_bounded(Endless(), limit=3 * 1024 * 1024 + 1)
    assert cut and len(data) == 3 * 1024 * 1024  # an even count: UTF-16 units stay whole


def test_read_bounded_keeps_a_small_file_whole():
    data, cut = read_bounded(io.BytesIO(b"abc"), limit=10)
    assert (data, cut) == (b"abc", False)


def test_read_user_text_says_when_it_cut(tmp_path):
    path = tmp_path / "big.txt"
    path.write_bytes(b"x" * 5000)
    read = read_user_text(path, limit=1000)
    assert read.truncated and len(read.text) == 1000
    assert "only its first 1 kB were read" in read.cut_notice("big.txt").text("en")
    assert read_user_text(path).cut_notice("big.txt") is None


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_dev_zero_costs_only_the_cap():
    """A device is no document: the reader refuses it unread (issue 24); the bounded read itself still
    takes only the cap from an endless stream."""
    from wizard.core.base.user_files import NotARegularFile
    from wizard.core.base.user_input import read_bounded

    with pytest.raises(NotARegularFile):
        read_user_text("/dev/zero", limit=1024 * 1024)
    with open("/dev/zero", "rb") as fh:
        data, cut = read_bounded(fh, 1024 * 1024)
    assert cut and len(data) <= 1024 * 1024


def test_json_depth_skips_brackets_inside_strings():
    assert json_depth('{"a": "[[[{{{", "b": ["\\"[", {"c": []}]}') == 4
    assert json_depth("[" * 500) == MAX_JSON_DEPTH + 1  # it stops counting past the limit


def test_deep_json_is_refused_with_a_message():
    with pytest.raises(UserInputError) as caught:
        loads_user_json("[" * 100_000 + "]" * 100_000)
    assert "nests more than" in caught.value.text("en") and caught.value.text("ko")


def test_ordinary_json_loads():
    assert loads_user_json(json.dumps({"a": [[1, {"b": None}]]})) == {"a": [[1, {"b": None}]]}


@dataclass
class Inner:
    name: str | None = None
    size: float | None = None


@dataclass
class Outer:
    index: int
    inners: list[Inner] = field(default_factory=list)
    tags: dict[str, str] = field(default_factory=dict)
    flag: bool = False


def test_typed_build_converts_and_ignores_unknown_keys():
    built = build(Outer, {"index": 1, "inners": [{"name": "a", "size": 3, "new_key": 1}], "later": True})
    assert built == Outer(1, [Inner("a", 3.0)])
    assert isinstance(built.inners[0].size, float)


@pytest.mark.parametrize("doc, where", [
    ({"index": "1"}, "index"),
    ({"index": True}, "index"),  # a bool is not a number
    ({"index": 1, "inners": [{"name": 7}]}, "inners[0].name"),
    ({"index": 1, "inners": {"name": "x"}}, "inners"),
    ({"index": 1, "tags": [1, 2]}, "tags"),
    ({"index": 1, "tags": {"a": 1}}, "tags.a"),
    ({"index": 1, "flag": "yes"}, "flag"),
    ({}, "index"),
    ([1], ""),
])
def test_typed_build_names_the_wrong_place(doc, where):
    with pytest.raises(DocumentTypeError) as caught:
        build(Outer, doc)
    assert caught.value.where == where
    assert "should be" in caught.value.text("en") and caught.value.text("ko")


def test_every_real_capture_round_trips_through_the_typed_doctor_reader():
    from wizard.core.machine.detect import detection_from_smi_text
    from wizard.core.machine.doctor import detection_to_json
    from wizard.core.machine.doctor_import import detection_from_doctor_json

    captures = [p for p in sorted(SMI_DIR.glob("*")) if p.name != "README.md"] if SMI_DIR.exists() else []
    if not captures:
        pytest.skip("the reference captures are not beside the repo")
    for path in captures:
        detection = detection_from_smi_text(decode_user_bytes(path.read_bytes()))
        doc = json.loads(json.dumps(detection_to_json(detection, "en")))
        again = detection_from_doctor_json(doc)
        assert [g.name for g in again.nvidia.gpus] == [g.name for g in detection.nvidia.gpus], path.name
