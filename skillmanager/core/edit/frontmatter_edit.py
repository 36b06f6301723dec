"""Change one boolean key in a SKILL.md front matter by editing a single line.

Everything else (comments, key order, quoting, the body, CRLF line endings, a UTF-8
BOM) stays byte-identical. The front matter is located the way Claude Code does it
(cli.js 2.1.88: ``/^---\\s*\\n([\\s\\S]*?)---\\s*\\n?/``), parsed with PyYAML
``safe_load``, and the result is re-parsed after the edit: if the mapping is not exactly
the old one with only that key changed, the edit is refused.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from .json_text_edit import strict_equal
from ..load.yaml12_loader import load_bounded

__all__ = ["FrontMatterEditError", "set_front_matter_bool", "find_front_matter"]

BOM = "\ufeff"
# Claude Code's front matter pattern, applied at the start of the text (after a BOM,
# which the current CLI skips).
_FRONT_MATTER_RE = re.compile(r"---\s*\n([\s\S]*?)---\s*\n?")
_KEY_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
# Value starts we will not rewrite: tags, anchors, aliases, flow collections, block
# scalars, directives, reserved characters.
_UNSAFE_VALUE_START = tuple("!&*{[|>%@`")


# The C loader is much faster and parses the same YAML; fall back when it is not built.
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _safe_load(text: str) -> Any:
    try:
        return load_bounded(text, _SafeLoader)  # a safe loader; alias bombs refused
    except (ValueError, RecursionError) as exc:  # e.g. an integer of more than 4,300 digits
        raise yaml.YAMLError(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from None


class FrontMatterEditError(ValueError):
    """The front matter cannot be edited safely; the text was left alone."""


def find_front_matter(text: str) -> tuple[int, int] | None:
    """Span [start, end) of the YAML between the `---` lines, or None without front matter."""
    offset = 1 if text.startswith(BOM) else 0
    match = _FRONT_MATTER_RE.match(text, offset)
    if not match:
        return None
    return match.start(1), match.end(1)


def _load(yaml_text: str, line_offset: int) -> dict[str, Any]:
    try:
        data = _safe_load(yaml_text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1 + line_offset}:{mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise FrontMatterEditError(f"front matter is not valid YAML{where}: {problem}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise FrontMatterEditError(f"front matter is a YAML {type(data).__name__}, not a mapping of keys")
    return data


def _newline_of(text: str) -> str:
    first = text.find("\n")
    return "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"


def _key_line_re(key: str) -> re.Pattern[str]:
    quoted = re.escape(key)
    return re.compile(rf"(?:{quoted}|\"{quoted}\"|'{quoted}')[ \t]*:(?=[ \t]|\r?\n|$)")


def _value_span(line: str, after_colon: int) -> tuple[int, int]:
    """Span of the scalar token that follows `key:` on this line (empty span if none)."""
    i = after_colon
    while i < len(line) and line[i] in " \t":
        i += 1
    if i >= len(line) or line[i] in "\r\n#":
        return after_colon, after_colon
    if line[i] == '"':
        j = i + 1
        while j < len(line) and line[j] != '"':
            j += 2 if line[j] == "\\" else 1
        return i, j + 1
    if line[i] == "'":
        j = i + 1
        while j < len(line):
            if line[j] == "'":
                if line[j + 1 : j + 2] == "'":
                    j += 2
                    continue
                break
            j += 1
        return i, j + 1
    match = re.compile(r"[^\r\n]*?(?=[ \t]+#|[ \t]*\r?\n|[ \t]*$)").match(line, i)
    assert match is not None
    return i, match.end()


def set_front_matter_bool(text: str, key: str, value: bool | None) -> str:
    """Set `key: true|false` in the front matter, or remove the key for None."""
    if value is not None and not isinstance(value, bool):
        raise TypeError("value must be True, False or None")
    if not _KEY_RE.fullmatch(key):
        raise FrontMatterEditError(f"refusing to edit unusual key {key!r}")
    literal = None if value is None else ("true" if value else "false")

    span = find_front_matter(text)
    if span is None:
        if literal is None:
            return text
        bom = BOM if text.startswith(BOM) else ""
        body = text[len(bom) :]
        nl = _newline_of(body) if "\n" in body else "\n"
        new = f"{bom}---{nl}{key}: {literal}{nl}---{nl}{body}"
        _verify(new, {key: value}, expected_tail=body)
        return new

    start, end = span
    fm = text[start:end]
    if fm and not fm.endswith("\n"):
        raise FrontMatterEditError(
            "the closing '---' of the front matter is not at the start of a line; refusing to guess"
        )
    line_offset = text.count("\n", 0, start)
    old = _load(fm, line_offset)
    expected = dict(old)
    if value is None:
        expected.pop(key, None)
    else:
        expected[key] = value

    lines = fm.splitlines(keepends=True)
    pattern = _key_line_re(key)
    hits = [(i, found) for i, line in enumerate(lines) if (found := pattern.match(line))]
    if len(hits) > 1:
        raise FrontMatterEditError(f"'{key}' is set more than once in the front matter; refusing to guess which")
    if not hits and key in old:
        raise FrontMatterEditError(f"'{key}' is set in a form that cannot be rewritten safely")

    if hits:
        index, key_match = hits[0]
        line = lines[index]
        if key not in old:
            raise FrontMatterEditError(f"a line looks like '{key}:' but is not a top-level key; refusing to edit")
        colon_end = key_match.end()
        value_start, value_end = _value_span(line, colon_end)
        token = line[value_start:value_end]
        if token.startswith(_UNSAFE_VALUE_START):
            raise FrontMatterEditError(
                f"'{key}' uses YAML syntax (tag, anchor, alias, flow or block value) that cannot be rewritten safely"
            )
        try:
            alone = _safe_load(line)
        except yaml.YAMLError:
            alone = None
        if not isinstance(alone, dict) or len(alone) != 1 or not strict_equal(alone.get(key), old[key]):
            raise FrontMatterEditError(f"'{key}' has a multi-line value or one that cannot be rewritten safely")
        if literal is None:
            lines[index] = ""
        elif token == literal:
            return text
        else:
            if value_start == value_end:  # `key:` with nothing (or only a comment) after it
                replacement = " " + literal + (" " if line[value_end:value_end + 1] == "#" else "")
            else:
                replacement = literal
            lines[index] = line[:value_start] + replacement + line[value_end:]
    else:
        if literal is None:
            return text
        nl = _newline_of(text)
        lines.append(f"{key}: {literal}{nl}")

    new = text[:start] + "".join(lines) + text[end:]
    _verify(new, expected, expected_head=text[:start], expected_tail=text[end:])
    return new


def _verify(
    new: str, expected: dict[str, Any], expected_tail: str, expected_head: str | None = None
) -> None:
    """Refuse an edit whose re-parse is not exactly the intended mapping."""
    span = find_front_matter(new)
    if span is None:
        raise FrontMatterEditError("internal self-check failed, edit refused: front matter no longer found")
    start, end = span
    if expected_head is not None and new[:start] != expected_head:
        raise FrontMatterEditError("internal self-check failed, edit refused: text before the front matter changed")
    if not new.endswith(expected_tail) or not new[end:].endswith(expected_tail):
        raise FrontMatterEditError("internal self-check failed, edit refused: the body changed")
    try:
        actual = _load(new[start:end], 0)
    except FrontMatterEditError as exc:
        raise FrontMatterEditError(f"internal self-check failed, edit refused: {exc}") from None
    if not strict_equal(actual, expected):
        raise FrontMatterEditError(
            "internal self-check failed, edit refused: the front matter would not parse to the intended values"
        )
