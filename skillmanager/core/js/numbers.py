"""JavaScript's string-to-number and value-to-string conversions, for values Claude Code reads from its environment.

`js_number` is ECMAScript `Number(string)` (StringToNumber): JS whitespace trimmed, "" → 0, decimal with an
optional sign, fraction and exponent, `Infinity`, and unsigned `0x`/`0o`/`0b` integers; anything else is NaN
(no `_` separators, no `inf`/`nan` spellings as Python's float() takes). `js_number_grouped` is the 2.1.3xx
reader of numeric environment variables (`Qle` in the binary): `Number()` first, else digits grouped in threes
by one repeated separator (`6,483`, `1_000_000`, `6 483`) read as an integer. `js_string` is `String(value)`
of a JSON value, which is what Claude Code's settings `env` (zod `coerce.string()`) and `Object.assign(process.env,
…)` turn a value into.
"""
from __future__ import annotations

import math
import re
from typing import Any

from .strings import js_trim

_DECIMAL = re.compile(r"[+-]?(?:Infinity|(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)")
_NON_DECIMAL = re.compile(r"0(?:[xX](?P<hex>[0-9a-fA-F]+)|[oO](?P<oct>[0-7]+)|[bB](?P<bin>[01]+))")
# 2.1.332: E=/^[+-]?\d{1,3}([_,\u00A0\u202F ])\d{3}(?:\1\d{3})*$/ (without the u flag \d is ASCII only)
_GROUPED = re.compile("[+-]?[0-9]{1,3}([_,\u00a0\u202f ])[0-9]{3}(?:\\1[0-9]{3})*")
_GROUP_SEPARATORS = re.compile("[_,\u00a0\u202f ]")
_GROUPED_MAX_LENGTH = 32  # UTF-16 units, after trim


def js_number(text: str) -> float:
    """`Number(text)` for a string: a float (inf for Infinity or overflow), NaN when JavaScript gives NaN."""
    body = js_trim(text)
    if body == "":
        return 0.0
    if _DECIMAL.fullmatch(body):
        return float(body.replace("Infinity", "inf"))
    literal = _NON_DECIMAL.fullmatch(body)
    if literal is None:
        return math.nan
    digits, base = next((value, base) for value, base in ((literal["hex"], 16), (literal["oct"], 8), (literal["bin"], 2))
                        if value is not None)
    try:
        return float(int(digits, base))
    except OverflowError:
        return math.inf


def js_number_grouped(text: str) -> float:
    """2.1.3xx `Qle`: `Number(text)`, else (when that is NaN) an integer written in groups of three digits."""
    number = js_number(text)
    if not math.isnan(number):
        return number
    body = js_trim(text)
    if len(body.encode("utf-16-le", "surrogatepass")) // 2 <= _GROUPED_MAX_LENGTH and _GROUPED.fullmatch(body):
        return float(int(_GROUP_SEPARATORS.sub("", body)))
    return math.nan


def js_string(value: Any) -> str:
    """`String(value)` of a parsed JSON value. A whole float prints without `.0` as in JavaScript; other floats
    print as Python's repr, which `Number()` reads back to the same value (JavaScript may spell it otherwise,
    e.g. `0.00001` for `1e-05`)."""
    if isinstance(value, str):
        return value
    if value is True or value is False:
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e21:
            return str(int(value))
        return repr(value)
    if isinstance(value, list):
        return ",".join("" if item is None else js_string(item) for item in value)  # Array.prototype.join
    return "[object Object]"
