"""Hypothesis strategies that mutate real inputs the way files get damaged and hand-edited.

Text: a seed with a few edits (a slice deleted, duplicated or replaced, a line cut, a token of the
format inserted, a number made huge or negative, two seeds spliced), then saved the ways a student's
machine saves text (UTF-8, a UTF-8 BOM, PowerShell 5's UTF-16 LE with a BOM, Korean Windows' cp949),
sometimes with raw bytes flipped. JSON: a real document with values replaced by JSON of another type,
keys dropped, containers nested deep, then serialised (and sometimes damaged as text).
"""

from __future__ import annotations

import codecs
import copy
import json
from typing import Any, Callable, Sequence

from hypothesis import strategies as st

# Pieces the readers look for, so that edits stay near the branches that matter.
TOKENS = [
    "|", "+", "-", "=", " ", "\n", "\r\n", "\t", ":", " : ", ",", ", ", "/", "%", "MiB", "W", "C", "N/A", "[N/A]",
    "[Not Supported]", "NVIDIA-SMI 550.54.15", "Driver Version:", "CUDA Version:", "12.4", "0", "-1", "99999999999",
    "1e308", "nan", "00000000:01:00.0", "GPU-", "Off", "On", "WDDM", "P8", "Processes:", "MIG devices:", "GPU",
    "==============NVSMI LOG==============", "Product Name", "FB Memory Usage", "Total", "<nvidia_smi_log>",
    "</nvidia_smi_log>", "<gpu id=\"", "\">", "<fb_memory_usage><total>", "</total>", "<!DOCTYPE x [<!ENTITY a \"aa\">]>",
    "&a;", "&amp;", "<", ">", "]]>", "<![CDATA[", "index, name, memory.total [MiB]", "\ufeff", "```", "\x1b[31m",
    "Failed to initialize NVML: ", "Traceback (most recent call last):", "RuntimeError: CUDA error", "\u20a9", "학생",
    "\x00", "\ud7a3", "\u200b", "\\", "\"", "{", "}", "[", "]",
]
ENCODINGS = ("utf-8", "utf-8-sig", "utf-16-bom", "utf-16-le", "cp949")


def _numbers() -> st.SearchStrategy[str]:
    return st.one_of(st.integers().map(str), st.floats(allow_nan=True, allow_infinity=True).map(str),
                     st.sampled_from(["-0", "1e400", "0x10", "١٢", "9" * 400]))


@st.composite
def mutated_text(draw: Callable[..., Any], seeds: Sequence[str], max_edits: int = 6) -> str:
    """One of ``seeds`` with up to ``max_edits`` edits."""
    text = draw(st.sampled_from(list(seeds)))
    for _ in range(draw(st.integers(0, max_edits))):
        n = len(text)
        i = draw(st.integers(0, n))
        j = draw(st.integers(i, min(n, i + draw(st.sampled_from([1, 8, 64, 512, 4096])))))
        kind = draw(st.sampled_from(["delete", "duplicate", "insert", "replace", "truncate", "number", "lines",
                                     "splice", "repeat"]))
        if kind == "delete":
            text = text[:i] + text[j:]
        elif kind == "duplicate":
            text = text[:j] + text[i:j] + text[j:]
        elif kind == "insert":
            piece = draw(st.one_of(st.sampled_from(TOKENS), st.text(max_size=20)))
            text = text[:i] + piece + text[i:]
        elif kind == "replace":
            text = text[:i] + draw(st.text(max_size=12)) + text[j:]
        elif kind == "truncate":
            text = text[:i]
        elif kind == "number":
            text = text[:i] + draw(_numbers()) + text[j:]
        elif kind == "lines":
            lines = text.split("\n")
            if len(lines) > 1:
                a = draw(st.integers(0, len(lines) - 1))
                b = draw(st.integers(0, len(lines) - 1))
                lines[a], lines[b] = lines[b], lines[a]
                if draw(st.booleans()):
                    del lines[a]
            text = "\n".join(lines)
        elif kind == "splice":
            other = draw(st.sampled_from(list(seeds)))
            k = draw(st.integers(0, len(other)))
            text = text[:i] + other[k:]
        else:  # a piece repeated: a log of many samples, a row pasted many times
            text = text[:j] + text[i:j] * draw(st.integers(2, 40)) + text[j:]
    return text


@st.composite
def saved_bytes(draw: Callable[..., Any], texts: st.SearchStrategy[str]) -> bytes:
    """A text as a file a student's machine saved, sometimes with a few raw bytes changed."""
    text = draw(texts)
    encoding = draw(st.sampled_from(ENCODINGS))
    if encoding == "utf-16-bom":
        data = codecs.BOM_UTF16_LE + text.replace("\n", "\r\n").encode("utf-16-le", errors="surrogatepass")
    elif encoding == "cp949":
        data = text.encode("cp949", errors="replace")
    else:
        data = text.encode(encoding, errors="surrogatepass")
    if data and draw(st.integers(0, 3)) == 0:
        raw = bytearray(data)
        for _ in range(draw(st.integers(1, 8))):
            raw[draw(st.integers(0, len(raw) - 1))] = draw(st.integers(0, 255))
        data = bytes(raw)
    return data


JSON_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
                         st.text(max_size=20), st.sampled_from(["", "ok", "8.6", "12.4", "GPU-1", "-1", "nan"]))
ANY_JSON = st.recursive(JSON_SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                              st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                        max_leaves=12)


def _paths(doc: Any, prefix: tuple = (), max_depth: int = 40) -> list[tuple]:
    """Every path to a value inside ``doc`` (keys and list indexes), no deeper than ``max_depth``."""
    found = [prefix]
    if len(prefix) >= max_depth:
        return found
    if isinstance(doc, dict):
        for k, v in doc.items():
            found += _paths(v, prefix + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            found += _paths(v, prefix + (i,))
    return found


def _set(doc: Any, path: tuple, value: Any, delete: bool = False) -> Any:
    if not path:
        return value
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    if delete:
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    return doc


@st.composite
def mutated_json(draw: Callable[..., Any], seeds: Sequence[Any], max_edits: int = 5) -> Any:
    """One of ``seeds`` (parsed JSON) with values replaced by other types, keys dropped, deep nests."""
    doc = copy.deepcopy(draw(st.sampled_from(list(seeds))))
    for _ in range(draw(st.integers(1, max_edits))):
        paths = _paths(doc)
        path = draw(st.sampled_from(paths))
        kind = draw(st.sampled_from(["replace", "replace", "delete", "wrap", "deep", "copy", "same", "same", "same"]))
        if kind == "same":  # a value of the right type but a surprising one: the checks at the boundary pass it
            doc = _set(doc, path, draw(_same_type(_get(doc, path))))
        elif kind == "delete" and path:
            doc = _set(doc, path, None, delete=True)
        elif kind == "wrap":
            old = _get(doc, path)
            doc = _set(doc, path, draw(st.sampled_from([[old], {"x": old}, [old, old]])))
        elif kind == "deep":
            depth = draw(st.sampled_from([5, 60, 98, 99, 100, 101, 150]))  # deeper: json_text's prefix
            nest: Any = draw(JSON_SCALARS)
            for _k in range(depth):
                nest = [nest] if draw(st.booleans()) else {"a": nest}
            doc = _set(doc, path, nest)
        elif kind == "copy":  # a value from elsewhere in the document: right type somewhere, wrong here
            doc = _set(doc, path, copy.deepcopy(_get(doc, draw(st.sampled_from(paths)))))
        else:
            doc = _set(doc, path, draw(ANY_JSON))
    return doc


def _same_type(value: Any) -> st.SearchStrategy[Any]:
    """Another value of ``value``'s JSON type: negative, huge, empty, odd text, a list reordered."""
    if isinstance(value, bool):
        return st.booleans()
    if isinstance(value, int):
        return st.one_of(st.integers(), st.sampled_from([0, -1, 2**63, -(2**63), 10**30]))
    if isinstance(value, float):
        return st.one_of(st.floats(allow_nan=False, allow_infinity=False), st.sampled_from([0.0, -1.0, 1e308]))
    if isinstance(value, str):
        return st.one_of(st.text(max_size=30), st.sampled_from(["", " ", "0", "-1", "12.x", "3.999.1", "N/A", "\x00",
                                                                 "a" * 5000, "cu999", "+cpu", "GPU-", "../../etc"]))
    if isinstance(value, list):
        return st.one_of(st.just([]), st.permutations(value) if value else st.just([]),
                         st.just(value * 3), st.just(value[:1]))
    if isinstance(value, dict):
        return st.one_of(st.just({}), st.just({k: value[k] for k in list(value)[: len(value) // 2]}))
    return st.none()


def _get(doc: Any, path: tuple) -> Any:
    for key in path:
        doc = doc[key]
    return doc


@st.composite
def json_text(draw: Callable[..., Any], docs: st.SearchStrategy[Any]) -> str:
    """A document serialised, now and then damaged as text (cut, an edit, a very deep prefix)."""
    try:
        text = json.dumps(draw(docs), ensure_ascii=draw(st.booleans()))
    except (ValueError, RecursionError):  # a nest deeper than json.dumps goes: the raw brackets instead
        text = "[" * 5000 + "]" * 5000
    choice = draw(st.integers(0, 7))
    if choice == 0:
        text = draw(mutated_text([text], max_edits=3))
    elif choice == 1:
        n = draw(st.sampled_from([101, 1000, 100_000]))
        text = "[" * n + text + "]" * n
    elif choice == 2:  # deep, and json.loads would go as deep as the interpreter lets it
        n = draw(st.sampled_from([900, 2000, 5000]))
        text = '{"a":' * n + text + "}" * n
    return text


__all__ = ["TOKENS", "ENCODINGS", "mutated_text", "saved_bytes", "mutated_json", "json_text", "ANY_JSON"]
