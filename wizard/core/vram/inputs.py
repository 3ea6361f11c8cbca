"""What a person may type into the estimator, and the errors that say what was wrong.

Why a module of its own: the page's text box, the CLI's ``--params`` and the catalogue lookup
all accept "7B", "350M" or "125,000,000", and a bad value must come back as a ValueError whose
message is already in the student's language (:class:`VramInputError`), with the same limits
(:data:`MAX_PARAMS`, :data:`MAX_BATCH`, ...) everywhere.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation, Overflow
from typing import Any, Iterable

from wizard.core.base.i18n import t
from wizard.core.vram.units import format_params

MAX_PARAMS = 10 * 10**12  # 10T: more than any single model; a bigger number is a unit mistake
MAX_BATCH = 65536
MAX_CONTEXT = 1 << 21
MAX_IMAGE_SIZE = 8192
MAX_LORA_RANK = 4096

MODES = ("inference", "train", "lora", "qlora")
OPTIMIZERS = ("adamw", "adamw8bit", "sgd_momentum", "sgd")
TRAINING_ACCOUNTING = ("hf", "zero")
LORA_TARGETS = ("qv", "all_linear")


# --------------------------------------------------------------------------------------------
# Errors: a ValueError whose message is already in the student's language.
# --------------------------------------------------------------------------------------------

class VramInputError(ValueError):
    """Bad input to the estimator. ``key``/``params`` name the i18n message."""

    def __init__(self, key: str, **params: Any) -> None:
        self.key = key
        self.params = params
        super().__init__(t(key, "en", **params))  # logs; the student sees .message(lang)

    def message(self, lang: str | None) -> str:
        return t(self.key, lang, **self.params)


class ParamCountError(VramInputError):
    """A parameter count that cannot be read, is not positive, or is absurdly large."""


class UnknownModelError(VramInputError):
    """A model name that is neither in the catalogue nor a parameter count."""


# --------------------------------------------------------------------------------------------
# Parameter counts typed by a person
# --------------------------------------------------------------------------------------------

_SUFFIX = {"": 1, "k": 10**3, "m": 10**6, "b": 10**9, "g": 10**9, "t": 10**12}
_NUMBER = re.compile(r"^(?P<num>(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?)(?P<suffix>[kmbgt]?)$")
_THOUSANDS = re.compile(r"^\d{1,3}(?:,\d{3})+(?:\.\d+)?")


def parse_param_count(text: str | int | float) -> int:
    """'7B' → 7_000_000_000, '350M', '1.5e9', '125,000,000', 1_500_000 → ints.

    Raises :class:`ParamCountError` (a ValueError with a translated message) for empty,
    unreadable ('7X'), zero or negative, fractional, or absurd (> 10T) input.
    """
    if isinstance(text, bool):
        raise ParamCountError("vram.error.param_unreadable", text=str(text))
    if isinstance(text, int):
        return _check_count(Decimal(text), str(text), exact=True)
    if isinstance(text, float):
        if not math.isfinite(text):
            raise ParamCountError("vram.error.param_unreadable", text=str(text))
        return _check_count(Decimal(repr(text)), repr(text), exact=True)
    raw = str(text).strip()
    if not raw:
        raise ParamCountError("vram.error.param_empty")
    s = raw.lower().replace(" ", "").replace("_", "")
    for word in ("parameters", "params", "param"):
        if s.endswith(word):
            s = s[: -len(word)]
    negative = s.startswith("-")
    s = s.lstrip("+-")
    if "," in s:
        m = _THOUSANDS.match(s)
        if not m:
            raise ParamCountError("vram.error.param_unreadable", text=raw)
        s = m.group(0).replace(",", "") + s[m.end():]
    m = _NUMBER.match(s)
    if not m:
        raise ParamCountError("vram.error.param_unreadable", text=raw)
    try:
        value = Decimal(m.group("num")) * _SUFFIX[m.group("suffix")]
    except Overflow:  # "1e99999999999": an exponent beyond any model
        raise ParamCountError("vram.error.param_too_large", text=raw, limit=format_params(MAX_PARAMS)) from None
    except InvalidOperation:
        raise ParamCountError("vram.error.param_unreadable", text=raw) from None
    if negative and value != 0:
        raise ParamCountError("vram.error.param_not_positive", text=raw)
    # "1.3B" is approximate by nature: round. A bare number must already be whole.
    return _check_count(value, raw, exact=not m.group("suffix"))


def _check_count(value: Decimal, raw: str, exact: bool) -> int:
    if value <= 0:
        raise ParamCountError("vram.error.param_not_positive", text=raw)
    if value > MAX_PARAMS:
        raise ParamCountError("vram.error.param_too_large", text=raw, limit=format_params(MAX_PARAMS))
    if exact and value != value.to_integral_value():
        raise ParamCountError("vram.error.param_fraction", text=raw)
    n = int(value.to_integral_value())
    if n <= 0:
        raise ParamCountError("vram.error.param_not_positive", text=raw)
    return n


def check_choice(value: str, choices: Iterable[str], key: str) -> str:
    """``value`` normalised (lower case, '-' → '_') if it is one of ``choices``; else the error ``key``."""
    norm = (value or "").strip().lower().replace("-", "_")
    choices = tuple(choices)
    if norm not in choices:
        raise VramInputError(key, name=value, choices=", ".join(choices))
    return norm


def check_int(value: Any, low: int, high: int, key: str) -> int:
    """``value`` if it is an int (not a bool) within [low, high]; else the error ``key``."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise VramInputError(key, value=value, max=high)
    return value
