"""Front-matter YAML read the way Claude Code reads it.

Claude Code parses front matter with the npm `yaml` package (2.1.88, under node) or `Bun.YAML`
(2.1.3xx): YAML 1.2's core schema. PyYAML implements YAML 1.1, where `yes`, `on`, `2024-01-01`
and `0777` are booleans, dates and octals. This module gives PyYAML (C loader when present) the
1.2 core schema, rejects duplicate keys as `yaml` does, and converts the result into what the
JavaScript side would hold: string keys, JS number formatting for scalars that are later
stringified. The PyYAML loaders live in yaml12_loader.py, imported only when a front matter needs them
(a repeat run served by the parse cache, or front matter the fast path reads, never imports PyYAML).
"""
from __future__ import annotations

import functools
import math
import re
from typing import Any

from ..js.lazy_pattern import lazy_re

CORE_SCHEMA_RESOLVERS = [
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", list("~nN") + [""]),
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", list("tTfF")),
    ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", list("-+0123456789")),
    (
        "tag:yaml.org,2002:float",
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        list("-+0123456789."),
    ),
]

def js_number_string(value: float | int) -> str:
    """`String(n)` of a JavaScript number."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if abs(value) < 10**21:
            return str(value)
        try:
            value = float(value)
        except OverflowError:  # a huge hex literal: Infinity in JavaScript
            value = math.inf if value > 0 else -math.inf
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == int(value) and abs(value) < 1e21:
        return str(int(value))
    text = repr(value)
    if "e" in text:
        mantissa, exponent = text.split("e")
        sign = "-" if exponent.startswith("-") else "+"
        text = f"{mantissa.rstrip('0').rstrip('.') if '.' in mantissa else mantissa}e{sign}{exponent.lstrip('+-').lstrip('0') or '0'}"
    return text


def js_string(value: Any) -> str:
    """`String(value)` as JavaScript would write it, for scalars read from YAML."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return js_number_string(value)
    if isinstance(value, list):
        return ",".join("" if v is None else js_string(v) for v in value)
    if isinstance(value, dict):
        return "[object Object]"
    return str(value)


def with_js_object_keys(value: Any) -> Any:
    """Object keys become strings, as in a JS object."""
    if isinstance(value, dict):
        return {js_string(k): with_js_object_keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [with_js_object_keys(v) for v in value]
    return value


# Fast path for the front matter real SKILL.md files have. It accepts only a subset where the YAML result
# is certain: `key: value` / `key:` lines at column 0, optionally one indented block (a flat mapping or a
# list) after a `key:`; keys are short identifiers that resolve to strings; plain values are single-line
# scalars that cannot be anything but the same text (no `#`, `:`, quotes or other indicators up front, no
# tabs or edge spaces, no line-break or control characters as YAML/libyaml define them) and that no
# core-schema resolver turns into null/bool/int/float; quoted values have no escapes; flow lists hold
# simple words. Anything else goes to the full loader, so the result is identical by construction
# (tests/test_fast_paths.py checks it on generated and real files).
# Each character class is written as what it refuses up to U+009F (every class allows all of U+00A0 and
# above except _OUTSIDE_SUBSET): a class spelled with ranges across the BMP takes re ~4 ms to compile, per
# class and process. load_simple_mapping turns away any text holding an _OUTSIDE_SUBSET character first, so
# the classes never see one (tests/test_fast_paths.py checks every code point against the spelled-out sets).
_OUTSIDE_SUBSET = re.compile(r"[\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]")
_PLAIN_MID = r"^\x00-\x1f\x23\x3a\x7f-\x9f"  # class bodies: `[{_PLAIN_MID}]`
_PLAIN_LAST = r"^\x00-\x20\x23\x3a\x7f-\x9f"
_PLAIN_FIRST = r"^\x00-\x23\x25-\x27\x2a\x2c-\x2d\x3a\x3e-\x40\x5b-\x5d\x60\x7b-\x7d\x7f-\x9f"
_DOUBLE_QUOTED = r"^\x00-\x1f\x22\x5c\x7f-\x9f"  # no `"`, no backslash
_SINGLE_QUOTED = r"^\x00-\x1f\x27\x7f-\x9f"  # no `'`
_QUOTED_UNSAFE = r"\x00-\x1f\x7f-\x9f"  # what a quoted scalar may not hold (besides _OUTSIDE_SUBSET)
_RESOLVED = lazy_re("|".join(f"(?:{pattern})" for _, pattern, _ in CORE_SCHEMA_RESOLVERS))
_RESOLVER_FIRST = frozenset(ch for _, _, first in CORE_SCHEMA_RESOLVERS for ch in first if ch)  # as PyYAML's resolve()
_NON_STRING_KEYS = frozenset(("null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE"))


def load_simple_mapping(text: str) -> dict[str, Any] | None:
    """The mapping `load_yaml12(text)` returns when `text` is in the common subset, else None.

    Top-level lines are `key: value` or `key:`; a value is a plain scalar (rules above), a one-line quoted
    scalar without escapes ("…" with no backslash or double quote inside, '…' with no single quote inside),
    or a flow sequence of simple words (`[a, b]`). A `key:` line may be followed by a block indented by
    the same number of spaces on every line: `sub: value` lines (a mapping) or `- value` lines (a list).
    Anything else, including comments, deeper nesting, continuation lines and duplicate keys, is None."""
    if not text.isascii() and _OUTSIDE_SUBSET.search(text):
        return None  # no line holding one is in the subset (and the classes below rely on never seeing one)
    out: dict[str, Any] = {}
    lines = text.split("\n")
    i, count = 0, len(lines)
    while i < count:
        line = lines[i]
        i += 1
        if not line:
            continue
        parsed = _key_value(line)
        if parsed is None:
            return None
        key, value = parsed
        if key in out:
            return None
        if value is _EMPTY:
            block_end = i
            while block_end < count and (lines[block_end][:1] == " " or not lines[block_end]):
                block_end += 1
            while block_end > i and not lines[block_end - 1]:  # blank lines after the block are not in it
                block_end -= 1
            if block_end > i:
                value = _block(lines[i:block_end])
                if value is None:
                    return None
                i = block_end
            else:
                value = None
        out[key] = value
    return out or None


_EMPTY = object()  # `key:` with nothing after the colon


def _key_value(line: str) -> tuple[str, Any] | None:
    match = _common_line().fullmatch(line)  # one C-level match for the usual `key: text` / `key: "text"` / `key:`
    if match is not None:
        key, plain, double, single = match.groups()
        if key not in _NON_STRING_KEYS:
            if plain is None:
                if double is None and single is None:
                    return key, _EMPTY
                return key, double if double is not None else single
            if not (plain[0] in _RESOLVER_FIRST and _RESOLVED.fullmatch(plain)):
                return key, plain
    return _key_value_general(line)


def _key_value_general(line: str) -> tuple[str, Any] | None:
    colon = line.find(":")
    if colon <= 0:
        return None
    key = line[:colon]
    if not _key_ok(key):
        return None
    rest = line[colon + 1:]
    if not rest:
        return key, _EMPTY
    if rest[0] != " " or len(rest) < 2:
        return None
    value = _scalar_or_flow(rest[1:])
    return None if value is None else (key, value)


def _key_ok(key: str) -> bool:
    return (len(key) <= 128 and key.isascii() and (key[0].isalpha() or key[0] == "_")
            and key.replace("-", "_").replace("_", "a").isalnum() and key not in _NON_STRING_KEYS)


def _scalar_or_flow(value: str) -> Any:
    """A one-line value in the subset (str or list of str), or None when outside it."""
    first = value[0]
    if first == '"':
        inner = value[1:-1]
        if len(value) < 2 or value[-1] != '"' or '"' in inner or "\\" in inner or not _printable(inner):
            return None
        return inner
    if first == "'":
        inner = value[1:-1]
        if len(value) < 2 or value[-1] != "'" or "'" in inner or not _printable(inner):
            return None
        return inner
    if first == "[":
        return _flow_words(value)
    if _plain_line().fullmatch(value) is None:
        return None
    if value[0] in _RESOLVER_FIRST and _RESOLVED.fullmatch(value):
        return None
    return value


def _printable(inner: str) -> bool:
    """No character PyYAML refuses, reads as a break or swaps for a stand-in (no tabs either)."""
    if inner.isascii():
        return inner.isprintable()
    return _quoted_unsafe().search(inner) is None


def _flow_words(value: str) -> list[str] | None:
    if value[-1] != "]":
        return None
    inner = value[1:-1].strip(" ")
    if not inner:
        return []
    items = [item.strip(" ") for item in inner.split(",")]
    for item in items:
        if not item or not _flow_word_ok(item):
            return None
    return items


def _flow_word_ok(item: str) -> bool:
    if not (item.isascii() and (item[0].isalnum() or item[0] == "_")):
        return False
    if not item.replace("-", "a").replace("_", "a").replace(".", "a").replace("/", "a").isalnum():
        return False
    return not (item[0] in _RESOLVER_FIRST and _RESOLVED.fullmatch(item))


def _block(lines: list[str]) -> Any:
    """The indented block after `key:`: every non-empty line at one indent, all `- v` or all `k: v`."""
    indent = None
    items: list[Any] = []
    mapping: dict[str, Any] = {}
    for line in lines:
        if not line:
            continue
        stripped = line.lstrip(" ")
        width = len(line) - len(stripped)
        if indent is None:
            indent = width
        if width != indent or not stripped:
            return None
        if stripped.startswith("- "):
            if mapping or len(stripped) < 3:
                return None
            value = _scalar_or_flow(stripped[2:])
            if value is None or isinstance(value, list):
                return None
            items.append(value)
            continue
        if items:
            return None
        parsed = _key_value(stripped)
        if parsed is None or parsed[1] is _EMPTY or parsed[0] in mapping:
            return None
        mapping[parsed[0]] = parsed[1]
    if items:
        return items
    return mapping or None


@functools.cache
def _plain_line() -> re.Pattern[str]:
    return re.compile(f"[{_PLAIN_FIRST}](?:[{_PLAIN_MID}]*[{_PLAIN_LAST}])?")


@functools.cache
def _common_line() -> re.Pattern[str]:
    """`key: plain`, `key: "double"`, `key: 'single'`, `key:` exactly as _key_value_general accepts them (same
    key rule, plain-scalar classes and quoted-character set); its result is checked against the general
    code in tests/test_fast_paths.py."""
    return re.compile(rf"([A-Za-z_][A-Za-z0-9_-]{{0,127}}):(?: (?:([{_PLAIN_FIRST}](?:[{_PLAIN_MID}]*[{_PLAIN_LAST}])?)"
                      rf"|\"([{_DOUBLE_QUOTED}]*)\"|'([{_SINGLE_QUOTED}]*)'))?")


@functools.cache
def _quoted_unsafe() -> re.Pattern[str]:
    return re.compile(f"[{_QUOTED_UNSAFE}]")


def load_yaml12(text: str, *, unique_keys: bool = True) -> Any:
    """Parse one YAML document; raises yaml.YAMLError like the JS parser throws.
    `unique_keys=False`: Bun.YAML's rules (last duplicate wins, `<<` merges)."""
    simple = load_simple_mapping(text)  # never holds a repeated key or `<<`: same answer for both
    if simple is not None:
        return simple
    from .yaml12_loader import load_yaml12_full  # PyYAML is imported only for what the fast path leaves
    return load_yaml12_full(text, unique_keys=unique_keys)


# Characters both CLIs' parsers take as ordinary content but PyYAML refuses (C0/C1 controls, U+FFFE/FFFF) or
# reads as line breaks (NEL, U+2028, U+2029, YAML 1.1 breaks): they are swapped for private-use stand-ins
# while parsing and put back in every string afterwards (probe-yaml-controls: kept verbatim by 2.1.88).
_PYYAML_OFF_LIMITS = lazy_re("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ufffe\uffff]")
# What YAML 1.2 itself forbids in a stream (c-printable): the list above without NEL and the line separators.
YAML_UNPRINTABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ufffe\uffff]")
_STAND_IN_BLOCKS = range(0xF0000, 0x10FC00, 0x400)  # private use (planes 15, 16): printable, non-space for PyYAML


def _stand_in(ch: str, base: int) -> str:
    cp = ord(ch)
    return chr(base + (cp if cp < 0x100 else 0x100 + (cp & 0xFF) if cp < 0xFFFE else 0x200 + cp - 0xFFFE))


def stand_ins_for_pyyaml(text: str) -> tuple[str, dict[str, str]] | None:
    found = set(_PYYAML_OFF_LIMITS.findall(text))
    if not found:
        return None
    used = {ord(ch) >> 10 for ch in text if ord(ch) >= 0xF0000}
    base = next((b for b in _STAND_IN_BLOCKS if b >> 10 not in used), None)
    if base is None:  # every block taken: nothing unambiguous to swap in
        return None
    originals = {_stand_in(ch, base): ch for ch in found}
    return _PYYAML_OFF_LIMITS.sub(lambda m: _stand_in(m.group(0), base), text), originals


def restore_stand_ins(value: Any, originals: dict[str, str]) -> Any:
    if isinstance(value, str):
        return "".join(originals.get(ch, ch) for ch in value) if any(ch in originals for ch in value) else value
    if isinstance(value, list):
        return [restore_stand_ins(v, originals) for v in value]
    if isinstance(value, dict):
        return {restore_stand_ins(k, originals): restore_stand_ins(v, originals) for k, v in value.items()}
    return value
