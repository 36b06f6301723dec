"""Edit a JSON document at the text level so that only the intended key changes.

Claude Code reads settings files with plain ``JSON.parse`` after stripping a leading
UTF-8 BOM, and treats a file whose ``trim()`` is empty as ``{}`` (cli.js 2.1.88:
``if(_.trim()==="")return{settings:{}...}`` then ``JSON.parse(kB(q))``). So this module
accepts exactly strict JSON (no comments, no trailing commas, no NaN) and refuses
anything else rather than guessing.

Every edit is one span replacement; the rest of the text (key order, indentation,
escapes such as ``\\u00e9``, CRLF, trailing newline, duplicate keys, BOM) is untouched.
After each edit the result is re-parsed with ``json.loads`` and compared, type-strictly,
with the expected object; a mismatch raises instead of returning a wrong edit.
"""

from __future__ import annotations

import bisect
import copy
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from ..js.strings import JS_WHITESPACE_SET  # Claude Code uses trim() to call a settings file "empty" ({})
from ..js.json_parse import js_json_loads

__all__ = [
    "JsonEditError",
    "get",
    "set_key",
    "delete_key",
    "array_add",
    "array_remove",
    "parse_document",
]

BOM = "\ufeff"
_JSON_WHITESPACE = " \t\n\r"
_STRING_RE = re.compile(r'"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"')
_NUMBER_RE = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_NON_ASCII_ESCAPE_RE = re.compile(r"\\u(?:[0-9a-fA-F]{4})")


class JsonEditError(ValueError):
    """The text is not JSON Claude Code would accept, or the edit cannot be made safely."""

    def __init__(self, message: str, line: int | None = None, col: int | None = None):
        self.message = message
        self.line = line
        self.col = col
        where = f"line {line}:{col}: " if line is not None else ""
        super().__init__(where + message)


# --------------------------------------------------------------------------- tokenizer


@dataclass
class Node:
    """A JSON value with its character span [start, end) in the text."""

    kind: str  # object | array | string | number | literal
    start: int
    end: int
    value: Any = None  # decoded value for scalars; built lazily for containers
    members: list["Member"] = field(default_factory=list)  # objects
    items: list["Node"] = field(default_factory=list)  # arrays
    parent: "Node | None" = None

    def to_python(self) -> Any:
        if self.kind == "object":
            # Later duplicates win, as in JSON.parse and json.loads.
            return {m.key: m.value.to_python() for m in self.members}
        if self.kind == "array":
            return [item.to_python() for item in self.items]
        return self.value

    def last_member(self, key: str) -> "Member | None":
        for member in reversed(self.members):
            if member.key == key:
                return member
        return None


@dataclass
class Member:
    key: str
    key_start: int
    key_end: int
    value: Node


class _Parser:
    def __init__(self, text: str, offset: int):
        self.text = text
        self.pos = offset

    def error(self, message: str, pos: int | None = None) -> JsonEditError:
        pos = self.pos if pos is None else pos
        line = self.text.count("\n", 0, pos) + 1
        col = pos - (self.text.rfind("\n", 0, pos) + 1) + 1
        return JsonEditError(message, line, col)

    def skip_ws(self) -> None:
        text, n = self.text, len(self.text)
        while self.pos < n and text[self.pos] in _JSON_WHITESPACE:
            self.pos += 1
        if self.pos < n and text.startswith(("//", "/*"), self.pos):
            raise self.error(
                "comments are not allowed: Claude Code reads settings with JSON.parse, "
                "which rejects them"
            )

    def describe(self) -> str:
        if self.pos >= len(self.text):
            return "end of file"
        return repr(self.text[self.pos])

    def parse_value(self, parent: Node | None) -> Node:
        self.skip_ws()
        if self.pos >= len(self.text):
            raise self.error("unexpected end of file, expected a value")
        ch = self.text[self.pos]
        if ch == "{":
            return self.parse_object(parent)
        if ch == "[":
            return self.parse_array(parent)
        if ch == '"':
            start = self.pos
            value = self.parse_string()
            return Node("string", start, self.pos, value, parent=parent)
        match = _NUMBER_RE.match(self.text, self.pos)
        if match and match.end() > self.pos:
            self.pos = match.end()
            return Node("number", match.start(), match.end(), js_json_loads(match.group()), parent=parent)
        for word, literal in (("true", True), ("false", False), ("null", None)):
            if self.text.startswith(word, self.pos):
                start = self.pos
                self.pos += len(word)
                return Node("literal", start, self.pos, literal, parent=parent)
        if self.text.startswith(("NaN", "Infinity", "-Infinity"), self.pos):
            raise self.error("NaN and Infinity are not valid JSON")
        raise self.error(f"expected a value, found {self.describe()}")

    def parse_string(self) -> str:
        match = _STRING_RE.match(self.text, self.pos)
        if not match:
            # Find out why, for a helpful message.
            i = self.pos + 1
            while i < len(self.text):
                c = self.text[i]
                if c == '"':
                    break
                if c == "\\":
                    if self.text[i + 1 : i + 2] not in tuple('"\\/bfnrtu') or (
                        self.text[i + 1 : i + 2] == "u"
                        and not re.fullmatch(r"[0-9a-fA-F]{4}", self.text[i + 2 : i + 6])
                    ):
                        raise self.error("invalid escape sequence in string", i)
                    i += 2
                    continue
                if ord(c) < 0x20:
                    raise self.error("control character inside a string must be escaped", i)
                i += 1
            raise self.error("unterminated string")
        self.pos = match.end()
        decoded: str = json.loads(match.group())
        return decoded

    def parse_object(self, parent: Node | None) -> Node:
        node = Node("object", self.pos, -1, parent=parent)
        self.pos += 1
        self.skip_ws()
        if self.pos < len(self.text) and self.text[self.pos] == "}":
            self.pos += 1
            node.end = self.pos
            return node
        while True:
            self.skip_ws()
            if self.pos >= len(self.text) or self.text[self.pos] != '"':
                if self.pos < len(self.text) and self.text[self.pos] == "}" and node.members:
                    raise self.error("trailing comma before '}' is not valid JSON")
                raise self.error(f"expected a double-quoted key, found {self.describe()}")
            key_start = self.pos
            key = self.parse_string()
            key_end = self.pos
            self.skip_ws()
            if self.pos >= len(self.text) or self.text[self.pos] != ":":
                raise self.error(f"expected ':' after key {key!r}, found {self.describe()}")
            self.pos += 1
            value = self.parse_value(node)
            node.members.append(Member(key, key_start, key_end, value))
            self.skip_ws()
            if self.pos < len(self.text) and self.text[self.pos] == ",":
                self.pos += 1
                continue
            if self.pos < len(self.text) and self.text[self.pos] == "}":
                self.pos += 1
                node.end = self.pos
                return node
            raise self.error(f"expected ',' or '}}' after an object member, found {self.describe()}")

    def parse_array(self, parent: Node | None) -> Node:
        node = Node("array", self.pos, -1, parent=parent)
        self.pos += 1
        self.skip_ws()
        if self.pos < len(self.text) and self.text[self.pos] == "]":
            self.pos += 1
            node.end = self.pos
            return node
        while True:
            self.skip_ws()
            if self.pos < len(self.text) and self.text[self.pos] == "]" and node.items:
                raise self.error("trailing comma before ']' is not valid JSON")
            node.items.append(self.parse_value(node))
            self.skip_ws()
            if self.pos < len(self.text) and self.text[self.pos] == ",":
                self.pos += 1
                continue
            if self.pos < len(self.text) and self.text[self.pos] == "]":
                self.pos += 1
                node.end = self.pos
                return node
            raise self.error(f"expected ',' or ']' after an array item, found {self.describe()}")


def _is_blank(text: str) -> bool:
    """Claude Code's `text.trim() === ""` test."""
    return all(c in JS_WHITESPACE_SET for c in text)


def parse_document(text: str) -> Node | None:
    """Parse strict JSON with spans. Returns None for a blank text (Claude Code: {})."""
    if not isinstance(text, str):
        raise TypeError("text must be str")
    if _is_blank(text):
        return None
    offset = 1 if text.startswith(BOM) else 0
    parser = _Parser(text, offset)
    try:
        root = parser.parse_value(None)
        parser.skip_ws()
    except RecursionError:
        raise JsonEditError("JSON is nested too deeply to edit safely") from None
    if parser.pos != len(text):
        raise parser.error(f"unexpected {parser.describe()} after the end of the JSON value")
    return root


def _parse_object_root(text: str) -> Node | None:
    root = parse_document(text)
    if root is not None and root.kind != "object":
        raise JsonEditError("the top-level JSON value is not an object", 1, 1)
    return root


# --------------------------------------------------------------------------- style


@dataclass
class _Style:
    newline: str
    indent_unit: str
    key_sep: str
    ensure_ascii: bool
    item_sep: str = ""  # whitespace after commas in single-line containers


_NEWLINE_RE = re.compile("\n")
_INDENT_RE = re.compile("[ \t]*")


def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def _line_indent(text: str, pos: int) -> str:
    start = _line_start(text, pos)
    end = start
    while end < len(text) and text[end] in " \t":
        end += 1
    return text[start:end]


def _containers(node: Node) -> Iterable[Node]:
    stack = [node]
    while stack:
        current = stack.pop()
        if current.kind == "object":
            yield current
            stack.extend(m.value for m in current.members)
        elif current.kind == "array":
            yield current
            stack.extend(current.items)


def _children_starts(node: Node) -> list[int]:
    if node.kind == "object":
        return [m.key_start for m in node.members]
    return [item.start for item in node.items]


class _LineIndex:
    """Where each line starts, found in one pass: line-start and "is there a newline in this span"
    questions then cost a binary search instead of a scan back through a long line (a minified file
    with 100k containers on one line made the style detector quadratic)."""

    def __init__(self, text: str):
        self.text = text
        self.newlines = [m.start() for m in _NEWLINE_RE.finditer(text)]
        self._indents: dict[int, str] = {}

    def line_start(self, pos: int) -> int:
        i = bisect.bisect_left(self.newlines, pos)
        return self.newlines[i - 1] + 1 if i else 0

    def has_newline(self, start: int, end: int) -> bool:
        i = bisect.bisect_left(self.newlines, start)
        return i < len(self.newlines) and self.newlines[i] < end

    def first_newline(self, start: int, end: int) -> int:
        i = bisect.bisect_left(self.newlines, start)
        return self.newlines[i] if i < len(self.newlines) and self.newlines[i] < end else -1

    def indent(self, pos: int) -> str:
        """The blanks that open pos's line (measured once per line)."""
        start = self.line_start(pos)
        found = self._indents.get(start)
        if found is None:
            match = _INDENT_RE.match(self.text, start)
            found = self._indents[start] = match.group() if match else ""
        return found


def _detect_style(text: str, root: Node | None) -> _Style:
    # Linear in the file size: every line is located once (_LineIndex) and only the short gaps between
    # tokens are sliced, never the text per member (a 2.5 MB settings file has ~100k of them).
    newline = "\r\n" if "\r\n" in text else "\n"
    units: Counter[str] = Counter()
    key_seps: Counter[str] = Counter()
    item_seps: Counter[str] = Counter()
    if root is not None:
        lines = _LineIndex(text)
        for container in _containers(root):
            first_newline = lines.first_newline(container.start, container.end)
            if first_newline != -1:
                parent_indent = lines.indent(container.start)
                for child_start in _children_starts(container):
                    if child_start < first_newline:
                        continue  # on the container's first line: not indented
                    child_line = lines.line_start(child_start)
                    child_indent = lines.indent(child_start)
                    if child_line + len(child_indent) != child_start:
                        continue  # something else precedes the child on its line
                    if child_indent.startswith(parent_indent) and len(child_indent) > len(parent_indent):
                        units[child_indent[len(parent_indent):]] += 1
            if container.kind == "object":
                for member in container.members:
                    key_seps[text[member.key_end: member.value.start]] += 1
            if first_newline == -1:
                sep = _item_sep_of(text, container)
                if sep is not None:
                    item_seps[sep] += 1
    indent_unit = units.most_common(1)[0][0] if units else "  "
    key_sep = key_seps.most_common(1)[0][0] if key_seps else ": "
    if "\n" in key_sep or "\r" in key_sep:
        key_sep = ": "
    item_sep = item_seps.most_common(1)[0][0] if item_seps else _guess_item_sep(key_sep)
    return _Style(newline, indent_unit, key_sep, _detect_ensure_ascii(text), item_sep)


def _detect_ensure_ascii(text: str) -> bool:
    """True only if the document escapes non-ASCII and never writes it literally."""
    has_literal = not text.lstrip(BOM).isascii()
    if has_literal:
        return False
    return any(int(m.group()[2:], 16) > 0x7F for m in _NON_ASCII_ESCAPE_RE.finditer(text))


def _is_multiline(text: str, node: Node) -> bool:
    return text.find("\n", node.start, node.end) != -1


def _layout_context(text: str, container: Node, style: _Style) -> tuple[bool, str]:
    """(multi_line, item_separator) for inserting into `container`.

    An empty container takes its layout from the nearest non-empty ancestor, so a new
    member inside `{"a": {}}` on one line stays on one line, while `"env": {}` in a
    pretty-printed file is expanded like JSON.stringify(..., 2) would.
    """
    node: Node | None = container
    while node is not None:
        starts = _children_starts(node)
        if starts:
            if _is_multiline(text, node):
                return True, style.item_sep
            sep = _item_sep_of(text, node)
            return False, style.item_sep if sep is None else sep
        node = node.parent
    return True, style.item_sep


def _item_sep_of(text: str, node: Node) -> str | None:
    """Whitespace that follows commas in a container (None with fewer than 2 children)."""
    if node.kind == "object":
        if len(node.members) < 2:
            return None
        end, nxt = node.members[0].value.end, node.members[1].key_start
    else:
        if len(node.items) < 2:
            return None
        end, nxt = node.items[0].end, node.items[1].start
    between = text[end:nxt]
    return between[between.find(",") + 1:]


def _serialize(value: Any, style: _Style, multiline: bool, base_indent: str, item_sep: str) -> str:
    try:
        if multiline:
            out = json.dumps(
                value,
                indent=style.indent_unit,
                separators=(",", style.key_sep),
                ensure_ascii=style.ensure_ascii,
                allow_nan=False,
            )
            # Dumped strings never contain raw newlines, so this only touches layout.
            return out.replace("\n", style.newline + base_indent)
        return json.dumps(
            value,
            separators=("," + item_sep, style.key_sep),
            ensure_ascii=style.ensure_ascii,
            allow_nan=False,
        )
    except (TypeError, ValueError) as exc:
        raise JsonEditError(f"value cannot be written as JSON: {exc}") from None


def _serialize_key(key: str, style: _Style) -> str:
    return json.dumps(key, ensure_ascii=style.ensure_ascii)


# --------------------------------------------------------------------------- self-check


def strict_equal(a: Any, b: Any) -> bool:
    """Equality that does not confuse True with 1 or 1 with 1.0."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(strict_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(strict_equal(x, y) for x, y in zip(a, b))
    return bool(a == b)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _loads(text: str) -> Any:
    if _is_blank(text):
        return {}
    return js_json_loads(text[1:] if text.startswith(BOM) else text, parse_constant=_reject_constant)


def _checked(old_text: str, new_text: str, expected: Any) -> str:
    try:
        actual = _loads(new_text)
    except ValueError as exc:
        raise JsonEditError(f"internal self-check failed, edit refused: result does not parse ({exc})") from None
    if not strict_equal(actual, expected):
        raise JsonEditError("internal self-check failed, edit refused: result differs from the intended change")
    return new_text


def _splice(text: str, start: int, end: int, replacement: str) -> str:
    return text[:start] + replacement + text[end:]


# --------------------------------------------------------------------------- navigation


def _check_path(path: Sequence[str]) -> list[str]:
    if isinstance(path, str) or not all(isinstance(p, str) for p in path):
        raise TypeError("path must be a list of str keys")
    keys = list(path)
    if not keys:
        raise JsonEditError("path must name at least one key")
    return keys


def _find(root: Node | None, keys: Sequence[str]) -> Node | None:
    node = root
    for key in keys:
        if node is None or node.kind != "object":
            return None
        member = node.last_member(key)
        if member is None:
            return None
        node = member.value
    return node


def _expected_with(old: Any, keys: Sequence[str], value: Any) -> Any:
    new = copy.deepcopy(old)
    target = new
    for key in keys[:-1]:
        target = target.setdefault(key, {})
    target[keys[-1]] = copy.deepcopy(value)
    return new


def _pretty_new_document(text: str, obj: dict[str, Any], style: _Style) -> str:
    # Claude Code writes settings as JSON.stringify(obj, null, 2) + "\n".
    bom = BOM if text.startswith(BOM) else ""
    body = json.dumps(obj, indent="  ", ensure_ascii=False, allow_nan=False)
    return bom + body.replace("\n", style.newline) + style.newline


# --------------------------------------------------------------------------- public API


def get(text: str, path: Sequence[str], default: Any = None) -> Any:
    """Value at `path` (last duplicate wins), or `default` when absent."""
    keys = _check_path(path)
    node = _find(_parse_object_root(text), keys)
    return default if node is None else node.to_python()


def _insert_member(text: str, obj: Node, key: str, value: Any, style: _Style) -> str:
    multiline, item_sep = _layout_context(text, obj, style)
    indent = _line_indent(text, obj.start)
    if obj.members:
        last = obj.members[-1]
        sep = _append_sep(text, obj, [(m.key_start, m.value.end) for m in obj.members], style)
        member_indent = _line_indent(text, last.key_start) if "\n" in sep else indent
        key_sep = text[last.key_end : last.value.start]
        if "\n" in key_sep or "\r" in key_sep:
            key_sep = style.key_sep
        local = _Style(style.newline, style.indent_unit, key_sep, style.ensure_ascii)
        member = _serialize_key(key, local) + key_sep + _serialize(
            value, local, multiline and "\n" in sep, member_indent, item_sep
        )
        return _splice(text, last.value.end, last.value.end, "," + sep + member)
    # Empty object: replace its whole text "{ ... }".
    if multiline:
        inner = indent + style.indent_unit
        member = _serialize_key(key, style) + style.key_sep + _serialize(value, style, True, inner, "")
        replacement = "{" + style.newline + inner + member + style.newline + indent + "}"
    else:
        member = _serialize_key(key, style) + style.key_sep + _serialize(value, style, False, "", item_sep)
        replacement = "{" + member + "}"
    return _splice(text, obj.start, obj.end, replacement)


def _append_sep(text: str, container: Node, spans: list[tuple[int, int]], style: _Style) -> str:
    """The text to put after the new comma when appending a child to `container`."""
    if len(spans) >= 2:
        gap = text[spans[-2][1] : spans[-1][0]]
        return gap[gap.find(",") + 1 :]
    sep = text[container.start + 1 : spans[0][0]]
    # `["a"]`: no comma to copy, so use the document's usual spacing.
    return sep if sep else style.item_sep


def _guess_item_sep(key_sep: str) -> str:
    return " " if key_sep.endswith(" ") else ""


def set_key(text: str, path: Sequence[str], value: Any) -> str:
    """Set `path` to `value`, creating missing intermediate objects."""
    keys = _check_path(path)
    root = _parse_object_root(text)
    style = _detect_style(text, root)
    old = _loads(text)
    if root is None:
        expected = _expected_with(old, keys, value)
        return _checked(text, _pretty_new_document(text, expected, style), expected)

    node = root
    for depth, key in enumerate(keys[:-1]):
        member = node.last_member(key)
        if member is None:
            expected = _expected_with(old, keys, value)
            nested: Any = value
            for inner_key in reversed(keys[depth + 1 :]):
                nested = {inner_key: nested}
            return _checked(text, _insert_member(text, node, key, nested, style), expected)
        if member.value.kind != "object":
            dotted = ".".join(keys[: depth + 1])
            raise JsonEditError(
                f"'{dotted}' is a {member.value.kind}, not an object; refusing to overwrite it",
                *_pos(text, member.value.start),
            )
        node = member.value

    expected = _expected_with(old, keys, value)
    member = node.last_member(keys[-1])
    if member is None:
        return _checked(text, _insert_member(text, node, keys[-1], value, style), expected)
    old_value = member.value
    if strict_equal(old_value.to_python(), value):
        return text  # Already so: leave the bytes alone.
    if old_value.kind in ("object", "array") and _children_starts(old_value):
        # Keep the layout the user gave this value.
        multiline = _is_multiline(text, old_value)
        own_sep = _item_sep_of(text, old_value)
        item_sep = style.item_sep if own_sep is None else own_sep
    else:
        multiline, item_sep = _layout_context(text, node, style)
    replacement = _serialize(value, style, multiline, _line_indent(text, member.key_start), item_sep)
    return _checked(text, _splice(text, old_value.start, old_value.end, replacement), expected)


def _pos(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - _line_start(text, pos) + 1


def _remove_child(text: str, container: Node, index: int) -> str:
    """Remove member/item `index` and exactly one adjacent comma."""
    if container.kind == "object":
        spans = [(m.key_start, m.value.end) for m in container.members]
    else:
        spans = [(i.start, i.end) for i in container.items]
    if len(spans) == 1:
        # Last one out: JSON.stringify writes an empty container as {} / [].
        return _splice(text, container.start + 1, container.end - 1, "")
    start, end = spans[index]
    if index < len(spans) - 1:
        return _splice(text, start, spans[index + 1][0], "")
    return _splice(text, spans[index - 1][1], end, "")


def delete_key(text: str, path: Sequence[str]) -> str:
    """Remove the member at `path` (all duplicates of it, so it is really gone)."""
    keys = _check_path(path)
    root = _parse_object_root(text)
    parent = _find(root, keys[:-1]) if len(keys) > 1 else root
    if parent is None or parent.kind != "object" or parent.last_member(keys[-1]) is None:
        return text
    old = _loads(text)
    expected = copy.deepcopy(old)
    target = expected
    for key in keys[:-1]:
        target = target[key]
    del target[keys[-1]]
    new = text
    while True:
        node = _find(_parse_object_root(new), keys[:-1]) if len(keys) > 1 else _parse_object_root(new)
        assert node is not None
        indexes = [i for i, m in enumerate(node.members) if m.key == keys[-1]]
        if not indexes:
            break
        new = _remove_child(new, node, indexes[-1])
    return _checked(text, new, expected)


def _array_at(text: str, keys: list[str]) -> tuple[Node | None, Node | None]:
    root = _parse_object_root(text)
    node = _find(root, keys)
    if node is not None and node.kind != "array":
        raise JsonEditError(f"'{'.'.join(keys)}' is a {node.kind}, not an array", *_pos(text, node.start))
    return root, node


def array_add(text: str, path: Sequence[str], value: Any) -> str:
    """Append `value` to the array at `path` unless an equal item is already there."""
    keys = _check_path(path)
    root, array = _array_at(text, keys)
    if array is None:
        return set_key(text, keys, [value])
    if any(strict_equal(item.to_python(), value) for item in array.items):
        return text
    old = _loads(text)
    expected = copy.deepcopy(old)
    target = expected
    for key in keys:
        target = target[key]
    target.append(copy.deepcopy(value))
    style = _detect_style(text, root)
    multiline, item_sep = _layout_context(text, array, style)
    if array.items:
        last = array.items[-1]
        sep = _append_sep(text, array, [(i.start, i.end) for i in array.items], style)
        item_indent = _line_indent(text, last.start)
        item = _serialize(value, style, multiline and "\n" in sep, item_indent, item_sep)
        new = _splice(text, last.end, last.end, "," + sep + item)
    else:
        indent = _line_indent(text, array.start)
        if multiline:
            inner = indent + style.indent_unit
            item = _serialize(value, style, True, inner, "")
            replacement = "[" + style.newline + inner + item + style.newline + indent + "]"
        else:
            replacement = "[" + _serialize(value, style, False, "", item_sep) + "]"
        new = _splice(text, array.start, array.end, replacement)
    return _checked(text, new, expected)


def array_remove(text: str, path: Sequence[str], value: Any) -> str:
    """Remove every item equal to `value` from the array at `path`."""
    keys = _check_path(path)
    _root, array = _array_at(text, keys)
    if array is None or not any(strict_equal(i.to_python(), value) for i in array.items):
        return text
    old = _loads(text)
    expected = copy.deepcopy(old)
    target = expected
    for key in keys[:-1]:
        target = target[key]
    target[keys[-1]] = [v for v in target[keys[-1]] if not strict_equal(v, value)]
    new = text
    while True:
        _r, node = _array_at(new, keys)
        assert node is not None
        indexes = [i for i, item in enumerate(node.items) if strict_equal(item.to_python(), value)]
        if not indexes:
            break
        new = _remove_child(new, node, indexes[-1])
    return _checked(text, new, expected)
