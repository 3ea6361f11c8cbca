"""Typed loading: a JSON object becomes a dataclass only when every value has the field's type.

Why: the schema string says which kind of document it is, not that ``nvidia.gpus[0].name`` is
text. A fuzzed ``doctor --json`` with ``"name": 7`` or ``"status": [1]`` used to load, and the
AttributeError came later, far from the file, in whatever code first treated the value as text.
Checking at the boundary against the dataclasses' own annotations (what cattrs or pydantic would
do, without another dependency) means a wrong document is refused in one line naming the place
(``nvidia.gpus[0].name: expected text, found a number``), and everything past the boundary can
trust its types.

Rules: unknown keys are ignored and missing ones take their defaults (any 1.x document still
reads); ``int`` is accepted where ``float`` is declared (JSON has one number type), ``bool`` is
never taken for a number; an annotation this module does not know (``Any``, a class) accepts anything.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from functools import lru_cache
from typing import Any, Mapping, TypeVar, Union

from wizard.core.base.i18n import MessageError, msg

T = TypeVar("T")

_KIND_NAMES = {str: "text", int: "an integer", float: "a number", bool: "true/false", list: "a list",
               dict: "an object", type(None): "null"}


class DocumentTypeError(MessageError, ValueError):
    """A value of the wrong type in a document; ``where`` is its path (``nvidia.gpus[0].name``)."""

    def __init__(self, where: str, expected: str, found: Any) -> None:
        self.where = where
        super().__init__(msg("common.input.wrong_type", where=where or "(document)", expected=expected,
                             found=_found_name(found)))


def _found_name(value: Any) -> str:
    if isinstance(value, bool):
        return "true/false"
    return _KIND_NAMES.get(type(value), type(value).__name__)


@lru_cache(maxsize=None)
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _describe(tp: Any) -> str:
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        return " or ".join(_describe(a) for a in typing.get_args(tp))
    if origin is not None:
        return _KIND_NAMES.get(origin, str(origin))
    if dataclasses.is_dataclass(tp):
        return "an object"
    return _KIND_NAMES.get(tp, getattr(tp, "__name__", str(tp)))


def _scalar_ok(tp: type, value: Any) -> bool:
    if tp is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if tp is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, tp)


def convert(tp: Any, value: Any, where: str) -> Any:
    """``value`` as type ``tp`` (dataclasses built, lists and dicts checked item by item);
    raises :class:`DocumentTypeError` when it does not fit."""
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        deeper: DocumentTypeError | None = None
        for option in typing.get_args(tp):
            try:
                return convert(option, value, where)
            except DocumentTypeError as exc:
                if exc.where != where:
                    deeper = exc
        if deeper is not None:
            raise deeper  # the value had the right shape; the error is inside it
        raise DocumentTypeError(where, _describe(tp), value)
    if origin is list:
        if not isinstance(value, list):
            raise DocumentTypeError(where, "a list", value)
        (inner,) = typing.get_args(tp) or (Any,)
        return [convert(inner, item, f"{where}[{i}]") for i, item in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise DocumentTypeError(where, "an object", value)
        _, inner = typing.get_args(tp) or (str, Any)
        return {str(k): convert(inner, v, f"{where}.{k}") for k, v in value.items()}
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        return build(tp, value, where)
    if tp is type(None):
        if value is not None:
            raise DocumentTypeError(where, "null", value)
        return None
    if tp in (str, int, float, bool):
        if not _scalar_ok(tp, value):
            raise DocumentTypeError(where, _describe(tp), value)
        return float(value) if tp is float else value
    if tp is list or tp is dict:
        if not isinstance(value, tp):
            raise DocumentTypeError(where, _describe(tp), value)
        return value
    return value  # Any, or a class this module does not check


def build(cls: type[T], data: Any, where: str = "") -> T:
    """A ``cls`` dataclass from the JSON object ``data``, every field checked against its annotation.
    A required field that is missing raises :class:`DocumentTypeError` too."""
    if not isinstance(data, Mapping):
        raise DocumentTypeError(where, "an object", data)
    hints = _hints(typing.cast(type, cls))  # a class: hashable, whatever T is
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        place = f"{where}.{f.name}" if where else f.name
        if f.name not in data:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise DocumentTypeError(place, _describe(hints.get(f.name, Any)), None)
            continue
        if not f.init:
            continue
        kwargs[f.name] = convert(hints.get(f.name, Any), data[f.name], place)
    return cls(**kwargs)


def check(cls: type, data: Any, where: str = "") -> None:
    """Raise :class:`DocumentTypeError` unless ``data`` would :func:`build` a ``cls``."""
    build(cls, data, where)


__all__ = ["DocumentTypeError", "convert", "build", "check"]
