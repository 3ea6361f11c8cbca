"""A small JSON-schema check for the course profile: the subset ``course.schema.json`` uses.

Why not the jsonschema package: it is not among the wizard's dependencies (and would grow the
bundle); the course schema needs only types, required keys, patterns, lengths and bounds. The
tests check the same schema file with jsonschema itself where it is installed, so the two agree.
"""

from __future__ import annotations

import math
import re
from typing import Any

_TYPES: dict[str, tuple[type, ...]] = {"object": (dict,), "array": (list,), "string": (str,),
                                       "number": (int, float), "integer": (int,), "boolean": (bool,)}


class SchemaViolation(ValueError):
    """Where (a path like ``lessons/2/vram_gb``) and what is wrong."""

    def __init__(self, where: str, problem: str) -> None:
        super().__init__(f"{where}: {problem}")
        self.where = where
        self.problem = problem


def _ecma_pattern(pattern: str) -> str:
    """A JSON-schema pattern as Python means it: JSON schema's ``$`` (ECMA 262) matches only at
    the end, Python's also before a final newline (``"week\\n"`` passed ``^…$``), so a final ``$``
    becomes ``\\Z``."""
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        return pattern[:-1] + r"\Z"
    return pattern


def validate(doc: Any, schema: dict[str, Any], where: str = "") -> None:
    """Raise :class:`SchemaViolation` for the first place ``doc`` breaks ``schema``."""
    here = where or "(top)"
    kind = schema.get("type")
    if kind:
        ok = isinstance(doc, _TYPES[kind]) and not (kind in ("number", "integer") and isinstance(doc, bool))
        if not ok:
            raise SchemaViolation(here, f"should be {kind}")
    if isinstance(doc, str):
        if len(doc) < schema.get("minLength", 0) or len(doc) > schema.get("maxLength", len(doc)):
            raise SchemaViolation(here, "too short or too long")
        if "pattern" in schema and not re.search(_ecma_pattern(schema["pattern"]), doc):
            raise SchemaViolation(here, f"does not match {schema['pattern']}")
    if isinstance(doc, (int, float)) and not isinstance(doc, bool):
        if isinstance(doc, float) and not math.isfinite(doc):  # NaN passes every comparison below
            raise SchemaViolation(here, "not a finite number")
        if doc < schema.get("minimum", doc) or doc > schema.get("maximum", doc):
            raise SchemaViolation(here, f"out of range {schema.get('minimum')}..{schema.get('maximum')}")
    if isinstance(doc, list):
        if len(doc) > schema.get("maxItems", len(doc)):
            raise SchemaViolation(here, f"more than {schema['maxItems']} items")
        for i, item in enumerate(doc):
            validate(item, schema.get("items", {}), f"{where}/{i}".lstrip("/"))
    if isinstance(doc, dict):
        for key in schema.get("required", []):
            if key not in doc:
                raise SchemaViolation(here, f"'{key}' is missing")
        for key, sub in schema.get("properties", {}).items():
            if key in doc:
                validate(doc[key], sub, f"{where}/{key}".lstrip("/"))


__all__ = ["SchemaViolation", "validate"]
