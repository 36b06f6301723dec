"""`JSON.parse` number semantics for Python's json module.

JavaScript reads every JSON number as a double, so a 5,000-digit integer in a settings file is a number
(Infinity) to Claude Code, while Python's `int()` refuses more than 4,300 digits (ValueError). Integers
too long for an exact double become floats here, as they are in JavaScript; short ones stay `int`.
"""
from __future__ import annotations

import json
from typing import Any

# Below this many digits int(text) is cheap and exact; above it JavaScript has lost precision anyway.
_EXACT_INT_DIGITS = 300


def js_int(text: str) -> int | float:
    """An integer literal as JavaScript holds it; never raises for length (float() gives inf past 1e308)."""
    if len(text) > _EXACT_INT_DIGITS:
        return float(text)
    return int(text)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"Unexpected token {name}")  # JSON.parse has no NaN / Infinity


def js_json_loads(text: str, **kwargs: Any) -> Any:
    """`json.loads` with JSON.parse's rules for numbers and constants (NaN/Infinity are errors)."""
    kwargs.setdefault("parse_int", js_int)
    kwargs.setdefault("parse_constant", _reject_constant)
    return json.loads(text, **kwargs)
